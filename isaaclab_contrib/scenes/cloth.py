"""Cloth building block shared by scenes: a square cloth grid pinned along two edges."""

from __future__ import annotations

import newton
import warp as wp

__all__ = ["add_pinned_cloth"]


def add_pinned_cloth(
    builder: newton.ModelBuilder,
    *,
    cells: int,
    cell_size: float,
    height: float,
    particle_mass: float,
    particle_radius: float,
    stiffness: float,
    damping: float,
    bend_stiffness: float = 1.0e-2,
    label: str = "Cloth",
) -> None:
    """Add a square cloth centered on the z axis at *height* [m], pinned along its left and right edges.

    Args:
        cells: Cells per side; the cloth has ``(cells + 1) ** 2`` particles [count].
        cell_size: Cell edge length [m].
        height: Height of the cloth plane [m].
        particle_mass: Mass of one particle [kg].
        particle_radius: Contact radius of the particles [m].
        stiffness: Membrane (triangle) stiffness [N/m].
        damping: Membrane damping [N*s/m].
        bend_stiffness: Bending stiffness [N*m]; its damping is 1 % of it.
        label: Label of the cloth (below the env prefix).
    """
    extent = cells * cell_size
    builder.add_cloth_grid(
        pos=wp.vec3(-0.5 * extent, -0.5 * extent, height),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=cells,
        dim_y=cells,
        cell_x=cell_size,
        cell_y=cell_size,
        mass=particle_mass,
        fix_left=True,
        fix_right=True,
        particle_radius=particle_radius,
        tri_ke=stiffness,
        tri_ka=stiffness,
        tri_kd=damping,
        edge_ke=bend_stiffness,
        edge_kd=1.0e-2 * bend_stiffness,
        label=label,
    )
