"""Command-line config overrides (``env.<path>=<value>`` / ``agent.<path>=<value>``) and the checks ``train.py`` /
``play.py`` make before any env exists: overrides, resume checkpoints, video flags. No solver is stepped."""

import json
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # as `python scripts/NAME.py` does

import isaaclab_coupling_configs  # noqa: F401  (registers the tasks)
from isaaclab_contrib.envs import load_cfg_from_registry
from isaaclab_contrib.rl import CheckpointError, RslRlOnPolicyRunnerCfg
from isaaclab_contrib.rl.runs import checkpoint_iteration, find_checkpoint
from isaaclab_contrib.utils.configclass import MISSING
from isaaclab_contrib.utils.overrides import OverrideError, apply_overrides, overrides_record, parse_override

TASK = "Isaac-Press-Cloth-Direct-v0"
ARM_TASK = "Isaac-Arm-Press-Cloth-Direct-v0"


def _configs(task=TASK):
    return {
        "env": load_cfg_from_registry(task, "env_cfg_entry_point"),
        "agent": load_cfg_from_registry(task, "rsl_rl_cfg_entry_point"),
    }


def _apply(configs, *texts):
    return apply_overrides(configs, [parse_override(t) for t in texts])


def test_overrides_parse_by_the_declared_type_and_leave_the_given_configs_alone():
    configs = _configs(ARM_TASK)
    before = {name: cfg.to_dict() for name, cfg in configs.items()}
    out = _apply(
        configs,
        "env.scene.num_envs=16",  # int
        "agent.algorithm.learning_rate=3e-4",  # float
        "agent.algorithm.clip_param=1",  # an integer text for a float field
        "env.sim.device=cpu",  # str
        "agent.experiment_name='quoted'",  # quotes are removed
        "agent.actor.obs_normalization=false",  # bool
        "agent.algorithm.schedule=fixed",  # Literal
        "env.viewer.eye=(1, 2, 3)",  # tuple[float, float, float] | None
        "env.viewer.target=[0,0,0.25]",
        "env.viewer.env_index=None",  # int | None
        "agent.actor.hidden_dims=[32, 16]",  # list[int]
        "env.scene.arm.actuators.arm.stiffness=55",  # a dict entry's config field
    )
    env, agent = out["env"], out["agent"]
    assert env.scene.num_envs == 16 and isinstance(env.scene.num_envs, int)
    assert agent.algorithm.learning_rate == 3e-4
    assert agent.algorithm.clip_param == 1.0 and isinstance(agent.algorithm.clip_param, float)
    assert env.sim.device == "cpu" and agent.experiment_name == "quoted"
    assert agent.actor.obs_normalization is False and agent.algorithm.schedule == "fixed"
    assert env.viewer.eye == (1.0, 2.0, 3.0) and env.viewer.target == (0.0, 0.0, 0.25)
    assert env.viewer.env_index is None and agent.actor.hidden_dims == [32, 16]
    assert env.scene.arm.actuators["arm"].stiffness == 55.0
    assert env.sim.physics.solver_cfg is MISSING  # the unset default stays unset (the copy keeps the sentinel)
    # The configs given were not changed; every overridden config is still valid.
    assert {name: cfg.to_dict() for name, cfg in configs.items()} == before
    env.validate()
    agent.validate()
    assert overrides_record([parse_override("agent.seed=4")]) == ["agent.seed=4"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("env.scene.nope=1", r"env\.scene\.nope: PressClothSceneCfg has no field 'nope'; valid fields at env\.scene: "),
        ("agent.algorithm.lr=1", r"valid fields at agent\.algorithm: .*learning_rate"),
        ("agent.nope.deeper=1", r"agent\.nope: PressClothPPORunnerCfg has no field 'nope'; valid fields at agent: "),
        ("env.sim.physics.solver_cfg.iterations=3", r"env\.sim\.physics\.solver_cfg is not set \(MISSING\)"),
        ("env.seed.x=1", r"env\.seed\.x: env\.seed is not a config with fields \(it holds the int 0\)"),
    ],
)
def test_unknown_fields_are_named_with_the_valid_names_at_that_level(text, message):
    with pytest.raises(OverrideError, match=message):
        _apply(_configs(), text)


