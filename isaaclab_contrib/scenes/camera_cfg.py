"""Camera configs for scenes and tasks: where a camera looks from, what it renders, and automatic framing.

A :class:`CameraCfg` is added by :func:`~isaaclab_contrib.scenes.launch` (its ``cameras`` argument) through
:meth:`NewtonCouplerManager.add_camera_sensor`: a camera with ``env_index=None`` has one view per env and a
pose in each env's frame (registered before the envs are replicated); a camera with an ``env_index`` has one
view of that env and a pose in world coordinates, which may be left out (``eye=None``) to frame the env's
bodies and particles automatically once the scene is built.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from isaaclab_contrib.utils.configclass import check_missing, configclass
from isaaclab_contrib.utils.validation import check_fields

__all__ = ["CameraCfg", "frame_env", "frame_points", "make_viewport"]


@configclass
class CameraCfg:
    """A pinhole camera (Newton's ray-traced ``SensorCamera``); Isaac Lab's ``ViewerCfg`` / ``CameraCfg`` roles."""

    _ranges: ClassVar[dict[str, str]] = {
        "width": "[1, 4096]",
        "height": "[1, 4096]",
        "fov": "(0, 3.14159)",
        "env_index": ">= 0",
        "eye": "any",
        "target": "any",
        "up": "any",
        "distance_scale": "> 0",
    }

    width: int = 320
    """Image width [pixels]."""
    height: int = 240
    """Image height [pixels]."""
    fov: float = math.radians(50.0)
    """Vertical field of view [rad]."""
    data_types: tuple[str, ...] = ("rgb",)
    """Images to render: ``"rgb"``, ``"depth"``, ``"segmentation"``, ``"normals"``."""
    env_index: int | None = 0
    """``None``: one view per env, the pose in each env's frame. An env index: one view of that env, the pose
    in world coordinates (or framed automatically)."""
    eye: tuple[float, float, float] | None = None
    """Camera position [m] (env frame for per-env cameras, world for single-env ones; relative to the body
    when :attr:`body` is set). ``None`` (single-env cameras only): framed from the env's bounding box."""
    target: tuple[float, float, float] | None = None
    """The point the camera looks at [m], in the same frame as :attr:`eye`; ``None`` with ``eye=None``."""
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    """The direction that points up in the image."""
    body: str | None = None
    """Regex of a body the camera rides on (a wrist camera, one view per env); ``None``: fixed."""
    distance_scale: float = 1.6
    """Automatic framing: camera distance as a multiple of what fits the env's bounding sphere in the field of
    view [dimensionless]."""

    def validate(self) -> None:
        """Check types, ranges and that the pose is complete for the kind of camera."""
        check_missing(self)
        check_fields(self)
        from isaaclab_contrib.physics.sensors.camera import DATA_TYPES

        cls = type(self).__name__
        kinds = tuple(self.data_types)
        if not kinds or any(k not in DATA_TYPES for k in kinds) or len(set(kinds)) != len(kinds):
            raise ValueError(f"{cls}.data_types must be distinct names from {list(DATA_TYPES)}, got {kinds!r}")
        if (self.eye is None) != (self.target is None):
            raise ValueError(f"{cls}.eye and {cls}.target must be given together (or both None)")
        if self.eye is None and (self.env_index is None or self.body is not None):
            raise ValueError(f"{cls}.eye is required for a per-env or body camera (env_index=None or body set)")
        if self.body is not None and self.env_index is not None:
            raise ValueError(f"{cls}.body needs env_index=None: a camera on a body has one view per env")


def frame_env(builder: Any, env_index: int, camera: CameraCfg) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """An eye and target [m] that frame the bodies and particles of world *env_index* of *builder*.

    The camera looks at the center of their bounding box from the diagonal direction (-1, -1, 0.8)
    (its last component along the builder's up axis), far enough that the bounding sphere fits the
    vertical field of view, times :attr:`CameraCfg.distance_scale`.

    Raises:
        ValueError: The world does not exist.
    """
    if not 0 <= env_index < max(1, builder.world_count):
        raise ValueError(f"frame_env: env {env_index} does not exist (the builder has {builder.world_count} worlds)")
    points = []
    if builder.body_count:
        worlds = np.asarray(builder.body_world)
        poses = np.asarray(builder.body_q, dtype=np.float64).reshape(-1, 7)[:, :3]
        points.append(poses[(worlds == env_index) | (builder.world_count == 0)])
    if builder.particle_count:
        worlds = np.asarray(builder.particle_world)
        positions = np.asarray(builder.particle_q, dtype=np.float64).reshape(-1, 3)
        points.append(positions[(worlds == env_index) | (builder.world_count == 0)])
    return frame_points(np.concatenate(points) if points else np.zeros((0, 3)), camera, int(builder.up_axis))


def frame_points(cloud: np.ndarray, camera: CameraCfg, up_axis: int = 2) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """An eye and target [m] that frame the points *cloud* ``(n, 3)`` [m] (see :func:`frame_env`)."""
    cloud = np.asarray(cloud, dtype=np.float64).reshape(-1, 3)
    cloud = cloud[np.all(np.isfinite(cloud), axis=1)]
    if cloud.size == 0:
        cloud = np.zeros((1, 3))
    lo, hi = cloud.min(axis=0), cloud.max(axis=0)
    center = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), 0.2)
    distance = camera.distance_scale * radius / math.tan(0.5 * camera.fov)
    direction = np.roll(np.array([-1.0, -1.0, 0.8]), up_axis - 2)  # height along the up axis
    eye = center + distance * direction / np.linalg.norm(direction)
    return tuple(float(v) for v in eye), tuple(float(v) for v in center)


