"""Newton physics configurations: solvers, collision pipeline and model parameters."""

from .collision_cfg import NewtonCollisionPipelineCfg
from .events import CallbackHandle, PhysicsEvent
from .featherstone_cfg import FeatherstoneSolverCfg
from .kamino_cfg import KaminoSolverCfg
from .mjwarp_cfg import MJWarpSolverCfg
from .model_cfg import NewtonModelCfg
from .mpm_cfg import MPMSolverCfg
from .semi_implicit_cfg import SemiImplicitSolverCfg
from .shape_cfg import NewtonShapeCfg
from .simulation_cfg import NewtonCfg, SimulationCfg
from .solver_cfg import NewtonModelSolverCfg, NewtonSolverCfg, SolverConfigError, resolve_class
from .steel_cfg import SteelSolverCfg
from .vbd_cfg import VBDSolverCfg
from .xpbd_cfg import XPBDSolverCfg

__all__ = [
    "CallbackHandle",
    "FeatherstoneSolverCfg",
    "KaminoSolverCfg",
    "MJWarpSolverCfg",
    "MPMSolverCfg",
    "NewtonCfg",
    "NewtonCollisionPipelineCfg",
    "NewtonManager",
    "NewtonModelCfg",
    "NewtonModelSolverCfg",
    "NewtonShapeCfg",
    "NewtonSolverCfg",
    "NewtonVBDManager",
    "PhysicsEvent",
    "SemiImplicitSolverCfg",
    "SimulationCfg",
    "SimulationContext",
    "SolverConfigError",
    "SteelSolverCfg",
    "VBDSolverCfg",
    "XPBDSolverCfg",
    "resolve_class",
]

from .newton_manager import NewtonManager
from .newton_vbd_manager import NewtonVBDManager
from .simulation_context import SimulationContext
