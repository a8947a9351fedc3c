"""Edits of the model's per-element properties at run time, and checkpoints of the whole simulation (mixed into
``NewtonManager``).

Materials written after the start (cloth and soft-body elements) go into the model's arrays in place and into
every copy a solver keeps (a coupled solver's entry views): the solvers read them every step, so the change
takes effect at the next step with no rebuild and no new recording of the captured step (the program reads the
same arrays).

A few arrays (:data:`NOTIFIED_MODEL_ROWS`, the bodies' centers of mass) are written into the model only: Newton's
coupled solver copies every per-body array of the model into its entries' views again when it is notified of a
change of the bodies' inertial properties, and the caller must send that notification anyway
(``add_model_change(ModelFlags.BODY_INERTIAL_PROPERTIES)``, which also refreshes MuJoCo-Warp's own copies).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import warp as wp

from isaaclab_contrib.physics.runtime.snapshot import (
    SimulationSnapshot,
    collect_device_arrays,
    host_shape,
    model_fingerprint,
)
from isaaclab_contrib.physics.solvers.binding import write_array_rows

if TYPE_CHECKING:
    from isaaclab_contrib.physics.runtime.session import ManagerSession
    from isaaclab_contrib.physics.runtime.simulation_instance import SimulationInstance

__all__ = ["NOTIFIED_MODEL_ROWS", "ModelMethods"]

NOTIFIED_MODEL_ROWS = frozenset({"body_com"})
"""Model arrays :meth:`ModelMethods.write_model_rows` writes into the model only: the solvers' copies of them
(a coupled solver's entry views, MuJoCo-Warp's model) are refreshed from the model by the notification the caller
registers (``BODY_INERTIAL_PROPERTIES``) before the next step."""


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
        into the solvers' own copies of it, in place (an array of :data:`NOTIFIED_MODEL_ROWS`: into the model only,
        the notification the caller registers refreshes the copies).

        Raises:
            RuntimeError: No simulation is running, or the step program is being recorded (a callback cannot
                change the model of the step being recorded).
        """
        session = cls._active()
        session.refuse_while_recording(f"{cls.__name__}.write_model_rows()")
        instance = cls._instance("write_model_rows()")
        if array_name in NOTIFIED_MODEL_ROWS:
            write_array_rows(wp.to_torch(getattr(instance.model, array_name)), rows, columns, values)
            return
        instance.part.bound.write_model_rows(array_name, rows, columns, values)

    # ------------------------------------------------------------------ checkpoints
    @classmethod
    def save_state(cls) -> SimulationSnapshot:
        """A :class:`~isaaclab_contrib.physics.SimulationSnapshot` of the whole simulation: everything the next
        step reads (states, control, model, contacts, the solvers' and couplers' own arrays, sensors, actuator
        states, the solvers' counters, the clock and pending resets), copied.

        Raises:
            RuntimeError: No simulation is running, or the step program is being recorded.
        """
        session = cls._active()
        session.refuse_while_recording(f"{cls.__name__}.save_state()")
        instance = cls._instance("save_state()")
        arrays = collect_device_arrays(_roots(instance))
        host = {
            "clock": (instance.sim_time, instance.step_count),
            "pending": (instance.world_reset_mask.numpy().copy(), instance.fk_pending),
            "solver": instance.part.bound.save_host_state(),
        }
        copies = {path: array.numpy().copy() for path, array in arrays.items()}
        return SimulationSnapshot(model_fingerprint(instance.model, instance.device), copies, host)

    @classmethod
    def restore_state(cls, snapshot: SimulationSnapshot, env_ids: Any = None) -> None:
        """Put the simulation back into *snapshot* (of this simulation, or of one built from the same scene).

        With ``env_ids=None`` everything comes back and the following steps repeat those that followed the save,
        bitwise (the same arrays are written: the captured step stays valid). With *env_ids* only those envs'
        body, particle and joint positions and velocities come back, and those envs get FK and a masked solver
        reset (their solver history starts over); the other envs are not touched.

        Raises:
            TypeError: *snapshot* is not a ``SimulationSnapshot``.
            ValueError: The snapshot is of another scene, env count or device (the message names what differs),
                or an array it holds is missing or shaped differently here; nothing is written then.
        """
        where = f"{cls.__name__}.restore_state"
        if not isinstance(snapshot, SimulationSnapshot):
            raise TypeError(f"{where}: expected a SimulationSnapshot, got {type(snapshot).__name__}")
        session = cls._active()
        session.refuse_while_recording(f"{where}()")
        instance = cls._instance("restore_state()")
        snapshot.check_fits(model_fingerprint(instance.model, instance.device), where)
        if env_ids is not None:
            mask = instance.world_mask_from(None, env_ids)
            instance.check_resettable(mask | instance.world_reset_mask.numpy(), f"{where}()")

            def source(name: str):
                saved = snapshot.arrays.get(f"state_0.{name}")
                return (
                    None
                    if saved is None
                    else wp.array(saved, dtype=getattr(instance.state_0, name).dtype, device=instance.device)
                )

            with session.lifecycle("restore_state()"):
                instance.copy_world_rows(source, mask)
            return
        arrays = collect_device_arrays(_roots(instance))
        wrong = sorted(
            path
            for path, saved in snapshot.arrays.items()
            if path not in arrays or host_shape(arrays[path]) != tuple(saved.shape)
        )
        if wrong:
            raise ValueError(f"{where}: {len(wrong)} saved array(s) have no match here, e.g. {wrong[:3]}")
        with session.lifecycle("restore_state()"):
            for path, saved in snapshot.arrays.items():
                arrays[path].assign(saved)
            instance.sim_time, instance.step_count = snapshot.host["clock"]
            mask, pending = snapshot.host["pending"]
            instance.world_reset_mask.assign(np.asarray(mask))
            instance.fk_pending = pending
            instance.part.bound.restore_host_state(snapshot.host["solver"])


def _roots(instance: Any) -> dict[str, Any]:
    """Where the arrays the next step reads live."""
    part = instance.part
    return {
        "state_0": instance.state_0,
        "state_1": instance.state_1,
        "control": instance.control,
        "staged": [instance.staged_body_f, instance.staged_particle_f],
        "model": instance.model,
        "bound": part.bound,
        "solver": part.bound.solver,
        "contacts": part.contacts,
        "pipeline": part.pipeline,
        "sensors": part.sensors,
        "observables": [part.obs_full, part.obs_per_substep, part.step_average],
        "actuators": instance.actuators,
    }
