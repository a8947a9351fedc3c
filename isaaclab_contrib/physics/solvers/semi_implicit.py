"""Configuration of :class:`newton.solvers.SolverSemiImplicit`."""

from __future__ import annotations

from typing import ClassVar

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["SemiImplicitBinding", "SemiImplicitSolverCfg"]


@configclass
class SemiImplicitSolverCfg(NewtonSolverCfg):
    """Newton's semi-implicit Euler solver (penalty forces). Consumes pipeline contacts."""

    solver_class_path: ClassVar[str] = "newton.solvers:SolverSemiImplicit"
    _ranges: ClassVar[dict[str, str]] = {
        "angular_damping": ">= 0",
        "friction_smoothing": ">= 0",
        "joint_attach_ke": ">= 0",
        "joint_attach_kd": ">= 0",
    }

    angular_damping: float = 0.05
    """Angular velocity damping [1/s]."""
    friction_smoothing: float | None = None
    """Smoothing of the Coulomb friction cone [m/s]; ``None`` keeps Newton's default."""
    joint_attach_ke: float = 1.0e4
    """Stiffness of the penalty joint attachment [N/m]."""
    joint_attach_kd: float = 100.0
    """Damping of the penalty joint attachment [N*s/m]."""
    enable_tri_contact: bool = True
    """Enable triangle-particle contacts."""


class SemiImplicitBinding(SolverBinding):
    family = "semi_implicit"
    writes_joint_coordinates = False


register_binding(SemiImplicitSolverCfg, SemiImplicitBinding())
