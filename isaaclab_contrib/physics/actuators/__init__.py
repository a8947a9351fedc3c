"""Actuators the Isaac Lab way: configs per joint regex (:mod:`.cfg`) turned into Newton actuators and
stepped inside the captured step (:mod:`.adapter`)."""

from isaaclab_contrib.physics.actuators.adapter import NewtonActuatorAdapter, add_actuators
from isaaclab_contrib.physics.actuators.cfg import (
    ActuatorBaseCfg,
    DCMotorCfg,
    DelayedPDActuatorCfg,
    IdealPDActuatorCfg,
    ImplicitActuatorCfg,
)

__all__ = [
    "ActuatorBaseCfg",
    "DCMotorCfg",
    "DelayedPDActuatorCfg",
    "IdealPDActuatorCfg",
    "ImplicitActuatorCfg",
    "NewtonActuatorAdapter",
    "add_actuators",
]
