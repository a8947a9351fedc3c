"""The observation manager (Isaac Lab's ``ObservationManager``): observation groups built from terms.

A group (``policy``, ``critic``, ...) is an :class:`ObservationGroupCfg` subclass whose fields are
:class:`ObservationTermCfg` s. Each step every term goes through, in order:

1. the call ``func(env, **params)`` (a ``[num_envs, ...]`` tensor, copied),
2. the :attr:`~ObservationTermCfg.modifiers`, in order,
3. the :attr:`~ObservationTermCfg.noise`, when the group sets ``enable_corruption``,
4. the :attr:`~ObservationTermCfg.clip`, then 5. the :attr:`~ObservationTermCfg.scale`,
6. the history (the last ``history_length`` values, oldest first; flattened into the last dimension unless
   ``flatten_history_dim=False``).

A group's terms are concatenated (along ``concatenate_dim`` of the terms' own shape) or returned as a dict.
"""

from __future__ import annotations

import copy
import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any

import torch

from isaaclab_contrib.utils.buffers import CircularBuffer
from isaaclab_contrib.utils.noise import NoiseCfg, NoiseModel, NoiseModelCfg, check_noise_cfg

from .manager_base import ManagerBase, ManagerTermBase, check_finite_number, check_params, term_fields
from .manager_term_cfg import OBSERVATION_GROUP_SETTINGS, ObservationGroupCfg, ObservationTermCfg

__all__ = ["ObservationManager", "flat_term_columns"]


Modifier = tuple[Callable[..., torch.Tensor], dict[str, Any]]


def flat_term_columns(term_names: Sequence[str], term_dims: Sequence[Sequence[int]]) -> dict[str, range]:
    """The columns of each term in a row of terms laid end to end, each as many columns as its shape holds values
    (``term_dims``: the shapes without the env dimension, as ``group_obs_term_dim`` gives them).

    Raises:
        ValueError: The names and the shapes differ in number, or a name is repeated.
    """
    names = list(term_names)
    if len(names) != len(term_dims) or len(set(names)) != len(names):
        raise ValueError(f"flat_term_columns: {len(term_dims)} shapes for the terms {names} (one each, names unique)")
    columns, start = {}, 0
    for name, dims in zip(names, term_dims, strict=True):
        width = math.prod(int(d) for d in dims)
        columns[name] = range(start, start + width)
        start += width
    return columns


