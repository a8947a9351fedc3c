"""The camera variants of Isaac Lab's deformable lift tasks: the actor sees the scene through a 128 x 128 RGB camera
on the robot's base instead of the object's points.

Task ids (registered on import): ``Isaac-Lift-Soft-Franka-Camera-v0``, ``Isaac-Lift-Cloth-Franka-Camera-v0``,
``Isaac-Lift-Cable-Franka-Camera-v0``, the scenes, actions, rewards, terminations, events and curricula of
:mod:`.lift_franka`, 128 envs. Observation groups (Isaac Lab's): ``policy`` (the command, the last action),
``proprio`` (joint positions and velocities), ``perception`` (the object's points, for the critic) and
``base_image`` (``[num_envs, 3, 128, 128]``, channels first, each image minus its mean). The actor reads
``policy`` + ``proprio`` + ``base_image`` through a CNN (32-64-64 channels, kernels 8-4-3, strides 4-2-1, MLP
512-256-128); the critic reads ``policy`` + ``proprio`` + ``perception`` (privileged, an MLP).

The camera renders on the CPU after every env step (Newton's ray-traced ``SensorCamera``): at 128 x 128 it is
most of an env step's cost there.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from isaaclab_contrib.envs import ManagerBasedEnv, mdp
from isaaclab_contrib.managers import ObservationGroupCfg, ObservationTermCfg, SceneEntityCfg
from isaaclab_contrib.rl import RslRlCnnCfg, RslRlCnnModelCfg, RslRlMlpModelCfg
from isaaclab_contrib.scenes import CameraCfg
from isaaclab_contrib.utils.configclass import configclass

from ._lift_franka import LiftPPORunnerCfg
from ._lift_franka_scenes import LiftCableSceneCfg, LiftClothSceneCfg, LiftSoftSceneCfg
from .lift_franka import (
    CABLE,
    OBJECT,
    LiftCableEnvCfg,
    LiftClothEnvCfg,
    LiftSoftEnvCfg,
    register_lift_tasks,
)

__all__ = ["CAMERA_TASK_IDS", "base_camera_cfg", "image_channels_first"]

CAMERA_TASK_IDS = {
    "soft": "Isaac-Lift-Soft-Franka-Camera-v0",
    "cloth": "Isaac-Lift-Cloth-Franka-Camera-v0",
    "cable": "Isaac-Lift-Cable-Franka-Camera-v0",
}
CAMERA = SceneEntityCfg("camera_0")
"""The env's first camera (the base camera) as a scene entity."""
IMAGE_SIZE = 128
"""Width and height of the base camera's image [pixels]."""


def base_camera_cfg(size: int = IMAGE_SIZE) -> CameraCfg:
    """The base camera: *size* x *size* RGB per env, 60 cm over the robot's base, looking at the work area in
    front of it (0.55 m ahead on the table), 70 degrees of vertical field of view."""
    return CameraCfg(
        width=size,
        height=size,
        fov=math.radians(70.0),
        data_types=("rgb",),
        env_index=None,
        eye=(0.0, 0.0, 0.6),
        target=(0.55, 0.0, 0.0),
    )


def image_channels_first(env: ManagerBasedEnv, sensor_cfg: SceneEntityCfg = CAMERA) -> torch.Tensor:
    """The camera's normalized RGB (:func:`mdp.image`) as ``[num_envs, 3, height, width]``, the layout rsl-rl's
    CNN reads."""
    return mdp.image(env, sensor_cfg=sensor_cfg, data_type="rgb").permute(0, 3, 1, 2).contiguous()


