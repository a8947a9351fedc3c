"""Edits of the model's per-element properties at run time (mixed into ``NewtonManager``).

Materials written after the start (cloth and soft-body elements) go into the model's arrays in place and into
every copy a solver keeps (a coupled solver's entry views): the solvers read them every step, so the change
takes effect at the next step with no rebuild and no new recording of the captured step (the program reads the
same arrays).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from isaaclab_contrib.physics.runtime.session import ManagerSession
    from isaaclab_contrib.physics.runtime.simulation_instance import SimulationInstance

__all__ = ["ModelMethods"]


class ModelMethods:
    """Run-time model edits of the manager front."""

    @classmethod
    def _active(cls) -> ManagerSession:
        raise NotImplementedError

    @classmethod
    def _instance(cls, what: str = "this call") -> SimulationInstance:
        raise NotImplementedError

    @classmethod
    def write_model_rows(cls, array_name: str, rows: Any, columns: Sequence[int], values: Any) -> None:
        """Write ``values[i]`` into the model's ``array_name[rows[i], columns]`` (e.g. ``"tri_materials"``), and
        into the solvers' own copies of it, in place.

        Raises:
            RuntimeError: No simulation is running, or the step program is being recorded (a callback cannot
                change the model of the step being recorded).
        """
        session = cls._active()
        session.refuse_while_recording(f"{cls.__name__}.write_model_rows()")
        instance = cls._instance("write_model_rows()")
        instance.part.bound.write_model_rows(array_name, rows, columns, values)
