"""Frame-transform sensors: Newton's ``SensorFrameTransform`` (shape poses relative to reference sites)."""

from __future__ import annotations

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime

__all__ = ["FrameTransformRequest"]


class FrameTransformRequest(SensorRequest):
    """Poses of *shapes* relative to *reference_sites* (shape indices of the finalized model, pairwise)."""

    kind = "frame_transform"

    def __init__(self, index: int, shapes: list[int], reference_sites: list[int]):
        super().__init__(f"frame_transform[{index}]")
        self.shapes = tuple(shapes)
        self.reference_sites = tuple(reference_sites)

    def create(self, build: SensorBuild) -> SensorRuntime:
        import newton

        return SensorRuntime(
            newton.sensors.SensorFrameTransform(
                build.model, shapes=list(self.shapes), reference_sites=list(self.reference_sites)
            )
        )
