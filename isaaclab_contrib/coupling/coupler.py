"""``NewtonCouplerManager``: the Newton manager for a coupled simulation of named solver entries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from isaaclab_contrib.physics.runtime.newton_vbd_manager import NewtonVBDManager

from .binding import BoundCoupledSolver  # importing it registers the coupled solver binding
from .coupler_cfg import CouplerAdmmCfg, CouplerProxyCfg
from .ownership import CouplingPlan

if TYPE_CHECKING:
    from isaaclab_contrib.physics.simulation_context import SimulationContext

__all__ = ["NewtonCouplerManager"]


class NewtonCouplerManager(NewtonVBDManager):
    """Couple named Newton solver entries through proxy or ADMM interfaces.

    The simulation's ``solver_cfg`` is a :class:`CouplerAdmmCfg` or :class:`CouplerProxyCfg`.
    ``sim.reset()`` resolves entry ownership over the finalized model, builds the coupled solver
    (see :func:`~isaaclab_contrib.coupling.build_coupled_solver`), allocates the collision pipeline
    when an entry consumes pipeline contacts, prepares every entry's filtered contact buffer before
    the warm-up and graph capture, and then runs the same step program as :class:`NewtonManager`.
    All of that lives in the coupled solver binding (:mod:`isaaclab_contrib.coupling.binding`), so
    ``NewtonManager``'s class methods behave the same while a coupled simulation is active.
    """

    @classmethod
    def initialize(cls, sim_context: SimulationContext) -> None:
        """Bind to *sim_context*; its ``solver_cfg`` must be a coupler config (validated here)."""
        solver_cfg = sim_context.cfg.physics.solver_cfg
        if not isinstance(solver_cfg, (CouplerAdmmCfg, CouplerProxyCfg)):
            raise TypeError(
                f"NewtonCouplerManager needs NewtonCfg.solver_cfg to be a CouplerAdmmCfg or CouplerProxyCfg, got "
                f"{type(solver_cfg).__name__}"
            )
        solver_cfg.validate()
        super().initialize(sim_context)

    @classmethod
    def get_coupling_plan(cls) -> CouplingPlan | None:
        """The resolved ownership of the running simulation (entries, proxies, contact pairs), or ``None``."""
        part = cls._maybe_part()
        bound = part.bound if part else None
        return bound.plan if isinstance(bound, BoundCoupledSolver) else None

    @classmethod
    def entry_names(cls) -> tuple[str, ...]:
        """Entry names in stepping order."""
        return tuple(cls._active().solver_cfg.entry_names())
