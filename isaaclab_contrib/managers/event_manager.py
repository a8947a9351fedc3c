"""The event manager (Isaac Lab's ``EventManager``): terms ``func(env, env_ids, **params)`` applied by mode.

Modes, as in Isaac Lab:

* ``"startup"``: applied once, when the env has built its managers (``env_ids=None``: every env);
* ``"reset"``: on the envs being reset; with ``min_step_count_between_reset = N > 0`` only on the envs for
  which at least ``N`` env steps passed since the term last applied to them (every env gets its first
  application);
* ``"interval"``: handled by the manager itself: each call ``apply("interval", dt=step_dt)`` takes ``dt``
  off a time left, per env (or one for all envs with ``is_global_time``); the term applies to the envs whose
  time ran out, and their time left is drawn again, uniformly from ``interval_range_s`` (torch's global RNG);
* any other name: applied when the env calls ``apply(name)``.
"""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import Sequence
from typing import Any

import torch

from isaaclab_contrib.utils.configclass import MISSING

from .manager_base import ManagerBase, ManagerTermBase, term_fields
from .manager_term_cfg import EventTermCfg

__all__ = ["EventManager"]

logger = logging.getLogger(__name__)

_EPS = 1e-6
"""Time left below which an interval has run out [s] (absorbs rounding in the repeated subtraction of dt)."""


