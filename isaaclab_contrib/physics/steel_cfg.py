"""Configuration of :class:`newton.solvers.SolverSteel`."""

from __future__ import annotations

from typing import ClassVar, Literal

from isaaclab_contrib.utils.configclass import configclass

from .solver_cfg import NewtonSolverCfg

__all__ = ["SteelSolverCfg"]


@configclass
class SteelSolverCfg(NewtonSolverCfg):
    """Newton's reduced-coordinate articulated solver (Steel). Consumes pipeline contacts."""

    solver_class_path: ClassVar[str] = "newton.solvers:SolverSteel"

    solve_mode: Literal["serial", "colored"] = "serial"
    """Constraint sweep order: ``"serial"`` (Gauss-Seidel) or ``"colored"`` (parallel by colour)."""
    iterations: int = 12
    """Constraint solver iterations per step [count]."""
    baumgarte: float = 0.2
    """Fraction of position error corrected per step [dimensionless]."""
    cfm: float = 1.0e-6
    """Constraint force mixing (regularization) [dimensionless]."""
    relaxation: float = 1.0
    """Over/under-relaxation factor of the iterations [dimensionless]."""
    update_mass_matrix_interval: int = 1
    """Recompute the articulated mass matrix every N steps [steps]."""
    enable_joint_limits: bool = False
    """Enforce joint position limits."""
    enable_joint_velocity_limits: bool = False
    """Enforce joint velocity limits."""
    enable_joint_friction: bool = False
    """Apply joint friction."""
    articulation_constraint_max: int = 32
    """Constraint rows reserved per articulation [count]."""
    free_body_constraint_max: int = 512
    """Constraint rows reserved per free body [count]."""
    drive_mode: Literal["augmented", "rows"] = "augmented"
    """How joint drives enter the solve: in the mass matrix or as constraint rows."""
    friction_mode: Literal["fixed_normal", "bisection", "bisection_desaxce", "coulomb_newton"] = "fixed_normal"
    """Contact friction model."""
    contact_warmstart: bool = False
    """Warm-start contact impulses from the previous step."""
    velocity_iterations: int = 0
    """Extra velocity-level iterations after the position solve [count]."""
    enable_restitution: bool = True
    """Apply contact restitution above :attr:`restitution_velocity_threshold`."""
    restitution_velocity_threshold: float = 0.5
    """Normal approach speed below which restitution is ignored [m/s]."""
    enable_sleeping: bool = False
    """Put resting islands to sleep."""
    sleep_linear_threshold: float = 0.05
    """Linear speed under which a body may sleep [m/s]."""
    sleep_angular_threshold: float = 0.15
    """Angular speed under which a body may sleep [rad/s]."""
    sleep_quiet_time: float = 0.5
    """Time a body must stay under the thresholds before sleeping [s]."""
