"""Actuator configurations in Isaac Lab's style: one config per group of joints of an articulation.

A group is chosen by regexes over joint *names* (the last component of a Newton joint label, e.g.
``"hip_1"`` in ``/World/envs/env_0/Robot/ant/worldbody/torso/front_left_leg/hip_1``), each matched
in full. :func:`~isaaclab_contrib.physics.actuators.add_actuators` turns the groups into Newton
actuators (``newton.actuators``) on a model builder:

* :class:`IdealPDActuatorCfg` -- an explicit PD law evaluated by the manager's actuator stage every
  physics step (Newton ``DrivePD``), its effort clipped to ``effort_limit`` (``ClampingMaxEffort``).
* :class:`DCMotorCfg` -- the PD law with DC-motor torque-speed saturation (``ClampingDCMotor``).
* :class:`DelayedPDActuatorCfg` -- the PD law reading targets ``delay_steps`` physics steps old
  (Newton ``Delay``).
* :class:`ImplicitActuatorCfg` -- no actuator stage: the solver's own joint drive (``joint_target_ke``,
  ``joint_target_kd``, ``joint_effort_limit``) integrates the PD implicitly, as PhysX's drives do.

Gains and limits are per joint DOF in the joint's units: revolute joints in [N*m/rad], [N*m*s/rad],
[N*m] and [rad/s]; prismatic joints in [N/m], [N*s/m], [N] and [m/s].
"""

from __future__ import annotations

import math
import numbers
import re

from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass

__all__ = [
    "ActuatorBaseCfg",
    "DCMotorCfg",
    "DelayedPDActuatorCfg",
    "IdealPDActuatorCfg",
    "ImplicitActuatorCfg",
]


def _check_number(owner: str, name: str, value, *, positive: bool = False, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}.{name} must be a number, got {type(value).__name__}")
    if math.isnan(value):
        raise ValueError(f"{owner}.{name} must not be NaN")
    if positive and not value > 0.0:
        raise ValueError(f"{owner}.{name} must be > 0, got {value}")
    if not positive and value < 0.0:
        raise ValueError(f"{owner}.{name} must be >= 0, got {value}")


@configclass
class ActuatorBaseCfg:
    """Joints of one actuator group and their PD gains and limits."""

    joint_names_expr: list[str] = MISSING
    """Regexes matched in full against joint names (the last component of the joint label), e.g.
    ``["hip_.*", "ankle_.*"]``. Every regex must match at least one joint; a joint may belong to
    one actuator group only. Only revolute and prismatic joints can be actuated."""
    stiffness: float = MISSING
    """Position gain [N*m/rad] (revolute) or [N/m] (prismatic)."""
    damping: float = MISSING
    """Velocity gain [N*m*s/rad] (revolute) or [N*s/m] (prismatic)."""
    effort_limit: float | None = None
    """Largest effort the actuator applies [N*m] or [N]; ``None``: unlimited."""

    def validate(self) -> None:
        """Check types and ranges; errors name the config class and field."""
        owner = type(self).__name__
        check_missing(self)
        if isinstance(self.joint_names_expr, str) or not isinstance(self.joint_names_expr, (list, tuple)):
            raise TypeError(f"{owner}.joint_names_expr must be a list of regex strings, got {self.joint_names_expr!r}")
        if not self.joint_names_expr:
            raise ValueError(f"{owner}.joint_names_expr must name at least one joint regex")
        for i, expr in enumerate(self.joint_names_expr):
            if not isinstance(expr, str):
                raise TypeError(f"{owner}.joint_names_expr[{i}] must be a regex string, got {type(expr).__name__}")
            try:
                re.compile(expr)
            except re.error as err:
                raise ValueError(f"{owner}.joint_names_expr[{i}]={expr!r} is not a valid regex: {err}") from err
        _check_number(owner, "stiffness", self.stiffness)
        _check_number(owner, "damping", self.damping)
        _check_number(owner, "effort_limit", self.effort_limit, positive=True, allow_none=True)
        for name in ("stiffness", "damping", "effort_limit"):
            value = getattr(self, name)
            if value is not None and math.isinf(value) and name != "effort_limit":
                raise ValueError(f"{owner}.{name} must be finite, got {value}")


@configclass
class IdealPDActuatorCfg(ActuatorBaseCfg):
    """Explicit PD computed by the manager every physics step:
    ``effort = stiffness * (target_q - q) + damping * (target_qd - qd) + joint_act``, clipped to
    ``[-effort_limit, effort_limit]`` and written into ``control.joint_f``."""


@configclass
class DCMotorCfg(IdealPDActuatorCfg):
    """Explicit PD with a DC motor's torque-speed curve: the effort is clipped to
    ``saturation_effort * (1 -+ qd / velocity_limit)`` (and to ``effort_limit`` when set)."""

    saturation_effort: float = MISSING
    """Stall effort of the motor at zero speed [N*m] or [N]."""
    velocity_limit: float = MISSING
    """No-load speed of the motor [rad/s] or [m/s]."""

    def validate(self) -> None:
        super().validate()
        owner = type(self).__name__
        _check_number(owner, "saturation_effort", self.saturation_effort, positive=True)
        _check_number(owner, "velocity_limit", self.velocity_limit, positive=True)
        for name in ("saturation_effort", "velocity_limit"):
            if math.isinf(getattr(self, name)):
                raise ValueError(f"{owner}.{name} must be finite")


@configclass
class DelayedPDActuatorCfg(IdealPDActuatorCfg):
    """Explicit PD that reads joint targets ``delay_steps`` physics steps old (a fixed input delay).

    Isaac Lab draws the delay per env between a minimum and a maximum; here it is one fixed value.
    The delay buffer of an env is cleared when that env is reset.
    """

    delay_steps: int = 1
    """Input delay [physics steps] (>= 1)."""

    def validate(self) -> None:
        super().validate()
        owner = type(self).__name__
        if isinstance(self.delay_steps, bool) or not isinstance(self.delay_steps, numbers.Integral):
            raise TypeError(f"{owner}.delay_steps must be an integer [physics steps], got {self.delay_steps!r}")
        if self.delay_steps < 1:
            raise ValueError(f"{owner}.delay_steps must be >= 1, got {self.delay_steps}")


@configclass
class ImplicitActuatorCfg(ActuatorBaseCfg):
    """The solver's own joint drive: sets the joints' ``joint_target_ke`` / ``joint_target_kd`` /
    ``joint_effort_limit`` (and ``joint_velocity_limit``) so the entry solver integrates the PD
    implicitly from ``control.joint_target_q`` / ``joint_target_qd``. No actuator stage runs and
    ``control.joint_f`` is not written. Solvers that ignore joint drives (e.g. VBD, XPBD) ignore it."""

    velocity_limit: float | None = None
    """Joint velocity limit handed to the solver [rad/s] or [m/s]; ``None``: keep the model's."""

    def validate(self) -> None:
        super().validate()
        _check_number(type(self).__name__, "velocity_limit", self.velocity_limit, positive=True, allow_none=True)
