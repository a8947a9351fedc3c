"""One simulation instance: everything that lives between ``sim.reset()`` and ``close()``.

A :class:`SimulationInstance` is built completely from a frozen
:class:`~.build_request.BuildRequest` (the configs and what was registered on the manager) and a
builder, and only then swapped in by the manager front ("build new, swap"): a failure while
building leaves the previous instance, and everything the user passed in, as it was. The user's
builder is copied before sites are injected and solvers prepare it, so nothing is written into
it. The instance never reads the session: every re-compilation gets a new request.

The instance holds the model, the states and control, the bound solver and its collision
pipeline and contacts, the sensors and the observables container, the compiled
:class:`~.step_program.StepProgram` and the pending world resets. Its *solver part* (bound solver,
contacts, sensors, observables, program) can be rebuilt on the same model by a full ``reset()``,
again transactionally.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import warp as wp

from isaaclab_contrib.physics.actuators.adapter import NewtonActuatorAdapter
from isaaclab_contrib.physics.runtime.step_program import Phase, Stage, StepProgram
from isaaclab_contrib.physics.runtime.world_selection import world_mask_from
from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRuntime, SensorSources
from isaaclab_contrib.physics.sensors.observables import (
    BODY_QDD,
    PER_SUBSTEP_KINDS,
    REQUESTED_OBSERVABLES,
    StepAverageObservables,
)
from isaaclab_contrib.utils.labels import LabelSelector

if TYPE_CHECKING:
    import newton

    from isaaclab_contrib.physics.runtime.build_request import BuildRequest
    from isaaclab_contrib.physics.solvers.binding import BoundSolver

__all__ = ["SimulationInstance", "SolverPart"]

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


@dataclass
class SolverPart:
    """What a full ``reset()`` rebuilds on the same model."""

    bound: BoundSolver
    """The build's bound solver: the only solver API the runtime calls."""
    pipeline: Any
    contacts: Any
    sensors: dict[int, SensorRuntime]
    """``id(request)`` -> runtime, for every sensor request of the build."""
    obs_full: Any = None
    obs_per_substep: Any = None
    step_average: StepAverageObservables | None = None
    program: StepProgram | None = None


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


