"""Camera sensors: Newton's ray-traced ``SensorCamera``, one view per env, as zero-copy torch images.

A camera sits at a *site*: a per-world site in each env's frame (a fixed camera), a site on a
body (a wrist camera), or one global site for a single view of one env, registered with
``cl_register_site`` when the camera is added. Every env step, after the decimation loop, the
camera transforms are computed from the site poses, the model's shape, particle and triangle BVHs
are refitted to the current state and every view is rendered: inside the captured graph on CUDA,
in an eager stage of its own on the CPU (where Warp refits BVHs with host code a graph does not
record). Cloth and other deformable triangle surfaces, particles (grains) and shapes are all
hit by the rays, so depth sees them.

Camera frame: the camera looks along its local ``-Z`` axis with ``+Y`` up and ``+X`` right (the
USD / OpenGL convention); :func:`look_at` builds such a transform from an eye and a target.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import warp as wp

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime

__all__ = ["DATA_TYPES", "Camera", "CameraData", "CameraRequest", "look_at", "make_ray_camera", "refit_for_render"]

DATA_TYPES = ("rgb", "depth", "segmentation", "normals")
"""Image kinds a camera can produce."""

BACKGROUND = -1
"""Segmentation value of pixels whose ray hit nothing."""

SKY_RGB = (200, 214, 230)
"""Color of pixels whose ray hit nothing (a light sky)."""


def look_at(eye, target, up=(0.0, 0.0, 1.0)) -> wp.transform:
    """The camera transform at *eye* [m] looking at *target* [m], *up* pointing up in the image.

    Raises:
        ValueError: *eye*, *target* or *up* is not 3 finite numbers, *eye* equals *target*, *up* is zero or
            parallel to the viewing direction.
    """
    vectors = {}
    for name, value in (("eye", eye), ("target", target), ("up", up)):
        try:
            vector = np.asarray(value, dtype=np.float64).reshape(3)
        except (TypeError, ValueError):
            raise ValueError(f"look_at: {name} must be 3 finite numbers [m], got {value!r}") from None
        if not np.all(np.isfinite(vector)):
            raise ValueError(f"look_at: {name} must be 3 finite numbers [m], got {vector.tolist()}")
        vectors[name] = vector
    eye, target, up = vectors["eye"], vectors["target"], vectors["up"]
    if np.linalg.norm(up) < 1e-9:
        raise ValueError(f"look_at: up must be a non-zero direction, got {up.tolist()}")
    forward = target - eye
    if np.linalg.norm(forward) < 1e-9:
        raise ValueError(f"look_at: eye {eye.tolist()} and target {target.tolist()} must differ")
    z = -forward / np.linalg.norm(forward)  # the camera looks along -Z
    x = np.cross(up / np.linalg.norm(up), z)
    if np.linalg.norm(x) < 1e-9:
        raise ValueError(f"look_at: up {up.tolist()} is parallel to the viewing direction")
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    rotation = np.stack([x, y, z], axis=1)  # columns: the camera axes in world coordinates
    quat = wp.quat_from_matrix(wp.mat33(*rotation.ravel().tolist()))
    return wp.transform(wp.vec3(*eye.tolist()), quat)


def make_ray_camera(model: Any, width: int, height: int, fov: float) -> tuple[Any, wp.array]:
    """Newton's ``SensorCamera`` on *model* as this project renders (light sky, both sides of open surfaces,
    shadows, one default light) and its pinhole rays for *width* x *height* pixels and vertical *fov* [rad]."""
    from newton.sensors import SensorCamera

    sky = SKY_RGB[0] | SKY_RGB[1] << 8 | SKY_RGB[2] << 16 | 255 << 24  # packed RGBA, red in the low byte
    camera = SensorCamera(
        model,
        load_textures=False,
        default_clear_data=SensorCamera.ClearData(clear_color=sky),
        # Both sides of cloth and other open surfaces (their triangles face either way).
        default_render_config=SensorCamera.RenderConfig(enable_backface_culling=False, enable_shadows=True),
    )
    camera.create_default_light()
    rays = SensorCamera.compute_camera_rays_pinhole(width, height, camera_fov=fov, device=model.device)
    return camera, rays


def refit_for_render(model: Any, state: Any) -> None:
    """Refit the model's shape and particle BVHs to *state* before a render (stale bounds show gaps)."""
    if model.shape_count:
        model.bvh_refit_shapes(state)
    if model.particle_count:
        model.bvh_refit_particles(state)


@wp.kernel(enable_backward=False)
def _site_transforms_kernel(
    sites: wp.array(dtype=wp.int32),
    shape_body: wp.array(dtype=wp.int32),
    shape_transform: wp.array(dtype=wp.transform),
    body_q: wp.array(dtype=wp.transform),
    out: wp.array(dtype=wp.transformf),
):
    view = wp.tid()
    site = sites[view]
    body = shape_body[site]
    local = shape_transform[site]
    if body >= 0:
        out[view] = wp.transform_multiply(body_q[body], local)
    else:
        out[view] = local


