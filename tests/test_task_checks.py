"""A task is run with its own configs and checkpoints only: another task's env config, another task's checkpoint
(``train.py --resume``, ``play.py``) are refused by name before the env is built; a sensor's particle index
beyond the model is called out of range."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

from isaaclab_contrib.envs import check_env_cfg, check_task_cfg, load_cfg_from_registry
from isaaclab_contrib.physics import NewtonCfg, NewtonManager, SimulationCfg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # as `python scripts/NAME.py` does

TASK = "Isaac-Press-Cloth-Direct-v0"
OTHER = "Isaac-Arm-Press-Cloth-Direct-v0"


def _no_env(*args, **kwargs):
    raise AssertionError("the env was built: the refusal must come before")


# ------------------------------------------------------------------------------------------- env configs
def test_another_tasks_config_is_refused_naming_both_classes_before_anything_is_built():
    import rl_common

    other_cfg = load_cfg_from_registry(OTHER, "env_cfg_entry_point")
    with pytest.raises(TypeError) as info:
        rl_common.make_env(TASK, other_cfg)
    message = str(info.value)
    assert f"task {TASK!r}: cfg is a isaaclab_coupling_configs.arm_press_cloth_task.ArmPressClothEnvCfg" in message
    assert "this task's config is isaaclab_coupling_configs.press_cloth_task.PressClothEnvCfg" in message
    assert NewtonManager._current_session() is None  # no simulation was started


def test_gymnasium_make_with_another_tasks_config_is_refused_by_the_env_before_a_simulation_starts():
    import gymnasium as gym

    import isaaclab_coupling_configs  # noqa: F401  (registers the tasks)

    other_cfg = load_cfg_from_registry(OTHER, "env_cfg_entry_point")
    with pytest.raises(TypeError, match=r"PressClothEnv: cfg is a isaaclab_coupling_configs\.arm_press_cloth_task"):
        gym.make(TASK, cfg=other_cfg)
    assert NewtonManager._current_session() is None


def test_the_tasks_own_config_and_subclasses_of_it_pass():
    from isaaclab_coupling_configs.press_cloth_task import PressClothEnvCfg

    class TunedPressClothEnvCfg(PressClothEnvCfg):
        pass

    check_task_cfg(TASK, load_cfg_from_registry(TASK, "env_cfg_entry_point"))
    check_env_cfg(TunedPressClothEnvCfg(), "isaaclab_coupling_configs.press_cloth_task:PressClothEnvCfg", "here")
    with pytest.raises(TypeError, match=r"here: cfg is a builtins\.dict"):
        check_env_cfg({}, PressClothEnvCfg, "here")
    with pytest.raises(KeyError, match="'Isaac-Nope-v0' is not registered"):
        check_task_cfg("Isaac-Nope-v0", {})


# ------------------------------------------------------------------------------------------- checkpoints
def _checkpoint(folder: Path, task: str, env_class: str) -> Path:
    """A run folder as train.py writes it: params recording the task, and an rsl-rl checkpoint file."""
    (folder / "params").mkdir(parents=True)
    (folder / "params" / "overrides.json").write_text(json.dumps({"task": task, "overrides": [], "command_line": []}))
    (folder / "params" / "env.json").write_text(json.dumps({"class": env_class}))
    path = folder / "model_3.pt"
    torch.save({"actor_state_dict": {}, "critic_state_dict": {}, "iter": 3}, path)
    return path


def test_train_resume_from_another_tasks_checkpoint_is_refused_before_the_env_is_built(tmp_path, monkeypatch):
    import train

    run = tmp_path / "press_cloth" / "2026-01-01_00-00-00-000000_seed0"
    path = _checkpoint(run, OTHER, "isaaclab_coupling_configs.arm_press_cloth_task:ArmPressClothEnvCfg")
    monkeypatch.setattr(train, "make_env", _no_env)
    with pytest.raises(SystemExit) as info:
        train.main(["--task", TASK, "--num_envs", "2", "--log_root", str(tmp_path), "--resume"])
    message = str(info.value)
    assert str(path) in message and f"trained on task {OTHER!r}" in message and f"not {TASK!r}" in message
    assert sorted(p.name for p in (tmp_path / "press_cloth").iterdir()) == [run.name]  # no new run folder


def test_a_checkpoint_recording_another_env_config_is_refused_too(tmp_path, monkeypatch):
    import train

    run = tmp_path / "press_cloth" / "2026-01-01_00-00-00-000000_seed0"
    _checkpoint(run, TASK, "isaaclab_coupling_configs.arm_press_cloth_task:ArmPressClothEnvCfg")
    monkeypatch.setattr(train, "make_env", _no_env)
    with pytest.raises(SystemExit, match=r"trained with the env config .*ArmPressClothEnvCfg .*not .*PressClothEnvCfg"):
        train.main(["--task", TASK, "--num_envs", "2", "--log_root", str(tmp_path), "--resume"])


def test_play_with_another_tasks_checkpoint_is_refused_before_the_env_is_built(tmp_path, monkeypatch):
    import play

    path = _checkpoint(tmp_path / "run", OTHER, "isaaclab_coupling_configs.arm_press_cloth_task:ArmPressClothEnvCfg")
    monkeypatch.setattr(play, "make_env", _no_env)
    with pytest.raises(SystemExit, match=rf"\[play\] .*model_3.pt was trained on task {OTHER!r}"):
        play.main(["--task", TASK, "--num_envs", "1", "--checkpoint", str(path), "--no_export"])


# ------------------------------------------------------------------------------------------- sensor indices
def test_a_particle_index_beyond_the_model_is_out_of_range_not_unowned():
    from isaaclab_contrib.scenes import launch
    from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg

    scene = BoxOnClothSceneCfg(num_envs=1, coupling="admm")
    scene.cloth.cells, scene.cloth.cell_size = 2, 0.2
    sim_cfg = SimulationCfg(dt=1 / 240, device="cpu", physics=NewtonCfg(decimation=1))

    def add_sensor(manager):
        manager.add_interface_force_sensor("cloth", "box", particles=[10**6])

    with pytest.raises(ValueError) as info:
        launch(scene, sim_cfg, setup=add_sensor)
    message = str(info.value)
    assert "particles [1000000] are out of range: the model has 9 particles (indices 0 .. 8)" in message
    assert "not owned" not in message
