"""``NewtonCouplerManager``: the Newton manager for a coupled simulation of named solver entries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from isaaclab_contrib.physics.newton_manager import NewtonManager

from .construction import build_coupled_solver
from .coupler_cfg import CouplerAdmmCfg, CouplerCfg, CouplerProxyCfg
from .ownership import CouplingPlan, resolve_coupling

if TYPE_CHECKING:
    from isaaclab_contrib.physics.simulation_context import SimulationContext

__all__ = ["NewtonCouplerManager"]


class NewtonCouplerManager(NewtonManager):
    """Couple named Newton solver entries through proxy or ADMM interfaces.

    The simulation's ``solver_cfg`` is a :class:`CouplerAdmmCfg` or :class:`CouplerProxyCfg`.
    ``initialize_solver()`` resolves entry ownership over the finalized model, builds the coupled
    solver (see :func:`build_coupled_solver`), allocates the collision pipeline when an entry
    consumes pipeline contacts, prepares every entry's filtered contact buffer before the warm-up
    and graph capture, and then runs the same step program as :class:`NewtonManager`.
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
    def _coupler_cfg(cls) -> CouplerCfg:
        return cls._solver_cfg()

    @classmethod
    def _solver_cfgs(cls):
        return [entry.solver_cfg for entry in cls._coupler_cfg().entries]

    @classmethod
    def _build_solver(cls):
        cfg = cls._coupler_cfg()
        plan = resolve_coupling(cls._model, cfg)
        solver = build_coupled_solver(cls._model, cfg, plan=plan, apply_model_cfg=False)
        cls._set(_solver_info={"coupling_plan": plan})
        return solver

    @classmethod
    def _prepare_solver_contacts(cls, solver, contacts) -> None:
        """Allocate every entry's filtered contact buffer before warm-up and capture."""
        solver.prepare_contacts(contacts)

    @classmethod
    def get_coupling_plan(cls) -> CouplingPlan | None:
        """The resolved ownership of the running simulation (entries, proxies, contact pairs)."""
        return cls._solver_info.get("coupling_plan")

    @classmethod
    def entry_names(cls) -> tuple[str, ...]:
        """Entry names in stepping order."""
        return tuple(cls._coupler_cfg().entry_names())
