"""Granular assets: a bed of particles sized for an implicit-MPM grid (:class:`GranularBedCfg`) and a lattice of
grains (:class:`ParticleGridCfg`), with the bed's builder function."""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import numpy as np

from isaaclab_contrib.utils.configclass import configclass

from .asset_base import ENV_REGEX_NS, AssetBaseCfg, grid_args

__all__ = ["GranularBedCfg", "ParticleGridCfg", "add_granular_bed"]


def _bed_layout(half_extent: float, height: float, voxel_size: float, center: tuple[float, float], base: float):
    lo = np.array([center[0] - half_extent, center[1] - half_extent, base])
    hi = np.array([center[0] + half_extent, center[1] + half_extent, base + height])
    res = np.maximum(1, np.ceil(2.0 * (hi - lo) / voxel_size).astype(int))
    return lo, res, (hi - lo) / res


def add_granular_bed(
    builder: Any,
    *,
    half_extent: float,
    height: float,
    voxel_size: float,
    density: float,
    friction: float,
    base: float = 0.0,
    center: tuple[float, float] = (0.0, 0.0),
) -> None:
    """Fill the box ``center +- half_extent`` (x, y) x ``[base, base + height]`` (z) with particles.

    About two particles per grid cell and axis, each carrying its share of the box's mass.

    Args:
        builder: The ``newton.ModelBuilder`` receiving the particles (with implicit MPM's custom attributes
            registered: it sets ``mpm:friction``).
        half_extent: Half width of the bed along x and y [m].
        height: Height of the bed [m].
        voxel_size: Grid cell size of the MPM solver the bed is meant for [m].
        density: Bulk density of the material [kg/m^3].
        friction: Friction coefficient of the material (the ``mpm:friction`` attribute) [dimensionless].
        base: Height of the bed's bottom [m].
        center: Center of the bed along x and y [m].
    """
    lo, res, cell = _bed_layout(half_extent, height, voxel_size, center, base)
    builder.add_particle_grid(
        **grid_args(lo + 0.5 * cell, res, [float(c) for c in cell]),
        mass=float(np.prod(cell) * density),
        jitter=0.0,
        radius_mean=float(np.max(cell) * 0.5),
        custom_attributes={"mpm:friction": friction},
    )


@configclass
class GranularBedCfg(AssetBaseCfg):
    """A box of granular material for an implicit-MPM entry: about two particles per grid cell and axis.

    ``init_state.pos`` is the center of the bed's bottom face. The MPM entry solving it should use the
    same :attr:`voxel_size` (``MPMSolverCfg.voxel_size``).
    """

    axis_aligned: ClassVar[bool] = True

    _ranges: ClassVar[dict[str, str]] = {
        "half_extent": "> 0",
        "height": "> 0",
        "voxel_size": "> 0",
        "density": "> 0",
        "friction": ">= 0",
    }

    prim_path: str = f"{ENV_REGEX_NS}/Sand"
    """Label path of the bed (particles carry no labels; it names the asset)."""
    half_extent: float = 0.15
    """Half width of the square bed along x and y [m]."""
    height: float = 0.12
    """Height of the bed [m]."""
    voxel_size: float = 0.03
    """Grid cell size of the MPM solver the bed is seeded for [m]."""
    density: float = 1500.0
    """Bulk density of the material [kg/m^3]."""
    friction: float = 0.6
    """Internal friction coefficient of the material (``mpm:friction``) [dimensionless]."""

    def prepare_builder(self, builder: Any) -> None:
        newton.solvers.SolverImplicitMPM.register_custom_attributes(builder)

    def particle_count(self) -> int:
        x, y, z = self.init_state.pos
        _, res, _ = _bed_layout(self.half_extent, self.height, self.voxel_size, (x, y), z)
        return int(np.prod(res))

    def add_to(self, builder: Any, label: str) -> None:
        x, y, z = self.init_state.pos
        add_granular_bed(
            builder,
            half_extent=self.half_extent,
            height=self.height,
            voxel_size=self.voxel_size,
            density=self.density,
            friction=self.friction,
            base=z,
            center=(x, y),
        )


@configclass
class ParticleGridCfg(AssetBaseCfg):
    """A lattice of grains (free particles): ``dims`` particles along x, y, z, :attr:`spacing` apart.

    ``init_state.pos`` is the first grain's center (lowest x, y and z), as in Newton's ``add_particle_grid``.
    """

    axis_aligned: ClassVar[bool] = True

    _ranges: ClassVar[dict[str, str]] = {
        "dims": ">= 1",
        "spacing": "> 0",
        "radius": "> 0",
        "mass": "> 0",
        "jitter": ">= 0",
    }

    prim_path: str = f"{ENV_REGEX_NS}/Grains"
    """Label path of the lattice (particles carry no labels; it names the asset)."""
    dims: tuple[int, int, int] = (4, 4, 2)
    """Grains along x, y, z [count]."""
    spacing: float = 0.0525
    """Distance between neighbouring grain centers [m]."""
    radius: float = 0.025
    """Grain radius [m]."""
    mass: float = 0.02
    """Mass of one grain [kg]."""
    jitter: float = 0.0
    """Largest random offset of a grain from its lattice site [m] (Newton seeds it with the builder's particle count)."""

    def particle_count(self) -> int:
        nx, ny, nz = self.dims
        return nx * ny * nz

    def add_to(self, builder: Any, label: str) -> None:
        builder.add_particle_grid(
            **grid_args(self.init_state.pos, self.dims, (self.spacing,) * 3),
            mass=self.mass,
            jitter=self.jitter,
            radius_mean=self.radius,
        )