def _forward_legacy_requests(builder: newton.ModelBuilder, request: BuildRequest) -> None:
    """Request the legacy extended attributes on the (copied) builder before finalization, as the spec says,
    so every ``model.state()`` and the pipeline's contacts allocate them."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the manager already warned the caller
        if request.legacy_state_attributes:
            builder.request_state_attributes(*sorted(request.legacy_state_attributes))
        if request.legacy_contact_attributes:
            builder.request_contact_attributes(*sorted(request.legacy_contact_attributes))


def _inject_sites(builder: newton.ModelBuilder, site_requests: tuple) -> None:
    """Add the body-attached and global site requests; check that per-world ones reached every world."""
    bodies_by_label = LabelSelector(builder.body_label, "body")
    for (pattern, per_world, xform), suffix in site_requests:
        if per_world:
            copies = sum(
                1
                for label, body in zip(builder.shape_label, builder.shape_body, strict=True)
                if body == -1 and label and label.endswith(f"/{suffix}")
            )
            if builder.world_count == 0 or copies != builder.world_count:
                raise ValueError(
                    f"cl_register_site(per_world=True) site {suffix!r} reached {copies} of {builder.world_count} "
                    "worlds: register it before the envs are replicated, and pass it to the replication "
                    "(isaaclab_contrib.scenes.launch() passes NewtonManager.cl_world_sites() to replicate_envs, which "
                    "adds them to the prototype)"
                )
            continue
        transform = wp.transform(xform[:3], xform[3:])
        if pattern is None:
            builder.add_site(-1, xform=transform, label=suffix)
            continue
        for body in bodies_by_label.require(pattern, "cl_register_site: body_pattern", scope="tail").tolist():
            builder.add_site(body, xform=transform, label=f"{builder.body_label[body]}/{suffix}")


class SimulationInstance:
    """The running simulation built from a :class:`~.build_request.BuildRequest`; see the module documentation."""

    def __init__(self, request: BuildRequest, builder: newton.ModelBuilder):
        """Finalize a copy of *builder* and allocate states and control (no solver yet; see :meth:`build_solver_part`)."""
        import newton

        self.request = request
        """The request of the last build or re-compilation."""
        self.device = request.device
        self.busy = False
        """True while the step program runs, is recorded or is built (program changes then wait for the end)."""
        work = copy.deepcopy(builder)  # sites and solver preparation never touch the user's builder
        _inject_sites(work, request.site_requests)
        request.binding.prepare_builder(request.solver_cfg, work)
        _forward_legacy_requests(work, request)
        model = work.finalize(device=self.device)
        if request.model_cfg is not None:
            request.model_cfg.apply(model)
        self.model = model
        self.state_0, self.state_1 = model.state(), model.state()
        newton.eval_fk(model, model.joint_q, model.joint_qd, self.state_0)
        self.state_1.assign(self.state_0)
        self.initial_state = model.state()
        self.initial_state.assign(self.state_0)
        self.control = model.control()
        self.staged_body_f = wp.zeros_like(self.state_0.body_f) if self.state_0.body_f is not None else None
        self.staged_particle_f = wp.zeros_like(self.state_0.particle_f) if self.state_0.particle_f is not None else None
        self.world_reset_mask = wp.zeros(model.world_count + 1, dtype=wp.bool, device=model.device)
        self.fk_pending = False
        self.row_world = _build_row_world(model)
        self.sim_time = 0.0
        self.step_count = 0
        self.observables_allocations = 0
        """How many times an observables container was allocated on this instance."""
        self.part: SolverPart | None = None
        self.actuators: NewtonActuatorAdapter | None = None
        if model.actuators or request.actuators_active:
            self.activate_actuators()
        self.usd_body_paths: list[str | None] | None = None
        self.render_frame = 0

    def activate_actuators(self) -> bool:
        """Build the one actuator adapter over the model's actuators (idempotent); True when it was built now."""
        if self.actuators is not None:
            return False
        self.actuators = NewtonActuatorAdapter(self.model)
        return True

    def _busy(self):
        """Context manager marking the instance busy (restores the previous value)."""
        instance = self

        class _Busy:
            def __enter__(self):
                self.previous, instance.busy = instance.busy, True

            def __exit__(self, *exc):
                instance.busy = self.previous

        return _Busy()

    # ------------------------------------------------------------------ construction
    def build_solver_part(self, request: BuildRequest) -> SolverPart:
        """Build the bound solver, collision pipeline, contacts, sensors, observables and the captured program.

        The caller swaps the result in; the current states are left bitwise as they were (the warm-up
        runs on them and restores them) and the actuator states are cleared (as after a reset).
        """
        bound = request.binding.bind(request.solver_cfg, self.model)
        if self.actuators is not None and self.actuators.count:
            bound.check_actuated_joints(self.actuators.actuated_joints(), request.manager_name)
        pipeline = contacts = None
        if bound.needs_collision_pipeline:
            pipeline = request.collision_cfg.build(self.model)
            contacts = pipeline.contacts()
        bound.prepare_contacts(contacts)
        part = SolverPart(bound=bound, pipeline=pipeline, contacts=contacts, sensors={})
        self._setup_observables(part, request)
        part.program = self._compile(part, request)
        with self._busy():
            self._warm_up(part)
            _capture(part)
        self.request = request
        return part

    # ------------------------------------------------------------------ sensors and observables
    def _setup_observables(self, part: SolverPart, request: BuildRequest) -> None:
        """Create every sensor, allocate the union of observables once and connect every sensor to its sources.

        The union holds the kinds the sensors consume, the kinds mapped from legacy
        ``request_extended_*`` requests and the kinds requested with ``request_observables()``; the
        latter always come from the solver (also ``body_qdd`` with ``body_qdd_source="step_average"``,
        which serves the IMUs). Legacy extended attributes were requested on the builder before
        finalization (:func:`_forward_legacy_requests`), so the states and contacts already carry them.
        """
        build = SensorBuild(model=self.model, bound=part.bound, contacts=part.contacts)
        for sensor in request.sensors:
            try:
                part.sensors[id(sensor)] = sensor.create(build)
            except Exception as err:
                raise type(err)(f"{request.manager_name}: creating {sensor.name} failed: {err}") from err
        by_sensor = request.sensor_kinds()
        union = frozenset().union(*by_sensor.values()) if by_sensor else frozenset()
        requested = request.observable_requests
        if requested:
            part.bound.check_requested(requested, request.manager_name)
            by_sensor[REQUESTED_OBSERVABLES] = requested
        step_average = (
            StepAverageObservables(self.model)
            if BODY_QDD in union and request.body_qdd_source == "step_average"
            else None
        )
        solver_kinds = (union - ({BODY_QDD} if step_average is not None else set())) | requested
        contact_entries = {
            sensor.name: part.sensors[id(sensor)].entry
            for sensor in request.sensors
            if part.sensors[id(sensor)].entry is not None
        }
        full = (
            part.bound.allocate_observables(
                solver_kinds, by_sensor, part.contacts, request.manager_name, contact_entries=contact_entries
            )
            if solver_kinds
            else None
        )
        per_substep = full.select(solver_kinds & PER_SUBSTEP_KINDS) if full is not None else None
        if per_substep is not None and not per_substep.kinds:
            per_substep = None
        sources = SensorSources(
            bound=part.bound, state=self.state_0, contacts=part.contacts, observables=full, step_average=step_average
        )
        for runtime in part.sensors.values():
            runtime.connect(sources)
        part.obs_full, part.obs_per_substep, part.step_average = full, per_substep, step_average
        self.observables_allocations += 1 if (full is not None or step_average is not None) else 0

    # ------------------------------------------------------------------ the step program
    def _compile(self, part: SolverPart, request: BuildRequest) -> StepProgram:
        stages: list[Stage] = []
        adapter = self.actuators
        dt = request.dt
        if adapter is not None and adapter.count:
            blockers = adapter.not_graph_safe()
            stages.append(
                Stage(
                    "actuators",
                    Phase.PHYSICS_STEP,
                    lambda i: adapter.step(self.state_0, self.control, dt),
                    graph_safe=not blockers,
                    reason=("not graph-safe: " + ", ".join(blockers)) if blockers else None,
                )
            )
        for callback, graph_safe in request.post_actuator_callbacks:
            stages.append(_callback_stage("post_actuator", callback, graph_safe, Phase.PHYSICS_STEP))
        if part.contacts is not None:
            interval = request.collision_interval
            stages.append(
                Stage(
                    "collide",
                    Phase.PHYSICS_STEP,
                    lambda i, p=part: p.pipeline.collide(self.state_0, p.contacts),
                    when=lambda i: i % interval == 0,
                )
            )
        solver_blockers = part.bound.graph_blockers(self.device, request.decimation * request.num_substeps)
        last_step = request.decimation - 1
        substeps = request.num_substeps
        stages.append(
            Stage(
                "substeps",
                Phase.PHYSICS_STEP,
                lambda i, p=part: self._substeps(p, substeps, dt, last=i == last_step),
                graph_safe=not solver_blockers,
                reason="; ".join(solver_blockers) or None,
            )
        )
        for callback, graph_safe in request.post_step_callbacks:
            stages.append(_callback_stage("post_step", callback, graph_safe, Phase.ENV_STEP))
        # Sensors whose update cannot be recorded on this device get an eager stage each; the rest share one.
        blocked = {key: runtime.graph_blocker(self.device) for key, runtime in part.sensors.items()}
        safe = [runtime for key, runtime in part.sensors.items() if blocked[key] is None]
        if safe:
            stages.append(Stage("sensors", Phase.ENV_STEP, lambda i, rs=tuple(safe): self._update_sensors(rs)))
        for sensor in request.sensors:
            reason = blocked.get(id(sensor))
            if reason is not None:
                runtime = part.sensors[id(sensor)]
                stages.append(
                    Stage(
                        f"sensor:{sensor.name}",
                        Phase.ENV_STEP,
                        lambda i, r=runtime: r.update(self.state_0),
                        graph_safe=False,
                        reason=reason,
                    )
                )
        blocker = None if request.use_cuda_graph else "NewtonCfg.use_cuda_graph is False"
        return StepProgram(stages, request.decimation, self.device, capture=blocker is None, capture_blocker=blocker)

    def _substeps(self, part: SolverPart, n: int, physics_dt: float, *, last: bool) -> None:
        """*n* solver steps with the staged forces over *physics_dt* [s]; the result always ends in ``state_0``.

        With an odd number of substeps the last output is copied back, so every physics step starts
        from ``state_0`` (what actuators, callbacks and collision read) and graphs replay on fixed buffers.
        """
        dt = physics_dt / n
        samplers = [runtime for runtime in part.sensors.values() if runtime.samples_substeps]
        state_in, state_out = self.state_0, self.state_1
        for k in range(n):
            if state_in.body_f is not None:
                wp.copy(state_in.body_f, self.staged_body_f)
            if state_in.particle_f is not None:
                wp.copy(state_in.particle_f, self.staged_particle_f)
            observables = part.obs_full if (last and k == n - 1) else part.obs_per_substep
            for runtime in samplers:  # sensors observing every substep (SensorRuntime.samples_substeps)
                runtime.begin_substep(state_in)
            part.bound.step(state_in, state_out, self.control, part.contacts, dt, observables)
            if part.step_average is not None:
                part.step_average.update(state_in, state_out, dt)
            for runtime in samplers:
                runtime.end_substep(state_out, dt)
            state_in, state_out = state_out, state_in
        if state_in is not self.state_0:
            _align_arrays(self.state_0, state_in)  # arrays a solver attached to its output on the first step
            self.state_0.assign(state_in)

    def _update_sensors(self, runtimes: tuple[SensorRuntime, ...]) -> None:
        for runtime in runtimes:
            runtime.update(self.state_0)

    def _warm_up(self, part: SolverPart) -> None:
        """Run the program once eagerly (compiles kernels, fills lazy buffers), then restore the states,
        clear the solver's buffers and the actuator states, so graph and eager stepping continue from
        identical conditions. Arrays a solver attaches to the states on its first step (Kamino's
        ``joint_lambdas_*``) are zeroed and given to both state buffers."""
        saved = _snapshot_arrays(self.state_0)
        try:
            part.program.run_eager()
        finally:  # a stage that raised (a refused callback request) leaves the states as they were too
            _restore_arrays(self.state_0, saved)
        _align_arrays(self.state_1, self.state_0)
        self.state_1.assign(self.state_0)
        part.bound.reset(self.state_0, None)
        if self.actuators is not None:
            self.actuators.reset()
        wp.synchronize_device(self.device)

    @property
    def decimation(self) -> int:
        """Physics steps per env step of the compiled program."""
        return self.part.program.decimation

    def recompile(self, request: BuildRequest) -> None:
        """Compile and capture the program again for *request* (decimation or callbacks changed)."""
        program = self._compile(self.part, request)
        with self._busy():
            _capture(self.part, program)
        self.part.program = program
        self.request = request

    def refresh_sensors(self, request: BuildRequest) -> None:
        """Re-create sensors and the observables container for *request*'s sensors, then recompile.
        Transactional: on failure the current sensors, observables and program stay."""
        old = self.part
        part = SolverPart(bound=old.bound, pipeline=old.pipeline, contacts=old.contacts, sensors={})
        self._setup_observables(part, request)
        part.program = self._compile(part, request)
        with self._busy():
            _capture(part)
        self.part = part
        self.request = request

    def run_step(self) -> None:
        """One env step (pending resets are applied by the caller first); the caller applies program changes
        requested while it runs once it returns.

        All or nothing: when a stage raises (a host callback, a launch), the states, the control and the
        actuator states are put back as they were before the step, the clock and step count do not move,
        and the solver-owned warm starts the partial step touched are cleared (as by a reset). A step that
        replays as one graph cannot stop halfway and is not snapshotted.
        """
        program = self.part.program
        saved = None if program.is_fully_captured() else self.save_state()
        with self._busy():
            try:
                program.run()
            except BaseException:
                if saved is not None:
                    self.restore_state(saved)
                    self.part.bound.reset(self.state_0, None)
                raise
        self.sim_time += program.decimation * self.request.dt
        self.step_count += 1

    def save_state(self) -> dict[str, Any]:
        """Copies of everything a step or a reset writes: both states, the control, actuator states, clock."""
        return {
            "state_0": _snapshot_arrays(self.state_0),
            "state_1": _snapshot_arrays(self.state_1),
            "control": _snapshot_arrays(self.control),
            "actuators": self.actuators.save() if self.actuators is not None else None,
            "clock": (self.sim_time, self.step_count),
            "pending": (self.world_reset_mask.numpy().copy(), self.fk_pending),
        }

    def restore_state(self, saved: dict[str, Any]) -> None:
        """Put back what :meth:`save_state` copied (same arrays, so captured graphs stay valid)."""
        _restore_arrays(self.state_0, saved["state_0"])
        _restore_arrays(self.state_1, saved["state_1"])
        _restore_arrays(self.control, saved["control"])
        if self.actuators is not None and saved["actuators"] is not None:
            self.actuators.restore(saved["actuators"])
        self.sim_time, self.step_count = saved["clock"]
        mask, pending = saved["pending"]
        self.world_reset_mask.assign(mask)
        self.fk_pending = pending

    # ------------------------------------------------------------------ per-env views
    _JOINT_ARRAYS = {
        "joint_q": ("state", "coord"),
        "joint_qd": ("state", "dof"),
        "joint_target_q": ("control", "coord"),
        "joint_target_qd": ("control", "dof"),
        "joint_act": ("control", "dof"),
        "joint_f": ("control", "dof"),
    }

    def joint_env_view(self, name: str):
        """Zero-copy torch view ``[num_envs, per_env]`` of a joint array of the current state or the control."""
        if name not in self._JOINT_ARRAYS:
            raise ValueError(f"joint view {name!r} is not one of {sorted(self._JOINT_ARRAYS)}")
        source, layout = self._JOINT_ARRAYS[name]
        array = getattr(self.state_0 if source == "state" else self.control, name, None)
        if array is None:
            raise ValueError(f"{source}.{name} is not allocated (the model has no joints?)")
        starts = (self.model.joint_coord_world_start if layout == "coord" else self.model.joint_dof_world_start).numpy()
        worlds = self.model.world_count
        sizes = np.diff(starts[: worlds + 1])
        if worlds < 1 or int(starts[0]) != 0 or int(starts[worlds]) != array.shape[0] or len(set(sizes.tolist())) != 1:
            raise ValueError(
                f"{name} cannot be viewed per env: the worlds do not hold equal, contiguous joint rows "
                f"(per-world sizes {sizes.tolist()}, {array.shape[0] - int(starts[worlds])} rows outside worlds)"
            )
        return wp.to_torch(array).view(worlds, int(sizes[0]))

    def joint_columns(self, layout: str) -> list[str]:
        """Joint name of every column of a per-env joint view (``"coord"`` or ``"dof"`` layout), from env 0."""
        model = self.model
        starts = (model.joint_q_start if layout == "coord" else model.joint_qd_start).numpy()
        world_start = (model.joint_coord_world_start if layout == "coord" else model.joint_dof_world_start).numpy()
        joint_world = model.joint_world.numpy()
        names: list[str] = []
        for j in range(model.joint_count):
            if joint_world[j] != 0:
                continue
            count = int(starts[j + 1] - starts[j])
            name = (model.joint_label[j] or f"joint_{j}").rsplit("/", 1)[-1]
            names.extend([name] if count == 1 else [f"{name}[{k}]" for k in range(count)])
        return names[: int(world_start[1] - world_start[0])]

    # ------------------------------------------------------------------ resets and kinematics
    def world_mask_from(self, env_mask=None, env_ids=None) -> np.ndarray:
        """Host ``(world_count + 1,)`` boolean mask (last entry: global entities) from a mask and/or ids."""
        return world_mask_from(self.model.world_count, env_mask, env_ids)

    def check_resettable(self, mask: np.ndarray, what: str) -> None:
        """Raise before anything is written when the solver cannot reset the worlds of *mask* alone."""
        if mask[:-1].all() or not mask.any():
            return  # every world: a full reset
        request = self.request
        blockers = request.binding.masked_reset_blockers(request.solver_cfg, self.model.world_count)
        if blockers:
            worlds = np.nonzero(mask[:-1])[0].tolist()
            raise ValueError(
                f"{request.manager_name}.{what}: cannot reset worlds {worlds} without the others: "
                + "; ".join(blockers)
            )

    def mark_worlds(self, mask: np.ndarray) -> None:
        """OR *mask* into the pending reset mask."""
        current = self.world_reset_mask.numpy() | mask
        self.world_reset_mask.assign(current)
        self.fk_pending = bool(current.any())

    def apply_pending_resets(self) -> None:
        """FK of the marked worlds' joint coordinates, then the solver's masked reset of those worlds."""
        import newton

        if not self.fk_pending:
            return
        mask = self.world_reset_mask
        host = mask.numpy()
        if self.model.joint_count:
            joint_world = self.row_world["joint"]
            joint_mask = wp.array(host[joint_world], dtype=wp.bool, device=self.device)  # world -1 -> last entry
            newton.eval_fk(self.model, self.state_0.joint_q, self.state_0.joint_qd, self.state_0, joint_mask=joint_mask)
        if self.part is not None:
            # Every world selected: a full reset (of the global entities' solver history too), which solvers with
            # shared data (an MPM grid over several worlds, a one-world MPM scene) support where a masked one
            # is refused.
            self.part.bound.reset(self.state_0, None if host[:-1].all() else mask)
        if self.actuators is not None:
            self.actuators.reset(host)
        mask.zero_()
        self.fk_pending = False

    def write_initial_state(self, mask: np.ndarray) -> None:
        """Copy the initial state into the worlds of *mask* and mark them for FK and a masked solver reset."""
        self.copy_world_rows(lambda name: getattr(self.initial_state, name), mask)

    def copy_world_rows(self, source: Any, mask: np.ndarray) -> None:
        """Copy the rows of the worlds of *mask* from ``source(name)`` (an array shaped as ``state_0.<name>``, or
        ``None``) into ``state_0`` (body, particle and joint positions and velocities) and mark those worlds for
        FK and a masked solver reset; the other worlds are not touched."""
        world_mask = wp.array(mask, dtype=wp.bool, device=self.device)
        pairs = (
            ("body", ("body_q", "body_qd")),
            ("particle", ("particle_q", "particle_qd")),
            ("joint_coord", ("joint_q",)),
            ("joint_dof", ("joint_qd",)),
        )
        for rows, names in pairs:
            row_world = self.row_world.get(rows)
            if row_world is None:
                continue
            for name in names:
                src, dst = source(name), getattr(self.state_0, name)
                if src is None or dst is None or src.shape[0] == 0:
                    continue
                wp.launch(
                    _copy_rows_by_world_kernel,
                    dim=src.shape[0],
                    inputs=[src, row_world, world_mask],
                    outputs=[dst],
                    device=self.device,
                )
        self.mark_worlds(mask)


