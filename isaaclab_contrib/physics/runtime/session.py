"""The manager's session: the request object of one ``SimulationContext``, from ``initialize()`` to ``close()``.

A :class:`ManagerSession` holds the configs and everything registered on the manager while the
scene is authored (the builder, site and sensor requests, step-program callbacks, decimation, the
USD stage) and, once ``sim.reset()`` succeeded, the running
:class:`~.simulation_instance.SimulationInstance`. Data flows one way: the session hands the
instance a frozen :class:`BuildRequest` (:meth:`ManagerSession.snapshot`) for every build or
re-compilation, and the instance never reads the session back. The class-level managers
(:class:`~.newton_manager.NewtonManager` and its subclasses) are a thin front over the one active
session, so a call on the base class and on a subclass do the same thing: what differs per solver
lives in the solver binding.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from isaaclab_contrib.physics.runtime.build_request import BuildRequest, Callback
from isaaclab_contrib.physics.runtime.step_program import WARM_UP, RecordingRefusal, recording
from isaaclab_contrib.physics.sensors.base import SensorRequest
from isaaclab_contrib.physics.solvers.base import NewtonModelSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, binding_for

if TYPE_CHECKING:
    import newton

    from isaaclab_contrib.physics.model_cfg import NewtonModelCfg
    from isaaclab_contrib.physics.runtime.simulation_instance import SimulationInstance
    from isaaclab_contrib.physics.simulation_cfg import NewtonCfg

__all__ = ["ManagerSession"]

logger = logging.getLogger(__name__)


class ManagerSession:
    """State of one simulation context (see the module documentation)."""

    def __init__(self, manager_cls: type, sim_context: Any, cfg: NewtonCfg, device: str, dt: float):
        self.manager_cls = manager_cls
        """The manager class the context runs (payload of events, name in messages)."""
        self.sim_context = sim_context
        self.cfg = cfg
        self.device = device
        self.dt = float(dt)
        self.num_substeps = int(cfg.num_substeps)
        self.solver_cfg = cfg.solver_cfg
        self.binding: SolverBinding = binding_for(cfg.solver_cfg)
        self.up_axis = "Z"
        self.builder: newton.ModelBuilder | None = None
        self.site_requests: dict[tuple, str] = {}
        self.sensors: dict[tuple[str, Any], SensorRequest] = {}
        """Sensor requests by ``(kind, key)`` (an index per kind, or a contact sensor's expressions), in order."""
        self.legacy_kinds: set[str] = set()
        self.legacy_state_attributes: set[str] = set()
        """Deprecated extended state attributes requested (``request_extended_state_attribute``); allocated on
        the model's states at ``sim.reset()``."""
        self.legacy_contact_attributes: set[str] = set()
        """Deprecated extended contact attributes requested (``request_extended_contact_attribute``)."""
        self.observable_requests: set[str] = set()
        """Solver observable kinds requested through ``request_observables()``."""
        self.post_actuator_callbacks: list[Callback] = []
        self.post_step_callbacks: list[Callback] = []
        self.decimation = int(cfg.decimation)
        self.deferred_decimation: int | None = None
        """``set_decimation`` requested by a step-program callback while the current program was recorded. The
        recording stands for the callbacks' run in the first step that replays it, so the request applies at the
        end of that step (:meth:`apply_deferred`), never to the step being recorded."""
        self.program_dirty = False
        self.model_changes: set[int] = set()
        self.views: list = []
        self.usd_stage: Any = None
        self.particle_prims: list[tuple[str, int, int, int]] = []
        self.actuators_active = False
        """Set by ``activate_newton_actuator_path()``; a model with Newton actuators activates it too."""
        self.instance: SimulationInstance | None = None
        self.running: str | None = None
        """The lifecycle call in progress (``"step()"``, ``"reset()"``...), or ``None``: lifecycle calls are not
        re-entrant (a step-program or event callback cannot reset or step the simulation it runs in)."""

    # ------------------------------------------------------------------ naming
    @property
    def manager_name(self) -> str:
        return self.manager_cls.__name__

    def require(self, condition: bool, message: str) -> None:
        if not condition:
            raise RuntimeError(f"{self.manager_name}: {message}")

    # ------------------------------------------------------------------ configs
    def solver_cfgs(self) -> list:
        """Every Newton solver config the simulation builds (one, or one per coupled entry)."""
        return self.binding.solver_cfgs(self.solver_cfg)

    def model_cfg(self) -> NewtonModelCfg | None:
        """Global model parameters: ``NewtonCfg.model_cfg``, else the solver config's ``model_cfg``."""
        if self.cfg.model_cfg is not None:
            return self.cfg.model_cfg
        return self.solver_cfg.model_cfg if isinstance(self.solver_cfg, NewtonModelSolverCfg) else None

    def snapshot(self) -> BuildRequest:
        """The frozen request of the next build or re-compilation."""
        return BuildRequest(
            manager_name=self.manager_name,
            device=self.device,
            dt=self.dt,
            num_substeps=self.num_substeps,
            collision_interval=int(self.cfg.collision_interval),
            decimation=self.decimation,
            use_cuda_graph=bool(self.cfg.use_cuda_graph),
            body_qdd_source=self.cfg.body_qdd_source,
            solver_cfg=self.solver_cfg,
            binding=self.binding,
            model_cfg=self.model_cfg(),
            collision_cfg=self.cfg.collision_cfg,
            site_requests=tuple(self.site_requests.items()),
            sensors=tuple(self.sensors.values()),
            observable_requests=frozenset(self.observable_requests),
            legacy_kinds=frozenset(self.legacy_kinds),
            legacy_state_attributes=frozenset(self.legacy_state_attributes),
            legacy_contact_attributes=frozenset(self.legacy_contact_attributes),
            post_actuator_callbacks=tuple(self.post_actuator_callbacks),
            post_step_callbacks=tuple(self.post_step_callbacks),
            actuators_active=self.actuators_active,
        )

    # ------------------------------------------------------------------ sensors
    def sensors_of(self, kind: str) -> list[SensorRequest]:
        """The sensor requests of one kind, in the order they were added."""
        return [request for (k, _), request in self.sensors.items() if k == kind]

    # ------------------------------------------------------------------ step program
    @property
    def busy(self) -> bool:
        """True while a lifecycle call runs, or the instance runs, records or builds its step program
        (program changes then wait for the end)."""
        return self.running is not None or (self.instance is not None and self.instance.busy)

    def lifecycle(self, what: str):
        """Context manager around a lifecycle call: refuses it, naming both calls, while another one runs."""
        session = self

        class _Lifecycle:
            def __enter__(self):
                session.refuse_while_recording(what)
                if session.running is not None:
                    raise RuntimeError(
                        f"{session.manager_name}.{what} cannot run while {session.running} runs (called from a "
                        f"step-program or event callback?); call it after {session.running} returned. Nothing was "
                        "changed."
                    )
                session.running = what

            def __exit__(self, *exc):
                session.running = None

        return _Lifecycle()

    def program_changed(self) -> None:
        """Callbacks or decimation changed: recompile now, or when the step (or recording) in progress ends."""
        self.program_dirty = True
        if not self.busy:
            self.settle()

    def settle(self) -> None:
        """Recompile the program if it changed (a step boundary). Recording cannot change the program again: a
        callback's ``set_decimation`` made while recording is deferred and other changes are refused."""
        if not self.program_dirty or self.instance is None or self.instance.part is None:
            return
        with self.recording_requests():
            self.instance.recompile(self.snapshot())
        self.program_dirty = False

    # ------------------------------------------------------------------ requests made while recording
    # A stage's host code (a callback) also runs while the program is recorded, which is not a step: once in
    # the warm-up of a build (whose state changes are undone afterwards; eager callbacks run again in every
    # real step) and in every graph recording (the only run of a graph-safe callback's host code). What it
    # requests then must not reach the step being recorded:
    # * set_decimation: dropped in the warm-up, deferred from a graph recording to the end of the first step
    #   that replays it (request_decimation);
    # * repeatable markers (invalidate_fk, add_model_change): dropped in the warm-up, refused in a graph
    #   recording, where a replay would never make them again (drop_in_warm_up);
    # * structural changes (callbacks, sensors, sites, observables, lifecycle calls): refused.
    def refuse_while_recording(self, what: str) -> None:
        """Raise a :class:`~.step_program.RecordingRefusal` naming *what* when a step program is being recorded:
        the host code of a stage (a callback) runs then without it being a step, and a change it requested would
        apply to the step being recorded instead of after the step it belongs to."""
        stage = recording()
        if stage is not None:
            raise RecordingRefusal(
                f"{self.manager_name}.{what} was called by {stage} while the step program was recorded (at "
                "sim.reset(), a callback registration or a decimation change): a change made then would alter the "
                f"step being recorded, so it is refused and nothing was changed. Call {what} outside step-program "
                "callbacks, or from a callback registered with graph_safe=False during a real step() (it then takes "
                "effect at the step boundary)."
            )

    @contextlib.contextmanager
    def recording_requests(self) -> Iterator[None]:
        """Around a build or re-compilation that records the step program: the decimation requested by callbacks
        while it records (:attr:`deferred_decimation`) replaces the pending request on success, since the new
        program replaces the one that request came from; on failure the pending request stays as it was."""
        previous = self.deferred_decimation
        self.deferred_decimation = None
        try:
            yield
        except BaseException:
            self.deferred_decimation = previous
            raise

    def request_decimation(self, decimation: int) -> bool:
        """Take a decimation change requested while recording: dropped in the warm-up, deferred from a graph
        recording (:attr:`deferred_decimation`). False when no program is being recorded (the caller applies
        the change at once)."""
        current = recording()
        if current is None:
            return False
        if current.phase != WARM_UP:
            self.deferred_decimation = int(decimation)
        return True

    def drop_in_warm_up(self, what: str) -> bool:
        """For a repeatable request (*what*): True when it is made in the warm-up (the caller drops it: the
        warm-up's state changes are undone), a :class:`~.step_program.RecordingRefusal` in a graph recording,
        False outside a recording."""
        current = recording()
        if current is None:
            return False
        if current.phase == WARM_UP:
            return True
        self.refuse_while_recording(what)
        return False

    def apply_deferred(self) -> None:
        """At the end of a step: apply the decimation its callbacks requested while its program was recorded."""
        decimation, self.deferred_decimation = self.deferred_decimation, None
        if decimation is not None and decimation != self.decimation:
            self.decimation = decimation
            self.program_dirty = True
