"""Sensors on the manager, one module per kind behind one small interface (:mod:`.base`), and the
union of solver observables they need (:mod:`.observables`).

Kinds: :mod:`.imu` (``SensorIMU``), :mod:`.contact` (``SensorContact``), :mod:`.frame_transform`
(``SensorFrameTransform``).
"""

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime, SensorSources
from isaaclab_contrib.physics.sensors.contact import ContactRequest, ContactSensorKey, contact_sensor_key
from isaaclab_contrib.physics.sensors.frame_transform import FrameTransformRequest
from isaaclab_contrib.physics.sensors.imu import ImuRequest
from isaaclab_contrib.physics.sensors.observables import ObservablesUnsupportedError

__all__ = [
    "ContactRequest",
    "ContactSensorKey",
    "FrameTransformRequest",
    "ImuRequest",
    "ObservablesUnsupportedError",
    "SensorBuild",
    "SensorRequest",
    "SensorRuntime",
    "SensorSources",
    "contact_sensor_key",
]
