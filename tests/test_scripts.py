"""The scripts run end to end on tiny settings, and from any working directory."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pxr import Usd, UsdGeom

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # as `python scripts/NAME.py` does

import inspect_ownership
import run

from isaaclab_coupling_configs.ant_on_hammock import AntOnHammockSceneCfg

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def test_main_job_default_scene_writes_usda_and_png(tmp_path, capsys):
    result = run.main(["--frames", "3", "--output", str(tmp_path), "--no-video"])
    out = capsys.readouterr().out
    assert "Scene 'ant_on_hammock'" in out and "Coupling: CouplerAdmmCfg -> newton SolverCoupledADMM" in out
    assert "Stepping: captured" in out and "env steps/s" in out
    assert result["finite"] and result["step_mode"] == "captured"  # the actuated ant captures on the CPU
    # The gait drove the eight leg joints: targets changed, and the plot got their targets and positions.
    joints = result["joints"]
    assert sorted(joints) == sorted([f"hip_{i}" for i in range(1, 5)] + [f"ankle_{i}" for i in range(1, 5)])
    for target, position in joints.values():
        assert target.shape == position.shape == (4,) and np.ptp(target) > 0.0
    assert result["png"].stat().st_size > 10_000
    stage = Usd.Stage.Open(str(result["usda"]))
    assert stage.GetEndTimeCode() == 3
    bodies = [
        p
        for p in stage.Traverse()
        if p.GetParent().GetName() != "envs" and p.IsA(UsdGeom.Xform) and "Robot" in str(p.GetPath())
    ]
    animated = [p for p in bodies if UsdGeom.Xformable(p).GetOrderedXformOps()]
    assert len(animated) == 9  # every ant body
    for prim in animated:
        assert UsdGeom.Xformable(prim).GetOrderedXformOps()[0].GetAttr().GetNumTimeSamples() == 4
    points = UsdGeom.Points(stage.GetPrimAtPath("/World/envs/env_0/Particles"))
    assert points.GetPointsAttr().GetNumTimeSamples() == 4
    cells = AntOnHammockSceneCfg().hammock.cells
    assert len(points.GetPointsAttr().Get(3)) == (cells + 1) ** 2  # every hammock particle
    # The recorded last frame matches the simulated heights.
    torso = UsdGeom.Xformable(stage.GetPrimAtPath(animated[0].GetPath()))
    z = torso.ComputeLocalToWorldTransform(Usd.TimeCode(3)).ExtractTranslation()[2]
    assert np.isclose(z, result["heights"][-1, 0, 0], atol=1e-4)


def test_main_job_runs_a_captured_scene(tmp_path):
    result = run.main(["--scene", "grains_on_cloth", "--frames", "5", "--output", str(tmp_path), "--no-video"])
    assert result["captured"] and result["finite"] and result["usda"].exists()
    assert result["mp4"] is None and not (tmp_path / "grains_on_cloth.mp4").exists()


def test_main_job_writes_a_video_whose_frames_decode_and_differ(tmp_path):
    from isaaclab_contrib.utils.video import read_video

    result = run.main(
        [
            "--scene",
            "box_on_cloth",
            "--frames",
            "6",
            "--output",
            str(tmp_path),
            "--video_width",
            "64",
            "--video_height",
            "48",
        ]
    )
    frames = read_video(result["mp4"])
    assert frames.shape == (6, 48, 64, 3)
    assert frames[0].std() > 1.0  # the scene is in view, not a blank frame
    assert np.abs(frames[-1].astype(int) - frames[0].astype(int)).sum() > 0  # the box falls onto the cloth
    # The video renders after each step, outside the step program: the physics stays one captured graph.
    assert result["step_mode"] == "captured"
    video = result["summary"]["video"]
    assert (video["width"], video["height"]) == (64, 48) and video["render_s_per_frame"] > 0.0


def test_ownership_report_lists_entries_and_interfaces(capsys):
    report = inspect_ownership.main(["--scene", "tool_in_sand", "--num-envs", "2"])
    assert "tool        SteelSolverCfg               2       2       3         0  yes" in report
    assert "Proxy tool -> sand (lagged): 2 bodies" in report
    assert "Static shapes: /World/ground" in report
    report = inspect_ownership.main(["--scene", "box_on_cloth_admm", "--num-envs", "1"])
    assert "ADMM contact pairs: box <-> cloth" in report


def test_ownership_report_shows_view_settings_and_proxy_joints():
    report = inspect_ownership.main(["--scene", "xpbd_vbd_coupled", "--num-envs", "1"])
    assert "[grains]" in report and "  view hides: springs, triangles, edges, tetrahedra" in report
    report = inspect_ownership.main(["--scene", "proxy_joint_gripper_harsh", "--num-envs", "2"])
    assert "6 proxy joints [/World/envs/env_0/Gripper/palm_weld, /World/envs/env_0/Gripper/left_finger_slide" in report
    report = inspect_ownership.main(["--scene", "mujoco_vbd_admm", "--num-envs", "1"])
    assert "Joints across entries (ADMM couples them): /World/envs/env_0/Payload/ball_joint" in report
    assert "(update_joint_coordinates)" in report


@pytest.mark.slow  # a training run
def test_training_script_trains_with_rsl_rl_exports_and_plays(tmp_path):
    import json

    import play
    import train

    task = "Isaac-Arm-Press-Cloth-Direct-v0"
    common = ["--task", task, "--num_envs", "2", "--eval_episodes", "1", "--seed", "3"]
    result = train.main([*common, "--max_iterations", "2", "--log_root", str(tmp_path)])
    assert result["env_steps"] == 2 * 24 * 2 and result["seed"] == 3
    (run,) = (tmp_path / "arm_press_cloth").iterdir()
    assert run.name.endswith("_seed3")
    assert list(run.glob("events.out.tfevents.*"))  # rsl-rl's tensorboard log
    assert (run / "model_1.pt").exists() and (run / "exported" / "policy.onnx").exists()
    assert (run / "learning_curve.png").stat().st_size > 10_000
    saved = json.loads((run / "result.json").read_text())
    assert saved["oracle_return"] > saved["random_return"] and saved["trained_return"] == result["trained_return"]
    # The checkpoint and its TorchScript export act identically on the same episodes.
    from_checkpoint = play.main([*common, "--checkpoint", str(run / "model_1.pt"), "--no_export"])
    from_export = play.main([*common, "--checkpoint", str(run / "exported" / "policy.pt")])
    assert from_checkpoint["policy_return"] == pytest.approx(result["trained_return"], abs=1e-4)
    assert from_export["policy_return"] == pytest.approx(from_checkpoint["policy_return"], abs=1e-4)
    # A policy of another task is refused with a message naming the file.
    other = ["--task", "Isaac-Press-Cloth-Direct-v0", "--num_envs", "2", "--eval_episodes", "1"]
    for path in (run / "model_1.pt", run / "exported" / "policy.pt"):
        with pytest.raises(SystemExit, match=str(path)):
            play.main([*other, "--checkpoint", str(path), "--no_export"])


def test_rl_scripts_refuse_bad_arguments(tmp_path, capsys):
    import play
    import train

    with pytest.raises(SystemExit):
        train.main(["--task", "Isaac-No-Such-Task-v0"])
    assert "registered coupled tasks" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["--num_envs", "0"])
    with pytest.raises(SystemExit):
        play.main(["--checkpoint", str(tmp_path / "missing.pt")])
    assert f"checkpoint '{tmp_path / 'missing.pt'}': no such file" in capsys.readouterr().err


def _no_env(*args, **kwargs):
    raise AssertionError("an env was built before the arguments were checked")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--run_name", "../.."], "must be a single folder name"),
        (["--run_name", "a/b"], "must be a single folder name"),
        (["--run_name", ".hidden"], "must be a single folder name"),
        (["--log_root", "{file}"], "the log root is a file"),
        (["--log_root", "{file}/below"], "above the log root, is a file"),
        (["--seed", "-1"], "seed must be in"),
        (["--seed", str(2**64)], "seed must be in"),
        (["--seed", "1.5"], "expected an integer seed"),
        (["--task", "Isaac-No-Such-Task-v0"], "registered coupled tasks"),
        (["--num_envs", "0"], "must be >= 1"),
        (["--max_iterations", "-3"], "must be >= 1"),
        (["--device", "gpu"], "SimulationCfg.device must be a Warp device alias"),
        (["--distributed"], "--distributed needs torchrun"),
    ],
)
def test_train_checks_every_argument_before_any_expensive_work(tmp_path, monkeypatch, capsys, args, message):
    import train

    monkeypatch.setattr(train, "make_env", _no_env)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    file = tmp_path / "a_file"
    file.write_text("not a folder")
    root = tmp_path / "logs"
    argv = ["--log_root", str(root), *(a.replace("{file}", str(file)) for a in args)]
    with pytest.raises(SystemExit) as info:
        train.main(argv)
    assert message in capsys.readouterr().err + str(info.value.code)
    assert not root.exists()  # no run folder was made


def test_train_under_torchrun_without_distributed_is_refused(monkeypatch, capsys):
    import train

    monkeypatch.setattr(train, "make_env", _no_env)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("LOCAL_RANK", "0")
    with pytest.raises(SystemExit):
        train.main([])
    assert "started by torchrun with WORLD_SIZE=2: add --distributed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", r"the file is empty \(0 bytes\)"),
        (b"PK\x03\x04 truncated zip", "not a TorchScript policy or torch checkpoint"),
        ("tensor", "a torch file but not an rsl-rl checkpoint"),
        ("folder", "not a file"),
    ],
)
def test_play_reads_and_checks_the_checkpoint_before_building_the_env(tmp_path, monkeypatch, capsys, content, message):
    import re

    import play
    import torch

    monkeypatch.setattr(play, "make_env", _no_env)
    path = tmp_path / "model_0.pt"
    if content == "tensor":
        torch.save(torch.zeros(2), path)
    elif content == "folder":
        path.mkdir()
    else:
        path.write_bytes(content)
    with pytest.raises(SystemExit):
        play.main(["--checkpoint", str(path)])
    err = capsys.readouterr().err
    assert f"checkpoint '{path}'" in err and re.search(message, err), err


def test_train_runs_started_at_the_same_time_get_their_own_folders(tmp_path, monkeypatch):
    from datetime import datetime

    import train

    import isaaclab_contrib.rl.runs as runs

    class FrozenClock(datetime):
        @classmethod
        def now(cls, tz=None):
            return cls(2026, 1, 2, 3, 4, 5, 6)

    folders = []

    def fake_train(args, env_cfg, agent_cfg, train_cfg, log_dir, context, runner_class):
        folders.append(log_dir)
        (log_dir / "result.json").write_text("{}")
        return {}

    monkeypatch.setattr(runs, "datetime", FrozenClock)
    monkeypatch.setattr(train, "_train", fake_train)
    for _ in range(3):
        train.main(["--log_root", str(tmp_path), "--seed", "4", "--run_name", "same"])
    names = sorted(p.name for p in (tmp_path / "arm_press_cloth").iterdir())
    assert len(set(folders)) == 3 and names == [
        "2026-01-02_03-04-05-000006-1_seed4_same",
        "2026-01-02_03-04-05-000006-2_seed4_same",
        "2026-01-02_03-04-05-000006_seed4_same",
    ]

    def failing_train(args, env_cfg, agent_cfg, train_cfg, log_dir, context, runner_class):
        raise RuntimeError("the env could not be built")

    monkeypatch.setattr(train, "_train", failing_train)
    with pytest.raises(RuntimeError, match="could not be built"):
        train.main(["--log_root", str(tmp_path / "other")])
    assert list((tmp_path / "other" / "arm_press_cloth").iterdir()) == []  # its empty run folder was removed


@pytest.mark.slow  # profiles a scene per stage
def test_profile_step_reports_stages_entries_and_launches(tmp_path, capsys):
    import json
    import re

    import profile_step

    path = tmp_path / "profile.json"
    (result,) = profile_step.main(["--scene", "box_on_cloth", "--steps", "2", "--warmup", "1", "--json", str(path)])
    out = capsys.readouterr().out
    assert json.loads(path.read_text()) == [json.loads(json.dumps(result))]  # the JSON is what was measured
    # The printed table parses: two positive numbers (captured, eager) per timed row.
    rows = {}
    for line in out.splitlines():
        match = re.fullmatch(r"\s+(.+?)\s{2,}(-|\d+\.\d+)\s+(\d+\.\d+)", line)
        if match:
            rows[match[1].strip()] = (match[2], float(match[3]))
    for name in ("env steps/s", "ms per env step", "collide", "substeps", "sum of stages"):
        captured, eager = rows[name]
        assert float(captured) > 0 and eager > 0, name
    for entry in ("box", "cloth"):
        captured, eager = rows[f"entry {entry} solver"]
        assert float(captured) > 0 and eager > 0
    assert re.search(r"kernel launches per env step\s+(\d+)", out) and result["eager"]["kernel_launches"] > 100
    assert result["captured"]["step_mode"] == "captured" and result["eager"]["step_mode"] == "eager"
    assert result["eager"]["coupling_iterations"] == 4 * 2  # 4 physics steps x 2 proxy passes
    for mode in ("captured", "eager"):
        stages = result[mode]["stages_ms"]
        assert set(stages) == {"collide", "substeps"} and all(v > 0 for v in stages.values())
    eager = result["eager"]
    assert sum(eager["entries_ms"].values()) < eager["stages_ms"]["substeps"]  # the entries run inside substeps
    assert eager["launches_by_stage"]["collide"] > 0 and sum(eager["launches_by_stage"].values()) == pytest.approx(
        eager["kernel_launches"]
    )


@pytest.mark.slow
def test_benchmark_train_compares_one_and_two_processes():
    import benchmark_train

    result = benchmark_train.main(["--num_envs", "1", "--steps", "3", "--rounds", "1"])
    assert result["single"] > 0 and result["multi"] > 0 and result["ratio"] > 0


@pytest.mark.slow  # a benchmark run
def test_benchmark_env_reports_captured_and_eager_rates():
    import benchmark_env

    (row,) = benchmark_env.main(["--num_envs", "2", "--steps", "4"])
    assert row["num_envs"] == 2 and row["captured"] > 0 and row["eager"] > 0


@pytest.mark.slow  # one fresh interpreter per script
@pytest.mark.parametrize(
    ("script", "args", "expect"),
    [
        ("inspect_ownership.py", ["--scene", "box_on_cloth", "--num-envs", "1"], "Proxy box -> cloth"),
        ("run.py", ["--help"], "--scene"),
        ("train.py", ["--help"], "--max_iterations"),
        ("play.py", ["--help"], "--checkpoint"),
        ("benchmark_env.py", ["--help"], "--num_envs"),
        ("benchmark_manager.py", ["--help"], "--worlds"),
        ("benchmark_train.py", ["--help"], "--processes"),
        ("profile_step.py", ["--help"], "--scene"),
    ],
)
def test_scripts_run_from_any_working_directory(tmp_path, script, args, expect):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / script), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert expect in result.stdout


@pytest.mark.slow  # two short trainings and a play: about 30 s
def test_training_script_trains_a_manager_based_task_with_overrides_resume_and_play(tmp_path):
    """``train.py`` / ``play.py`` on a manager-based task: a term weight overridden from the command line, a
    resumed run, a played checkpoint (actions clipped as in training)."""
    import json

    import play
    import train

    task = "Isaac-Arm-Press-Cloth-v0"
    common = ["--task", task, "--num_envs", "2", "--eval_episodes", "1", "--seed", "1", "--log_root", str(tmp_path)]
    result = train.main([*common, "--max_iterations", "1", "env.rewards.action_rate.weight=-0.25"])
    (run,) = (tmp_path / "arm_press_cloth_manager").iterdir()
    params = (run / "params" / "env.json").read_text() if (run / "params" / "env.json").exists() else ""
    saved = json.loads((run / "result.json").read_text())
    assert saved["oracle_return"] > saved["random_return"] and saved["trained_return"] == result["trained_return"]
    assert "-0.25" in params or any("-0.25" in p.read_text() for p in (run / "params").iterdir())
    resumed = train.main([*common, "--max_iterations", "1", "--resume"])
    assert resumed["trained_return"] == pytest.approx(resumed["trained_return"])  # a number, not a crash
    override = "env.rewards.action_rate.weight=-0.25"
    played = play.main([*common[:-2], "--checkpoint", str(run / "model_0.pt"), "--no_export", override])
    assert played["policy_return"] == pytest.approx(result["trained_return"], abs=1e-4)


def test_reference_returns_leave_a_manager_based_env_as_they_found_it():
    """The random and oracle references are evaluated from one checkpoint and put the env back: its step counter
    (which curricula read) and its simulation state are the same after them."""
    import torch
    from rl_common import make_env, reference_returns

    from isaaclab_coupling_configs.arm_press_cloth_manager_task import TASK_ID, ArmPressClothManagerEnvCfg

    cfg = ArmPressClothManagerEnvCfg()
    cfg.scene.num_envs = 2
    cfg.episode_length_s = 0.2
    env = make_env(TASK_ID, cfg)
    try:
        unwrapped = env.unwrapped
        unwrapped.reset(seed=0)
        for _ in range(3):
            unwrapped.step(torch.zeros(2, unwrapped.action_manager.total_action_dim))
        counter = unwrapped.common_step_counter
        before = unwrapped.manager.save_state()
        returns = reference_returns(TASK_ID, env, episodes=1, seed=0)
        assert returns["oracle_return"] is not None and returns["oracle_return"] != returns["random_return"]
        assert unwrapped.common_step_counter == counter == 3
        after = unwrapped.manager.save_state()
        assert after.arrays.keys() == before.arrays.keys()
        changed = [k for k, v in before.arrays.items() if after.arrays[k].tobytes() != v.tobytes()]  # bitwise
        assert changed == []
    finally:
        env.close()
