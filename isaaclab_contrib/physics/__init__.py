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
name is importable from ``isaaclab_contrib.physics``, the solver families' names too (derived from
:mod:`.solvers`, so a new family changes nothing here).
"""

from isaaclab_contrib.physics import solvers
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
from isaaclab_contrib.physics.solvers import *  # noqa: F403  (every solver family's config and binding)

from isaaclab_contrib.physics.runtime.newton_manager import NewtonManager  # isort: skip
from isaaclab_contrib.physics.runtime.newton_vbd_manager import NewtonVBDManager  # isort: skip
from isaaclab_contrib.physics.runtime.snapshot import SimulationSnapshot  # isort: skip
from isaaclab_contrib.physics.simulation_context import SimulationContext  # isort: skip

__all__ = [
    "ActuatorBaseCfg",
    "CallbackHandle",
    "DCMotorCfg",
    "DelayedPDActuatorCfg",
    "IdealPDActuatorCfg",
    "ImplicitActuatorCfg",
    "NewtonCfg",
    "NewtonCollisionPipelineCfg",
    "NewtonManager",
    "NewtonModelCfg",
    "NewtonShapeCfg",
    "NewtonVBDManager",
    "ObservablesUnsupportedError",
    "PhysicsEvent",
    "SimulationCfg",
    "SimulationContext",
    "SimulationSnapshot",
    "add_actuators",
    *solvers.__all__,  # derived: a new solver family's exports need no line here
]
