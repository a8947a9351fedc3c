"""What the coupled solver knows, read out per env inside the captured step: interface forces and convergence.

Newton 1.8's coupled solvers compute, on every coupled step, exactly the quantities coupled-simulation users
ask for, but keep them in internal buffers. This module reads them with graph-safe Warp kernels (fixed shapes,
device-side counts, no host reads), for the coupler's sensors (:mod:`isaaclab_contrib.physics.sensors`):

- :class:`InterfaceForceSampler`: the wrench the coupling applies on bodies (and the force on particles) of
  one entry from another, averaged over the env step. ADMM: the duals ``W * lambda`` of every contact and
  attachment row between the two entries (rigid-particle, rigid-rigid, particle-particle contacts; body-particle
  attachments and cross-entry joints, whose angular rows carry torques), distributed to the rows' bodies and
  particles with Newton's own sign conventions. Proxy: the feedback wrenches ``coupling_forces`` the proxy
  coupler harvests from the destination solve and applies to the source bodies and particles.
- :class:`CouplingDiagnostics`: per env, the residual of every coupling iteration of every coupled step.
  ADMM: the primal residual ``rho W^2 |u - Jv|`` (the change of the interface force at the dual update) and
  the dual residual ``rho W^2 |u_k - u_{k-1}|``, both [N], over the force ``|W lambda|``; proxy: the change of
  the harvested feedback between passes [N, N*m] over the feedback. Newton exposes no residuals: they are
  computed from its iteration buffers in hooks the solver classes of
  :mod:`~isaaclab_contrib.coupling.newton_patches` call while a diagnostics object is attached
  (``_update_admm_dual``, ``_step_proxy``, ``_stash_proxy_feedback``, ``_blend_proxy_feedback``).

Everything here depends on Newton internals (the ADMM row groups, the proxy mappings). :func:`require_internals`
checks they exist and names what is missing, so a changed Newton fails loudly at sensor creation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import warp as wp

from isaaclab_contrib.utils.labels import LabelSelector

__all__ = [
    "ADMM_GROUPS",
    "CouplerInternalsError",
    "CouplingDiagnostics",
    "InterfaceForceSampler",
    "InterfaceSources",
    "PenetrationPairs",
    "check_entry_pair",
    "env_layout",
    "interface_sources",
    "make_interface_force_sampler",
    "require_internals",
    "resolve_penetration",
    "select_bodies",
]

ADMM_GROUPS: dict[str, str] = {
    "rp_attachment": "_admm_rp_groups",
    "rp_contact": "_admm_dynamic_rp_contact_groups",
    "rr_attachment": "_admm_rr_groups",
    "rr_contact": "_admm_dynamic_rr_contact_groups",
    "rr_angular": "_admm_rr_angular_groups",
    "rr_revolute_angular": "_admm_rr_revolute_angular_groups",
    "rr_angular_friction": "_admm_rr_angular_friction_groups",
    "pp_contact": "_admm_dynamic_pp_contact_groups",
}
"""ADMM row kinds -> the ``SolverCoupledADMM`` attribute holding their groups (Newton 1.8)."""

_PROXY_MAPPINGS = ("_proxy_mappings", "_proxy_particle_mappings")
_ADMM_HOOKS = ("_update_admm_dual",)
_PROXY_HOOKS = ("_step_proxy", "_stash_proxy_feedback", "_blend_proxy_feedback")

FORCE_FLOOR = 1.0e-6
"""Smallest interface force a relative residual is divided by [N] (envs without coupling forces read 0)."""


class CouplerInternalsError(RuntimeError):
    """The installed Newton lacks a coupled-solver internal the coupler's sensors read."""


def _is_admm(solver: Any) -> bool:
    return all(hasattr(solver, name) for name in ADMM_GROUPS.values())


