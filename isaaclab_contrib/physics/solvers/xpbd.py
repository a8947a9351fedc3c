"""Configuration of :class:`newton.solvers.SolverXPBD`."""

from __future__ import annotations

from typing import ClassVar

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["XPBDBinding", "XPBDSolverCfg"]


@configclass
class XPBDSolverCfg(NewtonSolverCfg):
    """Newton's extended position-based dynamics solver (rigid bodies and particles). Consumes pipeline contacts."""

    solver_class_path: ClassVar[str] = "newton.solvers:SolverXPBD"
    _ranges: ClassVar[dict[str, str]] = {
        "iterations": ">= 1",
        "soft_body_relaxation": "(0, 2)",
        "soft_contact_relaxation": "(0, 2)",
        "joint_linear_relaxation": "(0, 2)",
        "joint_angular_relaxation": "(0, 2)",
        "joint_linear_compliance": ">= 0",
        "joint_angular_compliance": ">= 0",
        "rigid_contact_relaxation": "(0, 2)",
        "angular_damping": ">= 0",
    }

    iterations: int = 2
    """Constraint iterations per step [count]."""
    soft_body_relaxation: float = 0.9
    """Relaxation of soft-body (spring, triangle, tetrahedron) constraints [dimensionless]. Every
    relaxation factor lies in (0, 2): below 1 under-relaxes, above 1 over-relaxes."""
    soft_contact_relaxation: float = 0.9
    """Relaxation of particle-shape contacts [dimensionless]."""
    joint_linear_relaxation: float = 0.7
    """Relaxation of linear joint constraints [dimensionless]."""
    joint_angular_relaxation: float = 0.4
    """Relaxation of angular joint constraints [dimensionless]."""
    joint_linear_compliance: float = 0.0
    """Compliance of linear joint constraints [m/N]."""
    joint_angular_compliance: float = 0.0
    """Compliance of angular joint constraints [rad/(N*m)]."""
    rigid_contact_relaxation: float = 0.8
    """Relaxation of rigid contacts [dimensionless]."""
    rigid_contact_con_weighting: bool = True
    """Average contact corrections over the number of contacts of a body."""
    angular_damping: float = 0.0
    """Angular velocity damping [1/s]."""
    enable_restitution: bool = False
    """Apply contact restitution."""


class XPBDBinding(SolverBinding):
    family = "xpbd"
    writes_joint_coordinates = False


register_binding(XPBDSolverCfg, XPBDBinding())
