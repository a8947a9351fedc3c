"""Configuration of Newton's :class:`newton.CollisionPipeline`."""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from isaaclab_contrib.physics.solvers.base import SolverConfigError
from isaaclab_contrib.utils.configclass import configclass

if TYPE_CHECKING:
    import newton

__all__ = ["NewtonCollisionPipelineCfg"]


@configclass
class NewtonCollisionPipelineCfg:
    """Arguments of :class:`newton.CollisionPipeline`; ``None`` keeps Newton's default."""

    _ranges: ClassVar[dict[str, str]] = {
        "rigid_contact_max": ">= 0",
        "soft_contact_max": ">= 0",
        "soft_contact_margin": ">= 0",
        "soft_contact_gap": ">= 0",
        "max_triangle_pairs": ">= 1",
    }

    broad_phase: Literal["nxn", "sap", "explicit"] | None = None
    """Broad phase algorithm; ``None`` lets Newton choose."""
    reduce_contacts: bool = True
    """Reduce mesh/convex contacts to a representative set."""
    rigid_contact_max: int | None = None
    """Rigid contact capacity [count]."""
    soft_contact_max: int | None = None
    """Particle-shape contact capacity [count]."""
    soft_contact_margin: float | None = None
    """Particle-shape detection margin [m]."""
    soft_contact_gap: float | None = None
    """Particle-shape contact gap [m]."""
    max_triangle_pairs: int | None = None
    """Mesh triangle-pair capacity [count]."""
    include_static_kinematic_pairs: bool = True
    """Also test static/kinematic shape pairs."""
    deterministic: bool = False
    """Sort contacts for run-to-run determinism."""
    contact_matching: Literal["disabled", "latest", "sticky"] = "disabled"
    """Frame-to-frame contact matching."""
    extra_args: dict[str, Any] = {}
    """Further ``CollisionPipeline`` keyword arguments; unknown names raise."""

    def pipeline_kwargs(self) -> dict[str, Any]:
        """Return the constructor arguments, checked against the installed ``CollisionPipeline``."""
        import newton

        self.validate()
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra_args"}
        values.update(self.extra_args or {})
        accepted = set(inspect.signature(newton.CollisionPipeline.__init__).parameters) - {"self", "model"}
        unknown = sorted(set(values) - accepted)
        if unknown:
            raise SolverConfigError(
                f"NewtonCollisionPipelineCfg: field(s) {unknown} do not map to an argument of the installed "
                "newton.CollisionPipeline."
            )
        return values

    def build(self, model: newton.Model | Any) -> newton.CollisionPipeline:
        """Construct the pipeline on *model* (a ``Model`` or ``ModelView``)."""
        import newton

        return newton.CollisionPipeline(model, **self.pipeline_kwargs())
