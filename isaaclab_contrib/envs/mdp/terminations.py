"""Termination terms (Isaac Lab's names and signatures): a ``[num_envs]`` bool per call."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab_contrib.managers import SceneEntityCfg

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedRLEnv

__all__ = ["joint_pos_out_of_limit", "root_height_below_minimum", "time_out"]

ROBOT = SceneEntityCfg("robot")


def time_out(env: ManagerBasedRLEnv) -> torch.Tensor:
    """The episode reached its length (use with ``time_out=True``)."""
    return env.episode_length_buf >= env.max_episode_length


def joint_pos_out_of_limit(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """A selected joint is outside its soft position limits."""
    data = env.scene[asset_cfg.name].data
    ids = asset_cfg.joint_ids
    pos = data.joint_pos.torch[:, ids]
    limits = data.soft_joint_pos_limits.torch[:, ids]
    return torch.any((pos < limits[..., 0]) | (pos > limits[..., 1]), dim=1)


def root_height_below_minimum(
    env: ManagerBasedRLEnv, minimum_height: float, asset_cfg: SceneEntityCfg = ROBOT
) -> torch.Tensor:
    """The asset's root is below *minimum_height* (world z) [m]."""
    return env.scene[asset_cfg.name].data.root_pos_w.torch[:, 2] < minimum_height