def test_unknown_field_lists_every_valid_name():
    with pytest.raises(OverrideError) as info:
        _apply(_configs(), "agent.algorithm.lr=1")
    for name in ("clip_param", "gamma", "learning_rate", "schedule", "desired_kl"):
        assert name in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("agent.max_iterations=abc", r"agent\.max_iterations: expected an integer, got 'abc'"),
        ("agent.max_iterations=1.5", r"agent\.max_iterations: expected an integer, got '1\.5'"),
        ("agent.algorithm.learning_rate=fast", r"agent\.algorithm\.learning_rate: expected a real number, got 'fast'"),
        ("agent.actor.obs_normalization=maybe", r"agent\.actor\.obs_normalization: expected a bool, got 'maybe'"),
        (
            "agent.algorithm.schedule=cosine",
            r"agent\.algorithm\.schedule: expected one of 'adaptive', 'fixed', got 'cosine'",
        ),
        (
            "env.viewer.eye=(1, 2)",
            r"env\.viewer\.eye must have 3 components, got 2.*\(from env\.viewer\.eye=\(1, 2\)\)",
        ),
        ("env.viewer.eye=up", r"env\.viewer\.eye: expected a sequence of 3 real numbers or None, got 'up'"),
        ("agent.actor.hidden_dims=[1.5]", r"agent\.actor\.hidden_dims: expected list\[int\] .*got '\[1\.5\]'"),
        ("agent.actor.hidden_dims=64", r"agent\.actor\.hidden_dims: expected list\[int\]"),
        ("agent.max_iterations=None", r"agent\.max_iterations: expected an integer, got 'None'"),
        ("agent.actor=3", r"agent\.actor is a nested config \(RslRlMlpModelCfg\); set its fields one by one"),
    ],
)
def test_values_of_the_wrong_type_name_the_path_the_type_and_the_text(text, message):
    with pytest.raises(OverrideError, match=message):
        _apply(_configs(), text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("agent.algorithm.learning_rate=-3e-4", r"agent\.algorithm\.learning_rate must be > 0, got -0\.0003"),
        ("agent.algorithm.gamma=1.5", r"agent\.algorithm\.gamma must be <= 1 \(allowed range \[0, 1\]\)"),
        ("env.scene.num_envs=0", r"env\.scene\.num_envs must be >= 1, got 0"),
        ("agent.max_iterations=0", r"agent\.max_iterations must be >= 1, got 0"),
        ("agent.seed=-1", r"agent\.seed must be"),
        ("env.viewer.width=5000", r"env\.viewer\.width must be <= 4096"),
        ("agent.algorithm.learning_rate=nan", r"agent\.algorithm\.learning_rate must not be NaN"),
    ],
)
def test_values_outside_the_declared_range_are_refused_with_the_path(text, message):
    with pytest.raises(OverrideError, match=message):
        _apply(_configs(), text)


@pytest.mark.parametrize("text", ["foo", "scene.num_envs=3", "env=3", "env..a=1", "env.=1"])
def test_the_form_of_an_override_is_checked(text):
    with pytest.raises(OverrideError, match=r"env\.<field path>=<value> or agent\.<field path>=<value>"):
        parse_override(text)


def test_a_failing_override_leaves_nothing_half_applied():
    configs = _configs()
    with pytest.raises(OverrideError):
        _apply(configs, "agent.max_iterations=7", "agent.algorithm.gamma=2")
    assert configs["agent"].max_iterations != 7


def test_overrides_on_plain_runner_configs_and_list_items():
    cfg = RslRlOnPolicyRunnerCfg()
    out = apply_overrides({"agent": cfg}, [parse_override("agent.actor.hidden_dims.1=8")])["agent"]
    assert out.actor.hidden_dims == [64, 8] and cfg.actor.hidden_dims == [64, 64]
    with pytest.raises(OverrideError, match=r"agent\.actor\.hidden_dims\.5: agent\.actor\.hidden_dims is a list of 2"):
        apply_overrides({"agent": cfg}, [parse_override("agent.actor.hidden_dims.5=8")])
    with pytest.raises(OverrideError, match=r"agent\.actor\.hidden_dims\.0: expected an integer, got 'x'"):
        apply_overrides({"agent": cfg}, [parse_override("agent.actor.hidden_dims.0=x")])


# ------------------------------------------------------------------------------ the scripts, before any env exists
def _no_env(*args, **kwargs):
    raise AssertionError("an env was built before the arguments were checked")


