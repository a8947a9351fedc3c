"""Site and sensor methods of the Newton manager front (mixed into ``NewtonManager``).

They register requests on the active session (:class:`~.session.ManagerSession`); the simulation
instance creates the Newton sensors, unions their observable kinds with legacy
``request_extended_*`` requests, allocates ONE observables container before capture and runs
the sensor updates as the last stage of the step program (see ``simulation_instance.py``). The
only thing this mixin needs from the class it is mixed into is :meth:`SensorMethods._active`.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import warp as wp

from .sensors import (
    BODY_QDD,
    CONTACT_F,
    SensorRecord,
    combine_patterns,
    legacy_contact_kind,
    legacy_state_kind,
)

if TYPE_CHECKING:
    from .session import ManagerSession

__all__ = ["SensorMethods"]

logger = logging.getLogger(__name__)


class SensorMethods:
    """Sensor and site class methods of the manager front."""

    @classmethod
    def _active(cls) -> ManagerSession:
        """The active session (provided by the manager front)."""
        raise NotImplementedError

    @classmethod
    def cl_register_site(cls, body_pattern: str | None, xform: Any, *, per_world: bool = False) -> str:
        """Request a site on every body whose label matches *body_pattern*, injected before finalization.

        Args:
            body_pattern: Regex matched (full match) against full body labels, or against their tail
                after a ``/`` (so prototype-local patterns such as ``"Robot/link.*"`` work too).
                ``None`` creates one global site at *xform* in the world frame.
            xform: Site transform relative to the body (``wp.transform``) [m, quaternion].
            per_world: Not supported kitless (there is no replication step to inject into); raises.

        Returns:
            The site label suffix: sites are labelled ``"{body_label}/{suffix}"`` (or ``suffix`` for a
            global site). Identical requests share one suffix.
        """
        if per_world:
            raise NotImplementedError(
                f"{cls.__name__}.cl_register_site(per_world=True) needs replication-time injection, which the "
                "kitless manager does not have; register a body-attached site per env instead."
            )
        session = cls._active()
        session.require(session.instance is None, "cl_register_site must be called before start_simulation()")
        if body_pattern is not None:
            _check_regex(body_pattern, f"{cls.__name__}.cl_register_site: body_pattern")
        key = (body_pattern, tuple(float(v) for v in xform))
        if key not in session.site_requests:
            session.site_requests[key] = f"site_{len(session.site_requests)}"
        return session.site_requests[key]

    @classmethod
    def request_extended_state_attribute(cls, attr: str) -> None:
        """Deprecated: request a solver-produced state array (``"body_qdd"``, ``"body_parent_f"``).

        Mapped to the observable kind and added to the union the manager allocates; warns.
        """
        cls._add_legacy_kind(legacy_state_kind(attr))

    @classmethod
    def request_extended_contact_attribute(cls, attr: str) -> None:
        """Deprecated: request a solver-produced contact array (``"force"``); mapped to ``contact_f``; warns."""
        cls._add_legacy_kind(legacy_contact_kind(attr))

    @classmethod
    def _add_legacy_kind(cls, kind: str) -> None:
        session = cls._active()
        if kind in session.legacy_kinds:
            return
        session.legacy_kinds.add(kind)
        try:
            cls._sensors_changed(f"legacy request for {kind!r}")
        except BaseException:
            session.legacy_kinds.discard(kind)
            raise

    @classmethod
    def add_imu_sensor(cls, sites: list[int] | str) -> int:
        """Add a ``newton.sensors.SensorIMU`` at *sites*; returns its index.

        Args:
            sites: Site shape indices of the finalized model (one per env), or a regex over site labels
                (full match), which may be given before the model exists and is resolved at
                ``initialize_solver()``.

        The accelerometer reads the specific force (acceleration minus gravity) [m/s^2] and the
        gyroscope the angular velocity [rad/s], both in the site frame. Needs ``body_qdd``.
        """
        session = cls._active()
        if isinstance(sites, str):
            _check_regex(sites, f"{cls.__name__}.add_imu_sensor: sites")
        elif not isinstance(sites, (list, tuple)) or not sites:
            raise TypeError(f"{cls.__name__}.add_imu_sensor: sites must be a regex or a non-empty list of site indices")
        index = len(session.imu_sensors)
        record = SensorRecord("imu", f"imu[{index}]", {"sites": sites}, observable_kinds=frozenset({BODY_QDD}))
        session.imu_sensors.append(record)
        cls._sensor_added(record, lambda: session.imu_sensors.remove(record))
        return index

    @classmethod
    def add_contact_sensor(
        cls,
        body_names_expr: str | list[str] | None = None,
        shape_names_expr: str | list[str] | None = None,
        contact_partners_body_expr: str | list[str] | None = None,
        contact_partners_shape_expr: str | list[str] | None = None,
        verbose: bool = False,
    ) -> tuple:
        """Add a ``newton.sensors.SensorContact`` for bodies or shapes; returns its key.

        Expressions are Isaac Lab regexes (``.*``, full USD paths) matched in full against labels;
        they are compiled (a list becomes an alternation) rather than turned into globs. The
        returned tuple of compiled patterns is the key of :meth:`get_contact_sensor`. Needs ``contact_f``.
        """
        if body_names_expr is None and shape_names_expr is None:
            raise ValueError("add_contact_sensor: give body_names_expr or shape_names_expr")
        if body_names_expr is not None and shape_names_expr is not None:
            raise ValueError("add_contact_sensor: give body_names_expr or shape_names_expr, not both")
        session = cls._active()
        names = ("body_names_expr", "shape_names_expr", "contact_partners_body_expr", "contact_partners_shape_expr")
        exprs = (body_names_expr, shape_names_expr, contact_partners_body_expr, contact_partners_shape_expr)
        patterns = []
        for field_name, expr in zip(names, exprs, strict=True):
            try:
                patterns.append(combine_patterns(expr))
            except (TypeError, re.error) as err:
                raise ValueError(f"{cls.__name__}.add_contact_sensor: {field_name}={expr!r} is invalid: {err}") from err
        key = tuple(patterns)
        if key in session.contact_sensors:
            return key
        name = f"contact[{body_names_expr or shape_names_expr!r}]"
        record = SensorRecord(
            "contact", name, {"key": key, "verbose": verbose}, observable_kinds=frozenset({CONTACT_F})
        )
        session.contact_sensors[key] = record
        cls._sensor_added(record, lambda: session.contact_sensors.pop(key))
        return key

    @classmethod
    def add_frame_transform_sensor(cls, shapes: list[int], reference_sites: list[int]) -> int:
        """Add a ``newton.sensors.SensorFrameTransform`` (shape poses relative to reference sites); returns its index."""
        if len(shapes) != len(reference_sites):
            raise ValueError("add_frame_transform_sensor: shapes and reference_sites must have the same length")
        session = cls._active()
        index = len(session.frame_transform_sensors)
        record = SensorRecord(
            "frame_transform",
            f"frame_transform[{index}]",
            {"shapes": list(shapes), "reference_sites": list(reference_sites)},
        )
        session.frame_transform_sensors.append(record)
        cls._sensor_added(record, lambda: session.frame_transform_sensors.remove(record))
        return index

    @classmethod
    def _runtime(cls, record: SensorRecord):
        session = cls._active()
        instance = session.instance
        if instance is None or instance.part is None:
            return None
        return instance.part.sensors[id(record)]

    @classmethod
    def _lookup(cls, table, key, what: str) -> SensorRecord:
        try:
            return table[key]
        except (IndexError, KeyError, TypeError):
            raise KeyError(f"{cls.__name__}: no {what} sensor {key!r}") from None

    @classmethod
    def get_imu_sensor(cls, index: int):
        """The Newton ``SensorIMU`` (outputs ``accelerometer`` [m/s^2], ``gyroscope`` [rad/s]); ``None`` before reset."""
        runtime = cls._runtime(cls._lookup(cls._active().imu_sensors, index, "IMU"))
        return runtime.sensor if runtime else None

    @classmethod
    def get_contact_sensor(cls, key: tuple):
        """The Newton ``SensorContact`` for the key returned by :meth:`add_contact_sensor`; ``None`` before reset."""
        runtime = cls._runtime(cls._lookup(cls._active().contact_sensors, key, "contact"))
        return runtime.sensor if runtime else None

    @classmethod
    def get_frame_transform_sensor(cls, index: int):
        """The Newton ``SensorFrameTransform``; ``None`` before reset."""
        runtime = cls._runtime(cls._lookup(cls._active().frame_transform_sensors, index, "frame-transform"))
        return runtime.sensor if runtime else None

    @classmethod
    def imu_accelerometer(cls, index: int):
        """Zero-copy torch view of an IMU's specific force [m/s^2], shape ``(n_sites, 3)``."""
        sensor = cls.get_imu_sensor(index)
        cls._active().require(sensor is not None, "imu_accelerometer() needs sim.reset() first")
        return wp.to_torch(sensor.accelerometer)

    @classmethod
    def contact_total_force(cls, key: tuple):
        """Zero-copy torch view of a contact sensor's total force per sensing object [N], shape ``(n, 3)``."""
        sensor = cls.get_contact_sensor(key)
        cls._active().require(sensor is not None, "contact_total_force() needs sim.reset() first")
        return wp.to_torch(sensor.total_force)

    @classmethod
    def observables_allocations(cls) -> int:
        """How many times an observables container was allocated in this session."""
        return cls._active().observables_allocations

    @classmethod
    def _sensor_added(cls, record: SensorRecord, undo) -> None:
        try:
            cls._sensors_changed(record.name)
        except BaseException:
            undo()
            raise

    @classmethod
    def _sensors_changed(cls, what: str) -> None:
        """After ``sim.reset()``: re-create sensors and observables and re-capture (transactional in the instance)."""
        session = cls._active()
        instance = session.instance
        if instance is None or instance.part is None:
            return
        session.require(not session.busy, f"{what} cannot be added while step() runs")
        logger.warning(
            "%s added after sim.reset(): the observables container is allocated again and the step re-captured; "
            "add sensors before sim.reset() to allocate once.",
            what,
        )
        instance.refresh_sensors()


def _check_regex(pattern: str, where: str) -> None:
    if not isinstance(pattern, str):
        raise TypeError(f"{where} must be a regex string, got {type(pattern).__name__}")
    try:
        re.compile(pattern)
    except re.error as err:
        raise ValueError(f"{where}={pattern!r} is not a valid regular expression: {err}") from err
