"""What the deformable asset configs share, declared once: the cloth and soft materials, and a mesh file.

- :class:`ClothMaterialCfg`: membrane and bending stiffness and damping and the particles' contact radius of a
  cloth (:class:`~isaaclab_contrib.scenes.PinnedClothCfg`, :class:`~isaaclab_contrib.scenes.ClothMeshCfg`);
- :class:`SoftMaterialCfg`: the density and Neo-Hookean parameters of a soft body
  (:class:`~isaaclab_contrib.scenes.SoftBlockCfg`, :class:`~isaaclab_contrib.scenes.SoftMeshCfg`);
- :class:`MeshFileCfg`: an asset read from a mesh file (the file, the prim of a USD stage, the scale), read once
  per content of the file (:class:`~isaaclab_contrib.scenes.ClothMeshCfg`,
  :class:`~isaaclab_contrib.scenes.SoftMeshCfg`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from isaaclab_contrib.utils.configclass import configclass

from .asset_base import AssetBaseCfg
from .file_checks import check_file, file_key

__all__ = ["ClothMaterialCfg", "MeshFileCfg", "SoftMaterialCfg"]

_Read = TypeVar("_Read")


@configclass
class ClothMaterialCfg(AssetBaseCfg):
    """The material of a cloth: its triangles (membrane), its interior edges (bending), its particles' radius."""

    _ranges: ClassVar[dict[str, str]] = {
        "particle_radius": "> 0",
        "stiffness": ">= 0",
        "damping": ">= 0",
        "bend_stiffness": ">= 0",
        "bend_damping": ">= 0",
    }

    MATERIAL_COLUMNS: ClassVar[dict[str, tuple[str, tuple[int, ...]]]] = {
        "stiffness": ("tri_materials", (0, 1)),
        "damping": ("tri_materials", (2,)),
        "bend_stiffness": ("edge_bending_properties", (0,)),
        "bend_damping": ("edge_bending_properties", (1,)),
    }
    """Where each material field lives in Newton's model, per element: ``(model array, columns)`` (the writes of
    :meth:`~isaaclab_contrib.assets.DeformableObject.write_material_to_sim` after the start)."""

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

    def cloth_material_args(self) -> dict[str, Any]:
        """The material as Newton's ``add_cloth_grid`` / ``add_cloth_mesh`` arguments."""
        return {
            "tri_ke": self.stiffness,
            "tri_ka": self.stiffness,
            "tri_kd": self.damping,
            "edge_ke": self.bend_stiffness,
            "edge_kd": self.bend_damping,
            "particle_radius": self.particle_radius,
        }


@configclass
class SoftMaterialCfg(AssetBaseCfg):
    """The Neo-Hookean material of a soft body and its particles' contact radius."""

    _ranges: ClassVar[dict[str, str]] = {
        "density": "> 0",
        "k_mu": ">= 0",
        "k_lambda": ">= 0",
        "k_damp": ">= 0",
        "particle_radius": "> 0",
    }

    MATERIAL_COLUMNS: ClassVar[dict[str, tuple[str, tuple[int, ...]]]] = {
        "k_mu": ("tet_materials", (0,)),
        "k_lambda": ("tet_materials", (1,)),
        "k_damp": ("tet_materials", (2,)),
    }
    """Where each material field lives in Newton's model, per tetrahedron: ``(model array, columns)`` (the writes of
    :meth:`~isaaclab_contrib.assets.DeformableObject.write_material_to_sim` after the start)."""

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

    def soft_material_args(self) -> dict[str, Any]:
        """The material as Newton's ``add_soft_grid`` / ``add_soft_mesh`` arguments."""
        return {
            "density": self.density,
            "k_mu": self.k_mu,
            "k_lambda": self.k_lambda,
            "k_damp": self.k_damp,
            "particle_radius": self.particle_radius,
        }


@configclass
class MeshFileCfg(AssetBaseCfg):
    """An asset read from a mesh file. ``init_state.pos`` / ``rot`` place the file's frame (its vertices scaled by
    :attr:`scale` first)."""

    file_kind: ClassVar[str] = "mesh file"
    """What the file is, for messages (``"tetrahedral-mesh file"``)."""

    _ranges: ClassVar[dict[str, str]] = {"scale": "> 0"}

    asset_path: str = ""
    """The mesh file (the formats the asset reads; a USD stage with :attr:`mesh_prim`)."""
    mesh_prim: str | None = None
    """Prim path of the mesh in a USD :attr:`asset_path`."""
    scale: float = 1.0
    """Uniform scale of the file's vertices [dimensionless]."""

    def _where(self) -> str:
        return f"{type(self).__name__}({self.prim_path!r})"

    def _read_once(self, cache: dict[tuple, _Read], what: str, read: Callable[[str, str], _Read]) -> _Read:
        """``read(path, where)`` of the checked file (*what* it is, for messages), kept in *cache* by (content of
        the file, prim, scale): read again only once the file was written
        (:func:`~isaaclab_contrib.scenes.file_checks.file_key`)."""
        where = self._where()
        path = check_file(self.asset_path, f"{where}.asset_path", what)
        key = (file_key(path), self.mesh_prim, float(self.scale))
        if key not in cache:
            cache[key] = read(path, where)
        return cache[key]

    def validate(self, where: str | None = None) -> None:
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.asset_path, (str, os.PathLike)) or not os.fspath(self.asset_path):
            raise ValueError(f"{label}.asset_path must name a {self.file_kind}, got {self.asset_path!r}")
