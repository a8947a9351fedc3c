"""Named Newton couplers: solver entries that own parts of a model, coupled through ADMM or virtual proxies.

Configs (:mod:`.coupler_cfg`), ownership resolution (:mod:`.ownership`), construction (:mod:`.construction`,
:mod:`.newton_patches`), the coupled solver binding (:mod:`.binding`), the manager (:mod:`.coupler`), and the
coupler's own sensors, each beside the sampler that feeds it: :mod:`.interface_force`,
:mod:`.coupling_diagnostics`, :mod:`.penetration` (what they share: :mod:`.coupler_internals`).
"""

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
