"""The class-level Newton physics manager: a thin front over the active simulation session.

``NewtonManager`` is the spec's class-level singleton (there are no instances). Its state is one
:class:`~.session.ManagerSession` per :class:`~.simulation_context.SimulationContext` (configs and
what was registered while authoring the scene) and, after ``sim.reset()``, the session's
:class:`~.simulation_instance.SimulationInstance` (model, states, solver, contacts, observables,
the captured step program, pending resets). Every classmethod acts on that active session, so a
call on ``NewtonManager`` and on a subclass such as ``NewtonCouplerManager`` do the same thing;
what differs per solver family lives in its binding (:mod:`isaaclab_contrib.physics.solvers.binding`).

The life: ``initialize(sim_context)`` → scene building (``create_builder``, ``set_builder``,
``MODEL_INIT`` callbacks, sites and sensors) → ``start_simulation()`` (finalize a copy of the
builder, states, control) → ``initialize_solver()`` (solver, collision pipeline and contacts,
sensors and the observables union, warm-up, capture) → ``step()`` / ``forward()`` / ``reset()`` /
``invalidate_fk()`` → ``close()`` / ``clear()``. Each of ``start_simulation``,
``initialize_solver`` and ``reset`` builds what it makes completely and swaps it in only on
success: a failure leaves the manager, and everything the user passed in, as it was.
"""

from __future__ import annotations

import inspect
import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import warp as wp

from isaaclab_contrib.physics.events import CallbackHandle, PhysicsEvent
from isaaclab_contrib.physics.runtime.manager_model import ModelMethods
from isaaclab_contrib.physics.runtime.manager_program import ProgramMethods
from isaaclab_contrib.physics.runtime.manager_sensors import SensorMethods
from isaaclab_contrib.physics.runtime.manager_usd import UsdMethods
from isaaclab_contrib.physics.runtime.session import ManagerSession
from isaaclab_contrib.physics.runtime.simulation_instance import SimulationInstance, SolverPart
from isaaclab_contrib.physics.runtime.step_program import recording

if TYPE_CHECKING:
    import newton

__all__ = ["NewtonManager"]

logger = logging.getLogger(__name__)


def _empty_callbacks() -> dict:
    return {event: [] for event in PhysicsEvent}


