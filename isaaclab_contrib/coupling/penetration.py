"""Penetration sensors: per env, how deep the particles of one entry sink into the rigid shapes of another.

Measured geometrically on the state at the end of each env step, independent of any solver's contact
detection, margins or contact capacity: for every particle and every rigid shape of its env, the shape-local
signed distance of the particle's center (box, sphere, capsule, cylinder: closed form; mesh and convex mesh:
``wp.mesh_query_point_sign_normal``). A particle penetrates by ``max(0, radius - distance)`` (the overlap of
its contact sphere with the shape, the gap Newton's soft contacts close). It *tunnelled* when its center is
inside a shape at the end of the env step (it passed the surface: a contact pushes it out through the nearest
face, possibly the far one), or when, in the shape's frame, it moved straight through a shape during the env
step (both ends outside; found by sphere tracing the segment). Which entries' particles and shapes are compared
(:func:`resolve_penetration`) is resolved by the coupled bound solver
(:meth:`~isaaclab_contrib.coupling.binding.BoundCoupledSolver.penetration_pairs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import warp as wp

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime

from .coupler_internals import check_entry_pair, env_layout, gather_rows_kernel, select_bodies

__all__ = [
    "PENETRATION_SHAPE_TYPES",
    "PenetrationPairs",
    "PenetrationRequest",
    "PenetrationSensor",
    "resolve_penetration",
]

PENETRATION_SHAPE_TYPES = {3: "sphere", 4: "capsule", 6: "cylinder", 7: "box", 8: "mesh", 10: "convex mesh"}
"""``newton.GeoType`` values the penetration sensor measures (Newton 1.8 numbering) -> names."""


@dataclass
class PenetrationPairs:
    """The particles and rigid shapes a penetration sensor compares, per env."""

    particle_entry: str
    rigid_entry: str
    particles: np.ndarray
    """``(num_envs, num_particles)`` model particle ids."""
    shapes: np.ndarray
    """``(num_envs, num_shapes)`` model shape ids (collision shapes on bodies)."""


def resolve_penetration(
    model: Any, plan: Any, coupler: str, entry: str, partner: str, bodies: Sequence[str] | None, what: str
) -> PenetrationPairs:
    """The particles of one of the two entries against the body shapes of the other.

    The entry owning particles is the particle side and the one owning collision shapes on bodies the rigid
    side; when both could be either, *entry* is the particle side. *bodies* (label regexes) selects bodies of
    the rigid side.
    """
    import newton

    check_entry_pair(plan.entries, coupler, entry, partner, what)
    shape_body = model.shape_body.numpy() if model.shape_count else np.zeros(0, dtype=np.int32)
    shape_flags = model.shape_flags.numpy() if model.shape_count else np.zeros(0, dtype=np.int32)
    collide = int(newton.ShapeFlags.COLLIDE_PARTICLES)

    def body_shapes(name: str) -> list[int]:
        # The shapes on the entry's bodies, whether or not the entry owns them: an entry that leaves its body
        # shapes to no solver (``include_body_shapes=False``, e.g. a proxied robot) still carries them, and the
        # proxies' copies collide with the particles.
        own = plan.entries[name]
        bodies_of_entry = set(own.bodies)
        on_bodies = set(own.shapes) | {s for s in range(len(shape_body)) if shape_body[s] in bodies_of_entry}
        return sorted(s for s in on_bodies if shape_body[s] >= 0 and shape_flags[s] & collide)

    def describe(name: str) -> str:
        own = plan.entries[name]
        return (
            f"{name!r} owns {len(own.particles)} particles and {len(body_shapes(name))} particle-colliding body shapes"
        )

    if plan.entries[entry].particles and body_shapes(partner):
        particle_entry, rigid_entry = entry, partner
    elif plan.entries[partner].particles and body_shapes(entry):
        particle_entry, rigid_entry = partner, entry
    else:
        raise ValueError(
            f"{what}: a penetration sensor compares the particles of one entry with the rigid shapes on bodies of the "
            f"other, but {describe(entry)} and {describe(partner)}"
        )
    shapes = body_shapes(rigid_entry)
    if bodies is not None:
        selected = select_bodies(model, bodies, set(plan.entries[rigid_entry].bodies), rigid_entry, coupler, what)
        shapes = [s for s in shapes if int(shape_body[s]) in selected]
        if not shapes:
            raise ValueError(f"{what}: bodies={list(bodies)!r} selects no body with a particle-colliding shape")
    types = model.shape_type.numpy()
    unsupported = [s for s in shapes if int(types[s]) not in PENETRATION_SHAPE_TYPES]
    if unsupported:
        labels = [f"{model.shape_label[s]} (GeoType {int(types[s])})" for s in unsupported[:4]]
        raise ValueError(
            f"{what}: shapes {labels} of entry {rigid_entry!r} have a type the penetration sensor does not measure; "
            f"supported: {sorted(PENETRATION_SHAPE_TYPES.values())}. Narrow bodies= to bodies with such shapes"
        )
    envs = max(int(model.world_count), 1)
    return PenetrationPairs(
        particle_entry=particle_entry,
        rigid_entry=rigid_entry,
        particles=env_layout(
            plan.entries[particle_entry].particles, model.particle_world.numpy(), envs, f"{what}: the particles"
        ),
        shapes=env_layout(shapes, model.shape_world.numpy(), envs, f"{what}: the rigid shapes"),
    )


# --------------------------------------------------------------------------------------------- measurement
_FAR = wp.constant(1.0e6)
_TRACE_EPS = wp.constant(1.0e-6)
_TRACE_STEPS = wp.constant(64)


@wp.func
def _shape_distance(geo: int, scale: wp.vec3, mesh: wp.uint64, p: wp.vec3) -> float:
    """Signed distance [m] of the shape-local point *p* to the shape (negative inside; Newton's Z-up conventions:
    box half extents, sphere radius, capsule and cylinder radius and half height along z)."""
    if geo == 3:  # sphere
        return wp.length(p) - scale[0]
    if geo == 7:  # box
        qx = wp.abs(p[0]) - scale[0]
        qy = wp.abs(p[1]) - scale[1]
        qz = wp.abs(p[2]) - scale[2]
        outside = wp.length(wp.vec3(wp.max(qx, 0.0), wp.max(qy, 0.0), wp.max(qz, 0.0)))
        return outside + wp.min(wp.max(qx, wp.max(qy, qz)), 0.0)
    if geo == 4:  # capsule
        z = wp.clamp(p[2], -scale[1], scale[1])
        return wp.length(p - wp.vec3(0.0, 0.0, z)) - scale[0]
    if geo == 6:  # cylinder
        dr = wp.sqrt(p[0] * p[0] + p[1] * p[1]) - scale[0]
        dz = wp.abs(p[2]) - scale[1]
        er = wp.max(dr, 0.0)
        ez = wp.max(dz, 0.0)
        return wp.min(wp.max(dr, dz), 0.0) + wp.sqrt(er * er + ez * ez)
    if geo == 8 or geo == 10:  # mesh, convex mesh (unscaled mesh, scaled shape)
        q = wp.cw_div(p, scale)
        query = wp.mesh_query_point_sign_normal(mesh, q, _FAR)
        if query.result:
            closest = wp.mesh_eval_position(mesh, query.face, query.u, query.v)
            return query.sign * wp.length(wp.cw_mul(q - closest, scale))
    return _FAR


@wp.func
def _segment_hits(geo: int, scale: wp.vec3, mesh: wp.uint64, a: wp.vec3, b: wp.vec3) -> int:
    """1 when the segment from *a* to *b* (shape-local, both outside) touches the shape (sphere tracing)."""
    d = b - a
    length = wp.length(d)
    if length <= 0.0:
        return 0
    t = wp.float32(0.0)
    for _ in range(_TRACE_STEPS):
        dist = _shape_distance(geo, scale, mesh, a + d * t)
        if dist <= _TRACE_EPS:
            return 1
        t = t + dist / length
        if t >= 1.0:
            return 0
    return 0


@wp.kernel(enable_backward=False)
def _snapshot_shapes_kernel(
    fresh: wp.array(dtype=wp.int32),
    shapes: wp.array(dtype=wp.int32),
    shape_body: wp.array(dtype=wp.int32),
    shape_transform: wp.array(dtype=wp.transform),
    body_q: wp.array(dtype=wp.transform),
    previous: wp.array(dtype=wp.transform),
):
    i = wp.tid()
    if fresh[0] != 0:
        s = shapes[i]
        previous[i] = body_q[shape_body[s]] * shape_transform[s]


@wp.kernel(enable_backward=False)
def _clear_flag_kernel(fresh: wp.array(dtype=wp.int32)):
    fresh[0] = 0


@wp.kernel(enable_backward=False)
def _penetration_kernel(
    particles: wp.array(dtype=wp.int32),
    num_particles: int,
    shapes: wp.array(dtype=wp.int32),
    num_shapes: int,
    particle_q: wp.array(dtype=wp.vec3),
    particle_radius: wp.array(dtype=float),
    shape_body: wp.array(dtype=wp.int32),
    shape_transform: wp.array(dtype=wp.transform),
    shape_type: wp.array(dtype=wp.int32),
    shape_scale: wp.array(dtype=wp.vec3),
    shape_source: wp.array(dtype=wp.uint64),
    body_q: wp.array(dtype=wp.transform),
    previous_q: wp.array(dtype=wp.vec3),
    previous_xform: wp.array(dtype=wp.transform),
    depth: wp.array(dtype=float),
    flags: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    env = i // num_particles
    pid = particles[i]
    x = particle_q[pid]
    radius = particle_radius[pid]
    deepest = wp.float32(0.0)
    bits = wp.int32(0)
    for k in range(num_shapes):
        slot = env * num_shapes + k
        s = shapes[slot]
        geo = shape_type[s]
        scale = shape_scale[s]
        mesh = shape_source[s]
        xform = body_q[shape_body[s]] * shape_transform[s]
        dist = _shape_distance(geo, scale, mesh, wp.transform_point(wp.transform_inverse(xform), x))
        deepest = wp.max(deepest, radius - dist)
        if dist < 0.0:
            bits = bits | 1
        else:
            before = wp.transform_point(wp.transform_inverse(previous_xform[slot]), previous_q[i])
            if _shape_distance(geo, scale, mesh, before) > 0.0:
                if _segment_hits(geo, scale, mesh, before, wp.transform_point(wp.transform_inverse(xform), x)) != 0:
                    bits = bits | 2
    depth[i] = deepest
    flags[i] = bits


@wp.kernel(enable_backward=False)
def _reduce_kernel(
    num_particles: int,
    depth: wp.array(dtype=float),
    flags: wp.array(dtype=wp.int32),
    max_depth: wp.array(dtype=float),
    total_depth: wp.array(dtype=float),
    penetrating: wp.array(dtype=wp.int32),
    inside: wp.array(dtype=wp.int32),
    tunnelled: wp.array(dtype=wp.int32),
    fresh: wp.array(dtype=wp.int32),
):
    # One thread per env, particles in a fixed order: the sums are bitwise reproducible on every device.
    env = wp.tid()
    deepest = wp.float32(0.0)
    total = wp.float32(0.0)
    count = wp.int32(0)
    inner = wp.int32(0)
    through = wp.int32(0)
    for k in range(num_particles):
        d = depth[env * num_particles + k]
        f = flags[env * num_particles + k]
        deepest = wp.max(deepest, d)
        total = total + d
        if d > 0.0:
            count = count + 1
        if (f & 1) != 0:
            inner = inner + 1
        if f != 0:
            through = through + 1
    max_depth[env] = deepest
    total_depth[env] = total
    penetrating[env] = count
    inside[env] = inner
    tunnelled[env] = through
    if env == 0:
        fresh[0] = 1


class PenetrationSensor:
    """What :meth:`NewtonCouplerManager.get_penetration_sensor` returns (zero-copy torch views, updated at the end
    of every env step inside the captured step)."""

    def __init__(self, pairs: PenetrationPairs, model: Any):
        device = model.device
        self.particle_entry = pairs.particle_entry
        """Entry whose particles are measured."""
        self.rigid_entry = pairs.rigid_entry
        """Entry whose body shapes they are measured against."""
        self.particle_ids = pairs.particles
        """``(num_envs, num_particles)`` model particle ids of the columns of :attr:`depth` (NumPy)."""
        self.shape_ids = pairs.shapes
        """``(num_envs, num_shapes)`` model shape ids measured against (NumPy)."""
        envs, count = self.particle_ids.shape
        self._model = model
        self._envs, self._count, self._shapes = envs, count, self.shape_ids.shape[1]
        flat = max(envs * count, 1)
        self._particles = wp.array(self.particle_ids.reshape(-1), dtype=wp.int32, device=device)
        self._shape_list = wp.array(self.shape_ids.reshape(-1), dtype=wp.int32, device=device)
        self._previous_q = wp.zeros(flat, dtype=wp.vec3, device=device)
        self._previous_xform = wp.zeros(max(self.shape_ids.size, 1), dtype=wp.transform, device=device)
        self._depth = wp.zeros(flat, dtype=float, device=device)
        self._flags = wp.zeros(flat, dtype=wp.int32, device=device)
        self._fresh = wp.ones(1, dtype=wp.int32, device=device)
        self._max_depth = wp.zeros(envs, dtype=float, device=device)
        self._total_depth = wp.zeros(envs, dtype=float, device=device)
        self._penetrating = wp.zeros(envs, dtype=wp.int32, device=device)
        self._inside = wp.zeros(envs, dtype=wp.int32, device=device)
        self._tunnelled = wp.zeros(envs, dtype=wp.int32, device=device)
        self.max_depth = wp.to_torch(self._max_depth)
        """``(num_envs,)`` deepest particle penetration [m] at the end of the env step."""
        self.total_depth = wp.to_torch(self._total_depth)
        """``(num_envs,)`` sum of the particles' penetrations [m]."""
        self.penetrating = wp.to_torch(self._penetrating)
        """``(num_envs,)`` particles penetrating a shape [count]."""
        self.inside = wp.to_torch(self._inside)
        """``(num_envs,)`` particles whose center is inside a shape [count]."""
        self.tunnelled = wp.to_torch(self._tunnelled)
        """``(num_envs,)`` particles that tunnelled: center inside a shape, or passed through one during the env
        step [count]."""
        self.depth = wp.to_torch(self._depth)[: envs * count].view(envs, count)
        """``(num_envs, num_particles)`` penetration of each particle [m] (its deepest over the shapes)."""

    def begin_env_step(self, state: Any) -> None:
        """On the first substep of an env step: remember where the particles and shapes start."""
        device = self._model.device
        wp.launch(
            gather_rows_kernel(wp.vec3),
            dim=self._particles.shape[0],
            inputs=[self._fresh, self._particles, state.particle_q],
            outputs=[self._previous_q],
            device=device,
        )
        if self._shapes:
            model = self._model
            wp.launch(
                _snapshot_shapes_kernel,
                dim=self._shape_list.shape[0],
                inputs=[self._fresh, self._shape_list, model.shape_body, model.shape_transform, state.body_q],
                outputs=[self._previous_xform],
                device=device,
            )
        wp.launch(_clear_flag_kernel, dim=1, inputs=[self._fresh], device=device)

    def measure(self, state: Any) -> None:
        """Measure *state* (the end of the env step)."""
        model, device = self._model, self._model.device
        if self._count:
            wp.launch(
                _penetration_kernel,
                dim=self._envs * self._count,
                inputs=[
                    self._particles,
                    self._count,
                    self._shape_list,
                    self._shapes,
                    state.particle_q,
                    model.particle_radius,
                    model.shape_body,
                    model.shape_transform,
                    model.shape_type,
                    model.shape_scale,
                    model.shape_source_ptr,
                    state.body_q,
                    self._previous_q,
                    self._previous_xform,
                ],
                outputs=[self._depth, self._flags],
                device=device,
            )
        wp.launch(
            _reduce_kernel,
            dim=self._envs,
            inputs=[self._count, self._depth, self._flags],
            outputs=[
                self._max_depth,
                self._total_depth,
                self._penetrating,
                self._inside,
                self._tunnelled,
                self._fresh,
            ],
            device=device,
        )

    def __repr__(self) -> str:
        return (
            f"PenetrationSensor(particles of {self.particle_entry!r} ({self._count} per env) against "
            f"{self._shapes} shapes of {self.rigid_entry!r} per env)"
        )


class PenetrationRequest(SensorRequest):
    """A penetration sensor between the particles of one entry and the body shapes of another."""

    kind = "penetration"

    def __init__(self, index: int, entry: str, partner: str, bodies: tuple[str, ...] | None):
        super().__init__(f"penetration[{index}]")
        self.entry, self.partner, self.bodies = entry, partner, bodies

    def same_as(self, entry: str, partner: str, bodies: Any) -> bool:
        """Whether this request senses the same thing."""
        return (self.entry, self.partner, self.bodies) == (entry, partner, bodies)

    def create(self, build: SensorBuild) -> SensorRuntime:
        coupled = build.bound.as_coupled(self.name, "a penetration sensor")
        pairs = coupled.penetration_pairs(self.entry, self.partner, self.bodies, self.name)
        return _PenetrationRuntime(PenetrationSensor(pairs, build.model))


class _PenetrationRuntime(SensorRuntime):
    samples_substeps = True

    def begin_substep(self, state_in: Any) -> None:
        self.sensor.begin_env_step(state_in)

    def update(self, state: Any) -> None:
        self.sensor.measure(state)
