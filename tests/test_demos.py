"""Demonstrations: a task's oracle recorded into an HDF5 dataset in Isaac Lab's layout, read back with plain h5py,
and replayed bitwise from each demo's initial state; a tampered action is caught."""

import json
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # as `python scripts/NAME.py` does

import record_demos
import replay_demos

from isaaclab_contrib.utils.datasets import HDF5DatasetFileHandler


@pytest.mark.slow  # ~9 s; the dataset and reset_to refusals stay in the default set
def test_record_replay_and_the_file_layout(tmp_path):
    path = tmp_path / "arm.hdf5"
    result = record_demos.main(["--num_demos", "2", "--num_envs", "2", "--dataset_file", str(path), "--seed", "4"])
    assert result["demos"] == 2 and path.exists()
    with h5py.File(path, "r") as f:  # Isaac Lab's layout, read without this package
        data = f["data"]
        env_args = json.loads(data.attrs["env_args"])
        assert env_args["env_name"] == "Isaac-Arm-Press-Cloth-v0" and env_args["num_envs"] == 2
        assert sorted(data.keys()) == ["demo_0", "demo_1"]
        demo = data["demo_0"]
        steps = int(demo.attrs["num_samples"])
        assert steps == 120 and bool(demo.attrs["success"]) and int(data.attrs["total"]) == 2 * steps
        assert demo["actions"].shape == (steps, 2) and demo["obs"].shape == (steps, 10)
        assert demo["states/articulation/arm/joint_position"].shape == (steps, 2)
        assert demo["states/deformable_object/cloth/nodal_position"].shape == (steps, 25, 3)
        assert demo["initial_state/articulation/arm/joint_position"].shape == (1, 2)
        assert np.isfinite(demo["actions"][()]).all()
    assert all(replay_demos.main(["--dataset_file", str(path)]).values())

    with h5py.File(path, "r+") as f:  # one action changed: the replay must notice
        actions = f["data/demo_1/actions"]
        changed = actions[()]
        changed[60, 0] += 0.5
        actions[...] = changed
    with pytest.raises(SystemExit) as exit_info:
        replay_demos.main(["--dataset_file", str(path)])
    assert exit_info.value.code == 1


def test_record_writes_the_demos_asked_when_more_episodes_end_together(tmp_path):
    path = tmp_path / "one.hdf5"  # both envs run out their time in the same step; one demo is asked
    result = record_demos.main(["--num_demos", "1", "--num_envs", "2", "--dataset_file", str(path), "--seed", "4"])
    assert result["demos"] == 1 and result["episodes_not_written"] == 1
    with h5py.File(path, "r") as f:
        assert list(f["data"].keys()) == ["demo_0"]
        assert int(f["data"].attrs["total"]) == int(f["data/demo_0"].attrs["num_samples"])


def test_the_dataset_handler_refuses_what_is_not_a_dataset(tmp_path):
    handler = HDF5DatasetFileHandler()
    with pytest.raises(FileNotFoundError, match="no dataset file"):
        handler.open(str(tmp_path / "missing.hdf5"))
    text = tmp_path / "notes.hdf5"
    text.write_text("not hdf5")
    with pytest.raises(ValueError, match="not an HDF5 file"):
        handler.open(str(text))
    with h5py.File(tmp_path / "other.hdf5", "w") as f:
        f.create_group("something")
    with pytest.raises(ValueError, match="no 'data' group"):
        handler.open(str(tmp_path / "other.hdf5"))
    with pytest.raises(RuntimeError, match="no file is open"):
        handler.get_episode_names()
    with pytest.raises(SystemExit, match="no dataset file"):
        replay_demos.main(["--dataset_file", str(tmp_path / "missing.hdf5")])


@pytest.mark.slow  # records 8 demos and trains for a few seconds
def test_behaviour_cloning_from_a_dataset(tmp_path):
    import train_bc

    path = tmp_path / "arm.hdf5"
    record_demos.main(["--num_demos", "8", "--num_envs", "4", "--dataset_file", str(path)])
    result = train_bc.main(["--dataset_file", str(path), "--epochs", "60", "--eval_episodes", "1"])
    assert result["loss"] < 1e-3 and Path(result["policy"]).exists()
    assert result["cloned_return"] > 0.8 * result["oracle_return"]


def test_reset_to_refuses_a_bad_state_before_it_resets_anything():
    import torch

    from isaaclab_contrib.envs import ManagerBasedRLEnv
    from isaaclab_coupling_configs.arm_press_cloth_manager_task import ArmPressClothManagerEnvCfg

    cfg = ArmPressClothManagerEnvCfg()
    cfg.scene.num_envs = 2
    env = ManagerBasedRLEnv(cfg)
    try:
        env.reset()
        for _ in range(3):
            env.step(torch.zeros(2, 2))
        state = env.scene.get_state(is_relative=True)
        nodes = env.scene["cloth"].data.nodal_pos_w.torch.clone()
        missing = {
            "deformable_object": {
                "cloth": {"nodal_position": state["deformable_object"]["cloth"]["nodal_position"][:1]}
            }
        }
        with pytest.raises(KeyError, match="misses 'nodal_velocity'"):
            env.reset_to(missing, [0], is_relative=True)
        nan = {
            "articulation": {
                "arm": {k: torch.full_like(v[:1], float("nan")) for k, v in state["articulation"]["arm"].items()}
            }
        }
        with pytest.raises(ValueError, match="non-finite"):
            env.reset_to(nan, [0], is_relative=True)
        with pytest.raises(ValueError, match=r"must have shape \(1, 2\)"):
            env.reset_to({"articulation": {"arm": {k: v for k, v in state["articulation"]["arm"].items()}}}, [0])
        assert env.episode_length_buf.tolist() == [3, 3]  # no env was reset
        assert torch.equal(env.scene["cloth"].data.nodal_pos_w.torch, nodes)
    finally:
        env.close()
