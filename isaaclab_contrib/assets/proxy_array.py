"""A Warp array with a cached zero-copy torch view (Isaac Lab 3.0's ``ProxyArray``).

Isaac Lab 3.0 data fields are Warp-backed: a term reads ``asset.data.joint_pos.torch[:, ids]``, a kernel takes
``asset.data.joint_pos.warp``. Both name the same memory: writing one is seen through the other.
"""

from __future__ import annotations

from typing import Any

import warp as wp

__all__ = ["ProxyArray"]


class ProxyArray:
    """Wraps one ``wp.array``; :attr:`torch` is a zero-copy ``wp.to_torch`` view of it, made once and cached.

    The array may be strided (a view into a simulation array, e.g. the positions of one asset's bodies inside
    ``state.body_q``): the torch view then has the same strides, and writing it writes the simulation array.
    Data fields of the asset objects are ``[num_envs, ...]`` along the first axis.
    """

    __slots__ = ("_torch", "_warp")

    def __init__(self, array: wp.array):
        """Wrap *array* (a ``wp.array``).

        Raises:
            TypeError: *array* is not a ``wp.array``.
        """
        if not isinstance(array, wp.array):
            raise TypeError(f"ProxyArray wraps a wp.array, got {type(array).__name__}")
        self._warp = array
        self._torch = None

    @property
    def warp(self) -> wp.array:
        """The wrapped Warp array (for kernels)."""
        return self._warp

    @property
    def torch(self) -> Any:
        """Zero-copy torch view of :attr:`warp` (``wp.to_torch``), created on first use and cached; vector dtypes
        (``vec3``, ``quat``, ``transform``) add a trailing axis of their length."""
        if self._torch is None:
            self._torch = wp.to_torch(self._warp)
        return self._torch

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the torch view (the Warp shape plus a trailing axis for vector dtypes)."""
        return tuple(self.torch.shape)

    @property
    def device(self) -> str:
        """Warp device alias of the array (``"cpu"``, ``"cuda:0"``)."""
        return str(self._warp.device)

    @property
    def dtype(self) -> Any:
        """Warp dtype of the array."""
        return self._warp.dtype

    def __len__(self) -> int:
        """Length of the first axis (``num_envs`` for an asset's data field)."""
        return int(self._warp.shape[0])

    def __repr__(self) -> str:
        return f"ProxyArray(shape={self.shape}, dtype={getattr(self._warp.dtype, '__name__', self._warp.dtype)}, device={self.device!r})"