class CameraData:
    """What one camera sensor exposes: its images as zero-copy torch tensors, one view per env.

    Attributes:
        rgb: ``(num_envs, height, width, 3)`` ``uint8`` color (``None`` unless ``"rgb"`` was asked for).
        rgba: ``(num_envs, height, width, 4)`` ``uint8`` color with alpha.
        depth: ``(num_envs, height, width, 1)`` ``float32`` distance along each ray from the camera [m];
            ``0`` where the ray hit nothing.
        segmentation: ``(num_envs, height, width, 1)`` ``int32`` index of the shape each ray hit
            (``-1``: nothing; deformable surfaces and particles have their own negative ids).
        normals: ``(num_envs, height, width, 3)`` ``float32`` world-space surface normals.
        camera_transforms: ``(num_envs, 7)`` world pose of every view (position [m], quaternion xyzw).
        intrinsics: ``(3, 3)`` pinhole matrix [pixels] (focal lengths, principal point).
        camera: Newton's ``SensorCamera``.
    """

    def __init__(self, camera: Any, images: dict[str, wp.array], transforms: wp.array, intrinsics: np.ndarray):
        self.camera = camera
        self.images = images
        """The Warp image buffers Newton renders into, by data type."""
        self.intrinsics = intrinsics
        self.camera_transforms = wp.to_torch(transforms)
        self.rgba = self.rgb = self.depth = self.segmentation = self.normals = None
        if "rgb" in images:
            color = wp.to_torch(images["rgb"])  # packed RGBA, one uint32 per pixel
            self.rgba = color.view(torch.uint8).view(*color.shape, 4)
            self.rgb = self.rgba[..., :3]
        if "depth" in images:
            self.depth = wp.to_torch(images["depth"]).unsqueeze(-1)
        if "segmentation" in images:
            self.segmentation = wp.to_torch(images["segmentation"]).view(torch.int32).unsqueeze(-1)
        if "normals" in images:
            self.normals = wp.to_torch(images["normals"])

    @property
    def output(self) -> dict[str, torch.Tensor]:
        """The images by data type (Isaac Lab's ``camera.data.output``): ``"rgb"``, ``"rgba"``, ``"depth"`` (also as
        ``"distance_to_camera"``: the distance along each pixel's ray [m]), ``"normals"``, ``"segmentation"``; each
        ``(num_envs, height, width, channels)``, only those the camera renders."""
        images = {"rgb": self.rgb, "rgba": self.rgba, "depth": self.depth, "distance_to_camera": self.depth}
        images.update({"normals": self.normals, "segmentation": self.segmentation})
        return {name: image for name, image in images.items() if image is not None}


class Camera:
    """A camera of the running simulation as a scene sensor (Isaac Lab's ``Camera``): :attr:`data` is its
    :class:`CameraData` (``data.output["rgb"]``...), rendered after every env step.

    Args:
        manager: The manager class the simulation runs on.
        index: The camera's index (``get_camera_sensor(index)``).
        cfg: Its config (kept as :attr:`cfg`).
    """

    def __init__(self, manager: Any, index: int, cfg: Any = None):
        self._manager = manager
        self.index = int(index)
        self.cfg = cfg
        self._cosines: torch.Tensor | None = None

    @property
    def data(self) -> CameraData:
        """The camera's images and poses (zero-copy tensors)."""
        data = self._manager.get_camera_sensor(self.index)
        if data is None:
            raise RuntimeError(f"Camera {self.index}: the simulation has no such camera (was it closed?)")
        return data

    @property
    def ray_axis_cosines(self) -> torch.Tensor:
        """``(height, width, 1)``: the cosine of the angle between each pixel's ray and the optical axis (a ray
        distance times it is the distance to the image plane), from the pinhole intrinsics."""
        if self._cosines is None:
            data = self.data
            height, width = data.output[next(iter(data.output))].shape[1:3]
            k = np.asarray(data.intrinsics, dtype=np.float64)
            u = (np.arange(width) + 0.5 - k[0, 2]) / k[0, 0]
            v = (np.arange(height) + 0.5 - k[1, 2]) / k[1, 1]
            uu, vv = np.meshgrid(u, v)
            self._cosines = torch.as_tensor(1.0 / np.sqrt(1.0 + uu**2 + vv**2), dtype=torch.float32).unsqueeze(-1)
        return self._cosines


