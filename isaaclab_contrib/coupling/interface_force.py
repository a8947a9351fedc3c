"""Interface forces: the wrench a coupling applies on one entry's bodies (and the force on its particles) from
another, averaged over the env step, read inside the captured step.

On a coupled scene (``NewtonCouplerManager``) the forces between entries are coupling forces, not Newton contact
rows. :class:`InterfaceForceSampler` reads them from the coupled solver after every coupled step. ADMM: the duals
``W * lambda`` of every contact and attachment row between the two entries (rigid-particle, rigid-rigid,
particle-particle contacts; body-particle attachments and cross-entry joints, whose angular rows carry torques),
distributed to the rows' bodies and particles with Newton's own sign conventions. Proxy: the feedback wrenches
``coupling_forces`` the proxy coupler harvests from the destination solve and applies to the source bodies and
particles. The bound coupled solver makes the sampler
(:meth:`~isaaclab_contrib.coupling.binding.BoundCoupledSolver.interface_force_sampler`);
:class:`InterfaceForceSensor` is what ``NewtonCouplerManager.get_interface_force_sensor`` returns.
"""

# No ``from __future__ import annotations`` here: the per-dtype kernels' annotations name their factory's
# ``dtype``, which Warp resolves only from evaluated annotations.

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import warp as wp

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime

from .coupler_internals import (
    ADMM_GROUPS,
    PROXY_MAPPINGS,
    RowCounts,
    check_entry_pair,
    env_layout,
    env_slots,
    host_ids,
    per_dtype,
    require_internals,
    select_bodies,
)

__all__ = [
    "InterfaceForceRequest",
    "InterfaceForceSampler",
    "InterfaceForceSensor",
    "InterfaceSources",
    "interface_sources",
    "make_interface_force_sampler",
]


# --------------------------------------------------------------------------------------------- row kernels
@wp.func
def _wrench_at(xform: wp.transform, local: wp.vec3, force: wp.vec3) -> wp.spatial_vector:
    """The wrench about the origin of a body at *xform* of *force* applied at its body-local point *local*."""
    point = wp.transform_point(xform, local)
    return wp.spatial_vector(force, wp.cross(point - wp.transform_get_translation(xform), force))


@wp.kernel(enable_backward=False)
def _rp_rows_kernel(
    active_count: wp.array(dtype=wp.int32),
    body_ids: wp.array(dtype=wp.int32),
    point_body: wp.array(dtype=wp.vec3),
    particle_ids: wp.array(dtype=wp.int32),
    body_sign: wp.array(dtype=wp.int32),
    use_sign: int,
    W: wp.array(dtype=float),
    lam: wp.array(dtype=wp.vec3),
    body_q: wp.array(dtype=wp.transform),
    body_l2g: wp.array(dtype=wp.int32),
    on_body: int,
    weight: float,
    body_slot: wp.array(dtype=wp.int32),
    particle_slot: wp.array(dtype=wp.int32),
    body_acc: wp.array(dtype=wp.spatial_vector),
    particle_acc: wp.array(dtype=wp.vec3),
):
    # Rigid-particle rows (contacts and attachments): the body receives sign * W lambda at its anchor point,
    # the particle the opposite force (Newton's rp sign convention).
    i = wp.tid()
    if i >= active_count[0]:
        return
    force = W[i] * lam[i]
    if use_sign != 0:
        force = float(body_sign[i]) * force
    if on_body != 0:
        b = body_ids[i]
        slot = body_slot[body_l2g[b]]
        if slot >= 0:
            wp.atomic_add(body_acc, slot, weight * _wrench_at(body_q[b], point_body[i], force))
    else:
        slot = particle_slot[particle_ids[i]]
        if slot >= 0:
            wp.atomic_add(particle_acc, slot, -weight * force)


