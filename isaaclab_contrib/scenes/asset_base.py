"""Base of the asset configs: where an asset sits in the label tree, which coupler entry owns it, its start pose.

An asset config describes one thing a scene adds to the Newton builder: a cloth, a granular bed, a rigid
object, an articulation, a ground plane. Isaac Lab's conventions apply:

* :attr:`AssetBaseCfg.prim_path` names where the asset's labels go. ``"{ENV_REGEX_NS}/Robot"`` is a per-env
  asset: it is added once to the env prototype (labels ``Robot/...``) and replicated into every env
  (``/World/envs/env_{i}/Robot/...``). An absolute path such as ``"/World/ground"`` is one global asset.
* :attr:`AssetBaseCfg.entry` names the coupler entry (:class:`~isaaclab_contrib.coupling.CouplerEntryCfg`)
  that owns the asset, so a scene derives its entries' selectors from its assets.
* :attr:`AssetBaseCfg.init_state` holds the start pose (Isaac Lab's ``InitialStateCfg``).

``validate()`` checks every field against its type and the range declared in ``_ranges``; errors name the
config class (or the path it was reached by, e.g. ``BoxOnClothSceneCfg.cloth``) and the field.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, ClassVar

import warp as wp

from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.validation import check_fields, check_rotation

__all__ = [
    "ENV_PATH",
    "ENV_REGEX_NS",
    "AssetBaseCfg",
    "GroundPlaneCfg",
    "InitialStateCfg",
    "SpawnedAsset",
    "check_identity_rotation",
    "grid_args",
]

ENV_REGEX_NS = "{ENV_REGEX_NS}"
"""Placeholder of Isaac Lab's env namespace in a per-env :attr:`AssetBaseCfg.prim_path` (``"{ENV_REGEX_NS}/Robot"``)."""

ENV_PATH = "/World/envs/env_.*"
"""What :data:`ENV_REGEX_NS` stands for: the regex over the env prefixes ``/World/envs/env_{i}``."""

_IDENTITY = (0.0, 0.0, 0.0, 1.0)


@configclass
class InitialStateCfg:
    """Start pose of an asset (Isaac Lab's ``InitialStateCfg``), relative to its env origin."""

    _ranges: ClassVar[dict[str, str]] = {"pos": "any", "rot": "[-1, 1]"}

    pos: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Position [m]; each asset kind says which of its points it is (a body origin, a cloth center, ...)."""
    rot: tuple[float, float, float, float] = _IDENTITY
    """Orientation as a unit quaternion in Warp's order ``(x, y, z, w)`` [dimensionless]."""

    def validate(self, where: str | None = None) -> None:
        """Check the fields and that :attr:`rot` is a unit quaternion."""
        label = where or type(self).__name__
        check_missing(self)
        check_fields(self, label)
        check_rotation(self.rot, f"{label}.rot")


def check_identity_rotation(init_state: InitialStateCfg, where: str) -> None:
    """Raise ``ValueError`` unless ``init_state.rot`` is the identity (for assets laid out along the world axes)."""
    if tuple(float(c) for c in init_state.rot) != _IDENTITY:
        raise ValueError(
            f"{where}.init_state.rot must be the identity (0, 0, 0, 1): this asset is laid out along the world "
            f"axes, got {tuple(init_state.rot)!r}"
        )


def grid_args(pos: Any, dims: Any, cell: Any) -> dict[str, Any]:
    """Keyword arguments of Newton's grid builders (``add_particle_grid``, ``add_soft_grid``) for a grid along the
    world axes, at rest, with its first particle at *pos* [m], *dims* cells or particles along x, y, z [count] and
    *cell* spacing along x, y, z [m]."""
    return {
        "pos": wp.vec3(*pos),
        "rot": wp.quat_identity(),
        "vel": wp.vec3(0.0),
        "dim_x": int(dims[0]),
        "dim_y": int(dims[1]),
        "dim_z": int(dims[2]),
        "cell_x": cell[0],
        "cell_y": cell[1],
        "cell_z": cell[2],
    }


@dataclass(frozen=True)
class SpawnedAsset:
    """Index ranges of what one asset added to a builder (builder-local ids: of the env prototype for a
    per-env asset). Given to :meth:`~isaaclab_contrib.scenes.SceneBaseCfg.connect`."""

    bodies: range
    joints: range
    shapes: range
    particles: range


