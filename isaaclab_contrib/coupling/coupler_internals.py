"""What the coupler's own sensors share: Newton's coupled-solver internals, per-env layouts and entry checks.

Newton 1.8's coupled solvers compute, on every coupled step, what coupled-simulation users ask for (the
forces between entries, how far the coupling iterations converged) but keep it in internal buffers: the ADMM
row groups and the proxy mappings. The coupler's sensors read them inside the captured step, each sensor
module beside the sampler that feeds it:

- :mod:`.interface_force`: the wrench the coupling applies on one entry's bodies (and particles) from another;
- :mod:`.coupling_diagnostics`: per env, the residual of every coupling iteration;
- :mod:`.penetration`: how deep one entry's particles sink into another entry's rigid shapes (geometric, no
  internals needed).

This module holds what they share. :func:`require_internals` checks that the internals exist and names what
is missing, so a changed Newton fails loudly when a sensor is created, not with a wrong number later.
"""

# No ``from __future__ import annotations`` here: the per-dtype kernels' annotations name their factory's
# ``dtype``, which Warp resolves only from evaluated annotations.

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import warp as wp

from isaaclab_contrib.utils.labels import LabelSelector

__all__ = [
    "ADMM_GROUPS",
    "PROXY_MAPPINGS",
    "CouplerInternalsError",
    "RowCounts",
    "check_entry_pair",
    "env_layout",
    "env_slots",
    "gather_rows_kernel",
    "host_ids",
    "per_dtype",
    "require_internals",
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

PROXY_MAPPINGS: dict[str, str] = {"proxy_body": "_proxy_mappings", "proxy_particle": "_proxy_particle_mappings"}
"""Proxy row kinds -> the ``SolverCoupledProxy`` attribute holding their mappings (Newton 1.8)."""

_ADMM_HOOKS = ("_update_admm_dual",)
_PROXY_HOOKS = ("_step_proxy", "_stash_proxy_feedback", "_blend_proxy_feedback")


class CouplerInternalsError(RuntimeError):
    """The installed Newton lacks a coupled-solver internal the coupler's sensors read."""


def require_internals(solver: Any, what: str, *, hooks: bool = False) -> str:
    """``"admm"`` or ``"proxy"`` for *solver*; raise naming the missing Newton internals otherwise.

    Args:
        solver: The coupled Newton solver.
        what: The consumer, for the message.
        hooks: Also require the iteration methods the diagnostics hook into
            (:mod:`~isaaclab_contrib.coupling.newton_patches`).
    """
    from newton.solvers.experimental.coupled import SolverCoupledADMM, SolverCoupledProxy

    if isinstance(solver, SolverCoupledADMM):
        kind, base, attrs, methods = "admm", SolverCoupledADMM, ADMM_GROUPS.values(), _ADMM_HOOKS
    elif isinstance(solver, SolverCoupledProxy):
        kind, base, attrs, methods = "proxy", SolverCoupledProxy, PROXY_MAPPINGS.values(), _PROXY_HOOKS
    else:
        raise TypeError(f"{what} needs Newton's SolverCoupledADMM or SolverCoupledProxy, got {type(solver).__name__}")
    missing = [name for name in (*attrs, "_entries", "_coupling") if not hasattr(solver, name)]
    if hooks:
        missing += [f"{base.__name__}.{name}" for name in methods if not hasattr(base, name)]
    if missing:
        raise CouplerInternalsError(
            f"{what}: the installed Newton's {base.__name__} lacks {missing}, which this package reads for the "
            "coupler's interface-force and convergence sensors. This package supports newton 1.8; install newton==1.8.0."
        )
    return kind


# --------------------------------------------------------------------------------------------- per-env layouts
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


def env_slots(count: int, layout: np.ndarray, device: Any) -> wp.array:
    """Model index -> flat ``env * n + k`` slot of *layout* (``-1``: not sensed), for *count* model elements."""
    slots = np.full(max(count, 1), -1, dtype=np.int32)
    flat = layout.reshape(-1)
    slots[flat] = np.arange(flat.size, dtype=np.int32)
    return wp.array(slots, dtype=wp.int32, device=device)


def host_ids(array: Any) -> np.ndarray:
    """A Newton index array on the host (an empty one for ``None`` or no rows)."""
    return array.numpy() if array is not None and array.shape[0] else np.zeros(0, dtype=np.int64)


class RowCounts:
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


def per_dtype(factory: Callable[[type], wp.Kernel]) -> Callable[[type], wp.Kernel]:
    """Decorate *factory* ``(dtype) -> kernel`` to build one kernel per dtype, once: one kernel per operation,
    written once for any dtype.

    The factory's kernel should be ``@wp.kernel(module="unique")``: each dtype's kernel then lives in a Warp
    module of its own. ``wp.overload`` of one ``typing.Any`` kernel does not do here: Warp 1.19 records the
    launches of a CPU graph under the kernel's name, so two overloads launched in one captured step would both
    replay the first one (writing six floats per ``vec3`` row).
    """
    return functools.cache(factory)


@per_dtype
def gather_rows_kernel(dtype: type) -> wp.Kernel:
    """``out[i] = values[ids[i]]`` over arrays of *dtype*, while ``enabled[0]`` is non-zero (a device-side
    switch, graph-safe)."""

    @wp.kernel(enable_backward=False, module="unique")
    def gather_rows(
        enabled: wp.array(dtype=wp.int32),
        ids: wp.array(dtype=wp.int32),
        values: wp.array(dtype=dtype),
        out: wp.array(dtype=dtype),
    ):
        i = wp.tid()
        if enabled[0] != 0:
            out[i] = values[ids[i]]

    return gather_rows


# --------------------------------------------------------------------------------------------- selections
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
