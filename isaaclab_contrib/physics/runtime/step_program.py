"""The typed step program of one env step, and how it is captured.

One ``step()`` of the manager is a fixed sequence of *stages*. Stages of the
:attr:`Phase.PHYSICS_STEP` phase run once per physics step of the decimation loop, in this order: ``actuators``,
``post_actuator`` callbacks, ``collide`` (every ``collision_interval`` physics steps) and
``substeps`` (the solver substeps with the staged external forces). Stages of the ``"env_step"``
phase run once after the loop: ``post_step`` callbacks, then ``sensors``.

Each stage says whether it is graph-safe (only Warp launches on the simulation device, fixed
shapes, no host reads of device data). :meth:`StepProgram.compile` unrolls one env step into a
list of operations and groups consecutive graph-safe operations into *segments*. Every segment is
captured once as a Warp graph and replayed on each step; the operations of a stage that is not
graph-safe run eagerly between the replays. So with every stage graph-safe the whole decimation
loop is one graph, and with, say, a host callback the physics substeps still replay from graphs
(the "physics-only" fallback) while :meth:`StepProgram.eager_reason` names the eager stage.
Graphs and eager runs execute the same operations in the same order, so both give identical
states.

Recording runs the stages' host code once without it being a step: the warm-up (:meth:`StepProgram.run_eager`)
and every graph recording (:meth:`StepProgram.capture`, the profiling hook). While it does,
:func:`recording` names the stage being recorded, so the manager front can keep a callback's requests from
changing the step being recorded (it defers ``set_decimation`` and refuses other changes with a
:class:`RecordingRefusal`, which a recording never mistakes for "cannot be captured").
"""

from __future__ import annotations

import contextvars
import enum
import logging
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import warp as wp

__all__ = ["GRAPH_RECORDING", "WARM_UP", "Phase", "Recording", "RecordingRefusal", "Stage", "StepProgram", "recording"]

logger = logging.getLogger(__name__)

WARM_UP = "warm-up"
"""Recording phase: the program runs once eagerly at a build; its state changes are undone afterwards."""
GRAPH_RECORDING = "graph recording"
"""Recording phase: a segment (or a callback alone, to probe it) is recorded into a Warp graph."""


@dataclass(frozen=True)
class Recording:
    """The stage whose host code runs while a step program is recorded, and the phase (:data:`WARM_UP` or
    :data:`GRAPH_RECORDING`)."""

    stage: str
    phase: str

    def __str__(self) -> str:
        return f"stage {self.stage!r} ({self.phase})"


_RECORDING: contextvars.ContextVar[Recording | None] = contextvars.ContextVar("step_program_recording", default=None)


def recording() -> Recording | None:
    """The stage a step program is recording right now in this thread and the phase; ``None`` outside a
    recording (in a real step, or when no program runs)."""
    return _RECORDING.get()


class RecordingRefusal(RuntimeError):
    """A change requested by a stage's host code while the step program was being recorded, refused because it
    would change the step being recorded (raised by the manager front). It propagates out of the recording: it
    is never taken for an operation that cannot be captured."""


class Phase(enum.Enum):
    """When a stage runs within one env step."""

    PHYSICS_STEP = "physics_step"
    """Once per physics step of the decimation loop."""
    ENV_STEP = "env_step"
    """Once after the decimation loop."""


@dataclass(frozen=True)
class Stage:
    """One stage of the step program."""

    name: str
    """Readable name (``"substeps"``, ``"post_actuator:my_callback"``...), used in ``eager_reason()``."""
    phase: Phase
    """:attr:`Phase.PHYSICS_STEP` (runs every physics step) or :attr:`Phase.ENV_STEP` (once after the loop)."""
    run: Callable[[int], None]
    """Launches the stage's work; receives the physics-step index (``-1`` for env-step stages)."""
    graph_safe: bool = True
    """Whether the stage may be recorded in a Warp graph."""
    reason: str | None = None
    """Why the stage is not graph-safe (shown by ``eager_reason()``)."""
    when: Callable[[int], bool] | None = None
    """For physics-step stages: run only on physics steps where ``when(i)`` is true (``None``: every step)."""
    host_code: bool = False
    """User code the program cannot see into (callbacks): when captured, it is first recorded alone once,
    and a warning names it if it launched no Warp kernel (its host work would run only while recording)."""

    def __post_init__(self):
        if not isinstance(self.phase, Phase):
            raise TypeError(f"Stage {self.name!r}: phase must be a Phase, got {self.phase!r}")
        if not callable(self.run):
            raise TypeError(f"Stage {self.name!r}: run must be callable")


@dataclass
class _Segment:
    ops: list[tuple[Stage, int]]
    graph_safe: bool
    graph: object = None


