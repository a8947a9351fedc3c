"""Solver bindings: everything the runtime needs to know about one family of Newton solvers.

A solver *config* is pure data (fields mapped to the solver's arguments). Its family's
:class:`SolverBinding` (registered by config class, stateless) answers the questions asked
before a model exists: which custom attributes the builder needs, the last builder preparation
before ``finalize()`` (VBD graph colouring), whether the solver consumes Newton pipeline
contacts, whether its step may be recorded in a graph on a device, whether it can reset some
worlds alone.

Once the model exists, :meth:`SolverBinding.bind` builds the solver and returns a
:class:`BoundSolver`: the one object of that build that owns the solver and its typed extras
(the coupled one, :class:`isaaclab_contrib.coupling.binding.BoundCoupledSolver`, also owns the
coupling plan, the entries' filtered contacts and every entry's own bound solver). The runtime
calls nothing else of the solver: step, masked reset, model-change notification, contact
preparation, capture and masked-reset blockers and observables routing all go through it.

Adding a solver is one module in :mod:`isaaclab_contrib.physics.solvers` with the config and a
:class:`SolverBinding` subclass registered with :func:`register_binding` for that config class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch
import warp as wp

from isaaclab_contrib.physics.sensors.observables import CONTACT_F, unsupported_observable, unsupported_request
from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg, resolve_class

if TYPE_CHECKING:
    import newton

__all__ = [
    "BoundSolver",
    "SolverBinding",
    "binding_for",
    "joint_refusal",
    "observable_producers",
    "register_binding",
    "registered_bindings",
]


class SolverBinding:
    """Per-family knowledge of one Newton solver (see the module documentation).

    The base class describes a solver built as ``SolverClass(model, **cfg.solver_kwargs())``
    that consumes pipeline contacts and can be captured on every device.
    """

    family: str = "newton"
    """Short name of the family, used in messages."""

    writes_joint_coordinates: bool = True
    """Whether the solver advances ``joint_q`` / ``joint_qd`` (reduced coordinates). Maximal-coordinate
    solvers (VBD, XPBD, semi-implicit) move bodies only: explicit actuators, which read the joint
    state, need the joint coordinates recomputed from the bodies."""

    simulates_joints: bool = True
    """Whether the solver simulates joints at all (implicit MPM does not)."""

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

    # ------------------------------------------------------------------ rules known before the model exists
    def needs_collision_pipeline(self, cfg: NewtonSolverCfg) -> bool:
        """Whether the solver consumes contacts from Newton's ``CollisionPipeline``."""
        del cfg
        return True

    def graph_blockers(self, cfg: NewtonSolverCfg, device: str) -> list[str]:
        """Reasons the solver step must not be recorded in a graph on *device* (empty: it may)."""
        del cfg, device
        return []

    def masked_reset_blockers(self, cfg: NewtonSolverCfg, world_count: int) -> list[str]:
        """Reasons the solver cannot reset some worlds but not others (empty: it can)."""
        del cfg, world_count
        return []

    def reset_flags(self, cfg: NewtonSolverCfg) -> int:
        """``newton.StateFlags`` a reset passes: the solver-owned history kept in the state, nothing the task
        writes (joint, body and particle positions and velocities). Default: ``StateFlags.NONE``."""
        import newton

        del cfg
        return int(newton.StateFlags.NONE)

    # ------------------------------------------------------------------ observables
    def observable_kinds(self, cfg_class: type[NewtonSolverCfg]) -> frozenset[str]:
        """The observable kinds a solver of the family can produce at most: what its Newton solver class
        declares (``SUPPORTED_OBSERVABLES``; an instance may support fewer, e.g. by backend). Errors about an
        unsupported kind name the families that declare it. Default: read from *cfg_class*'s solver class;
        nothing for a config that names none."""
        if not cfg_class.solver_class_path:
            return frozenset()
        solver_class = resolve_class(cfg_class.solver_class_path, owner=cfg_class.__name__, field="solver_class_path")
        return frozenset(solver_class.SUPPORTED_OBSERVABLES)

    # ------------------------------------------------------------------ USD
    def usd_schema_resolvers(self, cfg: NewtonSolverCfg) -> list[type]:
        """Newton USD schema resolver classes (``newton.usd.SchemaResolver*``) whose solver-specific attributes
        the solver reads, beyond Newton's own ``newton:*`` attributes and the standard ``physics:*`` schema.
        ``instantiate_builder_from_stage`` hands them to Newton's importer, after ``SchemaResolverNewton`` (a
        ``newton:*`` value authored on the same prim keeps priority), when a solver of the family runs the scene.
        Default: none."""
        del cfg
        return []

    # ------------------------------------------------------------------ construction
    def build(self, cfg: NewtonSolverCfg, model: Any) -> newton.solvers.SolverBase:
        """Construct the Newton solver on *model* (a finalized ``Model`` or an entry ``ModelView``)."""
        return cfg.solver_class()(model, **cfg.solver_kwargs())

    def bind(self, cfg: NewtonSolverCfg, model: Any) -> BoundSolver:
        """Build the solver on *model* and return the bound solver that owns it for this build."""
        return BoundSolver(self, cfg, model, self.build(cfg, model))

    def post_build(self, cfg: NewtonSolverCfg, solver: Any, view: Any, model: Any) -> None:
        """Finish a coupled entry's *solver* once the whole coupled solver exists (its proxies marked, their
        masses scaled), before the entry's own ``CouplerEntryCfg.post_build`` hook: setup that needs what
        the coupler adds to the entry's ``ModelView`` *view* (e.g. implicit MPM's deformable colliders over
        proxied particles). *model* is the full model. Called on every build. Default: nothing."""
        del cfg, solver, view, model