def require_internals(solver: Any, what: str, *, hooks: bool = False) -> str:
    """``"admm"`` or ``"proxy"`` for *solver*; raise naming the missing Newton internals otherwise.

    Args:
        solver: The coupled Newton solver.
        what: The consumer, for the message.
        hooks: Also require the iteration methods the diagnostics hook into.
    """
    from newton.solvers.experimental.coupled import SolverCoupledADMM, SolverCoupledProxy

    if isinstance(solver, SolverCoupledADMM):
        kind, attrs, methods, base = (
            "admm",
            [*ADMM_GROUPS.values(), "_entries", "_coupling"],
            _ADMM_HOOKS,
            SolverCoupledADMM,
        )
    elif isinstance(solver, SolverCoupledProxy):
        kind, attrs, methods, base = (
            "proxy",
            [*_PROXY_MAPPINGS, "_entries", "_coupling"],
            _PROXY_HOOKS,
            SolverCoupledProxy,
        )
    else:
        raise TypeError(f"{what} needs Newton's SolverCoupledADMM or SolverCoupledProxy, got {type(solver).__name__}")
    missing = [name for name in attrs if not hasattr(solver, name)]
    if hooks:
        missing += [f"{base.__name__}.{name}" for name in methods if not hasattr(base, name)]
    if missing:
        raise CouplerInternalsError(
            f"{what}: the installed Newton's {base.__name__} lacks {missing}, which this package reads for the "
            "coupler's interface-force and convergence sensors. This package supports newton 1.8; install newton==1.8.0."
        )
    return kind


# --------------------------------------------------------------------------------------------- layouts
def env_layout(ids: Sequence[int], world_of: np.ndarray, num_envs: int, what: str) -> np.ndarray:
    """*ids* grouped per env as a ``(num_envs, n)`` array (ascending within an env).

    Raises:
        ValueError: an id belongs to no env (world ``-1``), or the envs hold different numbers of them.
    """
    ids = sorted({int(i) for i in ids})
    worlds = [int(world_of[i]) for i in ids]
    outside = [i for i, w in zip(ids, worlds, strict=True) if w < 0 or w >= num_envs]
    if outside:
        raise ValueError(f"{what}: {outside[:8]} belong to no env (Newton world -1); per-env sensors need env rows")
    per_env = [[i for i, w in zip(ids, worlds, strict=True) if w == e] for e in range(num_envs)]
    counts = sorted({len(rows) for rows in per_env})
    if len(counts) > 1:
        raise ValueError(
            f"{what}: the envs hold different numbers of them ({[len(rows) for rows in per_env]}); a per-env sensor "
            "needs the same count in every env (select them by label so every env contributes its copy)"
        )
    return np.asarray(per_env, dtype=np.int64).reshape(num_envs, counts[0] if counts else 0)


def _slots(count: int, layout: np.ndarray, device: Any) -> wp.array:
    """Model index -> flat ``env * n + k`` slot of *layout* (``-1``: not sensed)."""
    slots = np.full(max(count, 1), -1, dtype=np.int32)
    flat = layout.reshape(-1)
    slots[flat] = np.arange(flat.size, dtype=np.int32)
    return wp.array(slots, dtype=wp.int32, device=device)


# --------------------------------------------------------------------------------------------- row kernels
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
            xform = body_q[b]
            point = wp.transform_point(xform, point_body[i])
            torque = wp.cross(point - wp.transform_get_translation(xform), force)
            wp.atomic_add(body_acc, slot, weight * wp.spatial_vector(force, torque))
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
        point = wp.transform_point(xform, local)
        torque = wp.cross(point - wp.transform_get_translation(xform), force)
        wp.atomic_add(body_acc, slot, weight * wp.spatial_vector(force, torque))


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


@wp.kernel(enable_backward=False)
def _average_wrench_kernel(
    acc: wp.array(dtype=wp.spatial_vector), elapsed: wp.array(dtype=float), out: wp.array(dtype=wp.spatial_vector)
):
    i = wp.tid()
    t = elapsed[0]
    value = wp.spatial_vector()
    if t > 0.0:
        value = acc[i] / t
    out[i] = value
    acc[i] = wp.spatial_vector()