class StepProgram:
    """The stages of one env step for a fixed decimation, compiled into captured and eager segments.

    Args:
        stages: Stages in execution order within their phase.
        decimation: Physics steps per env step [count].
        device: Warp device the graphs are captured on.
        capture: Capture graph-safe segments (``False``: run everything eagerly).
        capture_blocker: When ``capture`` is False, the reason (shown by :meth:`eager_reason`).
    """

    def __init__(
        self,
        stages: list[Stage],
        decimation: int,
        device: str,
        *,
        capture: bool = True,
        capture_blocker: str | None = None,
    ):
        if decimation < 1:
            raise ValueError(f"StepProgram: decimation must be >= 1, got {decimation}")
        self.stages = tuple(stages)
        self.decimation = int(decimation)
        self.device = device
        self._capture_enabled = bool(capture)
        self._reasons: list[str] = [] if capture else [capture_blocker or "capture disabled"]
        ops: list[tuple[Stage, int]] = []
        for i in range(self.decimation):
            for stage in self.stages:
                if stage.phase is Phase.PHYSICS_STEP and (stage.when is None or stage.when(i)):
                    ops.append((stage, i))
        ops.extend((stage, -1) for stage in self.stages if stage.phase is Phase.ENV_STEP)
        self._ops = ops
        self._segments: list[_Segment] = []
        for stage, i in ops:
            safe = stage.graph_safe and self._capture_enabled
            if self._segments and self._segments[-1].graph_safe == safe and safe:
                self._segments[-1].ops.append((stage, i))
            else:
                self._segments.append(_Segment([(stage, i)], safe))
        if self._capture_enabled:
            for stage in self.stages:
                if not stage.graph_safe:
                    self._reasons.append(f"stage {stage.name!r} runs eagerly: {stage.reason or 'not graph-safe'}")
        self._stage_timer: Callable[[Stage, int, float], None] | None = None  # profiling hook (set_stage_timer)
        self._timed_ops: list[tuple[Stage, int, object]] = []

    # ------------------------------------------------------------------ running
    @staticmethod
    def _run_ops(ops: list[tuple[Stage, int]]) -> None:
        for stage, i in ops:
            stage.run(i)

    @staticmethod
    def _run_recorded(ops: list[tuple[Stage, int]], what: str) -> None:
        """Run *ops* as a recording (*what*: ``"warm-up"`` or ``"graph recording"``): :func:`recording` names the
        stage while its host code runs."""
        for stage, i in ops:
            token = _RECORDING.set(Recording(stage.name, what))
            try:
                stage.run(i)
            finally:
                _RECORDING.reset(token)

    def run_eager(self) -> None:
        """Run every operation eagerly once, as the warm-up (a recording: not a step; see :func:`recording`)."""
        self._run_recorded(self._ops, WARM_UP)

    def capture(self) -> None:
        """Record every graph-safe segment as a Warp graph. A segment whose capture fails is split into
        its operations; an operation that cannot be recorded runs eagerly and its stage is named in
        :meth:`eager_reason`."""
        if not self._capture_enabled:
            return
        self._probe_host_code()
        segments: list[_Segment] = []
        for segment in self._segments:
            if not segment.graph_safe:
                segments.append(segment)
                continue
            graph, error = self._record(segment.ops)
            if graph is not None:
                segment.graph = graph
                segments.append(segment)
                continue
            # Find the operations that cannot be recorded; keep the others captured.
            failed: dict[str, str] = {}
            for op in segment.ops:
                op_graph, op_error = self._record([op])
                if op_graph is None:
                    failed.setdefault(op[0].name, op_error or error or "capture failed")
                segments.append(_Segment([op], op_graph is not None, op_graph))
            for name, why in failed.items():
                self._reasons.append(f"stage {name!r} could not be captured on {self.device}: {why}")
        self._segments = self._merge(segments)

    def _probe_host_code(self) -> None:
        """Record every graph-safe user callback alone once; warn about those that launched no Warp kernel.

        A captured step replays only the Warp work recorded: a callback registered as graph-safe that
        writes torch tensors or makes Python decisions would do that only while the graph is recorded,
        and captured and eager runs would silently diverge. Warp does not list copies in a recorded
        graph, so a callback doing only ``wp.copy`` is reported too (register it ``graph_safe=False``
        or ignore the warning).
        """
        probed: set[str] = set()
        for stage, i in self._ops:
            if not (stage.host_code and stage.graph_safe) or stage.name in probed:
                continue
            probed.add(stage.name)
            try:
                with wp.ScopedCapture(device=self.device) as capture:
                    self._run_recorded([(stage, i)], GRAPH_RECORDING)
            except RecordingRefusal:
                raise
            except Exception:  # recording it fails later too, and is reported there
                continue
            if not capture.graph.module_execs:
                warnings.warn(
                    f"step-program stage {stage.name!r} is registered graph_safe=True but launched no Warp kernel "
                    "while it was recorded: in the captured step only recorded Warp work replays, so host work "
                    "(torch writes, Python logic) in it would run once, at recording, and never again. Register it "
                    "with graph_safe=False if it does host work.",
                    RuntimeWarning,
                    stacklevel=2,
                )

    def _merge(self, segments: list[_Segment]) -> list[_Segment]:
        """Re-record runs of neighbouring captured single-operation segments as one graph each."""
        merged: list[_Segment] = []
        for segment in segments:
            if merged and merged[-1].graph_safe and segment.graph_safe:
                merged[-1].ops.extend(segment.ops)
                merged[-1].graph = None
            else:
                merged.append(_Segment(list(segment.ops), segment.graph_safe, segment.graph))
        for segment in merged:
            if segment.graph_safe and segment.graph is None:
                segment.graph, _ = self._record(segment.ops)
                if segment.graph is None:  # recorded piecewise before: cannot happen, stay correct anyway
                    segment.graph_safe = False
        return merged

    def _record(self, ops: list[tuple[Stage, int]]):
        try:
            with wp.ScopedCapture(device=self.device) as capture:
                self._run_recorded(ops, GRAPH_RECORDING)
            return capture.graph, None
        except RecordingRefusal:
            raise
        except Exception as err:  # Warp raises plain RuntimeErrors for unsupported launches
            return None, f"{type(err).__name__}: {err}"

    def run(self) -> None:
        """Run one env step: replay captured segments, run the others eagerly, in program order."""
        if self._stage_timer is not None:
            self._run_timed()
            return
        for segment in self._segments:
            if segment.graph is not None:
                wp.capture_launch(segment.graph)
            else:
                self._run_ops(segment.ops)

    # ------------------------------------------------------------------ profiling hook
    def set_stage_timer(self, timer: Callable[[Stage, int, float], None] | None) -> None:
        """Profiling hook (``scripts/profile_step.py``): time every operation of the env step.

        With *timer* set, :meth:`run` runs the step one operation at a time, in program order, and calls
        ``timer(stage, physics_step, seconds)`` after each (``physics_step`` is ``-1`` for env-step stages;
        the device is synchronized before and after, so the time is the operation's). An operation of a
        captured segment replays from a graph of its own, recorded here (recording runs its host code once
        and launches nothing; the caller keeps host-side counters if it cares); the others run eagerly as
        usual. So the times add up to a captured (or eager) env step split by stage. ``None`` restores the
        normal run; unset, the hook costs :meth:`run` one attribute test.
        """
        self._timed_ops = []
        self._stage_timer = None
        if timer is None:
            return
        ops: list[tuple[Stage, int, object]] = []
        for segment in self._segments:
            for stage, i in segment.ops:
                graph = self._record([(stage, i)])[0] if segment.graph is not None else None
                ops.append((stage, i, graph))
        self._timed_ops = ops
        self._stage_timer = timer

    def _run_timed(self) -> None:
        timer = self._stage_timer
        for stage, i, graph in self._timed_ops:
            wp.synchronize_device(self.device)
            start = time.perf_counter()
            if graph is not None:
                wp.capture_launch(graph)
            else:
                stage.run(i)
            wp.synchronize_device(self.device)
            timer(stage, i, time.perf_counter() - start)

    # ------------------------------------------------------------------ introspection
    def is_fully_captured(self) -> bool:
        """Whether the whole env step replays as one graph."""
        return len(self._segments) == 1 and self._segments[0].graph is not None

    def captured_stage_names(self) -> list[str]:
        """Names of the stages that replay from graphs."""
        names: list[str] = []
        for segment in self._segments:
            if segment.graph is not None:
                for stage, _ in segment.ops:
                    if stage.name not in names:
                        names.append(stage.name)
        return names

    def eager_stage_names(self) -> list[str]:
        """Names of the stages that run eagerly."""
        names: list[str] = []
        for segment in self._segments:
            if segment.graph is None:
                for stage, _ in segment.ops:
                    if stage.name not in names:
                        names.append(stage.name)
        return names

    def mode(self) -> str:
        """``"captured"`` (one graph per env step), ``"partial"`` (graphs with eager stages between them:
        the physics-only fallback) or ``"eager"`` (nothing captured)."""
        if self.is_fully_captured():
            return "captured"
        return "partial" if any(s.graph is not None for s in self._segments) else "eager"

    def eager_reason(self) -> str | None:
        """Why part or all of the step runs eagerly (``None`` when one graph replays the whole step)."""
        if self.is_fully_captured():
            return None
        return "; ".join(self._reasons) if self._reasons else None

    def describe(self) -> list[str]:
        """One line per stage: name, phase, graph-safety and whether it replays from a graph."""
        captured = set(self.captured_stage_names())
        return [
            f"{stage.name} [{stage.phase.value}] {'graph-safe' if stage.graph_safe else 'eager: ' + (stage.reason or '')}"
            f"{' (captured)' if stage.name in captured else ''}"
            for stage in self.stages
        ]
