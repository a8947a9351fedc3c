"""Granular assets: a bed of particles sized for an implicit-MPM grid (:class:`GranularBedCfg`), a jittered heap
on a flat layer for an implicit-MPM grid (:class:`GranularHeapCfg`) and a lattice of grains
(:class:`ParticleGridCfg`), with the bed's builder function."""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import numpy as np

from isaaclab_contrib.utils.configclass import configclass

from .asset_base import ENV_REGEX_NS, AssetBaseCfg, grid_args

__all__ = ["GranularBedCfg", "GranularHeapCfg", "ParticleGridCfg", "add_granular_bed"]


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
class GranularHeapCfg(AssetBaseCfg):
    """A square layer of granular material under a paraboloid heap, for an implicit-MPM entry.

    Material points sit on a cubic lattice of spacing ``voxel_size / particles_per_cell`` over the square
    ``+- half_width`` (x, y), from half a spacing above the ground up to the surface
    ``base_height + heap_height * t**2`` with ``t = max(0, 1 - (r / heap_radius)**2)`` (``r``: distance from the
    center axis); the lattice is walked along x, then y, then z upwards. Each point is moved by a uniform random
    offset of up to ``jitter / 2`` spacings along each axis, drawn from ``numpy.random.default_rng(seed + n)``
    with ``n`` the builder's particle count when the heap is added (three draws per point, in lattice order).
    With Newton's ``vbd_mpm_coupled_solver`` example's values (the defaults), added after its 125-particle soft
    cube, this is that example's heap, point for point.

    ``init_state.pos`` is the center of the heap's bottom; the offset is added last, so the origin leaves the
    positions as computed. The MPM entry solving the heap should use the same :attr:`voxel_size`.
    """

    axis_aligned: ClassVar[bool] = True

    _ranges: ClassVar[dict[str, str]] = {
        "half_width": "> 0",
        "base_height": ">= 0",
        "heap_radius": "> 0",
        "heap_height": ">= 0",
        "voxel_size": "> 0",
        "particles_per_cell": "> 0",
        "density": "> 0",
        "friction": ">= 0",
        "radius_fraction": "> 0",
        "jitter": "[0, 1]",
        "seed": ">= 0",
    }

    prim_path: str = f"{ENV_REGEX_NS}/Heap"
    """Label path of the heap (particles carry no labels; it names the asset)."""
    half_width: float = 0.95
    """Half width of the square layer along x and y [m]."""
    base_height: float = 0.20
    """Height of the flat layer under the heap [m]."""
    heap_radius: float = 0.82
    """Radius of the heap's footprint [m]."""
    heap_height: float = 0.58
    """Height of the heap's top above the layer [m]."""
    voxel_size: float = 0.08
    """Grid cell size of the MPM solver the heap is seeded for [m]."""
    particles_per_cell: float = 1.75
    """Material points per grid cell along each axis [count]."""
    density: float = 1800.0
    """Bulk density of the material [kg/m^3]; each point carries ``spacing**3 * density``."""
    friction: float = 0.5
    """Internal friction coefficient of the material (``mpm:friction``) [dimensionless]."""
    radius_fraction: float = 0.35
    """Particle radius as a fraction of :attr:`voxel_size` [dimensionless]."""
    jitter: float = 0.45
    """Full width of the random offset along each axis, as a fraction of the lattice spacing [dimensionless]."""
    seed: int = 42
    """Base seed of the jitter generator (the builder's particle count is added) [count]."""

    def spacing(self) -> float:
        """Lattice spacing of the material points [m]."""
        return self.voxel_size / self.particles_per_cell

    def _sites(self) -> list[tuple[float, float, float]]:
        """Lattice sites below the heap's surface, relative to its bottom center, in the order they are added."""
        spacing = self.spacing()
        w = self.half_width
        axis = np.arange(-w, w + 0.5 * spacing, spacing)
        heights = np.arange(0.5 * spacing, self.base_height + self.heap_height + 0.5 * spacing, spacing)
        sites = []
        for x in axis:
            for y in axis:
                t = max(0.0, 1.0 - (float(np.hypot(x, y)) / self.heap_radius) ** 2)
                top = self.base_height + self.heap_height * t * t
                sites += [(x, y, z) for z in heights[heights <= top]]
        return sites

    def positions(self, particle_start: int) -> list[list[float]]:
        """Jittered positions of the points [m] when the heap is added after *particle_start* particles."""
        rng = np.random.default_rng(self.seed + particle_start)
        spacing = self.spacing()
        ox, oy, oz = (float(c) for c in self.init_state.pos)
        out = []
        for x, y, z in self._sites():
            dx, dy, dz = (rng.random(3) - 0.5) * self.jitter * spacing
            out.append([float(x + dx) + ox, float(y + dy) + oy, float(z + dz) + oz])
        return out

    def prepare_builder(self, builder: Any) -> None:
        newton.solvers.SolverImplicitMPM.register_custom_attributes(builder)

    def particle_count(self) -> int:
        return len(self._sites())

    def add_to(self, builder: Any, label: str) -> None:
        positions = self.positions(builder.particle_count)
        count = len(positions)
        builder.add_particles(
            pos=positions,
            vel=[[0.0, 0.0, 0.0]] * count,
            mass=[float(self.spacing() ** 3 * self.density)] * count,
            radius=[float(self.radius_fraction * self.voxel_size)] * count,
            custom_attributes={"mpm:friction": [self.friction] * count},
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
