"""The reset every env config has by default: the scene back to its start state (:func:`reset_scene_to_default`).

Kept apart from the other event terms so the env configs can name it without importing the env classes; it
also holds :func:`env_ids_tensor`, which every event term uses.
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["env_ids_tensor", "reset_scene_to_default"]


def env_ids_tensor(env: Any, env_ids: Any) -> torch.Tensor:
    """The ids an event term got as a long tensor on the env's device (``None`` or ``slice(None)``: every env)."""
    if env_ids is None or isinstance(env_ids, slice):
        return torch.arange(env.num_envs, device=env.device)
    return torch.as_tensor(env_ids, device=env.device).long().reshape(-1)


def reset_scene_to_default(env: Any, env_ids: torch.Tensor, reset_joint_targets: bool = False) -> None:
    """Put every body, joint and particle of *env_ids* back to the simulation's start state (where the assets'
    ``default_*`` data come from); *reset_joint_targets*: also set the articulations' position and velocity
    targets to their default joint state."""
    ids = env_ids_tensor(env, env_ids)
    env.manager.write_initial_state(env_ids=ids.cpu().numpy())
    if reset_joint_targets:
        for articulation in env.scene.articulations.values():
            data = articulation.data
            articulation.set_joint_position_target(data.default_joint_pos.torch[ids], env_ids=ids)
            articulation.set_joint_velocity_target(data.default_joint_vel.torch[ids], env_ids=ids)
