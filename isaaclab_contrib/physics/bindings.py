"""Solver bindings: everything the manager needs to know about one family of Newton solvers.

A solver *config* is pure data (fields mapped to the solver's arguments). A *binding* turns a
config of its family into running objects and answers the manager's questions about it:

* how to build the solver on a model (or an entry ``ModelView``),
* which custom attributes the builder needs before assets are added, and the last builder
  preparation before ``finalize()`` (VBD graph colouring),
* whether the solver consumes contacts from Newton's ``CollisionPipeline``,
* whether its step may be recorded in a graph on a given device (:meth:`SolverBinding.graph_blockers`),
* its reset policy (see :attr:`SolverBinding.reset_policy`),
* how sensors' observables are routed to it (single solver: the solver itself; the coupled
  binding in :mod:`isaaclab_contrib.coupling.binding` routes to entry solvers).

Adding a solver is one config file plus one :class:`SolverBinding` subclass registered with
:func:`register_binding` for that config class. The manager never probes configs with ``getattr``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import warp as wp

from .featherstone_cfg import FeatherstoneSolverCfg
from .kamino_cfg import KaminoSolverCfg
from .mjwarp_cfg import MJWarpSolverCfg
from .mpm_cfg import MPMSolverCfg
from .mpm_colliders import presenting_hulls_as_meshes
from .semi_implicit_cfg import SemiImplicitSolverCfg
from .sensors import CONTACT_F, new_contact_sensor, unsupported_observable
from .solver_cfg import NewtonSolverCfg
from .steel_cfg import SteelSolverCfg
from .vbd_cfg import VBDSolverCfg
from .xpbd_cfg import XPBDSolverCfg

if TYPE_CHECKING:
    import newton

__all__ = ["SolverBinding", "binding_for", "register_binding", "registered_bindings"]


class SolverBinding:
    """Per-family knowledge of one Newton solver (see the module documentation).

    The base class describes a solver built as ``SolverClass(model, **cfg.solver_kwargs())``
    that consumes pipeline contacts and can be captured on every device.
    """

    family: str = "newton"
    """Short name of the family, used in messages."""

    reset_policy: str = (
        "full reset: states back to their initial values, solver rebuilt; masked reset / FK invalidation: "
        "FK of the written joint coordinates, then solver.reset(state, world_mask, flags=StateFlags.NONE) clears "
        "the solver-owned buffers of those worlds and keeps the joint, body and particle state that was written"
    )
    """What a full reset, a masked reset and an FK invalidation do with this solver (documentation)."""

    # ------------------------------------------------------------------ configs
    def solver_cfgs(self, cfg: NewtonSolverCfg) -> list[NewtonSolverCfg]:
        """Every solver config the simulation builds from *cfg* (itself, or a coupler's entry configs)."""
        return [cfg]

    # ------------------------------------------------------------------ builder
    def register_builder_attributes(self, cfg: NewtonSolverCfg, builder: newton.ModelBuilder) -> None:
        """Register the solver's custom model attributes on *builder* (idempotent; before assets are added)."""
        register = getattr(cfg.solver_class(), "register_custom_attributes", None)
        if register is not None:
            register(builder)

    def prepare_builder(self, cfg: NewtonSolverCfg, builder: newton.ModelBuilder) -> None:
        """Last preparation of *builder* right before ``finalize()``. Default: nothing."""
        del cfg, builder

    # ------------------------------------------------------------------ construction
    def build(self, cfg: NewtonSolverCfg, model: Any) -> newton.solvers.SolverBase:
        """Construct the solver on *model* (a finalized ``Model`` or an entry ``ModelView``)."""
        return cfg.solver_class()(model, **cfg.solver_kwargs())

    def needs_collision_pipeline(self, cfg: NewtonSolverCfg) -> bool:
        """Whether the solver consumes contacts from Newton's ``CollisionPipeline``."""
        del cfg
        return True

    def construct(self, cfg: NewtonSolverCfg, model: newton.Model) -> tuple[newton.solvers.SolverBase, dict[str, Any]]:
        """Build the simulation's solver on the finalized *model*; returns it and binding-specific info."""
        return self.build(cfg, model), {}

    def prepare_contacts(self, solver: Any, contacts: Any) -> None:
        """Allocate contact-dependent solver buffers before the warm-up and capture. Default: nothing."""
        del solver, contacts

    def commit(self, cfg: NewtonSolverCfg, info: dict[str, Any]) -> None:
        """Called once the instance built with *info* is swapped in (e.g. the spec's proxy id write-back)."""
        del cfg, info

    # ------------------------------------------------------------------ observables routing
    def allocate_observables(self, instance: Any, part: Any, kinds: frozenset[str], by_sensor: dict) -> Any:
        """Check *kinds* against the solver and allocate its one observables container."""
        solver, contacts = part.solver, part.contacts
        name = instance.session.manager_name
        supported = solver.supported_observables
        for kind in sorted(kinds - supported):
            users = [n for n, ks in by_sensor.items() if kind in ks]
            raise unsupported_observable(
                name, kind, users, f"{type(solver).__name__} supports only {sorted(supported)}"
            )
        if CONTACT_F in kinds and contacts is None:
            users = [n for n, k in by_sensor.items() if CONTACT_F in k]
            raise unsupported_observable(name, CONTACT_F, users, "the simulation has no collision pipeline contacts")
        return solver.observables(kinds, contacts=contacts if CONTACT_F in kinds else None)

    def create_contact_sensor(self, instance: Any, part: Any, record: Any) -> tuple[Any, str | None]:
        """Create the Newton ``SensorContact`` of *record*; returns it and the entry producing its forces."""
        del part
        return new_contact_sensor(instance.model, record), None

    def contact_update_args(self, instance: Any, part: Any, runtime: Any, full: Any) -> dict[str, Any]:
        """Fixed arguments of the contact sensor's ``update`` (state, contacts, observables)."""
        del runtime
        return {"state": instance.state_0, "contacts": part.contacts, "observables": full}

    # ------------------------------------------------------------------ capture
    def graph_blockers(self, cfg: NewtonSolverCfg, device: str) -> list[str]:
        """Reasons the solver step must not be recorded in a graph on *device* (empty: it may)."""
        del cfg, device
        return []

    # ------------------------------------------------------------------ resets
    def masked_reset_blockers(self, cfg: NewtonSolverCfg, world_count: int) -> list[str]:
        """Reasons the solver cannot reset some worlds but not others (empty: it can)."""
        del cfg, world_count
        return []


class _FromConfigDataclass(SolverBinding):
    """Solvers configured through a nested ``SolverClass.Config`` dataclass."""

    def build(self, cfg: NewtonSolverCfg, model: Any) -> newton.solvers.SolverBase:
        solver_class = cfg.solver_class()
        return solver_class(model, solver_class.Config(**cfg.solver_kwargs()))


class SteelBinding(SolverBinding):
    family = "steel"


class FeatherstoneBinding(SolverBinding):
    family = "featherstone"


class XPBDBinding(SolverBinding):
    family = "xpbd"


class SemiImplicitBinding(SolverBinding):
    family = "semi_implicit"


class MuJoCoBinding(SolverBinding):
    """MuJoCo-Warp: registers its custom attributes; consumes pipeline contacts only with
    ``use_mujoco_contacts=False``; the MuJoCo CPU backend runs on the host and is never captured."""

    family = "mujoco"

    def needs_collision_pipeline(self, cfg: MJWarpSolverCfg) -> bool:
        return not cfg.use_mujoco_contacts

    def graph_blockers(self, cfg: MJWarpSolverCfg, device: str) -> list[str]:
        del device
        return ["MJWarpSolverCfg.use_mujoco_cpu=True steps MuJoCo on the host"] if cfg.use_mujoco_cpu else []


class VBDBinding(SolverBinding):
    """VBD sweeps particles and rigid bodies by graph colour: the builder is coloured before finalization.

    ``SolverVBD`` needs ``particle_color_groups`` when the model has particles and ``body_color_groups``
    when it integrates rigid bodies (cables and other jointed bodies included). Newton's
    ``ModelBuilder.color()`` computes both; a colouring that already covers every particle (or body) is
    kept as it is, so a builder coloured for its cloth but not for bodies added later gets body colours
    only, and a user's own colouring is not replaced.
    """

    family = "vbd"

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


class MPMBinding(_FromConfigDataclass):
    """Implicit MPM collides particles itself (no pipeline contacts).

    Capture follows Newton's documented rule for ``SolverImplicitMPM``: an outer graph capture needs
    a CUDA device with an enabled memory pool and conditional graph support, and a fixed grid or a
    rebuildable sparse grid (positive ``max_active_cell_count``, no ``grid_padding``). Elsewhere the
    MPM step runs eagerly (the rest of the step program may still be captured).
    """

    family = "implicit_mpm"

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
            return super().build(cfg, model)

    def needs_collision_pipeline(self, cfg: MPMSolverCfg) -> bool:
        del cfg
        return False

    def graph_blockers(self, cfg: MPMSolverCfg, device: str) -> list[str]:
        reasons = []
        if cfg.grid_type == "sparse" and cfg.max_active_cell_count < 0:
            reasons.append("MPMSolverCfg has an unbounded sparse grid (grid_type='sparse', max_active_cell_count=-1)")
        elif cfg.grid_type == "sparse" and cfg.grid_padding != 0:
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


class KaminoBinding(SolverBinding):
    """Kamino: top-level fields go to ``SolverKamino.Config``, ``*_overrides`` into its nested configs."""

    family = "kamino"

    def build(self, cfg: KaminoSolverCfg, model: Any) -> newton.solvers.SolverBase:
        return cfg.solver_class()(model, cfg.make_config())

    def needs_collision_pipeline(self, cfg: KaminoSolverCfg) -> bool:
        return not cfg.use_collision_detector


_REGISTRY: dict[type, SolverBinding] = {}


def register_binding(cfg_class: type, binding: SolverBinding) -> None:
    """Use *binding* for configs of *cfg_class* (and its subclasses without a binding of their own).

    Raises:
        TypeError: *cfg_class* is not a :class:`NewtonSolverCfg` subclass or *binding* not a :class:`SolverBinding`.
    """
    if not (isinstance(cfg_class, type) and issubclass(cfg_class, NewtonSolverCfg)):
        raise TypeError(f"register_binding: {cfg_class!r} is not a NewtonSolverCfg subclass")
    if not isinstance(binding, SolverBinding):
        raise TypeError(f"register_binding: {binding!r} is not a SolverBinding")
    _REGISTRY[cfg_class] = binding


def binding_for(cfg: NewtonSolverCfg) -> SolverBinding:
    """The binding registered for *cfg*'s class (or its nearest registered base class).

    Raises:
        TypeError: *cfg* is not a solver config, or no binding is registered for it.
    """
    if not isinstance(cfg, NewtonSolverCfg):
        raise TypeError(f"expected a NewtonSolverCfg, got {type(cfg).__name__}")
    for klass in type(cfg).__mro__:
        binding = _REGISTRY.get(klass)
        if binding is not None:
            if not cfg.solver_class_path and klass is NewtonSolverCfg:
                break
            return binding
    raise TypeError(
        f"{type(cfg).__name__} has no solver binding: it names no Newton solver (solver_class_path is empty). "
        "Use a concrete solver config, a coupler config (import isaaclab_contrib.coupling), or register a binding "
        "with isaaclab_contrib.physics.bindings.register_binding."
    )


def registered_bindings() -> dict[type, SolverBinding]:
    """A copy of the registry: config class -> binding."""
    return dict(_REGISTRY)


register_binding(NewtonSolverCfg, SolverBinding())
register_binding(SteelSolverCfg, SteelBinding())
register_binding(FeatherstoneSolverCfg, FeatherstoneBinding())
register_binding(XPBDSolverCfg, XPBDBinding())
register_binding(SemiImplicitSolverCfg, SemiImplicitBinding())
register_binding(MJWarpSolverCfg, MuJoCoBinding())
register_binding(VBDSolverCfg, VBDBinding())
register_binding(MPMSolverCfg, MPMBinding())
register_binding(KaminoSolverCfg, KaminoBinding())
