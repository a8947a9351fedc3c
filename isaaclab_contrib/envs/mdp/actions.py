"""Joint action terms (Isaac Lab's names, configs and semantics): the policy's action becomes joint targets or
efforts of an articulation, written before the env step (the same values hold in every physics step of it);
the relative joint position targets are taken anew in every physics step, as in Isaac Lab."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import torch
import warp as wp

from isaaclab_contrib.managers import ActionTerm, ActionTermCfg
from isaaclab_contrib.utils.configclass import MISSING, configclass
from isaaclab_contrib.utils.string import resolve_matching_names, resolve_matching_names_values

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedEnv

__all__ = [
    "BinaryJointPositionAction",
    "BinaryJointPositionActionCfg",
    "BufferedActionTerm",
    "JointAction",
    "JointActionCfg",
    "JointEffortAction",
    "JointEffortActionCfg",
    "JointPositionAction",
    "JointPositionActionCfg",
    "JointPositionToLimitsAction",
    "JointPositionToLimitsActionCfg",
    "RelativeJointPositionAction",
    "RelativeJointPositionActionCfg",
]


class BufferedActionTerm(ActionTerm):
    """An action term keeping its raw and processed actions in ``self._raw_actions`` / ``self._processed_actions``
    (allocated by the subclass, ``[num_envs, action_dim]`` and ``[num_envs, ...]``); a reset zeroes the raw ones."""

    _raw_actions: torch.Tensor
    _processed_actions: torch.Tensor

    @property
    def action_dim(self) -> int:
        return self._raw_actions.shape[1]

    @property
    def raw_actions(self) -> torch.Tensor:
        return self._raw_actions

    @property
    def processed_actions(self) -> torch.Tensor:
        return self._processed_actions

    def reset(self, env_ids=None) -> None:
        self._raw_actions[slice(None) if env_ids is None else env_ids] = 0.0


class JointAction(BufferedActionTerm):
    """Base of the joint actions: ``processed = raw * scale + offset`` per joint (then the term's ``clip``)."""

    cfg: Any

    def __init__(self, cfg: Any, env: ManagerBasedEnv):
        super().__init__(cfg, env)
        where = f"{type(self).__name__} on {cfg.asset_name!r}: joint_names"
        self._joint_ids, self._joint_names = resolve_matching_names(
            cfg.joint_names, self._asset.joint_names, cfg.preserve_order, where=where
        )
        if self._joint_ids == list(range(len(self._asset.joint_names))):
            self._joint_ids = slice(None)  # every joint in order: no gather
        n = len(self._joint_names)
        self._raw_actions = torch.zeros(self.num_envs, n, device=self.device)
        self._processed_actions = torch.zeros_like(self._raw_actions)
        self._scale = self._per_joint(cfg.scale, "scale")
        self._offset = self._per_joint(cfg.offset, "offset")
        self._resolve_clip(self._joint_names)

    def _per_joint(self, value: Any, name: str) -> float | torch.Tensor:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, dict):
            ids, _, values = resolve_matching_names_values(
                value, self._joint_names, where=f"{type(self).__name__}.cfg.{name}"
            )
            out = (
                torch.ones(len(self._joint_names), device=self.device)
                if name == "scale"
                else torch.zeros(len(self._joint_names), device=self.device)
            )
            out[ids] = torch.tensor(values, dtype=torch.float32, device=self.device)
            return out
        raise TypeError(
            f"{type(self).__name__}.cfg.{name} must be a number or a dict of regex to number, got {value!r}"
        )

    def process_actions(self, actions: torch.Tensor) -> None:
        self._raw_actions[:] = actions
        self._processed_actions[:] = self._apply_clip(self._raw_actions * self._scale + self._offset)


class JointPositionAction(JointAction):
    """Joint position targets ``raw * scale + offset`` (the offset: the default joint positions with
    ``use_default_offset``)."""

    def __init__(self, cfg: JointPositionActionCfg, env: ManagerBasedEnv):
        super().__init__(cfg, env)
        if cfg.use_default_offset:
            self._offset = self._asset.data.default_joint_pos.torch[:, self._joint_ids].clone()

    def apply_actions(self) -> None:
        self._asset.set_joint_position_target(self.processed_actions, joint_ids=self._joint_ids)


