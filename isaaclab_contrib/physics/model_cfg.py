"""Global Newton model parameters applied after builder finalization."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from isaaclab_contrib.utils.configclass import configclass

if TYPE_CHECKING:
    import newton

__all__ = ["NewtonModelCfg"]

_SCALAR_FIELDS = (
    "soft_contact_ke",
    "soft_contact_kd",
    "soft_contact_kf",
    "soft_contact_mu",
    "soft_contact_restitution",
    "particle_ke",
    "particle_kd",
    "particle_kf",
    "particle_mu",
    "particle_cohesion",
    "particle_adhesion",
    "particle_max_velocity",
)


@configclass
class NewtonModelCfg:
    """Model-wide parameters written onto the finalized ``newton.Model``.

    Every field defaults to ``None``, which keeps the value the builder produced.
    """

    gravity: tuple[float, float, float] | None = None
    """Gravity vector applied to every world [m/s^2]."""
    soft_contact_ke: float | None = None
    """Particle-shape contact normal stiffness [N/m]."""
    soft_contact_kd: float | None = None
    """Particle-shape contact damping [N*s/m]."""
    soft_contact_kf: float | None = None
    """Particle-shape contact friction stiffness [N/m]."""
    soft_contact_mu: float | None = None
    """Particle-shape friction coefficient [dimensionless]."""
    soft_contact_restitution: float | None = None
    """Particle-shape restitution [dimensionless]."""
    particle_ke: float | None = None
    """Particle-particle contact stiffness [N/m]."""
    particle_kd: float | None = None
    """Particle-particle contact damping [N*s/m]."""
    particle_kf: float | None = None
    """Particle-particle friction stiffness [N/m]."""
    particle_mu: float | None = None
    """Particle-particle friction coefficient [dimensionless]."""
    particle_cohesion: float | None = None
    """Particle-particle cohesion distance [m]."""
    particle_adhesion: float | None = None
    """Particle-shape adhesion coefficient [dimensionless]."""
    particle_max_velocity: float | None = None
    """Particle speed clamp [m/s]."""

    def validate(self) -> None:
        """Check value types and ranges; raise ``TypeError`` / ``ValueError`` naming the field."""
        for name in _SCALAR_FIELDS:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"NewtonModelCfg.{name} must be a number or None, got {type(value).__name__}")
            if value < 0.0:
                raise ValueError(f"NewtonModelCfg.{name} must be >= 0, got {value}")
        if self.gravity is not None:
            if len(tuple(self.gravity)) != 3:
                raise ValueError(f"NewtonModelCfg.gravity must have three components [m/s^2], got {self.gravity!r}")

    def apply(self, model: newton.Model) -> None:
        """Write the set parameters onto *model*."""
        self.validate()
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None or f.name == "gravity":
                continue
            setattr(model, f.name, float(value))
        if self.gravity is not None:
            model.set_gravity(tuple(float(g) for g in self.gravity))
