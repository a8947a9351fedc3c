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

import logging
from typing import TYPE_CHECKING, Any

from isaaclab_contrib.physics.runtime.build_request import BuildRequest, Callback
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
        """Recompile the program if it changed (a step boundary). Changes made while recording (a graph-safe
        callback calling ``set_decimation``) are applied by recording again, a bounded number of times."""
        for _ in range(4):
            if not self.program_dirty or self.instance is None or self.instance.part is None:
                return
            self.program_dirty = False
            self.instance.recompile(self.snapshot())
        raise RuntimeError(
            f"{self.manager_name}: the step program changed every time it was recorded (a callback that changes "
            "the decimation or registers callbacks on every call?)"
        )
