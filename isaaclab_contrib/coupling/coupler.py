"""``NewtonCouplerManager``: the Newton manager for a coupled simulation of named solver entries."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from isaaclab_contrib.physics.runtime.newton_vbd_manager import NewtonVBDManager
from isaaclab_contrib.utils.labels import check_regex

from .binding import BoundCoupledSolver  # importing it registers the coupled solver binding
from .coupler_cfg import CouplerAdmmCfg, CouplerProxyCfg
from .coupler_internals import check_entry_pair
from .coupling_diagnostics import CouplingDiagnosticsRequest
from .interface_force import InterfaceForceRequest, InterfaceForceSensor
from .ownership import CouplingPlan
from .penetration import PenetrationRequest, PenetrationSensor

if TYPE_CHECKING:
    from isaaclab_contrib.physics.simulation_context import SimulationContext

__all__ = ["NewtonCouplerManager"]


class NewtonCouplerManager(NewtonVBDManager):
    """Couple named Newton solver entries through proxy or ADMM interfaces.

    The simulation's ``solver_cfg`` is a :class:`CouplerAdmmCfg` or :class:`CouplerProxyCfg`.
    ``sim.reset()`` resolves entry ownership over the finalized model, builds the coupled solver
    (see :func:`~isaaclab_contrib.coupling.build_coupled_solver`), allocates the collision pipeline
    when an entry consumes pipeline contacts, prepares every entry's filtered contact buffer before
    the warm-up and graph capture, and then runs the same step program as :class:`NewtonManager`.
    All of that lives in the coupled solver binding (:mod:`isaaclab_contrib.coupling.binding`), so
    ``NewtonManager``'s class methods behave the same while a coupled simulation is active.
    """

    @classmethod
    def initialize(cls, sim_context: SimulationContext) -> None:
        """Bind to *sim_context*; its ``solver_cfg`` must be a coupler config (the context validated it)."""
        solver_cfg = sim_context.cfg.physics.solver_cfg
        if not isinstance(solver_cfg, (CouplerAdmmCfg, CouplerProxyCfg)):
            raise TypeError(
                f"NewtonCouplerManager needs NewtonCfg.solver_cfg to be a CouplerAdmmCfg or CouplerProxyCfg, got "
                f"{type(solver_cfg).__name__}"
            )
        super().initialize(sim_context)

    @classmethod
    def get_coupling_plan(cls) -> CouplingPlan | None:
        """The resolved ownership of the running simulation (entries, proxies, contact pairs), or ``None``."""
        part = cls._maybe_part()
        bound = part.bound if part else None
        return bound.plan if isinstance(bound, BoundCoupledSolver) else None

    @classmethod
    def entry_names(cls) -> tuple[str, ...]:
        """Entry names in stepping order."""
        return tuple(cls._active().solver_cfg.entry_names())

    # ------------------------------------------------------------------ the coupler's own sensors
    @classmethod
    def _coupler_cfg(cls, what: str) -> CouplerAdmmCfg | CouplerProxyCfg:
        cfg = cls._active().solver_cfg
        if not isinstance(cfg, (CouplerAdmmCfg, CouplerProxyCfg)):
            raise TypeError(
                f"{what} needs a coupled simulation (NewtonCfg.solver_cfg a CouplerAdmmCfg or CouplerProxyCfg), "
                f"got {type(cfg).__name__}"
            )
        return cfg

    @classmethod
    def _entry_pair(cls, entry: Any, partner: Any, what: str) -> tuple[str, str]:
        cfg = cls._coupler_cfg(what)
        check_entry_pair(cfg.entry_names(), type(cfg).__name__, entry, partner, what)
        return entry, partner

    @staticmethod
    def _body_patterns(bodies: Any, what: str) -> tuple[str, ...] | None:
        if bodies is None:
            return None
        patterns = [bodies] if isinstance(bodies, str) else bodies
        if not isinstance(patterns, Sequence) or isinstance(patterns, (bytes, bytearray)) or not patterns:
            raise TypeError(f"{what}: bodies must be None, a label regex or a non-empty list of them, got {bodies!r}")
        for i, pattern in enumerate(patterns):
            check_regex(pattern, f"{what}: bodies[{i}]")
        return tuple(patterns)

    @staticmethod
    def _particle_ids(particles: Any, what: str) -> tuple[int, ...] | None:
        if particles is None:
            return None
        if isinstance(particles, (str, bytes)) or not isinstance(particles, Sequence) or not particles:
            raise TypeError(
                f"{what}: particles must be None or a non-empty list of particle indices, got {particles!r}"
            )
        for i, index in enumerate(particles):
            if not isinstance(index, numbers.Integral) or isinstance(index, bool):
                raise TypeError(f"{what}: particles[{i}] must be an integer index, got {type(index).__name__}")
            if index < 0:
                raise ValueError(f"{what}: particles[{i}]={index} must be >= 0")
        if len(set(particles)) != len(particles):
            raise ValueError(f"{what}: particles lists an index more than once")
        return tuple(int(i) for i in particles)

    @classmethod
    def add_interface_force_sensor(
        cls,
        entry: str,
        partner: str,
        bodies: str | list[str] | None = None,
        particles: list[int] | None = None,
    ) -> int:
        """Sense the coupling wrench on bodies (and force on particles) of *entry* from *partner*; returns its index.

        Args:
            entry: Entry the forces act on.
            partner: Entry they come from.
            bodies: Label regexes of bodies of *entry* (a path selects everything below it); ``None``: every body
                of *entry* the coupling with *partner* can act on.
            particles: Model particle indices of *entry*; ``None``: every particle of *entry* the coupling with
                *partner* can act on.

        ``get_interface_force_sensor(index).wrench`` is a zero-copy torch tensor ``(num_envs, num_bodies, 6)``:
        world-frame force [N], then torque [N*m] about each body's origin, of the wrench *on* the bodies from
        *partner*, averaged over the coupled steps of the last env step (every physics step and substep);
        ``.particles`` is ``(num_envs, num_particles, 3)`` [N]. ADMM coupling reads the contact and attachment
        duals (``W * lambda`` of every row between the two entries: rigid-particle, rigid-rigid and
        particle-particle contacts, body-particle attachments, cross-entry joints); proxy coupling reads the
        feedback wrenches Newton harvests for the bodies and particles of *entry* mirrored into *partner*
        (the force on a mapping's destination is not harvested per element: sense the source instead).

        Add it before ``sim.reset()``; added later, the sensors are re-created and the step re-captured.
        The same arguments again return the same index. Unknown entries, entries that do not interact, and
        bodies or particles *entry* does not own raise a ``ValueError`` naming them (at ``sim.reset()`` for
        what needs the built solver); nothing stays registered after a failure.
        """
        what = f"{cls.__name__}.add_interface_force_sensor"
        entry, partner = cls._entry_pair(entry, partner, what)
        patterns, ids = cls._body_patterns(bodies, what), cls._particle_ids(particles, what)
        session = cls._active()
        for (kind, index), request in session.sensors.items():
            if kind == InterfaceForceRequest.kind and request.same_as(entry, partner, patterns, ids):
                return index
        index = len(session.sensors_of(InterfaceForceRequest.kind))
        cls._add_sensor(
            (InterfaceForceRequest.kind, index), InterfaceForceRequest(index, entry, partner, patterns, ids)
        )
        return index

    @classmethod
    def get_interface_force_sensor(cls, index: int) -> InterfaceForceSensor | None:
        """The interface-force sensor *index* (``.wrench``, ``.particles``, ``.body_ids``...); ``None`` before reset."""
        return cls._sensor(InterfaceForceRequest.kind, index, "interface-force")

    @classmethod
    def add_penetration_sensor(cls, entry: str, partner: str, bodies: str | list[str] | None = None) -> int:
        """Sense, per env, how deep the particles of one entry sink into the rigid shapes of the other; returns its index.

        Args:
            entry: One entry: the one owning the particles, or the one owning the rigid bodies (when each of the two
                could be either, *entry* is the particle side).
            partner: The other entry.
            bodies: Label regexes of bodies of the rigid side whose collision shapes count; ``None``: every body
                shape of the rigid side that collides with particles.

        ``get_penetration_sensor(index)`` has zero-copy torch tensors, measured on the state at the end of every
        env step inside the captured step: ``max_depth`` ``(num_envs,)`` [m], the deepest overlap
        ``radius - distance`` of a particle's contact sphere with a shape; ``total_depth`` [m], their sum;
        ``penetrating``, ``inside`` (center inside a shape) and ``tunnelled`` (center inside, or moved through a
        shape during the env step) particle counts; ``depth`` ``(num_envs, num_particles)`` [m]. Box, sphere,
        capsule, cylinder, mesh and convex-mesh shapes are measured (others are refused, naming them).

        Add it before ``sim.reset()``; later, the step is re-captured. The same arguments return the same index.
        """
        what = f"{cls.__name__}.add_penetration_sensor"
        entry, partner = cls._entry_pair(entry, partner, what)
        patterns = cls._body_patterns(bodies, what)
        session = cls._active()
        for (kind, index), request in session.sensors.items():
            if kind == PenetrationRequest.kind and request.same_as(entry, partner, patterns):
                return index
        index = len(session.sensors_of(PenetrationRequest.kind))
        cls._add_sensor((PenetrationRequest.kind, index), PenetrationRequest(index, entry, partner, patterns))
        return index

    @classmethod
    def get_penetration_sensor(cls, index: int) -> PenetrationSensor | None:
        """The penetration sensor *index* (``.max_depth``, ``.total_depth``, ``.tunnelled``...); ``None`` before reset."""
        return cls._sensor(PenetrationRequest.kind, index, "penetration")

    @classmethod
    def request_coupling_diagnostics(cls) -> None:
        """Compute the coupling diagnostics inside every step (see :meth:`get_coupling_diagnostics`); idempotent.

        Call it before ``sim.reset()``; called later, the sensors are re-created and the step re-captured.
        """
        cls._coupler_cfg(f"{cls.__name__}.request_coupling_diagnostics")
        session = cls._active()
        key = (CouplingDiagnosticsRequest.kind, 0)
        if key not in session.sensors:
            cls._add_sensor(key, CouplingDiagnosticsRequest())

    @classmethod
    def get_coupling_diagnostics(cls) -> dict[str, Any] | None:
        """Per-env convergence of the coupling in the last env step, as zero-copy torch tensors ``(num_envs,)``.

        Requests the diagnostics when they were not (:meth:`request_coupling_diagnostics`): before ``sim.reset()``
        this returns ``None`` and the first capture includes them; after it, the step is re-captured now.

        Keys (every coupled step runs the config's fixed iteration budget; residuals are relative to the env's
        interface force, floored at 1e-6 N):

        - ``"residual"``: the relative residual of the last iteration of the env step's last coupled step;
          ``"residual_max"``: the largest over the env step's coupled steps;
        - ``"converged"`` (bool): ``residual_max <= CouplerCfg.convergence_tolerance``;
        - ``"iterations"`` (int32): iterations run per coupled step; ``"iterations_to_tolerance"`` (int32): the
          first iteration of the last coupled step whose residual was within tolerance (1-based; -1: none);
        - ``"residual_history"`` ``(num_envs, iterations)``: the residual after each iteration of the last
          coupled step;
        - ADMM: ``"primal_residual"`` [N] (``rho W^2 |u - Jv|`` over the rows, the change of the interface force at
          the last dual update), ``"dual_residual"`` [N] (``rho W^2 |u_k - u_(k-1)|``), ``"interface_force"`` [N]
          (``|W lambda|``); proxy: ``"feedback_change"`` [N, N*m] (harvested feedback minus the feedback the pass
          applied), ``"feedback"``, and ``"aitken_relaxation"`` with Aitken relaxation.
        """
        cls.request_coupling_diagnostics()
        sensor = cls._sensor(CouplingDiagnosticsRequest.kind, 0, "coupling diagnostics")
        return dict(sensor.tensors) if sensor is not None else None
