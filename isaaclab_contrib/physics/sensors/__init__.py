"""Sensors on the manager and the union of solver observables they need (:mod:`.observables`)."""

from isaaclab_contrib.physics.sensors.observables import ObservablesUnsupportedError

__all__ = ["ObservablesUnsupportedError"]