def write_array_rows(flat: torch.Tensor, rows: Any, columns: Sequence[int] | None, values: Any) -> None:
    """``flat[rows[i], columns] = values[i]`` (whole rows without *columns*) on a torch view of a model array, cast
    to its device and dtype."""
    index = torch.as_tensor(rows, device=flat.device).long().reshape(-1)
    values = torch.as_tensor(values, device=flat.device, dtype=flat.dtype)
    if columns is None:
        flat[index] = values
    else:
        for column in columns:
            flat[index, column] = values


class BoundSolver:
    """The solver of one build, with the config and model it was built from (see the module documentation).

    Args:
        binding: The family binding that built it.
        cfg: The solver config it was built from.
        model: The finalized ``Model`` (or the entry ``ModelView``) it runs on.
        solver: The Newton solver.
    """

    entries: dict[str, BoundSolver] = {}
    """The bound solvers of a coupled build's entries, by entry name (none for a single solver)."""

    def __init__(self, binding: SolverBinding, cfg: NewtonSolverCfg, model: Any, solver: Any):
        self.binding = binding
        self.cfg = cfg
        self.model = model
        self.solver = solver

    # ------------------------------------------------------------------ model edits
    def write_model_rows(self, array_name: str, rows: Any, columns: Sequence[int] | None, values: Any) -> None:
        """Write ``values[i]`` into ``model.<array_name>[rows[i]]`` (its *columns* only, when given) in place:
        per-element properties (materials, masses, friction, drive gains, gravity per world) that the solver reads
        every step. A solver that keeps its own copy of the array (a coupled solver's entry views) overrides this to
        write the same rows there."""
        write_array_rows(wp.to_torch(getattr(self.model, array_name)), rows, columns, values)

    # ------------------------------------------------------------------ rules
    @property
    def needs_collision_pipeline(self) -> bool:
        """Whether the solver consumes contacts from Newton's ``CollisionPipeline``."""
        return self.binding.needs_collision_pipeline(self.cfg)

    def graph_blockers(self, device: str, solver_steps: int = 1) -> list[str]:
        """Reasons the solver step must not be recorded in a graph on *device* (empty: it may), when one env
        step runs *solver_steps* solver steps (decimation x substeps)."""
        del solver_steps
        return self.binding.graph_blockers(self.cfg, device)

    def save_host_state(self) -> Any:
        """Host-side solver state a recording would advance (e.g. Python counters), for :meth:`restore_host_state`."""
        return None

    def restore_host_state(self, saved: Any) -> None:
        """Put back what :meth:`save_host_state` returned. Default: nothing."""
        del saved

    def masked_reset_blockers(self, world_count: int) -> list[str]:
        """Reasons the solver cannot reset some worlds but not others (empty: it can)."""
        return self.binding.masked_reset_blockers(self.cfg, world_count)

    # ------------------------------------------------------------------ stepping
    def prepare_contacts(self, contacts: Any) -> None:
        """Allocate contact-dependent solver buffers before the warm-up and capture. Default: nothing."""
        del contacts

    def step(self, state_in: Any, state_out: Any, control: Any, contacts: Any, dt: float, observables: Any = None):
        """One solver step of *dt* [s] from *state_in* into *state_out*, filling *observables* when given."""
        if observables is None:
            self.solver.step(state_in, state_out, control, contacts, dt)
        else:
            self.solver.step(state_in, state_out, control, contacts, dt, observables=observables)

    def reset(self, state: Any, world_mask: Any = None) -> None:
        """Clear the solver-owned buffers of the worlds in *world_mask* (``None``: all) and nothing of *state*.

        Newton's ``reset(state, world_mask, flags=None)`` also puts the state's joint coordinates back
        to the model defaults (MuJoCo-Warp, Kamino, and coupled entries running them). The runtime owns
        the state: the task writes joint and body state, ``write_initial_state`` writes the initial
        state, and a reset keeps what was written, so the solver is told to reset no state attribute
        (``StateFlags.NONE``); its warm starts, applied forces and other internal buffers are cleared. A
        family whose solver keeps history in the state (implicit MPM's particle strain) names those
        flags in :meth:`SolverBinding.reset_flags`.
        """
        self.solver.reset(state, world_mask=world_mask, flags=self.binding.reset_flags(self.cfg))

    def notify_model_changed(self, flags: int) -> None:
        """Tell the solver which model properties changed (``newton.SolverNotifyFlags``)."""
        self.solver.notify_model_changed(flags)

    def commit(self) -> None:
        """Called once the build this solver belongs to was swapped in. Default: nothing."""

    def as_coupled(self, consumer: str, what: str) -> Any:
        """The bound coupled solver of this build, on which the coupler's own sensors are created
        (:class:`~isaaclab_contrib.coupling.binding.BoundCoupledSolver` returns itself).

        Raises:
            TypeError: This build runs a single solver; names *consumer* and *what* it is.
        """
        raise TypeError(
            f"{consumer}: {what} needs a coupled simulation (NewtonCfg.solver_cfg a CouplerAdmmCfg or CouplerProxyCfg, "
            f"run by NewtonCouplerManager); this simulation runs {type(self.solver).__name__}"
        )

    def check_actuated_joints(self, joints: list[int], manager: str) -> None:
        """Refuse explicit actuators on *joints* (model joint indices) that this solver would not follow.

        Raises:
            ValueError: The solver simulates no joints, or does not write the joint coordinates the
                actuators read (their effort would be applied open-loop); names the solver and the joints.
        """
        if not joints:
            return
        reason = joint_refusal(self.binding, type(self.solver).__name__)
        if reason is not None:
            labels = [self.model.joint_label[j] for j in joints[:3]]
            raise ValueError(
                f"{manager}: explicit actuators drive joints {labels}{' ...' if len(joints) > 3 else ''} of "
                f"{type(self.cfg).__name__}, but {reason}. Use a reduced-coordinate solver (Steel, MuJoCo-Warp, "
                "Featherstone) for the robot, or ImplicitActuatorCfg (the solver's own joint drive)."
            )

    # ------------------------------------------------------------------ observables routing
    @property
    def supported_observables(self) -> frozenset[str]:
        """The observable kinds the solver can produce."""
        return frozenset(self.solver.supported_observables)

    def check_requested(self, kinds: frozenset[str], manager: str) -> None:
        """Raise naming the solver when kinds asked for with ``request_observables()`` cannot be produced."""
        missing = kinds - self.supported_observables
        if missing:
            entries = {name: entry.solver for name, entry in self.entries.items()}
            raise unsupported_request(manager, missing, self.solver, entries)

    def allocate_observables(
        self, kinds: frozenset[str], consumers: dict[str, frozenset[str]], contacts: Any, manager: str, **_: Any
    ) -> Any:
        """Check *kinds* against the solver and allocate its one observables container.

        Args:
            kinds: The union of kinds to allocate.
            consumers: Kinds per consumer name (sensors, requests), for the error message.
            contacts: The collision pipeline's contacts (``None`` without a pipeline).
            manager: The manager's name, for messages.
        """
        supported = self.supported_observables
        for kind in sorted(kinds - supported):
            users = [n for n, ks in consumers.items() if kind in ks]
            raise unsupported_observable(
                manager,
                kind,
                users,
                f"{type(self.solver).__name__} supports only {sorted(supported)}",
                observable_producers(kind),
            )
        if CONTACT_F in kinds and contacts is None:
            users = [n for n, k in consumers.items() if CONTACT_F in k]
            raise unsupported_observable(
                manager,
                CONTACT_F,
                users,
                "the simulation has no collision pipeline contacts",
                observable_producers(CONTACT_F),
            )
        return self.solver.observables(kinds, contacts=contacts if CONTACT_F in kinds else None)

    def contact_host(
        self, sensing_shapes: set[int], involved_shapes: set[int], contacts: Any, sensor: str
    ) -> tuple[Any, str | None]:
        """The model a contact sensor named *sensor* is created on and the entry whose solver produces its forces.

        A single solver reports every contact row of the model: the model itself, no entry.
        """
        del sensing_shapes, involved_shapes, contacts, sensor
        return self.model, None

    def contact_source(self, entry: str | None, state: Any, contacts: Any, observables: Any) -> tuple[Any, Any, Any]:
        """``(state, contacts, observables)`` a contact sensor reading *entry*'s forces updates from."""
        del entry
        return state, contacts, observables


def joint_refusal(binding: SolverBinding, solver_name: str) -> str | None:
    """Why a solver of *binding*'s family would not follow explicit actuators, or ``None``."""
    if not binding.simulates_joints:
        return f"{solver_name} simulates no joints"
    if not binding.writes_joint_coordinates:
        return (
            f"{solver_name} moves bodies (maximal coordinates) and never writes joint_q / joint_qd, so the "
            "actuators would read a joint state that does not change and push open-loop"
        )
    return None


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
        "with isaaclab_contrib.physics.solvers.register_binding."
    )


def observable_producers(kind: str) -> list[str]:
    """The registered solver configs whose families can produce the observable *kind*
    (:meth:`SolverBinding.observable_kinds`), by class name, sorted."""
    return sorted(
        cfg_class.__name__ for cfg_class, binding in _REGISTRY.items() if kind in binding.observable_kinds(cfg_class)
    )


def registered_bindings() -> dict[type, SolverBinding]:
    """A copy of the registry: config class -> binding."""
    return dict(_REGISTRY)


register_binding(NewtonSolverCfg, SolverBinding())