@pytest.fixture
def no_env(monkeypatch):
    import play
    import train

    monkeypatch.setattr(train, "make_env", _no_env)
    monkeypatch.setattr(play, "make_env", _no_env)
    monkeypatch.delenv("WORLD_SIZE", raising=False)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["env.scene.nope=1"],
            "invalid override for task Isaac-Press-Cloth-Direct-v0: env.scene.nope: PressClothSceneCfg has no field",
        ),
        (["agent.max_iterations=ten"], "agent.max_iterations: expected an integer, got 'ten'"),
        (["agent.algorithm.learning_rate=-1"], "agent.algorithm.learning_rate must be > 0, got -1.0"),
        (
            ["env.viewer.eye=(1,2,3)"],
            "after the overrides env.viewer.eye=(1,2,3): PressClothEnvCfg.viewer: CameraCfg.eye and",
        ),
        (["env.scene.num_envs=4", "agent.num_envs=8"], "env.scene.num_envs=4 and agent.num_envs=8 disagree"),
        (["bogus"], "expected an override env.<field path>=<value>"),
        (["--experiment_name", "../x"], "must be a single folder name"),
        (["--video_length", "0"], "must be >= 1"),
        (["--video_interval", "-5"], "must be >= 1"),
        (["--video_interval", "2.5"], "expected an integer"),
        (["--load_run", "x"], "--load_run needs --resume"),
        (["--checkpoint", "model_1.pt"], "--checkpoint needs --resume"),
    ],
)
def test_train_refuses_bad_overrides_and_flags_before_building_the_env(tmp_path, no_env, capsys, args, message):
    import train

    root = tmp_path / "logs"
    with pytest.raises(SystemExit) as info:
        train.main(["--task", TASK, "--log_root", str(root), *args])
    assert message in capsys.readouterr().err + str(info.value.code)
    assert not root.exists()  # no run folder was made


def test_play_refuses_bad_overrides_before_building_the_env(tmp_path, no_env, capsys):
    import play

    checkpoint = tmp_path / "model_0.pt"
    torch.save({"actor_state_dict": {}, "critic_state_dict": {}}, checkpoint)
    with pytest.raises(SystemExit) as info:
        play.main(["--task", TASK, "--checkpoint", str(checkpoint), "env.scene.num_envs=0"])
    assert "env.scene.num_envs must be >= 1, got 0" in str(info.value.code)
    with pytest.raises(SystemExit):
        play.main(["--task", TASK, "--checkpoint", str(checkpoint), "--video_length", "0"])
    assert "must be >= 1" in capsys.readouterr().err


def test_flags_then_overrides_precedence_and_linked_fields():
    import argparse

    from rl_common import add_common_arguments, parse_arguments, task_configs

    parser = argparse.ArgumentParser()
    add_common_arguments(parser)
    # Overrides may stand before, between or after the flags; they win over the flags for the same field.
    args = parse_arguments(
        parser, ["env.scene.num_envs=8", "--task", TASK, "--num_envs", "4", "--seed", "3", "agent.seed=5"]
    )
    env_cfg, agent_cfg = task_configs(args)
    assert env_cfg.scene.num_envs == agent_cfg.num_envs == 8  # the env side set: both follow
    assert env_cfg.seed == agent_cfg.seed == 5
    args = parse_arguments(parser, ["--task", TASK, "--num_envs", "4", "--device", "cpu", "agent.num_envs=6"])
    env_cfg, agent_cfg = task_configs(args)
    assert env_cfg.scene.num_envs == agent_cfg.num_envs == 6 and env_cfg.sim.device == "cpu"
    args = parse_arguments(parser, ["--task", TASK, "--device", "cpu", "env.sim.device=cuda:0"])
    assert task_configs(args)[0].sim.device == "cuda:0"
    assert args.argv[-1] == "env.sim.device=cuda:0"


def test_params_record_the_final_configs_and_the_overrides(tmp_path):
    import argparse

    from rl_common import add_common_arguments, parse_arguments, task_configs, write_params

    parser = argparse.ArgumentParser()
    add_common_arguments(parser)
    args = parse_arguments(parser, ["--task", TASK, "agent.algorithm.learning_rate=2e-4", "env.viewer.width=64"])
    env_cfg, agent_cfg = task_configs(args)
    params = write_params(tmp_path, env_cfg, agent_cfg, args)
    env = json.loads((params / "env.json").read_text())
    agent = json.loads((params / "agent.json").read_text())
    assert agent["algorithm"]["learning_rate"] == 2e-4 and env["viewer"]["width"] == 64
    assert env["class"] == "isaaclab_coupling_configs.press_cloth_task:PressClothEnvCfg"
    assert env["sim"]["physics"]["solver_cfg"] == "MISSING"
    record = json.loads((params / "overrides.json").read_text())
    assert record["overrides"] == ["agent.algorithm.learning_rate=2e-4", "env.viewer.width=64"]
    assert record["task"] == TASK and record["command_line"][:2] == ["--task", TASK]


# ------------------------------------------------------------------------------ resume: which checkpoint
def _touch_run(folder: Path, *files: str) -> Path:
    folder.mkdir(parents=True)
    for name in files:
        torch.save({"actor_state_dict": {}, "critic_state_dict": {}, "iter": 0}, folder / name)
    return folder


