"""Rendered frames and video: ``render_mode="rgb_array"`` for every registered task, and mp4 files that decode.

Scenes: the registered tasks (one env each), which show a cloth pressed by a sphere or an arm.
"""

import gymnasium as gym
import numpy as np
import pytest
import torch

import isaaclab_coupling_configs  # noqa: F401  (registers the tasks)
from isaaclab_contrib.envs import load_cfg_from_registry
from isaaclab_contrib.scenes import CameraCfg
from isaaclab_contrib.utils.video import VideoWriter, read_video, tile_frames

TASKS = sorted(spec.id for spec in gym.registry.values() if "env_cfg_entry_point" in (spec.kwargs or {}))
# The Franka tasks build a robot from a URDF with convex-hull collision meshes: slow tier.
RENDER_CASES = [pytest.param(t, marks=pytest.mark.slow) if "Franka" in t else t for t in TASKS]


def test_the_video_writer_writes_frames_that_decode_and_differ(tmp_path):
    path = tmp_path / "clip" / "ramp.mp4"
    with VideoWriter(path, fps=30) as video:
        for i in range(12):
            frame = np.zeros((31, 45, 3), dtype=np.uint8)  # odd sizes: padded to even for H.264
            frame[:, : 3 * i + 1] = (200, 40, 40)
            video.write(frame)
    frames = read_video(path)
    assert frames.shape == (12, 32, 46, 3)
    # A red bar growing to the right: the red share of the frames grows (lossy codec: compare means).
    red = frames[..., 0].mean(axis=(1, 2))
    assert np.all(np.diff(red) > 0)
    assert VideoWriter(tmp_path / "none.mp4", fps=30).close() is None  # no frame, no file
    with pytest.raises(ValueError, match="uint8"):
        VideoWriter(tmp_path / "bad.mp4", fps=30).write(np.zeros((4, 4, 3)))
    with pytest.raises(ValueError, match="fps"):
        VideoWriter(tmp_path / "bad.mp4", fps=float("nan"))
    with pytest.raises(ValueError, match=r"\.mp4"):
        VideoWriter(tmp_path / "bad.avi", fps=30)


def test_tile_frames_makes_a_grid():
    frames = np.arange(5 * 2 * 3 * 1, dtype=np.uint8).reshape(5, 2, 3, 1)
    grid = tile_frames(frames)
    assert grid.shape == (2 * 2, 3 * 3, 1)  # 3 columns (ceil sqrt 5), 2 rows
    np.testing.assert_array_equal(grid[2:4, 3:6], frames[4])
    assert not grid[2:4, 6:9].any()  # the sixth cell stays black


@pytest.mark.parametrize("task", RENDER_CASES)
def test_every_task_renders_rgb_frames_that_change(task):
    cfg = load_cfg_from_registry(task, "env_cfg_entry_point")
    cfg.scene.num_envs = 1
    cfg.viewer = CameraCfg(width=64, height=48)
    env = gym.make(task, cfg=cfg, render_mode="rgb_array").unwrapped
    try:
        env.reset(seed=0)
        first = env.render()
        assert first.shape == (48, 64, 3) and first.dtype == np.uint8
        assert first.std() > 1.0  # not a blank image: the scene is in view
        for _ in range(20):
            env.step(torch.ones(env.num_envs, env.num_actions))
        assert np.abs(env.render().astype(int) - first.astype(int)).sum() > 0
        assert env.metadata["render_fps"] == pytest.approx(1.0 / (cfg.sim.dt * cfg.decimation))
    finally:
        env.close()


def test_a_per_env_viewer_renders_a_grid_and_no_render_mode_renders_nothing():
    task = TASKS[0]
    cfg = load_cfg_from_registry(task, "env_cfg_entry_point")
    cfg.scene.num_envs = 2
    cfg.viewer = CameraCfg(width=32, height=24, env_index=None, eye=(0.0, -1.5, 1.0), target=(0.0, 0.0, 0.3))
    env = gym.make(task, cfg=cfg, render_mode="rgb_array").unwrapped
    try:
        assert env.render().shape == (24, 2 * 32, 3)
    finally:
        env.close()
    env = gym.make(task, cfg=load_cfg_from_registry(task, "env_cfg_entry_point")).unwrapped
    try:
        assert env.render() is None
    finally:
        env.close()
    with pytest.raises(ValueError, match="render_mode must be one of"):
        gym.make(task, render_mode="ansi")
