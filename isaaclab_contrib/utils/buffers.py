"""Batched history buffers (Isaac Lab's ``CircularBuffer``): the last N values of a ``[batch, ...]`` tensor.

The observation manager keeps one per observation term with a history. Values are kept oldest first; after a
reset, the next value appended to a batch entry fills that entry's whole history, so a fresh episode never sees
the previous episode's values.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

__all__ = ["CircularBuffer"]


class CircularBuffer:
    """The last :attr:`max_length` values appended, per batch entry (env).

    Args:
        max_len: Number of values kept (at least 1).
        batch_size: Size of the first dimension of every appended tensor (the number of envs).
        device: Torch device the history lives on.

    Raises:
        ValueError: *max_len* below 1 or *batch_size* below 0.
    """

    def __init__(self, max_len: int, batch_size: int, device: str | torch.device):
        if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
            raise ValueError(f"CircularBuffer: max_len must be an int >= 1, got {max_len!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 0:
            raise ValueError(f"CircularBuffer: batch_size must be an int >= 0, got {batch_size!r}")
        self._max_len = max_len
        self._batch_size = batch_size
        self._device = device
        self._num_pushes = torch.zeros(batch_size, dtype=torch.long, device=device)
        self._all_rows = torch.arange(batch_size, device=device)
        self._pending_fill = True  # some entry has had no value since its reset
        self._data: torch.Tensor | None = None  # [max_len, batch, ...], oldest first; allocated on first append

    @property
    def max_length(self) -> int:
        """Number of values kept."""
        return self._max_len

    @property
    def batch_size(self) -> int:
        """Size of the batch dimension."""
        return self._batch_size

    @property
    def device(self) -> str | torch.device:
        """Torch device of the history."""
        return self._device

    @property
    def is_allocated(self) -> bool:
        """Whether a value was ever appended (the storage takes the first value's shape and dtype)."""
        return self._data is not None

    @property
    def current_length(self) -> torch.Tensor:
        """Values held per batch entry since its last reset (at most :attr:`max_length`), ``[batch]``."""
        return torch.clamp(self._num_pushes, max=self._max_len)

    @property
    def buffer(self) -> torch.Tensor:
        """The history, ``[batch, max_length, ...]``, oldest value first (a view: do not write into it).

        Raises:
            RuntimeError: Nothing was appended yet.
        """
        if self._data is None:
            raise RuntimeError("CircularBuffer: the buffer is empty; append a value first")
        return self._data.transpose(0, 1)

    def reset(self, batch_ids: Sequence[int] | torch.Tensor | slice | None = None) -> None:
        """Forget the history of *batch_ids* (``None``: every entry): it reads zero until the next append, which
        fills the whole history of those entries with the appended value."""
        if batch_ids is None:
            batch_ids = slice(None)
        if isinstance(batch_ids, slice):
            count = len(range(self._batch_size)[batch_ids])
        else:
            count = len(batch_ids)
        if count == 0:
            return
        self._num_pushes[batch_ids] = 0
        self._pending_fill = True
        if self._data is not None:
            self._data[:, batch_ids] = 0

    def append(self, data: torch.Tensor) -> None:
        """Push *data* (``[batch, ...]``) as the newest value; the oldest drops out.

        Raises:
            ValueError: *data* is not a tensor with :attr:`batch_size` rows, or its shape differs from the earlier
                values'.
        """
        if not isinstance(data, torch.Tensor) or data.ndim == 0 or data.shape[0] != self._batch_size:
            shape = tuple(data.shape) if isinstance(data, torch.Tensor) else type(data).__name__
            raise ValueError(f"CircularBuffer: expected a tensor of [{self._batch_size}, ...], got {shape}")
        data = data.to(self._device)
        if self._data is None:
            self._data = torch.zeros((self._max_len, *data.shape), dtype=data.dtype, device=self._device)
        elif data.shape != self._data.shape[1:]:
            raise ValueError(
                f"CircularBuffer: appended shape {tuple(data.shape)} differs from the history's "
                f"{tuple(self._data.shape[1:])}"
            )
        if self._max_len > 1:
            self._data[:-1] = self._data[1:].clone()
        self._data[-1] = data
        if self._pending_fill:
            fresh = (self._num_pushes == 0).view(1, -1, *([1] * (data.ndim - 1)))
            self._data.copy_(torch.where(fresh, data.unsqueeze(0), self._data))
            self._pending_fill = False
        self._num_pushes += 1

    def __getitem__(self, key: torch.Tensor) -> torch.Tensor:
        """The value *key* appends ago per entry (``0``: the newest), ``[batch, ...]``; a key beyond what an
        entry holds gives its oldest value.

        Raises:
            ValueError: *key* does not have :attr:`batch_size` entries.
            RuntimeError: Nothing was appended yet.
        """
        if len(key) != self._batch_size:
            raise ValueError(f"CircularBuffer: key has {len(key)} entries, expected {self._batch_size}")
        if self._data is None:
            raise RuntimeError("CircularBuffer: the buffer is empty; append a value first")
        key = torch.as_tensor(key, device=self._device, dtype=torch.long)
        back = torch.clamp(torch.minimum(key, self._num_pushes - 1), min=0)
        return self._data[self._max_len - 1 - back, self._all_rows]
