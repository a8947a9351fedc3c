"""Observation terms (Isaac Lab's names and signatures): functions of ``(env, ...)`` returning ``[num_envs, ...]``.

Positions are relative to each env's origin where Isaac Lab's are (``root_pos_w``, ``body_pose_w``); quaternions
are ``(x, y, z, w)``, as Warp and Isaac Lab 3.0 order them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from isaaclab_contrib.managers import SceneEntityCfg
from isaaclab_contrib.utils.math import quat_apply, quat_conjugate

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedEnv, ManagerBasedRLEnv

__all__ = [
    "body_pos_b",
    "body_pose_w",
    "generated_commands",
    "image",
    "joint_effort",
    "joint_pos",
    "joint_pos_limit_normalized",
    "joint_pos_rel",
    "joint_vel",
    "joint_vel_rel",
    "last_action",
    "root_ang_vel_w",
    "root_lin_vel_w",
    "root_pos_w",
    "root_quat_w",
]

ROBOT = SceneEntityCfg("robot")
CAMERA = SceneEntityCfg("camera_0")


def joint_pos(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Joint positions of the selected joints [m or rad], ``[num_envs, joints]``."""
    return env.scene[asset_cfg.name].data.joint_pos.torch[:, asset_cfg.joint_ids]


def joint_pos_rel(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Joint positions relative to the defaults [m or rad], ``[num_envs, joints]``."""
    data = env.scene[asset_cfg.name].data
    ids = asset_cfg.joint_ids
    return data.joint_pos.torch[:, ids] - data.default_joint_pos.torch[:, ids]


def joint_pos_limit_normalized(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Joint positions mapped from the soft limits onto ``[-1, 1]``, ``[num_envs, joints]``."""
    data = env.scene[asset_cfg.name].data
    ids = asset_cfg.joint_ids
    limits = data.soft_joint_pos_limits.torch[:, ids]
    lower, upper = limits[..., 0], limits[..., 1]
    return 2.0 * (data.joint_pos.torch[:, ids] - 0.5 * (lower + upper)) / (upper - lower)


def joint_vel(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Joint velocities of the selected joints [m/s or rad/s], ``[num_envs, joints]``."""
    return env.scene[asset_cfg.name].data.joint_vel.torch[:, asset_cfg.joint_ids]


def joint_vel_rel(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Joint velocities relative to the defaults [m/s or rad/s], ``[num_envs, joints]``."""
    data = env.scene[asset_cfg.name].data
    ids = asset_cfg.joint_ids
    return data.joint_vel.torch[:, ids] - data.default_joint_vel.torch[:, ids]


def joint_effort(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Joint efforts the actuators applied in the last physics step [N or N*m], ``[num_envs, joints]``."""
    return env.scene[asset_cfg.name].data.applied_torque.torch[:, asset_cfg.joint_ids]


def root_pos_w(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Root position relative to the env's origin [m], ``[num_envs, 3]``."""
    return env.scene[asset_cfg.name].data.root_pos_w.torch - env.scene.env_origins


def root_quat_w(
    env: ManagerBasedEnv, make_quat_unique: bool = False, asset_cfg: SceneEntityCfg = ROBOT
) -> torch.Tensor:
    """Root orientation ``(x, y, z, w)``, ``[num_envs, 4]``; *make_quat_unique*: the one with ``w >= 0``."""
    quat = env.scene[asset_cfg.name].data.root_quat_w.torch
    if make_quat_unique:
        return torch.where(quat[:, 3:4] < 0.0, -quat, quat)
    return quat


def root_lin_vel_w(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Root linear velocity in the world frame [m/s], ``[num_envs, 3]``."""
    return env.scene[asset_cfg.name].data.root_lin_vel_w.torch


def root_ang_vel_w(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Root angular velocity in the world frame [rad/s], ``[num_envs, 3]``."""
    return env.scene[asset_cfg.name].data.root_ang_vel_w.torch


def body_pose_w(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Poses of the selected bodies, position relative to the env's origin [m] and ``(x, y, z, w)``, flattened:
    ``[num_envs, bodies * 7]``."""
    data = env.scene[asset_cfg.name].data
    pos = data.body_pos_w.torch[:, asset_cfg.body_ids] - env.scene.env_origins.unsqueeze(1)
    quat = data.body_quat_w.torch[:, asset_cfg.body_ids]
    return torch.cat([pos, quat], dim=-1).reshape(env.num_envs, -1)


def body_pos_b(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """Positions of the selected bodies in the asset's root frame [m], flattened: ``[num_envs, bodies * 3]``.

    Not one of Isaac Lab's terms: its manipulation tasks read an end effector through a frame transformer. This is
    the frame in which the differential IK action takes its absolute targets, so a policy of that action sees where
    its hand is.
    """
    data = env.scene[asset_cfg.name].data
    root_pos, root_quat = data.root_pos_w.torch, data.root_quat_w.torch
    pos = data.body_pos_w.torch[:, asset_cfg.body_ids] - root_pos.unsqueeze(1)
    pos = quat_apply(quat_conjugate(root_quat).unsqueeze(1).expand(-1, pos.shape[1], -1), pos)
    return pos.reshape(env.num_envs, -1)


def last_action(env: ManagerBasedEnv, action_name: str | None = None) -> torch.Tensor:
    """The last action as the policy gave it (before any clip or scale), ``[num_envs, dim]``: the whole action,
    or that of the action term *action_name*."""
    if action_name is None:
        return env.action_manager.action
    return env.action_manager.get_term(action_name).raw_actions


def generated_commands(env: ManagerBasedRLEnv, command_name: str) -> torch.Tensor:
    """The command of the command term *command_name*, ``[num_envs, dim]``."""
    return env.command_manager.get_command(command_name)


def image(
    env: ManagerBasedEnv,
    sensor_cfg: SceneEntityCfg = CAMERA,
    data_type: str = "rgb",
    convert_perspective_to_orthogonal: bool = False,
    normalize: bool = True,
) -> torch.Tensor:
    """The images of a camera of the scene, ``[num_envs, height, width, channels]`` (a copy).

    The env's cameras (``cfg.cameras``) are the scene's sensors ``"camera_0"``, ``"camera_1"``, ... With
    *normalize*: ``"rgb"`` becomes float in ``[0, 1]`` minus each image's mean; depths have their no-hit pixels
    (``0`` here) left at 0; normals are mapped from ``[-1, 1]`` onto ``[0, 1]``.

    Args:
        sensor_cfg: The camera sensor by name.
        data_type: ``"rgb"``, ``"rgba"``, ``"depth"`` / ``"distance_to_camera"`` (along the ray [m]),
            ``"distance_to_image_plane"`` (along the optical axis [m]; from the ray distance), ``"normals"``,
            ``"segmentation"``.
        convert_perspective_to_orthogonal: Turn ray distances into distances to the image plane.
        normalize: Normalize as above.
    """
    sensor = env.scene.sensors[sensor_cfg.name]
    output = sensor.data.output
    key = "depth" if data_type == "distance_to_image_plane" else data_type
    if key not in output:
        raise KeyError(
            f"image: camera {sensor_cfg.name!r} renders {sorted(output)}, not {data_type!r} (add it to its data_types)"
        )
    images = output[key].clone()
    if data_type == "distance_to_image_plane" or (convert_perspective_to_orthogonal and key == "depth"):
        images = images * sensor.ray_axis_cosines.to(images.device)
    if normalize:
        if data_type == "rgb":
            images = images.float() / 255.0
            images -= images.mean(dim=(1, 2), keepdim=True)
        elif data_type == "normals":
            images = (images + 1.0) * 0.5
    return images
