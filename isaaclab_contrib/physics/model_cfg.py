"""Global Newton model parameters applied after builder finalization."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, ClassVar

from isaaclab_contrib.utils.configclass import configclass

if TYPE_CHECKING:
    import newton

__all__ = ["NewtonModelCfg"]


@configclass
class NewtonModelCfg:
    """Model-wide parameters written onto the finalized ``newton.Model``.

    Every field defaults to ``None``, which keeps the value the builder produced. ``validate()``
    checks every set field against its type and the range declared in :attr:`_ranges`.
    """

    _ranges: ClassVar[dict[str, str]] = {
        "gravity": "any",
        "soft_contact_ke": ">= 0",
        "soft_contact_kd": ">= 0",
        "soft_contact_kf": ">= 0",
        "soft_contact_mu": ">= 0",
        "soft_contact_restitution": "[0, 1]",
        "particle_ke": ">= 0",
        "particle_kd": ">= 0",
        "particle_kf": ">= 0",
        "particle_mu": ">= 0",
        "particle_cohesion": ">= 0",
        "particle_adhesion": ">= 0",
        "particle_max_velocity": "(0, inf]",
        "rigid_contact_max": ">= 0",
    }

    gravity: tuple[float, float, float] | None = None
    """Gravity vector applied to every world [m/s^2]: three finite components."""
    soft_contact_ke: float | None = None
    """Particle-shape contact normal stiffness [N/m]."""
    soft_contact_kd: float | None = None
    """Particle-shape contact damping [N*s/m]."""
    soft_contact_kf: float | None = None
    """Particle-shape contact friction stiffness [N/m]."""
    soft_contact_mu: float | None = None
    """Particle-shape friction coefficient [dimensionless]."""
    soft_contact_restitution: float | None = None
    """Particle-shape restitution [dimensionless], in [0, 1]."""
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
    """Particle speed clamp [m/s], > 0; ``float("inf")`` disables the clamp."""

    rigid_contact_max: int | None = None
    """Rigid contact buffer capacity of the collision pipelines built on the model (Newton's
    ``Model.rigid_contact_max``, which a ``CollisionPipeline`` takes as its default) [count]; ``None``: the
    capacity Newton estimates from the shapes."""

    def apply(self, model: newton.Model) -> None:
        """Write the set parameters onto *model*."""
        self.validate()
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None or f.name == "gravity":
                continue
            setattr(model, f.name, int(value) if f.name == "rigid_contact_max" else float(value))
        if self.gravity is not None:
            model.set_gravity(tuple(float(g) for g in self.gravity))
