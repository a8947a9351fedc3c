"""The reset every env config has by default: the scene back to its start state (:func:`reset_scene_to_default`).

Kept apart from the other event terms so the env configs can name it without importing the env classes.
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["reset_scene_to_default"]


def reset_scene_to_default(env: Any, env_ids: torch.Tensor, reset_joint_targets: bool = False) -> None:
    """Put every body, joint and particle of *env_ids* back to the simulation's start state (where the assets'
    ``default_*`` data come from); *reset_joint_targets*: also set the articulations' position and velocity
    targets to their default joint state."""
    if env_ids is None or isinstance(env_ids, slice):
        ids = torch.arange(env.num_envs, device=env.device)
    else:
        ids = torch.as_tensor(env_ids, device=env.device).long().reshape(-1)
    env.manager.write_initial_state(env_ids=ids.cpu().numpy())
    if reset_joint_targets:
        for articulation in env.scene.articulations.values():
            data = articulation.data
            articulation.set_joint_position_target(data.default_joint_pos.torch[ids], env_ids=ids)
            articulation.set_joint_velocity_target(data.default_joint_vel.torch[ids], env_ids=ids)
