"""RL task: the press-the-cloth task seen through a depth camera under the cloth, trained with a CNN.

The physics, the action and the reward are those of ``Isaac-Press-Cloth-Direct-v0``
(:mod:`~isaaclab_coupling_configs.press_cloth_task`): per env a 4 cm steel sphere (the pusher, Steel
entry) above the middle of a 4 x 4-cell cloth (32 cm, pinned along two edges, VBD entry), coupled by a
virtual proxy; the pusher must press the cloth center to a per-episode target depth and hold it. What
changes is what the policy observes: the privileged depth of the cloth center and the pusher's height
(which equals the depth to within millimetres once it presses) are gone; a small depth camera fixed
in each env, 20 cm below the cloth looking straight up, shows the cloth's shape instead.

Observations (a dict of groups, gymnasium ``Dict`` space; rsl-rl routes them with ``obs_groups``):

* ``"policy"`` ``(num_envs, 3)``: pusher vertical speed [m/s], target depth [m], previous action [-1, 1]
  (with :attr:`PressClothDepthCameraEnvCfg.observe_pusher_height` also the pusher's height above the pinned
  edges [m], first: 4 values).
* ``"camera"`` ``(num_envs, 1, H, W)`` (16 x 16 by default), ``float32``: the cloth's deflection toward the
  camera along each pixel's ray, ``(rest_depth - depth) / depth_scale`` (``depth_scale`` 5 cm: 1.0 is 5 cm
  closer than at rest), where ``rest_depth`` is the image of the initial (reset) state; 0 where the ray misses
  the cloth in either image. The camera renders after every env step (on the CPU in an eager stage: Warp refits
  its BVHs on the host); the first observation after an env's reset is the rest image (all zeros), which is the
  image of the state every reset restores.

Action (1): vertical force on the pusher on top of gravity compensation, ``max_force * action`` [N] (6 N),
applied inside the captured decimation loop; negative pushes down.

Reward per env step: ``exp(-((depth - target) / sigma)^2)`` (``sigma`` 2 cm) minus ``0.01 * action^2``; at most
120 per 2 s episode. Terminated when the pusher goes 15 cm below the pinned edges (through the cloth) or 30 cm
above them.

The oracle (:func:`oracle_policy`) is the state task's scripted force controller fed with the privileged state
(the true cloth-center depth): with the same seed its return is the state task's oracle return, and the random
policy's too (the camera does not change the physics).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import torch

from isaaclab_contrib.envs import register_task
from isaaclab_contrib.rl import RslRlCnnCfg, RslRlCnnModelCfg
from isaaclab_contrib.scenes import CameraCfg
from isaaclab_contrib.utils.configclass import configclass

from . import press_cloth_task
from .press_cloth_task import PressClothEnv, PressClothEnvCfg, PressClothPPORunnerCfg

__all__ = [
    "TASK_ID",
    "PressClothDepthCameraEnv",
    "PressClothDepthCameraEnvCfg",
    "PressClothDepthCameraPPORunnerCfg",
    "depth_camera_cfg",
    "oracle_policy",
]

TASK_ID = "Isaac-Press-Cloth-Depth-Camera-Direct-v0"
"""Gymnasium id of this task (registered on import)."""

CAMERA_GROUP = "camera"
"""Name of the image observation group."""


def depth_camera_cfg(size: int = 16) -> CameraCfg:
    """The task's camera: *size* x *size* pixels of depth, one view per env, 20 cm below the cloth center (which is
    0.3 m up) looking straight up, 80 degrees of field of view (the whole 32 cm cloth)."""
    return CameraCfg(
        width=size,
        height=size,
        fov=math.radians(80.0),
        data_types=("depth",),
        env_index=None,
        eye=(0.0, 0.0, 0.1),
        target=(0.0, 0.0, 0.3),
        up=(0.0, 1.0, 0.0),
    )


@configclass
class PressClothDepthCameraEnvCfg(PressClothEnvCfg):
    """The press-the-cloth task observed through a per-env depth camera (``cameras[0]``)."""

    _ranges: ClassVar[dict[str, str]] = {"depth_scale": "> 0"}

    cameras: list[CameraCfg] = [depth_camera_cfg()]
    """``cameras[0]`` is the observation camera: a per-env camera (``env_index=None``) rendering ``"depth"``
    (default :func:`depth_camera_cfg`, 16 x 16). Further cameras are allowed (not observed)."""
    depth_scale: float = 0.05
    """Deflection toward the camera that reads 1.0 in the image [m]."""
    observe_pusher_height: bool = False
    """Also observe the pusher's height above the pinned edges [m] (it gives the cloth depth away once the pusher
    presses, so the image is not needed then)."""

    def validate(self) -> None:
        """Check the fields, the scene and the simulation settings, and that ``cameras[0]`` is a per-env depth
        camera."""
        super().validate()
        cls = type(self).__name__
        if not self.cameras:
            raise ValueError(f"{cls}.cameras must hold the observation camera as cameras[0] (e.g. depth_camera_cfg())")
        camera = self.cameras[0]
        if camera.env_index is not None:
            raise ValueError(
                f"{cls}.cameras[0].env_index must be None (one view per env) for the image observation, got "
                f"{camera.env_index}"
            )
        if "depth" not in tuple(camera.data_types):
            raise ValueError(f"{cls}.cameras[0].data_types must include 'depth', got {tuple(camera.data_types)!r}")


class PressClothDepthCameraEnv(PressClothEnv):
    """Press the cloth center to a target depth, seeing the cloth through a depth camera (see the module docs)."""

    cfg: PressClothDepthCameraEnvCfg

    def _setup_buffers(self) -> None:
        super()._setup_buffers()
        camera_cfg = self.cfg.cameras[0]
        self.num_observations = 4 if self.cfg.observe_pusher_height else 3
        self.image_shape = (1, camera_cfg.height, camera_cfg.width)
        self.camera = self.manager.get_camera_sensor(0)
        # The camera rendered the initial state when the simulation started; every reset restores that state.
        self.rest_depth = self._depth_image().clone()
        self.image = torch.zeros(self.num_envs, *self.image_shape, device=self.torch_device)

    def _observation_group_shapes(self) -> dict[str, tuple[int, ...]]:
        return {"policy": (self.num_observations,), CAMERA_GROUP: self.image_shape}

    def _depth_image(self) -> torch.Tensor:
        """The camera's depth [m] as ``(num_envs, 1, H, W)`` (a view of the rendered image; 0: no hit)."""
        return self.camera.depth.permute(0, 3, 1, 2)

    def depth_image(self) -> torch.Tensor:
        """The normalized deflection image ``(num_envs, 1, H, W)`` of the last render (a new tensor; see the module
        docs); envs in the first step of an episode get the rest image (zeros)."""
        depth = self._depth_image()
        hit = (depth > 0.0) & (self.rest_depth > 0.0)
        image = torch.where(hit, (self.rest_depth - depth) / self.cfg.depth_scale, torch.zeros_like(depth))
        fresh = (self.episode_length == 0).view(-1, 1, 1, 1)
        return torch.where(fresh, torch.zeros_like(image), image)

    def privileged_observations(self) -> torch.Tensor:
        """The state task's observation ``(num_envs, 5)``: pusher height [m], pusher vertical speed [m/s], cloth-center
        depth [m], target depth [m], previous action (for the oracle)."""
        return super()._get_observations()

    def _get_observations(self) -> dict[str, torch.Tensor]:
        pusher_z, pusher_vz, _ = self._state()
        parts = [pusher_vz, self.target, self.prev_action]
        if self.cfg.observe_pusher_height:
            parts.insert(0, pusher_z)
        return {"policy": torch.stack(parts, dim=-1), CAMERA_GROUP: self.depth_image()}


