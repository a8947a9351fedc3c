"""A thin, kitless simulation context: holds the config and device and drives the manager."""

from __future__ import annotations

import logging

import warp as wp

from .simulation_cfg import NewtonCfg, SimulationCfg
from .solver_cfg import NewtonModelSolverCfg

__all__ = ["SimulationContext"]

logger = logging.getLogger(__name__)


def _resolve_device(requested: str) -> str:
    """Return *requested* when Warp has it, else the CPU (with a warning)."""
    try:
        return str(wp.get_device(requested))
    except (RuntimeError, ValueError) as err:
        logger.warning("Device %r is not available (%s); using the CPU.", requested, err)
        return "cpu"


class SimulationContext:
    """Owns a :class:`SimulationCfg` and forwards the simulation's life to its physics manager.

    The manager class comes from ``cfg.physics.solver_cfg.class_type`` (a coupler config names
    :class:`~isaaclab_contrib.coupling.NewtonCouplerManager`); single-solver configs use
    :class:`~isaaclab_contrib.physics.NewtonManager`. Only one context is active at a time: the
    managers are class-level singletons. There is no Kit timeline, stage or renderer here.
    """

    _instance: SimulationContext | None = None

    def __init__(self, cfg: SimulationCfg):
        if not isinstance(cfg, SimulationCfg):
            raise TypeError(f"SimulationContext expects a SimulationCfg, got {type(cfg).__name__}")
        cfg.validate()
        self.cfg = cfg
        self.device = _resolve_device(cfg.device)
        from .newton_manager import NewtonManager

        solver_cfg = cfg.physics.solver_cfg
        manager = solver_cfg.manager_class() if isinstance(solver_cfg, NewtonModelSolverCfg) else NewtonManager
        if not (isinstance(manager, type) and issubclass(manager, NewtonManager)):
            raise TypeError(
                f"{type(solver_cfg).__name__}.class_type names {manager!r}, which is not a NewtonManager subclass"
            )
        self.physics_manager: type[NewtonManager] = manager
        manager.initialize(self)
        SimulationContext._instance = self

    @classmethod
    def instance(cls) -> SimulationContext | None:
        """The active context, if any."""
        return cls._instance

    @property
    def physics_cfg(self) -> NewtonCfg:
        """The Newton settings."""
        return self.cfg.physics

    def get_physics_dt(self) -> float:
        """Physics step [s]."""
        return float(self.cfg.dt)

    def reset(self, soft: bool = False) -> None:
        """Start the simulation (finalize, states) and initialize the solver (contacts, graph).

        Transactional: if any step raises, every manager slot is restored to its value before the call.
        """
        self.physics_manager.reset(soft=soft)

    def step(self, render: bool = False) -> None:
        """Advance one env step (the manager runs the whole decimation loop). ``render`` is ignored (no renderer)."""
        del render
        self.physics_manager.step()

    def clear_instance(self) -> None:
        """Close the manager and forget this context."""
        self.physics_manager.close()
        if SimulationContext._instance is self:
            SimulationContext._instance = None

    def __repr__(self) -> str:
        return f"SimulationContext(dt={self.cfg.dt}, device={self.device!r}, manager={self.physics_manager.__name__})"
