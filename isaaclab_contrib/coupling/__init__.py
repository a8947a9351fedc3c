"""Named Newton couplers: solver entries that own parts of a model, coupled through ADMM or virtual proxies."""

from .construction import CouplerHookError, build_coupled_solver, finalize_builder, prepare_builder
from .coupler import NewtonCouplerManager
from .coupler_cfg import CouplerAdmmCfg, CouplerCfg, CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from .ownership import CouplingPlan, CouplingWarning, EntryOwnership, ProxyResolution, resolve_coupling, resolve_entries

__all__ = [
    "CouplerAdmmCfg",
    "CouplerCfg",
    "CouplerEntryCfg",
    "CouplerHookError",
    "CouplerProxyCfg",
    "CouplerProxyMappingCfg",
    "CouplingPlan",
    "CouplingWarning",
    "EntryOwnership",
    "NewtonCouplerManager",
    "ProxyResolution",
    "build_coupled_solver",
    "finalize_builder",
    "prepare_builder",
    "resolve_coupling",
    "resolve_entries",
]
