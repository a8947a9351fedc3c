"""Soft-body assets: a block of Neo-Hookean tetrahedra on a regular grid (:class:`SoftBlockCfg`) and a soft body
from a tetrahedral-mesh file (:class:`SoftMeshCfg`). Either is owned by a VBD entry."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np
import warp as wp

from isaaclab_contrib.utils.configclass import configclass

from .asset_base import ENV_REGEX_NS, grid_args
from .deformable_base import MeshFileCfg, SoftMaterialCfg
from .file_checks import (
    USD_SUFFIXES,
    check_suffix,
    check_usd_prim,
    importer_errors,
    open_usd_stage,
)
from .mesh_checks import check_added, check_tet_mesh

__all__ = ["SoftBlockCfg", "SoftMeshCfg"]


@configclass
class SoftBlockCfg(SoftMaterialCfg):
    """A box-shaped soft body: a grid of ``cells`` hexahedral cells split into Neo-Hookean tetrahedra.

    ``init_state.pos`` is the block's lowest corner (its first particle), as in Newton's ``add_soft_grid``.
    """

    axis_aligned: ClassVar[bool] = True

    _ranges: ClassVar[dict[str, str]] = {
        "cells": ">= 1",
        "cell_size": "> 0",
        "velocity": "any",
        "bend_stiffness": ">= 0",
        "bend_damping": ">= 0",
    }

    prim_path: str = f"{ENV_REGEX_NS}/SoftBlock"
    """Label path of the block."""
    cells: tuple[int, int, int] = (2, 2, 2)
    """Grid cells along x, y, z; the block has ``(nx + 1) * (ny + 1) * (nz + 1)`` particles [count]."""
    cell_size: tuple[float, float, float] = (0.05, 0.05, 0.05)
    """Edge lengths of one grid cell along x, y, z [m]."""
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Initial velocity of every particle [m/s]."""
    bend_stiffness: float = 0.0
    """Bending stiffness of the surface mesh's edges (Newton's ``edge_ke``) [N*m]."""
    bend_damping: float = 0.0
    """Bending damping of the surface mesh's edges (Newton's ``edge_kd``) [N*m*s]."""

    def particle_count(self) -> int:
        nx, ny, nz = self.cells
        return (nx + 1) * (ny + 1) * (nz + 1)

    def add_to(self, builder: Any, label: str) -> None:
        builder.add_soft_grid(
            **{**grid_args(self.init_state.pos, self.cells, self.cell_size), "vel": wp.vec3(*self.velocity)},
            **self.soft_material_args(),
            edge_ke=self.bend_stiffness,
            edge_kd=self.bend_damping,
            label=label,
        )


@configclass
class SoftMeshCfg(MeshFileCfg, SoftMaterialCfg):
    """A soft body from a tetrahedral-mesh file (Newton's ``add_soft_mesh``): every vertex a particle, every
    tetrahedron a Neo-Hookean element.

    Files (:attr:`asset_path`): ``.npz`` (written by ``newton.TetMesh.save``; numpy only), a USD stage with a
    ``TetMesh`` prim (:attr:`mesh_prim`), or ``.vtk`` / ``.msh`` / ``.vtu`` (needs the optional ``meshio``).
    ``init_state.pos`` / ``rot`` place the file's frame (its vertices scaled by :attr:`scale` first).
    """

    file_kind: ClassVar[str] = "tetrahedral-mesh file"

    prim_path: str = f"{ENV_REGEX_NS}/SoftBody"
    """Label path of the soft body."""

    def _checked_mesh(self) -> tuple[Any, int]:
        """The file's ``newton.TetMesh`` (checked) and how many of its tetrahedra are not degenerate; read once per
        content of the file (the cache key changes when the file is written)."""

        def read(path: str, where: str) -> tuple[Any, int]:
            mesh = _read_tet_mesh(path, self.mesh_prim, where)
            with importer_errors(f"{where}.asset_path", path, "tetrahedral mesh"):
                vertices, indices = np.asarray(mesh.vertices), np.asarray(mesh.tet_indices)
            _, kept = check_tet_mesh(vertices, indices, self.scale, f"{where}.asset_path", path)
            return mesh, kept

        return self._read_once(_TET_MESHES, "tetrahedral-mesh file", read)

    def tet_mesh(self) -> Any:
        """The file's ``newton.TetMesh``, checked (read once per content of the file)."""
        return self._checked_mesh()[0]

    def particle_count(self) -> int:
        return int(self.tet_mesh().vertex_count)

    def add_to(self, builder: Any, label: str) -> None:
        mesh, kept = self._checked_mesh()
        first_particle, first_tet = builder.particle_count, builder.tet_count
        builder.add_soft_mesh(
            pos=wp.vec3(*self.init_state.pos),
            rot=wp.quat(*self.init_state.rot),
            scale=self.scale,
            vel=wp.vec3(0.0),
            mesh=mesh,
            **self.soft_material_args(),
            label=label,
        )
        added = builder.tet_count - first_tet
        where = f"{self._where()}.asset_path"
        check_added(builder, first_particle, added, kept, "tetrahedra", where, os.fspath(self.asset_path))


TET_MESH_SUFFIXES = (".npz", ".vtk", ".vtu", ".msh", *USD_SUFFIXES)
"""Extensions :class:`SoftMeshCfg` reads."""


def _read_tet_mesh(path: str, mesh_prim: str | None, where: str) -> Any:
    """The ``newton.TetMesh`` of a file (``.npz``, ``.vtk`` / ``.vtu`` / ``.msh`` or a USD stage's ``TetMesh`` prim
    *mesh_prim*); errors name *where* and the file."""
    import newton

    suffix = check_suffix(path, f"{where}.asset_path", "tetrahedral mesh", TET_MESH_SUFFIXES)
    if suffix in USD_SUFFIXES:
        stage = open_usd_stage(path, f"{where}.asset_path")
        if mesh_prim is None:
            raise ValueError(f"{where}.mesh_prim is None: name the TetMesh prim of the USD stage {path!r}")
        prim = check_usd_prim(stage, mesh_prim, f"{where}.mesh_prim", path)
        with importer_errors(f"{where}.mesh_prim", path, "USD TetMesh prim"):
            return newton.TetMesh.create_from_usd(prim)
    if mesh_prim is not None:
        raise ValueError(f"{where}.mesh_prim={mesh_prim!r} is given, but {path!r} is not a USD stage; set it to None")
    with importer_errors(f"{where}.asset_path", path, "tetrahedral mesh"):
        return newton.TetMesh.create_from_file(path)


_TET_MESHES: dict[tuple, tuple[Any, int]] = {}
"""Tet meshes read by :class:`SoftMeshCfg`, by (content key of the file, prim, scale), with their count of
non-degenerate tetrahedra (:func:`~isaaclab_contrib.scenes.file_checks.file_key`)."""
