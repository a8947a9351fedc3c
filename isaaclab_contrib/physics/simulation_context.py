"""A thin, kitless simulation context: holds the config and device and drives the manager."""

from __future__ import annotations

import logging

import warp as wp

from isaaclab_contrib.physics.runtime.newton_manager import NewtonManager
from isaaclab_contrib.physics.simulation_cfg import NewtonCfg, SimulationCfg
from isaaclab_contrib.physics.solvers.base import NewtonModelSolverCfg

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
    :class:`~isaaclab_contrib.coupling.NewtonCouplerManager`). As in Isaac Lab, one context is active
    at a time: the managers are class-level singletons, so creating a second context while one is
    active raises, and the first keeps working until its :meth:`clear_instance`. There is no Kit
    timeline, stage or renderer here.
    """

    def __init__(self, cfg: SimulationCfg, *, validated: bool = False):
        """Create the context and initialize its physics manager.

        Args:
            cfg: The simulation settings; validated here (errors name the field) unless *validated*.
            validated: The caller has just validated this very *cfg* (e.g. :func:`~isaaclab_contrib.scenes.launch`
                for an env that validated its whole config), so it is not checked again.
        """
        if not isinstance(cfg, SimulationCfg):
            raise TypeError(f"SimulationContext expects a SimulationCfg, got {type(cfg).__name__}")
        active = NewtonManager.get_simulation_context()
        if active is not None:
            raise RuntimeError(
                f"A simulation context is already active: {active!r}. Only one SimulationContext can exist at a "
                "time; call its clear_instance() first."
            )
        if not validated:
            cfg.validate()
        solver_cfg = cfg.physics.solver_cfg
        manager = solver_cfg.manager_class() if isinstance(solver_cfg, NewtonModelSolverCfg) else NewtonManager
        if not (isinstance(manager, type) and issubclass(manager, NewtonManager)):
            raise TypeError(
                f"{type(solver_cfg).__name__}.class_type names {manager!r}, which is not a NewtonManager subclass"
            )
        self.cfg = cfg
        self.device = _resolve_device(cfg.device)
        self.physics_manager: type[NewtonManager] = manager
        manager.initialize(self)

    @classmethod
    def instance(cls) -> SimulationContext | None:
        """The active context, if any."""
        return NewtonManager.get_simulation_context()

    def is_active(self) -> bool:
        """Whether this context is the active one (created and not cleared)."""
        return NewtonManager.get_simulation_context() is self

    def _require_active(self, what: str) -> None:
        if not self.is_active():
            raise RuntimeError(
                f"{self!r}.{what}: this context was cleared (or replaced); create a new SimulationContext"
            )

    @property
    def physics_cfg(self) -> NewtonCfg:
        """The Newton settings."""
        return self.cfg.physics

    def get_physics_dt(self) -> float:
        """Physics step [s]."""
        return float(self.cfg.dt)

    def reset(self, soft: bool = False) -> None:
        """Start the simulation (finalize, states) and initialize the solver (contacts, graph).

        A failure leaves the manager as it was before the call.
        """
        self._require_active("reset()")
        self.physics_manager.reset(soft=soft)

    def step(self, render: bool = False) -> None:
        """Advance one env step (the manager runs the whole decimation loop). ``render`` is ignored (no renderer)."""
        del render
        self._require_active("step()")
        self.physics_manager.step()

    def clear_instance(self) -> None:
        """Close the manager and forget this context. A no-op on a context that is no longer active."""
        if self.is_active():
            self.physics_manager.close()

    def __repr__(self) -> str:
        return f"SimulationContext(dt={self.cfg.dt}, device={self.device!r}, manager={self.physics_manager.__name__})"
