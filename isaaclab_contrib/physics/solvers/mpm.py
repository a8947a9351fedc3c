"""Configuration of :class:`newton.solvers.SolverImplicitMPM`."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import warp as wp

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.physics.solvers.mpm_colliders import (
    MPMDeformableColliderCfg,
    presenting_hulls_as_meshes,
    setup_deformable_colliders,
)
from isaaclab_contrib.utils.configclass import configclass
from isaaclab_contrib.utils.validation import nested

if TYPE_CHECKING:
    import newton

__all__ = ["MPMBinding", "MPMSolverCfg"]


@configclass
class MPMSolverCfg(NewtonSolverCfg):
    """Newton's implicit material point method solver (granular and plastic materials).

    Fields map to ``SolverImplicitMPM.Config``. As a coupled entry it steps in place
    (``CouplerEntryCfg.in_place=True``, output state = input state) or, like Newton's
    ``vbd_mpm_coupled_solver`` example, into a second state (``in_place=False``). It collides particles against the model's
    shapes itself and does not consume Newton pipeline contacts. A ``"sparse"`` grid with
    ``max_active_cell_count=-1`` is unbounded and cannot be captured in a graph.

    :attr:`deformable_colliders` adds triangle-mesh colliders over particles another entry simulates and
    proxies into this one (a VBD soft body's surface, as in that example); they are set up once the coupled
    solver exists (:meth:`MPMBinding.post_build`).
    """

    solver_class_path: ClassVar[str] = "newton.solvers:SolverImplicitMPM"
    _local_fields: ClassVar[frozenset[str]] = NewtonSolverCfg._local_fields | {
        "deformable_colliders",
        "kinematic_colliders",
    }
    requires_in_place: ClassVar[bool] = False
    supports_in_place: ClassVar[bool] = True
    _ranges: ClassVar[dict[str, str]] = {
        "voxel_size": "> 0",
        "grid_padding": ">= 0",
        "max_active_cell_count": "-1 | >= 1",
        "max_iterations": ">= 1",
        "tolerance": "> 0",
        "critical_fraction": "[0, 1]",
        "air_drag": ">= 0",
    }

    voxel_size: float = 0.1
    """Background grid cell size [m]."""
    grid_type: Literal["sparse", "dense", "fixed"] = "sparse"
    """Background grid: ``"sparse"`` (adaptive), ``"dense"`` or ``"fixed"``."""
    grid_padding: int = 0
    """Extra cells around the particles [count]."""
    max_active_cell_count: int = -1
    """Bound on active grid cells [count]; ``-1`` is unbounded."""
    max_iterations: int = 250
    """Rheology solver iterations [count]."""
    tolerance: float = 1.0e-4
    """Rheology solver tolerance [dimensionless]."""
    transfer_scheme: Literal["apic", "pic"] = "apic"
    """Particle-grid velocity transfer."""
    integration_scheme: Literal["pic", "gimp"] = "pic"
    """Particle quadrature scheme."""
    critical_fraction: float = 0.0
    """Packing fraction below which the material is treated as free flowing [dimensionless], in [0, 1]."""
    air_drag: float = 1.0
    """Drag applied to particles in empty cells [1/s]."""
    collider_velocity_mode: Literal["forward", "backward"] = "forward"
    """How collider velocities are estimated from their poses."""
    separate_worlds: bool = False
    """Solve each world on its own grid."""
    strain_basis: str = "P0"
    """Function space of the strain (stress) field on the grid: ``"P0"`` (piecewise constant, Newton's default),
    ``"Q1"``, ``"Q1d"``, ``"pic"``... (``SolverImplicitMPM.Config.strain_basis``)."""
    deformable_colliders: list[MPMDeformableColliderCfg] = []
    """Deformable triangle-mesh colliders over particles proxied into this entry from another one (e.g. a VBD
    soft body's surface triangles), before the shape colliders; empty: the solver's default colliders (the
    shapes it sees). Only for a coupled entry, with ``separate_worlds=False``."""

    kinematic_colliders: bool = False
    """Treat every rigid-body collider as kinematic (zero effective mass), as Newton's ``mpm_anymal`` example
    sets up its robot (``setup_collider(body_mass=zeros)``): the material follows the bodies and exerts no
    reaction the solver feeds back into them. ``False`` uses the bodies' masses (or Newton's kinematic body
    flag). Cannot be combined with :attr:`deformable_colliders`. True or False."""

    def _accepted_arguments(self) -> set[str]:
        return {f.name for f in dataclasses.fields(self.solver_class().Config)}

    def validate(self) -> None:
        """Check the fields and every deformable collider."""
        super().validate()
        cls = type(self).__name__
        colliders = self.deformable_colliders
        if not isinstance(colliders, (list, tuple)):
            raise TypeError(f"{cls}.deformable_colliders must be a list of MPMDeformableColliderCfg")
        for i, collider in enumerate(colliders):
            if not isinstance(collider, MPMDeformableColliderCfg):
                raise TypeError(
                    f"{cls}.deformable_colliders[{i}] must be an MPMDeformableColliderCfg, got {type(collider).__name__}"
                )
            with nested(f"{cls}.deformable_colliders[{i}]"):
                collider.validate()
        if colliders and self.kinematic_colliders:
            raise ValueError(
                f"{cls}.kinematic_colliders=True with deformable_colliders: the deformable colliders set up their own "
                "collider list; make the bodies kinematic there or leave kinematic_colliders=False"
            )
        if colliders and self.separate_worlds:
            raise ValueError(
                f"{cls}.deformable_colliders with separate_worlds=True: Newton keeps a deformable collider in one "
                "isolated world and this package does not assign colliders to worlds; set separate_worlds=False"
            )


class _FromConfigDataclass(SolverBinding):
    """Solvers configured through a nested ``SolverClass.Config`` dataclass."""

    def build(self, cfg: NewtonSolverCfg, model: Any) -> newton.solvers.SolverBase:
        solver_class = cfg.solver_class()
        return solver_class(model, solver_class.Config(**cfg.solver_kwargs()))


class MPMBinding(_FromConfigDataclass):
    """Implicit MPM collides particles itself (no pipeline contacts).

    Capture follows Newton's documented rule for ``SolverImplicitMPM``: an outer graph capture needs
    a CUDA device with an enabled memory pool and conditional graph support, and a fixed grid or a
    rebuildable sparse grid (positive ``max_active_cell_count``, no ``grid_padding``). Elsewhere the
    MPM step runs eagerly (the rest of the step program may still be captured).
    """

    family = "implicit_mpm"
    simulates_joints = False

    def masked_reset_blockers(self, cfg: MPMSolverCfg, world_count: int) -> list[str]:
        if cfg.separate_worlds or world_count <= 1:
            return []
        return [
            f"MPMSolverCfg.separate_worlds=False: the {world_count} worlds share one grid, whose warm starts Newton "
            "cannot clear for some worlds only; set separate_worlds=True or reset every world"
        ]

    def build(self, cfg: MPMSolverCfg, model: Any) -> newton.solvers.SolverBase:
        """Build ``SolverImplicitMPM``, its convex-hull colliders presented as triangle meshes.

        Newton 1.8's implicit MPM has no collider branch for ``CONVEX_MESH`` (``Shape type 10 not
        supported``) although a hull is a mesh; see :func:`~.mpm_colliders.presenting_hulls_as_meshes`.

        Raises:
            ValueError: The solver would collide with a shape type it cannot turn into a collider
                (heightfield, ellipsoid, Gaussian); the message names the shape and the types that work.
        """
        with presenting_hulls_as_meshes(model):
            solver = super().build(cfg, model)
            if cfg.kinematic_colliders and model.body_count > 0:  # every body collider kinematic (zero mass)
                solver.setup_collider(body_mass=wp.zeros_like(model.body_mass))
        return solver

    def bind(self, cfg: MPMSolverCfg, model: Any):
        if cfg.deformable_colliders:
            raise ValueError(
                f"{type(cfg).__name__}.deformable_colliders needs a coupled MPM entry: its particles must be "
                "simulated by another entry and proxied into this one (CouplerProxyCfg)"
            )
        return super().bind(cfg, model)

    def post_build(self, cfg: MPMSolverCfg, solver: Any, view: Any, model: Any) -> None:
        """Set up :attr:`MPMSolverCfg.deformable_colliders` (then the shape colliders) on the entry solver.

        This runs once the coupled solver exists, as Newton's ``vbd_mpm_coupled_solver`` example calls
        ``setup_collider`` after constructing its coupler: the proxied particles are marked on the entry view
        by then. See :func:`~.mpm_colliders.setup_deformable_colliders`.
        """
        if cfg.deformable_colliders:
            setup_deformable_colliders(solver, cfg.deformable_colliders, view, model)

    def needs_collision_pipeline(self, cfg: MPMSolverCfg) -> bool:
        del cfg
        return False

    def reset_flags(self, cfg: MPMSolverCfg) -> int:
        """Implicit MPM keeps particle history in the state (elastic strain, transform, velocity gradient,
        stress, plastic ``Jp``) and clears it only when the flags name particles; it leaves
        ``particle_q`` / ``particle_qd`` as they are, so a reset keeps what the task wrote."""
        import newton

        del cfg
        return int(newton.StateFlags.PARTICLE)

    def graph_blockers(self, cfg: MPMSolverCfg, device: str) -> list[str]:
        reasons = []
        if cfg.max_active_cell_count < 0:
            reasons.append(
                f"MPMSolverCfg has an unbounded {cfg.grid_type} grid (grid_type={cfg.grid_type!r}, "
                "max_active_cell_count=-1): Newton captures only a positive active-cell capacity"
            )
        if cfg.grid_type == "sparse" and cfg.grid_padding != 0:
            reasons.append("MPMSolverCfg has a sparse grid with grid_padding > 0, which cannot be rebuilt in a graph")
        elif cfg.grid_type == "dense":
            reasons.append("SolverImplicitMPM captures only fixed or rebuildable sparse grids (grid_type='dense')")
        dev = wp.get_device(device)
        if not dev.is_cuda:
            reasons.append(f"SolverImplicitMPM supports outer graph capture only on CUDA devices, not {dev.alias!r}")
        else:
            if not wp.is_mempool_enabled(dev):
                reasons.append(f"SolverImplicitMPM capture needs the CUDA memory pool, which is off on {dev.alias!r}")
            if not wp.is_conditional_graph_supported():
                reasons.append("SolverImplicitMPM capture needs conditional CUDA graphs, which this driver lacks")
        return reasons


register_binding(MPMSolverCfg, MPMBinding())