@wp.kernel(enable_backward=False)
def _rr_point_rows_kernel(
    active_count: wp.array(dtype=wp.int32),
    body_a: wp.array(dtype=wp.int32),
    point_a: wp.array(dtype=wp.vec3),
    offset_a: wp.array(dtype=wp.vec3),
    body_b: wp.array(dtype=wp.int32),
    point_b: wp.array(dtype=wp.vec3),
    offset_b: wp.array(dtype=wp.vec3),
    use_offset: int,
    W: wp.array(dtype=float),
    lam: wp.array(dtype=wp.vec3),
    body_q_a: wp.array(dtype=wp.transform),
    body_q_b: wp.array(dtype=wp.transform),
    l2g_a: wp.array(dtype=wp.int32),
    l2g_b: wp.array(dtype=wp.int32),
    side: int,
    weight: float,
    body_slot: wp.array(dtype=wp.int32),
    body_acc: wp.array(dtype=wp.spatial_vector),
):
    # Rigid-rigid point rows (contacts, joint attachments): A receives +W lambda at its point, B the opposite.
    i = wp.tid()
    if i >= active_count[0]:
        return
    force = W[i] * lam[i]
    b = 0
    xform = wp.transform_identity()
    local = wp.vec3(0.0)
    slot = -1
    if side == 0:
        b = body_a[i]
        xform = body_q_a[b]
        local = point_a[i]
        if use_offset != 0:
            local = local + offset_a[i]
        slot = body_slot[l2g_a[b]]
    else:
        b = body_b[i]
        xform = body_q_b[b]
        local = point_b[i]
        if use_offset != 0:
            local = local + offset_b[i]
        slot = body_slot[l2g_b[b]]
        force = -force
    if slot >= 0:
        wp.atomic_add(body_acc, slot, weight * _wrench_at(xform, local, force))


@wp.kernel(enable_backward=False)
def _rr_angular_rows_kernel(
    active_count: wp.array(dtype=wp.int32),
    body_a: wp.array(dtype=wp.int32),
    frame_a: wp.array(dtype=wp.transform),
    body_b: wp.array(dtype=wp.int32),
    mode: int,
    W: wp.array(dtype=float),
    lam: wp.array(dtype=wp.vec3),
    body_q_a: wp.array(dtype=wp.transform),
    l2g_a: wp.array(dtype=wp.int32),
    l2g_b: wp.array(dtype=wp.int32),
    side: int,
    weight: float,
    body_slot: wp.array(dtype=wp.int32),
    body_acc: wp.array(dtype=wp.spatial_vector),
):
    # Angular rows of cross-entry joints: a pure torque W lambda on A (world frame, or A's joint frame for
    # mode 1, its two constrained axes only for mode 2), the opposite on B.
    i = wp.tid()
    if i >= active_count[0]:
        return
    torque = W[i] * lam[i]
    if mode == 2:
        torque = wp.vec3(0.0, torque[1], torque[2])
    if mode >= 1:
        frame = body_q_a[body_a[i]] * frame_a[i]
        torque = wp.quat_rotate(wp.transform_get_rotation(frame), torque)
    slot = -1
    if side == 0:
        slot = body_slot[l2g_a[body_a[i]]]
    else:
        slot = body_slot[l2g_b[body_b[i]]]
        torque = -torque
    if slot >= 0:
        wp.atomic_add(body_acc, slot, weight * wp.spatial_vector(wp.vec3(0.0), torque))


@wp.kernel(enable_backward=False)
def _pp_rows_kernel(
    active_count: wp.array(dtype=wp.int32),
    particle_a: wp.array(dtype=wp.int32),
    particle_b: wp.array(dtype=wp.int32),
    W: wp.array(dtype=float),
    lam: wp.array(dtype=wp.vec3),
    side: int,
    weight: float,
    particle_slot: wp.array(dtype=wp.int32),
    particle_acc: wp.array(dtype=wp.vec3),
):
    # Particle-particle contact rows: A receives +W lambda, B the opposite.
    i = wp.tid()
    if i >= active_count[0]:
        return
    force = W[i] * lam[i]
    slot = -1
    if side == 0:
        slot = particle_slot[particle_a[i]]
    else:
        slot = particle_slot[particle_b[i]]
        force = -force
    if slot >= 0:
        wp.atomic_add(particle_acc, slot, weight * force)