@wp.kernel(enable_backward=False)
def _average_force_kernel(acc: wp.array(dtype=wp.vec3), elapsed: wp.array(dtype=float), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    t = elapsed[0]
    value = wp.vec3(0.0)
    if t > 0.0:
        value = acc[i] / t
    out[i] = value
    acc[i] = wp.vec3(0.0)


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


def _host(array: Any) -> np.ndarray:
    return array.numpy() if array is not None and array.shape[0] else np.zeros(0, dtype=np.int64)


def interface_sources(solver: Any, entry: str, partner: str, what: str) -> InterfaceSources:
    """What couples *entry* to *partner* in *solver*, seen from *entry*."""
    kind = require_internals(solver, what)
    entries = solver._entries
    if kind == "proxy":
        rows: list[tuple[str, Any, int]] = []
        bodies: set[int] = set()
        particles: set[int] = set()
        reverse = False
        for attr, row_kind in zip(_PROXY_MAPPINGS, ("proxy_body", "proxy_particle"), strict=True):
            for mapping in getattr(solver, attr):
                if mapping.src_name == entry and mapping.dst_name == partner:
                    rows.append((row_kind, mapping, 0))
                    (bodies if row_kind == "proxy_body" else particles).update(_host(mapping.src_ids).tolist())
                elif mapping.src_name == partner and mapping.dst_name == entry:
                    reverse = True
        return InterfaceSources("proxy", rows, bodies, particles, reverse_only=reverse and not rows)

    rows = []
    bodies, particles = set(), set()

    def add_bodies(local_ids: Any, name: str) -> None:
        l2g = _host(entries[name].body_local_to_global)
        bodies.update(int(l2g[i]) for i in _host(local_ids).tolist() if 0 <= i < l2g.shape[0])

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
                    particles.update(_host(group.candidate_particle_ids).tolist())
            elif row_kind == "rp_attachment":
                if side == 0:
                    add_bodies(group.body_ids, entry)
                else:
                    particles.update(_host(group.particle_ids).tolist())
            elif row_kind == "rr_contact":
                add_bodies(group.candidate_body_ids_a if side == 0 else group.candidate_body_ids_b, entry)
            elif row_kind.startswith("rr_"):
                add_bodies(group.body_ids_a if side == 0 else group.body_ids_b, entry)
            else:
                candidates = group.candidate_particle_ids_a if side == 0 else group.candidate_particle_ids_b
                particles.update(_host(candidates).tolist())
    return InterfaceSources("admm", rows, bodies, particles)


# --------------------------------------------------------------------------------------------- interface force
class _RowCounts:
    """The device row count of every ADMM group: contact groups' ``active_count``, a fixed one otherwise."""

    def __init__(self, groups: Sequence[Any], device: Any):
        self._fixed = {
            id(group): wp.array([group.count], dtype=wp.int32, device=device)
            for group in groups
            if getattr(group, "active_count", None) is None
        }

    def __call__(self, group: Any) -> wp.array:
        active = getattr(group, "active_count", None)
        return active if active is not None else self._fixed[id(group)]


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
        self._body_slot = _slots(model.body_count, body_layout, device)
        self._particle_slot = _slots(model.particle_count, particle_layout, device)
        self._dummy_int = wp.zeros(1, dtype=wp.int32, device=device)
        self._dummy_xform = wp.zeros(1, dtype=wp.transform, device=device)
        self._counts = _RowCounts([group for _, group, _ in sources.rows] if sources.kind == "admm" else [], device)

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
        wp.launch(
            _average_wrench_kernel,
            dim=self.wrench.shape[0],
            inputs=[self._body_acc, self._elapsed],
            outputs=[self.wrench],
            device=device,
        )
        wp.launch(
            _average_force_kernel,
            dim=self.particle_force.shape[0],
            inputs=[self._particle_acc, self._elapsed],
            outputs=[self.particle_force],
            device=device,
        )
        wp.launch(_zero_float_kernel, dim=1, inputs=[self._elapsed], device=device)


# --------------------------------------------------------------------------------------------- diagnostics
@wp.kernel(enable_backward=False)
def _zero_env_sums_kernel(
    a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float), d: wp.array(dtype=float)
):
    e = wp.tid()
    a[e] = 0.0
    b[e] = 0.0
    c[e] = 0.0
    d[e] = 0.0


