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

from isaaclab_contrib.physics.sensors.observables import CONTACT_F, new_contact_sensor, unsupported_observable
from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg

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
