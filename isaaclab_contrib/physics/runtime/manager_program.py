"""Decimation and step-program callback methods of the Newton manager front (mixed into ``NewtonManager``).

``set_decimation`` and the ``register_post_*_callback`` methods change what one ``step()`` runs: the session
records the change and the simulation instance compiles and captures the step program again at the next step
boundary (see :mod:`.session` and :mod:`.step_program`).

A callback registered as a stage of the program also runs while the program is *recorded*, which is not a
step: in the warm-up of a build (``sim.reset()``; its state changes are undone) and in every graph recording
(a registration, a decimation change). A change it requests then never alters the step being recorded:
``set_decimation`` from a graph recording is deferred to the end of the first step that replays it (as if the
callback had run in that step) and dropped in the warm-up (eager callbacks make it again in the real steps);
``invalidate_fk`` / ``add_model_change`` are dropped in the warm-up and refused in a graph recording; every other
change (registering or removing callbacks, sensors, sites, observables, lifecycle calls) is refused with a
:class:`~.step_program.RecordingRefusal` naming the call and the stage, and the call that was recording (a
registration, ``sim.reset()``) changes nothing. The only things this mixin needs from the class it is mixed
into are :meth:`ProgramMethods._active` and :meth:`ProgramMethods._current_session`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from isaaclab_contrib.physics.simulation_cfg import NewtonCfg
from isaaclab_contrib.utils.validation import field_rules

if TYPE_CHECKING:
    from isaaclab_contrib.physics.runtime.session import ManagerSession

__all__ = ["ProgramMethods"]


class ProgramMethods:
    """Decimation and step-program callback class methods of the manager front."""

    @classmethod
    def _active(cls) -> ManagerSession:
        """The active session (provided by the manager front)."""
        raise NotImplementedError

    @classmethod
    def _current_session(cls) -> ManagerSession | None:
        """The active session, or ``None`` (provided by the manager front)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the program
    @classmethod
    def is_graph_captured(cls) -> bool:
        """Whether ``step()`` replays one captured graph for the whole env step."""
        session = cls._current_session()
        instance = session.instance if session else None
        return bool(instance and instance.part and instance.part.program.is_fully_captured())

    @classmethod
    def step_mode(cls) -> str:
        """``"captured"`` (one graph per step), ``"partial"`` (physics replayed from graphs, some stages eager),
        ``"eager"``, or ``"not started"``."""
        session = cls._current_session()
        instance = session.instance if session else None
        if not (instance and instance.part):
            return "not started"
        return instance.part.program.mode()

    @classmethod
    def eager_reason(cls) -> str | None:
        """Why part or all of ``step()`` runs eagerly, naming the stages (``None`` when one graph replays it)."""
        session = cls._current_session()
        instance = session.instance if session else None
        if not (instance and instance.part):
            return None
        return instance.part.program.eager_reason()

    @classmethod
    def describe_step_program(cls) -> list[str]:
        """One line per stage of the step program: name, phase, graph-safety, whether it is captured."""
        session = cls._active()
        instance = session.instance
        session.require(
            instance is not None and instance.part is not None,
            "initialize_solver() (or sim.reset()) must run before describe_step_program()",
        )
        return instance.part.program.describe()

    # ------------------------------------------------------------------ decimation
    @classmethod
    def handles_decimation(cls) -> bool:
        """True: ``step()`` runs the whole decimation loop (actuators and callbacks are part of the program)."""
        return True

    @classmethod
    def set_decimation(cls, decimation: int) -> None:
        """Set the physics steps per ``step()`` and re-capture; during a step it takes effect when the step ends.

        Called by a step-program callback while the program is recorded (at ``sim.reset()``, a registration,
        a re-capture), the change is deferred to the end of the first step that replays that recording: a
        callback's recording never changes the step it is recorded for.
        """
        field_rules(NewtonCfg)["decimation"].check(decimation, f"{cls.__name__}.set_decimation: decimation")
        session = cls._active()
        if session.request_decimation(int(decimation)):
            return  # recorded: applied at the end of the step this recording belongs to
        if int(decimation) == session.decimation:
            return  # not a change: nothing to record again
        session.decimation = int(decimation)
        session.program_changed()

    @classmethod
    def get_decimation(cls) -> int:
        """Physics steps per ``step()`` (a change made during a step applies from the next one)."""
        session = cls._current_session()
        return session.decimation if session else 1

    # ------------------------------------------------------------------ callbacks in the program
    @classmethod
    def register_post_actuator_callback(cls, callback: Callable[[], None], *, graph_safe: bool = True) -> None:
        """Run *callback* in every physics step, after the actuators and before collision and the solver.

        Args:
            callback: Launches Warp work on the manager's device (writes to control or state).
            graph_safe: ``False`` for callbacks that do host work (reading ``.numpy()``, Python
                branching on device data); that stage then runs eagerly between graph replays of the
                physics, and ``eager_reason()`` names it.
        """
        cls._add_program_callback("post_actuator_callbacks", callback, graph_safe)

    @classmethod
    def register_post_step_callback(cls, callback: Callable[[], None], *, graph_safe: bool = True) -> None:
        """Run *callback* after the last solver substep of every ``step()``, before sensors."""
        cls._add_program_callback("post_step_callbacks", callback, graph_safe)

    @classmethod
    def unregister_post_step_callback(cls, callback: Callable[[], None]) -> None:
        """Remove a post-step callback; removing an unknown one is a no-op."""
        session = cls._active()
        session.refuse_while_recording("unregister_post_step_callback()")
        kept = [item for item in session.post_step_callbacks if item[0] != callback]
        if len(kept) != len(session.post_step_callbacks):
            session.post_step_callbacks = kept
            session.program_changed()

    @classmethod
    def _add_program_callback(cls, slot: str, callback: Callable[[], None], graph_safe: bool) -> None:
        session = cls._active()
        session.refuse_while_recording(f"register_{slot[:-1]}()")
        if not callable(callback):
            raise TypeError(f"{cls.__name__}: callback must be callable, got {type(callback).__name__}")
        if not isinstance(graph_safe, bool):
            raise TypeError(f"{cls.__name__}: graph_safe must be a bool, got {type(graph_safe).__name__}")
        previous, dirty = getattr(session, slot), session.program_dirty
        setattr(session, slot, [*previous, (callback, graph_safe)])
        try:
            session.program_changed()
        except BaseException:  # refused (the recording failed): the callbacks and the program stay as they were
            setattr(session, slot, previous)
            session.program_dirty = dirty
            raise
