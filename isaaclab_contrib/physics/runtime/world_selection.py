"""Turn the env selections users pass (masks, ids; Warp, torch, numpy or lists) into one host world mask."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["world_mask_from"]


def _host(value: Any, what: str) -> np.ndarray:
    if hasattr(value, "numpy") and hasattr(value, "ptr"):  # warp array
        return np.asarray(value.numpy())
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # torch tensor
        return value.detach().cpu().numpy()
    try:
        return np.asarray(value)
    except Exception as err:  # pragma: no cover - numpy accepts nearly anything
        raise TypeError(f"{what} must be an array, tensor or sequence, got {type(value).__name__}") from err


def world_mask_from(world_count: int, env_mask: Any = None, env_ids: Any = None) -> np.ndarray:
    """Return a host boolean mask of shape ``(world_count + 1,)``; the last entry stands for global entities.

    Args:
        world_count: Number of worlds (envs) of the model.
        env_mask: Boolean mask over worlds, shape ``(world_count,)``.
        env_ids: Integer world indices in ``[0, world_count)``.

    With neither, every world and the global entities are selected.

    Raises:
        TypeError: ``env_mask`` is not boolean, or ``env_ids`` is boolean or not integer.
        ValueError: A mask of the wrong length, or an id out of range.
    """
    mask = np.zeros(world_count + 1, dtype=bool)
    if env_mask is not None:
        host = _host(env_mask, "env_mask").reshape(-1)
        if host.dtype != np.bool_:
            raise TypeError(
                f"env_mask must be a boolean mask over the {world_count} worlds, got dtype {host.dtype}; "
                "pass integer indices as env_ids"
            )
        if host.shape[0] != world_count:
            raise ValueError(f"env_mask has {host.shape[0]} entries; the model has {world_count} worlds")
        mask[:world_count] |= host
    if env_ids is not None:
        ids = _host(env_ids, "env_ids").reshape(-1)
        if ids.dtype == np.bool_:
            raise TypeError("env_ids holds booleans; pass a boolean mask as env_mask, or integer indices as env_ids")
        if ids.size and not np.issubdtype(ids.dtype, np.integer):
            raise TypeError(f"env_ids must hold integer world indices, got dtype {ids.dtype}")
        ids = ids.astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= world_count):
            raise ValueError(f"env_ids must lie in [0, {world_count}), got {ids.tolist()}")
        mask[ids] = True
    if env_mask is None and env_ids is None:
        mask[:] = True
    return mask
