"""Configs of the terms the managers hold (Isaac Lab's names and fields)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, ClassVar

from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.noise import NoiseCfg, NoiseModelCfg
from isaaclab_contrib.utils.validation import check_fields, nested

__all__ = [
    "OBSERVATION_GROUP_SETTINGS",
    "ActionTermCfg",
    "CommandTermCfg",
    "CurriculumTermCfg",
    "EventTermCfg",
    "ManagerTermBaseCfg",
    "ObservationGroupCfg",
    "ObservationTermCfg",
    "RecorderTermCfg",
    "RewardTermCfg",
    "TerminationTermCfg",
]


def _check_ordered_pair(cfg: Any, name: str) -> None:
    """``ValueError`` naming the class and the field unless the pair ``cfg.<name>`` (or ``None``) has low <= high."""
    pair = getattr(cfg, name)
    if pair is not None and pair[0] > pair[1]:
        raise ValueError(f"{type(cfg).__name__}.{name} must be (min, max) with min <= max, got {tuple(pair)!r}")


def _check_class_type(cfg: Any) -> None:
    """``TypeError`` naming the class unless ``cfg.class_type`` is a class."""
    if not isinstance(cfg.class_type, type):
        raise TypeError(f"{type(cfg).__name__}.class_type must be a class, got {cfg.class_type!r}")


@configclass
class ManagerTermBaseCfg:
    """A term: a function ``func(env, **params)`` or a :class:`~isaaclab_contrib.managers.ManagerTermBase`
    subclass (instantiated once with ``(cfg, env)``, then called as ``term(env, **params)``)."""

    func: Callable[..., Any] | type = MISSING
    """The term function, or a ``ManagerTermBase`` subclass."""
    params: dict[str, Any] = {}
    """Keyword arguments of the call after ``env``; :class:`~isaaclab_contrib.managers.SceneEntityCfg` values are
    resolved against the scene when the manager is built. Every parameter without a default must be given, and
    no unknown one."""

    def validate(self) -> None:
        """Check the fields, that :attr:`func` is callable (or a class) and :attr:`params` a dict keyed by name;
        the call's signature is checked against the scene when the manager is built."""
        check_missing(self)
        check_fields(self)
        cls = type(self).__name__
        if not callable(self.func):
            raise TypeError(f"{cls}.func must be a function or a ManagerTermBase subclass, got {self.func!r}")
        if not isinstance(self.params, dict):
            raise TypeError(f"{cls}.params must be a dict of keyword arguments, got {type(self.params).__name__}")
        bad = [key for key in self.params if not isinstance(key, str)]
        if bad:
            raise TypeError(f"{cls}.params keys must be parameter names (strings), got {bad!r}")


@configclass
class ObservationTermCfg(ManagerTermBaseCfg):
    """An observation term: ``[num_envs, ...]`` per call, then noise, clip, scale and history, in that order."""

    _ranges: ClassVar[dict[str, str]] = {"clip": "any", "scale": "any", "history_length": ">= 0"}

    modifiers: list[Any] | None = None
    """Callables ``f(data) -> data`` (or configs with a ``func`` and ``params``) applied first, in order."""
    noise: Any = None
    """Corruption (a :mod:`isaaclab_contrib.utils.noise` config) applied when the group enables corruption."""
    clip: tuple[float, float] | None = None
    """Clip the value to ``(min, max)`` after the noise."""
    scale: float | tuple[float, ...] | None = None
    """Multiply the value by this after the clip (a tuple: one factor per last-dimension entry)."""
    history_length: int = 0
    """Keep the last N values (``0``: no history)."""
    flatten_history_dim: bool = True
    """With a history, flatten ``[num_envs, N, ...]`` to ``[num_envs, N * ...]``."""

    def validate(self) -> None:
        """Check the fields, the clip's order and the noise config (the scale's length against the observation is
        checked when the manager is built)."""
        super().validate()
        cls = type(self).__name__
        _check_ordered_pair(self, "clip")
        if self.noise is not None:
            if not isinstance(self.noise, (NoiseCfg, NoiseModelCfg)):
                raise TypeError(
                    f"{cls}.noise must be a NoiseCfg, a NoiseModelCfg or None, got {type(self.noise).__name__}"
                )
            with nested(f"{cls}.noise"):
                self.noise.validate()
        if self.modifiers is not None and not isinstance(self.modifiers, (list, tuple)):
            raise TypeError(f"{cls}.modifiers must be a list or None, got {type(self.modifiers).__name__}")