@wp.kernel
def _relative_position_targets(
    joint_q: wp.array(dtype=wp.float32),
    coords: wp.array2d(dtype=wp.int32),
    offsets: wp.array2d(dtype=wp.float32),
    joint_target_q: wp.array(dtype=wp.float32),
):
    env, k = wp.tid()
    i = coords[env, k]
    joint_target_q[i] = joint_q[i] + offsets[env, k]


class RelativeJointPositionAction(JointAction):
    """Joint position targets relative to the current joint positions, Isaac Lab's semantics: in every physics
    step the target is the joint positions that step starts from plus ``raw * scale`` (then the clip).

    The term runs inside the captured physics program (:attr:`~ActionTerm.apply_in_physics_step`): one Warp
    kernel per physics step reads ``state.joint_q`` and writes ``control.joint_target_q`` of the selected joints.
    It runs after the actuator stage, so implicit drives (the solver's own PD) see the new target in the same
    physics step and an explicit actuator one physics step later.
    """

    apply_in_physics_step: ClassVar[bool] = True

    def __init__(self, cfg: RelativeJointPositionActionCfg, env: ManagerBasedEnv):
        super().__init__(cfg, env)
        if cfg.use_zero_offset:
            self._offset = 0.0
        asset = self._asset
        columns = np.arange(asset.num_joints)[self._joint_ids]
        coords = asset.joint_coordinate_ids()[:, columns]
        device = env.manager.get_device()
        self._coords = wp.array(coords.astype(np.int32), dtype=wp.int32, device=device)
        self._offsets = wp.from_torch(self._processed_actions)
        self._joint_q = asset.simulation_array("joint_pos")
        self._joint_target_q = asset.simulation_array("joint_pos_target")

    def apply_actions(self) -> None:
        wp.launch(
            _relative_position_targets,
            dim=tuple(self._coords.shape),
            inputs=[self._joint_q, self._coords, self._offsets],
            outputs=[self._joint_target_q],
            device=self._coords.device,
        )


class JointEffortAction(JointAction):
    """Joint effort targets ``raw * scale + offset`` [N or N*m]."""

    def apply_actions(self) -> None:
        self._asset.set_joint_effort_target(self.processed_actions, joint_ids=self._joint_ids)


class JointPositionToLimitsAction(JointAction):
    """Joint position targets: ``raw * scale``, mapped from ``[-1, 1]`` onto the soft limits with
    ``rescale_to_limits``."""

    def process_actions(self, actions: torch.Tensor) -> None:
        self._raw_actions[:] = actions
        processed = self._apply_clip(self._raw_actions * self._scale)
        if self.cfg.rescale_to_limits:
            limits = self._asset.data.soft_joint_pos_limits.torch[:, self._joint_ids]
            processed = limits[..., 0] + 0.5 * (processed.clamp(-1.0, 1.0) + 1.0) * (limits[..., 1] - limits[..., 0])
        self._processed_actions[:] = processed

    def apply_actions(self) -> None:
        self._asset.set_joint_position_target(self.processed_actions, joint_ids=self._joint_ids)


class BinaryJointPositionAction(BufferedActionTerm):
    """One action value opens or closes a set of joints (a gripper): negative closes, else opens."""

    cfg: Any

    def __init__(self, cfg: BinaryJointPositionActionCfg, env: ManagerBasedEnv):
        super().__init__(cfg, env)
        where = f"{type(self).__name__} on {cfg.asset_name!r}"
        self._joint_ids, self._joint_names = resolve_matching_names(
            cfg.joint_names, self._asset.joint_names, where=f"{where}: joint_names"
        )
        commands = []
        for name in ("open_command_expr", "close_command_expr"):
            ids, _, values = resolve_matching_names_values(
                getattr(cfg, name), self._joint_names, where=f"{where}: {name}"
            )
            if len(ids) != len(self._joint_names):
                raise ValueError(f"{where}: {name} must give every joint of joint_names {self._joint_names} a value")
            command = torch.zeros(len(self._joint_names), device=self.device)
            command[ids] = torch.tensor(values, dtype=torch.float32, device=self.device)
            commands.append(command)
        self._open, self._close = commands
        self._raw_actions = torch.zeros(self.num_envs, 1, device=self.device)
        self._processed_actions = torch.zeros(self.num_envs, len(self._joint_names), device=self.device)

    def process_actions(self, actions: torch.Tensor) -> None:
        self._raw_actions[:] = actions
        close = (actions < 0.0).reshape(-1, 1)
        self._processed_actions[:] = torch.where(close, self._close, self._open)

    def apply_actions(self) -> None:
        self._asset.set_joint_position_target(self.processed_actions, joint_ids=self._joint_ids)