def _groups(points: ObservationTermCfg) -> Any:
    @configclass
    class PolicyCfg(ObservationGroupCfg):
        """The command and the last action."""

        target_object_position = ObservationTermCfg(func=mdp.generated_commands, params={"command_name": "object_pose"})
        actions = ObservationTermCfg(func=mdp.last_action)

    @configclass
    class ProprioCfg(ObservationGroupCfg):
        """Joint positions and velocities relative to their defaults."""

        joint_pos = ObservationTermCfg(func=mdp.joint_pos_rel)
        joint_vel = ObservationTermCfg(func=mdp.joint_vel_rel)

    @configclass
    class PerceptionCfg(ObservationGroupCfg):
        """The object's points in the robot's base frame (the critic's privileged view)."""

        object_points = points

    @configclass
    class ImageCfg(ObservationGroupCfg):
        """The base camera's image."""

        image = ObservationTermCfg(func=image_channels_first)

    @configclass
    class CameraObservationsCfg:
        policy: PolicyCfg = PolicyCfg()
        proprio: ProprioCfg = ProprioCfg()
        perception: PerceptionCfg = PerceptionCfg()
        base_image: ImageCfg = ImageCfg()

    return CameraObservationsCfg


_DEFORMABLE_GROUPS = _groups(
    ObservationTermCfg(func=mdp.DeformableSampledPointsInRobotRootFrame, params={"num_points": 20, "asset_cfg": OBJECT})
)
_CABLE_GROUPS = _groups(ObservationTermCfg(func=mdp.cable_segment_pos_in_robot_root_frame, params={"asset_cfg": CABLE}))


def _camera_variant(base: type, scene_cls: type, groups: type, name: str) -> type:
    camera_scene = scene_cls(num_envs=128)

    @configclass
    class CameraEnvCfg(base):
        scene: Any = camera_scene
        observations: Any = groups()
        cameras: list[CameraCfg] = [base_camera_cfg()]

    CameraEnvCfg.__name__ = CameraEnvCfg.__qualname__ = name
    CameraEnvCfg.__doc__ = f"The camera variant of :class:`{base.__name__}` (128 envs, the base camera)."
    return CameraEnvCfg


LiftSoftCameraEnvCfg = _camera_variant(LiftSoftEnvCfg, LiftSoftSceneCfg, _DEFORMABLE_GROUPS, "LiftSoftCameraEnvCfg")
LiftClothCameraEnvCfg = _camera_variant(LiftClothEnvCfg, LiftClothSceneCfg, _DEFORMABLE_GROUPS, "LiftClothCameraEnvCfg")
LiftCableCameraEnvCfg = _camera_variant(LiftCableEnvCfg, LiftCableSceneCfg, _CABLE_GROUPS, "LiftCableCameraEnvCfg")


@configclass
class LiftCameraPPORunnerCfg(LiftPPORunnerCfg):
    """Isaac Lab's camera-variant PPO settings: 5,000 iterations, lr 1e-4, 8 mini-batches, 128 envs; the actor a
    CNN over the image (32-64-64 channels, kernels 8-4-3, strides 4-2-1) plus an MLP 512-256-128, the critic an
    MLP on the privileged groups."""

    experiment_name: str = "lift_franka_camera"
    num_envs: int = 128
    max_iterations: int = 5000
    obs_groups: dict[str, list[str]] = {
        "actor": ["policy", "proprio", "base_image"],
        "critic": ["policy", "proprio", "perception"],
    }
    actor: Any = RslRlCnnModelCfg(
        hidden_dims=[512, 256, 128],
        activation="elu",
        obs_normalization=True,
        cnn=RslRlCnnCfg(output_channels=[32, 64, 64], kernel_size=(8, 4, 3), stride=(4, 2, 1), padding="none"),
    )
    critic: Any = RslRlMlpModelCfg(hidden_dims=[512, 256, 128], activation="elu", obs_normalization=True)

    def __post_init__(self) -> None:
        self.algorithm.learning_rate = 1.0e-4
        self.algorithm.num_mini_batches = 8


register_lift_tasks(
    CAMERA_TASK_IDS,
    {"soft": LiftSoftCameraEnvCfg, "cloth": LiftClothCameraEnvCfg, "cable": LiftCableCameraEnvCfg},
    LiftCameraPPORunnerCfg,
)
