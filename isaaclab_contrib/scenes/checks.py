"""Success checks a scene declares: recorded after every env step, judged at the end of a run.

A scene's :meth:`~isaaclab_contrib.scenes.SceneBaseCfg.checks` returns a list of :class:`SceneCheck` objects;
``scripts/run.py`` calls :meth:`SceneCheck.record` after every env step and :meth:`SceneCheck.result` at the
end, writes the results into ``<output>/<scene>.json`` and exits with status 1 when one fails.

Ready-made checks: :class:`FiniteCheck` (every scene has it), :class:`MinHeightCheck` / :class:`MaxHeightCheck`
(the lowest / highest point of a set of particles or bodies against a bound), :class:`MaxDistanceCheck` (two
sets of points stay together), :class:`LiftCheck` (the rise
of a set of points and how long it stayed lifted and near a grasp point).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from isaaclab_contrib.utils.labels import LabelSelector

__all__ = [
    "CheckResult",
    "FiniteCheck",
    "LiftCheck",
    "MaxDistanceCheck",
    "MaxHeightCheck",
    "MinHeightCheck",
    "SceneCheck",
    "body_points",
    "particle_points",
]

Points = Callable[[Any], np.ndarray]
"""``points(manager) -> (num_envs, n, 3)`` positions [m] of what a check watches."""


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one check: the measured value, the bound it was held to, and whether it passed."""

    name: str
    value: float | bool
    passed: bool
    expected: str
    unit: str = ""

    def to_dict(self) -> dict[str, Any]:
        value = bool(self.value) if isinstance(self.value, (bool, np.bool_)) else float(self.value)
        return {"value": value, "passed": bool(self.passed), "expected": self.expected, "unit": self.unit}


class SceneCheck:
    """Base of the checks: :meth:`record` after every env step (time *t* [s] at its end), :meth:`result` once."""

    name: str = "check"

    def start(self, manager: Any) -> None:
        """Look at the initial state, before the first env step. Default: nothing."""

    def record(self, manager: Any, t: float) -> None:
        """Look at the state after the env step that ended at *t* [s]."""

    def result(self, manager: Any) -> CheckResult:
        raise NotImplementedError


def particle_points(ids: list[int], num_envs: int) -> Points:
    """Positions of the particles *ids* (global ids, env after env) as ``(num_envs, n, 3)``."""
    index = np.asarray(ids, dtype=np.int64).reshape(num_envs, -1)

    def points(manager: Any) -> np.ndarray:
        return manager.get_state_0().particle_q.numpy()[index]

    return points


def body_points(pattern: str) -> Points:
    """Origins of the bodies whose labels match the regex *pattern* (full match), grouped by world."""
    cache: dict[int, np.ndarray] = {}

    def points(manager: Any) -> np.ndarray:
        model = manager.get_model()
        key = id(model)
        if key not in cache:
            ids = LabelSelector(model.body_label, "body").require(pattern, "check: body_points").tolist()
            world = model.body_world.numpy()[ids]
            cache.clear()
            cache[key] = np.stack(
                [np.asarray([i for i, w in zip(ids, world, strict=True) if w == e]) for e in sorted(set(world))]
            )
        return manager.get_state_0().body_q.numpy()[cache[key]][..., :3]

    return points


class FiniteCheck(SceneCheck):
    """Every body and particle state stayed finite."""

    name = "finite"

    def __init__(self) -> None:
        self.ok = True

    def record(self, manager: Any, t: float) -> None:
        state = manager.get_state_0()
        for array in (state.body_q, state.particle_q):
            if array is not None and not np.isfinite(array.numpy()).all():
                self.ok = False

    def result(self, manager: Any) -> CheckResult:
        return CheckResult(self.name, self.ok, self.ok, "true")


class MinHeightCheck(SceneCheck):
    """The lowest z of *points* over the run (all envs) stays at or above *bound* [m]."""

    def __init__(self, name: str, points: Points, bound: float) -> None:
        self.name, self.points, self.bound = name, points, float(bound)
        self.lowest = np.inf

    def record(self, manager: Any, t: float) -> None:
        self.lowest = min(self.lowest, float(self.points(manager)[..., 2].min()))

    def result(self, manager: Any) -> CheckResult:
        return CheckResult(self.name, self.lowest, bool(self.lowest >= self.bound), f">= {self.bound:g}", "m")


