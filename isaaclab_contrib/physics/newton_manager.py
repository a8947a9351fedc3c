"""The class-level Newton physics manager: model, states, solver, contacts and the step program.

``NewtonManager`` is a singleton made of class slots (there are no instances). Its life:

``initialize(sim_context)`` → scene building (``create_builder``, ``set_builder``, ``MODEL_INIT``
callbacks) → ``start_simulation()`` (finalize, states, control) → ``initialize_solver()`` (solver,
collision pipeline and contacts, warm-up, graph capture) → ``step()`` (one call runs the whole
decimation loop) / ``forward()`` / ``reset()`` / ``invalidate_fk()`` → ``close()`` / ``clear()``.

One ``step()`` runs ``decimation`` physics steps; each runs the post-actuator callbacks, collision
detection (every ``collision_interval`` physics steps), then ``num_substeps`` solver steps with the
staged external forces; after the loop come the post-step callbacks. When the device can capture
(CUDA, and the CPU in Warp 1.19) that program is captured once as a graph and replayed on every
``step()``; otherwise the very same program runs eagerly, so both paths give the same states.

Initialization is transactional: a failure inside ``start_simulation``, ``initialize_solver`` or
``reset`` restores every slot to its value before the call.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import warp as wp

from .events import CallbackHandle, PhysicsEvent
from .manager_sensors import SensorMethods
from .manager_usd import UsdMethods
from .solver_cfg import NewtonModelSolverCfg, NewtonSolverCfg

if TYPE_CHECKING:
    import newton

    from .simulation_context import SimulationContext

__all__ = ["NewtonManager"]

logger = logging.getLogger(__name__)


@wp.kernel
def _copy_rows_by_world_kernel(
    src: wp.array(dtype=Any),
    row_world: wp.array(dtype=wp.int32),
    world_mask: wp.array(dtype=wp.bool),
    dst: wp.array(dtype=Any),
):
    i = wp.tid()
    w = row_world[i]
    if w < 0:
        w = world_mask.shape[0] - 1
    if world_mask[w]:
        dst[i] = src[i]


def _empty_callbacks() -> dict:
    return {event: [] for event in PhysicsEvent}


# Slot name -> factory of its pristine value. ``clear()`` restores exactly these.
_SLOT_DEFAULTS: dict[str, Callable[[], Any]] = {
    "_sim_context": lambda: None,
    "_cfg": lambda: None,
    "_device": lambda: "cpu",
    "_dt": lambda: 0.0,
    "_num_substeps": lambda: 1,
    "_collision_interval": lambda: 1,
    "_decimation": lambda: 1,
    "_up_axis": lambda: "Z",
    "_builder": lambda: None,
    "_model": lambda: None,
    "_state_0": lambda: None,
    "_state_1": lambda: None,
    "_initial_state": lambda: None,
    "_control": lambda: None,
    "_solver": lambda: None,
    "_collision_pipeline": lambda: None,
    "_contacts": lambda: None,
    "_observables": lambda: None,
    "_graph": lambda: None,
    "_graph_enabled": lambda: False,
    "_eager_reason": lambda: None,
    "_eager_reason_logged": lambda: False,
    "_staged_body_f": lambda: None,
    "_staged_particle_f": lambda: None,
    "_post_actuator_callbacks": list,
    "_post_step_callbacks": list,
    "_host_callbacks": list,
    "_model_changes": set,
    "_sim_time": lambda: 0.0,
    "_step_count": lambda: 0,
    "_is_playing": lambda: True,
    "_world_reset_mask": lambda: None,
    "_fk_pending": lambda: False,
    "_views": list,
    "_simulation_started": lambda: False,
    "_solver_initialized": lambda: False,
    "_row_world": dict,
    "_solver_info": dict,
    "_site_requests": dict,
    "_imu_sensors": list,
    "_contact_sensors": dict,
    "_frame_transform_sensors": list,
    "_legacy_kinds": set,
    "_obs_full": lambda: None,
    "_obs_per_substep": lambda: None,
    "_step_average": lambda: None,
    "_observables_allocations": lambda: 0,
    "_usd_stage": lambda: None,
    "_usd_body_paths": lambda: None,
    "_particle_prims": list,
    "_render_frame": lambda: 0,
}


class NewtonManager(SensorMethods, UsdMethods):
    """Class-level singleton that owns the Newton model, states, solver and stepping loop.

    All state lives in class slots; call the class methods directly. See the module
    documentation for the life cycle. Subclasses specialize :meth:`_build_solver`.
    """

    # Callback registry survives ``clear()`` (``close()``/``clear_callbacks()`` empty it);
    # the id counter is never reset so stale handles can never remove a newer callback.
    _callbacks: ClassVar[dict[PhysicsEvent, list]] = _empty_callbacks()
    _callback_id: ClassVar[int] = 0

    # ------------------------------------------------------------------ slots
    @classmethod
    def _slot_names(cls) -> list[str]:
        return list(_SLOT_DEFAULTS)

    @classmethod
    def _snapshot(cls) -> dict[str, Any]:
        """Shallow copy of every slot value (containers copied one level), plus the mutable
        fields of the sensor records (their Newton sensor is created during initialization)."""
        snap = {}
        for name in cls._slot_names():
            value = getattr(cls, name)
            if isinstance(value, (list, set, dict)):
                value = type(value)(value)
            snap[name] = value
        records = (*cls._imu_sensors, *cls._contact_sensors.values(), *cls._frame_transform_sensors)
        snap["__sensor_records__"] = [(r, r.sensor, r.update_args, r.entry) for r in records]
        return snap

    @classmethod
    def _restore(cls, snapshot: dict[str, Any]) -> None:
        for record, sensor, update_args, entry in snapshot.get("__sensor_records__", ()):
            record.sensor, record.update_args, record.entry = sensor, update_args, entry
        for name, value in snapshot.items():
            if name == "__sensor_records__":
                continue
            setattr(NewtonManager, name, value)
            if name in cls.__dict__ and cls is not NewtonManager:
                delattr(cls, name)

    @classmethod
    @contextlib.contextmanager
    def _transaction(cls):
        snapshot = cls._snapshot()
        try:
            yield
        except BaseException:
            cls._restore(snapshot)
            raise

    @classmethod
    def _set(cls, **values: Any) -> None:
        """Publish slot values on the base class so every subclass view agrees."""
        for name, value in values.items():
            if name not in _SLOT_DEFAULTS:
                raise AttributeError(f"NewtonManager has no slot {name!r}")
            setattr(NewtonManager, name, value)

    # ------------------------------------------------------------------ life cycle
    @classmethod
    def initialize(cls, sim_context: SimulationContext) -> None:
        """Bind the manager to *sim_context* (its config, device and dt). Clears any previous simulation."""
        physics = sim_context.cfg.physics
        physics.validate()
        if cls._simulation_started:
            cls.clear()
        cls._set(
            _sim_context=sim_context,
            _cfg=physics,
            _device=sim_context.device,
            _dt=float(sim_context.cfg.dt),
            _num_substeps=int(physics.num_substeps),
            _collision_interval=int(physics.collision_interval),
        )

    @classmethod
    def _require(cls, condition: bool, message: str) -> None:
        if not condition:
            raise RuntimeError(f"{cls.__name__}: {message}")

    @classmethod
    def _solver_cfg(cls) -> NewtonSolverCfg:
        cls._require(cls._cfg is not None, "initialize(sim_context) has not been called")
        return cls._cfg.solver_cfg

    @classmethod
    def _solver_cfgs(cls) -> list[NewtonSolverCfg]:
        """Every Newton solver config the simulation builds (one, or one per coupled entry)."""
        return [cls._solver_cfg()]

    @classmethod
    def create_builder(cls, up_axis: str | None = None, **kwargs: Any) -> newton.ModelBuilder:
        """Return a ``newton.ModelBuilder`` with the solvers' custom attributes registered.

        Args:
            up_axis: ``"X"``, ``"Y"`` or ``"Z"``; defaults to the manager's up axis (``"Z"``).
            **kwargs: Forwarded to ``newton.ModelBuilder``.
        """
        import newton

        builder = newton.ModelBuilder(up_axis=up_axis or cls._up_axis, **kwargs)
        if cls._cfg is not None:
            for solver_cfg in cls._solver_cfgs():
                solver_cfg.register_builder_attributes(builder)
        return builder

    @classmethod
    def set_builder(cls, builder: newton.ModelBuilder) -> None:
        """Set the builder finalized by :meth:`start_simulation`."""
        import newton

        if not isinstance(builder, newton.ModelBuilder):
            raise TypeError(f"set_builder expects a newton.ModelBuilder, got {type(builder).__name__}")
        cls._set(_builder=builder)

    @classmethod
    def get_builder(cls) -> newton.ModelBuilder | None:
        """The builder set for the next :meth:`start_simulation`, if any."""
        return cls._builder

    @classmethod
    def _model_cfg(cls):
        if cls._cfg.model_cfg is not None:
            return cls._cfg.model_cfg
        solver_cfg = cls._solver_cfg()
        return solver_cfg.model_cfg if isinstance(solver_cfg, NewtonModelSolverCfg) else None

    @classmethod
    def start_simulation(cls) -> None:
        """Dispatch ``MODEL_INIT``, finalize the builder and allocate states and control.

        Raises:
            RuntimeError: No builder was set (neither before nor by a ``MODEL_INIT`` callback).
        """
        import newton

        cls._require(cls._cfg is not None, "initialize(sim_context) has not been called")
        with cls._transaction():
            cls.dispatch_event(PhysicsEvent.MODEL_INIT, cls)
            builder = cls._builder
            cls._require(
                builder is not None,
                "no model builder: call set_builder(builder) or fill one in a MODEL_INIT callback before reset()",
            )
            cls._inject_sites(builder)
            for solver_cfg in cls._solver_cfgs():
                solver_cfg.prepare_builder_for_finalize(builder)
            model = builder.finalize(device=cls._device)
            model_cfg = cls._model_cfg()
            if model_cfg is not None:
                model_cfg.apply(model)
            state_0, state_1 = model.state(), model.state()
            newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
            state_1.assign(state_0)
            initial = model.state()
            initial.assign(state_0)
            staged_body = wp.zeros_like(state_0.body_f) if state_0.body_f is not None else None
            staged_particle = wp.zeros_like(state_0.particle_f) if state_0.particle_f is not None else None
            cls._set(
                _model=model,
                _state_0=state_0,
                _state_1=state_1,
                _initial_state=initial,
                _control=model.control(),
                _staged_body_f=staged_body,
                _staged_particle_f=staged_particle,
                _world_reset_mask=wp.zeros(model.world_count + 1, dtype=wp.bool, device=model.device),
                _fk_pending=False,
                _row_world=cls._build_row_world(model),
                _simulation_started=True,
                _sim_time=0.0,
                _step_count=0,
            )

    @staticmethod
    def _build_row_world(model: newton.Model) -> dict[str, Any]:
        """World id of every row of the resettable state arrays (-1: global); ``"joint"`` is a host array."""
        rows: dict[str, Any] = {}
        if model.joint_count:
            rows["joint"] = model.joint_world.numpy().astype(np.int64)
        if model.body_count:
            rows["body"] = model.body_world
        if model.particle_count:
            rows["particle"] = model.particle_world
        for name, count, starts in (
            ("joint_coord", model.joint_coord_count, model.joint_coord_world_start),
            ("joint_dof", model.joint_dof_count, model.joint_dof_world_start),
        ):
            if count:
                host = np.full(int(count), -1, dtype=np.int32)
                s = starts.numpy()
                for world in range(model.world_count):
                    host[int(s[world]) : int(s[world + 1])] = world
                rows[name] = wp.array(host, dtype=wp.int32, device=model.device)
        return rows

    @classmethod
    def _build_solver(cls) -> newton.solvers.SolverBase:
        """Construct the solver for the finalized model (overridden by solver-specific managers)."""
        solver_cfg = cls._solver_cfg()
        if not type(solver_cfg).solver_class_path:
            raise TypeError(
                f"{cls.__name__}: {type(solver_cfg).__name__} names no Newton solver; use a concrete solver config "
                "or a coupler config with its manager (class_type)."
            )
        return solver_cfg.build_solver(cls._model)

    @classmethod
    def _needs_collision_pipeline(cls) -> bool:
        return any(cfg.uses_collision_pipeline for cfg in cls._solver_cfgs())

    @classmethod
    def _prepare_solver_contacts(cls, solver, contacts) -> None:
        """Hook: let the solver allocate contact-dependent buffers before capture."""
        del solver, contacts

    @classmethod
    def _graph_blockers(cls) -> list[str]:
        """Reasons the step program cannot be captured (empty when it can)."""
        reasons = []
        if not cls._cfg.use_cuda_graph:
            reasons.append("NewtonCfg.use_cuda_graph is False")
        if cls._host_callbacks:
            names = ", ".join(getattr(cb, "__qualname__", repr(cb)) for cb in cls._host_callbacks)
            reasons.append(f"host (not graph-safe) callbacks are registered: {names}")
        for solver_cfg in cls._solver_cfgs():
            if getattr(solver_cfg, "graph_capturable", True) is False:
                reasons.append(f"{type(solver_cfg).__name__} is not graph-capturable (an unbounded MPM grid)")
            if getattr(solver_cfg, "use_mujoco_cpu", False):
                reasons.append(f"{type(solver_cfg).__name__}.use_mujoco_cpu=True runs on the host")
        return reasons

    @classmethod
    def initialize_solver(cls) -> None:
        """Build the solver and contacts, warm up once, and capture the step program when possible."""
        cls._require(cls._simulation_started, "start_simulation() must run before initialize_solver()")
        with cls._transaction():
            solver = cls._build_solver()
            pipeline = contacts = None
            if cls._needs_collision_pipeline():
                pipeline = cls._cfg.collision_cfg.build(cls._model)
                contacts = pipeline.contacts()
            cls._prepare_solver_contacts(solver, contacts)
            cls._set(_solver=solver, _collision_pipeline=pipeline, _contacts=contacts, _graph=None)
            cls._setup_observables()
            cls._warm_up()
            cls._capture()
            cls._set(_solver_initialized=True)
        cls.dispatch_event(PhysicsEvent.PHYSICS_READY, cls)

    @classmethod
    def _warm_up(cls) -> None:
        """Run the step program once eagerly (compiles kernels, fills lazy buffers), then rewind.

        States are restored and the solver fully reset, in graph and eager mode alike, so both
        continue from identical conditions.
        """
        saved_0 = cls._model.state()
        saved_0.assign(cls._state_0)
        cls._run_program()
        cls._state_0.assign(saved_0)
        cls._state_1.assign(saved_0)
        cls._solver.reset(cls._state_0)
        wp.synchronize_device(cls._device)

    @classmethod
    def _capture(cls) -> None:
        blockers = cls._graph_blockers()
        graph = None
        if not blockers:
            try:
                with wp.ScopedCapture(device=cls._device) as capture:
                    cls._run_program()
                graph = capture.graph
            except Exception as err:
                blockers = [f"graph capture failed on {cls._device}: {type(err).__name__}: {err}"]
                graph = None
        reason = "; ".join(blockers) if blockers else None
        cls._set(_graph=graph, _graph_enabled=graph is not None, _eager_reason=reason, _eager_reason_logged=False)
        if reason is not None:
            logger.info("%s steps eagerly: %s", cls.__name__, reason)
            cls._set(_eager_reason_logged=True)

    @classmethod
    def is_graph_captured(cls) -> bool:
        """Whether ``step()`` replays a captured graph."""
        return cls._graph is not None

    @classmethod
    def eager_reason(cls) -> str | None:
        """Why ``step()`` runs eagerly (``None`` when a graph is captured)."""
        return cls._eager_reason

    # ------------------------------------------------------------------ the step program
    @classmethod
    def _apply_staged_forces(cls, state) -> None:
        if state.body_f is not None:
            wp.copy(state.body_f, cls._staged_body_f)
        if state.particle_f is not None:
            wp.copy(state.particle_f, cls._staged_particle_f)

    @classmethod
    def _solver_step(cls, state_in, state_out, dt: float, last: bool) -> None:
        observables = cls._obs_full if last else cls._obs_per_substep
        if observables is None:
            cls._solver.step(state_in, state_out, cls._control, cls._contacts, dt)
        else:
            cls._solver.step(state_in, state_out, cls._control, cls._contacts, dt, observables=observables)
        if cls._step_average is not None:
            cls._step_average.update(state_in, state_out, dt)

    @classmethod
    def _update_sensors(cls) -> None:
        """Update every sensor from the current state and the observables (runs inside the graph)."""
        for record in (*cls._imu_sensors, *cls._contact_sensors.values(), *cls._frame_transform_sensors):
            if record.sensor is None:
                continue
            args = record.update_args
            if record.kind == "imu":
                record.sensor.update(cls._state_0, observables=args["observables"])
            elif record.kind == "contact":
                record.sensor.update(args["state"], args["contacts"], observables=args["observables"])
            else:
                record.sensor.update(cls._state_0)

    @classmethod
    def _run_program(cls) -> None:
        """``decimation`` x (callbacks, forces, collision, substeps), post-step callbacks, sensors.

        The current state always ends in ``_state_0``: with an odd number of solver steps the
        last output is copied back, so the graph replays from the same buffers every time.
        """
        state_in, state_out = cls._state_0, cls._state_1
        solver_dt = cls._dt / cls._num_substeps
        for i in range(cls._decimation):
            for callback in cls._post_actuator_callbacks:
                callback()
            if cls._contacts is not None and i % cls._collision_interval == 0:
                cls._collision_pipeline.collide(state_in, cls._contacts)
            for k in range(cls._num_substeps):
                cls._apply_staged_forces(state_in)
                last = i == cls._decimation - 1 and k == cls._num_substeps - 1
                cls._solver_step(state_in, state_out, solver_dt, last)
                state_in, state_out = state_out, state_in
        if state_in is not cls._state_0:
            cls._state_0.assign(state_in)
        for callback in cls._post_step_callbacks:
            callback()
        cls._update_sensors()

    @classmethod
    def step(cls) -> None:
        """Advance one env step: ``decimation`` physics steps of ``num_substeps`` solver steps each.

        Pending resets and FK (``invalidate_fk``) are applied first, outside the graph. A no-op while paused.
        """
        cls._require(cls._solver_initialized, "initialize_solver() (or sim.reset()) must run before step()")
        if not cls._is_playing:
            return
        cls._apply_pending_resets()
        cls._notify_model_changes()
        if cls._graph is not None:
            wp.capture_launch(cls._graph)
        else:
            cls._run_program()
        cls._set(_sim_time=cls._sim_time + cls._decimation * cls._dt, _step_count=cls._step_count + 1)

    @classmethod
    def handles_decimation(cls) -> bool:
        """True: ``step()`` runs the whole decimation loop (callbacks are part of the program)."""
        return True

    @classmethod
    def set_decimation(cls, decimation: int) -> None:
        """Set the physics steps per ``step()`` and re-capture the graph if one is in use."""
        if isinstance(decimation, bool) or not isinstance(decimation, (int, np.integer)):
            raise TypeError(
                f"{cls.__name__}.set_decimation: decimation must be an integer, got {type(decimation).__name__}"
            )
        if decimation < 1:
            raise ValueError(f"{cls.__name__}.set_decimation: decimation must be >= 1, got {decimation}")
        cls._set(_decimation=int(decimation))
        if cls._solver_initialized:
            cls._capture()

    @classmethod
    def get_decimation(cls) -> int:
        """Physics steps per ``step()``."""
        return cls._decimation

    # ------------------------------------------------------------------ callbacks in the program
    @classmethod
    def register_post_actuator_callback(cls, callback: Callable[[], None], *, graph_safe: bool = True) -> None:
        """Run *callback* at the start of every physics step of the decimation loop.

        Args:
            callback: Launches Warp work on the manager's device (writes to control or state).
            graph_safe: ``False`` for callbacks that do host work (reading ``.numpy()``, Python
                branching on device data); the manager then steps eagerly and logs why.
        """
        cls._add_program_callback("_post_actuator_callbacks", callback, graph_safe)

    @classmethod
    def register_post_step_callback(cls, callback: Callable[[], None], *, graph_safe: bool = True) -> None:
        """Run *callback* after the last solver substep of every ``step()``, before sensors."""
        cls._add_program_callback("_post_step_callbacks", callback, graph_safe)

    @classmethod
    def unregister_post_step_callback(cls, callback: Callable[[], None]) -> None:
        """Remove a post-step callback; removing an unknown one is a no-op."""
        callbacks = [cb for cb in cls._post_step_callbacks if cb != callback]
        hosts = [cb for cb in cls._host_callbacks if cb != callback]
        if len(callbacks) != len(cls._post_step_callbacks):
            cls._set(_post_step_callbacks=callbacks, _host_callbacks=hosts)
            cls._recapture_if_ready()

    @classmethod
    def _add_program_callback(cls, slot: str, callback: Callable[[], None], graph_safe: bool) -> None:
        if not callable(callback):
            raise TypeError(f"{cls.__name__}: callback must be callable, got {type(callback).__name__}")
        cls._set(**{slot: [*getattr(cls, slot), callback]})
        if not graph_safe:
            cls._set(_host_callbacks=[*cls._host_callbacks, callback])
        cls._recapture_if_ready()

    @classmethod
    def _recapture_if_ready(cls) -> None:
        if cls._solver_initialized:
            cls._capture()

    # ------------------------------------------------------------------ resets and kinematics
    @classmethod
    def _world_mask_from(cls, env_mask=None, env_ids=None) -> wp.array:
        world_count = cls._model.world_count
        mask = np.zeros(world_count + 1, dtype=bool)
        if env_mask is not None:
            host = env_mask.numpy() if isinstance(env_mask, wp.array) else np.asarray(_to_numpy(env_mask))
            host = host.astype(bool).reshape(-1)
            if host.shape[0] != world_count:
                raise ValueError(f"env_mask has {host.shape[0]} entries; the model has {world_count} worlds")
            mask[:world_count] |= host
        if env_ids is not None:
            ids = env_ids.numpy() if isinstance(env_ids, wp.array) else np.asarray(_to_numpy(env_ids))
            ids = ids.astype(np.int64).reshape(-1)
            if ids.size and (ids.min() < 0 or ids.max() >= world_count):
                raise ValueError(f"env_ids must lie in [0, {world_count}), got {ids.tolist()}")
            mask[ids] = True
        if env_mask is None and env_ids is None:
            mask[:] = True
        return mask

    @classmethod
    def invalidate_fk(cls, env_mask=None, env_ids=None, articulation_ids=None) -> None:
        """Mark worlds whose joint coordinates or root poses were written as needing FK and a solver reset.

        Args:
            env_mask: Boolean mask over worlds, shape ``(num_envs,)`` (Warp array, torch tensor or numpy).
            env_ids: World indices (Warp array, torch tensor, numpy or list).
            articulation_ids: Accepted for API compatibility; FK runs on whole worlds.

        With neither mask nor ids every world is marked. Consumed by the next ``forward()``,
        ``get_state()`` or ``step()``.
        """
        del articulation_ids
        cls._require(cls._simulation_started, "start_simulation() must run before invalidate_fk()")
        cls._mark_worlds(cls._world_mask_from(env_mask, env_ids))

    @classmethod
    def _mark_worlds(cls, mask: np.ndarray) -> None:
        """OR a ``(world_count + 1,)`` host mask (last entry: global entities) into the pending reset mask."""
        current = cls._world_reset_mask.numpy() | mask
        cls._world_reset_mask.assign(current)
        cls._set(_fk_pending=bool(current.any()))

    @classmethod
    def _apply_pending_resets(cls) -> None:
        import newton

        if not cls._fk_pending:
            return
        mask = cls._world_reset_mask
        host = mask.numpy()
        if cls._model.joint_count:
            joint_world = cls._row_world["joint"]
            joint_mask = wp.array(host[joint_world], dtype=wp.bool, device=cls._device)  # world -1 -> last entry
            newton.eval_fk(cls._model, cls._state_0.joint_q, cls._state_0.joint_qd, cls._state_0, joint_mask=joint_mask)
        if cls._solver is not None:
            cls._solver.reset(cls._state_0, world_mask=mask)
        mask.zero_()
        cls._set(_fk_pending=False)

    @classmethod
    def forward(cls) -> None:
        """Apply pending FK and solver resets of invalidated worlds without stepping."""
        cls._apply_pending_resets()

    @classmethod
    def write_initial_state(cls, env_mask=None, env_ids=None) -> None:
        """Copy the state at simulation start into the selected worlds of the current state.

        Bodies, joints and particles of those worlds get their initial positions and velocities
        back; the worlds are then invalidated so the next step runs FK and a masked solver reset.
        Other worlds are not touched.
        """
        cls._require(cls._simulation_started, "start_simulation() must run before write_initial_state()")
        mask = cls._world_mask_from(env_mask, env_ids)
        world_mask = wp.array(mask, dtype=wp.bool, device=cls._device)
        pairs = (
            ("body", ("body_q", "body_qd")),
            ("particle", ("particle_q", "particle_qd")),
            ("joint_coord", ("joint_q",)),
            ("joint_dof", ("joint_qd",)),
        )
        for rows, names in pairs:
            row_world = cls._row_world.get(rows)
            if row_world is None:
                continue
            for name in names:
                src, dst = getattr(cls._initial_state, name), getattr(cls._state_0, name)
                if src is None or dst is None or src.shape[0] == 0:
                    continue
                wp.launch(
                    _copy_rows_by_world_kernel,
                    dim=src.shape[0],
                    inputs=[src, row_world, world_mask],
                    outputs=[dst],
                    device=cls._device,
                )
        cls._mark_worlds(mask)

    @classmethod
    def reset(cls, soft: bool = False) -> None:
        """Reset the simulation.

        The first call starts the simulation and initializes the solver (what ``sim.reset()``
        does). Later calls put every world back to its initial state; ``soft=False`` also
        rebuilds the solver, contacts and graph. Transactional: a failure restores every slot.
        """
        with cls._transaction():
            if not cls._simulation_started:
                cls.start_simulation()
                cls.initialize_solver()
                return
            if not soft or not cls._solver_initialized:
                cls.write_initial_state()
                cls._apply_pending_resets()
                cls.initialize_solver()
            else:
                cls.write_initial_state()
                cls._apply_pending_resets()
            cls._set(_sim_time=0.0, _step_count=0)

    @classmethod
    def add_model_change(cls, change: int) -> None:
        """Register a ``newton.ModelFlags`` change; the solver is notified before the next step."""
        cls._set(_model_changes={*cls._model_changes, int(change)})

    @classmethod
    def _notify_model_changes(cls) -> None:
        if not cls._model_changes or cls._solver is None:
            return
        flags = 0
        for change in cls._model_changes:
            flags |= change
        cls._solver.notify_model_changed(flags)
        cls._set(_model_changes=set())

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
        """Return every slot to its pristine value (the event callbacks are kept; see :meth:`close`)."""
        for name, factory in _SLOT_DEFAULTS.items():
            setattr(NewtonManager, name, factory())
            if name in cls.__dict__ and cls is not NewtonManager:
                delattr(cls, name)

    @classmethod
    def close(cls) -> None:
        """Dispatch ``STOP``, then clear the callbacks and every slot."""
        if cls._simulation_started:
            cls.dispatch_event(PhysicsEvent.STOP, cls)
        cls.clear_callbacks()
        cls.clear()

    # ------------------------------------------------------------------ timeline (kitless)
    @classmethod
    def play(cls) -> None:
        """Resume stepping (there is no Kit timeline; this only gates ``step()``)."""
        cls._set(_is_playing=True)

    @classmethod
    def pause(cls) -> None:
        """Pause: ``step()`` becomes a no-op until :meth:`play`."""
        cls._set(_is_playing=False)

    @classmethod
    def stop(cls) -> None:
        """Dispatch ``STOP`` and pause."""
        cls.dispatch_event(PhysicsEvent.STOP, cls)
        cls.pause()

    @classmethod
    def wait_for_playing(cls) -> None:
        """Return when playing. Kitless there is nothing to wait for: raises if paused instead of blocking forever."""
        if not cls._is_playing:
            raise RuntimeError(f"{cls.__name__} is paused and no timeline can resume it; call play()")

    @classmethod
    def is_playing(cls) -> bool:
        """Whether ``step()`` advances the simulation."""
        return cls._is_playing

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
        return cls._views

    # ------------------------------------------------------------------ accessors
    @classmethod
    def get_model(cls) -> newton.Model:
        """The finalized Newton model."""
        return cls._model

    @classmethod
    def get_state_0(cls) -> newton.State:
        """The current state (always holds the latest step's result)."""
        return cls._state_0

    @classmethod
    def get_state_1(cls) -> newton.State:
        """The scratch state the solver writes into."""
        return cls._state_1

    @classmethod
    def get_state(cls, scene_data_provider: Any = None) -> newton.State:
        """The current state with pending FK applied (for visualization and raw-state reads)."""
        del scene_data_provider
        cls._apply_pending_resets()
        return cls._state_0

    @classmethod
    def get_control(cls) -> newton.Control:
        """The control the solver reads."""
        return cls._control

    @classmethod
    def get_contacts(cls) -> newton.Contacts | None:
        """The collision pipeline's contact buffer, or ``None`` when the solver takes no pipeline contacts."""
        return cls._contacts

    @classmethod
    def get_solver(cls) -> newton.solvers.SolverBase | None:
        """The Newton solver."""
        return cls._solver

    @classmethod
    def get_collision_pipeline(cls) -> newton.CollisionPipeline | None:
        """The collision pipeline, if any."""
        return cls._collision_pipeline

    @classmethod
    def get_device(cls) -> str:
        """The Warp device."""
        return cls._device

    @classmethod
    def get_physics_dt(cls) -> float:
        """Physics step [s]."""
        return cls._dt

    @classmethod
    def get_dt(cls) -> float:
        """Alias of :meth:`get_physics_dt` [s]."""
        return cls.get_physics_dt()

    @classmethod
    def get_num_substeps(cls) -> int:
        """Solver substeps per physics step."""
        return cls._num_substeps

    @classmethod
    def get_solver_dt(cls) -> float:
        """Solver substep [s]."""
        return cls._dt / cls._num_substeps

    @classmethod
    def get_simulation_time(cls) -> float:
        """Simulated time since the start or the last full reset [s]."""
        return cls._sim_time

    @classmethod
    def get_staged_body_f(cls) -> wp.array | None:
        """External body wrenches applied on every solver substep (write into it; it persists)."""
        return cls._staged_body_f

    @classmethod
    def get_staged_particle_f(cls) -> wp.array | None:
        """External particle forces applied on every solver substep [N]."""
        return cls._staged_particle_f

    @classmethod
    def get_scene_data_provider(cls) -> None:
        """Not applicable kitless: there is no SceneDataProvider. Returns ``None``."""
        return None

    @classmethod
    def get_scene_data_backend(cls) -> None:
        """Not applicable kitless. Returns ``None``."""
        return None

    @classmethod
    def torch_view(cls, name: str, state: str = "state_0"):
        """Zero-copy torch tensor of a state array (e.g. ``"body_q"``), shaped by the Warp array."""
        import torch  # noqa: F401

        source = {"state_0": cls._state_0, "state_1": cls._state_1, "control": cls._control}[state]
        array = getattr(source, name)
        if array is None:
            raise ValueError(f"{state}.{name} is not allocated")
        return wp.to_torch(array)


def _to_numpy(value: Any) -> Any:
    """Host numpy copy of a torch tensor, list or array."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):
        return value.detach().cpu().numpy()
    return value


for _name, _factory in _SLOT_DEFAULTS.items():
    setattr(NewtonManager, _name, _factory())
del _name, _factory
