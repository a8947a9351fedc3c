"""Cable asset: a straight elastic rod of capsule segments (Newton's VBD rod/cable, ``ModelBuilder.add_rod``).

A VBD cable is a chain of rigid capsule bodies joined by rod (cable) joints with stretch, shear, bend and
twist response; only :class:`~newton.solvers.SolverVBD` simulates those joints, so the entry owning a
:class:`CableCfg` must be a VBD entry. Its bodies are labelled ``{prim_path}/rod_edge_body_{k}`` (capsule
shapes ``.../rod_edge_capsule_{k}``), so the entry selects them with the asset's selector like any rigid body.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import newton
import warp as wp

from isaaclab_contrib.utils.configclass import configclass

from .asset_base import ENV_REGEX_NS, AssetBaseCfg

__all__ = ["CableCfg"]


@configclass
class CableCfg(AssetBaseCfg):
    """A straight cable of :attr:`segments` capsules from ``init_state.pos`` along :attr:`direction`.

    ``init_state.pos`` is the cable's first end (the center of the first capsule's end cap) [m]; the cable's
    rest shape is straight. Owned by a VBD entry (the only solver that simulates rod joints).
    """

    axis_aligned: ClassVar[bool] = True

    _ranges: ClassVar[dict[str, str]] = {
        "length": "> 0",
        "segments": ">= 1",
        "radius": "> 0",
        "density": "> 0",
        "stretch_stiffness": "> 0",
        "stretch_damping": ">= 0",
        "bend_stiffness": ">= 0",
        "bend_damping": ">= 0",
        "mu": ">= 0",
        "ke": ">= 0",
        "kd": ">= 0",
        "direction": "any",
    }

    prim_path: str = f"{ENV_REGEX_NS}/Cable"
    """Label path of the cable."""
    length: float = 0.3
    """Rest length [m]."""
    segments: int = 10
    """Capsule segments (rigid bodies) [count]."""
    radius: float = 0.008
    """Capsule radius [m]."""
    direction: tuple[float, float, float] = (1.0, 0.0, 0.0)
    """Direction from the first end to the last [dimensionless, normalized on use]."""
    density: float = 1400.0
    """Density of the capsules [kg/m^3]."""
    stretch_stiffness: float = 2.0e5
    """Stretch stiffness of each rod joint [N/m]."""
    stretch_damping: float = 2.0e-2
    """Stretch damping of each rod joint [N*s/m]."""
    bend_stiffness: float = 0.08
    """Bend (and twist) stiffness of each rod joint [N*m/rad]."""
    bend_damping: float = 1.6e-3
    """Bend (and twist) damping of each rod joint [N*m*s/rad]."""
    mu: float = 0.9
    """Friction coefficient of the capsules [dimensionless]."""
    ke: float = 5.0e4
    """Contact stiffness of the capsules [N/m]."""
    kd: float = 10.0
    """Contact damping of the capsules [N*s/m]."""

    def owns_bodies(self) -> bool:
        return True

    def unit_direction(self) -> tuple[float, float, float]:
        """:attr:`direction`, normalized."""
        norm = math.sqrt(sum(c * c for c in self.direction))
        return tuple(c / norm for c in self.direction)

    def end_points(self) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """First and last end of the cable at rest, in the env frame [m]."""
        d = self.unit_direction()
        start = tuple(float(c) for c in self.init_state.pos)
        return start, tuple(s + self.length * c for s, c in zip(start, d, strict=True))

    def add_to(self, builder: Any, label: str) -> None:
        rod = newton.Rod.create_straight(
            start=wp.vec3(*self.init_state.pos),
            direction=wp.vec3(*self.unit_direction()),
            length=self.length,
            segment_count=self.segments,
            twist_total=0.0,
            radius=self.radius,
        )
        cfg = newton.ModelBuilder.ShapeConfig(density=self.density, ke=self.ke, kd=self.kd, mu=self.mu)
        builder.add_rod(
            rod=rod,
            cfg=cfg,
            stretch_stiffness=self.stretch_stiffness,
            stretch_damping=self.stretch_damping,
            bend_stiffness=self.bend_stiffness,
            bend_damping=self.bend_damping,
            label=f"{label}/rod",
        )

    def validate(self, where: str | None = None) -> None:
        label = where or type(self).__name__
        super().validate(label)
        if sum(c * c for c in self.direction) <= 0.0:
            raise ValueError(f"{label}.direction must be a non-zero vector, got {tuple(self.direction)!r}")
