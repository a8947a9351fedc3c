"""Cloth assets: a square cloth grid pinned along two edges (:class:`PinnedClothCfg`, and its builder function),
and a cloth from a triangle-mesh file (:class:`ClothMeshCfg`)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np
import warp as wp

from isaaclab_contrib.utils.configclass import configclass

from .asset_base import ENV_REGEX_NS
from .deformable_base import ClothMaterialCfg, MeshFileCfg
from .file_checks import (
    USD_SUFFIXES,
    check_suffix,
    check_usd_prim,
    importer_errors,
    open_usd_stage,
)
from .mesh_checks import check_added, check_triangle_mesh

__all__ = ["ClothMeshCfg", "PinnedClothCfg", "add_pinned_cloth"]


@configclass
class PinnedClothCfg(ClothMaterialCfg):
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
            **self.cloth_material_args(),
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


MESH_SUFFIXES = (".obj", ".stl", ".ply", ".off", ".glb", ".gltf", ".dae", *USD_SUFFIXES)
"""Extensions :class:`ClothMeshCfg` reads: trimesh's surface formats and USD stages."""


def _read_surface_mesh(path: str, mesh_prim: str | None, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Vertices ``(n, 3)`` and triangle indices ``(m, 3)`` of a surface mesh file: a USD stage's ``Mesh`` prim
    (*mesh_prim*) or any file trimesh reads (``.obj``, ``.stl``, ``.ply``, ...); errors name *where* and the file."""
    import newton

    suffix = check_suffix(path, f"{where}.asset_path", "cloth mesh", MESH_SUFFIXES)
    if suffix in USD_SUFFIXES:
        import newton.usd

        stage = open_usd_stage(path, f"{where}.asset_path")
        if mesh_prim is None:
            raise ValueError(f"{where}.mesh_prim is None: name the Mesh prim of the USD stage {path!r}")
        prim = check_usd_prim(stage, mesh_prim, f"{where}.mesh_prim", path)
        with importer_errors(f"{where}.mesh_prim", path, "USD Mesh prim"):
            mesh = newton.usd.get_mesh(prim, compute_inertia=False)
    else:
        if mesh_prim is not None:
            raise ValueError(
                f"{where}.mesh_prim={mesh_prim!r} is given, but {path!r} is not a USD stage; set it to None"
            )
        with importer_errors(f"{where}.asset_path", path, "cloth mesh"):
            mesh = newton.Mesh.create_from_file(path, method="trimesh", compute_inertia=False)
    with importer_errors(f"{where}.asset_path", path, "cloth mesh"):
        vertices = np.asarray(mesh.vertices, dtype=np.float64)
        indices = np.asarray(mesh.indices, dtype=np.int64)
    return vertices, indices


@configclass
class ClothMeshCfg(MeshFileCfg, ClothMaterialCfg):
    """A cloth from a triangle-mesh file (:attr:`asset_path`: ``.obj`` / ``.stl`` / ``.ply`` read with trimesh, or
    a USD stage with the ``Mesh`` prim :attr:`mesh_prim`): every vertex a particle, every triangle a membrane
    element, every interior edge a bending element (Newton's ``add_cloth_mesh``).

    ``init_state.pos`` / ``rot`` place the file's frame (its vertices are scaled by :attr:`scale` first).
    """

    _ranges: ClassVar[dict[str, str]] = {"density": "> 0"}

    prim_path: str = f"{ENV_REGEX_NS}/Cloth"
    """Label path of the cloth."""
    density: float = 0.1
    """Mass per area [kg/m^2] (lumped onto the vertices)."""

    def _mesh(self) -> tuple[np.ndarray, np.ndarray, int]:
        """The file's vertices, its checked triangles and how many of them are not degenerate (read once per
        content of the file: the cache key changes when the file is written)."""

        def read(path: str, where: str) -> tuple[np.ndarray, np.ndarray, int]:
            vertices, indices = _read_surface_mesh(path, self.mesh_prim, where)
            triangles, kept = check_triangle_mesh(vertices, indices, self.scale, f"{where}.asset_path", path)
            vertices.setflags(write=False)
            triangles.setflags(write=False)
            return vertices, triangles, kept

        return self._read_once(_MESHES, "cloth mesh file", read)

    def particle_count(self) -> int:
        return len(self._mesh()[0])

    def add_to(self, builder: Any, label: str) -> None:
        vertices, triangles, kept = self._mesh()
        first_particle, first_tri = builder.particle_count, builder.tri_count
        builder.add_cloth_mesh(
            pos=wp.vec3(*self.init_state.pos),
            rot=wp.quat(*self.init_state.rot),
            scale=self.scale,
            vel=wp.vec3(0.0),
            vertices=[wp.vec3(*v) for v in vertices],
            indices=triangles.reshape(-1).tolist(),
            density=self.density,
            **self.cloth_material_args(),
            label=label,
        )
        where = f"{self._where()}.asset_path"
        added = builder.tri_count - first_tri
        check_added(builder, first_particle, added, kept, "triangles", where, os.fspath(self.asset_path))


_MESHES: dict[tuple, tuple[np.ndarray, np.ndarray, int]] = {}
"""Meshes read by :class:`ClothMeshCfg`, by (content key of the file, prim, scale): a file is read again once it
was written (:func:`~isaaclab_contrib.scenes.file_checks.file_key`)."""
