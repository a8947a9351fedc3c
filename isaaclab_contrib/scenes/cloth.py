"""Cloth assets: a square cloth grid pinned along two edges (:class:`PinnedClothCfg`, and its builder function),
and a cloth from a triangle-mesh file (:class:`ClothMeshCfg`)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np
import warp as wp

from isaaclab_contrib.utils.configclass import configclass

from .asset_base import ENV_REGEX_NS, AssetBaseCfg

__all__ = ["ClothMeshCfg", "PinnedClothCfg", "add_pinned_cloth"]


@configclass
class PinnedClothCfg(AssetBaseCfg):
    """A square cloth grid in a horizontal plane, pinned along its left and right edges (``x`` lowest and highest).

    ``init_state.pos`` is the cloth's center: its particles span ``pos[0] +- extent / 2`` and
    ``pos[1] +- extent / 2`` at height ``pos[2]`` (``extent = cells * cell_size``). Particles are numbered
    row by row from the corner with the lowest x and y (Newton's ``add_cloth_grid``).
    """

    axis_aligned: ClassVar[bool] = True

    _ranges: ClassVar[dict[str, str]] = {
        "cells": ">= 1",
        "cell_size": "> 0",
        "particle_mass": "> 0",
        "particle_radius": "> 0",
        "stiffness": ">= 0",
        "damping": ">= 0",
        "bend_stiffness": ">= 0",
        "bend_damping": ">= 0",
        "spring_stiffness": ">= 0",
        "spring_damping": ">= 0",
    }

    prim_path: str = f"{ENV_REGEX_NS}/Cloth"
    """Label path of the cloth (one per env by default)."""
    cells: int = 8
    """Cells per side; the cloth has ``(cells + 1) ** 2`` particles [count]."""
    cell_size: float = 0.05
    """Cell edge length [m]."""
    particle_mass: float = 0.01
    """Mass of one particle [kg]."""
    particle_radius: float = 0.01
    """Contact radius of the particles [m]. Rigid bodies collide with the particles, not the triangles."""
    stiffness: float = 1.0e3
    """Membrane (triangle) stiffness, stretch and area [N/m]."""
    damping: float = 10.0
    """Membrane (triangle) damping [N*s/m]."""
    bend_stiffness: float = 1.0e-2
    """Bending (edge) stiffness [N*m]."""
    bend_damping: float = 1.0e-4
    """Bending (edge) damping [N*m*s]."""
    spring_stiffness: float | None = None
    """Stiffness of stretch and shear springs along the grid's edges and diagonals [N/m]; ``None``: no springs."""
    spring_damping: float = 0.0
    """Damping of the springs [N*s/m] (used with :attr:`spring_stiffness`)."""
    fix_left: bool = True
    """Pin the particles of the edge with the lowest x."""
    fix_right: bool = True
    """Pin the particles of the edge with the highest x."""

    @property
    def height(self) -> float:
        """Height of the cloth plane and its pinned edges [m] (``init_state.pos[2]``)."""
        return float(self.init_state.pos[2])

    @property
    def extent(self) -> float:
        """Side length of the cloth [m]."""
        return self.cells * self.cell_size

    def corner(self) -> tuple[float, float, float]:
        """Position of the first particle (lowest x and y) [m]."""
        x, y, z = self.init_state.pos
        half = 0.5 * self.extent
        return (x - half, y - half, z)

    def center_particle(self) -> int:
        """Index (within the cloth) of the particle in the middle of the grid; exactly central for even :attr:`cells`."""
        middle = self.cells // 2
        return middle * (self.cells + 1) + middle

    def particle_count(self) -> int:
        return (self.cells + 1) ** 2

    def add_to(self, builder: Any, label: str) -> None:
        springs = self.spring_stiffness is not None
        builder.add_cloth_grid(
            pos=wp.vec3(*self.corner()),
            rot=wp.quat_identity(),
            vel=wp.vec3(0.0),
            dim_x=self.cells,
            dim_y=self.cells,
            cell_x=self.cell_size,
            cell_y=self.cell_size,
            mass=self.particle_mass,
            fix_left=self.fix_left,
            fix_right=self.fix_right,
            add_springs=springs,
            spring_ke=self.spring_stiffness,
            spring_kd=self.spring_damping if springs else None,
            tri_ke=self.stiffness,
            tri_ka=self.stiffness,
            tri_kd=self.damping,
            edge_ke=self.bend_stiffness,
            edge_kd=self.bend_damping,
            particle_radius=self.particle_radius,
            label=label,
        )


def add_pinned_cloth(
    builder: Any,
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

    A function form of :class:`PinnedClothCfg` for hand-written builders; the bending damping is 1 % of
    *bend_stiffness*.

    Args:
        builder: The ``newton.ModelBuilder`` receiving the cloth.
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
    cfg = PinnedClothCfg(
        prim_path=label if label.startswith("/") else f"{ENV_REGEX_NS}/{label}",
        cells=cells,
        cell_size=cell_size,
        particle_mass=particle_mass,
        particle_radius=particle_radius,
        stiffness=stiffness,
        damping=damping,
        bend_stiffness=bend_stiffness,
        bend_damping=1.0e-2 * bend_stiffness,
    )
    cfg.init_state.pos = (0.0, 0.0, height)
    cfg.add_to(builder, label)


def _read_surface_mesh(path: str, mesh_prim: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Vertices ``(n, 3)`` and triangle indices ``(m, 3)`` of a surface mesh file: a USD stage's ``Mesh`` prim
    (*mesh_prim*) or any file trimesh reads (``.obj``, ``.stl``, ``.ply``, ...)."""
    if path.lower().endswith((".usd", ".usda", ".usdc", ".usdz")):
        import newton.usd
        from pxr import Usd

        stage = Usd.Stage.Open(path)
        prim = stage.GetPrimAtPath(mesh_prim) if mesh_prim else None
        if prim is None or not prim.IsValid():
            raise ValueError(f"{path}: no Mesh prim at {mesh_prim!r} (set mesh_prim to the cloth's prim path)")
        mesh = newton.usd.get_mesh(prim, compute_inertia=False)
    else:
        import newton

        mesh = newton.Mesh.create_from_file(path, method="trimesh", compute_inertia=False)
    return np.asarray(mesh.vertices, dtype=np.float64), np.asarray(mesh.indices, dtype=np.int64).reshape(-1, 3)


@configclass
class ClothMeshCfg(AssetBaseCfg):
    """A cloth from a triangle-mesh file: every vertex a particle, every triangle a membrane element, every
    interior edge a bending element (Newton's ``add_cloth_mesh``).

    ``init_state.pos`` / ``rot`` place the file's frame (its vertices are scaled by :attr:`scale` first).
    """

    _ranges: ClassVar[dict[str, str]] = {
        "scale": "> 0",
        "density": "> 0",
        "particle_radius": "> 0",
        "stiffness": ">= 0",
        "damping": ">= 0",
        "bend_stiffness": ">= 0",
        "bend_damping": ">= 0",
    }

    prim_path: str = f"{ENV_REGEX_NS}/Cloth"
    """Label path of the cloth."""
    asset_path: str = ""
    """The mesh file: ``.obj`` / ``.stl`` / ``.ply`` (read with trimesh) or a USD stage (with :attr:`mesh_prim`)."""
    mesh_prim: str | None = None
    """Prim path of the ``Mesh`` in a USD :attr:`asset_path`."""
    scale: float = 1.0
    """Uniform scale of the file's vertices [dimensionless]."""
    density: float = 0.1
    """Mass per area [kg/m^2] (lumped onto the vertices)."""
    particle_radius: float = 0.01
    """Contact radius of the particles [m]."""
    stiffness: float = 1.0e3
    """Membrane (triangle) stiffness, stretch and area [N/m]."""
    damping: float = 10.0
    """Membrane damping [N*s/m]."""
    bend_stiffness: float = 1.0e-2
    """Bending (edge) stiffness [N*m]."""
    bend_damping: float = 1.0e-4
    """Bending (edge) damping [N*m*s]."""

    def _mesh(self) -> tuple[np.ndarray, np.ndarray]:
        key = (os.fspath(self.asset_path), self.mesh_prim)
        if key not in _MESHES:
            _MESHES[key] = _read_surface_mesh(*key)
        return _MESHES[key]

    def particle_count(self) -> int:
        return len(self._mesh()[0])

    def add_to(self, builder: Any, label: str) -> None:
        vertices, triangles = self._mesh()
        builder.add_cloth_mesh(
            pos=wp.vec3(*self.init_state.pos),
            rot=wp.quat(*self.init_state.rot),
            scale=self.scale,
            vel=wp.vec3(0.0),
            vertices=[wp.vec3(*v) for v in vertices],
            indices=triangles.reshape(-1).tolist(),
            density=self.density,
            tri_ke=self.stiffness,
            tri_ka=self.stiffness,
            tri_kd=self.damping,
            edge_ke=self.bend_stiffness,
            edge_kd=self.bend_damping,
            particle_radius=self.particle_radius,
            label=label,
        )

    def validate(self, where: str | None = None) -> None:
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.asset_path, (str, os.PathLike)) or not os.fspath(self.asset_path):
            raise ValueError(f"{label}.asset_path must name a mesh file, got {self.asset_path!r}")


_MESHES: dict[tuple[str, str | None], tuple[np.ndarray, np.ndarray]] = {}
"""Meshes read by :class:`ClothMeshCfg`, by (path, prim); a file is read once per process."""