class NewtonManager(ProgramMethods, SensorMethods, UsdMethods, ModelMethods):
    """Class-level singleton front of the Newton simulation (see the module documentation)."""

    _session: ClassVar[ManagerSession | None] = None
    """The active session; only ever set on ``NewtonManager`` itself, so every subclass sees the same one."""

    # The event-callback registry survives ``clear()`` (``close()`` / ``clear_callbacks()`` empty it);
    # the id counter is never reset so a stale handle can never remove a newer callback.
    _callbacks: ClassVar[dict[PhysicsEvent, list]] = _empty_callbacks()
    _callback_id: ClassVar[int] = 0

    # ------------------------------------------------------------------ the active session
    @classmethod
    def _active(cls) -> ManagerSession:
        session = NewtonManager._session
        if session is None:
            raise RuntimeError(
                f"{cls.__name__}: no simulation is initialized; create a SimulationContext (or call initialize())"
            )
        return session

    @classmethod
    def _current_session(cls) -> ManagerSession | None:
        return NewtonManager._session

    @classmethod
    def _instance(cls, what: str = "this call") -> SimulationInstance:
        session = cls._active()
        session.require(session.instance is not None, f"start_simulation() (or sim.reset()) must run before {what}")
        return session.instance

    @classmethod
    def _running(cls, what: str) -> SimulationInstance:
        instance = cls._instance(what)
        cls._active().require(instance.part is not None, f"initialize_solver() (or sim.reset()) must run before {what}")
        return instance

    # ------------------------------------------------------------------ life cycle
    @classmethod
    def initialize(cls, sim_context: Any) -> None:
        """Bind the manager to *sim_context*, a :class:`~isaaclab_contrib.physics.SimulationContext` (its config,
        device and dt; the context validated the config, once). The context imports the manager, never the other
        way round.

        Raises:
            RuntimeError: Another simulation context is active (clear it first with ``clear_instance()``).
        """
        physics = sim_context.cfg.physics
        current = NewtonManager._session
        if current is not None and current.sim_context is not sim_context:
            raise RuntimeError(
                f"{cls.__name__}.initialize: {current.sim_context!r} is still active; call its clear_instance() "
                "(or close() the manager) before initializing another simulation"
            )
        session = ManagerSession(cls, sim_context, physics, sim_context.device, float(sim_context.cfg.dt))
        if current is not None:
            cls.clear()
        NewtonManager._session = session

    @classmethod
    def create_builder(cls, up_axis: str | None = None, **kwargs: Any) -> newton.ModelBuilder:
        """Return a ``newton.ModelBuilder`` with every solver's custom attributes registered and the
        per-shape defaults of ``NewtonCfg.shape_cfg`` (margin, gap, friction...) set on its
        ``default_shape_cfg``. Without an initialized simulation it is a plain builder.

        Args:
            up_axis: ``"X"``, ``"Y"`` or ``"Z"``; defaults to the manager's up axis (``"Z"``).
            **kwargs: Forwarded to ``newton.ModelBuilder``.
        """
        import newton

        session = NewtonManager._session
        builder = newton.ModelBuilder(up_axis=up_axis or (session.up_axis if session else "Z"), **kwargs)
        if session is not None:
            session.binding.register_builder_attributes(session.solver_cfg, builder)
            session.cfg.shape_cfg.apply(builder.default_shape_cfg)
        return builder

    @classmethod
    def set_builder(cls, builder: newton.ModelBuilder) -> None:
        """Set the builder that :meth:`start_simulation` finalizes (a copy of it: the builder is not modified).

        Raises:
            TypeError: *builder* is not a ``newton.ModelBuilder``.
            RuntimeError: The simulation already started: its model was finalized from another builder.
                Call ``sim.clear_instance()`` and create a new context to simulate a new builder.
        """
        import newton

        session = cls._active()
        session.refuse_while_recording("set_builder()")
        if not isinstance(builder, newton.ModelBuilder):
            raise TypeError(f"{cls.__name__}.set_builder expects a newton.ModelBuilder, got {type(builder).__name__}")
        session.require(
            session.instance is None,
            "set_builder() after the simulation started has no effect on the running model; call "
            "sim.clear_instance() and create a new SimulationContext to simulate another builder",
        )
        session.builder = builder

    @classmethod
    def get_builder(cls) -> newton.ModelBuilder | None:
        """The builder set for :meth:`start_simulation`, if any."""
        session = NewtonManager._session
        return session.builder if session else None

    @classmethod
    def _new_model_instance(cls, session: ManagerSession) -> SimulationInstance:
        """Dispatch ``MODEL_INIT`` and finalize a copy of the builder; restores the session's builder on failure."""
        saved_builder = session.builder
        try:
            cls.dispatch_event(PhysicsEvent.MODEL_INIT, session.manager_cls)
            session.require(
                session.builder is not None,
                "no model builder: call set_builder(builder) or fill one in a MODEL_INIT callback before reset()",
            )
            return SimulationInstance(session.snapshot(), session.builder)
        except BaseException:
            session.builder = saved_builder
            raise

    @classmethod
    def _swap_in(
        cls,
        session: ManagerSession,
        instance: SimulationInstance,
        part: SolverPart | None = None,
        then: Callable[[], None] | None = None,
    ) -> None:
        """The one swap-in path of a completely built instance (and solver part), all or nothing.

        Sets the instance (and its part), runs *then* (a full reset's state rewrite), and when a part
        was swapped in: applies program changes made meanwhile, dispatches ``PHYSICS_READY`` and
        commits the bound solver (the spec's proxy id write-back). When any of it raises (a
        ``PHYSICS_READY`` callback, a re-recording), the previous instance, part, state and clock are
        put back before the error propagates.
        """
        previous_instance = session.instance
        previous_part = instance.part
        saved = instance.save_state() if then is not None else None
        session.instance = instance
        if part is not None:
            instance.part = part
        try:
            if then is not None:
                then()
            if part is None:
                return
            session.settle()
            cls.dispatch_event(PhysicsEvent.PHYSICS_READY, session.manager_cls)
        except BaseException:
            if saved is not None:
                instance.restore_state(saved)
            instance.part = previous_part
            session.instance = previous_instance
            raise
        part.bound.commit()

    @classmethod
    def start_simulation(cls) -> None:
        """Dispatch ``MODEL_INIT``, finalize a copy of the builder and allocate states and control.

        Raises:
            RuntimeError: No builder was set, or the simulation already started.
        """
        session = cls._active()
        session.require(session.instance is None, "start_simulation() was already called; use reset()")
        with session.lifecycle("start_simulation()"):
            cls._swap_in(session, cls._new_model_instance(session))

    @classmethod
    def initialize_solver(cls) -> None:
        """Build the solver, contacts, sensors and observables, warm up once and capture the step program."""
        session = cls._active()
        instance = cls._instance("initialize_solver()")
        with session.lifecycle("initialize_solver()"), session.recording_requests():
            cls._swap_in(session, instance, instance.build_solver_part(session.snapshot()))

    @classmethod
    def reset(cls, soft: bool = False) -> None:
        """Reset the simulation.

        The first call starts the simulation and initializes the solver (what ``sim.reset()`` does).
        Later calls put every world back to its initial state; ``soft=False`` also rebuilds the
        solver, contacts, sensors and graphs on the same model. A failure leaves everything as it was.
        """
        session = cls._active()
        instance = session.instance
        if instance is not None and instance.part is None:
            cls.initialize_solver()
            return
        with session.lifecycle("reset()"):
            if instance is None:
                instance = cls._new_model_instance(session)
                with session.recording_requests():
                    cls._swap_in(session, instance, instance.build_solver_part(session.snapshot()))
                return

            def rewind() -> None:
                instance.write_initial_state(instance.world_mask_from())
                instance.apply_pending_resets()
                instance.sim_time, instance.step_count = 0.0, 0

            if soft:  # the program stays: so do the requests made while it was recorded
                cls._swap_in(session, instance, None, then=rewind)
                return
            with session.recording_requests():
                cls._swap_in(session, instance, instance.build_solver_part(session.snapshot()), then=rewind)

    @classmethod
    def step(cls) -> None:
        """Advance one env step: ``decimation`` physics steps of ``num_substeps`` solver steps each.

        Pending resets and FK (``invalidate_fk``) are applied first, outside the graph. Decimation,
        callback and sensor changes made during the step take effect at its end, and so does a
        ``set_decimation`` a callback requested while the step's program was recorded (the recording
        stands for the callback's run in this step).
        """
        session = cls._active()
        instance = cls._running("step()")
        with session.lifecycle("step()"):
            instance.apply_pending_resets()
            cls._notify_model_changes()
            session.settle()
            instance.run_step()
        session.apply_deferred()
        session.settle()

    # ------------------------------------------------------------------ actuators and joint targets
    @classmethod
    def activate_newton_actuator_path(cls) -> None:
        """Opt into the Newton actuator path (idempotent).

        The first call builds the one simulation-level actuator adapter over the model's flat DOF
        layout (when the simulation runs; otherwise at ``sim.reset()``) and adds the actuator stage to
        the step program; later calls reuse it. A model built with Newton actuators
        (:func:`~isaaclab_contrib.physics.actuators.add_actuators`) activates the path by itself.
        """
        session = cls._active()
        session.refuse_while_recording("activate_newton_actuator_path()")
        session.actuators_active = True
        instance = session.instance
        if instance is not None and instance.activate_actuators():
            session.program_changed()

    @classmethod
    def get_actuator_adapter(cls):
        """The simulation-level actuator adapter, or ``None`` when the model has no Newton actuators."""
        instance = cls._maybe_instance()
        return instance.actuators if instance else None

    @classmethod
    def joint_view(cls, name: str):
        """Zero-copy torch view ``[num_envs, per_env]`` of a joint array; writes reach the simulation directly.

        Args:
            name: ``"joint_q"`` [m or rad] / ``"joint_qd"`` [m/s or rad/s] of the current state;
                ``"joint_target_q"``, ``"joint_target_qd"`` (position / velocity targets),
                ``"joint_act"`` (feedforward effort [N or N*m]) or ``"joint_f"`` (applied joint effort
                [N or N*m], written by the actuator stage) of the control.

        Writing targets needs no re-capture: graphs read these buffers on every replay. After writing
        ``joint_q`` / ``joint_qd``, call :meth:`invalidate_fk` for those envs. Columns are listed by
        :meth:`joint_view_columns`.

        Raises:
            ValueError: Unknown name, or worlds that do not hold equal, contiguous joint rows.
        """
        return cls._instance("joint_view()").joint_env_view(name)

    @classmethod
    def joint_view_columns(cls, name: str) -> list[str]:
        """Joint name of each column of :meth:`joint_view` for *name* (``"hip_1"``; ``"root[3]"`` for multi-row joints)."""
        instance = cls._instance("joint_view_columns()")
        if name not in instance._JOINT_ARRAYS:
            raise ValueError(f"joint view {name!r} is not one of {sorted(instance._JOINT_ARRAYS)}")
        return instance.joint_columns(instance._JOINT_ARRAYS[name][1])

    # ------------------------------------------------------------------ resets and kinematics
    @classmethod
    def invalidate_fk(cls, env_mask=None, env_ids=None, articulation_ids=None) -> None:
        """Mark worlds whose joint coordinates or root poses were written as needing FK and a solver reset.

        Args:
            env_mask: Boolean mask over worlds, shape ``(num_envs,)`` (Warp array, torch tensor or numpy).
            env_ids: Integer world indices (Warp array, torch tensor, numpy or list).
            articulation_ids: Accepted for API compatibility; FK runs on whole worlds.

        With neither mask nor ids every world is marked. Consumed by the next ``forward()``,
        ``get_state()`` or ``step()``.
        """
        del articulation_ids
        if cls._active().drop_in_warm_up("invalidate_fk()"):
            return  # the warm-up's state changes are undone: so is what it marked
        instance = cls._instance("invalidate_fk()")
        mask = instance.world_mask_from(env_mask, env_ids)
        instance.check_resettable(mask | instance.world_reset_mask.numpy(), "invalidate_fk()")
        instance.mark_worlds(mask)

    @classmethod
    def forward(cls) -> None:
        """Apply pending FK and solver resets of invalidated worlds without stepping."""
        instance = cls._instance("forward()")
        with cls._active().lifecycle("forward()"):
            instance.apply_pending_resets()

    @classmethod
    def write_initial_state(cls, env_mask=None, env_ids=None) -> None:
        """Copy the state at simulation start into the selected worlds of the current state.

        Bodies, joints and particles of those worlds get their initial positions and velocities
        back; the worlds are then invalidated so the next step runs FK and a masked solver reset.
        Other worlds are not touched.
        """
        instance = cls._instance("write_initial_state()")
        mask = instance.world_mask_from(env_mask, env_ids)
        instance.check_resettable(mask | instance.world_reset_mask.numpy(), "write_initial_state()")
        with cls._active().lifecycle("write_initial_state()"):
            instance.write_initial_state(mask)

    @classmethod
    def add_model_change(cls, change: int) -> None:
        """Register a ``newton.SolverNotifyFlags`` change; the solver is notified before the next step."""
        session = cls._active()
        if not session.drop_in_warm_up("add_model_change()"):
            session.model_changes.add(int(change))

    @classmethod
    def _notify_model_changes(cls) -> None:
        session = cls._active()
        instance = session.instance
        if not session.model_changes or instance is None or instance.part is None:
            return
        flags = 0
        for change in session.model_changes:
            flags |= change
        instance.part.bound.notify_model_changed(flags)
        session.model_changes = set()

    # ------------------------------------------------------------------ events
    @classmethod
    def register_callback(
        cls,
        callback: Callable,
        event: PhysicsEvent,
        order: int = 0,
        name: str | None = None,
        wrap_weak_ref: bool = True,
    ) -> CallbackHandle:
        """Register *callback* for *event*; lower ``order`` runs first. Bound methods are held weakly by default."""
        if not isinstance(event, PhysicsEvent):
            raise TypeError(f"event must be a PhysicsEvent, got {type(event).__name__}")
        if not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}")
        NewtonManager._callback_id += 1
        handle = CallbackHandle(NewtonManager._callback_id, event, name)
        ref = weakref.WeakMethod(callback) if wrap_weak_ref and inspect.ismethod(callback) else None
        NewtonManager._callbacks[event].append((order, handle, ref if ref is not None else callback, ref is not None))
        NewtonManager._callbacks[event].sort(key=lambda item: (item[0], item[1].id))
        return handle

    @classmethod
    def deregister_callback(cls, callback_id: int | CallbackHandle) -> None:
        """Remove a registered callback by id or handle; unknown ids are ignored."""
        target = callback_id.id if isinstance(callback_id, CallbackHandle) else int(callback_id)
        for event, items in NewtonManager._callbacks.items():
            NewtonManager._callbacks[event] = [item for item in items if item[1].id != target]

    @classmethod
    def dispatch_event(cls, event: PhysicsEvent, payload: Any = None) -> None:
        """Call every callback registered for *event* with *payload*, in order."""
        for _, _, fn, weak in list(NewtonManager._callbacks[event]):
            target = fn() if weak else fn
            if target is None:
                continue
            cls.safe_callback_invoke(target, payload, physics_manager=cls)

    @classmethod
    def clear_callbacks(cls) -> None:
        """Remove all event callbacks (the id counter keeps counting)."""
        NewtonManager._callbacks = _empty_callbacks()

    @staticmethod
    def safe_callback_invoke(fn: Callable, *args: Any, physics_manager: Any = None) -> None:
        """Invoke *fn*; a ``ReferenceError`` from a dead weak proxy is ignored, other errors propagate."""
        del physics_manager
        try:
            fn(*args)
        except ReferenceError:
            pass

    # ------------------------------------------------------------------ teardown
    @classmethod
    def clear(cls) -> None:
        """Drop the session and its simulation instance (the event callbacks are kept; see :meth:`close`).

        Raises:
            RuntimeError: Called while ``step()`` or ``reset()`` runs (from one of their callbacks).
        """
        session = NewtonManager._session
        if session is not None:
            session.refuse_while_recording("clear()")
        if session is not None and session.running is not None:
            raise RuntimeError(
                f"{session.manager_name}: the simulation cannot be cleared or closed while {session.running} runs "
                "(called from a step-program or event callback?); nothing was changed"
            )
        NewtonManager._session = None

    @classmethod
    def close(cls) -> None:
        """Dispatch ``STOP`` (when a simulation started), then clear the callbacks and the session."""
        session = NewtonManager._session
        if session is not None and (session.running is not None or recording() is not None):
            cls.clear()  # raises: not while a lifecycle call runs or a program is recorded
        if session is not None and session.instance is not None:
            cls.dispatch_event(PhysicsEvent.STOP, session.manager_cls)
        cls.clear_callbacks()
        cls.clear()

    # ------------------------------------------------------------------ timeline (kitless)
    @classmethod
    def play(cls) -> None:
        """No-op, as the spec's default: without Kit there is no timeline, and ``step()`` always advances."""

    @classmethod
    def pause(cls) -> None:
        """No-op, as the spec's default: without Kit there is no timeline to pause (``step()`` still advances)."""

    @classmethod
    def stop(cls) -> None:
        """No-op, as the spec's default (no timeline). ``close()`` dispatches ``PhysicsEvent.STOP``."""

    @classmethod
    def wait_for_playing(cls) -> None:
        """No-op, as the spec's default: the kitless simulation is always playing."""

    @classmethod
    def is_playing(cls) -> bool:
        """Always True without Kit: ``step()`` advances whenever it is called."""
        return True

    # ------------------------------------------------------------------ visualization (kitless)
    @classmethod
    def update_visualization_state(cls, scene_data_provider: Any = None) -> None:
        """No-op: the Newton state is the live, authoritative state that visualizers read (there is no PhysX
        scene to mirror). Pending FK is applied by :meth:`get_state` and :meth:`pre_render`."""
        del scene_data_provider

    @classmethod
    def after_visualizers_render(cls) -> None:
        """No-op hook after visualizers rendered (no Fabric to sync without Kit)."""

    @classmethod
    def fix_articulation_root(cls, articulation_prim: Any, stage: Any = None) -> Any:
        """Ensure the articulation root has exactly one enabled world fixed joint, on a ``pxr`` USD stage.

        Kitless equivalent of the spec's method (see :func:`~isaaclab_contrib.physics.usd.fix_articulation_root`):
        *stage* defaults to the prim's stage, else the stage given to ``attach_stage()``.
        """
        from isaaclab_contrib.physics.usd.authoring import fix_articulation_root

        session = NewtonManager._session
        return fix_articulation_root(
            articulation_prim,
            stage or (session.usd_stage if session else None),
            where=f"{cls.__name__}.fix_articulation_root",
        )

    @classmethod
    def is_fabric_enabled(cls) -> bool:
        """Always False: there is no Fabric without Kit."""
        return False

    @classmethod
    def provides_implicit_damping(cls) -> bool:
        """False: Newton's integrators add no implicit damping a policy could rely on."""
        return False

    @classmethod
    def get_backend(cls) -> str:
        """Tensor backend handed to RL code: ``"torch"``."""
        return "torch"

    @classmethod
    def get_physics_sim_view(cls) -> list:
        """List of registered views; assets and sensors may append to it."""
        return cls._active().views

    # ------------------------------------------------------------------ accessors
    @classmethod
    def _maybe_instance(cls) -> SimulationInstance | None:
        session = NewtonManager._session
        return session.instance if session else None

    @classmethod
    def _maybe_part(cls):
        instance = cls._maybe_instance()
        return instance.part if instance else None

    @classmethod
    def get_model(cls) -> newton.Model | None:
        """The finalized Newton model (``None`` before the simulation starts)."""
        instance = cls._maybe_instance()
        return instance.model if instance else None

    @classmethod
    def get_state_0(cls) -> newton.State | None:
        """The current state (always holds the latest step's result)."""
        instance = cls._maybe_instance()
        return instance.state_0 if instance else None

    @classmethod
    def get_state_1(cls) -> newton.State | None:
        """The scratch state the solver writes into."""
        instance = cls._maybe_instance()
        return instance.state_1 if instance else None

    @classmethod
    def get_state(cls, scene_data_provider: Any = None) -> newton.State:
        """The current state with pending FK applied (for visualization and raw-state reads).

        Called during ``step()`` or a recording (from a callback), the pending resets wait for the step boundary.
        """
        del scene_data_provider
        instance = cls._instance("get_state()")
        if cls._active().running is None and recording() is None:
            instance.apply_pending_resets()
        return instance.state_0

    @classmethod
    def get_control(cls) -> newton.Control | None:
        """The control the solver reads."""
        instance = cls._maybe_instance()
        return instance.control if instance else None

    @classmethod
    def get_contacts(cls) -> newton.Contacts | None:
        """The collision pipeline's contact buffer, or ``None`` when the solver takes no pipeline contacts."""
        part = cls._maybe_part()
        return part.contacts if part else None

    @classmethod
    def get_solver(cls) -> newton.solvers.SolverBase | None:
        """The Newton solver."""
        part = cls._maybe_part()
        return part.bound.solver if part else None

    @classmethod
    def get_observables(cls) -> Any:
        """The one solver-observables container allocated for the sensors and :meth:`request_observables`
        (``None`` when nothing needs one): read requested kinds from it, e.g. ``get_observables().qfrc_bias``.

        The solver fills it on the last substep of each ``step()``; see :meth:`get_substep_observables`.
        """
        part = cls._maybe_part()
        return part.obs_full if part else None

    @classmethod
    def get_substep_observables(cls) -> Any:
        """The ``select()`` subset of :meth:`get_observables` passed on every other substep (per-substep kinds
        such as ``body_qdd``), sharing its arrays; ``None`` when no kind is sampled per substep."""
        part = cls._maybe_part()
        return part.obs_per_substep if part else None

    @classmethod
    def get_collision_pipeline(cls) -> newton.CollisionPipeline | None:
        """The collision pipeline, if any."""
        part = cls._maybe_part()
        return part.pipeline if part else None

    @classmethod
    def get_device(cls) -> str:
        """The Warp device (``"cpu"`` before a simulation is initialized)."""
        session = NewtonManager._session
        return session.device if session else "cpu"

    @classmethod
    def get_physics_dt(cls) -> float:
        """Physics step [s]."""
        session = NewtonManager._session
        return session.dt if session else 0.0

    @classmethod
    def get_dt(cls) -> float:
        """Alias of :meth:`get_physics_dt` [s]."""
        return cls.get_physics_dt()

    @classmethod
    def get_num_substeps(cls) -> int:
        """Solver substeps per physics step."""
        session = NewtonManager._session
        return session.num_substeps if session else 1

    @classmethod
    def get_solver_dt(cls) -> float:
        """Solver substep [s]."""
        return cls.get_physics_dt() / cls.get_num_substeps()

    @classmethod
    def get_simulation_time(cls) -> float:
        """Simulated time since the start or the last full reset [s] (the physics steps actually run)."""
        instance = cls._maybe_instance()
        return instance.sim_time if instance else 0.0

    @classmethod
    def get_staged_body_f(cls) -> wp.array | None:
        """External body wrenches applied on every solver substep (write into it; it persists)."""
        instance = cls._maybe_instance()
        return instance.staged_body_f if instance else None

    @classmethod
    def get_staged_particle_f(cls) -> wp.array | None:
        """External particle forces applied on every solver substep [N]."""
        instance = cls._maybe_instance()
        return instance.staged_particle_f if instance else None

    @classmethod
    def get_scene_data_provider(cls) -> None:
        """Not applicable kitless: there is no SceneDataProvider. Returns ``None``."""
        return None

    @classmethod
    def get_scene_data_backend(cls) -> None:
        """Not applicable kitless. Returns ``None``."""
        return None

    @classmethod
    def get_simulation_context(cls) -> Any:
        """The simulation context the manager is bound to, if any."""
        session = NewtonManager._session
        return session.sim_context if session else None

    @classmethod
    def torch_view(cls, name: str, state: str = "state_0"):
        """Zero-copy torch tensor of a state or control array (e.g. ``"body_q"``), shaped by the Warp array.

        Args:
            name: Attribute of the state or control.
            state: ``"state_0"`` (current), ``"state_1"`` (scratch) or ``"control"``.
        """
        instance = cls._instance("torch_view()")
        sources = {"state_0": instance.state_0, "state_1": instance.state_1, "control": instance.control}
        if state not in sources:
            raise ValueError(f"{cls.__name__}.torch_view: state must be one of {sorted(sources)}, got {state!r}")
        array = getattr(sources[state], name, None)
        if array is None:
            raise ValueError(f"{cls.__name__}.torch_view: {state}.{name} is not allocated")
        return wp.to_torch(array)
