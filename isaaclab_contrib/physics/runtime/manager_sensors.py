"""Site and sensor methods of the Newton manager front (mixed into ``NewtonManager``).

They register one request per sensor (a class of :mod:`isaaclab_contrib.physics.sensors`) on the
active session (:class:`~.session.ManagerSession`); the simulation instance creates the Newton sensors, unions their observable kinds with legacy
``request_extended_*`` requests and the kinds of ``request_observables()``, allocates ONE
observables container before capture (``get_observables()``), forwards the legacy extended
attributes to the states and contacts, and runs the sensor updates as the last stage of the step
program (see :mod:`.simulation_instance`). The
only thing this mixin needs from the class it is mixed into is :meth:`SensorMethods._active`.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import warp as wp

from isaaclab_contrib.physics.sensors.base import SensorRequest
from isaaclab_contrib.physics.sensors.camera import DATA_TYPES, CameraData, CameraRequest
from isaaclab_contrib.physics.sensors.contact import ContactRequest, ContactSensorKey, contact_sensor_key
from isaaclab_contrib.physics.sensors.frame_transform import FrameTransformRequest
from isaaclab_contrib.physics.sensors.imu import ImuRequest
from isaaclab_contrib.physics.sensors.observables import (
    COUPLED_MODEL_WIDE_KINDS,
    legacy_contact_kind,
    legacy_state_kind,
    normalize_observable_kinds,
)
from isaaclab_contrib.utils.labels import check_regex, compile_patterns
from isaaclab_contrib.utils.validation import check_rotation

if TYPE_CHECKING:
    from isaaclab_contrib.physics.runtime.session import ManagerSession

__all__ = ["SensorMethods"]

logger = logging.getLogger(__name__)

XFORM_ROTATION_TOLERANCE = 1.0e-4
"""How far from 1 the norm of a site's or camera's quaternion may be (float32 ``wp.transform`` rounding)."""


def _check_xform(xform: Any, where: str) -> tuple[float, ...]:
    """The 7 numbers ``(px, py, pz, qx, qy, qz, qw)`` of a transform (``wp.transform`` or a sequence): finite,
    with a unit quaternion (:func:`~isaaclab_contrib.utils.validation.check_rotation`)."""
    try:
        values = tuple(float(v) for v in xform)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{where}: xform must be a wp.transform (position, quaternion xyzw), got {xform!r}") from err
    if len(values) != 7 or not all(math.isfinite(v) for v in values):
        raise ValueError(f"{where}: xform must be 7 finite numbers (position, quaternion xyzw), got {values}")
    check_rotation(values[3:], f"{where}: xform rotation", tolerance=XFORM_ROTATION_TOLERANCE)
    return values


class SensorMethods:
    """Sensor and site class methods of the manager front."""

    @classmethod
    def _active(cls) -> ManagerSession:
        """The active session (provided by the manager front)."""
        raise NotImplementedError

    @classmethod
    def _current_session(cls) -> ManagerSession | None:
        """The active session, or ``None`` (provided by the manager front)."""
        raise NotImplementedError

    @classmethod
    def cl_register_site(cls, body_pattern: str | None, xform: Any, *, per_world: bool = False) -> str:
        """Request a site, injected into the model before finalization (sensors call this while authoring).

        Args:
            body_pattern: Regex matched (full match) against full body labels, or against their tail
                after a ``/`` (so prototype-local patterns such as ``"Robot/link.*"`` work too): one site
                on every matching body. ``None``: a bodyless site.
            xform: Site transform relative to the body, or to the world frame for a bodyless site
                (``wp.transform``) [m, quaternion].
            per_world: One bodyless site in each env's frame (*body_pattern* must be ``None``). Kitless,
                the replication step is :func:`isaaclab_contrib.scenes.replicate_envs`: register the site
                before the scene is built, and :func:`~isaaclab_contrib.scenes.launch` passes it
                (:meth:`cl_world_sites`) to the replication, which adds it to the prototype so every env gets a
                copy, labelled ``"/World/envs/env_{i}/{suffix}"``. ``sim.reset()`` checks that every world got
                one.

        Returns:
            The site label suffix: sites are labelled ``"{body_label}/{suffix}"``, ``"{env}/{suffix}"``
            (per world) or ``suffix`` (one global site). Identical requests share one suffix.
        """
        session = cls._active()
        session.refuse_while_recording("cl_register_site()")
        session.require(session.instance is None, "cl_register_site must be called before start_simulation()")
        if per_world and body_pattern is not None:
            raise ValueError(f"{cls.__name__}.cl_register_site: per_world=True needs body_pattern=None")
        if body_pattern is not None:
            check_regex(body_pattern, f"{cls.__name__}.cl_register_site: body_pattern")
        values = _check_xform(xform, f"{cls.__name__}.cl_register_site")
        key = (body_pattern, bool(per_world), values)
        if key not in session.site_requests:
            session.site_requests[key] = f"site_{len(session.site_requests)}"
        return session.site_requests[key]

    @classmethod
    def cl_world_sites(cls) -> list[tuple[tuple[float, ...], str]]:
        """The per-world site requests (``cl_register_site(per_world=True)``) as ``(xform, label suffix)``, in
        the order they were made: what the env replication adds to every env
        (:func:`isaaclab_contrib.scenes.replicate_envs`, to which :func:`~isaaclab_contrib.scenes.launch` passes
        them). Empty without an active simulation."""
        session = cls._current_session()
        if session is None:
            return []
        return [
            (xform, suffix)
            for (pattern, per_world, xform), suffix in session.site_requests.items()
            if per_world and pattern is None
        ]

    @classmethod
    def request_extended_state_attribute(cls, attr: str) -> None:
        """Request an extended state attribute (deprecated in Newton 1.7; warns ``DeprecationWarning``).

        Args:
            attr: A name of ``newton.State.EXTENDED_ATTRIBUTES``: ``"body_qdd"``, ``"body_parent_f"`` or
                ``"mujoco:qfrc_actuator"``. Other names raise a ``ValueError`` listing these.

        Call it before ``sim.reset()`` (a later call raises). The request is forwarded to the builder
        before finalization, so ``get_state_0()``, ``get_state_1()`` and every ``model.state()`` allocate
        the attribute. It is also mapped to the solver observable kind that replaces it
        (``body_qdd``, ``body_parent_f``, ``qfrc_actuator``), which joins the observables union, so the
        solver must be able to produce it (``sim.reset()`` raises otherwise) and the value can be read
        from :meth:`get_observables`.

        Which solvers fill the state attribute: a standalone solver that produces the kind writes it into
        its output state on every substep (MuJoCo-Warp: all three; Kamino: ``body_qdd``; Steel, XPBD,
        Featherstone: ``body_parent_f``). On a coupled scene only ``body_qdd`` / ``body_parent_f`` map
        to the union (Newton's coupled solver gathers them into the observables when every entry that
        owns bodies produces them), and the coupled solver does not write them into the parent state: the
        state attribute is allocated but stays zero; read :meth:`get_observables` instead.
        ``mujoco:qfrc_actuator`` on a coupled scene is only allocated.
        """
        kind = legacy_state_kind(attr)
        cls._add_legacy_request("legacy_state_attributes", attr, kind)

    @classmethod
    def request_extended_contact_attribute(cls, attr: str) -> None:
        """Request an extended contact attribute (deprecated in Newton 1.7; warns ``DeprecationWarning``).

        Args:
            attr: A name of ``newton.Contacts.EXTENDED_ATTRIBUTES`` (``"force"``); others raise a ``ValueError``.

        Call it before ``sim.reset()`` (a later call raises). The request is forwarded to the builder
        before finalization, so the collision pipeline's contacts (:meth:`get_contacts`) have
        ``Contacts.force`` (``rigid_contact_max + soft_contact_max`` spatial forces).

        With a standalone solver it is also mapped to ``contact_f``, which joins the observables union
        (the solver must produce contact forces and consume pipeline contacts, or ``sim.reset()``
        raises); MuJoCo-Warp, XPBD and Kamino copy their ``contact_f`` into ``Contacts.force`` on the
        last substep of each physics step, other solvers leave it zero (read :meth:`get_observables`).
        On a coupled scene there are no model-wide contact forces (entries solve filtered contact
        buffers), so ``contact_f`` is not required: ``Contacts.force`` is allocated on the parent
        contacts (and Newton's coupled solver mirrors it on every entry's filtered buffer) but not
        filled: the coupled solver gathers no contact rows into the parent buffer and re-filters
        (zeroes) the entry buffers on every entry step. Use :meth:`add_contact_sensor` for contact
        forces on coupled scenes (it reads the owning entry solver's ``contact_f``).
        """
        kind = legacy_contact_kind(attr)
        cls._add_legacy_request("legacy_contact_attributes", attr, kind)

    @classmethod
    def _add_legacy_request(cls, slot: str, attr: str, kind: str | None) -> None:
        """Record a legacy attribute and, where the simulation can produce it model-wide, its kind."""
        session = cls._active()
        session.refuse_while_recording(f"request_extended_*({attr!r})")
        session.require(
            session.instance is None,
            f"request_extended_*({attr!r}) must be called before sim.reset(): the attribute is requested on the "
            "builder and allocated when the model is finalized (sensors request it while the scene is authored)",
        )
        if session.binding.solver_cfgs(session.solver_cfg) != [session.solver_cfg] and (
            kind not in COUPLED_MODEL_WIDE_KINDS
        ):
            kind = None  # not available model-wide on a coupled scene: forward the attribute only
        getattr(session, slot).add(attr)
        if kind is not None:
            session.legacy_kinds.add(kind)

    @classmethod
    def request_observables(cls, kinds: str | Iterable[str]) -> None:
        """Request solver observable kinds, read through :meth:`get_observables` (one container for everything).

        Args:
            kinds: A kind or kinds Newton's solvers declare (``SolverBase.ObservableKind`` and the solvers'
                own: ``"body_qdd"``, ``"body_parent_f"``, ``"contact_f"``, MuJoCo's ``"qfrc_actuator"``,
                ``"qfrc_bias"``, ``"qfrc_constraint"``, ``"qfrc_frictionloss"``, ``"overflow"``, Steel's
                ``"body_awake"``...). Unknown strings raise a ``ValueError`` naming the valid ones.

        The kinds join the union the manager allocates once (with the sensors' kinds) before the step
        is captured; :meth:`get_observables` returns the container and its arrays
        (``get_observables().qfrc_bias``...) are filled on the last solver substep of each physics step
        (``body_qdd`` on every substep), inside the captured graph. Called before ``sim.reset()`` the
        kinds are checked there; called after it, the container is allocated again and the step
        re-captured at once (like a late sensor): read the arrays from the new container.

        The running solver must list every kind in its ``supported_observables`` (contact kinds also
        need pipeline contacts). A coupled solver exposes only ``body_qdd`` / ``body_parent_f``, when
        every entry that owns bodies produces them. Otherwise ``sim.reset()`` (or this call, after
        reset) raises an :class:`~.sensors.ObservablesUnsupportedError` (a ``ValueError``) naming the
        kinds, the solver (or entries) and what they support, and nothing stays requested.
        """
        session = cls._active()
        session.refuse_while_recording("request_observables()")
        wanted = normalize_observable_kinds(kinds, f"{cls.__name__}.request_observables")
        new = wanted - session.observable_requests
        if not new:
            return
        session.observable_requests |= new
        try:
            cls._sensors_changed(f"request_observables({sorted(new)})")
        except BaseException:
            session.observable_requests -= new
            raise

    @classmethod
    def get_requested_observables(cls) -> frozenset[str]:
        """The kinds requested with :meth:`request_observables` in this session."""
        return frozenset(cls._active().observable_requests)

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
            check_regex(sites, f"{cls.__name__}.add_imu_sensor: sites")
        elif not isinstance(sites, (list, tuple)) or not sites:
            raise TypeError(f"{cls.__name__}.add_imu_sensor: sites must be a regex or a non-empty list of site indices")
        index = len(session.sensors_of(ImuRequest.kind))
        cls._add_sensor((ImuRequest.kind, index), ImuRequest(index, sites))
        return index

    @classmethod
    def add_contact_sensor(
        cls,
        body_names_expr: str | list[str] | None = None,
        shape_names_expr: str | list[str] | None = None,
        contact_partners_body_expr: str | list[str] | None = None,
        contact_partners_shape_expr: str | list[str] | None = None,
        verbose: bool = False,
    ) -> ContactSensorKey:
        """Add a ``newton.sensors.SensorContact`` for bodies or shapes; returns its key.

        Expressions are Isaac Lab regexes (``.*``, full USD paths) matched in full against labels;
        they are compiled (a list becomes an alternation) rather than turned into globs.

        Returns:
            The key of :meth:`get_contact_sensor` and :meth:`contact_total_force`: the tuple of the four
            expressions as given, ``(body_names_expr, shape_names_expr, contact_partners_body_expr,
            contact_partners_shape_expr)``, with lists turned into tuples so the key is hashable. Adding
            a sensor with the same expressions returns the same key (one sensor). Needs ``contact_f``.
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
                patterns.append(compile_patterns(expr))
            except (TypeError, re.error) as err:
                raise ValueError(f"{cls.__name__}.add_contact_sensor: {field_name}={expr!r} is invalid: {err}") from err
        key = contact_sensor_key(exprs)
        if (ContactRequest.kind, key) in session.sensors:
            return key
        name = f"contact[{body_names_expr or shape_names_expr!r}]"
        cls._add_sensor((ContactRequest.kind, key), ContactRequest(name, tuple(patterns), verbose))
        return key

    @classmethod
    def add_frame_transform_sensor(cls, shapes: list[int], reference_sites: list[int]) -> int:
        """Add a ``newton.sensors.SensorFrameTransform`` (shape poses relative to reference sites); returns its index."""
        if len(shapes) != len(reference_sites):
            raise ValueError("add_frame_transform_sensor: shapes and reference_sites must have the same length")
        session = cls._active()
        index = len(session.sensors_of(FrameTransformRequest.kind))
        cls._add_sensor((FrameTransformRequest.kind, index), FrameTransformRequest(index, shapes, reference_sites))
        return index

    @classmethod
    def add_camera_sensor(
        cls,
        width: int,
        height: int,
        *,
        xform: Any,
        body_pattern: str | None = None,
        fov: float = math.radians(60.0),
        data_types: Iterable[str] = ("rgb", "depth"),
        env_index: int | None = None,
    ) -> int:
        """Add a ray-traced pinhole camera (Newton's ``SensorCamera``), one view per env; returns its index.

        Args:
            width: Image width [pixels], 1 to 4096.
            height: Image height [pixels], 1 to 4096.
            xform: Camera pose (``wp.transform``; the camera looks along its local ``-Z``, ``+Y`` up;
                see :func:`~isaaclab_contrib.physics.sensors.camera.look_at`) in each env's frame, or
                relative to the body when *body_pattern* is given [m, quaternion xyzw].
            body_pattern: Regex of the body the camera rides on (a wrist camera), matching one body in
                every env (full label, or a path ending it); ``None``: fixed in each env's frame.
            fov: Vertical field of view [rad], in (0, pi).
            data_types: Images to render: any of ``"rgb"``, ``"depth"``, ``"segmentation"``, ``"normals"``.
            env_index: ``None``: one view per env. An env index: a single view of that env, *xform* in world
                coordinates (a global site; may be added after the envs were replicated, e.g. to frame env 0
                for a video).

        The camera sits at a site (:meth:`cl_register_site`), so add it before ``sim.reset()``, and a
        camera fixed in the env frame before the scene is built (the replication adds its site to every env:
        :meth:`cl_world_sites`, :func:`isaaclab_contrib.scenes.replicate_envs`). The images render after the decimation loop of
        every ``step()``, inside the captured graph; read them from :meth:`get_camera_sensor`.

        Raises:
            TypeError / ValueError: A bad argument, naming it; nothing is registered.
        """
        where = f"{cls.__name__}.add_camera_sensor"
        for name, value in (("width", width), ("height", height)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{where}: {name} must be an integer number of pixels, got {value!r}")
            if not 1 <= value <= 4096:
                raise ValueError(f"{where}: {name} must be in [1, 4096] pixels, got {value}")
        if isinstance(fov, bool) or not isinstance(fov, (int, float)) or not (0.0 < float(fov) < math.pi):
            raise ValueError(f"{where}: fov must be a number of radians in (0, pi), got {fov!r}")
        kinds = (data_types,) if isinstance(data_types, str) else tuple(data_types)
        unknown = [k for k in kinds if k not in DATA_TYPES]
        if not kinds or unknown or len(set(kinds)) != len(kinds):
            raise ValueError(f"{where}: data_types must be distinct names from {list(DATA_TYPES)}, got {kinds!r}")
        if env_index is not None:
            if isinstance(env_index, bool) or not isinstance(env_index, int) or env_index < 0:
                raise ValueError(f"{where}: env_index must be None or a non-negative integer, got {env_index!r}")
            if body_pattern is not None:
                raise ValueError(f"{where}: a single-env camera (env_index) cannot ride a body; give one or the other")
        _check_xform(xform, where)
        session = cls._active()
        site = cls.cl_register_site(body_pattern, xform, per_world=body_pattern is None and env_index is None)
        index = len(session.sensors_of(CameraRequest.kind))
        request = CameraRequest(index, site, width, height, float(fov), kinds, world=env_index)
        cls._add_sensor((CameraRequest.kind, index), request)
        return index

    @classmethod
    def get_camera_sensor(cls, index: int) -> CameraData | None:
        """The images of camera *index* (``.rgb``, ``.depth``, ``.segmentation``, ``.normals`` as zero-copy torch
        tensors ``(num_envs, height, width, C)``, ``.camera_transforms``, ``.intrinsics``); ``None`` before reset."""
        return cls._sensor(CameraRequest.kind, index, "camera")

    @classmethod
    def _sensor(cls, kind: str, key: Any, what: str):
        """The Newton sensor of request ``(kind, key)`` on the running build; ``None`` before ``sim.reset()``."""
        session = cls._active()
        try:
            request = session.sensors[(kind, key)]
        except (KeyError, TypeError):
            raise KeyError(f"{cls.__name__}: no {what} sensor {key!r}") from None
        instance = session.instance
        if instance is None or instance.part is None:
            return None
        runtime = instance.part.sensors.get(id(request))
        return runtime.sensor if runtime else None

    @classmethod
    def get_imu_sensor(cls, index: int):
        """The Newton ``SensorIMU`` (outputs ``accelerometer`` [m/s^2], ``gyroscope`` [rad/s]); ``None`` before reset."""
        return cls._sensor(ImuRequest.kind, index, "IMU")

    @classmethod
    def get_contact_sensor(cls, key: ContactSensorKey):
        """The Newton ``SensorContact`` for the key returned by :meth:`add_contact_sensor` (the four expressions;
        lists may be given as lists); ``None`` before reset."""
        if isinstance(key, (tuple, list)):
            key = contact_sensor_key(tuple(key))
        return cls._sensor(ContactRequest.kind, key, "contact")

    @classmethod
    def get_frame_transform_sensor(cls, index: int):
        """The Newton ``SensorFrameTransform``; ``None`` before reset."""
        return cls._sensor(FrameTransformRequest.kind, index, "frame-transform")

    @classmethod
    def imu_accelerometer(cls, index: int):
        """Zero-copy torch view of an IMU's specific force [m/s^2], shape ``(n_sites, 3)``."""
        sensor = cls.get_imu_sensor(index)
        cls._active().require(sensor is not None, "imu_accelerometer() needs sim.reset() first")
        return wp.to_torch(sensor.accelerometer)

    @classmethod
    def contact_total_force(cls, key: ContactSensorKey):
        """Zero-copy torch view of a contact sensor's total force per sensing object [N], shape ``(n, 3)``."""
        sensor = cls.get_contact_sensor(key)
        cls._active().require(sensor is not None, "contact_total_force() needs sim.reset() first")
        return wp.to_torch(sensor.total_force)

    @classmethod
    def observables_allocations(cls) -> int:
        """How many times an observables container was allocated for the running simulation."""
        instance = cls._active().instance
        return instance.observables_allocations if instance is not None else 0

    @classmethod
    def _add_sensor(cls, key: tuple[str, Any], request: SensorRequest) -> None:
        """Register *request* under *key*; after ``sim.reset()`` re-create the sensors (undone on failure)."""
        session = cls._active()
        session.refuse_while_recording(f"add_*_sensor() ({request.name})")
        session.sensors[key] = request
        try:
            cls._sensors_changed(request.name)
        except BaseException:
            del session.sensors[key]
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
        with session.recording_requests():
            instance.refresh_sensors(session.snapshot())