class MaxHeightCheck(SceneCheck):
    """The highest z of *points* at the end of the run (all envs) is at most *bound* [m]."""

    def __init__(self, name: str, points: Points, bound: float) -> None:
        self.name, self.points, self.bound = name, points, float(bound)
        self.last = -np.inf

    def record(self, manager: Any, t: float) -> None:
        self.last = float(self.points(manager)[..., 2].max())

    def result(self, manager: Any) -> CheckResult:
        return CheckResult(self.name, self.last, bool(self.last <= self.bound), f"<= {self.bound:g}", "m")


class MaxDistanceCheck(SceneCheck):
    """At the end of the run, the centers of *points* and *other* are at most *bound* apart in every env [m]
    (e.g. a gripped block and the fingers); *axes* picks the coordinates compared (``(0, 1)``: horizontal)."""

    def __init__(self, name: str, points: Points, other: Points, bound: float, axes: tuple[int, ...] = (0, 1, 2)):
        self.name, self.points, self.other, self.bound = name, points, other, float(bound)
        self.axes = list(axes)
        self.last = np.inf

    def record(self, manager: Any, t: float) -> None:
        a, b = self.points(manager).mean(axis=1), self.other(manager).mean(axis=1)
        self.last = float(np.linalg.norm((a - b)[:, self.axes], axis=1).max())

    def result(self, manager: Any) -> CheckResult:
        return CheckResult(self.name, self.last, bool(self.last <= self.bound), f"<= {self.bound:g}", "m")


class LiftCheck:
    """Rise of a lifted object and how long it stayed in the grasp.

    Gives two checks, :attr:`lifted` (``lifted_m``: the smallest rise over the envs of the mean z of *points*
    at the end of the run above its value before the first step, at least *min_lift*) and :attr:`held`
    (``held_s``: the simulated time up to the end during which every env's object was lifted by at least
    *min_lift* and its center stayed within *radius* of the grasp point, at least *min_hold*).

    Args:
        points: The object's points (particles, or the bodies of a cable).
        grasp: ``grasp(manager) -> (num_envs, 3)``, the point between the fingers [m].
        min_lift: Rise to reach [m].
        min_hold: Time to hold it [s].
        radius: Distance of the object's center from the grasp point that still counts as held [m].
    """

    def __init__(
        self, points: Points, grasp: Callable[[Any], np.ndarray], min_lift: float, min_hold: float, radius: float
    ):
        self.points, self.grasp = points, grasp
        self.min_lift, self.min_hold, self.radius = float(min_lift), float(min_hold), float(radius)
        self.z0: np.ndarray | None = None
        self.rise = np.zeros(0)
        self.held_since: float | None = None
        self.held_time = 0.0
        self.t_last = 0.0
        self.lifted = _Part(self, "lifted_m")
        self.held = _Part(self, "held_s")

    def _record(self, manager: Any, t: float) -> None:
        center = self.points(manager).mean(axis=1)
        if self.z0 is None:
            self.z0 = center[:, 2].copy()
            return
        self.rise = center[:, 2] - self.z0
        near = np.linalg.norm(center - self.grasp(manager), axis=1) <= self.radius
        ok = bool(np.all(self.rise >= self.min_lift) and np.all(near))
        if ok and self.held_since is None:
            self.held_since = self.t_last
        elif not ok:
            self.held_since = None
        self.t_last = t
        self.held_time = 0.0 if self.held_since is None else t - self.held_since

    def start(self, manager: Any) -> None:
        """Record the object's height before the first step."""
        self._record(manager, 0.0)


class _Part(SceneCheck):
    def __init__(self, owner: LiftCheck, name: str) -> None:
        self.owner, self.name = owner, name

    def start(self, manager: Any) -> None:
        if self.name == "lifted_m":  # the pair records once per step
            self.owner.start(manager)

    def record(self, manager: Any, t: float) -> None:
        if self.name == "lifted_m":
            self.owner._record(manager, t)

    def result(self, manager: Any) -> CheckResult:
        o = self.owner
        if self.name == "lifted_m":
            value = float(o.rise.min()) if o.rise.size else 0.0
            return CheckResult(self.name, value, value >= o.min_lift, f">= {o.min_lift:g}", "m")
        return CheckResult(self.name, o.held_time, o.held_time >= o.min_hold, f">= {o.min_hold:g}", "s")
