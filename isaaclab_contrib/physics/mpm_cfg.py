"""Configuration of :class:`newton.solvers.SolverImplicitMPM`."""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Literal

from isaaclab_contrib.utils.configclass import configclass

from .solver_cfg import NewtonSolverCfg

__all__ = ["MPMSolverCfg"]


@configclass
class MPMSolverCfg(NewtonSolverCfg):
    """Newton's implicit material point method solver (granular and plastic materials).

    Fields map to ``SolverImplicitMPM.Config``. MPM steps in place: as a coupled entry it
    requires ``CouplerEntryCfg.in_place=True``. It collides particles against the model's
    shapes itself and does not consume Newton pipeline contacts. A ``"sparse"`` grid with
    ``max_active_cell_count=-1`` is unbounded and cannot be captured in a graph.
    """

    solver_class_path: ClassVar[str] = "newton.solvers:SolverImplicitMPM"
    requires_in_place: ClassVar[bool] = True
    supports_in_place: ClassVar[bool] = True
    _ranges: ClassVar[dict[str, str]] = {
        "voxel_size": "> 0",
        "grid_padding": ">= 0",
        "max_active_cell_count": "-1 | >= 1",
        "max_iterations": ">= 1",
        "tolerance": "> 0",
        "critical_fraction": "[0, 1]",
        "air_drag": ">= 0",
    }

    voxel_size: float = 0.1
    """Background grid cell size [m]."""
    grid_type: Literal["sparse", "dense", "fixed"] = "sparse"
    """Background grid: ``"sparse"`` (adaptive), ``"dense"`` or ``"fixed"``."""
    grid_padding: int = 0
    """Extra cells around the particles [count]."""
    max_active_cell_count: int = -1
    """Bound on active grid cells [count]; ``-1`` is unbounded."""
    max_iterations: int = 250
    """Rheology solver iterations [count]."""
    tolerance: float = 1.0e-4
    """Rheology solver tolerance [dimensionless]."""
    transfer_scheme: Literal["apic", "pic"] = "apic"
    """Particle-grid velocity transfer."""
    integration_scheme: Literal["pic", "gimp"] = "pic"
    """Particle quadrature scheme."""
    critical_fraction: float = 0.0
    """Packing fraction below which the material is treated as free flowing [dimensionless], in [0, 1]."""
    air_drag: float = 1.0
    """Drag applied to particles in empty cells [1/s]."""
    collider_velocity_mode: Literal["forward", "backward"] = "forward"
    """How collider velocities are estimated from their poses."""
    separate_worlds: bool = False
    """Solve each world on its own grid."""

    def _accepted_arguments(self) -> set[str]:
        return {f.name for f in dataclasses.fields(self.solver_class().Config)}
