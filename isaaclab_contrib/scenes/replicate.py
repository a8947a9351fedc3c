"""Env replication: one prototype builder copied into Newton worlds with Isaac Lab-style labels."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import newton
import warp as wp

from isaaclab_contrib.physics import NewtonManager

__all__ = ["env_particle_blocks", "env_prefixes", "replicate_envs"]


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
) -> None:
    """Replicate *prototype* into *num_envs* worlds labelled ``/World/envs/env_{i}``.

    Args:
        builder: Builder receiving the worlds (a ``newton.ModelBuilder``).
        prototype: Builder holding one env, labelled relative to the env prefix.
        num_envs: Number of envs (Newton worlds) [count].
        spacing: Distance between neighbouring env origins along x [m]; used when *origins* is not given.
        origins: Origin of each env [m]; overrides *spacing*.

    Pending ``cl_register_site(per_world=True)`` requests of the active simulation are added to
    *prototype* first (it is modified), so each env gets one bodyless site in its own frame.
    """
    # The replication step of the kitless stack: sites requested with cl_register_site(per_world=True)
    # go into the prototype now, so every env gets one in its own frame.
    NewtonManager.cl_inject_sites(prototype)
    prefixes = env_prefixes(num_envs)
    if origins is not None:
        xforms = [wp.transform(origin, wp.quat_identity()) for origin in origins]
        builder.replicate(prototype, num_envs, xforms=xforms, label_prefixes=prefixes)
    else:
        builder.replicate(prototype, num_envs, spacing=(spacing, 0.0, 0.0), label_prefixes=prefixes)
