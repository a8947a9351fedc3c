"""The manager's session: what belongs to one ``SimulationContext`` from ``initialize()`` to ``close()``.

A :class:`ManagerSession` holds the configs and everything registered on the manager while the
scene is authored (the builder, site and sensor requests, step-program callbacks, decimation, the
USD stage), plus the running :class:`~.simulation_instance.SimulationInstance` once ``sim.reset()``
succeeded. The class-level managers (:class:`~.newton_manager.NewtonManager` and its subclasses)
are a thin front over the one active session, so a call on the base class and on a subclass do the
same thing: what differs per solver lives in the session's binding.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from isaaclab_contrib.physics.runtime.simulation_instance import SimulationInstance
from isaaclab_contrib.physics.sensors.observables import SensorRecord
from isaaclab_contrib.physics.solvers.base import NewtonModelSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, binding_for

if TYPE_CHECKING:
    import newton

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
        self.collision_interval = int(cfg.collision_interval)
        self.solver_cfg = cfg.solver_cfg
        self.binding: SolverBinding = binding_for(cfg.solver_cfg)
        self.up_axis = "Z"
        self.builder: newton.ModelBuilder | None = None
        self.site_requests: dict[tuple, str] = {}
        self.imu_sensors: list[SensorRecord] = []
        self.contact_sensors: dict[tuple, SensorRecord] = {}
        self.frame_transform_sensors: list[SensorRecord] = []
        self.legacy_kinds: set[str] = set()
        self.legacy_state_attributes: set[str] = set()
        """Deprecated extended state attributes requested (``request_extended_state_attribute``); allocated on
        the model's states at ``sim.reset()``."""
        self.legacy_contact_attributes: set[str] = set()
        """Deprecated extended contact attributes requested (``request_extended_contact_attribute``)."""
        self.observable_requests: set[str] = set()
        """Solver observable kinds requested through ``request_observables()``."""
        self.post_actuator_callbacks: list[tuple[Any, bool]] = []
        self.post_step_callbacks: list[tuple[Any, bool]] = []
        self.decimation = 1
        self.program_dirty = False
        self.busy = False
        """True while the step program runs, is recorded or is built: program changes then wait for the end."""
        self.model_changes: set[int] = set()
        self.views: list = []
        self.usd_stage: Any = None
        self.particle_prims: list[tuple[str, int, int, int]] = []
        self.observables_allocations = 0
        self.actuators_active = False
        """Set by ``activate_newton_actuator_path()``; a model with Newton actuators activates it too."""
        self.instance: SimulationInstance | None = None

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

    def model_cfg(self):
        """Global model parameters: ``NewtonCfg.model_cfg``, else the solver config's ``model_cfg``."""
        if self.cfg.model_cfg is not None:
            return self.cfg.model_cfg
        return self.solver_cfg.model_cfg if isinstance(self.solver_cfg, NewtonModelSolverCfg) else None

    # ------------------------------------------------------------------ sensors
    def sensor_records(self) -> list[SensorRecord]:
        return [*self.imu_sensors, *self.contact_sensors.values(), *self.frame_transform_sensors]

    def sensor_kinds(self) -> dict[str, frozenset[str]]:
        """Observable kinds per consumer name (sensors and legacy requests)."""
        kinds = {r.name: r.observable_kinds for r in self.sensor_records() if r.observable_kinds}
        if self.legacy_kinds:
            kinds["legacy request_extended_* attributes"] = frozenset(self.legacy_kinds)
        return kinds

    # ------------------------------------------------------------------ step program
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
            self.busy = True
            try:
                self.instance.recompile(self.decimation)
            finally:
                self.busy = False
        raise RuntimeError(
            f"{self.manager_name}: the step program changed every time it was recorded (a callback that changes "
            "the decimation or registers callbacks on every call?)"
        )

    # ------------------------------------------------------------------ building
    def build_instance(self) -> SimulationInstance:
        """Build a new instance from the current builder (the caller swaps it in)."""
        self.require(
            self.builder is not None,
            "no model builder: call set_builder(builder) or fill one in a MODEL_INIT callback before reset()",
        )
        return SimulationInstance.build(self, self.builder)