def test_find_checkpoint_takes_the_latest_run_and_the_highest_iteration(tmp_path):
    exp = tmp_path / "exp"
    old = _touch_run(exp / "2026-01-02_03-04-05-000001_seed0", "model_0.pt", "model_50.pt")
    collided = _touch_run(exp / "2026-01-02_03-04-05-000001-1_seed0", "model_0.pt", "model_9.pt", "model_10.pt")
    _touch_run(exp / "2026-01-02_03-04-05-000002_seed1_empty")  # the latest run has no checkpoint
    # model_10 comes after model_9 (by number, not by name); the collided run (-1) is later than its twin.
    assert find_checkpoint(tmp_path, "exp") == collided / "model_10.pt"
    assert find_checkpoint(tmp_path, "exp", load_run=old.name) == old / "model_50.pt"
    assert find_checkpoint(tmp_path, "exp", load_run=".*000001_seed0") == old / "model_50.pt"
    assert find_checkpoint(tmp_path, "exp", checkpoint="model_9.pt") == collided / "model_9.pt"
    assert find_checkpoint(tmp_path, "exp", checkpoint=r"model_[0-9]\.pt") == collided / "model_9.pt"
    assert checkpoint_iteration("model_12.pt") == 12 and checkpoint_iteration("policy.pt") is None


def test_find_checkpoint_names_what_is_missing_and_lists_what_exists(tmp_path):
    run = _touch_run(tmp_path / "exp" / "2026-01-02_03-04-05-000001_seed0", "model_0.pt", "model_1.pt")
    (tmp_path / "other").mkdir()
    with pytest.raises(CheckpointError, match=r"no experiment folder .*'nope'.*experiments in .*: exp, other"):
        find_checkpoint(tmp_path, "nope")
    with pytest.raises(
        CheckpointError, match=rf"--load_run 'gone': no run folder .*runs there \(oldest first\): {run.name}"
    ):
        find_checkpoint(tmp_path, "exp", load_run="gone")
    with pytest.raises(
        CheckpointError,
        match=r"--checkpoint: run .* has no checkpoint named or matching 'model_7.pt'; checkpoints there: model_0.pt, model_1.pt",
    ):
        find_checkpoint(tmp_path, "exp", load_run=run.name, checkpoint="model_7.pt")
    with pytest.raises(
        CheckpointError, match=r"--load_run '\[' is neither an existing name nor a valid regular expression"
    ):
        find_checkpoint(tmp_path, "exp", load_run="[")
    with pytest.raises(
        CheckpointError, match=r"run .* has no checkpoint named or matching 'best\.pt'; checkpoints there: model_0"
    ):
        find_checkpoint(tmp_path, "exp", checkpoint="best.pt")
    _touch_run(tmp_path / "exp" / "2026-01-02_03-04-05-000002_seed0", "model_5.pt")
    with pytest.raises(
        CheckpointError,
        match=r"none of the runs in .* holds a checkpoint named or matching 'best\.pt'; runs there \(oldest first\): "
        r".*000001_seed0, .*000002_seed0; checkpoints in the latest, .*000002_seed0: model_5\.pt",
    ):
        find_checkpoint(tmp_path, "exp", checkpoint="best.pt")


def test_train_resume_errors_come_before_the_env_and_the_run_folder(tmp_path, no_env):
    import train

    base = ["--task", TASK, "--log_root", str(tmp_path), "--resume"]
    with pytest.raises(SystemExit) as info:
        train.main(base)
    assert "cannot resume: --resume: no experiment folder" in str(info.value.code) and "press_cloth" in str(
        info.value.code
    )
    run = _touch_run(tmp_path / "press_cloth" / "2026-01-02_03-04-05-000001_seed0", "model_3.pt")
    with pytest.raises(SystemExit) as info:
        train.main([*base, "--load_run", "missing_run"])
    assert f"runs there (oldest first): {run.name}" in str(info.value.code)
    with pytest.raises(SystemExit) as info:
        train.main([*base, "--checkpoint", "model_9.pt"])
    assert "checkpoints there: model_3.pt" in str(info.value.code)
    (run / "model_4.pt").write_bytes(b"")  # the latest checkpoint is unreadable: named, before anything is built
    with pytest.raises(SystemExit) as info:
        train.main(base)
    assert "model_4.pt" in str(info.value.code) and "the file is empty" in str(info.value.code)
    # --experiment_name picks the experiment folder the resume looks in.
    with pytest.raises(SystemExit) as info:
        train.main([*base, "--experiment_name", "elsewhere"])
    assert "no experiment folder" in str(info.value.code) and "'elsewhere'" in str(info.value.code)
    assert sorted(p.name for p in (tmp_path / "press_cloth").iterdir()) == [run.name]  # no new run folder