def _state_arrays(state: Any) -> dict[tuple[str, str], wp.array]:
    """Every Warp array of *state*: top-level attributes and those of its attribute namespaces."""
    from newton import Model

    arrays: dict[tuple[str, str], wp.array] = {}
    for name, value in vars(state).items():
        if isinstance(value, wp.array):
            arrays[("", name)] = value
        elif isinstance(value, Model.AttributeNamespace):
            for sub, array in vars(value).items():
                if isinstance(array, wp.array):
                    arrays[(name, sub)] = array
    return arrays


def _snapshot_arrays(state: Any) -> dict[tuple[str, str], wp.array]:
    return {key: wp.clone(array) for key, array in _state_arrays(state).items()}


def _restore_arrays(state: Any, snapshot: dict[tuple[str, str], wp.array]) -> None:
    """Put the snapshot's values back; arrays that appeared since (attached by a solver) are zeroed."""
    for key, array in _state_arrays(state).items():
        if key in snapshot:
            array.assign(snapshot[key])
        else:
            array.zero_()


def _align_arrays(state: Any, reference: Any) -> None:
    """Give *state* a zeroed array for every top-level array *reference* has and it lacks."""
    have = _state_arrays(state)
    for (namespace, name), array in _state_arrays(reference).items():
        if namespace == "" and ("", name) not in have:
            setattr(state, name, wp.zeros_like(array))


def _capture(part: SolverPart, program: StepProgram | None = None) -> None:
    """Record *program* (default: the part's) with the bound solver's host-side counters left as they were:
    recording runs the host code of one env step, which must not advance what the eager path counts."""
    saved = part.bound.save_host_state()
    try:
        (program or part.program).capture()
    finally:
        part.bound.restore_host_state(saved)


def _callback_stage(kind: str, callback, graph_safe: bool, phase: Phase) -> Stage:
    name = f"{kind}:{getattr(callback, '__qualname__', None) or repr(callback)}"
    return Stage(
        name,
        phase,
        lambda i, cb=callback: cb(),
        graph_safe=graph_safe,
        reason=None if graph_safe else "registered with graph_safe=False (host work)",
        host_code=True,
    )