@wp.kernel(enable_backward=False)
def _proxy_body_kernel(
    src_ids: wp.array(dtype=wp.int32),
    proxy_ids: wp.array(dtype=wp.int32),
    coupling_forces: wp.array(dtype=wp.spatial_vector),
    body_q: wp.array(dtype=wp.transform),
    body_com: wp.array(dtype=wp.vec3),
    weight: float,
    body_slot: wp.array(dtype=wp.int32),
    body_acc: wp.array(dtype=wp.spatial_vector),
):
    # Proxy feedback: a world wrench about the source body's center of mass; moved to its origin.
    i = wp.tid()
    b = src_ids[i]
    slot = body_slot[b]
    if slot < 0:
        return
    wrench = coupling_forces[proxy_ids[i]]
    force = wp.spatial_top(wrench)
    xform = body_q[b]
    arm = wp.transform_point(xform, body_com[b]) - wp.transform_get_translation(xform)
    torque = wp.spatial_bottom(wrench) + wp.cross(arm, force)
    wp.atomic_add(body_acc, slot, weight * wp.spatial_vector(force, torque))


@wp.kernel(enable_backward=False)
def _proxy_particle_kernel(
    src_ids: wp.array(dtype=wp.int32),
    proxy_ids: wp.array(dtype=wp.int32),
    coupling_forces: wp.array(dtype=wp.vec3),
    weight: float,
    particle_slot: wp.array(dtype=wp.int32),
    particle_acc: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    slot = particle_slot[src_ids[i]]
    if slot >= 0:
        wp.atomic_add(particle_acc, slot, weight * coupling_forces[proxy_ids[i]])


@wp.kernel(enable_backward=False)
def _add_time_kernel(elapsed: wp.array(dtype=float), dt: float):
    elapsed[0] = elapsed[0] + dt


@per_dtype
def _average_kernel(dtype: type) -> wp.Kernel:
    """The time average of a sum accumulated over the env step (body wrenches or particle forces); the sum
    restarts at zero."""

    @wp.kernel(enable_backward=False, module="unique")
    def average(acc: wp.array(dtype=dtype), elapsed: wp.array(dtype=float), out: wp.array(dtype=dtype)):
        i = wp.tid()
        t = elapsed[0]
        value = dtype()
        if t > 0.0:
            value = acc[i] / t
        out[i] = value
        acc[i] = dtype()

    return average


@wp.kernel(enable_backward=False)
def _zero_float_kernel(values: wp.array(dtype=float)):
    values[wp.tid()] = 0.0


# --------------------------------------------------------------------------------------------- sources
@dataclass
class InterfaceSources:
    """The coupling rows (ADMM) or proxy mappings between two entries, and the elements they can touch."""

    kind: str
    """``"admm"`` or ``"proxy"``."""
    rows: list[tuple[str, Any, int]]
    """``(row kind, Newton group or mapping, side of the sensed entry: 0 = A / body / source, 1 = B / particle)``."""
    bodies: set[int]
    """Global ids of the sensed entry's bodies the rows can act on."""
    particles: set[int]
    """Global ids of the sensed entry's particles the rows can act on."""
    reverse_only: bool = False
    """Proxy: only mappings from the partner into the entry exist (their feedback acts on the partner)."""


def interface_sources(solver: Any, entry: str, partner: str, what: str) -> InterfaceSources:
    """What couples *entry* to *partner* in *solver*, seen from *entry*."""
    kind = require_internals(solver, what)
    entries = solver._entries
    if kind == "proxy":
        rows: list[tuple[str, Any, int]] = []
        bodies: set[int] = set()
        particles: set[int] = set()
        reverse = False
        for row_kind, attr in PROXY_MAPPINGS.items():
            for mapping in getattr(solver, attr):
                if mapping.src_name == entry and mapping.dst_name == partner:
                    rows.append((row_kind, mapping, 0))
                    (bodies if row_kind == "proxy_body" else particles).update(host_ids(mapping.src_ids).tolist())
                elif mapping.src_name == partner and mapping.dst_name == entry:
                    reverse = True
        return InterfaceSources("proxy", rows, bodies, particles, reverse_only=reverse and not rows)

    rows = []
    bodies, particles = set(), set()

    def add_bodies(local_ids: Any, name: str) -> None:
        l2g = host_ids(entries[name].body_local_to_global)
        bodies.update(int(l2g[i]) for i in host_ids(local_ids).tolist() if 0 <= i < l2g.shape[0])

    for row_kind, attr in ADMM_GROUPS.items():
        for group in getattr(solver, attr):
            if group.count == 0:
                continue
            if row_kind.startswith("rp_"):
                names = (group.body_entry_name, group.particle_entry_name)
            elif row_kind.startswith("rr_"):
                names = (group.body_entry_name_a, group.body_entry_name_b)
            else:
                names = (group.particle_entry_name_a, group.particle_entry_name_b)
            if set(names) != {entry, partner}:
                continue
            side = names.index(entry)
            rows.append((row_kind, group, side))
            if row_kind == "rp_contact":
                if side == 0:
                    add_bodies(group.candidate_body_ids, entry)
                else:
                    particles.update(host_ids(group.candidate_particle_ids).tolist())
            elif row_kind == "rp_attachment":
                if side == 0:
                    add_bodies(group.body_ids, entry)
                else:
                    particles.update(host_ids(group.particle_ids).tolist())
            elif row_kind == "rr_contact":
                add_bodies(group.candidate_body_ids_a if side == 0 else group.candidate_body_ids_b, entry)
            elif row_kind.startswith("rr_"):
                add_bodies(group.body_ids_a if side == 0 else group.body_ids_b, entry)
            else:
                candidates = group.candidate_particle_ids_a if side == 0 else group.candidate_particle_ids_b
                particles.update(host_ids(candidates).tolist())
    return InterfaceSources("admm", rows, bodies, particles)


# --------------------------------------------------------------------------------------------- interface force
class InterfaceForceSampler:
    """Accumulates the coupling wrench on sensed bodies and force on sensed particles every coupled step.

    Args:
        solver: The coupled Newton solver.
        model: The finalized model.
        entry: The entry the forces act on.
        sources: What couples it to the partner (:func:`interface_sources`).
        body_layout: ``(num_envs, num_bodies)`` global body ids.
        particle_layout: ``(num_envs, num_particles)`` global particle ids.

    :meth:`sample` adds ``dt *`` the current wrench after every coupled step; :meth:`finish` writes the
    time average into :attr:`wrench` / :attr:`particle_force` and restarts the sums.
    """

    def __init__(
        self,
        solver: Any,
        model: Any,
        entry: str,
        sources: InterfaceSources,
        body_layout: np.ndarray,
        particle_layout: np.ndarray,
    ):
        device = model.device
        self.solver, self.model, self.entry, self.sources = solver, model, entry, sources
        self.body_layout, self.particle_layout = body_layout, particle_layout
        nb, npart = body_layout.size, particle_layout.size
        self.wrench = wp.zeros(max(nb, 1), dtype=wp.spatial_vector, device=device)
        """Env-step average wrench [N, N*m], flat ``env * num_bodies + k`` (at least one row)."""
        self.particle_force = wp.zeros(max(npart, 1), dtype=wp.vec3, device=device)
        """Env-step average particle force [N], flat ``env * num_particles + k`` (at least one row)."""
        self._body_acc = wp.zeros_like(self.wrench)
        self._particle_acc = wp.zeros_like(self.particle_force)
        self._elapsed = wp.zeros(1, dtype=float, device=device)
        self._body_slot = env_slots(model.body_count, body_layout, device)
        self._particle_slot = env_slots(model.particle_count, particle_layout, device)
        self._dummy_int = wp.zeros(1, dtype=wp.int32, device=device)
        self._dummy_xform = wp.zeros(1, dtype=wp.transform, device=device)
        self._counts = RowCounts([group for _, group, _ in sources.rows] if sources.kind == "admm" else [], device)

    def sample(self, state_out: Any, dt: float) -> None:
        """Add ``dt`` times the wrench of the coupled step just taken (into *state_out*, of *dt* [s])."""
        device = self.model.device
        entries = self.solver._entries
        bslot, pslot, bacc, pacc = self._body_slot, self._particle_slot, self._body_acc, self._particle_acc
        for row_kind, group, side in self.sources.rows:
            if row_kind == "proxy_body":
                wp.launch(
                    _proxy_body_kernel,
                    dim=group.src_ids.shape[0],
                    inputs=[
                        group.src_ids,
                        group.proxy_ids_global,
                        group.coupling_forces,
                        state_out.body_q,
                        self.model.body_com,
                        float(dt),
                        bslot,
                    ],
                    outputs=[bacc],
                    device=device,
                )
            elif row_kind == "proxy_particle":
                wp.launch(
                    _proxy_particle_kernel,
                    dim=group.src_ids.shape[0],
                    inputs=[group.src_ids, group.proxy_ids_global, group.coupling_forces, float(dt), pslot],
                    outputs=[pacc],
                    device=device,
                )
            elif row_kind.startswith("rp_"):
                body_entry = entries[group.body_entry_name]
                contact = row_kind == "rp_contact"
                wp.launch(
                    _rp_rows_kernel,
                    dim=group.count,
                    inputs=[
                        self._counts(group),
                        group.body_ids,
                        group.point_body,
                        group.particle_ids,
                        group.body_sign if contact else self._dummy_int,
                        int(contact),
                        group.W,
                        group.lambda_,
                        body_entry.state_0.body_q,
                        body_entry.body_local_to_global,
                        int(side == 0),
                        float(dt),
                        bslot,
                        pslot,
                    ],
                    outputs=[bacc, pacc],
                    device=device,
                )
            elif row_kind in ("rr_attachment", "rr_contact"):
                entry_a, entry_b = entries[group.body_entry_name_a], entries[group.body_entry_name_b]
                contact = row_kind == "rr_contact"
                wp.launch(
                    _rr_point_rows_kernel,
                    dim=group.count,
                    inputs=[
                        self._counts(group),
                        group.body_ids_a,
                        group.point_a,
                        group.offset_a if contact else group.point_a,
                        group.body_ids_b,
                        group.point_b,
                        group.offset_b if contact else group.point_b,
                        int(contact),
                        group.W,
                        group.lambda_,
                        entry_a.state_0.body_q,
                        entry_b.state_0.body_q,
                        entry_a.body_local_to_global,
                        entry_b.body_local_to_global,
                        int(side),
                        float(dt),
                        bslot,
                    ],
                    outputs=[bacc],
                    device=device,
                )
            elif row_kind.startswith("rr_"):
                entry_a, entry_b = entries[group.body_entry_name_a], entries[group.body_entry_name_b]
                mode = {"rr_angular": 0, "rr_angular_friction": 1, "rr_revolute_angular": 2}[row_kind]
                wp.launch(
                    _rr_angular_rows_kernel,
                    dim=group.count,
                    inputs=[
                        self._counts(group),
                        group.body_ids_a,
                        group.frame_a if mode else self._dummy_xform,
                        group.body_ids_b,
                        mode,
                        group.W,
                        group.lambda_,
                        entry_a.state_0.body_q,
                        entry_a.body_local_to_global,
                        entry_b.body_local_to_global,
                        int(side),
                        float(dt),
                        bslot,
                    ],
                    outputs=[bacc],
                    device=device,
                )
            else:  # pp_contact
                wp.launch(
                    _pp_rows_kernel,
                    dim=group.count,
                    inputs=[
                        self._counts(group),
                        group.particle_ids_a,
                        group.particle_ids_b,
                        group.W,
                        group.lambda_,
                        int(side),
                        float(dt),
                        pslot,
                    ],
                    outputs=[pacc],
                    device=device,
                )
        wp.launch(_add_time_kernel, dim=1, inputs=[self._elapsed, float(dt)], device=device)

    def finish(self) -> None:
        """Write the averages over the coupled steps sampled since the last call, then restart the sums."""
        device = self.model.device
        for acc, out in ((self._body_acc, self.wrench), (self._particle_acc, self.particle_force)):
            wp.launch(
                _average_kernel(out.dtype),
                dim=out.shape[0],
                inputs=[acc, self._elapsed],
                outputs=[out],
                device=device,
            )
        wp.launch(_zero_float_kernel, dim=1, inputs=[self._elapsed], device=device)


# --------------------------------------------------------------------------------------------- resolution
def _not_interacting(plan: Any, coupler: str, entry: str, partner: str, kind: str, what: str) -> ValueError:
    if kind == "proxy":
        mappings = [(p.source, p.destination) for p in plan.proxies]
        detail = f"{coupler}.proxies maps no body or particle of {entry!r} into {partner!r} (mappings: {mappings})"
    else:
        detail = (
            f"no ADMM contact or attachment row couples them ({coupler}.contact_pairs resolves to {plan.contact_pairs}; "
            "no body-particle attachment or cross-entry joint joins them, or none of their shapes and particles can "
            "touch)"
        )
    return ValueError(f"{what}: entries {entry!r} and {partner!r} do not interact: {detail}")


def make_interface_force_sampler(
    solver: Any,
    model: Any,
    plan: Any,
    coupler: str,
    entry: str,
    partner: str,
    bodies: Sequence[str] | None,
    particles: Sequence[int] | None,
    what: str,
) -> InterfaceForceSampler:
    """Resolve an interface-force sensor on a built coupled solver (see :class:`InterfaceForceSampler`).

    Raises:
        ValueError: unknown entries, entries that do not interact, bodies or particles *entry* does not own,
            or selections the envs do not hold equally.
        CouplerInternalsError: the installed Newton lacks the internals read.
    """
    check_entry_pair(plan.entries, coupler, entry, partner, what)
    sources = interface_sources(solver, entry, partner, what)
    if sources.reverse_only:
        raise ValueError(
            f"{what}: Newton's proxy coupler harvests feedback only on the source side of a mapping, and {coupler}."
            f"proxies maps {partner!r} into {entry!r}: the force on {entry!r} is the reaction to the feedback on "
            f"{partner!r}, which is not attributed to {entry!r}'s bodies. Sense (entry={partner!r}, "
            f"partner={entry!r}) instead; its total, negated, is the total force on {entry!r}."
        )
    if not sources.rows:
        raise _not_interacting(plan, coupler, entry, partner, sources.kind, what)
    owned = plan.entries[entry]
    owned_bodies, owned_particles = set(owned.bodies), set(owned.particles)
    if bodies is None:
        body_ids = sources.bodies & owned_bodies
    else:
        body_ids = select_bodies(model, bodies, owned_bodies, entry, coupler, what)
    if particles is None:
        particle_ids = sources.particles & owned_particles
    else:
        particle_ids = {int(p) for p in particles}
        outside = sorted(p for p in particle_ids if not 0 <= p < model.particle_count)
        if outside:
            raise ValueError(
                f"{what}: particles {outside[:8]} are out of range: the model has {model.particle_count} particles "
                f"(indices 0 .. {model.particle_count - 1})"
            )
        foreign = sorted(particle_ids - owned_particles)
        if foreign:
            raise ValueError(
                f"{what}: particles {foreign[:8]} are not owned by entry {entry!r} ({coupler}.entries[{entry!r}]."
                "particles / all_particles); give particles of that entry"
            )
    if not body_ids and not particle_ids:
        raise ValueError(
            f"{what}: entry {entry!r} has no body or particle the coupling with {partner!r} acts on"
            + ("" if bodies is None and particles is None else " among the ones selected")
        )
    envs = max(int(model.world_count), 1)
    body_world = model.body_world.numpy() if model.body_count else np.zeros(0, dtype=np.int32)
    particle_world = model.particle_world.numpy() if model.particle_count else np.zeros(0, dtype=np.int32)
    body_layout = env_layout(body_ids, body_world, envs, f"{what}: the sensed bodies")
    particle_layout = env_layout(particle_ids, particle_world, envs, f"{what}: the sensed particles")
    return InterfaceForceSampler(solver, model, entry, sources, body_layout, particle_layout)


# --------------------------------------------------------------------------------------------- the sensor
class InterfaceForceSensor:
    """What :meth:`NewtonCouplerManager.get_interface_force_sensor` returns: per-env coupling forces.

    Attributes are zero-copy torch views, updated inside the (captured) step, each the average over the
    coupled steps (physics steps x substeps) of the last env step.
    """

    def __init__(self, sampler: InterfaceForceSampler, entry: str, partner: str):
        self.entry = entry
        """Entry the forces act on."""
        self.partner = partner
        """Entry they come from."""
        self.body_ids = sampler.body_layout
        """``(num_envs, num_bodies)`` model body ids of the columns of :attr:`wrench` (NumPy)."""
        self.particle_ids = sampler.particle_layout
        """``(num_envs, num_particles)`` model particle ids of the columns of :attr:`particles` (NumPy)."""
        envs, bodies = self.body_ids.shape
        particles = self.particle_ids.shape[1]
        self.wrench = wp.to_torch(sampler.wrench)[: envs * bodies].view(envs, bodies, 6)
        """``(num_envs, num_bodies, 6)``: world-frame force [N], then torque [N*m] about the body's origin, of the
        wrench on each body of :attr:`entry` from :attr:`partner`."""
        self.particles = wp.to_torch(sampler.particle_force)[: envs * particles].view(envs, particles, 3)
        """``(num_envs, num_particles, 3)``: world-frame force [N] on each particle of :attr:`entry` from
        :attr:`partner`."""
        self._sampler = sampler

    def __repr__(self) -> str:
        return (
            f"InterfaceForceSensor(entry={self.entry!r}, partner={self.partner!r}, "
            f"bodies={self.body_ids.shape[1]}, particles={self.particle_ids.shape[1]} per env)"
        )


class InterfaceForceRequest(SensorRequest):
    """An interface-force sensor on the bodies (regexes) and particles (ids) of *entry*, from *partner*."""

    kind = "interface_force"

    def __init__(
        self, index: int, entry: str, partner: str, bodies: tuple[str, ...] | None, particles: tuple[int, ...] | None
    ):
        super().__init__(f"interface_force[{index}]")
        self.entry, self.partner = entry, partner
        self.bodies = bodies
        self.particles = particles

    def same_as(self, entry: str, partner: str, bodies: Any, particles: Any) -> bool:
        """Whether this request senses the same thing."""
        return (self.entry, self.partner, self.bodies, self.particles) == (entry, partner, bodies, particles)

    def create(self, build: SensorBuild) -> SensorRuntime:
        coupled = build.bound.as_coupled(self.name, "an interface-force sensor")
        sampler = coupled.interface_force_sampler(self.entry, self.partner, self.bodies, self.particles, self.name)
        return _InterfaceForceRuntime(InterfaceForceSensor(sampler, self.entry, self.partner))


class _InterfaceForceRuntime(SensorRuntime):
    samples_substeps = True

    def end_substep(self, state_out: Any, dt: float) -> None:
        self.sensor._sampler.sample(state_out, dt)

    def update(self, state: Any) -> None:
        del state
        self.sensor._sampler.finish()