@configclass
class ObservationGroupCfg:
    """A group of observation terms: subclass it and declare the terms as fields (order kept)."""

    _ranges: ClassVar[dict[str, str]] = {"concatenate_dim": "any", "history_length": ">= 0"}

    concatenate_terms: bool = True
    """Concatenate the terms into one tensor (``False``: a dict of term name to tensor)."""
    concatenate_dim: int = -1
    """Dimension of each term's own shape (the env dimension not counted) the terms are concatenated along, as in
    Isaac Lab: for ``[num_envs, H, W, C]`` image terms ``0`` stacks along H and ``-1`` (the default) along C."""
    enable_corruption: bool = False
    """Apply the terms' noise."""
    history_length: int | None = None
    """Overrides every term's ``history_length`` when set."""
    flatten_history_dim: bool = True
    """Overrides every term's ``flatten_history_dim`` when :attr:`history_length` is set."""


OBSERVATION_GROUP_SETTINGS = tuple(f.name for f in dataclasses.fields(ObservationGroupCfg))
"""The fields of :class:`ObservationGroupCfg` that are settings of the group, not terms."""


@configclass
class RewardTermCfg(ManagerTermBaseCfg):
    """A reward term: ``[num_envs]`` per call; the step's reward adds ``value * weight * step_dt``."""

    _ranges: ClassVar[dict[str, str]] = {"weight": "any"}  # a penalty has a negative weight

    weight: float = MISSING
    """Weight of the term (a finite number; ``0`` keeps the term in the logs without computing it)."""


@configclass
class TerminationTermCfg(ManagerTermBaseCfg):
    """A termination term: a ``[num_envs]`` bool per call."""

    time_out: bool = False
    """The term ends episodes by time (truncation, not failure): it sets ``truncated``, else ``terminated``."""


@configclass
class EventTermCfg(ManagerTermBaseCfg):
    """An event term: ``func(env, env_ids, **params)`` applied in a mode."""

    _ranges: ClassVar[dict[str, str]] = {"interval_range_s": ">= 0", "min_step_count_between_reset": ">= 0"}

    mode: str = MISSING
    """``"startup"`` (once, when the manager is built), ``"reset"`` (on the envs being reset), ``"interval"``
    (every :attr:`interval_range_s`), or any other name the env applies with ``event_manager.apply(mode)``."""
    interval_range_s: tuple[float, float] | None = None
    """Range the interval is drawn from, uniformly, after each application [s] (``interval`` mode only)."""
    is_global_time: bool = False
    """One interval for all envs (applied to every env at once), else one per env."""
    min_step_count_between_reset: int = 0
    """``reset`` mode: apply to an env only if at least this many env steps passed since the term last
    applied to it (``0``: at every reset)."""

    def validate(self) -> None:
        """Check the fields and the mode's settings: a non-empty mode, an ordered :attr:`interval_range_s` (set for
        ``interval`` mode), :attr:`min_step_count_between_reset` in ``reset`` mode only."""
        super().validate()
        cls = type(self).__name__
        if not isinstance(self.mode, str) or not self.mode:
            raise ValueError(f"{cls}.mode must be a non-empty mode name ('startup', 'reset', 'interval'...), got ''")
        _check_ordered_pair(self, "interval_range_s")
        if self.mode == "interval" and self.interval_range_s is None:
            raise ValueError(f"{cls}.interval_range_s must be set (min, max) [s] for mode 'interval', got None")
        if self.mode != "reset" and self.min_step_count_between_reset != 0:
            raise ValueError(
                f"{cls}.min_step_count_between_reset applies to mode 'reset' only, got "
                f"{self.min_step_count_between_reset} with mode {self.mode!r}"
            )


