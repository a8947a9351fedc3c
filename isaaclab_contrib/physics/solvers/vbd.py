"""Configuration of :class:`newton.solvers.SolverVBD`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.utils.configclass import configclass

if TYPE_CHECKING:
    import newton

__all__ = ["VBDBinding", "VBDSolverCfg"]


@configclass
class VBDSolverCfg(NewtonSolverCfg):
    """Newton's vertex block descent solver (cloth, soft bodies, cables, AVBD rigid bodies).

    VBD sweeps particles by graph colour, so the builder is coloured right before
    finalization (by its solver binding) unless it already is.
    Consumes pipeline contacts.
    """

    solver_class_path: ClassVar[str] = "newton.solvers:SolverVBD"
    _local_fields: ClassVar[frozenset[str]] = frozenset({"extra_solver_args", "color_include_bending"})
    _ranges: ClassVar[dict[str, str]] = {
        "iterations": ">= 1",
        "friction_epsilon": "> 0",
        "particle_self_contact_radius": "> 0",
        "particle_self_contact_margin": "> 0",
        "particle_collision_detection_interval": "any",
        "rigid_contact_k_start": ">= 0",
        "rigid_body_contact_buffer_size": ">= 1",
        "rigid_body_particle_contact_buffer_size": ">= 1",
        "particle_self_contact_gap": ">= 0",
        "rigid_joint_linear_ke": "> 0",
        "rigid_joint_angular_ke": "> 0",
    }

    iterations: int | None = None
    """Block descent iterations per step [count], >= 1 (Newton takes 0 and then leaves the particles
    unsolved); ``None`` keeps Newton's default."""
    friction_epsilon: float = 0.01
    """Velocity threshold of the smoothed friction model [m/s]."""
    particle_enable_self_contact: bool = False
    """Enable cloth/soft-body self-contact."""
    particle_self_contact_radius: float | None = None
    """Self-contact thickness [m]; ``None`` keeps Newton's default."""
    particle_self_contact_margin: float | None = None
    """Self-contact detection margin [m]; ``None`` keeps Newton's default."""
    particle_collision_detection_interval: int | None = None
    """Self-collision detection schedule (deprecated in Newton): ``n >= 1`` detects before every n-th
    iteration, ``0`` before and after initialization, ``< 0`` once before initialization [count];
    ``None`` keeps Newton's default."""
    particle_enable_tile_solve: bool = True
    """Use the tiled per-colour particle solve."""
    rigid_contact_k_start: float | None = None
    """Initial AVBD rigid contact stiffness [N/m]; ``None`` keeps Newton's default."""
    rigid_body_contact_buffer_size: int = 64
    """Rigid contacts stored per body [count]."""
    rigid_body_particle_contact_buffer_size: int = 256
    """Body-particle contacts stored per body [count]."""
    color_include_bending: bool = False
    """Colour the particle graph including bending (edge-opposite) neighbours."""
    particle_self_contact_gap: float | None = None
    """Self-contact gap kept between particles and triangles [m]; ``None`` keeps Newton's default."""
    rigid_joint_linear_ke: float | None = None
    """Linear stiffness of the joints VBD solves between rigid bodies (e.g. proxy joints) [N/m]; ``None`` keeps
    Newton's default."""
    rigid_joint_angular_ke: float | None = None
    """Angular stiffness of the joints VBD solves between rigid bodies [N*m/rad]; ``None`` keeps Newton's
    default."""


class VBDBinding(SolverBinding):
    """VBD sweeps particles and rigid bodies by graph colour: the builder is coloured before finalization.

    ``SolverVBD`` needs ``particle_color_groups`` when the model has particles and ``body_color_groups``
    when it integrates rigid bodies (cables and other jointed bodies included). Newton's
    ``ModelBuilder.color()`` computes both; a colouring that already covers every particle (or body) is
    kept as it is, so a builder coloured for its cloth but not for bodies added later gets body colours
    only, and a user's own colouring is not replaced.
    """

    family = "vbd"
    writes_joint_coordinates = False

    @staticmethod
    def _covers(groups: Any, count: int) -> bool:
        """Whether the colour *groups* hold every index in ``[0, count)`` exactly once."""
        ids = [np.asarray(group, dtype=np.int64).ravel() for group in groups]
        ids = np.concatenate(ids) if ids else np.empty(0, dtype=np.int64)
        return ids.size == count and np.array_equal(np.sort(ids), np.arange(count))

    def prepare_builder(self, cfg: VBDSolverCfg, builder: newton.ModelBuilder) -> None:
        particles_done = self._covers(builder.particle_color_groups, builder.particle_count)
        bodies_done = self._covers(builder.body_color_groups, builder.body_count)
        if particles_done and bodies_done:
            return
        kept_particles, kept_bodies = builder.particle_color_groups, builder.body_color_groups
        builder.color(include_bending=cfg.color_include_bending)  # colours particles and bodies
        if particles_done:
            builder.particle_color_groups = kept_particles
        if bodies_done:
            builder.body_color_groups = kept_bodies


register_binding(VBDSolverCfg, VBDBinding())