@wp.kernel(enable_backward=False)
def _admm_residual_rows_kernel(
    active_count: wp.array(dtype=wp.int32),
    by_particle: int,
    ids: wp.array(dtype=wp.int32),
    body_l2g: wp.array(dtype=wp.int32),
    body_world: wp.array(dtype=wp.int32),
    particle_world: wp.array(dtype=wp.int32),
    rho: float,
    W: wp.array(dtype=float),
    u: wp.array(dtype=wp.vec3),
    Jv: wp.array(dtype=wp.vec3),
    u_prev: wp.array(dtype=wp.vec3),
    lam: wp.array(dtype=wp.vec3),
    primal2: wp.array(dtype=float),
    dual2: wp.array(dtype=float),
    force2: wp.array(dtype=float),
    previous2: wp.array(dtype=float),
):
    i = wp.tid()
    if i >= active_count[0]:
        return
    w = -1
    if by_particle != 0:
        w = particle_world[ids[i]]
    else:
        w = body_world[body_l2g[ids[i]]]
    if w < 0 or w >= primal2.shape[0]:
        return
    W_i = W[i]
    scale = rho * W_i * W_i
    change = scale * (u[i] - Jv[i])  # the change of the row's force W lambda at this dual update
    wp.atomic_add(primal2, w, wp.length_sq(change))
    wp.atomic_add(dual2, w, scale * scale * wp.length_sq(u[i] - u_prev[i]))
    force = W_i * lam[i]
    wp.atomic_add(force2, w, wp.length_sq(force))
    wp.atomic_add(previous2, w, wp.length_sq(force - change))


@wp.kernel(enable_backward=False)
def _gather_spatial_kernel(
    ids: wp.array(dtype=wp.int32), values: wp.array(dtype=wp.spatial_vector), out: wp.array(dtype=wp.spatial_vector)
):
    i = wp.tid()
    out[i] = values[ids[i]]


