"""Env replication: one prototype builder copied into Newton worlds with Isaac Lab-style labels."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import newton
import warp as wp

__all__ = ["WorldSite", "env_particle_blocks", "env_prefixes", "replicate_envs"]

WorldSite = tuple[Sequence[float], str]
"""A bodyless site in each env's frame: ``(xform, label)``, *xform* the 7 numbers ``(px, py, pz, qx, qy, qz,
qw)`` of its transform in the env frame [m, quaternion xyzw] and *label* its label suffix (the site of env *i* is
labelled ``/World/envs/env_{i}/{label}``). ``NewtonManager.cl_world_sites()`` lists the ones requested with
``cl_register_site(per_world=True)``."""


def env_prefixes(num_envs: int) -> list[str]:
    """Label prefixes ``/World/envs/env_{i}`` of *num_envs* envs."""
    return [f"/World/envs/env_{i}" for i in range(num_envs)]


def env_particle_blocks(num_envs: int, *counts: int) -> list[list[int]]:
    """Global particle ids of per-env particle blocks, for envs that each add ``counts[0]``, then
    ``counts[1]``, ... particles (and no others), replicated *num_envs* times.

    Returns one list per block, holding that block's ids in every env: with a cloth of 81 and a bed of
    32 particles per env, ``cloth, bed = env_particle_blocks(2, 81, 32)`` gives ``cloth == [0..80,
    113..193]`` and ``bed == [81..112, 194..225]``.
    """
    per_env = sum(counts)
    blocks: list[list[int]] = [[] for _ in counts]
    for env in range(num_envs):
        start = env * per_env
        for block, count in zip(blocks, counts, strict=True):
            block.extend(range(start, start + count))
            start += count
    return blocks


def replicate_envs(
    builder: Any,
    prototype: newton.ModelBuilder,
    num_envs: int,
    *,
    spacing: float = 2.0,
    origins: Sequence[tuple[float, float, float]] | None = None,
    sites: Sequence[WorldSite] = (),
) -> None:
    """Replicate *prototype* into *num_envs* worlds labelled ``/World/envs/env_{i}``.

    Args:
        builder: Builder receiving the worlds (a ``newton.ModelBuilder``).
        prototype: Builder holding one env, labelled relative to the env prefix.
        num_envs: Number of envs (Newton worlds) [count].
        spacing: Distance between neighbouring env origins along x [m]; used when *origins* is not given.
        origins: Origin of each env [m]; overrides *spacing*.
        sites: Bodyless sites to give every env (:data:`WorldSite`), added to *prototype* first (it is
            modified) so each env gets its own, in its own frame. :func:`~isaaclab_contrib.scenes.launch` passes
            the ``cl_register_site(per_world=True)`` requests of the simulation it starts (per-env cameras);
            building by hand, pass ``NewtonManager.cl_world_sites()``.
    """
    for xform, label in sites:
        prototype.add_site(-1, xform=wp.transform(xform[:3], xform[3:]), label=label)
    prefixes = env_prefixes(num_envs)
    if origins is not None:
        xforms = [wp.transform(origin, wp.quat_identity()) for origin in origins]
        builder.replicate(prototype, num_envs, xforms=xforms, label_prefixes=prefixes)
    else:
        builder.replicate(prototype, num_envs, spacing=(spacing, 0.0, 0.0), label_prefixes=prefixes)