@configclass
class CurriculumTermCfg(ManagerTermBaseCfg):
    """A curriculum term: ``func(env, env_ids, **params)`` at the resets; what it returns is logged."""


@configclass
class CommandTermCfg:
    """A command generator: :attr:`class_type` is the :class:`~isaaclab_contrib.managers.CommandTerm` built."""

    _ranges: ClassVar[dict[str, str]] = {"resampling_time_range": "[0, inf]"}

    class_type: type = MISSING
    """The command term class, built as ``class_type(cfg, env)``."""
    resampling_time_range: tuple[float, float] = MISSING
    """Range the time until the next resampling is drawn from, per env [s]; ``(inf, inf)``: never resampled
    within an episode (only at resets)."""
    debug_vis: bool = False
    """Draw the command (no visualizer here: kept for configs that set it)."""

    def validate(self) -> None:
        """Check the fields, that :attr:`class_type` is a class and the resampling time range is ordered."""
        check_missing(self)
        check_fields(self)
        _check_class_type(self)
        _check_ordered_pair(self, "resampling_time_range")
        low, high = (float(v) for v in self.resampling_time_range)
        if math.isinf(low) != math.isinf(high):
            raise ValueError(
                f"{type(self).__name__}.resampling_time_range must be finite, or (inf, inf) for never, got "
                f"{self.resampling_time_range!r}"
            )


@configclass
class ActionTermCfg:
    """An action term: :attr:`class_type` is the :class:`~isaaclab_contrib.managers.ActionTerm` built."""

    class_type: type = MISSING
    """The action term class, built as ``class_type(cfg, env)``."""
    asset_name: str = MISSING
    """The scene entity the term drives."""
    debug_vis: bool = False
    """Draw the action (no visualizer here: kept for configs that set it)."""
    clip: dict[str, tuple[float, float]] | None = None
    """Clip the raw action per action dimension: ``{regex over the term's dimension names: (min, max)}``."""

    def validate(self) -> None:
        """Check the fields, that :attr:`class_type` is a class and each :attr:`clip` pair is ``(min, max)`` of
        numbers (not NaN; an infinite bound leaves that side unclipped) with ``min <= max``."""
        check_missing(self)
        check_fields(self)
        _check_class_type(self)
        cls = type(self).__name__
        if self.clip is None:
            return
        if not isinstance(self.clip, dict):
            raise TypeError(f"{cls}.clip must be a dict of regex to (min, max) or None, got {type(self.clip).__name__}")
        for key, bounds in self.clip.items():
            where = f"{cls}.clip[{key!r}]"
            if not isinstance(key, str):
                raise TypeError(f"{cls}.clip keys must be regexes (strings), got {key!r}")
            if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
                raise TypeError(f"{where} must be a pair (min, max), got {bounds!r}")
            for bound in bounds:
                if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                    raise TypeError(f"{where} must be a pair (min, max) of numbers, got {bounds!r}")
                if math.isnan(bound):
                    raise ValueError(f"{where} must not hold NaN, got {bounds!r}")
            if bounds[0] > bounds[1]:
                raise ValueError(f"{where} must be (min, max) with min <= max, got {tuple(bounds)!r}")


@configclass
class RecorderTermCfg:
    """A recorder term: :attr:`class_type` is the :class:`~isaaclab_contrib.managers.RecorderTerm` built."""

    class_type: type = MISSING
    """The recorder term class, built as ``class_type(cfg, env)``."""

    def validate(self) -> None:
        """Check the fields and that :attr:`class_type` is a class."""
        check_missing(self)
        check_fields(self)
        _check_class_type(self)
