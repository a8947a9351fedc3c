"""Event terms (Isaac Lab's names and signatures): ``func(env, env_ids, **params)``, writing through the assets of
the runtime scene (no second path to the solver). Draws come from torch's global generator."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab_contrib.managers import SceneEntityCfg
from isaaclab_contrib.utils.math import quat_from_euler_xyz, quat_mul, sample_uniform

from .scene_reset import env_ids_tensor, reset_scene_to_default

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedEnv

__all__ = [
    "push_by_setting_velocity",
    "reset_joints_by_offset",
    "reset_joints_by_scale",
    "reset_root_state_uniform",
    "reset_scene_to_default",
    "reset_to_snapshot",
]

ROBOT = SceneEntityCfg("robot")
_POSE_KEYS = ("x", "y", "z", "roll", "pitch", "yaw")


def _ranges(ranges: dict[str, tuple[float, float]], where: str, device: str) -> torch.Tensor:
    """``[6, 2]`` lower/upper bounds of x, y, z, roll, pitch, yaw (missing keys: 0)."""
    unknown = sorted(set(ranges) - set(_POSE_KEYS))
    if unknown:
        raise KeyError(f"{where}: unknown range key(s) {unknown}; the keys are {list(_POSE_KEYS)}")
    return torch.tensor([ranges.get(key, (0.0, 0.0)) for key in _POSE_KEYS], dtype=torch.float32, device=device)


def _write_joints(env, ids, asset_cfg, pos, vel) -> None:
    asset = env.scene[asset_cfg.name]
    joints = asset_cfg.joint_ids
    limits = asset.data.soft_joint_pos_limits.torch[ids][:, joints]
    pos = pos.clamp(limits[..., 0], limits[..., 1])
    vel_limits = asset.data.joint_vel_limits.torch[ids][:, joints]
    vel = vel.clamp(-vel_limits, vel_limits)
    asset.write_joint_state_to_sim(pos, vel, joint_ids=joints, env_ids=ids)


def _reset_joints(env, env_ids, position_range, velocity_range, asset_cfg, combine) -> None:
    """Joint state ``combine(default, draw)`` of the selected joints, each draw uniform in its range."""
    ids = env_ids_tensor(env, env_ids)
    data = env.scene[asset_cfg.name].data
    pos = data.default_joint_pos.torch[ids][:, asset_cfg.joint_ids]
    vel = data.default_joint_vel.torch[ids][:, asset_cfg.joint_ids]
    pos = combine(pos, sample_uniform(*position_range, tuple(pos.shape), env.device))
    vel = combine(vel, sample_uniform(*velocity_range, tuple(vel.shape), env.device))
    _write_joints(env, ids, asset_cfg, pos, vel)


def reset_joints_by_scale(
    env: ManagerBasedEnv,
    env_ids: torch.Tensor,
    position_range: tuple[float, float],
    velocity_range: tuple[float, float],
    asset_cfg: SceneEntityCfg = ROBOT,
) -> None:
    """Set the selected joints to their defaults times factors drawn uniformly from the ranges (positions clamped
    to the soft limits, velocities to the velocity limits)."""
    _reset_joints(env, env_ids, position_range, velocity_range, asset_cfg, torch.mul)


def reset_joints_by_offset(
    env: ManagerBasedEnv,
    env_ids: torch.Tensor,
    position_range: tuple[float, float],
    velocity_range: tuple[float, float],
    asset_cfg: SceneEntityCfg = ROBOT,
) -> None:
    """Set the selected joints to their defaults plus offsets drawn uniformly from the ranges [rad or m,
    rad/s or m/s] (clamped to the limits)."""
    _reset_joints(env, env_ids, position_range, velocity_range, asset_cfg, torch.add)


def reset_root_state_uniform(
    env: ManagerBasedEnv,
    env_ids: torch.Tensor,
    pose_range: dict[str, tuple[float, float]],
    velocity_range: dict[str, tuple[float, float]],
    asset_cfg: SceneEntityCfg = ROBOT,
) -> None:
    """Set the root to its default state (at the env's origin) moved by offsets drawn uniformly from
    *pose_range* (keys ``x y z`` [m], ``roll pitch yaw`` [rad]) and *velocity_range* (the same keys [m/s],
    [rad/s])."""
    ids = env_ids_tensor(env, env_ids)
    asset = env.scene[asset_cfg.name]
    root = asset.data.default_root_state.torch[ids].clone()
    where = "reset_root_state_uniform"
    pose = _ranges(pose_range, f"{where}: pose_range", env.device)
    draw = sample_uniform(pose[:, 0], pose[:, 1], (len(ids), 6), env.device)
    positions = root[:, 0:3] + env.scene.env_origins[ids] + draw[:, 0:3]
    quats = quat_mul(root[:, 3:7], quat_from_euler_xyz(draw[:, 3], draw[:, 4], draw[:, 5]))
    vel = _ranges(velocity_range, f"{where}: velocity_range", env.device)
    velocities = root[:, 7:13] + sample_uniform(vel[:, 0], vel[:, 1], (len(ids), 6), env.device)
    asset.write_root_pose_to_sim(torch.cat([positions, quats], dim=-1), env_ids=ids)
    asset.write_root_velocity_to_sim(velocities, env_ids=ids)


def push_by_setting_velocity(
    env: ManagerBasedEnv,
    env_ids: torch.Tensor,
    velocity_range: dict[str, tuple[float, float]],
    asset_cfg: SceneEntityCfg = ROBOT,
) -> None:
    """Add velocities drawn uniformly from *velocity_range* (keys ``x y z`` [m/s], ``roll pitch yaw`` [rad/s]) to
    the root's current velocity."""
    ids = env_ids_tensor(env, env_ids)
    asset = env.scene[asset_cfg.name]
    data = asset.data
    current = torch.cat([data.root_lin_vel_w.torch[ids], data.root_ang_vel_w.torch[ids]], dim=-1)
    vel = _ranges(velocity_range, "push_by_setting_velocity: velocity_range", env.device)
    asset.write_root_velocity_to_sim(
        current + sample_uniform(vel[:, 0], vel[:, 1], (len(ids), 6), env.device), env_ids=ids
    )


def reset_to_snapshot(env: ManagerBasedEnv, env_ids: torch.Tensor, snapshots: list) -> None:
    """Put each env of *env_ids* into a state drawn uniformly from the bank *snapshots* (simulation snapshots of
    this scene, ``NewtonManager.save_state()``): the drawn snapshot's body, particle and joint positions and
    velocities of that env, then FK and a masked solver reset (``restore_state(snapshot, env_ids)``)."""
    if not snapshots:
        raise ValueError("reset_to_snapshot: the bank of snapshots is empty")
    ids = env_ids_tensor(env, env_ids)
    pick = torch.randint(0, len(snapshots), (len(ids),), device=env.device)
    for index in torch.unique(pick).tolist():
        chosen = ids[pick == index]
        env.manager.restore_state(snapshots[index], env_ids=chosen.cpu().numpy())
