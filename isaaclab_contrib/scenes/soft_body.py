"""Soft-body assets: a block of Neo-Hookean tetrahedra on a regular grid (:class:`SoftBlockCfg`) and a soft body
from a tetrahedral-mesh file (:class:`SoftMeshCfg`). Either is owned by a VBD entry."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import warp as wp

from isaaclab_contrib.utils.configclass import configclass

from .asset_base import ENV_REGEX_NS, AssetBaseCfg, grid_args

__all__ = ["SoftBlockCfg", "SoftMeshCfg"]


@configclass
class SoftBlockCfg(AssetBaseCfg):
    """A box-shaped soft body: a grid of ``cells`` hexahedral cells split into Neo-Hookean tetrahedra.

    ``init_state.pos`` is the block's lowest corner (its first particle), as in Newton's ``add_soft_grid``.
    """

    axis_aligned: ClassVar[bool] = True

    _ranges: ClassVar[dict[str, str]] = {
        "cells": ">= 1",
        "cell_size": "> 0",
        "density": "> 0",
        "k_mu": ">= 0",
        "k_lambda": ">= 0",
        "k_damp": ">= 0",
        "particle_radius": "> 0",
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
    density: float = 1.0e3
    """Density of the material [kg/m^3]."""
    k_mu: float = 1.0e4
    """First Lame parameter (shear modulus) of the Neo-Hookean material [Pa]."""
    k_lambda: float = 1.0e4
    """Second Lame parameter of the material [Pa]."""
    k_damp: float = 0.0
    """Elastic damping [dimensionless]."""
    particle_radius: float = 0.01
    """Contact radius of the particles [m]."""
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
            density=self.density,
            k_mu=self.k_mu,
            k_lambda=self.k_lambda,
            k_damp=self.k_damp,
            particle_radius=self.particle_radius,
            edge_ke=self.bend_stiffness,
            edge_kd=self.bend_damping,
            label=label,
        )


@configclass
class SoftMeshCfg(AssetBaseCfg):
    """A soft body from a tetrahedral-mesh file (Newton's ``add_soft_mesh``): every vertex a particle, every
    tetrahedron a Neo-Hookean element.

    Files: ``.npz`` (written by ``newton.TetMesh.save``; numpy only), a USD stage with a ``TetMesh`` prim
    (:attr:`mesh_prim`), or ``.vtk`` / ``.msh`` / ``.vtu`` (needs the optional ``meshio``).
    ``init_state.pos`` / ``rot`` place the file's frame (its vertices scaled by :attr:`scale` first).
    """

    _ranges: ClassVar[dict[str, str]] = {
        "scale": "> 0",
        "density": "> 0",
        "k_mu": ">= 0",
        "k_lambda": ">= 0",
        "k_damp": ">= 0",
        "particle_radius": "> 0",
    }

    prim_path: str = f"{ENV_REGEX_NS}/SoftBody"
    """Label path of the soft body."""
    asset_path: str = ""
    """The tetrahedral-mesh file."""
    mesh_prim: str | None = None
    """Prim path of the ``TetMesh`` in a USD :attr:`asset_path`."""
    scale: float = 1.0
    """Uniform scale of the file's vertices [dimensionless]."""
    density: float = 1.0e3
    """Density of the material [kg/m^3]."""
    k_mu: float = 1.0e4
    """First Lame parameter (shear modulus) [Pa]."""
    k_lambda: float = 1.0e4
    """Second Lame parameter [Pa]."""
    k_damp: float = 0.0
    """Elastic damping [dimensionless]."""
    particle_radius: float = 0.01
    """Contact radius of the particles [m]."""

    def tet_mesh(self) -> Any:
        """The file's ``newton.TetMesh`` (read once per process)."""
        key = (os.fspath(self.asset_path), self.mesh_prim)
        if key not in _TET_MESHES:
            import newton

            path, prim_path = key
            if path.lower().endswith((".usd", ".usda", ".usdc", ".usdz")):
                from pxr import Usd

                prim = Usd.Stage.Open(path).GetPrimAtPath(prim_path) if prim_path else None
                if prim is None or not prim.IsValid():
                    raise ValueError(f"{path}: no TetMesh prim at {prim_path!r} (set mesh_prim)")
                _TET_MESHES[key] = newton.TetMesh.create_from_usd(prim)
            else:
                _TET_MESHES[key] = newton.TetMesh.create_from_file(path)
        return _TET_MESHES[key]

    def particle_count(self) -> int:
        return int(self.tet_mesh().vertex_count)

    def add_to(self, builder: Any, label: str) -> None:
        builder.add_soft_mesh(
            pos=wp.vec3(*self.init_state.pos),
            rot=wp.quat(*self.init_state.rot),
            scale=self.scale,
            vel=wp.vec3(0.0),
            mesh=self.tet_mesh(),
            density=self.density,
            k_mu=self.k_mu,
            k_lambda=self.k_lambda,
            k_damp=self.k_damp,
            particle_radius=self.particle_radius,
            label=label,
        )

    def validate(self, where: str | None = None) -> None:
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.asset_path, (str, os.PathLike)) or not os.fspath(self.asset_path):
            raise ValueError(f"{label}.asset_path must name a tetrahedral-mesh file, got {self.asset_path!r}")


_TET_MESHES: dict[tuple[str, str | None], Any] = {}
"""Tet meshes read by :class:`SoftMeshCfg`, by (path, prim)."""