@wp.kernel(enable_backward=False)
def _gather_vec3_kernel(ids: wp.array(dtype=wp.int32), values: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = values[ids[i]]


@wp.kernel(enable_backward=False)
def _proxy_change_spatial_kernel(
    src_ids: wp.array(dtype=wp.int32),
    proxy_ids: wp.array(dtype=wp.int32),
    world: wp.array(dtype=wp.int32),
    values: wp.array(dtype=wp.spatial_vector),
    previous: wp.array(dtype=wp.spatial_vector),
    change2: wp.array(dtype=float),
    force2: wp.array(dtype=float),
    previous2: wp.array(dtype=float),
):
    i = wp.tid()
    w = world[src_ids[i]]
    if w < 0 or w >= change2.shape[0]:
        return
    raw = values[proxy_ids[i]]
    delta = raw - previous[i]
    wp.atomic_add(change2, w, wp.dot(delta, delta))
    wp.atomic_add(force2, w, wp.dot(raw, raw))
    wp.atomic_add(previous2, w, wp.dot(previous[i], previous[i]))


@wp.kernel(enable_backward=False)
def _proxy_change_vec3_kernel(
    src_ids: wp.array(dtype=wp.int32),
    proxy_ids: wp.array(dtype=wp.int32),
    world: wp.array(dtype=wp.int32),
    values: wp.array(dtype=wp.vec3),
    previous: wp.array(dtype=wp.vec3),
    change2: wp.array(dtype=float),
    force2: wp.array(dtype=float),
    previous2: wp.array(dtype=float),
):
    i = wp.tid()
    w = world[src_ids[i]]
    if w < 0 or w >= change2.shape[0]:
        return
    raw = values[proxy_ids[i]]
    delta = raw - previous[i]
    wp.atomic_add(change2, w, wp.dot(delta, delta))
    wp.atomic_add(force2, w, wp.dot(raw, raw))
    wp.atomic_add(previous2, w, wp.dot(previous[i], previous[i]))


@wp.kernel(enable_backward=False)
def _finish_iteration_kernel(
    k: int,
    last: int,
    iterations: int,
    tolerance: float,
    floor: float,
    primal2: wp.array(dtype=float),
    dual2: wp.array(dtype=float),
    force2: wp.array(dtype=float),
    previous2: wp.array(dtype=float),
    history: wp.array(dtype=float),
    residual: wp.array(dtype=float),
    primal: wp.array(dtype=float),
    dual: wp.array(dtype=float),
    force: wp.array(dtype=float),
    first_converged: wp.array(dtype=wp.int32),
):
    e = wp.tid()
    p = wp.sqrt(primal2[e])
    d = wp.sqrt(dual2[e])
    f = wp.sqrt(force2[e])
    r = wp.max(p, d) / wp.max(wp.max(f, wp.sqrt(previous2[e])), floor)
    history[e * iterations + k] = r
    if k == 0:
        first_converged[e] = -1
    if r <= tolerance and first_converged[e] < 0:
        first_converged[e] = k + 1
    if last != 0:
        residual[e] = r
        primal[e] = p
        dual[e] = d
        force[e] = f


@wp.kernel(enable_backward=False)
def _fold_step_kernel(residual: wp.array(dtype=float), residual_max: wp.array(dtype=float)):
    e = wp.tid()
    residual_max[e] = wp.max(residual_max[e], residual[e])


@wp.kernel(enable_backward=False)
def _broadcast_relaxation_kernel(relaxation: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[wp.tid()] = relaxation[0]


@wp.kernel(enable_backward=False)
def _publish_kernel(
    tolerance: float,
    iterations: int,
    residual: wp.array(dtype=float),
    residual_max: wp.array(dtype=float),
    primal: wp.array(dtype=float),
    dual: wp.array(dtype=float),
    force: wp.array(dtype=float),
    first_converged: wp.array(dtype=wp.int32),
    history: wp.array(dtype=float),
    relaxation: wp.array(dtype=float),
    out_residual: wp.array(dtype=float),
    out_residual_max: wp.array(dtype=float),
    out_converged: wp.array(dtype=wp.bool),
    out_primal: wp.array(dtype=float),
    out_dual: wp.array(dtype=float),
    out_force: wp.array(dtype=float),
    out_first: wp.array(dtype=wp.int32),
    out_history: wp.array(dtype=float),
    out_relaxation: wp.array(dtype=float),
):
    e = wp.tid()
    out_residual[e] = residual[e]
    out_residual_max[e] = residual_max[e]
    out_converged[e] = residual_max[e] <= tolerance
    out_primal[e] = primal[e]
    out_dual[e] = dual[e]
    out_force[e] = force[e]
    out_first[e] = first_converged[e]
    out_relaxation[e] = relaxation[e]
    for k in range(iterations):
        out_history[e * iterations + k] = history[e * iterations + k]
    residual_max[e] = 0.0


class CouplingDiagnostics:
    """Per-env residuals of the coupling iterations, computed inside the coupled step (see the module docs).

    While attached (:meth:`begin_step` ... :meth:`end_step`, around each coupled step), the solver's hooks call
    it after every iteration; :meth:`publish` (once per env step) writes the env step's figures into the
    ``out_*`` arrays. Nothing stays attached between coupled steps.

    Args:
        solver: The coupled Newton solver (built from this package's classes, which carry the hooks).
        model: The finalized model.
        tolerance: Relative residual under which a coupled step counts as converged [dimensionless].
        what: The consumer, for messages.
    """

    def __init__(self, solver: Any, model: Any, tolerance: float, what: str):
        self.kind = require_internals(solver, what, hooks=True)
        if not hasattr(type(solver), "_coupling_probe"):
            raise CouplerInternalsError(
                f"{what}: {type(solver).__name__} has no diagnostics hooks; build the coupled solver with "
                "isaaclab_contrib.coupling.build_coupled_solver"
            )
        device = model.device
        self.solver, self.model, self.device = solver, model, device
        self.tolerance = float(tolerance)
        self.iterations = int(solver._coupling.iterations)
        envs = max(int(model.world_count), 1)
        self.num_envs = envs

        def zeros(count=envs, dtype=float):
            return wp.zeros(count, dtype=dtype, device=device)

        self._primal2, self._dual2, self._force2, self._previous2 = zeros(), zeros(), zeros(), zeros()
        self._history = zeros(envs * self.iterations)
        self._residual, self._primal, self._dual, self._force = zeros(), zeros(), zeros(), zeros()
        self._first = zeros(dtype=wp.int32)
        self._residual_max = zeros()
        self._relaxation = wp.full(envs, 1.0, dtype=float, device=device)
        self.out = {
            "residual": zeros(),
            "residual_max": zeros(),
            "converged": zeros(dtype=wp.bool),
            "primal_residual": zeros(),
            "dual_residual": zeros(),
            "interface_force": zeros(),
            "iterations_to_tolerance": zeros(dtype=wp.int32),
            "residual_history": zeros(envs * self.iterations),
            "relaxation": zeros(),
            "iterations": wp.full(envs, self.iterations, dtype=wp.int32, device=device),
        }
        """Published arrays (flat ``residual_history``: ``env * iterations + k``)."""
        self._k = 0
        self._u_prev: dict[int, wp.array] = {}
        self._previous: dict[int, wp.array] = {}
        self._aitken = None
        if self.kind == "admm":
            groups = [group for attr in ADMM_GROUPS.values() for group in getattr(solver, attr) if group.count]
            self._u_prev = {id(group): wp.zeros_like(group.u) for group in groups}
            self._counts = _RowCounts(groups, device)
        else:
            for mapping in (*solver._proxy_mappings, *solver._proxy_particle_mappings):
                self._previous[id(mapping)] = wp.zeros(
                    mapping.proxy_ids_global.shape[0], dtype=mapping.coupling_forces.dtype, device=device
                )
                if self._aitken is None and getattr(mapping, "aitken_relaxation", None) is not None:
                    self._aitken = mapping.aitken_relaxation
        self.has_aitken = self._aitken is not None
        """Whether a proxy mapping adapts its relaxation (Aitken); ``out["relaxation"]`` then holds its factor."""

    # ------------------------------------------------------------------ around one coupled step
    def begin_step(self) -> None:
        """Attach to the solver for the coupled step about to run."""
        self._k = 0
        self.solver._coupling_probe = self

    def end_step(self) -> None:
        """Detach, and fold the step's residual into the env step's maximum."""
        self.solver._coupling_probe = None
        wp.launch(_fold_step_kernel, dim=self.num_envs, inputs=[self._residual, self._residual_max], device=self.device)
        if self._aitken is not None:
            wp.launch(
                _broadcast_relaxation_kernel,
                dim=self.num_envs,
                inputs=[self._aitken, self._relaxation],
                device=self.device,
            )

    def publish(self) -> None:
        """Write the env step's figures into :attr:`out` and restart the env step's maximum."""
        out = self.out
        wp.launch(
            _publish_kernel,
            dim=self.num_envs,
            inputs=[
                self.tolerance,
                self.iterations,
                self._residual,
                self._residual_max,
                self._primal,
                self._dual,
                self._force,
                self._first,
                self._history,
                self._relaxation,
            ],
            outputs=[
                out["residual"],
                out["residual_max"],
                out["converged"],
                out["primal_residual"],
                out["dual_residual"],
                out["interface_force"],
                out["iterations_to_tolerance"],
                out["residual_history"],
                out["relaxation"],
            ],
            device=self.device,
        )

    # ------------------------------------------------------------------ hooks (called by the solver)
    def _finish_iteration(self) -> None:
        k = self._k
        wp.launch(
            _finish_iteration_kernel,
            dim=self.num_envs,
            inputs=[
                min(k, self.iterations - 1),
                int(k >= self.iterations - 1),
                self.iterations,
                self.tolerance,
                FORCE_FLOOR,
                self._primal2,
                self._dual2,
                self._force2,
                self._previous2,
            ],
            outputs=[self._history, self._residual, self._primal, self._dual, self._force, self._first],
            device=self.device,
        )
        self._k = k + 1

    def _zero_sums(self) -> None:
        wp.launch(
            _zero_env_sums_kernel,
            dim=self.num_envs,
            inputs=[self._primal2, self._dual2, self._force2, self._previous2],
            device=self.device,
        )

    def admm_before_dual(self, solver: Any) -> None:
        for attr in ADMM_GROUPS.values():
            for group in getattr(solver, attr):
                previous = self._u_prev.get(id(group))
                if previous is not None:
                    wp.copy(previous, group.u)

    def admm_after_dual(self, solver: Any) -> None:
        self._zero_sums()
        model, entries, rho = self.model, solver._entries, float(solver._coupling.rho)
        for row_kind, attr in ADMM_GROUPS.items():
            for group in getattr(solver, attr):
                previous = self._u_prev.get(id(group))
                if previous is None:
                    continue
                if row_kind.startswith("rp_"):
                    by_particle, ids, l2g = 0, group.body_ids, entries[group.body_entry_name].body_local_to_global
                elif row_kind.startswith("rr_"):
                    by_particle, ids, l2g = 0, group.body_ids_a, entries[group.body_entry_name_a].body_local_to_global
                else:
                    by_particle, ids, l2g = 1, group.particle_ids_a, group.particle_ids_a
                wp.launch(
                    _admm_residual_rows_kernel,
                    dim=group.count,
                    inputs=[
                        self._counts(group),
                        by_particle,
                        ids,
                        l2g,
                        model.body_world if model.body_count else self._first,
                        model.particle_world if model.particle_count else self._first,
                        rho,
                        group.W,
                        group.u,
                        group.Jv,
                        previous,
                        group.lambda_,
                    ],
                    outputs=[self._primal2, self._dual2, self._force2, self._previous2],
                    device=self.device,
                )
        self._finish_iteration()

    def proxy_begin_pass(self, solver: Any) -> None:
        del solver
        self._zero_sums()

    def proxy_stash(self, solver: Any, mapping: Any) -> None:
        del solver
        previous = self._previous.get(id(mapping))
        if previous is None or previous.shape[0] == 0:
            return
        kernel = _gather_spatial_kernel if mapping.coupling_forces.dtype == wp.spatial_vector else _gather_vec3_kernel
        wp.launch(
            kernel,
            dim=previous.shape[0],
            inputs=[mapping.proxy_ids_global, mapping.coupling_forces],
            outputs=[previous],
            device=self.device,
        )

    def proxy_harvested(self, solver: Any, mapping: Any) -> None:
        del solver
        previous = self._previous.get(id(mapping))
        if previous is None or previous.shape[0] == 0:
            return
        spatial = mapping.coupling_forces.dtype == wp.spatial_vector
        world = self.model.body_world if spatial else self.model.particle_world
        wp.launch(
            _proxy_change_spatial_kernel if spatial else _proxy_change_vec3_kernel,
            dim=previous.shape[0],
            inputs=[mapping.src_ids, mapping.proxy_ids_global, world, mapping.coupling_forces, previous],
            outputs=[self._primal2, self._force2, self._previous2],
            device=self.device,
        )

    def proxy_end_pass(self, solver: Any) -> None:
        del solver
        self._finish_iteration()


# --------------------------------------------------------------------------------------------- resolution
def check_entry_pair(names: Sequence[str], coupler: str, entry: Any, partner: Any, what: str) -> None:
    """Raise naming the coupler config when *entry* or *partner* is not one of its entry *names*, or both are
    the same entry."""
    names = list(names)
    for field, value in (("entry", entry), ("partner", partner)):
        if not isinstance(value, str):
            raise TypeError(f"{what}: {field} must be an entry name string, got {type(value).__name__} {value!r}")
        if value not in names:
            raise ValueError(f"{what}: {field}={value!r} is not an entry of {coupler}; entries: {names}")
    if entry == partner:
        raise ValueError(f"{what}: entry and partner are both {entry!r}; name two different entries of {coupler}")


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


def select_bodies(
    model: Any, patterns: Sequence[str], owned: set[int], entry: str, coupler: str, what: str
) -> set[int]:
    """Bodies selected by label regexes (a path selects everything below it); all must be owned by *entry*."""
    selector = LabelSelector(model.body_label, "body")
    selected: set[int] = set()
    for i, pattern in enumerate(patterns):
        selected.update(selector.require(pattern, f"{what}: bodies[{i}]", scope="subtree").tolist())
    foreign = sorted(selected - owned)
    if foreign:
        labels = [model.body_label[b] for b in foreign[:4]]
        raise ValueError(
            f"{what}: bodies={list(patterns)!r} selects bodies {labels} that entry {entry!r} does not own "
            f"({coupler}.entries[{entry!r}].bodies); select bodies of {entry!r} only"
        )
    return selected


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
