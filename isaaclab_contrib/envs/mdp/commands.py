"""Command terms (Isaac Lab's names and configs): a null command and a uniform pose command."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import torch

from isaaclab_contrib.managers import CommandTerm, CommandTermCfg
from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.math import (
    quat_apply,
    quat_conjugate,
    quat_from_euler_xyz,
    quat_mul,
    sample_uniform,
)
from isaaclab_contrib.utils.validation import check_fields, nested

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedRLEnv

__all__ = ["NullCommand", "NullCommandCfg", "UniformPoseCommand", "UniformPoseCommandCfg", "UniformPoseCommandRanges"]


class NullCommand(CommandTerm):
    """No command: for configs that declare a command group without a generator."""

    def __init__(self, cfg: NullCommandCfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)

    @property
    def command(self) -> torch.Tensor:
        raise RuntimeError("NullCommand has no command: read a command term that generates one")

    def reset(self, env_ids=None) -> dict[str, float]:
        return {}

    def compute(self, dt: float) -> None:
        pass

    def _update_metrics(self) -> None:
        pass

    def _resample_command(self, env_ids) -> None:
        pass

    def _update_command(self) -> None:
        pass


@configclass
class NullCommandCfg(CommandTermCfg):
    """A command term that generates nothing (:class:`NullCommand`)."""

    class_type: type = NullCommand
    resampling_time_range: tuple[float, float] = (float("inf"), float("inf"))
    """Never resampled."""


class UniformPoseCommand(CommandTerm):
    """A pose for a body of an articulation, in the articulation's root frame, drawn uniformly from the ranges;
    ``command`` is ``[num_envs, 7]``: position [m] and ``(x, y, z, w)``. Metrics: the body's position error [m]
    and orientation error [rad] against the command, in the world."""

    cfg: Any

    def __init__(self, cfg: UniformPoseCommandCfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        self.robot = env.scene[cfg.asset_name]
        ids, _ = self.robot.find_bodies(cfg.body_name)
        if len(ids) != 1:
            raise ValueError(f"UniformPoseCommandCfg.body_name {cfg.body_name!r} must match one body, got {len(ids)}")
        self.body_idx = ids[0]
        self.pose_command_b = torch.zeros(self.num_envs, 7, device=self.device)
        self.pose_command_b[:, 6] = 1.0
        self.pose_command_w = torch.zeros_like(self.pose_command_b)
        self.metrics["position_error"] = torch.zeros(self.num_envs, device=self.device)
        self.metrics["orientation_error"] = torch.zeros(self.num_envs, device=self.device)

    @property
    def command(self) -> torch.Tensor:
        return self.pose_command_b

    def _update_metrics(self) -> None:
        # Buffers are written in place: rsl-rl steps under torch.inference_mode(), and a buffer replaced there
        # could not be written outside it.
        data = self.robot.data
        root_pos, root_quat = data.root_pos_w.torch, data.root_quat_w.torch
        self.pose_command_w[:, :3] = root_pos + quat_apply(root_quat, self.pose_command_b[:, :3])
        self.pose_command_w[:, 3:] = quat_mul(root_quat, self.pose_command_b[:, 3:])
        body_pos = data.body_pos_w.torch[:, self.body_idx]
        body_quat = data.body_quat_w.torch[:, self.body_idx]
        self.metrics["position_error"][:] = torch.norm(self.pose_command_w[:, :3] - body_pos, dim=-1)
        diff = quat_mul(body_quat, quat_conjugate(self.pose_command_w[:, 3:]))
        self.metrics["orientation_error"][:] = 2.0 * torch.atan2(torch.norm(diff[:, :3], dim=-1), diff[:, 3].abs())

    def _resample_command(self, env_ids) -> None:
        r = self.cfg.ranges
        n = len(env_ids)
        draw = [sample_uniform(*getattr(r, key), (n,), self.device) for key in ("pos_x", "pos_y", "pos_z")]
        self.pose_command_b[env_ids, 0:3] = torch.stack(draw, dim=-1)
        angles = [sample_uniform(*getattr(r, key), (n,), self.device) for key in ("roll", "pitch", "yaw")]
        quat = quat_from_euler_xyz(*angles)
        if self.cfg.make_quat_unique:
            quat = torch.where(quat[:, 3:4] < 0.0, -quat, quat)
        self.pose_command_b[env_ids, 3:] = quat

    def _update_command(self) -> None:
        pass


@configclass
class UniformPoseCommandRanges:
    """Ranges of the pose command, in the articulation's root frame."""

    _ranges: ClassVar[dict[str, str]] = {
        "pos_x": "any",
        "pos_y": "any",
        "pos_z": "any",
        "roll": "any",
        "pitch": "any",
        "yaw": "any",
    }

    pos_x: tuple[float, float] = MISSING
    """Range of x [m]."""
    pos_y: tuple[float, float] = MISSING
    """Range of y [m]."""
    pos_z: tuple[float, float] = MISSING
    """Range of z [m]."""
    roll: tuple[float, float] = MISSING
    """Range of the roll angle [rad]."""
    pitch: tuple[float, float] = MISSING
    """Range of the pitch angle [rad]."""
    yaw: tuple[float, float] = MISSING
    """Range of the yaw angle [rad]."""

    def validate(self) -> None:
        """Check the fields and that every range is ``(min, max)`` with ``min <= max``."""
        check_missing(self)
        check_fields(self)
        for name in ("pos_x", "pos_y", "pos_z", "roll", "pitch", "yaw"):
            low, high = getattr(self, name)
            if low > high:
                raise ValueError(
                    f"{type(self).__name__}.{name} must be (min, max) with min <= max, got {(low, high)!r}"
                )


@configclass
class UniformPoseCommandCfg(CommandTermCfg):
    """A uniform pose command for a body (:class:`UniformPoseCommand`)."""

    Ranges = UniformPoseCommandRanges

    class_type: type = UniformPoseCommand
    asset_name: str = MISSING
    """The articulation whose root frame the command is in."""
    body_name: str = MISSING
    """The body (regex matching one) the command is for."""
    make_quat_unique: bool = False
    """Keep the command's quaternion with ``w >= 0``."""
    ranges: UniformPoseCommandRanges = MISSING
    """The ranges the command is drawn from."""

    def validate(self) -> None:
        """Check the fields, the resampling time range and :attr:`ranges`."""
        super().validate()
        cls = type(self).__name__
        if not isinstance(self.ranges, UniformPoseCommandRanges):
            raise TypeError(f"{cls}.ranges must be a UniformPoseCommandRanges, got {type(self.ranges).__name__}")
        with nested(f"{cls}.ranges"):
            self.ranges.validate()
