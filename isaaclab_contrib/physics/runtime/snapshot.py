"""A checkpoint of the whole simulation: :class:`SimulationSnapshot`.

What the next step reads is saved: both states, the control, the model's arrays (so materials, masses and
gravity written at run time come back), the contacts and the collision pipeline's buffers, every device array of
the solver objects (a coupled solver's entries and their solvers: VBD's previous positions and contact caches,
the ADMM coupler's duals, the proxy coupler's feedback, Steel's friction patches, MPM's grids and the warm start
of its implicit solve, MuJoCo Warp's data), the sensors' buffers, the actuator states, the solver's host-side
counters and the clock. Arrays are found by walking those objects (attributes, lists, dicts, Warp structs, the
node values of Warp FEM fields) and named by their path, so a snapshot restores into the simulation it was taken
from, or one built from the same scene config; restoring writes into the same arrays, so the captured step
program stays valid and the following steps repeat bitwise.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import warp as wp
import warp.fem as fem

__all__ = ["SimulationSnapshot", "collect_device_arrays", "host_shape"]

_WALKED_MODULES = ("newton", "mujoco_warp", "isaaclab_contrib", "warp.sim")
"""Objects of these packages are walked into; anything else is skipped (devices, kernels, functions...)."""
_MAGIC = "isaaclab_contrib.SimulationSnapshot/1"


def _walked(value: Any) -> bool:
    module = type(value).__module__ or ""
    return module.startswith(_WALKED_MODULES) and hasattr(value, "__dict__") and not isinstance(value, type)


def _memory_is_held(array: wp.array) -> bool:
    """Whether *array* owns its memory or views an array that does (an array over memory it does not hold, such
    as a pooled temporary, may have been freed or reused: it is neither saved nor written)."""
    seen = 0
    while isinstance(array, wp.array) and seen < 32:
        if array.deleter is not None:
            return True
        array, seen = getattr(array, "_ref", None), seen + 1
    return False


def host_shape(array: wp.array) -> tuple[int, ...]:
    """The shape ``array.numpy()`` has (the element's own shape appended: ``(n, 3)`` for ``vec3``), without the
    copy."""
    return tuple(array.shape) + tuple(getattr(array.dtype, "_shape_", ()))


def _field_values(field: fem.DiscreteField) -> wp.array | None:
    """The node values of a Warp FEM field, or ``None`` for a field that holds none of its own (a trace)."""
    try:
        return field.dof_values
    except NotImplementedError:
        return None


def collect_device_arrays(roots: dict[str, Any], max_depth: int = 12) -> dict[str, wp.array]:
    """Every Warp array reachable from *roots* through attributes, lists, tuples and dicts of objects of Newton,
    MuJoCo Warp and this package, by path (``"solver._entries.cloth.solver.particle_q_prev"``); an array met
    twice (by address) is kept under its first path; arrays over memory they do not hold are skipped.

    Two kinds of Warp objects met on the way are walked too, as solvers keep step-to-step history in them: a
    Warp struct's fields (Steel's friction patches) and a Warp FEM field's node values, under
    ``<path>.dof_values`` (implicit MPM's warm start of its solve, the previous step's grid impulses and
    stresses); the field's function space and grid are not saved (the solver keeps or rebuilds them): values saved
    on a grid reallocated since with another size are refused on restore. The walk order is the objects'
    attribute order, so two builds of the same scene give the same paths."""
    found: dict[str, wp.array] = {}
    seen_objects: set[int] = set()
    seen_arrays: set[tuple[int, int]] = set()

    def visit(value: Any, path: str, depth: int) -> None:
        if isinstance(value, wp.array):
            if value.ptr is None or value.size == 0 or not _memory_is_held(value):
                return
            key = (int(value.ptr), int(value.capacity))
            if key not in seen_arrays:
                seen_arrays.add(key)
                found[path] = value
            return
        if depth > max_depth or id(value) in seen_objects:
            return
        if isinstance(value, dict):
            seen_objects.add(id(value))
            for k, v in value.items():
                visit(v, f"{path}.{k}", depth + 1)
        elif isinstance(value, (list, tuple)):
            seen_objects.add(id(value))
            for i, v in enumerate(value):
                visit(v, f"{path}.{i}", depth + 1)
        elif isinstance(value, fem.DiscreteField):
            seen_objects.add(id(value))
            visit(_field_values(value), f"{path}.dof_values", depth + 1)
        elif wp.types.is_struct(value):  # its fields; the leading-underscore slots are Warp's own
            seen_objects.add(id(value))
            for name, v in list(vars(value).items()):
                if not name.startswith("_"):
                    visit(v, f"{path}.{name}", depth + 1)
        elif _walked(value):
            seen_objects.add(id(value))
            for name, v in list(vars(value).items()):
                visit(v, f"{path}.{name}", depth + 1)

    for name, root in roots.items():
        visit(root, name, 0)
    return found


@dataclass
class SimulationSnapshot:
    """The state of a whole simulation (see the module docs): restore it with
    ``NewtonManager.restore_state(snapshot)``; ``save(path)`` / ``load(path)`` through a file."""

    fingerprint: dict[str, Any]
    """What the snapshot fits: the model's element counts, the env count and the device."""
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    """Every device array by path, copied."""
    host: dict[str, Any] = field(default_factory=dict)
    """Host-side state: the clock, pending resets, the solver's counters, the actuator states."""

    def save(self, path: str | Path) -> Path:
        """Write the snapshot to *path* (a Python pickle: load only files you wrote). Returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            pickle.dump({"magic": _MAGIC, "snapshot": self}, f, protocol=pickle.HIGHEST_PROTOCOL)
        return path

    @classmethod
    def load(cls, path: str | Path) -> SimulationSnapshot:
        """Read a snapshot written by :meth:`save`.

        Raises:
            FileNotFoundError: No such file.
            ValueError: The file is not a snapshot of this package.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"SimulationSnapshot.load: no file {str(path)!r}")
        try:
            with open(path, "rb") as f:
                content = pickle.load(f)
        except Exception as err:
            raise ValueError(f"SimulationSnapshot.load: {str(path)!r} is not a simulation snapshot ({err})") from None
        if not isinstance(content, dict) or content.get("magic") != _MAGIC:
            raise ValueError(f"SimulationSnapshot.load: {str(path)!r} is not a simulation snapshot")
        return content["snapshot"]

    def check_fits(self, fingerprint: dict[str, Any], where: str) -> None:
        """Raise ``ValueError`` naming what differs when the snapshot was taken from another simulation."""
        differ = {k: (self.fingerprint.get(k), v) for k, v in fingerprint.items() if self.fingerprint.get(k) != v}
        if differ:
            listed = ", ".join(f"{k}: snapshot {a!r}, simulation {b!r}" for k, (a, b) in sorted(differ.items()))
            raise ValueError(f"{where}: the snapshot is of another simulation ({listed})")


def model_fingerprint(model: Any, device: str) -> dict[str, Any]:
    """What a snapshot must match: the counts of worlds, bodies, joints, coordinates, shapes, particles and
    elements, a digest of the body, joint and shape labels (another scene of the same sizes differs there), and
    the device."""
    names = ("world_count", "body_count", "joint_count", "joint_coord_count", "joint_dof_count", "shape_count")
    names += ("particle_count", "tri_count", "edge_count", "tet_count")
    fingerprint = {name: int(getattr(model, name, 0) or 0) for name in names}
    labels = [str(label) for attr in ("body_label", "joint_label", "shape_label") for label in getattr(model, attr, [])]
    fingerprint["labels"] = hashlib.sha1("\n".join(labels).encode()).hexdigest()[:16]
    return fingerprint | {"device": str(device)}