class CameraRequest(SensorRequest):
    """A pinhole camera at a site, one view per env (see the module documentation).

    Args:
        index: Index of the camera (its name in messages is ``camera[index]``).
        site: Label suffix of the site the camera sits at (from ``cl_register_site``).
        width: Image width [pixels].
        height: Image height [pixels].
        fov: Vertical field of view [rad].
        data_types: Which images to render (a subset of :data:`DATA_TYPES`).
        world: ``None``: one view per env, at each env's site; an env index: one view of that env, from
            the one global site (a pose in world coordinates).
    """

    kind = "camera"

    def __init__(
        self,
        index: int,
        site: str,
        width: int,
        height: int,
        fov: float,
        data_types: tuple[str, ...],
        world: int | None = None,
    ):
        super().__init__(f"camera[{index}]")
        self.site = site
        self.width, self.height, self.fov = int(width), int(height), float(fov)
        self.data_types = tuple(data_types)
        self.world = world

    def create(self, build: SensorBuild) -> SensorRuntime:
        model = build.model
        sites, world_indices = self._sites(model)
        camera, rays = make_ray_camera(model, self.width, self.height, self.fov)
        views = len(sites)
        allocate = {
            "rgb": camera.allocate_image_color,
            "depth": camera.allocate_image_depth,
            "segmentation": camera.allocate_image_shape_index,
            "normals": camera.allocate_image_normal,
        }
        images = {kind: allocate[kind](views, self.width, self.height) for kind in self.data_types}
        transforms = wp.zeros(views, dtype=wp.transformf, device=model.device)
        focal = 0.5 * self.height / math.tan(0.5 * self.fov)
        intrinsics = np.array([[focal, 0.0, 0.5 * self.width], [0.0, focal, 0.5 * self.height], [0.0, 0.0, 1.0]])
        data = CameraData(camera, images, transforms, intrinsics)
        site_ids = wp.array(np.asarray(sites, dtype=np.int32), dtype=wp.int32, device=model.device)
        return _CameraRuntime(data, model, site_ids, rays, transforms, world_indices)

    def _sites(self, model: Any) -> tuple[list[int], wp.array | None]:
        """The site shape of every view, and the world each view renders (``None``: view i renders world i)."""
        labels = model.shape_label
        if self.world is not None:
            if not 0 <= self.world < model.world_count:
                raise ValueError(f"{self.name}: env {self.world} does not exist (the scene has {model.world_count})")
            sites = [i for i, label in enumerate(labels) if label == self.site]
            if len(sites) != 1:
                raise ValueError(f"{self.name}: expected one global site {self.site!r}, found {len(sites)}")
            return sites, wp.array([self.world], dtype=wp.int32, device=model.device)
        shape_world, shape_body = model.shape_world.numpy(), model.shape_body.numpy()
        body_world = model.body_world.numpy() if model.body_count else np.zeros(0, dtype=np.int32)
        # A site on a body belongs to the body's world (sites injected after replication are labelled global).
        worlds = {
            i: int(body_world[shape_body[i]] if shape_body[i] >= 0 else shape_world[i])
            for i, label in enumerate(labels)
            if label and label.endswith(f"/{self.site}")
        }
        sites = sorted(worlds, key=worlds.get)
        site_worlds = [worlds[i] for i in sites]
        if site_worlds != list(range(model.world_count)):
            raise ValueError(
                f"{self.name}: needs one camera site per env (worlds 0..{model.world_count - 1}), found sites in worlds "
                f"{site_worlds}; a camera on a body needs a body pattern that matches one body in every env"
            )
        return sites, None


class _CameraRuntime(SensorRuntime):
    def __init__(
        self,
        data: CameraData,
        model: Any,
        sites: wp.array,
        rays: wp.array,
        transforms: wp.array,
        world_indices: wp.array | None,
    ):
        super().__init__(data)
        self.model, self.sites, self.rays, self.transforms = model, sites, rays, transforms
        self.world_indices = world_indices
        self._no_bodies = wp.zeros(1, dtype=wp.transform, device=model.device)

    def graph_blocker(self, device: Any) -> str | None:
        """On the CPU, Warp refits the shape, particle and triangle BVHs the rays traverse on the host
        (``wp.Bvh.refit`` / ``wp.Mesh.refit`` call native host code), which a CPU graph does not record: a
        replayed render would trace stale bounds (moving cloth shows gaps). On CUDA the refits are kernels."""
        if wp.get_device(device).is_cuda:
            return None
        return "Warp refits the camera's BVHs on the host on the CPU (wp.Bvh/wp.Mesh.refit), which a CPU graph does not record"

    def update(self, state: Any) -> None:
        model, data = self.model, self.sensor
        body_q = state.body_q if state.body_q is not None else self._no_bodies
        wp.launch(
            _site_transforms_kernel,
            dim=self.sites.shape[0],
            inputs=[self.sites, model.shape_body, model.shape_transform, body_q],
            outputs=[self.transforms],
            device=model.device,
        )
        refit_for_render(model, state)
        images = data.images
        data.camera.update(
            state,
            self.transforms,
            self.rays,
            color_image=images.get("rgb"),
            depth_image=images.get("depth"),
            shape_index_image=images.get("segmentation"),
            normal_image=images.get("normals"),
            world_indices=self.world_indices,
        )