@configclass
class JointActionCfg(ActionTermCfg):
    """Joints of an articulation driven by the action, one action value per joint."""

    _ranges: ClassVar[dict[str, str]] = {"scale": "any", "offset": "any"}  # a dict: the range of each value

    joint_names: list[str] = MISSING
    """Regexes over the articulation's joint names (full match)."""
    scale: float | dict[str, float] = 1.0
    """Factor of the raw action (a dict: per joint regex)."""
    offset: float | dict[str, float] = 0.0
    """Added after the scale (a dict: per joint regex) [rad or m; N or N*m for efforts]."""
    preserve_order: bool = False
    """Order the action's values as :attr:`joint_names` lists the patterns (``False``: the articulation's order)."""


@configclass
class JointPositionActionCfg(JointActionCfg):
    """Joint position targets (:class:`JointPositionAction`)."""

    class_type: type = JointPositionAction
    use_default_offset: bool = True
    """Use the default joint positions as the offset (replacing :attr:`offset`)."""


@configclass
class RelativeJointPositionActionCfg(JointActionCfg):
    """Joint position targets relative to the current positions (:class:`RelativeJointPositionAction`)."""

    class_type: type = RelativeJointPositionAction
    use_zero_offset: bool = True
    """Ignore :attr:`offset` (a relative action has no offset)."""


@configclass
class JointEffortActionCfg(JointActionCfg):
    """Joint effort targets (:class:`JointEffortAction`)."""

    class_type: type = JointEffortAction


@configclass
class JointPositionToLimitsActionCfg(ActionTermCfg):
    """Joint position targets from actions in ``[-1, 1]`` mapped onto the soft limits."""

    _ranges: ClassVar[dict[str, str]] = {"scale": "any"}

    class_type: type = JointPositionToLimitsAction
    joint_names: list[str] = MISSING
    """Regexes over the articulation's joint names (full match)."""
    scale: float | dict[str, float] = 1.0
    """Factor of the raw action (a dict: per joint regex)."""
    rescale_to_limits: bool = True
    """Map ``[-1, 1]`` onto the joints' soft position limits."""
    preserve_order: bool = False
    """Order the action's values as :attr:`joint_names` lists the patterns."""

    @property
    def offset(self) -> float:
        return 0.0


@configclass
class BinaryJointPositionActionCfg(ActionTermCfg):
    """Open / close position targets for a set of joints from one action value (:class:`BinaryJointPositionAction`)."""

    class_type: type = BinaryJointPositionAction
    joint_names: list[str] = MISSING
    """Regexes over the articulation's joint names."""
    open_command_expr: dict[str, float] = MISSING
    """Position of each joint (by regex) when the action is ``>= 0`` [rad or m]."""
    close_command_expr: dict[str, float] = MISSING
    """Position of each joint (by regex) when the action is ``< 0`` [rad or m]."""

    def validate(self) -> None:
        """Check the fields, and that the open and close commands map regexes to finite positions."""
        super().validate()
        cls = type(self).__name__
        for name in ("open_command_expr", "close_command_expr"):
            command = getattr(self, name)
            if not isinstance(command, dict):
                raise TypeError(f"{cls}.{name} must be a dict of joint regex to position, got {type(command).__name__}")
            for key, value in command.items():
                if not isinstance(key, str):
                    raise TypeError(f"{cls}.{name} keys must be joint regexes (strings), got {key!r}")
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise TypeError(
                        f"{cls}.{name}[{key!r}] must be a real number, got {type(value).__name__} {value!r}"
                    )
                if not math.isfinite(value):
                    raise ValueError(f"{cls}.{name}[{key!r}] must be finite, got {value!r}")
