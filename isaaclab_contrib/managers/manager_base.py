"""Base classes of the managers and of class-based terms (Isaac Lab's ``ManagerBase`` / ``ManagerTermBase``).

A manager takes a config whose fields are term configs (``None`` fields are skipped), checks every term
before the first step — the function's signature against the given ``params``, scene entities against the
runtime scene — and raises naming the manager, the term and the field. The simulation is running when the
managers are built, so scene entities resolve at once.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
from collections.abc import Sequence
from typing import Any, ClassVar

import torch

from isaaclab_contrib.utils.configclass import MISSING, is_configclass
from isaaclab_contrib.utils.string import resolve_matching_names

from .manager_term_cfg import ManagerTermBaseCfg
from .scene_entity_cfg import SceneEntityCfg

__all__ = ["ManagerBase", "ManagerTermBase", "TermListManager"]


class ManagerTermBase:
    """A term with state: built once with ``(cfg, env)``, called each time as ``term(env, **params)``.

    Subclasses override :meth:`__call__` and, when they keep per-env state, :meth:`reset`.
    """

    def __init__(self, cfg: ManagerTermBaseCfg, env: Any):
        self.cfg = cfg
        self._env = env

    @property
    def num_envs(self) -> int:
        """Number of envs."""
        return self._env.num_envs

    @property
    def device(self) -> str:
        """Torch device of the env's tensors."""
        return self._env.device

    @property
    def __name__(self) -> str:
        return type(self).__name__

    def reset(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> None:
        """Clear the term's state of *env_ids* (``None``: every env). Default: nothing."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(env, ...)")


def term_fields(cfg: Any) -> list[tuple[str, Any]]:
    """``(name, value)`` of the fields of a manager config (a configclass or a dict), in declaration order;
    ``None`` values (terms switched off) are skipped.

    As Isaac Lab reads a config's ``__dict__``, a configclass lists its fields, then the attributes set on the
    instance only (terms added in a ``__post_init__``: ``self.observations.policy.height = ObsTerm(...)``).
    """
    if cfg is None:
        return []
    if isinstance(cfg, dict):
        items = list(cfg.items())
    elif is_configclass(cfg):
        items = [(f.name, getattr(cfg, f.name)) for f in dataclasses.fields(cfg)]
        listed = {name for name, _ in items}
        items += [(name, value) for name, value in vars(cfg).items() if not name.startswith("_") and name not in listed]
    else:
        raise TypeError(f"a manager config must be a configclass or a dict of terms, got {type(cfg).__name__}")
    return [(name, value) for name, value in items if value is not None]


class ManagerBase:
    """Holds the terms of one kind; subclasses implement :meth:`_prepare_terms` and their compute methods.

    Args:
        cfg: The manager's config: a configclass (or dict) whose fields are term configs. It is copied, so the
            caller's config is never changed (resolved ids land in the copy, :attr:`cfg`).
        env: The env (``num_envs``, ``device``, ``scene``, ...).
    """

    def __init__(self, cfg: Any, env: Any):
        # keep the MISSING sentinel itself: a plain deep copy makes a new one that `is MISSING` no longer matches
        self.cfg = copy.deepcopy(cfg, {id(MISSING): MISSING})
        self._env = env
        self._prepare_terms()

    @property
    def num_envs(self) -> int:
        """Number of envs."""
        return self._env.num_envs

    @property
    def device(self) -> str:
        """Torch device of the env's tensors."""
        return self._env.device

    @property
    def active_terms(self) -> list[str] | dict[str, list[str]]:
        """Names of the active terms (a dict per group for grouped managers)."""
        raise NotImplementedError

    def reset(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> dict[str, float]:
        """Reset the terms' state for *env_ids*; returns what to log (name -> value). Default: nothing."""
        return {}

    def find_terms(self, name_keys: str | Sequence[str]) -> list[str]:
        """Names of the active terms that full-match the regex(es) *name_keys*."""
        names = self.active_terms
        if isinstance(names, dict):
            names = [n for group in names.values() for n in group]
        return resolve_matching_names(name_keys, names, where=f"{type(self).__name__}.find_terms")[1]

    def get_active_iterable_terms(self, env_idx: int) -> Sequence[tuple[str, Sequence[float]]]:
        """``(term name, values)`` of env *env_idx* for display; default: none."""
        return []

    # ------------------------------------------------------------------ term resolution
    def _prepare_terms(self) -> None:
        raise NotImplementedError

    def _where(self, term_name: str) -> str:
        return f"{type(self).__name__} term {term_name!r}"

    def _trial_call(self, term_name: str, term_cfg: ManagerTermBaseCfg) -> torch.Tensor:
        """Call the term once at build (a class term is reset afterwards, undoing what the call changed): it must
        return a ``[num_envs]`` tensor, else an error naming the term."""
        where = self._where(term_name)
        try:
            value = term_cfg.func(self._env, **term_cfg.params)
        except Exception as err:
            raise RuntimeError(f"{where}: the trial call at build failed: {type(err).__name__}: {err}") from err
        if isinstance(term_cfg.func, ManagerTermBase):
            term_cfg.func.reset()
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{where}: must return a torch.Tensor of [{self.num_envs}], got {type(value).__name__}")
        if tuple(value.shape) != (self.num_envs,):
            raise ValueError(
                f"{where}: must return a tensor of shape [num_envs] = [{self.num_envs}], got {list(value.shape)}"
            )
        return value

    def _resolve_common_term_cfg(self, term_name: str, term_cfg: ManagerTermBaseCfg, min_argc: int = 1) -> None:
        """Check *term_cfg* and prepare it: scene entities resolved, a class term instantiated (into
        ``term_cfg.func``), the function's parameters checked against ``term_cfg.params``.

        Args:
            term_name: The term's field name (for the messages).
            term_cfg: The term's config (in the manager's own copy of the config).
            min_argc: Positional arguments the manager passes before the params (``env``; ``env, env_ids``
                for events and curricula).

        Raises:
            TypeError: Not a term config, ``func`` not callable, a params dict of the wrong type, or parameters
                that do not fit the function's signature (missing or unknown ones are named).
            KeyError / ValueError: A scene entity that does not resolve.
        """
        where = self._where(term_name)
        if not isinstance(term_cfg, ManagerTermBaseCfg):
            raise TypeError(
                f"{where}: expected a {ManagerTermBaseCfg.__name__} subclass, got {type(term_cfg).__name__}"
            )
        func = term_cfg.func
        if func is MISSING or func is None:
            raise TypeError(f"{where}: func is not set")
        if not isinstance(term_cfg.params, dict):
            raise TypeError(f"{where}: params must be a dict, got {type(term_cfg.params).__name__}")
        for key, value in term_cfg.params.items():
            if isinstance(value, SceneEntityCfg):
                value.resolve(self._env.scene, where=f"{where}: params[{key!r}]")
        if inspect.isclass(func):
            if not issubclass(func, ManagerTermBase):
                raise TypeError(f"{where}: func is the class {func.__name__}, which is not a ManagerTermBase subclass")
            func = func(cfg=term_cfg, env=self._env)
            term_cfg.func = func
            signature_of = func.__call__
        elif callable(func):
            signature_of = func
        else:
            raise TypeError(f"{where}: func must be a function or a ManagerTermBase subclass, got {func!r}")
        check_params(signature_of, term_cfg.params, min_argc, where)


class TermListManager(ManagerBase):
    """A manager whose terms are one ordered list of configs of one class (rewards, terminations, curricula): the
    list, the lookup by name, the checks at build (:meth:`_check_term_cfg`, the signature and scene entities, then
    :meth:`_check_output`) and :meth:`set_term_cfg`, in one place."""

    term_cfg_class: ClassVar[type] = ManagerTermBaseCfg
    """The config class every term must be."""
    term_kind: ClassVar[str] = "term"
    """What a term is called in the messages (``"reward"``)."""
    min_argc: ClassVar[int] = 1
    """Positional arguments before the params (``env``; ``env, env_ids`` for curricula)."""

    def __init__(self, cfg: Any, env: Any):
        self._term_names: list[str] = []
        self._term_cfgs: list[Any] = []
        self._class_term_cfgs: list[Any] = []
        super().__init__(cfg, env)

    @property
    def active_terms(self) -> list[str]:
        """Names of the terms, in config order."""
        return self._term_names

    def get_term_cfg(self, term_name: str) -> Any:
        """The live config of *term_name*.

        Raises:
            ValueError: No such term (the message lists the terms).
        """
        return self._term_cfgs[self._index(term_name)]

    def set_term_cfg(self, term_name: str, cfg: Any) -> None:
        """Replace the config of *term_name* (curricula change weights this way); the new config is checked as at
        build, without the trial call.

        Raises:
            ValueError: No such term; a value the term's own checks refuse.
            TypeError: Not a config of the manager's term class, params that do not fit.
        """
        index = self._index(term_name)
        self._check_term_cfg(term_name, cfg)
        self._resolve_common_term_cfg(term_name, cfg, min_argc=self.min_argc)
        self._term_cfgs[index] = cfg
        self._class_term_cfgs = [c for c in self._term_cfgs if isinstance(c.func, ManagerTermBase)]

    def _index(self, term_name: str) -> int:
        if term_name not in self._term_names:
            raise ValueError(
                f"{type(self).__name__}: no {self.term_kind} term {term_name!r}; the terms are {self._term_names}"
            )
        return self._term_names.index(term_name)

    def _check_term_cfg(self, term_name: str, term_cfg: Any) -> None:
        """Refuse a config that is not of :attr:`term_cfg_class`; subclasses add their fields' checks."""
        if not isinstance(term_cfg, self.term_cfg_class):
            raise TypeError(
                f"{self._where(term_name)}: expected a {self.term_cfg_class.__name__}, got {type(term_cfg).__name__}"
            )

    def _check_output(self, term_name: str, term_cfg: Any) -> None:
        """Check what the term returns at build (default: nothing; rewards and terminations call it once)."""

    def _prepare_terms(self) -> None:
        for term_name, term_cfg in term_fields(self.cfg):
            self._check_term_cfg(term_name, term_cfg)
            self._resolve_common_term_cfg(term_name, term_cfg, min_argc=self.min_argc)
            self._check_output(term_name, term_cfg)
            self._term_names.append(term_name)
            self._term_cfgs.append(term_cfg)
            if isinstance(term_cfg.func, ManagerTermBase):
                self._class_term_cfgs.append(term_cfg)


def check_params(func: Any, params: dict[str, Any], min_argc: int, where: str) -> None:
    """Check that *params* fills every parameter of *func* after its first *min_argc* and names no other."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return  # a builtin without a signature: nothing to check
    parameters = list(signature.parameters.values())
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        keyword_ok = True
    else:
        keyword_ok = False
    positional = [p for p in parameters if p.kind is not inspect.Parameter.VAR_POSITIONAL]
    if len([p for p in positional if p.kind is not inspect.Parameter.KEYWORD_ONLY]) < min_argc and not any(
        p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters
    ):
        raise TypeError(f"{where}: the function must take at least {min_argc} positional argument(s) (env, ...)")
    rest = [p for p in positional[min_argc:] if p.kind is not inspect.Parameter.VAR_KEYWORD]
    required = [p.name for p in rest if p.default is inspect.Parameter.empty]
    optional = [p.name for p in rest if p.default is not inspect.Parameter.empty]
    missing = [name for name in required if name not in params]
    unknown = [name for name in params if name not in required + optional]
    if missing or (unknown and not keyword_ok):
        problems = []
        if missing:
            problems.append(f"missing parameter(s) {missing}")
        if unknown and not keyword_ok:
            problems.append(f"unknown parameter(s) {unknown}")
        name = getattr(func, "__qualname__", getattr(func, "__name__", repr(func)))
        raise TypeError(
            f"{where}: {'; '.join(problems)} for {name}: it takes {required} (required) and {optional} "
            f"(optional), params gave {sorted(params)}"
        )


def check_finite_number(value: Any, where: str) -> float:
    """*value* as a float; ``TypeError`` / ``ValueError`` naming *where* when it is not a finite real number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where} must be a real number, got {type(value).__name__} {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{where} must be finite, got {value!r}")
    return float(value)