class ObservationManager(ManagerBase):
    """Computes the observation groups of a config whose fields are :class:`ObservationGroupCfg` s.

    At build every term is checked (params against its function, scene entities against the scene, scale, clip,
    noise, modifiers and history settings) and called once to learn its shape; a group's terms must fit together
    when it concatenates them. Errors name the group and the term.

    Args:
        cfg: The observations config (configclass or dict of group name to :class:`ObservationGroupCfg`).
        env: The env (``num_envs``, ``device``, ``scene``; the action and command managers when terms read them).

    Raises:
        ValueError: *cfg* is ``None``.
    """

    def __init__(self, cfg: Any, env: Any):
        if cfg is None:
            raise ValueError("ObservationManager: the observations config is None; give at least one group")
        super().__init__(cfg, env)
        self._group_obs_dim: dict[str, tuple[int, ...] | list[tuple[int, ...]]] = {}
        for group_name, term_dims in self._group_obs_term_dim.items():
            if self._group_obs_concatenate[group_name]:
                self._group_obs_dim[group_name] = self._concatenated_dim(group_name, term_dims)
            else:
                self._group_obs_dim[group_name] = list(term_dims)
        self._obs_buffer: dict[str, torch.Tensor | dict[str, torch.Tensor]] | None = None

    def __str__(self) -> str:
        lines = [f"<ObservationManager> {len(self._group_obs_term_names)} groups:"]
        for group_name, names in self._group_obs_term_names.items():
            shape = f" shape {self._group_obs_dim[group_name]}" if self._group_obs_concatenate[group_name] else ""
            lines.append(f"  group {group_name!r}{shape}:")
            dims = self._group_obs_term_dim[group_name]
            lines += [f"    {i}: {name} {tuple(dim)}" for i, (name, dim) in enumerate(zip(names, dims, strict=True))]
        return "\n".join(lines)

    # ------------------------------------------------------------------ properties
    @property
    def active_terms(self) -> dict[str, list[str]]:
        """Names of the terms of each group, in config order."""
        return self._group_obs_term_names

    @property
    def group_obs_dim(self) -> dict[str, tuple[int, ...] | list[tuple[int, ...]]]:
        """Shape of each group's observation without the env dimension: one tuple for a concatenated group, the
        list of the terms' shapes otherwise."""
        return self._group_obs_dim

    @property
    def group_obs_term_dim(self) -> dict[str, list[tuple[int, ...]]]:
        """Shape of each term's observation (history included) without the env dimension, per group."""
        return self._group_obs_term_dim

    @property
    def group_obs_concatenate(self) -> dict[str, bool]:
        """Whether each group concatenates its terms."""
        return self._group_obs_concatenate

    def term_columns(self, group_name: str) -> dict[str, range]:
        """The columns each term fills in the concatenated row of *group_name* (``[num_envs, width]``, its terms
        one-dimensional, history included).

        Raises:
            ValueError: No such group, a group returned as a dict, or one whose terms are not one-dimensional.
        """
        if group_name not in self._group_obs_term_names:
            raise ValueError(
                f"ObservationManager: no observation group {group_name!r} (groups: {list(self._group_obs_term_names)})"
            )
        dims = self._group_obs_term_dim[group_name]
        if not self._group_obs_concatenate[group_name] or any(len(d) != 1 for d in dims):
            raise ValueError(
                f"ObservationManager: group {group_name!r} is not one row of columns (concatenate_terms="
                f"{self._group_obs_concatenate[group_name]}, term shapes {dims})"
            )
        return flat_term_columns(self._group_obs_term_names[group_name], dims)

    # ------------------------------------------------------------------ operations
    def reset(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> dict[str, float]:
        """Clear the histories of *env_ids* (``None``: every env) and reset class terms, class modifiers and noise
        models. Nothing to log: returns ``{}``."""
        for group_name, class_cfgs in self._group_obs_class_term_cfgs.items():
            for term_cfg in class_cfgs:
                term_cfg.func.reset(env_ids=env_ids)
            for history in self._group_obs_term_history_buffer[group_name].values():
                history.reset(batch_ids=env_ids)
        for instance in self._group_obs_class_instances:
            instance.reset(env_ids=env_ids)
        return {}

    def compute(self, update_history: bool = False) -> dict[str, torch.Tensor | dict[str, torch.Tensor]]:
        """Every group's observation (see :meth:`compute_group`); kept for :meth:`get_active_iterable_terms`.

        Args:
            update_history: Push this step's values into the histories (the env does once per step).
        """
        self._obs_buffer = {name: self.compute_group(name, update_history) for name in self._group_obs_term_names}
        return self._obs_buffer

    def compute_group(self, group_name: str, update_history: bool = False) -> torch.Tensor | dict[str, torch.Tensor]:
        """The observation of *group_name*: ``[num_envs, ...]`` when the group concatenates, else a dict of term
        name to tensor.

        Args:
            group_name: The group.
            update_history: Push this step's values into the group's histories. Without it the histories are
                read as they are (before the first push: as if this value filled them).

        Raises:
            ValueError: No such group.
        """
        if group_name not in self._group_obs_term_names:
            raise ValueError(
                f"ObservationManager: no observation group {group_name!r}; the groups are "
                f"{list(self._group_obs_term_names)}"
            )
        group_obs: dict[str, torch.Tensor] = {}
        term_cfgs = self._group_obs_term_cfgs[group_name]
        modifiers = self._group_obs_term_modifiers[group_name]
        histories = self._group_obs_term_history_buffer[group_name]
        for term_name, term_cfg, term_modifiers in zip(
            self._group_obs_term_names[group_name], term_cfgs, modifiers, strict=True
        ):
            obs = term_cfg.func(self._env, **term_cfg.params).clone()
            for func, params in term_modifiers:
                obs = func(obs, **params)
            noise = term_cfg.noise
            if isinstance(noise, NoiseCfg):
                obs = noise.func(obs, noise)
            elif isinstance(noise, NoiseModelCfg):
                obs = noise.func(obs)
            if term_cfg.clip is not None:
                obs = obs.clip_(min=term_cfg.clip[0], max=term_cfg.clip[1])
            if term_cfg.scale is not None:
                obs = obs.mul_(term_cfg.scale)
            if term_cfg.history_length > 0:
                obs = self._with_history(histories[term_name], obs, update_history, term_cfg.flatten_history_dim)
            group_obs[term_name] = obs
        if not self._group_obs_concatenate[group_name]:
            return group_obs
        if len(group_obs) == 1 and term_cfgs[0].history_length == 0:
            return next(iter(group_obs.values()))
        return torch.cat(list(group_obs.values()), dim=self._group_obs_concatenate_dim[group_name])

    def get_active_iterable_terms(self, env_idx: int) -> Sequence[tuple[str, Sequence[float]]]:
        """``("<group>-<term>", values)`` of env *env_idx* from the last :meth:`compute` (computed now if none)."""
        if self._obs_buffer is None:
            self.compute()
        terms: list[tuple[str, Sequence[float]]] = []
        for group_name, names in self._group_obs_term_names.items():
            data = self._obs_buffer[group_name]
            if not self._group_obs_concatenate[group_name]:
                terms += [(f"{group_name}-{name}", data[name][env_idx].cpu().tolist()) for name in names]
                continue
            dim = self._group_obs_concatenate_dim[group_name]
            dim = dim - 1 if dim > 0 else dim  # in the env's slice
            start = 0
            for name, shape in zip(names, self._group_obs_term_dim[group_name], strict=True):
                length = shape[dim]
                terms.append((f"{group_name}-{name}", data[env_idx].narrow(dim, start, length).cpu().tolist()))
                start += length
        return terms

    # ------------------------------------------------------------------ helpers
    def _with_history(self, history: CircularBuffer, obs: torch.Tensor, update: bool, flatten: bool) -> torch.Tensor:
        """The term's history ``[num_envs, H, ...]`` (or flattened to ``[num_envs, H * ...]``), a new tensor."""
        if update:
            history.append(obs)
            stacked = history.buffer
        elif history.is_allocated:
            stacked = history.buffer
        else:  # nothing pushed yet: read as if this value filled the history
            stacked = obs.unsqueeze(1).expand(obs.shape[0], history.max_length, *obs.shape[1:])
        out = stacked.reshape(self.num_envs, -1) if flatten else stacked
        if history.is_allocated and out.untyped_storage().data_ptr() == stacked.untyped_storage().data_ptr():
            out = out.clone()  # never hand out a view of the history: the next push would change it
        return out

    def _concatenated_dim(self, group_name: str, term_dims: list[tuple[int, ...]]) -> tuple[int, ...]:
        names = self._group_obs_term_names[group_name]
        where = f"ObservationManager group {group_name!r}"
        shapes = {name: tuple(dim) for name, dim in zip(names, term_dims, strict=True)}
        if not term_dims:
            return (0,)
        ranks = {len(dim) for dim in term_dims}
        if len(ranks) != 1 or 0 in ranks:
            raise RuntimeError(
                f"{where}: cannot concatenate terms of shapes {shapes} (the env dimension not counted): they need "
                "the same number (>= 1) of dimensions; set concatenate_terms=False to get a dict"
            )
        rank = ranks.pop()
        dim = self._group_obs_concatenate_dim[group_name]
        dim = dim - 1 if dim > 0 else dim
        if not -rank <= dim < rank:
            raise RuntimeError(f"{where}: concatenate_dim is out of range for terms of shapes {shapes}")
        dim %= rank
        for axis in range(rank):
            if axis != dim and len({d[axis] for d in term_dims}) > 1:
                raise RuntimeError(
                    f"{where}: cannot concatenate terms of shapes {shapes} along dimension {dim} (the env dimension "
                    "not counted): the other dimensions differ; set concatenate_terms=False to get a dict"
                )
        combined = list(term_dims[0])
        combined[dim] = sum(d[dim] for d in term_dims)
        return tuple(combined)

    # ------------------------------------------------------------------ build
    def _prepare_terms(self) -> None:
        self._group_obs_term_names: dict[str, list[str]] = {}
        self._group_obs_term_dim: dict[str, list[tuple[int, ...]]] = {}
        self._group_obs_term_cfgs: dict[str, list[ObservationTermCfg]] = {}
        self._group_obs_class_term_cfgs: dict[str, list[ObservationTermCfg]] = {}
        self._group_obs_concatenate: dict[str, bool] = {}
        self._group_obs_concatenate_dim: dict[str, int] = {}
        self._group_obs_term_history_buffer: dict[str, dict[str, CircularBuffer]] = {}
        self._group_obs_term_modifiers: dict[str, list[list[Modifier]]] = {}
        self._group_obs_class_instances: list[Any] = []  # class modifiers and noise models (reset with the env)
        # one object listed twice (two groups sharing a term cfg) is prepared as two copies, each with its own state
        seen: set[int] = set()
        for group_name, group_cfg in term_fields(self.cfg):
            group_cfg = _own(self.cfg, group_name, group_cfg, seen)
            if isinstance(group_cfg, ObservationGroupCfg):
                for term_name, term_cfg in term_fields(group_cfg):
                    if term_name not in OBSERVATION_GROUP_SETTINGS:
                        _own(group_cfg, term_name, term_cfg, seen)
        for group_name, group_cfg in term_fields(self.cfg):
            if not isinstance(group_cfg, ObservationGroupCfg):
                raise TypeError(
                    f"ObservationManager group {group_name!r}: expected an ObservationGroupCfg subclass, got "
                    f"{type(group_cfg).__name__}"
                )
            self._check_group_settings(group_name, group_cfg)
            self._group_obs_term_names[group_name] = []
            self._group_obs_term_dim[group_name] = []
            self._group_obs_term_cfgs[group_name] = []
            self._group_obs_class_term_cfgs[group_name] = []
            self._group_obs_term_history_buffer[group_name] = {}
            self._group_obs_term_modifiers[group_name] = []
            self._group_obs_concatenate[group_name] = group_cfg.concatenate_terms
            dim = group_cfg.concatenate_dim
            self._group_obs_concatenate_dim[group_name] = dim + 1 if dim >= 0 else dim  # count the env dimension
            for term_name, term_cfg in term_fields(group_cfg):
                if term_name in OBSERVATION_GROUP_SETTINGS:
                    continue
                if not isinstance(term_cfg, ObservationTermCfg):
                    raise TypeError(
                        f"ObservationManager group {group_name!r}: field {term_name!r} is a {type(term_cfg).__name__}, "
                        f"neither an ObservationTermCfg nor a group setting ({', '.join(OBSERVATION_GROUP_SETTINGS)})"
                    )
                self._prepare_term(group_name, group_cfg, term_name, term_cfg)

    def _check_group_settings(self, group_name: str, group_cfg: ObservationGroupCfg) -> None:
        where = f"ObservationManager group {group_name!r}"
        for name in ("concatenate_terms", "enable_corruption", "flatten_history_dim"):
            if not isinstance(getattr(group_cfg, name), bool):
                raise TypeError(f"{where}: {name} must be a bool, got {getattr(group_cfg, name)!r}")
        dim = group_cfg.concatenate_dim
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"{where}: concatenate_dim must be an int, got {dim!r}")
        length = group_cfg.history_length
        if length is not None and (isinstance(length, bool) or not isinstance(length, int) or length < 0):
            raise ValueError(f"{where}: history_length must be None or an int >= 0, got {length!r}")

    def _prepare_term(
        self, group_name: str, group_cfg: ObservationGroupCfg, term_name: str, term_cfg: ObservationTermCfg
    ) -> None:
        key = f"{group_name}/{term_name}"
        where = self._where(key)
        self._resolve_common_term_cfg(key, term_cfg, min_argc=1)
        if term_cfg.noise is not None:
            check_noise_cfg(term_cfg.noise, f"{where}: noise")
        if not group_cfg.enable_corruption:
            term_cfg.noise = None
        if group_cfg.history_length is not None:
            term_cfg.history_length = group_cfg.history_length
            term_cfg.flatten_history_dim = group_cfg.flatten_history_dim
        length = term_cfg.history_length
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise ValueError(f"{where}: history_length must be an int >= 0, got {length!r}")
        if not isinstance(term_cfg.flatten_history_dim, bool):
            raise TypeError(f"{where}: flatten_history_dim must be a bool, got {term_cfg.flatten_history_dim!r}")

        obs = self._trial_call(where, term_cfg)
        dims = tuple(obs.shape)
        if (term_cfg.scale is not None or term_cfg.noise is not None) and not obs.is_floating_point():
            raise TypeError(f"{where}: scale and noise need a floating-point observation, the term gives {obs.dtype}")
        self._check_clip(where, term_cfg)
        self._check_scale(where, term_cfg, dims)
        modifiers = self._prepare_modifiers(where, term_cfg, dims)
        if isinstance(term_cfg.noise, NoiseModelCfg):
            model = term_cfg.noise.class_type(term_cfg.noise, num_envs=self.num_envs, device=self.device)
            if not isinstance(model, NoiseModel):
                raise TypeError(f"{where}: noise.class_type built a {type(model).__name__}, not a NoiseModel")
            term_cfg.noise.func = model
            self._group_obs_class_instances.append(model)

        if length > 0:
            self._group_obs_term_history_buffer[group_name][term_name] = CircularBuffer(
                max_len=length, batch_size=self.num_envs, device=self.device
            )
            dims = (dims[0], length, *dims[1:])
            if term_cfg.flatten_history_dim:
                size = 1
                for d in dims[1:]:
                    size *= int(d)
                dims = (dims[0], size)
        self._group_obs_term_names[group_name].append(term_name)
        self._group_obs_term_cfgs[group_name].append(term_cfg)
        self._group_obs_term_dim[group_name].append(tuple(int(d) for d in dims[1:]))
        self._group_obs_term_modifiers[group_name].append(modifiers)
        if isinstance(term_cfg.func, ManagerTermBase):
            self._group_obs_class_term_cfgs[group_name].append(term_cfg)
            term_cfg.func.reset()  # undo what the trial call changed

    def _trial_call(self, where: str, term_cfg: ObservationTermCfg) -> torch.Tensor:
        try:
            obs = term_cfg.func(self._env, **term_cfg.params)
        except Exception as err:
            raise RuntimeError(f"{where}: the trial call at build failed: {type(err).__name__}: {err}") from err
        if not isinstance(obs, torch.Tensor):
            raise TypeError(f"{where}: must return a torch.Tensor of [num_envs, ...], got {type(obs).__name__}")
        if obs.ndim == 0 or obs.shape[0] != self.num_envs:
            raise ValueError(
                f"{where}: must return a tensor of [num_envs = {self.num_envs}, ...], got shape {list(obs.shape)}"
            )
        return obs

    def _check_clip(self, where: str, term_cfg: ObservationTermCfg) -> None:
        clip = term_cfg.clip
        if clip is None:
            return
        if not isinstance(clip, (tuple, list)) or len(clip) != 2:
            raise TypeError(f"{where}: clip must be a (min, max) pair, got {clip!r}")
        low = check_finite_number(clip[0], f"{where}: clip[0]")
        high = check_finite_number(clip[1], f"{where}: clip[1]")
        if low > high:
            raise ValueError(f"{where}: clip min {low} exceeds max {high}")
        term_cfg.clip = (low, high)

    def _check_scale(self, where: str, term_cfg: ObservationTermCfg, dims: tuple[int, ...]) -> None:
        scale = term_cfg.scale
        if scale is None:
            return
        if isinstance(scale, (tuple, list)):
            values = [check_finite_number(s, f"{where}: scale[{i}]") for i, s in enumerate(scale)]
            if len(dims) < 2 or len(values) != dims[-1]:
                raise ValueError(
                    f"{where}: scale has {len(values)} factors, the observation's last dimension has "
                    f"{dims[-1] if len(dims) > 1 else 'none'} entries (shape {list(dims)})"
                )
        else:
            values = check_finite_number(scale, f"{where}: scale")
        term_cfg.scale = torch.tensor(values, dtype=torch.float, device=self.device)

    def _prepare_modifiers(self, where: str, term_cfg: ObservationTermCfg, dims: tuple[int, ...]) -> list[Modifier]:
        """The term's modifiers as ``(callable, params)``; class modifiers are built with ``(cfg, data_dim, device)``
        and reset with the env."""
        if term_cfg.modifiers is None:
            return []
        if not isinstance(term_cfg.modifiers, (list, tuple)):
            raise TypeError(f"{where}: modifiers must be a list, got {type(term_cfg.modifiers).__name__}")
        prepared: list[Modifier] = []
        for index, modifier in enumerate(term_cfg.modifiers):
            at = f"{where}: modifiers[{index}]"
            if hasattr(modifier, "func"):
                params = getattr(modifier, "params", None) or {}
                if not isinstance(params, dict):
                    raise TypeError(f"{at}.params must be a dict, got {type(params).__name__}")
                func = modifier.func
                if inspect.isclass(func):
                    func = func(cfg=modifier, data_dim=dims, device=self.device)
                    modifier.func = func
                    if callable(getattr(func, "reset", None)):
                        self._group_obs_class_instances.append(func)
            elif callable(modifier):
                func, params = modifier, {}
            else:
                raise TypeError(f"{at}: expected a callable or a config with func and params, got {modifier!r}")
            if not callable(func):
                raise TypeError(f"{at}.func must be callable, got {func!r}")
            check_params(func, params, 1, at)
            prepared.append((func, params))
        return prepared


def _own(parent: Any, name: str, value: Any, seen: set[int]) -> Any:
    """*value*, or a deep copy of it put in its place in *parent* when the same object was met before."""
    if id(value) in seen:
        value = copy.deepcopy(value)
        if isinstance(parent, dict):
            parent[name] = value
        else:
            setattr(parent, name, value)
    seen.add(id(value))
    return value