def make_viewport(manager: Any, camera: CameraCfg, scene: Any = None, *, ground_height: float | None = 0.0) -> Any:
    """A :class:`~isaaclab_contrib.physics.viewport.Viewport` of the running simulation, posed as *camera* says:
    for frames people watch (videos, ``render()``), rendered outside the captured step program.

    Args:
        manager: The physics manager of the running simulation (after ``sim.reset()``).
        camera: Where to look from. A single view (``env_index`` set) takes *eye* / *target* in world
            coordinates, or frames that env's bodies and particles as they are now when both are ``None``.
            A grid (``env_index=None``) takes them in each env's frame and needs *scene*.
        scene: The scene config the simulation was built from (its env origins place a grid's views).
        ground_height: Height of the drawn checker ground [m]; ``None``: none.

    Raises:
        ValueError: The camera is invalid, rides a body (a video camera is fixed), or a grid has no scene.
    """
    from isaaclab_contrib.physics.viewport import Viewport

    camera.validate()
    if camera.body is not None:
        raise ValueError(f"{type(camera).__name__}.body: a viewport is fixed; a camera on a body is a sensor")
    model = manager.get_model()
    eye, target, origins = camera.eye, camera.target, None
    if camera.env_index is None:
        if scene is None:
            raise ValueError("make_viewport: a grid of every env (env_index=None) needs the scene config")
        origins = scene.env_origin_positions(up_axis=int(model.up_axis))
    elif eye is None:
        state, env = manager.get_state_0(), camera.env_index
        points = []
        if model.body_count:
            points.append(state.body_q.numpy()[model.body_world.numpy() == env, :3])
        if model.particle_count:
            points.append(state.particle_q.numpy()[model.particle_world.numpy() == env])
        eye, target = frame_points(np.concatenate(points) if points else np.zeros((0, 3)), camera, int(model.up_axis))
    return Viewport(
        model,
        camera.width,
        camera.height,
        eye=eye,
        target=target,
        up=camera.up,
        fov=camera.fov,
        env_index=camera.env_index,
        env_origins=origins,
        ground_height=ground_height,
    )
