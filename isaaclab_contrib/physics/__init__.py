"""Newton physics for Isaac Lab-style tasks, kitless.

The sub-packages show the architecture:

* :mod:`.solvers` — one module per Newton solver family: its config beside its binding.
* :mod:`.runtime` — the class-level manager front, the session (requests), the simulation
  instance built from it and the typed step program.
* :mod:`.sensors` — sensors and the union of solver observables they need.
* :mod:`.actuators` — actuator configs and the actuator stage.
* :mod:`.usd` — USD stages in and out, and USD authoring.

Simulation-wide configs (``SimulationCfg``, ``NewtonCfg``, model, collision pipeline and
per-shape defaults), physics events and ``SimulationContext`` sit at this level; every public
name is importable from ``isaaclab_contrib.physics``.
"""

from isaaclab_contrib.physics.actuators import (
    ActuatorBaseCfg,
    DCMotorCfg,
    DelayedPDActuatorCfg,
    IdealPDActuatorCfg,
    ImplicitActuatorCfg,
    add_actuators,
)
from isaaclab_contrib.physics.collision_cfg import NewtonCollisionPipelineCfg
from isaaclab_contrib.physics.events import CallbackHandle, PhysicsEvent
from isaaclab_contrib.physics.model_cfg import NewtonModelCfg
from isaaclab_contrib.physics.sensors import ObservablesUnsupportedError
from isaaclab_contrib.physics.shape_cfg import NewtonShapeCfg
from isaaclab_contrib.physics.simulation_cfg import NewtonCfg, SimulationCfg
from isaaclab_contrib.physics.solvers import (
    FeatherstoneSolverCfg,
    KaminoSolverCfg,
    MJWarpSolverCfg,
    MPMDeformableColliderCfg,
    MPMSolverCfg,
    NewtonModelSolverCfg,
    NewtonSolverCfg,
    SemiImplicitSolverCfg,
    SolverBinding,
    SolverConfigError,
    SteelSolverCfg,
    VBDSolverCfg,
    XPBDSolverCfg,
    binding_for,
    register_binding,
    resolve_class,
)

from isaaclab_contrib.physics.runtime.newton_manager import NewtonManager  # isort: skip
from isaaclab_contrib.physics.runtime.newton_vbd_manager import NewtonVBDManager  # isort: skip
from isaaclab_contrib.physics.simulation_context import SimulationContext  # isort: skip

__all__ = [
    "ActuatorBaseCfg",
    "CallbackHandle",
    "DCMotorCfg",
    "DelayedPDActuatorCfg",
    "FeatherstoneSolverCfg",
    "IdealPDActuatorCfg",
    "ImplicitActuatorCfg",
    "KaminoSolverCfg",
    "MJWarpSolverCfg",
    "MPMDeformableColliderCfg",
    "MPMSolverCfg",
    "NewtonCfg",
    "NewtonCollisionPipelineCfg",
    "NewtonManager",
    "NewtonModelCfg",
    "NewtonModelSolverCfg",
    "NewtonShapeCfg",
    "NewtonSolverCfg",
    "NewtonVBDManager",
    "ObservablesUnsupportedError",
    "PhysicsEvent",
    "SemiImplicitSolverCfg",
    "SimulationCfg",
    "SimulationContext",
    "SolverBinding",
    "SolverConfigError",
    "SteelSolverCfg",
    "VBDSolverCfg",
    "XPBDSolverCfg",
    "add_actuators",
    "binding_for",
    "register_binding",
    "resolve_class",
]
