"""Granular material: a box of particles sized for an implicit-MPM grid."""

from __future__ import annotations

import newton
import numpy as np
import warp as wp

__all__ = ["add_granular_bed"]


def add_granular_bed(
    builder: newton.ModelBuilder,
    *,
    half_extent: float,
    height: float,
    voxel_size: float,
    density: float,
    friction: float,
    base: float = 0.0,
) -> None:
    """Fill the box ``[-half_extent, half_extent]^2 x [base, base + height]`` with particles.

    About two particles per grid cell and axis, each carrying its share of the box's mass.

    Args:
        half_extent: Half width of the bed along x and y [m].
        height: Height of the bed [m].
        voxel_size: Grid cell size of the MPM solver the bed is meant for [m].
        density: Bulk density of the material [kg/m^3].
        friction: Friction coefficient of the material (the ``mpm:friction`` attribute) [dimensionless].
        base: Height of the bed's bottom [m].
    """
    lo = np.array([-half_extent, -half_extent, base])
    hi = np.array([half_extent, half_extent, base + height])
    res = np.maximum(1, np.ceil(2.0 * (hi - lo) / voxel_size).astype(int))
    cell = (hi - lo) / res
    builder.add_particle_grid(
        pos=wp.vec3(*(lo + 0.5 * cell)),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=int(res[0]),
        dim_y=int(res[1]),
        dim_z=int(res[2]),
        cell_x=float(cell[0]),
        cell_y=float(cell[1]),
        cell_z=float(cell[2]),
        mass=float(np.prod(cell) * density),
        jitter=0.0,
        radius_mean=float(np.max(cell) * 0.5),
        custom_attributes={"mpm:friction": friction},
    )
