"""Reward terms (Isaac Lab's names and signatures): ``[num_envs]`` per call; the reward manager weighs them and
multiplies by the env step [s]."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab_contrib.managers import SceneEntityCfg

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedRLEnv

__all__ = [
    "action_l2",
    "action_rate_l2",
    "is_alive",
    "is_terminated",
    "joint_acc_l2",
    "joint_pos_limits",
    "joint_torques_l2",
    "joint_vel_l2",
]

ROBOT = SceneEntityCfg("robot")


def is_alive(env: ManagerBasedRLEnv) -> torch.Tensor:
    """1 for the envs not terminated in this step (time-outs count as alive), else 0."""
    return (~env.termination_manager.terminated).float()


def is_terminated(env: ManagerBasedRLEnv) -> torch.Tensor:
    """1 for the envs terminated in this step (not by a time-out), else 0."""
    return env.termination_manager.terminated.float()


def action_l2(env: ManagerBasedRLEnv) -> torch.Tensor:
    """Squared norm of the action."""
    return torch.sum(torch.square(env.action_manager.action), dim=1)


def action_rate_l2(env: ManagerBasedRLEnv) -> torch.Tensor:
    """Squared norm of the change of the action since the previous env step."""
    return torch.sum(torch.square(env.action_manager.action - env.action_manager.prev_action), dim=1)


def joint_vel_l2(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Squared norm of the selected joints' velocities [(rad/s)^2]."""
    return torch.sum(torch.square(env.scene[asset_cfg.name].data.joint_vel.torch[:, asset_cfg.joint_ids]), dim=1)


def joint_acc_l2(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Squared norm of the selected joints' accelerations over the last env step [(rad/s^2)^2]."""
    return torch.sum(torch.square(env.scene[asset_cfg.name].data.joint_acc.torch[:, asset_cfg.joint_ids]), dim=1)


def joint_torques_l2(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Squared norm of the efforts applied to the selected joints [(N*m)^2]."""
    return torch.sum(torch.square(env.scene[asset_cfg.name].data.applied_torque.torch[:, asset_cfg.joint_ids]), dim=1)


def joint_pos_limits(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """How far the selected joints are outside their soft limits, summed [rad or m] (0 inside)."""
    data = env.scene[asset_cfg.name].data
    ids = asset_cfg.joint_ids
    pos = data.joint_pos.torch[:, ids]
    limits = data.soft_joint_pos_limits.torch[:, ids]
    below = (limits[..., 0] - pos).clamp(min=0.0)
    above = (pos - limits[..., 1]).clamp(min=0.0)
    return torch.sum(below + above, dim=1)
