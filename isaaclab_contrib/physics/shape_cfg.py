"""Per-shape defaults applied to every builder the manager creates (``ModelBuilder.default_shape_cfg``)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar

from isaaclab_contrib.utils.configclass import configclass
from isaaclab_contrib.utils.validation import check_fields

if TYPE_CHECKING:
    import newton

__all__ = ["NewtonShapeCfg"]


@configclass
class NewtonShapeCfg:
    """Defaults for the shapes added to builders from :meth:`NewtonManager.create_builder`.

    Every field left ``None`` keeps Newton's default. Shapes added with an explicit
    ``ShapeConfig`` are not affected.
    """

    _ranges: ClassVar[dict[str, str]] = {
        "margin": ">= 0",
        "gap": ">= 0",
        "mu": ">= 0",
        "restitution": "[0, 1]",
        "ke": ">= 0",
        "kd": ">= 0",
        "density": ">= 0",
    }

    margin: float | None = None
    """Collision margin added around the shape surface [m]."""
    gap: float | None = None
    """Contact detection gap: pairs closer than this produce contacts [m]."""
    mu: float | None = None
    """Coulomb friction coefficient [dimensionless]."""
    restitution: float | None = None
    """Coefficient of restitution [dimensionless]."""
    ke: float | None = None
    """Contact elastic stiffness [N/m]."""
    kd: float | None = None
    """Contact damping [N*s/m]."""
    density: float | None = None
    """Density used to compute the mass of new shapes [kg/m^3]."""

    def validate(self) -> None:
        """Check types and ranges; errors name the field."""
        check_fields(self)

    def values(self) -> dict[str, Any]:
        """The fields that are set (not ``None``)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) is not None}

    def apply(self, shape_cfg: newton.ModelBuilder.ShapeConfig) -> None:
        """Write the set fields into *shape_cfg* (a builder's ``default_shape_cfg``).

        Raises:
            AttributeError: The installed Newton's ``ShapeConfig`` lacks a field (the API changed).
        """
        for name, value in self.values().items():
            if not hasattr(shape_cfg, name):
                raise AttributeError(f"NewtonShapeCfg.{name}: newton.ModelBuilder.ShapeConfig has no field {name!r}")
            setattr(shape_cfg, name, value)