def oracle_policy(
    env: PressClothDepthCameraEnv, gain: float = 1.0, damping: float = 1.0
) -> Callable[[Any], torch.Tensor]:
    """The state task's scripted force controller (:func:`press_cloth_task.oracle_policy`) on the privileged
    state (:meth:`PressClothDepthCameraEnv.privileged_observations`); returns ``obs -> actions`` (it ignores
    *obs*). ``gain`` [action per m of depth error per env step], ``damping`` [action per m/s]."""
    act = press_cloth_task.oracle_policy(env, gain=gain, damping=damping)
    return lambda _obs: act(env.privileged_observations())


@configclass
class PressClothDepthCameraPPORunnerCfg(PressClothPPORunnerCfg):
    """rsl-rl PPO settings of the depth-camera task: CNN actor and critic reading ``"policy"`` and ``"camera"``;
    the state task's rollout size and iterations (16 envs x 32 steps x 200 iterations = 102,400 env steps)."""

    experiment_name: str = "press_cloth_depth_camera"
    obs_groups: dict[str, list[str]] = {"actor": ["policy", CAMERA_GROUP], "critic": ["policy", CAMERA_GROUP]}
    actor: RslRlCnnModelCfg = RslRlCnnModelCfg(
        hidden_dims=[64, 64], cnn=RslRlCnnCfg(output_channels=[8, 16], kernel_size=3, stride=2)
    )
    """CNN policy: 16 x 16 -> 8 x 8 x 8 -> 4 x 4 x 16 (256 features) plus the flat group, MLP 64-64."""
    critic: RslRlCnnModelCfg = RslRlCnnModelCfg(
        hidden_dims=[64, 64], cnn=RslRlCnnCfg(output_channels=[8, 16], kernel_size=3, stride=2)
    )
    """CNN value function (its own encoder), the same shape as the actor."""


register_task(
    TASK_ID,
    env_class=PressClothDepthCameraEnv,
    env_cfg_class=PressClothDepthCameraEnvCfg,
    runner_cfg_class=PressClothDepthCameraPPORunnerCfg,
    oracle=oracle_policy,
)
