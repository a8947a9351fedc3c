"""Task ids: configs from a gymnasium registration, as Isaac Lab's ``load_cfg_from_registry`` does.

A task module registers its env with ``gymnasium.register(id=..., entry_point=..., kwargs={
"env_cfg_entry_point": ..., "rsl_rl_cfg_entry_point": ...})``; an entry point is a class or
callable, or a ``"module:attribute"`` string. :func:`load_cfg_from_registry` returns a fresh config.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import gymnasium as gym

__all__ = [
    "check_env_cfg",
    "check_task_cfg",
    "env_cfg_from_arguments",
    "load_cfg_from_registry",
    "register_task",
    "resolve_entry_point",
]


def _entry_point(obj: Any) -> str:
    return f"{obj.__module__}:{obj.__qualname__}"


def register_task(
    task_id: str,
    *,
    env_class: type,
    env_cfg_class: type,
    runner_cfg_class: type | None = None,
    oracle: Callable[[Any], Any] | None = None,
) -> None:
    """Register a coupled direct-workflow task as the gymnasium id *task_id* (Isaac Lab's convention).

    The registration names the classes by ``"module:name"`` (imported when used): ``entry_point``
    (the env), ``env_cfg_entry_point``, ``rsl_rl_cfg_entry_point`` (the rsl-rl runner config) and
    ``oracle_entry_point`` (``oracle(env) -> (obs -> actions)``, a scripted reference controller).
    Registering the same id again replaces it (gymnasium warns).
    """
    if not isinstance(task_id, str) or not task_id:
        raise TypeError(f"register_task: task_id must be a non-empty string, got {task_id!r}")
    kwargs = {"env_cfg_entry_point": _entry_point(env_cfg_class)}
    if runner_cfg_class is not None:
        kwargs["rsl_rl_cfg_entry_point"] = _entry_point(runner_cfg_class)
    if oracle is not None:
        kwargs["oracle_entry_point"] = _entry_point(oracle)
    gym.register(id=task_id, entry_point=_entry_point(env_class), disable_env_checker=True, kwargs=kwargs)


def resolve_entry_point(entry: Any, key: str) -> Callable[[], Any]:
    """The callable an entry point names (a callable as is, or ``"module:attribute"``)."""
    if callable(entry):
        return entry
    if not isinstance(entry, str) or entry.count(":") != 1:
        raise ValueError(f"{key} must be a callable or a 'module:attribute' string, got {entry!r}")
    module_name, attribute = entry.split(":")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"{key} {entry!r}: module {module_name!r} has no attribute {attribute!r}") from None


def load_cfg_from_registry(task_id: str, entry_point_key: str) -> Any:
    """A new config instance from the *entry_point_key* of the gymnasium registration *task_id*.

    Raises:
        KeyError: *task_id* is not registered (the message lists the registered coupled tasks, those
            with an ``env_cfg_entry_point``), or its registration has no *entry_point_key*.
    """
    if not isinstance(task_id, str):
        raise TypeError(f"task id must be a string, got {type(task_id).__name__}")
    spec = gym.registry.get(task_id)
    if spec is None:
        known = sorted(name for name, s in gym.registry.items() if "env_cfg_entry_point" in (s.kwargs or {}))
        raise KeyError(f"task {task_id!r} is not registered; registered coupled tasks: {known}")
    entry = (spec.kwargs or {}).get(entry_point_key)
    if entry is None:
        raise KeyError(f"task {task_id!r} has no {entry_point_key!r} in its registration")
    return resolve_entry_point(entry, entry_point_key)()


def check_env_cfg(cfg: Any, env_cfg_entry_point: Any, where: str) -> None:
    """Refuse an env config that is not the registered one: *cfg* must be an instance of the class the
    registration's *env_cfg_entry_point* names (or of a subclass of it). Another task's config otherwise fails
    deep inside the env, after the simulation was built, with an ``AttributeError`` on a field it lacks.

    Args:
        cfg: The config given to the env (``None``: the env loads the registered one; nothing to check).
        env_cfg_entry_point: The registration's ``env_cfg_entry_point`` (a class or ``"module:Class"``).
        where: Who checks, first in the message (``"gymnasium.make('Isaac-Press-Cloth-Direct-v0')"``).

    Raises:
        TypeError: *cfg* is not an instance of the registered config class (the message names both classes).
    """
    if cfg is None:
        return  # the env loads the registered config itself
    expected = resolve_entry_point(env_cfg_entry_point, "env_cfg_entry_point")
    if not isinstance(expected, type) or isinstance(cfg, expected):
        return  # a factory function: nothing to compare with
    given = type(cfg)
    raise TypeError(
        f"{where}: cfg is a {given.__module__}.{given.__qualname__}, but this task's config is "
        f"{expected.__module__}.{expected.__qualname__} (its env_cfg_entry_point): pass that config (or a subclass "
        "of it), e.g. from load_cfg_from_registry(task_id, 'env_cfg_entry_point'); another task's config is not "
        "accepted"
    )


def check_task_cfg(task_id: str, cfg: Any) -> None:
    """:func:`check_env_cfg` for the gymnasium registration *task_id* (nothing to check without an
    ``env_cfg_entry_point``).

    Raises:
        KeyError: *task_id* is not registered.
        TypeError: *cfg* is not the task's config.
    """
    spec = gym.registry.get(task_id)
    if spec is None:
        raise KeyError(f"task {task_id!r} is not registered")
    entry = (spec.kwargs or {}).get("env_cfg_entry_point")
    if entry is not None:
        check_env_cfg(cfg, entry, f"task {task_id!r}")


def env_cfg_from_arguments(
    where: str, cfg: Any, render_mode: str | None, render_modes: list, kwargs: dict[str, Any]
) -> Any:
    """The config of an env created as ``Env(cfg, render_mode, **kwargs)`` (directly or by ``gymnasium.make``):
    *cfg*, checked against the registration's ``env_cfg_entry_point`` when there is one, or a new config from it.

    Raises:
        TypeError: A keyword that is not an ``*_entry_point``, no cfg and no registration, or another task's cfg.
        ValueError: *render_mode* not in *render_modes*.
    """
    unknown = sorted(key for key in kwargs if not key.endswith("_entry_point"))
    if unknown:
        raise TypeError(f"{where}() got unexpected keyword arguments {unknown}")
    if render_mode not in render_modes:
        raise ValueError(f"{where}: render_mode must be one of {render_modes}, got {render_mode!r}")
    entry = kwargs.get("env_cfg_entry_point")
    if cfg is None:
        if entry is None:
            raise TypeError(f"{where}() needs a cfg (or a registration with env_cfg_entry_point)")
        return resolve_entry_point(entry, "env_cfg_entry_point")()
    if entry is not None:  # gymnasium.make(task, cfg=...): the task's own config
        check_env_cfg(cfg, entry, where)
    return cfg
