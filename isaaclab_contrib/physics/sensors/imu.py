"""IMU sensors: Newton's ``SensorIMU`` at sites, fed by ``body_qdd``."""

from __future__ import annotations

from typing import Any

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime, SensorSources
from isaaclab_contrib.physics.sensors.observables import BODY_QDD
from isaaclab_contrib.utils.labels import compile_patterns

__all__ = ["ImuRequest"]


class ImuRequest(SensorRequest):
    """An IMU at site indices or at the sites whose labels match a regex (resolved on the finalized model)."""

    kind = "imu"

    def __init__(self, index: int, sites: list[int] | str):
        super().__init__(f"imu[{index}]", frozenset({BODY_QDD}))
        self.sites = sites if isinstance(sites, str) else tuple(sites)

    def create(self, build: SensorBuild) -> SensorRuntime:
        import newton

        sites = compile_patterns(self.sites) if isinstance(self.sites, str) else list(self.sites)
        return _ImuRuntime(newton.sensors.SensorIMU(build.model, sites=sites, request_state_attributes=False))


class _ImuRuntime(SensorRuntime):
    observables: Any = None

    def connect(self, sources: SensorSources) -> None:
        self.observables = sources.step_average if sources.step_average is not None else sources.observables

    def update(self, state: Any) -> None:
        self.sensor.update(state, observables=self.observables)
