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

from typing import ClassVar

from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.labels import check_regex_list
from isaaclab_contrib.utils.validation import check_fields

__all__ = [
    "ActuatorBaseCfg",
    "DCMotorCfg",
    "DelayedPDActuatorCfg",
    "IdealPDActuatorCfg",
    "ImplicitActuatorCfg",
]


@configclass
class ActuatorBaseCfg:
    """Joints of one actuator group and their PD gains and limits."""

    _ranges: ClassVar[dict[str, str]] = {"stiffness": ">= 0", "damping": ">= 0", "effort_limit": "(0, inf]"}

    joint_names_expr: list[str] = MISSING
    """Regexes matched in full against joint names (the last component of the joint label), e.g.
    ``["hip_.*", "ankle_.*"]``. Every regex must match at least one joint; a joint may belong to
    one actuator group only. Only revolute and prismatic joints can be actuated."""
    stiffness: float = MISSING
    """Position gain [N*m/rad] (revolute) or [N/m] (prismatic)."""
    damping: float = MISSING
    """Velocity gain [N*m*s/rad] (revolute) or [N*s/m] (prismatic)."""
    effort_limit: float | None = None
    """Largest effort the actuator applies [N*m] or [N], > 0; ``None`` (or ``inf``): unlimited."""

    def validate(self) -> None:
        """Check types and ranges; errors name the config class and field."""
        owner = type(self).__name__
        check_missing(self)
        check_fields(self)
        check_regex_list(self.joint_names_expr, f"{owner}.joint_names_expr")
        if not self.joint_names_expr:
            raise ValueError(f"{owner}.joint_names_expr must name at least one joint regex")


@configclass
class IdealPDActuatorCfg(ActuatorBaseCfg):
    """Explicit PD computed by the manager every physics step:
    ``effort = stiffness * (target_q - q) + damping * (target_qd - qd) + joint_act``, clipped to
    ``[-effort_limit, effort_limit]`` and written into ``control.joint_f``."""


@configclass
class DCMotorCfg(IdealPDActuatorCfg):
    """Explicit PD with a DC motor's torque-speed curve: the effort is clipped to
    ``saturation_effort * (1 -+ qd / velocity_limit)`` (and to ``effort_limit`` when set)."""

    _ranges: ClassVar[dict[str, str]] = {"saturation_effort": "> 0", "velocity_limit": "> 0"}

    saturation_effort: float = MISSING
    """Stall effort of the motor at zero speed [N*m] or [N]."""
    velocity_limit: float = MISSING
    """No-load speed of the motor [rad/s] or [m/s]."""


@configclass
class DelayedPDActuatorCfg(IdealPDActuatorCfg):
    """Explicit PD that reads joint targets ``delay_steps`` physics steps old (a fixed input delay).

    Isaac Lab draws the delay per env between a minimum and a maximum; here it is one fixed value.
    The delay buffer of an env is cleared when that env is reset.
    """

    _ranges: ClassVar[dict[str, str]] = {"delay_steps": ">= 1"}

    delay_steps: int = 1
    """Input delay [physics steps] (>= 1)."""


@configclass
class ImplicitActuatorCfg(ActuatorBaseCfg):
    """The solver's own joint drive: sets the joints' ``joint_target_ke`` / ``joint_target_kd`` /
    ``joint_effort_limit`` (and ``joint_velocity_limit``) so the entry solver integrates the PD
    implicitly from ``control.joint_target_q`` / ``joint_target_qd``. No actuator stage runs and
    ``control.joint_f`` is not written. Solvers that ignore joint drives (e.g. VBD, XPBD) ignore it."""

    _ranges: ClassVar[dict[str, str]] = {"velocity_limit": "(0, inf]"}

    velocity_limit: float | None = None
    """Joint velocity limit handed to the solver [rad/s] or [m/s], > 0 (``inf``: unlimited); ``None``: keep
    the model's."""
