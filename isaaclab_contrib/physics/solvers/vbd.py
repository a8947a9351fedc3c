"""Configuration of :class:`newton.solvers.SolverVBD`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.utils.configclass import configclass

if TYPE_CHECKING:
    import newton

__all__ = ["VBD_COLLISION_FREQUENCY_TYPES", "VBD_COLLISION_SLOTS", "VBDBinding", "VBDSolverCfg"]

VBD_COLLISION_SLOTS: dict[str, str] = {"rigid": "RIGID", "soft_self_contact": "SOFT_SELF_CONTACT"}
"""Keys of :attr:`VBDSolverCfg.collision_frequency_type` and the ``SolverBase.CollisionSlot`` member of each."""

VBD_COLLISION_FREQUENCY_TYPES: dict[str, str] = {
    "none": "NONE",
    "pre_init": "PRE_INIT",
    "pre_post_init": "PRE_POST_INIT",
    "iterations": "ITERATIONS",
    "auto": "AUTO",
}
"""Values of :attr:`VBDSolverCfg.collision_frequency_type` and the ``SolverBase.CollisionFrequencyType`` member
of each."""


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
    integrate_with_external_rigid_solver: bool = False
    """One-way coupling (Newton's ``integrate_with_external_rigid_solver``): VBD integrates no rigid body; it
    reads every body's pose at the start of the step from the input state and at its end (with the velocity)
    from the output state, and collides the particles against that motion. In a coupler, such an entry owns no
    bodies and receives the driving bodies through kinematic proxies
    (:attr:`~isaaclab_contrib.coupling.CouplerProxyMappingCfg.kinematic`), which write both poses. Not allowed
    for a VBD solver that owns the whole model and has bodies (nothing would move them). True or False."""
    rigid_contact_history: bool | None = None
    """Keep body-body contact warm starts across steps (Newton's ``rigid_contact_history``); ``None`` keeps the
    scene-authored value or Newton's default (off). Only for rigid bodies VBD integrates itself: ``True`` with
    :attr:`integrate_with_external_rigid_solver` is refused (Newton would ignore it). True, False or None."""
    collision_frequency_type: dict[str, str] = {}
    """When, inside one VBD step, collision detection runs, per slot (Newton's ``collision_frequency_type``):
    keys ``"rigid"`` (rigid and particle-shape contacts) and ``"soft_self_contact"`` (cloth self-contact); values
    ``"none"``, ``"pre_init"`` (once, before initialization), ``"pre_post_init"`` (before and after it),
    ``"iterations"`` (before initialization and before every iteration), ``"auto"`` (Newton's default). A missing
    slot keeps Newton's default. This package runs rigid detection itself (the step program's ``collide`` stage;
    VBD owns no pipeline), so ``"rigid"`` accepts only ``"none"`` and ``"auto"``; Newton's ``cloth_franka`` sets
    ``{"soft_self_contact": "pre_init"}``. Cannot be combined with the deprecated
    :attr:`particle_collision_detection_interval` for the self-contact slot."""

    def validate(self) -> None:
        """Check the fields, then the collision schedule and the external-rigid options together."""
        super().validate()
        cls = type(self).__name__
        schedule = self.collision_frequency_type
        if not isinstance(schedule, Mapping):
            raise TypeError(
                f"{cls}.collision_frequency_type must be a dict of slot name -> frequency type, "
                f"got {type(schedule).__name__} {schedule!r}"
            )
        for slot, kind in schedule.items():
            if slot not in VBD_COLLISION_SLOTS:
                raise ValueError(
                    f"{cls}.collision_frequency_type has the key {slot!r}; slots: {sorted(VBD_COLLISION_SLOTS)}"
                )
            if not isinstance(kind, str) or kind not in VBD_COLLISION_FREQUENCY_TYPES:
                raise ValueError(
                    f"{cls}.collision_frequency_type[{slot!r}]={kind!r} is not a frequency type; "
                    f"choose from {sorted(VBD_COLLISION_FREQUENCY_TYPES)}"
                )
        if schedule.get("rigid", "auto") not in ("none", "auto"):
            raise ValueError(
                f"{cls}.collision_frequency_type['rigid']={schedule['rigid']!r}: in-step rigid detection needs a "
                "collision pipeline owned by SolverVBD, and this package runs rigid detection in the step program "
                "(NewtonCfg.collision_interval); use 'auto' or 'none'"
            )
        soft = schedule.get("soft_self_contact", "auto")
        if self.particle_collision_detection_interval is not None and soft != "auto":
            raise ValueError(
                f"{cls}: set either particle_collision_detection_interval (deprecated) or "
                f"collision_frequency_type['soft_self_contact']={soft!r}, not both"
            )
        if self.particle_enable_self_contact and soft == "none":
            raise ValueError(
                f"{cls}.collision_frequency_type['soft_self_contact']='none' with particle_enable_self_contact=True: "
                "Newton refreshes the self-contact reference only when detection runs; choose another type"
            )
        if self.integrate_with_external_rigid_solver and self.rigid_contact_history:
            raise ValueError(
                f"{cls}.rigid_contact_history=True with integrate_with_external_rigid_solver=True: contact history "
                "applies only to bodies VBD integrates itself (Newton ignores it); leave it None or False"
            )

    def _forwarded_values(self) -> dict[str, Any]:
        values = super()._forwarded_values()
        schedule = values.pop("collision_frequency_type")
        if schedule:
            from newton.solvers import SolverBase

            values["collision_frequency_type"] = {
                SolverBase.CollisionSlot[VBD_COLLISION_SLOTS[slot]]: SolverBase.CollisionFrequencyType[
                    VBD_COLLISION_FREQUENCY_TYPES[kind]
                ]
                for slot, kind in schedule.items()
            }
        return values


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

    def bind(self, cfg: VBDSolverCfg, model: Any):
        if cfg.integrate_with_external_rigid_solver and model.body_count > 0:
            raise ValueError(
                f"{type(cfg).__name__}.integrate_with_external_rigid_solver=True for a VBD solver that owns the whole "
                f"model with {model.body_count} bodies: no other solver would move them. Use it on a coupled VBD "
                "entry driven through kinematic proxies (CouplerProxyMappingCfg.kinematic=True)"
            )
        return super().bind(cfg, model)

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
