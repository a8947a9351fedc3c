"""Rigid-object asset: one free body with one collision shape (Isaac Lab's ``RigidObjectCfg``).

The shape comes from the spawn config, as in Isaac Lab: :class:`CuboidCfg` (a box) or :class:`SphereCfg`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import numpy as np
import warp as wp

from isaaclab_contrib.utils.configclass import check_missing, configclass
from isaaclab_contrib.utils.validation import check_fields

from .asset_base import AssetBaseCfg

__all__ = ["CuboidCfg", "RigidObjectCfg", "ShapeSpawnCfg", "SphereCfg"]


@configclass
class ShapeSpawnCfg:
    """Base of the collision-shape spawn configs of :class:`RigidObjectCfg`."""

    def add_shape(self, builder: Any, body: int, **kwargs: Any) -> int:
        """Add the shape to *body* of *builder*; *kwargs* (``cfg``, ``label``) go to Newton's ``add_shape_*``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement add_shape()")

    def validate(self, where: str | None = None) -> None:
        """Check unset fields and every field's type and range."""
        check_missing(self)
        check_fields(self, where or type(self).__name__)


@configclass
class CuboidCfg(ShapeSpawnCfg):
    """A box shape (Isaac Lab's ``sim_utils.CuboidCfg``)."""

    _ranges: ClassVar[dict[str, str]] = {"size": "> 0"}

    size: tuple[float, float, float] = (0.1, 0.1, 0.1)
    """Edge lengths along the body's x, y, z [m]."""

    def add_shape(self, builder: Any, body: int, **kwargs: Any) -> int:
        sx, sy, sz = self.size
        return builder.add_shape_box(body, hx=0.5 * sx, hy=0.5 * sy, hz=0.5 * sz, **kwargs)


@configclass
class SphereCfg(ShapeSpawnCfg):
    """A sphere shape (Isaac Lab's ``sim_utils.SphereCfg``)."""

    _ranges: ClassVar[dict[str, str]] = {"radius": "> 0"}

    radius: float = 0.05
    """Sphere radius [m]."""

    def add_shape(self, builder: Any, body: int, **kwargs: Any) -> int:
        return builder.add_shape_sphere(body, radius=self.radius, **kwargs)


@configclass
class RigidObjectCfg(AssetBaseCfg):
    """One free rigid body with one collision shape.

    ``init_state.pos`` / ``rot`` are the body's origin (the shape's center) and orientation. Labels: the body
    is ``{prim_path}/{body_name}`` and its shape ``{prim_path}/{body_name}/{shape_name}``
    (``/World/envs/env_3/Box/body/collision`` by default).
    """

    _ranges: ClassVar[dict[str, str]] = {"density": "> 0", "mass": "> 0", "inertia": "> 0"}

    spawn: ShapeSpawnCfg = CuboidCfg()
    """Collision shape of the body: :class:`CuboidCfg` or :class:`SphereCfg`."""
    density: float | None = None
    """Density of the shape, which gives the body its mass and inertia [kg/m^3]; ``None``: the builder's
    default shape density."""
    mass: float | None = None
    """Mass given to the body itself, on top of what the shape adds [kg]; ``None``: none."""
    inertia: tuple[float, float, float] | None = None
    """Diagonal rotational inertia given to the body itself [kg*m^2]; ``None``: none."""
    body_name: str = "body"
    """Label of the body below :attr:`prim_path`; ``""``: the body is labelled :attr:`prim_path` itself."""
    shape_name: str = "collision"
    """Label of the shape below the body."""

    def body_label(self, label: str) -> str:
        """Label of the body of an asset labelled *label* (``label/body_name``)."""
        return f"{label}/{self.body_name}" if self.body_name else label

    def body_label_in_env(self, env: int) -> str:
        """Full label of the body in env *env* (``/World/envs/env_3/Box/body``)."""
        return self.body_label(self.label_in_env(env))

    def owns_bodies(self) -> bool:
        return True

    def add_to(self, builder: Any, label: str) -> None:
        body_kwargs: dict[str, Any] = {}
        if self.mass is not None:
            body_kwargs["mass"] = self.mass
        if self.inertia is not None:
            body_kwargs["inertia"] = wp.mat33(np.diag(np.asarray(self.inertia, dtype=np.float64)))
        body_label = self.body_label(label)
        xform = wp.transform(p=wp.vec3(*self.init_state.pos), q=wp.quat(*self.init_state.rot))
        body = builder.add_body(xform=xform, label=body_label, **body_kwargs)
        shape_kwargs: dict[str, Any] = {"label": f"{body_label}/{self.shape_name}"}
        if self.density is not None:
            shape_kwargs["cfg"] = newton.ModelBuilder.ShapeConfig(density=self.density)
        self.spawn.add_shape(builder, body, **shape_kwargs)

    def validate(self, where: str | None = None) -> None:
        """Check the fields, the shape config and the labels."""
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.spawn, ShapeSpawnCfg):
            raise TypeError(f"{label}.spawn must be a CuboidCfg or a SphereCfg, got {type(self.spawn).__name__}")
        self.spawn.validate(f"{label}.spawn")
        for name in ("body_name", "shape_name"):
            value = getattr(self, name)
            if "/" in value or (name == "shape_name" and not value):
                raise ValueError(f"{label}.{name} must be a single label segment, got {value!r}")
