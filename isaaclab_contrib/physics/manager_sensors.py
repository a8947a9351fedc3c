"""Sites, sensors and the solver-observables union of the Newton manager (mixed into ``NewtonManager``).

Each sensor declares the solver observable kinds it consumes; the manager unions them with legacy
``request_extended_*`` requests, checks the union against the solver, allocates ONE container
before graph capture and wires every sensor's update into the step program (see ``sensors.py``).
"""

from __future__ import annotations

import logging
from typing import Any

import warp as wp

from .sensors import (
    BODY_QDD,
    CONTACT_F,
    PER_SUBSTEP_KINDS,
    ObservablesUnsupportedError,
    SensorRecord,
    StepAverageObservables,
    combine_patterns,
    legacy_contact_kind,
    legacy_state_kind,
)

__all__ = ["SensorMethods"]

logger = logging.getLogger(__name__)


class SensorMethods:
    """Sensor and observable class methods of the manager; slots live on ``NewtonManager``."""

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
        if cls._simulation_started:
            raise RuntimeError(f"{cls.__name__}.cl_register_site must be called before start_simulation()")
        key = (body_pattern, tuple(float(v) for v in xform))
        if key not in cls._site_requests:
            cls._set(_site_requests={**cls._site_requests, key: f"site_{len(cls._site_requests)}"})
        return cls._site_requests[key]

    @classmethod
    def _inject_sites(cls, builder) -> None:
        import re

        for (pattern, xform), suffix in cls._site_requests.items():
            transform = wp.transform(xform[:3], xform[3:])
            if pattern is None:
                builder.add_site(-1, xform=transform, label=suffix)
                continue
            regex = re.compile(pattern)
            tail = re.compile(f".*/(?:{pattern})")
            bodies = [
                i for i, label in enumerate(builder.body_label) if regex.fullmatch(label) or tail.fullmatch(label)
            ]
            if not bodies:
                raise ValueError(f"cl_register_site: body_pattern {pattern!r} matches no body label")
            for body in bodies:
                builder.add_site(body, xform=transform, label=f"{builder.body_label[body]}/{suffix}")

    @classmethod
    def request_extended_state_attribute(cls, attr: str) -> None:
        """Deprecated: request a solver-produced state array (``"body_qdd"``, ``"body_parent_f"``).

        Mapped to the observable kind and added to the union the manager allocates; warns.
        """
        cls._set(_legacy_kinds={*cls._legacy_kinds, legacy_state_kind(attr)})

    @classmethod
    def request_extended_contact_attribute(cls, attr: str) -> None:
        """Deprecated: request a solver-produced contact array (``"force"``); mapped to ``contact_f``; warns."""
        cls._set(_legacy_kinds={*cls._legacy_kinds, legacy_contact_kind(attr)})

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
        record = SensorRecord(
            "imu", f"imu[{len(cls._imu_sensors)}]", {"sites": sites}, observable_kinds=frozenset({BODY_QDD})
        )
        cls._set(_imu_sensors=[*cls._imu_sensors, record])
        cls._sensor_added(record)
        return len(cls._imu_sensors) - 1

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
        key = tuple(
            combine_patterns(e)
            for e in (body_names_expr, shape_names_expr, contact_partners_body_expr, contact_partners_shape_expr)
        )
        name = f"contact[{body_names_expr or shape_names_expr!r}]"
        record = SensorRecord(
            "contact", name, {"key": key, "verbose": verbose}, observable_kinds=frozenset({CONTACT_F})
        )
        cls._set(_contact_sensors={**cls._contact_sensors, key: record})
        cls._sensor_added(record)
        return key

    @classmethod
    def add_frame_transform_sensor(cls, shapes: list[int], reference_sites: list[int]) -> int:
        """Add a ``newton.sensors.SensorFrameTransform`` (shape poses relative to reference sites); returns its index."""
        if len(shapes) != len(reference_sites):
            raise ValueError("add_frame_transform_sensor: shapes and reference_sites must have the same length")
        record = SensorRecord(
            "frame_transform",
            f"frame_transform[{len(cls._frame_transform_sensors)}]",
            {"shapes": list(shapes), "reference_sites": list(reference_sites)},
        )
        cls._set(_frame_transform_sensors=[*cls._frame_transform_sensors, record])
        cls._sensor_added(record)
        return len(cls._frame_transform_sensors) - 1

    @classmethod
    def get_imu_sensor(cls, index: int):
        """The Newton ``SensorIMU`` (outputs ``accelerometer`` [m/s^2], ``gyroscope`` [rad/s])."""
        return cls._imu_sensors[index].sensor

    @classmethod
    def get_contact_sensor(cls, key: tuple):
        """The Newton ``SensorContact`` for the key returned by :meth:`add_contact_sensor`."""
        return cls._contact_sensors[key].sensor

    @classmethod
    def get_frame_transform_sensor(cls, index: int):
        """The Newton ``SensorFrameTransform``."""
        return cls._frame_transform_sensors[index].sensor

    @classmethod
    def imu_accelerometer(cls, index: int):
        """Zero-copy torch view of an IMU's specific force [m/s^2], shape ``(n_sites, 3)``."""
        return wp.to_torch(cls.get_imu_sensor(index).accelerometer)

    @classmethod
    def contact_total_force(cls, key: tuple):
        """Zero-copy torch view of a contact sensor's total force per sensing object [N], shape ``(n, 3)``."""
        return wp.to_torch(cls.get_contact_sensor(key).total_force)

    @classmethod
    def observables_allocations(cls) -> int:
        """How many times the observable container was allocated in this simulation."""
        return cls._observables_allocations

    @classmethod
    def _sensor_added(cls, record: SensorRecord) -> None:
        if cls._model is not None:
            cls._create_sensor(record)
        if cls._solver_initialized:
            logger.warning(
                "%s added after initialize_solver(): the observable container is allocated again and the graph "
                "re-captured; add sensors before sim.reset() to allocate once.",
                record.name,
            )
            cls._setup_observables()
            cls._capture()

    @classmethod
    def _create_sensor(cls, record: SensorRecord) -> None:
        import newton

        if record.sensor is not None:
            return
        model = cls._model
        if record.kind == "imu":
            sites = record.request["sites"]
            sites = combine_patterns(sites) if isinstance(sites, str) else list(sites)
            record.sensor = newton.sensors.SensorIMU(model, sites=sites, request_state_attributes=False)
        elif record.kind == "frame_transform":
            record.sensor = newton.sensors.SensorFrameTransform(
                model, shapes=record.request["shapes"], reference_sites=record.request["reference_sites"]
            )
        else:
            record.sensor = cls._create_contact_sensor(record, model)  # None: created later

    @classmethod
    def _create_contact_sensor(cls, record: SensorRecord, model):
        import newton

        bodies, shapes, partner_bodies, partner_shapes = record.request["key"]
        return newton.sensors.SensorContact(
            model,
            sensing_bodies=bodies,
            sensing_shapes=shapes,
            counterpart_bodies=partner_bodies,
            counterpart_shapes=partner_shapes,
            verbose=record.request["verbose"],
            request_contact_attributes=False,
        )

    @classmethod
    def _sensor_kinds(cls) -> dict[str, frozenset[str]]:
        """Observable kinds per consumer name (sensors and legacy requests)."""
        kinds = {
            r.name: r.observable_kinds
            for r in (*cls._imu_sensors, *cls._contact_sensors.values(), *cls._frame_transform_sensors)
            if r.observable_kinds
        }
        if cls._legacy_kinds:
            kinds["legacy request_extended_* attributes"] = frozenset(cls._legacy_kinds)
        return kinds

    @classmethod
    def _body_qdd_from_step(cls) -> bool:
        return cls._cfg.body_qdd_source == "step_average"

    @classmethod
    def _setup_observables(cls) -> None:
        """Create pending sensors, allocate the union of observables once, and wire sensor updates."""
        for record in (*cls._imu_sensors, *cls._contact_sensors.values(), *cls._frame_transform_sensors):
            cls._create_sensor(record)
            if record.sensor is None:
                raise RuntimeError(f"{cls.__name__}: {record.name} could not be created")
        by_sensor = cls._sensor_kinds()
        union = frozenset().union(*by_sensor.values()) if by_sensor else frozenset()
        step_average = StepAverageObservables(cls._model) if BODY_QDD in union and cls._body_qdd_from_step() else None
        solver_kinds = union - ({BODY_QDD} if step_average is not None else set())
        full = cls._allocate_observables(solver_kinds, by_sensor) if solver_kinds else None
        per_substep = full.select(solver_kinds & PER_SUBSTEP_KINDS) if full is not None else None
        if per_substep is not None and not per_substep.kinds:
            per_substep = None
        cls._set(
            _obs_full=full,
            _obs_per_substep=per_substep,
            _step_average=step_average,
            _observables_allocations=cls._observables_allocations + (1 if (full or step_average) else 0),
        )
        imu_source = step_average if step_average is not None else full
        for record in cls._imu_sensors:
            record.update_args = {"observables": imu_source}
        for record in cls._contact_sensors.values():
            record.update_args = cls._contact_update_args(record, full)

    @classmethod
    def _unsupported_error(cls, kind: str, sensors: list[str], detail: str) -> ObservablesUnsupportedError:
        hint = (
            "BODY_QDD needs MuJoCo-Warp (MJWarpSolverCfg) or Kamino entries, or NewtonCfg.body_qdd_source="
            "'step_average' (accelerations measured from the step's velocities)"
            if kind == BODY_QDD
            else "CONTACT_F needs MuJoCo, XPBD, VBD, Kamino or Steel"
            if kind == CONTACT_F
            else "choose solvers that list it in supported_observables"
        )
        return ObservablesUnsupportedError(
            f"{cls.__name__}: sensor(s) {sensors} need the solver observable {kind!r}, but {detail}. {hint}."
        )

    @classmethod
    def _allocate_observables(cls, kinds: frozenset[str], by_sensor: dict[str, frozenset[str]]):
        """Check *kinds* against the solver and allocate its container (single-solver managers)."""
        supported = cls._solver.supported_observables
        for kind in sorted(kinds - supported):
            users = [name for name, ks in by_sensor.items() if kind in ks]
            raise cls._unsupported_error(kind, users, f"{type(cls._solver).__name__} supports only {sorted(supported)}")
        contacts = cls._contacts if CONTACT_F in kinds else None
        if CONTACT_F in kinds and contacts is None:
            raise cls._unsupported_error(
                CONTACT_F,
                [n for n, k in by_sensor.items() if CONTACT_F in k],
                "the simulation has no collision pipeline contacts",
            )
        return cls._solver.observables(kinds, contacts=contacts)

    @classmethod
    def _contact_update_args(cls, record: SensorRecord, full) -> dict[str, Any]:
        return {"state": cls._state_0, "contacts": cls._contacts, "observables": full}
