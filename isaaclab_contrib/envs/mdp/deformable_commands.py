"""The command of the deformable lift tasks (Isaac Lab 3.0's names): a target pose for the object, in the robot
root frame; its metrics track the object's center (the mean of its points, see
:func:`~isaaclab_contrib.envs.mdp.asset_points_w`)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, ClassVar

import torch

from isaaclab_contrib.managers import CommandTerm, SceneEntityCfg
from isaaclab_contrib.utils.configclass import MISSING, configclass
from isaaclab_contrib.utils.math import quat_apply, quat_mul
from isaaclab_contrib.utils.validation import nested

from .commands import UniformPoseCommand, UniformPoseCommandCfg, UniformPoseCommandRanges
from .deformable import asset_points_w

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedRLEnv

__all__ = ["DeformableUniformPoseCommand", "DeformableUniformPoseCommandCfg"]


class DeformableUniformPoseCommand(UniformPoseCommand):
    """A target pose for a deformable (or a cable) in the robot's root frame, drawn uniformly from the ranges:
    ``command`` is ``[num_envs, 7]``, position [m] and ``(x, y, z, w)`` (the lift tasks track the position).

    Metrics, updated at each step: ``position_error`` [m], the distance from the object's center (the mean of its
    points) to the commanded position in the world; ``success``, 1.0 where that error is below
    ``cfg.success_threshold`` [m], else 0.0. The command manager logs their values at the reset as
    ``Metrics/<term>/position_error`` and ``Metrics/<term>/success``.

    Raises:
        TypeError: The robot has no root pose, or the object has no points.
    """

    cfg: Any

    def __init__(self, cfg: DeformableUniformPoseCommandCfg, env: ManagerBasedRLEnv):
        CommandTerm.__init__(self, cfg, env)  # the object's center is tracked, not a robot body: no body lookup
        where = type(self).__name__
        self.robot = env.scene[cfg.asset_name]
        if not hasattr(getattr(self.robot, "data", None), "root_quat_w"):
            raise TypeError(f"{where}: asset_name {cfg.asset_name!r} has no root pose (data.root_pos_w / root_quat_w)")
        self.object_cfg = copy.deepcopy(cfg.object_cfg)
        """The object, resolved against the scene."""
        self.object_cfg.resolve(env.scene, where=f"{where}: object_cfg")
        asset_points_w(env, self.object_cfg)  # refuses an object without points now, not at the first step
        self.pose_command_b = torch.zeros(self.num_envs, 7, device=self.device)
        self.pose_command_b[:, 6] = 1.0
        self.pose_command_w = torch.zeros_like(self.pose_command_b)
        self.metrics["position_error"] = torch.zeros(self.num_envs, device=self.device)
        self.metrics["success"] = torch.zeros(self.num_envs, device=self.device)

    def _update_metrics(self) -> None:
        data = self.robot.data
        root_pos, root_quat = data.root_pos_w.torch, data.root_quat_w.torch
        self.pose_command_w[:, :3] = root_pos + quat_apply(root_quat, self.pose_command_b[:, :3])
        self.pose_command_w[:, 3:] = quat_mul(root_quat, self.pose_command_b[:, 3:])
        center = asset_points_w(self._env, self.object_cfg).mean(dim=1)
        error = torch.norm(center - self.pose_command_w[:, :3], dim=-1)
        self.metrics["position_error"][:] = error  # in place: usable across inference mode
        self.metrics["success"][:] = (error < self.cfg.success_threshold).float()


def _lift_ranges() -> UniformPoseCommandRanges:
    return UniformPoseCommandRanges(
        pos_x=(0.4, 0.6), pos_y=(-0.25, 0.25), pos_z=(0.25, 0.5), roll=(0.0, 0.0), pitch=(0.0, 0.0), yaw=(0.0, 0.0)
    )


@configclass
class DeformableUniformPoseCommandCfg(UniformPoseCommandCfg):
    """A uniform target pose for a deformable or a cable (:class:`DeformableUniformPoseCommand`); the defaults are
    the lift tasks' (x 0.4-0.6 m, y -0.25-0.25 m, z 0.25-0.5 m in the robot root frame, no rotation, a new target
    every 5 s)."""

    _ranges: ClassVar[dict[str, str]] = {"success_threshold": "> 0"}

    class_type: type = DeformableUniformPoseCommand
    asset_name: str = "robot"
    """The robot whose root frame the command is in."""
    body_name: str | None = None
    """Unused: the command is tracked by the object's center, not by a robot body (kept for configs that set it)."""
    object_cfg: SceneEntityCfg = SceneEntityCfg("object")
    """The object whose center is tracked (a deformable; a cable with the segments in ``body_names``)."""
    success_threshold: float = 0.05
    """Distance from the object's center to the target under which the ``success`` metric is 1 [m]."""
    resampling_time_range: tuple[float, float] = (5.0, 5.0)
    """Time between two targets [s]."""
    ranges: UniformPoseCommandRanges = _lift_ranges()
    """The ranges the target is drawn from, in the robot root frame."""

    def validate(self) -> None:
        """Check the fields, the resampling time range, :attr:`ranges` and :attr:`object_cfg`."""
        super().validate()
        cls = type(self).__name__
        if not isinstance(self.object_cfg, SceneEntityCfg) or self.object_cfg.name is MISSING:
            raise TypeError(f"{cls}.object_cfg must be a SceneEntityCfg naming the object, got {self.object_cfg!r}")
        with nested(f"{cls}.object_cfg"):
            self.object_cfg.validate()
