"""Configuration of :class:`newton.solvers.SolverSteel`."""

from __future__ import annotations

from typing import ClassVar, Literal

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["SteelBinding", "SteelSolverCfg"]


@configclass
class SteelSolverCfg(NewtonSolverCfg):
    """Newton's reduced-coordinate articulated solver (Steel). Consumes pipeline contacts."""

    solver_class_path: ClassVar[str] = "newton.solvers:SolverSteel"
    _ranges: ClassVar[dict[str, str]] = {
        "iterations": ">= 1",
        "baumgarte": "[0, 1]",
        "cfm": ">= 0",
        "relaxation": "(0, 2)",
        "update_mass_matrix_interval": ">= 1",
        "articulation_constraint_max": ">= 1",
        "free_body_constraint_max": ">= 1",
        "velocity_iterations": ">= 0",
        "restitution_velocity_threshold": ">= 0",
        "sleep_linear_threshold": "> 0",
        "sleep_angular_threshold": "> 0",
        "sleep_quiet_time": "> 0",
    }

    solve_mode: Literal["serial", "colored"] = "serial"
    """Constraint sweep order: ``"serial"`` (Gauss-Seidel) or ``"colored"`` (parallel by colour).
    ``"colored"`` requires ``articulated_contact_response="propagation"``."""
    articulated_contact_response: Literal["immediate", "propagation"] = "immediate"
    """How contacts touching an articulation (not a free body) are solved: ``"immediate"`` (dense rows in
    the articulation's generalized coordinates) or ``"propagation"`` (rows at the touched bodies' centers of
    mass, propagated through the articulated-body factorization; required by ``solve_mode="colored"``)."""
    iterations: int = 12
    """Constraint solver iterations per step [count], >= 1 (Newton takes 0, which leaves every
    contact and limit row unsolved)."""
    baumgarte: float = 0.2
    """Fraction of position error corrected per step [dimensionless], in [0, 1]."""
    cfm: float = 1.0e-6
    """Constraint force mixing (regularization) [dimensionless]."""
    relaxation: float = 1.0
    """Over/under-relaxation factor of the iterations [dimensionless], in (0, 2)."""
    update_mass_matrix_interval: int = 1
    """Recompute the articulated mass matrix every N steps [steps]."""
    enable_joint_limits: bool = False
    """Enforce joint position limits."""
    enable_joint_velocity_limits: bool = False
    """Enforce joint velocity limits."""
    enable_joint_friction: bool = False
    """Apply joint friction."""
    articulation_constraint_max: int = 32
    """Capacity of the constraint rows involving articulated bodies, per world [count]: contacts, mimic and
    connect rows, enabled joint limits, joint velocity limits and friction (and drives with
    ``drive_mode="rows"``). Rows beyond it are dropped (Steel warns)."""
    free_body_constraint_max: int = 512
    """Capacity of the free-body constraint rows (contacts and velocity limits of free bodies), per world
    [count]. Under the ``"propagation"`` response it sizes only the velocity-limit rows. Rows beyond it are
    dropped (Steel warns)."""
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

    def validate(self) -> None:
        """Check the fields (see the base class) and the combinations Steel refuses."""
        super().validate()
        if self.solve_mode == "colored" and self.articulated_contact_response != "propagation":
            raise ValueError(
                "SteelSolverCfg.solve_mode='colored' requires SteelSolverCfg.articulated_contact_response="
                f"'propagation', got {self.articulated_contact_response!r}; set it, or use solve_mode='serial'"
            )


class SteelBinding(SolverBinding):
    family = "steel"


register_binding(SteelSolverCfg, SteelBinding())
