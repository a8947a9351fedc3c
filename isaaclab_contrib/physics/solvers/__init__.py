"""Newton solver families: each module holds one family's config (pure data) beside its binding.

A *config* (``SteelSolverCfg``...) maps fields to the solver's arguments; its *binding*
(``SteelBinding``...) builds the solver on a model and answers the runtime's questions about it
(builder preparation, collision-pipeline needs, capture and masked-reset rules, observables
routing). :mod:`.binding` holds the binding base class and the registry keyed by config class;
importing this package registers every family.
"""

from isaaclab_contrib.physics.solvers.base import (
    NewtonModelSolverCfg,
    NewtonSolverCfg,
    SolverConfigError,
    resolve_class,
)
from isaaclab_contrib.physics.solvers.binding import SolverBinding, binding_for, register_binding, registered_bindings
from isaaclab_contrib.physics.solvers.featherstone import FeatherstoneBinding, FeatherstoneSolverCfg
from isaaclab_contrib.physics.solvers.kamino import KaminoBinding, KaminoSolverCfg
from isaaclab_contrib.physics.solvers.mpm import MPMBinding, MPMSolverCfg
from isaaclab_contrib.physics.solvers.mpm_colliders import MPMDeformableColliderCfg
from isaaclab_contrib.physics.solvers.mujoco import MJWarpSolverCfg, MuJoCoBinding
from isaaclab_contrib.physics.solvers.semi_implicit import SemiImplicitBinding, SemiImplicitSolverCfg
from isaaclab_contrib.physics.solvers.steel import SteelBinding, SteelSolverCfg
from isaaclab_contrib.physics.solvers.vbd import VBDBinding, VBDSolverCfg
from isaaclab_contrib.physics.solvers.xpbd import XPBDBinding, XPBDSolverCfg

__all__ = [
    "FeatherstoneBinding",
    "FeatherstoneSolverCfg",
    "KaminoBinding",
    "KaminoSolverCfg",
    "MJWarpSolverCfg",
    "MPMBinding",
    "MPMDeformableColliderCfg",
    "MPMSolverCfg",
    "MuJoCoBinding",
    "NewtonModelSolverCfg",
    "NewtonSolverCfg",
    "SemiImplicitBinding",
    "SemiImplicitSolverCfg",
    "SolverBinding",
    "SolverConfigError",
    "SteelBinding",
    "SteelSolverCfg",
    "VBDBinding",
    "VBDSolverCfg",
    "XPBDBinding",
    "XPBDSolverCfg",
    "binding_for",
    "register_binding",
    "registered_bindings",
    "resolve_class",
]
