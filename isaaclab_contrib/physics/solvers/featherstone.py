"""Configuration of :class:`newton.solvers.SolverFeatherstone`."""

from __future__ import annotations

from typing import ClassVar

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["FeatherstoneBinding", "FeatherstoneSolverCfg"]


@configclass
class FeatherstoneSolverCfg(NewtonSolverCfg):
    """Newton's Featherstone articulated-body solver (explicit, penalty contacts). Consumes pipeline contacts."""

    solver_class_path: ClassVar[str] = "newton.solvers:SolverFeatherstone"
    _ranges: ClassVar[dict[str, str]] = {
        "angular_damping": ">= 0",
        "update_mass_matrix_interval": ">= 1",
        "friction_smoothing": ">= 0",
    }

    angular_damping: float = 0.05
    """Angular velocity damping of free bodies [1/s]."""
    update_mass_matrix_interval: int = 1
    """Recompute the mass matrix every N steps [steps]."""
    friction_smoothing: float | None = None
    """Smoothing of the Coulomb friction cone [m/s]; ``None`` keeps Newton's default."""
    use_tile_gemm: bool = False
    """Use tiled matrix products (faster on GPU for large articulations)."""
    fuse_cholesky: bool = True
    """Fuse the Cholesky factorization and solve kernels."""


class FeatherstoneBinding(SolverBinding):
    family = "featherstone"


register_binding(FeatherstoneSolverCfg, FeatherstoneBinding())
