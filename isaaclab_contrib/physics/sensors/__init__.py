"""Sensors on the manager, one module per kind behind one small interface (:mod:`.base`), and the
union of solver observables they need (:mod:`.observables`).

Kinds: :mod:`.imu` (``SensorIMU``), :mod:`.contact` (``SensorContact``), :mod:`.frame_transform`
(``SensorFrameTransform``), :mod:`.camera` (``SensorCamera``). The coupler's own kinds (coupled scenes) live
beside the samplers that feed them, behind the same interface: :mod:`isaaclab_contrib.coupling.interface_force`
(forces between entries), :mod:`isaaclab_contrib.coupling.coupling_diagnostics` (convergence of the coupling),
:mod:`isaaclab_contrib.coupling.penetration` (particles into rigid shapes).
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
