"""Sensors on the manager, one module per kind behind one small interface (:mod:`.base`), and the
union of solver observables they need (:mod:`.observables`).

Kinds: :mod:`.imu` (``SensorIMU``), :mod:`.contact` (``SensorContact``), :mod:`.frame_transform`
(``SensorFrameTransform``), and the coupler's own (coupled scenes): :mod:`.interface_force` (forces between
entries), :mod:`.coupling_diagnostics` (convergence of the coupling), :mod:`.penetration` (particles into rigid
shapes).
"""

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime, SensorSources
from isaaclab_contrib.physics.sensors.contact import ContactRequest, ContactSensorKey, contact_sensor_key
from isaaclab_contrib.physics.sensors.coupling_diagnostics import CouplingDiagnosticsRequest, CouplingDiagnosticsSensor
from isaaclab_contrib.physics.sensors.frame_transform import FrameTransformRequest
from isaaclab_contrib.physics.sensors.imu import ImuRequest
from isaaclab_contrib.physics.sensors.interface_force import InterfaceForceRequest, InterfaceForceSensor
from isaaclab_contrib.physics.sensors.observables import ObservablesUnsupportedError
from isaaclab_contrib.physics.sensors.penetration import PenetrationRequest, PenetrationSensor

__all__ = [
    "ContactRequest",
    "ContactSensorKey",
    "CouplingDiagnosticsRequest",
    "CouplingDiagnosticsSensor",
    "FrameTransformRequest",
    "ImuRequest",
    "InterfaceForceRequest",
    "InterfaceForceSensor",
    "ObservablesUnsupportedError",
    "PenetrationRequest",
    "PenetrationSensor",
    "SensorBuild",
    "SensorRequest",
    "SensorRuntime",
    "SensorSources",
    "contact_sensor_key",
]