def check_time_range(value: Any, where: str, allow_never: bool = False) -> tuple[float, float]:
    """*value* as ``(low, high)`` seconds with ``0 <= low <= high``, both finite (with *allow_never*, both may be
    ``inf``: never); ``TypeError`` / ``ValueError`` naming *where* otherwise."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{where} must be a pair (min, max) of times [s], got {value!r}")
    for bound in value:
        if isinstance(bound, bool) or not isinstance(bound, (int, float)):
            raise TypeError(f"{where} must be a pair (min, max) of numbers [s], got {value!r}")
        if math.isnan(bound) or (math.isinf(bound) and not allow_never):
            raise ValueError(f"{where} must be finite, got {value!r}")
    low, high = float(value[0]), float(value[1])
    if math.isinf(low) != math.isinf(high):
        raise ValueError(f"{where} must be finite, or (inf, inf) for never, got {value!r}")
    if not 0.0 <= low <= high:
        raise ValueError(f"{where} must satisfy 0 <= min <= max, got {value!r}")
    return low, high


class EventManager(ManagerBase):
    """Applies event terms by mode.

    Args:
        cfg: A configclass (or dict) whose fields are :class:`EventTermCfg`; ``None`` fields are skipped (a
            ``None`` config: no events).
        env: The env (``num_envs``, ``device``, ``scene``).

    Raises:
        TypeError: A field is not an :class:`EventTermCfg`, its ``mode`` is not a string, its function does not
            take ``(env, env_ids, **params)``, or ``params`` miss a parameter / name an unknown one.
        ValueError: An ``interval`` term without ``interval_range_s`` or with a range that is not finite or has
            ``min > max`` or ``min < 0``; a negative ``min_step_count_between_reset``, or a non-zero one on a
            term whose mode is not ``reset``.
    """

    def __init__(self, cfg: Any, env: Any):
        self._mode_term_names: dict[str, list[str]] = {}
        self._mode_term_cfgs: dict[str, list[EventTermCfg]] = {}
        self._mode_class_term_cfgs: dict[str, list[EventTermCfg]] = {}
        self._interval_time_left: list[torch.Tensor] = []
        self._reset_last_step: list[torch.Tensor] = []
        self._reset_applied_once: list[torch.Tensor] = []
        self._startup_applied = False
        super().__init__(cfg, env)

    def __str__(self) -> str:
        lines = [f"<EventManager> {sum(len(n) for n in self._mode_term_names.values())} term(s)"]
        for mode, names in self._mode_term_names.items():
            for name, term_cfg in zip(names, self._mode_term_cfgs[mode], strict=True):
                extra = f", every {term_cfg.interval_range_s} s" if mode == "interval" else ""
                lines.append(f"  [{mode}] {name}{extra}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ properties
    @property
    def active_terms(self) -> dict[str, list[str]]:
        """Names of the terms per mode (mode -> names, in the config's order)."""
        return self._mode_term_names

    @property
    def available_modes(self) -> list[str]:
        """The modes that have terms."""
        return list(self._mode_term_names)

    # ------------------------------------------------------------------ operations
    def apply(
        self,
        mode: str,
        env_ids: Sequence[int] | torch.Tensor | slice | None = None,
        dt: float | None = None,
        global_env_step_count: int | None = None,
    ) -> None:
        """Apply the terms of *mode*; a mode without terms logs a warning and does nothing (as Isaac Lab).

        Args:
            mode: ``"startup"``, ``"reset"``, ``"interval"`` or another mode name.
            env_ids: The envs to apply to: a tensor of ids, a list, or ``None`` / ``slice(None)`` for all
                (``reset`` passes ``slice(None)`` to the terms for ``None``; other modes pass it unchanged).
                Must be ``None`` for ``interval`` (the manager picks the envs).
            dt: Time since the last ``interval`` call [s] (the env step, ``env.step_dt``); ``interval`` only.
            global_env_step_count: Env steps since the start (``env.common_step_counter``); ``reset`` only.

        Raises:
            ValueError: ``interval`` without *dt* (or a non-finite / negative one) or with *env_ids*; ``reset``
                without *global_env_step_count*.
            RuntimeError: ``startup`` applied a second time.
        """
        if mode not in self._mode_term_names:
            logger.warning("EventManager: no event terms have mode %r; nothing applied", mode)
            return
        if mode == "interval":
            if dt is None:
                raise ValueError("EventManager.apply('interval'): dt (the env step [s]) is required")
            if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) or dt < 0:
                raise ValueError(f"EventManager.apply('interval'): dt must be a finite time >= 0 [s], got {dt!r}")
            if env_ids is not None:
                raise ValueError(
                    "EventManager.apply('interval'): env_ids must be None; the manager picks the envs whose "
                    "interval ran out"
                )
            self._apply_interval(float(dt))
            return
        if mode == "reset":
            if global_env_step_count is None:
                raise ValueError(
                    "EventManager.apply('reset'): global_env_step_count (env steps since the start) is required"
                )
            self._apply_reset(slice(None) if env_ids is None else env_ids, int(global_env_step_count))
            return
        if mode == "startup":
            if self._startup_applied:
                raise RuntimeError("EventManager.apply('startup'): the startup events were already applied")
            self._startup_applied = True
        for term_cfg in self._mode_term_cfgs[mode]:
            term_cfg.func(self._env, env_ids, **term_cfg.params)

    def reset(self, env_ids: Sequence[int] | torch.Tensor | slice | None = None) -> dict[str, float]:
        """Reset the class terms of *env_ids* (``None``: every env) and draw the per-env interval time left of
        those envs again (an interval counts from the start of the episode; ``is_global_time`` terms keep theirs);
        returns ``{}``."""
        if env_ids is None:
            env_ids = slice(None)
        for term_cfgs in self._mode_class_term_cfgs.values():
            for term_cfg in term_cfgs:
                term_cfg.func.reset(env_ids=env_ids)
        num = self._count(env_ids)
        for index, term_cfg in enumerate(self._mode_term_cfgs.get("interval", [])):
            if term_cfg.is_global_time or not getattr(term_cfg, "resample_interval_on_reset", True):
                continue
            low, high = term_cfg.interval_range_s
            self._interval_time_left[index][env_ids] = torch.rand(num, device=self.device) * (high - low) + low
        return {}

    def get_term_cfg(self, term_name: str) -> EventTermCfg:
        """The config of the term *term_name* (the manager's own copy).

        Raises:
            ValueError: No term has that name.
        """
        mode, index = self._find(term_name)
        return self._mode_term_cfgs[mode][index]

    def set_term_cfg(self, term_name: str, cfg: EventTermCfg) -> None:
        """Replace the config of the term *term_name* by *cfg* (same mode; its function is used as given).

        Raises:
            ValueError: No term has that name, or *cfg* changes the term's mode.
            TypeError: *cfg* is not an :class:`EventTermCfg`.
        """
        mode, index = self._find(term_name)
        if not isinstance(cfg, EventTermCfg):
            raise TypeError(f"{self._where(term_name)}: expected an EventTermCfg, got {type(cfg).__name__}")
        if cfg.mode != mode:
            raise ValueError(f"{self._where(term_name)}: set_term_cfg cannot change the mode {mode!r} to {cfg.mode!r}")
        self._mode_term_cfgs[mode][index] = cfg

    # ------------------------------------------------------------------ helpers
    def _find(self, term_name: str) -> tuple[str, int]:
        for mode, names in self._mode_term_names.items():
            if term_name in names:
                return mode, names.index(term_name)
        raise ValueError(f"EventManager: no event term {term_name!r}; the terms are {self._mode_term_names}")

    def _count(self, env_ids: Any) -> int:
        if isinstance(env_ids, slice):
            return len(range(self.num_envs)[env_ids])
        return len(env_ids)

    def _apply_interval(self, dt: float) -> None:
        for index, term_cfg in enumerate(self._mode_term_cfgs["interval"]):
            time_left = self._interval_time_left[index]
            time_left -= dt
            low, high = term_cfg.interval_range_s
            if term_cfg.is_global_time:
                if float(time_left[0]) < _EPS:
                    time_left[:] = torch.rand(1) * (high - low) + low
                    term_cfg.func(self._env, None, **term_cfg.params)
            else:
                due = (time_left < _EPS).nonzero().flatten()
                if len(due) > 0:
                    time_left[due] = torch.rand(len(due), device=self.device) * (high - low) + low
                    term_cfg.func(self._env, due, **term_cfg.params)

    def _apply_reset(self, env_ids: Any, step: int) -> None:
        for index, term_cfg in enumerate(self._mode_term_cfgs["reset"]):
            last_step = self._reset_last_step[index]
            applied_once = self._reset_applied_once[index]
            min_steps = term_cfg.min_step_count_between_reset
            if min_steps == 0:
                last_step[env_ids] = step
                applied_once[env_ids] = True
                term_cfg.func(self._env, env_ids, **term_cfg.params)
                continue
            if isinstance(env_ids, slice):
                ids = torch.arange(self.num_envs, device=self.device)[env_ids]
            else:
                ids = torch.as_tensor(env_ids, device=self.device, dtype=torch.long).flatten()
            due = (step - last_step[ids]) >= min_steps
            # the first reset of an env always applies (Isaac Lab's rule: never applied and last step still 0)
            due |= (last_step[ids] == 0) & ~applied_once[ids]
            due_ids = ids[due]
            if len(due_ids) > 0:
                last_step[due_ids] = step
                applied_once[due_ids] = True
                term_cfg.func(self._env, due_ids, **term_cfg.params)

    def _prepare_terms(self) -> None:
        for term_name, term_cfg in term_fields(self.cfg):
            where = self._where(term_name)
            if not isinstance(term_cfg, EventTermCfg):
                raise TypeError(f"{where}: expected an EventTermCfg, got {type(term_cfg).__name__}")
            mode = term_cfg.mode
            if mode is MISSING:
                raise TypeError(f"{where}: mode is not set (startup, reset, interval or another name)")
            if not isinstance(mode, str) or not mode:
                raise TypeError(f"{where}: mode must be a non-empty string, got {type(mode).__name__} {mode!r}")
            min_steps = term_cfg.min_step_count_between_reset
            if isinstance(min_steps, bool) or not isinstance(min_steps, int) or min_steps < 0:
                raise ValueError(f"{where}: min_step_count_between_reset must be an int >= 0, got {min_steps!r}")
            if mode != "reset" and min_steps != 0:
                raise ValueError(
                    f"{where}: min_step_count_between_reset={min_steps} applies to mode 'reset' only; the term's "
                    f"mode is {mode!r}"
                )
            if not isinstance(term_cfg.is_global_time, bool):
                raise TypeError(f"{where}: is_global_time must be a bool, got {term_cfg.is_global_time!r}")
            if mode == "interval":
                if term_cfg.interval_range_s is None:
                    raise ValueError(f"{where}: mode 'interval' needs interval_range_s (min, max) [s]; it is None")
                term_cfg.interval_range_s = check_time_range(term_cfg.interval_range_s, f"{where}: interval_range_s")
            self._resolve_common_term_cfg(term_name, term_cfg, min_argc=2)

            self._mode_term_names.setdefault(mode, []).append(term_name)
            self._mode_term_cfgs.setdefault(mode, []).append(term_cfg)
            self._mode_class_term_cfgs.setdefault(mode, [])
            if isinstance(term_cfg.func, ManagerTermBase) or inspect.isclass(term_cfg.func):
                self._mode_class_term_cfgs[mode].append(term_cfg)

            if mode == "interval":
                low, high = term_cfg.interval_range_s
                if term_cfg.is_global_time:
                    self._interval_time_left.append(torch.rand(1) * (high - low) + low)
                else:
                    self._interval_time_left.append(torch.rand(self.num_envs, device=self.device) * (high - low) + low)
            elif mode == "reset":
                self._reset_last_step.append(torch.zeros(self.num_envs, device=self.device, dtype=torch.long))
                self._reset_applied_once.append(torch.zeros(self.num_envs, device=self.device, dtype=torch.bool))