@configclass
class AssetBaseCfg:
    """Fields every asset config has: its label path, its owning coupler entry and its start pose.

    A subclass implements :meth:`add_to` (and :meth:`particle_count` when it adds particles).
    """

    axis_aligned: ClassVar[bool] = False
    """Whether the asset is laid out along the world axes: ``validate()`` then requires the identity
    ``init_state.rot``."""

    prim_path: str = MISSING
    """Label path of the asset: ``"{ENV_REGEX_NS}/Name"`` for a per-env asset (labelled
    ``/World/envs/env_{i}/Name/...``), or an absolute label such as ``"/World/ground"`` for one global asset."""
    entry: str | None = None
    """Name of the coupler entry that owns the asset (its bodies, joints, shapes and particles);
    ``None``: no entry owns it (a static ground is then seen by the entries that own no shapes)."""
    init_state: InitialStateCfg = InitialStateCfg()
    """Start pose of the asset, relative to its env origin."""

    # ------------------------------------------------------------------ labels
    def is_per_env(self) -> bool:
        """Whether the asset is added to every env (its :attr:`prim_path` starts with the env namespace)."""
        return self.prim_path.startswith((ENV_REGEX_NS + "/", ENV_PATH + "/"))

    def label(self) -> str:
        """Label the asset gets in the builder it is spawned into: relative (``"Cloth"``) for a per-env asset
        (the replication adds ``/World/envs/env_{i}/``), the absolute path for a global one."""
        for namespace in (ENV_REGEX_NS + "/", ENV_PATH + "/"):
            if self.prim_path.startswith(namespace):
                return self.prim_path[len(namespace) :]
        return self.prim_path

    def label_in_env(self, env: int) -> str:
        """Full label of the asset in env *env* (``/World/envs/env_3/Cloth``); a global asset's own label."""
        return f"/World/envs/env_{env}/{self.label()}" if self.is_per_env() else self.prim_path

    def selector(self) -> str:
        """Regex over full labels selecting the asset in every env (``/World/envs/env_.*/Cloth``)."""
        return f"{ENV_PATH}/{self.label()}" if self.is_per_env() else self.prim_path

    # ------------------------------------------------------------------ what it adds
    def prepare_builder(self, builder: Any) -> None:
        """Prepare a builder the asset will be added to (e.g. register solver custom attributes it sets).

        Called on the scene's builder and on the env prototype before any asset is added. Default: nothing.
        """

    def add_to(self, builder: Any, label: str) -> None:
        """Add the asset to *builder* (a ``newton.ModelBuilder``) with labels at or below *label*."""
        raise NotImplementedError(f"{type(self).__name__} does not implement add_to()")

    def particle_count(self) -> int:
        """Particles :meth:`add_to` adds [count]."""
        return 0

    def owns_bodies(self) -> bool:
        """Whether the asset adds bodies (its owning entry selects them with :meth:`selector`)."""
        return False

    def entry_names(self) -> set[str]:
        """Names of the coupler entries owning a part of the asset (default: :attr:`entry`, if set)."""
        return {self.entry} if self.entry is not None else set()

    def entry_particle_indices(self, entry: str) -> list[int]:
        """Indices (within the asset, ``0 .. particle_count() - 1``) of the particles the entry *entry* owns;
        default: all of them when *entry* is :attr:`entry`. An asset whose parts belong to different entries
        (USD deformables by prim path) overrides it."""
        return list(range(self.particle_count())) if entry == self.entry else []

    def is_static(self) -> bool:
        """Whether the asset is static geometry (a shape on no body, e.g. the ground): its owning entry
        gets ``include_static_shapes=True``."""
        return False

    # ------------------------------------------------------------------ validation
    def validate(self, where: str | None = None) -> None:
        """Check unset fields, every field's type and range, the label path and the start pose."""
        label = where or type(self).__name__
        check_missing(self)
        check_fields(self, label)
        path = self.prim_path
        if not path.startswith(("/", ENV_REGEX_NS)):
            raise ValueError(
                f"{label}.prim_path must be '{ENV_REGEX_NS}/Name' (one copy per env) or an absolute label such as "
                f"'/World/ground', got {path!r}"
            )
        if path.startswith(ENV_REGEX_NS) and not self.is_per_env():
            raise ValueError(f"{label}.prim_path must continue '{ENV_REGEX_NS}/' with a name, got {path!r}")
        if not self.is_per_env() and path.startswith("/World/envs/"):
            raise ValueError(
                f"{label}.prim_path={path!r} lies below /World/envs but not in the env namespace; write "
                f"'{ENV_REGEX_NS}/Name' for an asset in every env"
            )
        name = self.label()
        if not name or name.endswith("/") or "//" in name or any(c in name for c in "*?[](){}|\\+^$"):
            raise ValueError(
                f"{label}.prim_path={path!r}: the label below the env must be a plain path such as 'Robot'"
            )
        if self.entry is not None and (not isinstance(self.entry, str) or not self.entry.strip()):
            raise ValueError(f"{label}.entry must be a coupler entry name or None, got {self.entry!r}")
        if not isinstance(self.init_state, InitialStateCfg):
            raise TypeError(f"{label}.init_state must be an InitialStateCfg, got {type(self.init_state).__name__}")
        self.init_state.validate(f"{label}.init_state")
        if self.axis_aligned:
            check_identity_rotation(self.init_state, label)


@configclass
class GroundPlaneCfg(AssetBaseCfg):
    """An infinite static ground plane at height ``init_state.pos[2]`` (one global asset).

    The entry that owns it (if any) gets ``include_static_shapes=True``; with ``entry=None`` Newton shows it
    to every entry that owns no shapes.
    """

    axis_aligned: ClassVar[bool] = True

    _ranges: ClassVar[dict[str, str]] = {"friction": ">= 0"}

    prim_path: str = "/World/ground"
    """Label of the ground shape (global)."""
    friction: float | None = None
    """Friction coefficient of the ground shape (its ``mu``) [dimensionless]; ``None``: the builder's default
    shape friction (``builder.default_shape_cfg.mu``)."""

    def add_to(self, builder: Any, label: str) -> None:
        height = float(self.init_state.pos[2])
        kwargs: dict[str, Any] = {"label": label}
        if height != 0.0:
            kwargs["height"] = height
        if self.friction is not None:
            shape_cfg = copy.copy(builder.default_shape_cfg)
            shape_cfg.mu = float(self.friction)
            kwargs["cfg"] = shape_cfg
        builder.add_ground_plane(**kwargs)

    def is_static(self) -> bool:
        return True

    def validate(self, where: str | None = None) -> None:
        """Check the fields; the ground is one global asset with the identity orientation."""
        label = where or type(self).__name__
        super().validate(label)
        if self.is_per_env():
            raise ValueError(
                f"{label}.prim_path must be a global label such as '/World/ground', got {self.prim_path!r}"
            )
