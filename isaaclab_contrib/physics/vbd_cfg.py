"""Configuration of :class:`newton.solvers.SolverVBD`."""

from __future__ import annotations

from typing import ClassVar

from isaaclab_contrib.utils.configclass import configclass

from .solver_cfg import NewtonSolverCfg

__all__ = ["VBDSolverCfg"]


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
