"""What the runtime asset objects share: env and id selections, checked input values, name matching, the data
cache and per-env row blocks of the simulation's flat arrays.

An asset object (:class:`~isaaclab_contrib.assets.Articulation`, :class:`~isaaclab_contrib.assets.RigidObject`,
:class:`~isaaclab_contrib.assets.DeformableObject`, :class:`~isaaclab_contrib.assets.Cable`) is built from one asset
config of the scene that was launched and the running manager (``NewtonManager`` or a subclass: class-level, acting
on the active simulation). It reads and writes the manager's current state (``get_state_0()``), control
(``get_control()``) and model in place: the state's arrays are fixed buffers for the simulation's whole life (the
step program swaps its two states between substeps but always leaves the result in ``state_0``; captured graphs
replay on the same buffers), so views into them stay valid until the simulation is closed or cleared. Every access
checks that the simulation is still the one the asset was built on and raises a ``RuntimeError`` otherwise.

Writes are per env (``env_ids=None``: every env). Every input is checked before anything is written (shape, finite
values, ids in range, no repeated ids); a refusal raises a ``TypeError`` / ``ValueError`` / ``IndexError`` naming the
asset, the argument and what was expected, and leaves the simulation as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
import warp as wp

from .proxy_array import ProxyArray

__all__ = ["AssetBase", "AssetDataBase", "RowBlock", "resolve_names"]


# ---------------------------------------------------------------------- name matching
def resolve_names(
    keys: str | Sequence[str], names: Sequence[str], where: str, what: str, preserve_order: bool = False
) -> tuple[list[int], list[str]]:
    """Indices and names of *names* matched by the regexes *keys* (each a full match), Isaac Lab's semantics.

    Args:
        keys: One regex or a sequence of them.
        names: The names to match (the asset's joint or body names).
        where: The asset, for errors (``"Articulation 'robot'"``).
        what: What the names are, for errors (``"joint"``, ``"body"``).
        preserve_order: ``False``: the result follows the order of *names*; ``True``: the order of *keys* (names a
            key matches in the order of *names*).

    Raises:
        TypeError: *keys* is not a string or a sequence of strings.
        ValueError: A key is not a valid regex or matches no name (the message lists the available names), or two
            keys match the same name.
    """
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, Sequence) or not all(isinstance(k, str) for k in keys):
        raise TypeError(f"{where}: {what} name keys must be a regex string or a list of them, got {keys!r}")
    owner: dict[int, str] = {}
    by_key: list[list[int]] = []
    for key in keys:
        try:
            pattern = re.compile(key)
        except re.error as err:
            raise ValueError(f"{where}: {what} name key {key!r} is not a valid regular expression: {err}") from err
        hits = [i for i, name in enumerate(names) if pattern.fullmatch(name)]
        if not hits:
            raise ValueError(
                f"{where}: {what} name key {key!r} matches none of the {what} names {list(names)} "
                "(keys are regexes matched in full)"
            )
        for i in hits:
            if i in owner:
                raise ValueError(
                    f"{where}: {what} {names[i]!r} is matched by both {owner[i]!r} and {key!r}; each name may be "
                    "matched by one key only"
                )
            owner[i] = key
        by_key.append(hits)
    ids = [i for hits in by_key for i in hits] if preserve_order else sorted(owner)
    return ids, [names[i] for i in ids]


# ---------------------------------------------------------------------- per-env rows of a flat array
class RowBlock:
    """The rows ``ids[e, k]`` (env *e*, element *k*) of a flat simulation array (``state.body_q``,
    ``state.particle_q``, ``state.joint_q``...).

    When the rows are laid out regularly (element *k* of env *e* at ``base + e * stride + k``, as env replication
    lays them out), :meth:`view` is a zero-copy strided view; otherwise :attr:`regular` is ``False`` and the
    caller gathers (:meth:`gather`) into a buffer of its own.
    """

    def __init__(self, ids: np.ndarray, device: str):
        ids = np.asarray(ids, dtype=np.int64)
        if ids.ndim != 2 or ids.size == 0:
            raise ValueError(f"RowBlock needs a non-empty [num_envs, count] id array, got shape {ids.shape}")
        self.ids = ids
        self.num_envs, self.count = ids.shape
        self.base = int(ids[0, 0])
        self.env_stride = int(ids[1, 0] - ids[0, 0]) if self.num_envs > 1 else self.count
        expected = self.base + self.env_stride * np.arange(self.num_envs)[:, None] + np.arange(self.count)[None, :]
        self.regular = bool(self.env_stride >= self.count and np.array_equal(ids, expected))
        self.index = torch.as_tensor(ids, device=wp.device_to_torch(device))

    def view(self, flat: torch.Tensor, lo: int = 0, hi: int | None = None) -> torch.Tensor:
        """Zero-copy view ``[num_envs, count, hi - lo]`` of columns ``lo:hi`` of the 2-D *flat* (``[num_envs,
        count]`` for a 1-D *flat*). Only for a :attr:`regular` block."""
        if not self.regular:
            raise RuntimeError("RowBlock.view: the rows are not laid out regularly; gather them instead")
        if flat.dim() == 1:
            (s0,) = flat.stride()
            offset = flat.storage_offset() + self.base * s0
            return flat.as_strided((self.num_envs, self.count), (self.env_stride * s0, s0), offset)
        s0, s1 = flat.stride()
        hi = flat.shape[1] if hi is None else hi
        offset = flat.storage_offset() + self.base * s0 + lo * s1
        return flat.as_strided((self.num_envs, self.count, hi - lo), (self.env_stride * s0, s0, s1), offset)

    def gather(self, flat: torch.Tensor, out: torch.Tensor, lo: int = 0, hi: int | None = None) -> None:
        """Copy the rows (columns ``lo:hi`` of a 2-D *flat*) into *out* (``[num_envs, count, ...]``)."""
        rows = flat[self.index] if flat.dim() == 1 else flat[self.index, lo : (flat.shape[1] if hi is None else hi)]
        out.copy_(rows.view(out.shape))

    def scatter(self, flat: torch.Tensor, env: torch.Tensor, values: torch.Tensor, lo: int = 0, hi: int | None = None):
        """Write *values* ``[len(env), count, ...]`` into the rows of the envs *env* (columns ``lo:hi``)."""
        index = self.index[env]
        if flat.dim() == 1:
            flat[index] = values.to(flat.dtype)
        else:
            flat[index, lo : (flat.shape[1] if hi is None else hi)] = values.to(flat.dtype)


_VEC_TYPES = {1: None, 3: wp.vec3, 4: wp.quat, 6: wp.spatial_vector, 7: wp.transform}


def warp_of(tensor: torch.Tensor, width: int | None) -> wp.array:
    """Zero-copy Warp array of *tensor* (strides kept); *width* ``3``/``4``/``6``/``7`` folds the last axis into a
    ``vec3``/``quat``/``spatial_vector``/``transform`` dtype, ``None`` keeps floats."""
    dtype = _VEC_TYPES.get(width) if width is not None else None
    return wp.from_torch(tensor, dtype=dtype) if dtype is not None else wp.from_torch(tensor)


# ---------------------------------------------------------------------- the data container base
class AssetDataBase:
    """Base of the asset data containers: fields by name, static (zero-copy views, own buffers) or computed
    (gathered or derived into a preallocated Warp buffer).

    A computed field is refreshed when it is read and its stamp is stale; the stamp is the manager's simulated time
    and this container's version, so reading a field twice in one env step computes it once. The version moves
    with :meth:`invalidate` (``InteractiveScene.update()``, ``asset.reset()`` and the asset's own writes call it).
    A write made around the asset (``manager.write_initial_state``) is seen by the computed fields after the next
    step or :meth:`invalidate`.
    """

    def __init__(self, asset: AssetBase):
        self._asset = asset
        self._static: dict[str, ProxyArray] = {}
        self._computed: dict[str, tuple[ProxyArray, Callable[[torch.Tensor], None]]] = {}
        self._stamps: dict[str, tuple[float, int]] = {}
        self._version = 0
        self.refresh_count = 0
        """How many times a computed field was refreshed (a gather or a derivation) [count]; for tests and profiling."""

    def _add(self, name: str, proxy: ProxyArray) -> None:
        self._static[name] = proxy

    def _add_computed(self, name: str, proxy: ProxyArray, fill: Callable[[torch.Tensor], None]) -> None:
        self._computed[name] = (proxy, fill)

    def _get(self, name: str) -> ProxyArray:
        self._asset._check_alive()
        proxy = self._static.get(name)
        if proxy is not None:
            return proxy
        proxy, fill = self._computed[name]
        stamp = (self._asset._manager.get_simulation_time(), self._version)
        if self._stamps.get(name) != stamp:
            fill(proxy.torch)
            self._stamps[name] = stamp
            self.refresh_count += 1
        return proxy

    def invalidate(self) -> None:
        """Mark every computed field stale: the next read refreshes it."""
        self._version += 1

    def fields(self) -> list[str]:
        """Names of the data fields (each a property returning a :class:`ProxyArray`)."""
        return sorted([*self._static, *self._computed])


def field(name: str, doc: str) -> property:
    """A data-container property returning the :class:`ProxyArray` of field *name*."""

    def get(self: AssetDataBase) -> ProxyArray:
        return self._get(name)

    return property(get, doc=doc)


# ---------------------------------------------------------------------- the asset base
class AssetBase:
    """Base of the runtime asset objects: the config, the manager, the envs, and checked inputs."""

    kind = "Asset"

    def __init__(self, cfg: Any, manager: type, name: str, num_envs: int, per_env: bool):
        """Args:
        cfg: The asset config (a field of the launched scene config).
        manager: The running manager class (``NewtonManager`` or a subclass).
        name: The config field name of the asset in its scene (for errors).
        num_envs: Instances of the asset [count]: the scene's ``num_envs`` for a per-env asset, 1 for a global one.
        per_env: Whether instance *i* lives in env (world) *i*; a global asset's instance is in no world.
        """
        self.cfg = cfg
        self.name = name
        self._manager = manager
        self._state = manager.get_state_0()
        if self._state is None:
            raise RuntimeError(f"{self._where()}: no simulation is running; launch() the scene first")
        self._model = manager.get_model()
        self._control = manager.get_control()
        self.device = str(manager.get_device())
        self.torch_device = wp.device_to_torch(self.device)
        self._num = int(num_envs)
        self._per_env = bool(per_env)

    def _where(self) -> str:
        return f"{self.kind} {self.name!r}"

    @property
    def num_instances(self) -> int:
        """Instances of the asset [count] (one per env; 1 for a global asset)."""
        return self._num

    def _check_alive(self) -> None:
        if self._manager.get_state_0() is not self._state:
            raise RuntimeError(
                f"{self._where()}: the simulation it was built on was closed, cleared or rebuilt; build a new "
                "InteractiveScene for the running simulation"
            )

    # ------------------------------------------------------------------ checked inputs
    def _env_index(self, env_ids: Any) -> torch.Tensor:
        """*env_ids* as a long tensor on the device (``None`` / ``slice(None)``: every instance); checked."""
        return self._index(env_ids, self._num, "env_ids", "envs")

    def _index(self, ids: Any, size: int, arg: str, what: str) -> torch.Tensor:
        """*ids* (of *size* items: envs, bodies, joints) as a long tensor on the device, checked (integers in range,
        none repeated); ``None`` or a slice selects as a slice does (``None``: all)."""
        where = f"{self._where()}: {arg}"
        if ids is None:
            ids = slice(None)
        if isinstance(ids, slice):
            return torch.arange(size, device=self.torch_device)[ids]
        if isinstance(ids, (int, np.integer)) and not isinstance(ids, (bool, np.bool_)):
            ids = [int(ids)]
        if isinstance(ids, wp.array):
            ids = wp.to_torch(ids)
        try:
            tensor = torch.as_tensor(ids, device=self.torch_device)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(f"{where} must be integer indices (a list, array or tensor), got {ids!r}") from err
        if tensor.numel() == 0:
            return torch.zeros(0, dtype=torch.long, device=self.torch_device)  # no envs: nothing to do
        if tensor.dtype == torch.bool or tensor.is_floating_point() or tensor.is_complex():
            raise TypeError(f"{where} must hold integer indices, got dtype {tensor.dtype}")
        if tensor.dim() > 1:
            raise ValueError(f"{where} must be one-dimensional, got shape {tuple(tensor.shape)}")
        tensor = tensor.reshape(-1).long()
        if tensor.numel() and (int(tensor.min()) < 0 or int(tensor.max()) >= size):
            raise IndexError(f"{where} must lie in [0, {size}) ({size} {what}), got {tensor.tolist()}")
        if tensor.numel() != torch.unique(tensor).numel():
            raise ValueError(f"{where} repeats an index ({tensor.tolist()}); which write wins would be undefined")
        return tensor

    def _values(self, value: Any, shape: tuple[int, ...], arg: str, unit: str) -> torch.Tensor:
        """*value* as a float tensor of exactly *shape* on the device, finite; checked (nothing is written here)."""
        where = f"{self._where()}: {arg}"
        if isinstance(value, wp.array):
            value = wp.to_torch(value)
        if isinstance(value, ProxyArray):
            value = value.torch
        try:
            tensor = torch.as_tensor(value, dtype=torch.float32, device=self.torch_device)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(f"{where} must be a tensor or array of shape {shape} {unit}, got {value!r}") from err
        if tuple(tensor.shape) != tuple(shape):
            raise ValueError(f"{where} must have shape {tuple(shape)} {unit}, got {tuple(tensor.shape)}")
        if not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{where} holds non-finite values (NaN or inf); nothing was written")
        return tensor

    def _unit_quats(self, quat: torch.Tensor, arg: str) -> torch.Tensor:
        norm = quat.norm(dim=-1, keepdim=True)
        if bool((norm - 1.0).abs().gt(1e-3).any()):
            raise ValueError(
                f"{self._where()}: {arg} holds quaternions (x, y, z, w) that are not unit length (norms "
                f"{norm.flatten().tolist()}); normalize them"
            )
        return quat / norm

    def _material_values(self, env: torch.Tensor, values: dict[str, Any], fields: Any) -> dict[str, torch.Tensor]:
        """*values* (field name -> a number or a ``[len(env)]`` tensor) checked against the material *fields* of
        the asset, as float tensors ``[len(env)]``; ``KeyError`` / ``ValueError`` naming the field otherwise."""
        where = f"{self._where()}.write_material_to_sim"
        checked = {}
        for field_name, value in values.items():
            if field_name not in fields:
                raise KeyError(
                    f"{where}: unknown material field {field_name!r}; {type(self.cfg).__name__} has {sorted(fields)}"
                )
            try:
                if isinstance(value, (bool, str, bytes)):
                    raise TypeError(type(value).__name__)
                tensor = torch.as_tensor(value, dtype=torch.float32, device=self.torch_device)
            except (TypeError, ValueError, RuntimeError) as err:
                raise TypeError(
                    f"{where}: {field_name} must be a number or a tensor of [{len(env)}], got {value!r}"
                ) from err
            if tensor.ndim == 0:
                tensor = tensor.expand(len(env))
            if tuple(tensor.shape) != (len(env),):
                raise ValueError(
                    f"{where}: {field_name} must be a number or a tensor of [{len(env)}], got {list(tensor.shape)}"
                )
            if not torch.isfinite(tensor).all() or (tensor < 0).any():
                raise ValueError(f"{where}: {field_name} must be finite and >= 0, got {tensor.tolist()}")
            checked[field_name] = tensor
        return checked

    def _invalidate(self, env: torch.Tensor) -> None:
        """Mark the worlds of the instances *env* for FK and a masked solver reset at the next ``forward()`` / step
        (the manager's one path; it may refuse, before anything was written, when the solver cannot reset them)."""
        if self._per_env:
            self._manager.invalidate_fk(env_ids=env.cpu().numpy())
        else:
            self._manager.invalidate_fk()  # a global asset is in no world: every world and the global rows
