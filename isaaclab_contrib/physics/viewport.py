"""Frames for people to watch: a ray-traced view of the running simulation, rendered outside the step program.

A video is not an observation. Cameras that a task reads are sensors: they render inside the step program,
and on the CPU their host-side BVH refits make that program partly eager. A :class:`Viewport` renders after
``step()`` returned, from the state the step left, so the physics stays one captured graph; it costs only
when a frame is asked for (:meth:`Viewport.render`).

What it adds to the bare ray-traced image, so that a viewer can read it:

* a ground: pixels whose ray hits nothing but a plane at ``ground_height`` below the horizon show a checker
  of 10 cm squares with darker lines every metre (the scale), and a real ground shape at that height gets
  the same checker;
* pins: particles that never move (zero inverse mass) are marked as small red dots where they are visible.

The camera frame is Newton's: it looks along its local ``-Z`` axis, ``+Y`` up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import warp as wp

from isaaclab_contrib.physics.sensors.camera import look_at, make_ray_camera, refit_for_render
from isaaclab_contrib.utils.video import tile_frames

__all__ = ["Viewport"]

GRID_CELL = 0.1
"""Edge of one ground checker square [m]."""

PIN_RGB = (220, 30, 30)
"""Color of the dots marking pinned particles."""

_LIGHT, _DARK, _LINE = (186, 182, 172), (160, 156, 146), (105, 102, 96)


class Viewport:
    """A camera for videos and ``render()``: one view of an env, or a grid with one view per env.

    Args:
        model: The finalized Newton model of the running simulation.
        width: Image width of one view [pixels], 1 to 4096.
        height: Image height of one view [pixels], 1 to 4096.
        eye: Camera position [m]: in world coordinates for a single view; in each env's frame (added to
            ``env_origins[i]``) for a grid.
        target: The point the camera looks at [m], in the same frame as *eye*.
        up: The direction that points up in the image.
        fov: Vertical field of view [rad], in (0, pi).
        env_index: The env a single view renders; ``None``: one view per env, tiled row by row.
        env_origins: Origin of every env [m], ``(num_envs, 3)``; required for a grid.
        ground_height: Height of the drawn ground plane along z [m]; ``None``: no ground is drawn.
        mark_pins: Mark particles with zero inverse mass.

    Raises:
        TypeError / ValueError: A bad argument, naming it; nothing is created.
    """

    def __init__(
        self,
        model: Any,
        width: int,
        height: int,
        *,
        eye: Sequence[float],
        target: Sequence[float],
        up: Sequence[float] = (0.0, 0.0, 1.0),
        fov: float = math.radians(50.0),
        env_index: int | None = 0,
        env_origins: Sequence[Sequence[float]] | None = None,
        ground_height: float | None = 0.0,
        mark_pins: bool = True,
    ):
        where = type(self).__name__
        for name, value in (("width", width), ("height", height)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{where}: {name} must be an integer number of pixels, got {value!r}")
            if not 1 <= value <= 4096:
                raise ValueError(f"{where}: {name} must be in [1, 4096] pixels, got {value}")
        if isinstance(fov, bool) or not isinstance(fov, (int, float)) or not 0.0 < float(fov) < math.pi:
            raise ValueError(f"{where}: fov must be a number of radians in (0, pi), got {fov!r}")
        eye, target, up = (_vector(v, f"{where}: {n}") for v, n in ((eye, "eye"), (target, "target"), (up, "up")))
        if ground_height is not None and (
            isinstance(ground_height, bool)
            or not isinstance(ground_height, (int, float))
            or not math.isfinite(ground_height)
        ):
            raise ValueError(f"{where}: ground_height must be a finite height [m] or None, got {ground_height!r}")
        worlds = max(1, int(model.world_count))
        if env_index is None:
            if env_origins is None:
                raise ValueError(f"{where}: a grid of every env (env_index=None) needs env_origins")
            origins = np.asarray(env_origins, dtype=np.float64)
            if origins.shape != (worlds, 3) or not np.all(np.isfinite(origins)):
                raise ValueError(f"{where}: env_origins must be {worlds} finite (x, y, z) rows, got {origins.shape}")
            world_ids = list(range(worlds))
        else:
            if isinstance(env_index, bool) or not isinstance(env_index, int) or not 0 <= env_index < worlds:
                raise ValueError(
                    f"{where}: env_index must be an env of the scene (0..{worlds - 1}) or None, got {env_index!r}"
                )
            origins = np.zeros((1, 3))
            world_ids = [env_index]
        poses = [look_at(eye + origin, target + origin, up) for origin in origins]  # refuses eye == target
        self.model = model
        self.width, self.height, self.fov = width, height, float(fov)
        self.env_index = env_index
        self.ground_height = None if ground_height is None else float(ground_height)
        self.mark_pins = bool(mark_pins)
        device = model.device
        self._camera, self._rays = make_ray_camera(model, width, height, self.fov)
        self._color = self._camera.allocate_image_color(len(poses), width, height)
        self._depth = self._camera.allocate_image_depth(len(poses), width, height)
        self._transforms = wp.array(poses, dtype=wp.transformf, device=device)
        self._worlds = wp.array(world_ids, dtype=wp.int32, device=device)
        self._world_ids = world_ids
        rays = self._rays.numpy()[:, :, 0]  # (height, width, 2, 3): camera-space origins and directions
        self._ray_origins, self._ray_dirs = rays[:, :, 0].astype(np.float64), rays[:, :, 1].astype(np.float64)
        self._poses = [(np.asarray(p.p, dtype=np.float64), _rotation(p)) for p in poses]
        self._pins = self._pinned_particles(model)
        self.frames = 0
        """How many frames :meth:`render` produced [count]."""

    @staticmethod
    def _pinned_particles(model: Any) -> dict[int, np.ndarray]:
        """Indices of the particles with zero inverse mass, by world."""
        if not model.particle_count or model.particle_inv_mass is None:
            return {}
        pinned = np.flatnonzero(model.particle_inv_mass.numpy() == 0.0)
        worlds = model.particle_world.numpy()[pinned]
        return {int(w): pinned[worlds == w] for w in np.unique(worlds)}

    def render(self, state: Any) -> np.ndarray:
        """Render *state* (the state ``step()`` left: ``manager.get_state_0()``) and return an RGB ``uint8``
        image ``(height, width, 3)``, or the grid of every env's view for ``env_index=None`` (a new array)."""
        refit_for_render(self.model, state)
        self._camera.update(
            state,
            self._transforms,
            self._rays,
            color_image=self._color,
            depth_image=self._depth,
            world_indices=self._worlds,
        )
        color = self._color.numpy().view(np.uint8).reshape(len(self._poses), self.height, self.width, 4)[..., :3]
        depth = self._depth.numpy()
        particles = state.particle_q.numpy() if self._pins and state.particle_q is not None else None
        views = []
        for i, (eye, rotation) in enumerate(self._poses):
            image = np.array(color[i])
            if self.ground_height is not None:
                self._draw_ground(image, depth[i], eye, rotation)
            if self.mark_pins and particles is not None and self._world_ids[i] in self._pins:
                self._draw_points(image, depth[i], eye, rotation, particles[self._pins[self._world_ids[i]]])
            views.append(image)
        self.frames += 1
        return views[0] if len(views) == 1 else tile_frames(np.stack(views))

    # ------------------------------------------------------------------ overlays
    def _world_rays(self, eye: np.ndarray, rotation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        origins = eye + self._ray_origins @ rotation.T
        directions = self._ray_dirs @ rotation.T
        return origins, directions / np.linalg.norm(directions, axis=-1, keepdims=True)

    def _draw_ground(self, image: np.ndarray, depth: np.ndarray, eye: np.ndarray, rotation: np.ndarray) -> None:
        """Checker the plane z = ground_height where rays miss everything or hit a surface lying on it."""
        origins, directions = self._world_rays(eye, rotation)
        height = self.ground_height
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (height - origins[..., 2]) / directions[..., 2]
        missed = (depth <= 0.0) & (directions[..., 2] < 0.0) & (t > 0.0)
        hit = origins + depth[..., None] * directions
        on_ground = (depth > 0.0) & (np.abs(hit[..., 2] - height) < 2e-3)
        points = np.where(missed[..., None], origins + t[..., None] * directions, hit)
        cells = np.floor(points[..., :2] / GRID_CELL).astype(np.int64)
        dark = (cells[..., 0] + cells[..., 1]) % 2 == 1
        near_metre = np.any(np.abs(points[..., :2] - np.round(points[..., :2])) < 0.006, axis=-1)
        floor = np.where(dark[..., None], _DARK, _LIGHT).astype(np.float64)
        floor[near_metre] = _LINE
        # Fade the far floor into the sky so the horizon reads as distance.
        fade = np.clip(np.where(missed, t, 0.0) / 25.0, 0.0, 1.0)[..., None]
        sky = image.astype(np.float64)
        image[missed] = ((1.0 - fade) * floor + fade * sky)[missed].astype(np.uint8)
        if np.any(on_ground):
            # A ground shape the renderer drew: the checker's colors, shaded as the renderer lit it (shadows).
            light = sky[on_ground].mean(axis=1)
            factor = np.clip(light / max(float(np.percentile(light, 90)), 1.0), 0.0, 1.0)[:, None]
            image[on_ground] = (floor[on_ground] * factor).astype(np.uint8)

    def _draw_points(
        self, image: np.ndarray, depth: np.ndarray, eye: np.ndarray, rotation: np.ndarray, points: np.ndarray
    ) -> None:
        """Mark *points* [m, world] that are not hidden behind a surface with small dots."""
        local = (points - eye) @ rotation  # camera frame: x right, y up, looking along -z
        ahead = local[:, 2] < -1e-6
        local = local[ahead]
        focal = 0.5 * self.height / math.tan(0.5 * self.fov)
        u = 0.5 * self.width + focal * local[:, 0] / -local[:, 2]
        v = 0.5 * self.height - focal * local[:, 1] / -local[:, 2]
        distance = np.linalg.norm(local, axis=1)
        radius = max(1, self.height // 240)
        for x, y, d in zip(u.astype(int), v.astype(int), distance, strict=True):
            if not (0 <= x < self.width and 0 <= y < self.height):
                continue
            seen = depth[y, x]
            if seen > 0.0 and seen < d - 0.02:  # something is in front of the pin
                continue
            image[max(0, y - radius) : y + radius + 1, max(0, x - radius) : x + radius + 1] = PIN_RGB


def _vector(value: Any, what: str) -> np.ndarray:
    """*value* as a finite 3-vector [m], or a ``ValueError`` naming *what*."""
    try:
        vector = np.asarray(value, dtype=np.float64).reshape(3)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be three numbers, got {value!r}") from None
    if not np.all(np.isfinite(vector)):
        raise ValueError(f"{what} must be finite, got {vector.tolist()}")
    return vector


def _rotation(pose: wp.transform) -> np.ndarray:
    """The 3x3 rotation of *pose* (columns: the camera axes in world coordinates)."""
    return np.asarray(wp.quat_to_matrix(pose.q), dtype=np.float64).reshape(3, 3)
