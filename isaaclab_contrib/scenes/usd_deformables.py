"""USD-authored deformables as an asset: the cloth and volume deformables of a stage, owned by prim-path regex.

Newton 1.8 imports deformables authored in the USD physics schemas (``PhysicsSurfaceDeformableSimAPI`` meshes
as cloth, ``PhysicsVolumeDeformableSimAPI`` tet meshes as soft bodies, with their bound deformable materials:
density, thickness, stiffness) through ``ModelBuilder.add_usd(..., return_deformable_results=True)``, which
maps every imported prim path to its particle, triangle and tetrahedron ranges. :class:`UsdDeformablesCfg`
imports the deformables below :attr:`UsdDeformablesCfg.root_path` (one copy per env for a per-env asset) and
gives each prim's particles to the coupler entry the first matching regex of
:attr:`UsdDeformablesCfg.entries` names (else to :attr:`~AssetBaseCfg.entry`), so entries own deformables by
prim path just as they own bodies by label.

A robot in the same stage is a separate asset (:class:`~isaaclab_contrib.scenes.ArticulationCfg` with
``spawn=UsdFileCfg(asset_path=..., root_path="/World/Robot")``).

:meth:`UsdDeformablesCfg.write_usd` writes the simulated shapes back: one ``UsdGeom.Mesh`` (cloth, with the
authored triangles) or ``UsdGeom.TetMesh``-shaped ``Mesh`` of the surface (soft body) per imported prim and
env, with time-sampled ``points`` in the world frame.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from isaaclab_contrib.utils.configclass import configclass
from isaaclab_contrib.utils.labels import check_regex, label_matches

from .asset_base import ENV_REGEX_NS, AssetBaseCfg
from .file_checks import check_file, check_usd_prim, file_key, importer_errors, open_usd_stage

__all__ = ["UsdDeformable", "UsdDeformablesCfg"]


@dataclass(frozen=True)
class UsdDeformable:
    """One deformable prim of a stage as imported: its kind, its particle range within the asset
    (``start``, ``stop``), its triangles (``tris``, particle indices within the asset; cloth surface or
    soft-body boundary) and its tetrahedra (``tets``; soft bodies)."""

    path: str
    kind: str
    start: int
    stop: int
    tris: np.ndarray
    tets: np.ndarray


@configclass
class UsdDeformablesCfg(AssetBaseCfg):
    """The USD-authored cloth and volume deformables below :attr:`root_path` of the stage :attr:`asset_path`.

    ``init_state.pos`` / ``rot`` place the stage's frame in the env.
    """

    _ranges: ClassVar[dict[str, str]] = {"particle_radius": "> 0"}

    prim_path: str = f"{ENV_REGEX_NS}/Deformables"
    """Label path of the asset (its particles carry no labels; the written-back prims go below it)."""
    asset_path: str = ""
    """The USD stage."""
    root_path: str = "/"
    """Prim path below which deformables are imported (rigid bodies below it are refused: import them with an
    articulation asset)."""
    entries: dict[str, str] = {}
    """Coupler entry owning each deformable, by prim-path regex (full match against the stage's prim path); the
    first match wins; a prim no regex matches belongs to :attr:`~AssetBaseCfg.entry`."""
    particle_radius: float | None = None
    """Contact radius given to every imported particle [m]; ``None``: what the import derives from the stage
    (a cloth's particles get half its authored thickness, usually far too small for contacts with robots)."""

    # ------------------------------------------------------------------ the import
    def _where(self) -> str:
        return f"{type(self).__name__}({self.prim_path!r})"

    def _stage_path(self) -> str:
        """The checked stage file (it exists and is a readable, non-empty file)."""
        return check_file(self.asset_path, f"{self._where()}.asset_path", "USD stage")

    def _import(self, builder: Any, path: str) -> dict[str, Any]:
        xform = None
        if tuple(self.init_state.pos) != (0.0, 0.0, 0.0) or tuple(self.init_state.rot) != (0.0, 0.0, 0.0, 1.0):
            import warp as wp

            xform = wp.transform(wp.vec3(*self.init_state.pos), wp.quat(*self.init_state.rot))
        bodies = builder.body_count
        with importer_errors(f"{self._where()}.asset_path", path, "USD stage"):
            result = builder.add_usd(path, xform=xform, root_path=self.root_path, return_deformable_results=True)
        if builder.body_count != bodies:
            raise ValueError(
                f"{self._where()}.root_path: the stage {path!r} has rigid bodies below {self.root_path!r}; set "
                "root_path to the deformables (import the robot with an ArticulationCfg)"
            )
        return result

    def _imported(self) -> tuple[list[UsdDeformable], int]:
        """The deformables of the stage and its particle count, from a dry import (once per content of the file:
        the cache key changes when the stage file is written; layers it references are not watched)."""
        path = self._stage_path()
        key = (file_key(path), self.root_path)
        if key not in _IMPORTS:
            import newton

            stage = open_usd_stage(path, f"{self._where()}.asset_path")
            check_usd_prim(stage, self.root_path, f"{self._where()}.root_path", path)
            builder = newton.ModelBuilder()
            result = self._import(builder, path)
            tris = np.asarray(builder.tri_indices, dtype=np.int64).reshape(-1, 3)
            tets = np.asarray(builder.tet_indices, dtype=np.int64).reshape(-1, 4)
            found = []
            for kind, table in (("cloth", result["path_cloth_map"]), ("volume", result["path_soft_map"])):
                for prim, ranges in table.items():
                    start, stop = ranges["particle"]
                    inside = np.all((tris >= start) & (tris < stop), axis=1)
                    tet_rows = tets[np.all((tets >= start) & (tets < stop), axis=1)] if tets.size else tets
                    found.append(UsdDeformable(prim, kind, int(start), int(stop), tris[inside], tet_rows))
            found.sort(key=lambda d: d.start)
            if not found:
                raise ValueError(
                    f"{self._where()}.root_path={self.root_path!r}: the stage {path!r} has no cloth or volume "
                    "deformable below it (PhysicsSurfaceDeformableSimAPI / PhysicsVolumeDeformableSimAPI prims)"
                )
            massless = np.nonzero(~(np.asarray(builder.particle_mass, dtype=np.float64) > 0.0))[0]
            if massless.size:
                raise ValueError(
                    f"{self._where()}.asset_path: the deformables of {path!r} import {massless.size} massless "
                    f"particles (particles {massless[:5].tolist()}): degenerate or inverted elements were dropped, "
                    "or a material has no density; fix the stage"
                )
            _IMPORTS[key] = (found, builder.particle_count)
        return _IMPORTS[key]

    def deformables(self) -> list[UsdDeformable]:
        """The imported deformables, in particle order (the stage is read once per content of the file)."""
        return self._imported()[0]

    def particle_count(self) -> int:
        return self._imported()[1]

    def owner(self, path: str) -> str | None:
        """Entry owning the deformable prim *path*."""
        for expr, entry in self.entries.items():
            if label_matches(expr, path):
                return entry
        return self.entry

    def entry_names(self) -> set[str]:
        return {o for o in (self.owner(d.path) for d in self.deformables()) if o is not None}

    def entry_particle_indices(self, entry: str) -> list[int]:
        return [i for d in self.deformables() if self.owner(d.path) == entry for i in range(d.start, d.stop)]

    def add_to(self, builder: Any, label: str) -> None:
        first = builder.particle_count
        self._imported()  # checks the stage and what it holds
        self._import(builder, self._stage_path())
        if self.particle_radius is not None:
            for i in range(first, builder.particle_count):
                builder.particle_radius[i] = float(self.particle_radius)

    # ------------------------------------------------------------------ write-back
    def usd_prim_path(self, deformable: UsdDeformable, env: int) -> str:
        """Where :meth:`write_usd` writes *deformable* of env *env* (``/World/envs/env_0/Deformables/World/Cloth/sim``)."""
        return f"{self.label_in_env(env)}{deformable.path}"

    def write_usd(self, stage: Any, particle_q: np.ndarray, first_particle: list[int], time_code: float) -> None:
        """Write every imported deformable of every env into *stage* as a ``UsdGeom.Mesh`` (its triangles;
        defined on the first call) with ``points`` at *time_code* [m, world frame].

        Args:
            stage: The output stage.
            particle_q: All particle positions of the model ``(particle_count, 3)``.
            first_particle: Global id of the asset's first particle in each env.
            time_code: Time code of the sample.
        """
        from pxr import Gf, Usd, UsdGeom, Vt

        particle_q, first_particle = self._check_write_args(particle_q, first_particle, time_code)
        for env, first in enumerate(first_particle):
            for d in self.deformables():
                path = self.usd_prim_path(d, env)
                prim = stage.GetPrimAtPath(path)
                if not prim or not prim.IsA(UsdGeom.Mesh):
                    mesh = UsdGeom.Mesh.Define(stage, path)
                    faces = d.tris - d.start if d.kind == "cloth" else _boundary(d.tets) - d.start
                    mesh.CreateFaceVertexCountsAttr(Vt.IntArray([3] * len(faces)))
                    mesh.CreateFaceVertexIndicesAttr(Vt.IntArray([int(i) for i in faces.reshape(-1)]))
                    mesh.CreateDoubleSidedAttr(True)
                    prim = mesh.GetPrim()
                    prim.CreateAttribute("isaaclab:source_prim", _string_type()).Set(d.path)
                points = particle_q[first + d.start : first + d.stop]
                values = Vt.Vec3fArray([Gf.Vec3f(*(float(c) for c in p)) for p in points])
                UsdGeom.Mesh(prim).GetPointsAttr().Set(values, Usd.TimeCode(time_code))

    def _check_write_args(self, particle_q: Any, first_particle: Any, time_code: Any) -> tuple[np.ndarray, list[int]]:
        """*particle_q* as a ``(n, 3)`` array holding every env's particles of the asset, *first_particle* as a
        list of ints (one per env copy), *time_code* finite; refused with a named ``TypeError`` / ``ValueError``
        before anything is written."""
        where = f"{self._where()}.write_usd"
        try:
            q = np.asarray(particle_q.numpy() if hasattr(particle_q, "numpy") else particle_q, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise TypeError(
                f"{where}: particle_q must be an array of particle positions [m], got {particle_q!r}"
            ) from err
        if q.ndim != 2 or q.shape[1] != 3:
            raise ValueError(f"{where}: particle_q must have shape (particle_count, 3), got {q.shape}")
        if isinstance(first_particle, (str, bytes)) or not hasattr(first_particle, "__len__"):
            raise TypeError(
                f"{where}: first_particle must be a list of particle ids (one per env), got {first_particle!r}"
            )
        firsts = list(first_particle)
        copies = "one or more" if self.is_per_env() else "exactly one"
        if not firsts or (not self.is_per_env() and len(firsts) != 1):
            raise ValueError(f"{where}: first_particle must hold {copies} particle id(s), got {firsts!r}")
        count = self.particle_count()
        for env, first in enumerate(firsts):
            if isinstance(first, bool) or not isinstance(first, (int, np.integer)):
                raise TypeError(f"{where}: first_particle[{env}] must be an integer particle id, got {first!r}")
            if first < 0 or first + count > len(q):
                raise ValueError(
                    f"{where}: first_particle[{env}]={int(first)} + the asset's {count} particles does not fit "
                    f"particle_q of {len(q)} rows (it must hold every particle of the model)"
                )
        if (
            isinstance(time_code, bool)
            or not isinstance(time_code, (int, float, np.number))
            or not np.isfinite(time_code)
        ):
            raise ValueError(f"{where}: time_code must be a finite number, got {time_code!r}")
        return q, [int(f) for f in firsts]

    def validate(self, where: str | None = None) -> None:
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.asset_path, (str, os.PathLike)) or not os.fspath(self.asset_path):
            raise ValueError(f"{label}.asset_path must name a USD stage, got {self.asset_path!r}")
        if not isinstance(self.root_path, str) or not self.root_path.startswith("/"):
            raise ValueError(f"{label}.root_path must be an absolute prim path, got {self.root_path!r}")
        if not isinstance(self.entries, dict):
            raise TypeError(f"{label}.entries must be a dict of prim-path regex -> entry name")
        for expr, entry in self.entries.items():
            check_regex(expr, f"{label}.entries key")
            if not isinstance(entry, str) or not entry:
                raise ValueError(f"{label}.entries[{expr!r}] must be an entry name, got {entry!r}")


def _boundary(tets: np.ndarray) -> np.ndarray:
    """Boundary triangles of a tet mesh (faces used by one tetrahedron)."""
    faces = np.concatenate([tets[:, [0, 2, 1]], tets[:, [0, 1, 3]], tets[:, [0, 3, 2]], tets[:, [1, 2, 3]]])
    keys = np.sort(faces, axis=1)
    _, index, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    return faces[index[counts == 1]]


def _string_type() -> Any:
    from pxr import Sdf

    return Sdf.ValueTypeNames.String


_IMPORTS: dict[tuple, tuple[list[UsdDeformable], int]] = {}
"""Deformables of each (content key of the stage file, root path) as read by a dry import
(:func:`~isaaclab_contrib.scenes.file_checks.file_key`)."""
