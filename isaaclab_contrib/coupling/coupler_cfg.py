"""Configurations of the Newton couplers: named solver entries and their coupling interfaces.

These classes are pure data. :func:`~isaaclab_contrib.coupling.resolve_entries` turns them into
index lists over a finalized ``newton.Model`` and :func:`~isaaclab_contrib.coupling.build_coupled_solver`
into Newton's ``SolverCoupledADMM`` / ``SolverCoupledProxy``. ``validate()`` checks everything that
does not need a model, the entries' solver configs included; errors name the config class, the entry
and the field. Numeric fields are checked from their annotation and the range declared in the
class's ``_ranges`` (:mod:`isaaclab_contrib.utils.validation`).
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal

from isaaclab_contrib.physics.collision_cfg import NewtonCollisionPipelineCfg
from isaaclab_contrib.physics.model_cfg import NewtonModelCfg
from isaaclab_contrib.physics.solvers.base import NewtonModelSolverCfg, NewtonSolverCfg
from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.labels import check_regex, check_regex_list
from isaaclab_contrib.utils.validation import check_fields, nested

__all__ = [
    "HIDEABLE_ELEMENTS",
    "CouplerAdmmCfg",
    "CouplerCfg",
    "CouplerEntryCfg",
    "CouplerProxyCfg",
    "CouplerProxyMappingCfg",
]

PROXY_MAX_ENTRIES = 2
"""Newton 1.8's proxy coupler couples at most this many entries."""

HideableElement = Literal["springs", "triangles", "edges", "tetrahedra"]
"""Names accepted by :attr:`CouplerEntryCfg.hide_elements`."""

HIDEABLE_ELEMENTS: dict[str, str] = {
    "springs": "spring_count",
    "triangles": "tri_count",
    "edges": "edge_count",
    "tetrahedra": "tet_count",
}
"""Element kinds an entry can hide from its solver, and the ``ModelView`` count set to zero for each."""


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_callable(value: Any, where: str, arguments: str, arity: int) -> None:
    """Check an optional hook: ``None`` or a callable that accepts *arity* positional arguments."""
    if value is None:
        return
    if not callable(value):
        raise TypeError(f"{where} must be a callable taking {arguments}, or None; got {type(value).__name__} {value!r}")
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):  # a builtin or extension callable without a signature: accept it
        return
    try:
        signature.bind(*([None] * arity))
    except TypeError as err:
        raise TypeError(
            f"{where}={_callable_name(value)} cannot be called with {arguments} ({arity} positional "
            f"argument{'s' if arity != 1 else ''}): {err}"
        ) from None


def _callable_name(value: Any) -> str:
    """A short readable name of a callable for messages and reports."""
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if name is None:
        return type(value).__name__ + " instance"
    module = getattr(value, "__module__", None)
    return f"{module}.{name}" if module and module not in ("builtins", "__main__") else name


def _check_index_list(value: Any, where: str) -> None:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{where} must be a list of integer indices, got {type(value).__name__}")
    for i, index in enumerate(value):
        if not _is_int(index):
            raise TypeError(f"{where}[{i}] must be an integer index, got {type(index).__name__}")
        if index < 0:
            raise ValueError(f"{where}[{i}]={index} must be >= 0")
    if len(set(value)) != len(value):
        raise ValueError(f"{where} lists an index more than once")


def _check_hide_elements(value: Any, where: str) -> None:
    if not isinstance(value, (list, tuple)):
        raise TypeError(
            f"{where} must be a list of element kinds ({', '.join(map(repr, HIDEABLE_ELEMENTS))}), "
            f"got {type(value).__name__}"
        )
    for i, name in enumerate(value):
        if not isinstance(name, str):
            raise TypeError(f"{where}[{i}] must be an element kind string, got {type(name).__name__} {name!r}")
        if name not in HIDEABLE_ELEMENTS:
            raise ValueError(
                f"{where}[{i}]={name!r} is not an element kind that can be hidden; "
                f"choose from {list(HIDEABLE_ELEMENTS)}"
            )
    if len(set(value)) != len(value):
        raise ValueError(f"{where} lists an element kind more than once: {list(value)!r}")


@configclass
class CouplerEntryCfg:
    """One named sub-solver and the part of the model it owns.

    Bodies are chosen by regexes matched against full Newton body labels; a match also takes
    every body below the matched path (``/World/envs/env_.*/Robot`` selects all robot links).
    Joints and shapes attached to the selected bodies follow by default; more shapes can be
    selected by label, and particles by index.
    """

    _ranges: ClassVar[dict[str, str]] = {"substeps": ">= 1", "gravity": "any"}

    name: str = MISSING
    """Unique entry name; coupling interfaces refer to the entry by it."""
    solver_cfg: NewtonSolverCfg = MISSING
    """Configuration of this entry's Newton solver (e.g. :class:`~isaaclab_contrib.physics.VBDSolverCfg`)."""
    bodies: list[str] = []
    """Regexes over full body labels; each selects the matching bodies and every body below them."""
    body_ids: list[int] = []
    """Global Newton body ids owned by this entry, for bodies without a meaningful label (Newton labels
    an unlabeled body ``body_N``). Each id selects that body only (no descendants); the entry owns the
    union of :attr:`bodies` and :attr:`body_ids`. Ids are checked against the model when resolved."""
    particles: list[int] = []
    """Parent-model particle indices owned by this entry."""
    all_particles: bool = False
    """Own every particle of the model (then :attr:`particles` must be empty)."""
    include_child_joints: bool = True
    """Own a joint when its child body is selected and its parent is the world or selected by this entry."""
    include_body_shapes: bool = True
    """Own the shapes attached to the selected bodies."""
    include_static_shapes: bool = False
    """Own every static shape (body index -1), such as the ground plane. Newton shows static shapes
    only to entries that own no shapes, so an entry with bodies needs this to collide with the ground."""
    shape_label_patterns: list[str] = []
    """Regexes matched (full match) against shape labels for additional shape ownership."""
    substeps: int = 1
    """Equal substeps this entry runs inside one coupled step [count]."""
    in_place: bool = False
    """Step in place (input and output state are the same buffer). Only for solvers whose stepping
    contract allows it, such as implicit MPM, which requires it."""
    gravity: tuple[float, float, float] | None = None
    """Gravity this entry's solver steps with [m/s^2], the same vector in every world, in place of the model's
    (``None``: the model's gravity). It replaces ``gravity`` on the entry's ``ModelView`` only, so the other
    entries and the model keep theirs. Newton's ``cloth_franka`` / ``softbody_franka`` step the robot with
    ``(0, 0, 0)`` while the deformable falls under the model's gravity. Any finite vector."""
    hide_elements: list[HideableElement] = []
    """Element kinds of the model this entry's solver does not see: ``"springs"``, ``"triangles"``,
    ``"edges"`` (bending), ``"tetrahedra"``. Their counts on the entry's ``ModelView`` are set to zero,
    so the solver neither solves their elasticity nor sees their topology. Typical use: the entry that
    receives another entry's particles as proxies hides that cloth's or soft body's elements, so it
    treats the proxies as contact-only instead of solving their elasticity a second time."""
    configure_view: Callable[[Any], None] | None = None
    """Escape hatch: ``configure_view(view)`` is called with the entry's ``ModelView`` after Newton
    compacted it and after :attr:`hide_elements` was applied, before the entry's solver is built
    (Newton's ``SolverCoupled.Entry.configure_view``). It may override view attributes; it must not
    keep the view beyond the call. An exception it raises is reported naming the entry."""
    post_build: Callable[[Any, Any], None] | None = None
    """``post_build(solver, view)`` is called once with this entry's built Newton solver and its
    ``ModelView`` after the whole coupled solver exists (on every build: ``sim.reset()``, a full
    ``reset(soft=False)``, :func:`~isaaclab_contrib.coupling.build_coupled_solver`), before the first
    step and before graph capture. Use it for setup a solver needs beyond its constructor, e.g.
    ``SolverImplicitMPM.setup_collider(..., model=view)``. An exception it raises is reported naming
    the entry."""

    def validate(self, owner: str = "CouplerEntryCfg") -> None:
        """Check the entry and its solver config without a model. *owner* prefixes error messages."""
        check_missing(self)
        where = owner
        if not isinstance(self.name, str):
            raise TypeError(f"{where}.name must be a string, got {type(self.name).__name__}")
        if not self.name.strip():
            raise ValueError(f"{where}.name must be a non-empty string")
        where = f"{owner}[{self.name!r}]"
        check_fields(self, where)
        solver_cfg = self.solver_cfg
        if isinstance(solver_cfg, CouplerCfg):
            raise TypeError(
                f"{where}.solver_cfg is a {type(solver_cfg).__name__}: couplers cannot be nested as an entry's "
                "solver. Give the entry a single-solver config (SteelSolverCfg, VBDSolverCfg, ...) and list the "
                "nested coupler's entries directly."
            )
        if not isinstance(solver_cfg, NewtonSolverCfg):
            raise TypeError(
                f"{where}.solver_cfg must be a NewtonSolverCfg subclass instance, got {type(solver_cfg).__name__}"
            )
        if not type(solver_cfg).solver_class_path:
            raise ValueError(
                f"{where}.solver_cfg: {type(solver_cfg).__name__} names no Newton solver and cannot be a coupled "
                "entry; use a concrete solver config such as SteelSolverCfg or VBDSolverCfg."
            )
        if type(solver_cfg).coupled_entry_support is not None:
            raise ValueError(
                f"{where}.solver_cfg: {type(solver_cfg).__name__} cannot be a coupled entry: "
                f"{type(solver_cfg).coupled_entry_support}"
            )
        with nested(f"{where}.solver_cfg"):
            solver_cfg.validate()
        check_regex_list(self.bodies, f"{where}.bodies")
        _check_index_list(self.body_ids, f"{where}.body_ids")
        _check_index_list(self.particles, f"{where}.particles")
        check_regex_list(self.shape_label_patterns, f"{where}.shape_label_patterns")
        _check_hide_elements(self.hide_elements, f"{where}.hide_elements")
        _check_callable(self.configure_view, f"{where}.configure_view", "the entry's ModelView", 1)
        _check_callable(self.post_build, f"{where}.post_build", "(entry solver, entry ModelView)", 2)
        if self.all_particles and self.particles:
            raise ValueError(f"{where}: set either all_particles=True or particles, not both")
        if getattr(solver_cfg, "integrate_with_external_rigid_solver", False) and (self.bodies or self.body_ids):
            raise ValueError(
                f"{where}: solver_cfg.integrate_with_external_rigid_solver=True, but the entry owns bodies "
                f"(bodies={list(self.bodies)!r}, body_ids={list(self.body_ids)!r}) that its solver would never "
                "move; give them to the driving entry and proxy them in with CouplerProxyMappingCfg(kinematic=True)"
            )
        if type(solver_cfg).requires_in_place and not self.in_place:
            raise ValueError(
                f"{where}.in_place must be True: {type(solver_cfg).__name__} steps input and output state in "
                "place (its stepping contract requires identical states)."
            )
        if self.in_place and not type(solver_cfg).supports_in_place:
            raise ValueError(
                f"{where}.in_place=True, but {type(solver_cfg).__name__} does not support stepping in place; "
                "leave in_place=False."
            )


@configclass
class CouplerCfg(NewtonModelSolverCfg):
    """Base configuration of a Newton experimental coupled solver.

    Each body, particle, joint and shape belongs to at most one entry; unassigned elements stay
    outside every nested solver. Use :class:`CouplerAdmmCfg` or :class:`CouplerProxyCfg`.

    :attr:`extra_solver_args` (inherited from the solver base config) must stay empty: the coupled
    solvers take no extra arguments; set them on an entry's ``solver_cfg`` instead.
    """

    _ranges: ClassVar[dict[str, str]] = {"convergence_tolerance": "> 0"}

    class_type: type | str = "isaaclab_contrib.coupling.coupler:NewtonCouplerManager"
    """Manager class that runs the coupled simulation, as a class or a ``"module:Class"`` string."""
    solver_type: str = "coupled"
    """Solver type metadata (deprecated): dispatch uses :attr:`class_type`; setting it warns."""
    model_cfg: NewtonModelCfg | None = None
    """Global Newton model parameters applied after builder finalization."""
    entries: list[CouplerEntryCfg] = []
    """Ordered named sub-solver entries and their ownership selectors."""
    update_joint_coordinates: bool = False
    """After every coupled step, recompute the joint coordinates and velocities of the output state
    from its body poses and velocities (``newton.eval_ik``). Reduced-coordinate entries (MuJoCo,
    Featherstone, Steel) read joint coordinates; set this when they must see bodies that a
    maximal-coordinate entry (VBD, XPBD) moves, such as ADMM joint-proximal bodies across a
    cross-entry joint. Newton's ADMM examples do this after every solver step."""
    post_build: Callable[[Any, Any], None] | None = None
    """``post_build(coupled_solver, model)`` is called once with the built Newton coupled solver and
    the full model, after every entry's :attr:`CouplerEntryCfg.post_build` (on every build, like
    those). An exception it raises is reported naming the coupler config."""
    convergence_tolerance: float = 0.1
    """Relative coupling residual under which a coupled step counts as converged [dimensionless], read by
    ``NewtonCouplerManager.get_coupling_diagnostics()`` (``"converged"``). ADMM: the larger of the primal and
    dual residuals [N] over the interface force [N] of the env; proxy: the change of the harvested feedback
    between passes over the feedback. It does not change the iterations run (a fixed budget)."""

    def validate(self) -> None:
        """Check everything that does not need a model; raise ``TypeError`` / ``ValueError``."""
        cls = type(self).__name__
        super().validate()
        _check_callable(self.post_build, f"{cls}.post_build", "(coupled solver, model)", 2)
        if isinstance(self.extra_solver_args, Mapping) and self.extra_solver_args:
            raise ValueError(
                f"{cls}.extra_solver_args={dict(self.extra_solver_args)!r}: the coupled solvers take no extra "
                "arguments and the coupler never forwards them; set them on the entry's solver_cfg "
                "(CouplerEntryCfg.solver_cfg.extra_solver_args) instead."
            )
        if not isinstance(self.entries, (list, tuple)):
            raise TypeError(f"{cls}.entries must be a list of CouplerEntryCfg, got {type(self.entries).__name__}")
        if not self.entries:
            raise ValueError(f"{cls}.entries is empty: a coupler needs at least one entry")
        names: list[str] = []
        for i, entry in enumerate(self.entries):
            if not isinstance(entry, CouplerEntryCfg):
                raise TypeError(f"{cls}.entries[{i}] must be a CouplerEntryCfg, got {type(entry).__name__}")
            entry.validate(owner=f"{cls}.entries")
            if entry.name in names:
                raise ValueError(f"{cls}.entries: entry name {entry.name!r} is used more than once")
            names.append(entry.name)

    def entry_names(self) -> list[str]:
        """Entry names in stepping order."""
        return [entry.name for entry in self.entries]


@configclass
class CouplerProxyMappingCfg:
    """One directed virtual-proxy mapping: source bodies/particles mirrored into a destination entry."""

    _ranges: ClassVar[dict[str, str]] = {
        "mass_scale": "> 0",
        "kinematic_mass_scale": ">= 1",
        "collide_interval": ">= 1",
        "proxy_relaxation": ">= 0",
        "proxy_relaxation_min": ">= 0",
        "proxy_relaxation_max": ">= 0",
    }

    source: str = MISSING
    """Name of the entry that owns the source bodies and particles."""
    destination: str = MISSING
    """Name of the entry that receives them as proxies."""
    bodies: list[str | int] = []
    """Source bodies exposed as proxies: regexes with :attr:`CouplerEntryCfg.bodies` semantics
    (only bodies with collidable shapes are kept) or raw Newton body ids. After a successful
    build the list holds only the resolved integer ids."""
    particles: list[int] = []
    """Source particle indices exposed as proxies."""
    joints: list[str | int] = []
    """Source joints kept enabled as proxy joints in the destination view: regexes over joint labels
    (full match of a label or of a path above it, like :attr:`CouplerEntryCfg.bodies`) or raw Newton
    joint ids. Each must be owned by the source entry, be fixed, prismatic or revolute, and connect
    bodies the destination sees (its own or proxied into it). Newton then copies the source's 1-DoF
    joint targets into the destination before each destination solve, so the destination keeps the
    proxied articulation together instead of treating its links as unrelated free bodies. Unlike
    :attr:`bodies`, the list is never rewritten with the resolved ids."""
    mode: Literal["lagged", "staggered"] = "lagged"
    """``"lagged"``: sync source begin poses and end velocities; ``"staggered"``: end poses and velocities."""
    mass_scale: float = 1.0
    """Scale of proxy body mass/inertia and particle mass in the destination view [dimensionless]."""
    collide_interval: int | None = None
    """Proxy-local collision refresh interval [coupled steps]; ``None`` refreshes every pass.
    An explicit value requires :attr:`collision_pipeline`."""
    collision_pipeline: NewtonCollisionPipelineCfg | Callable[[Any], Any] | None = None
    """Pipeline (config or ``factory(ModelView)``) detecting destination proxy contacts;
    ``None`` (or a factory returning ``None``) passes the shared outer contacts."""
    proxy_relaxation: float = 1.0
    """Relaxation of the lagged feedback update [dimensionless]; < 1 under-relaxes."""
    proxy_relaxation_mode: Literal["fixed", "aitken"] = "fixed"
    """``"fixed"`` uses :attr:`proxy_relaxation`; ``"aitken"`` adapts it from feedback residuals."""
    proxy_relaxation_min: float = 0.1
    """Lower bound of the Aitken relaxation factor [dimensionless]."""
    proxy_relaxation_max: float = 1.0
    """Upper bound of the Aitken relaxation factor [dimensionless]."""
    one_way: bool = False
    """One-way coupling with heavy proxies: the destination still integrates the proxies, as bodies its contacts
    barely push (mass and inertia scaled by :attr:`kinematic_mass_scale`), and no reaction goes back to the
    source (Newton's ``proxy_relaxation`` is 0). A robot then drives the deformable and feels nothing. For
    prescribed poses exactly as Newton's ``cloth_franka`` / ``softbody_franka`` examples, use :attr:`kinematic`.
    It sets the feedback and mass scaling itself, so :attr:`mass_scale`, :attr:`proxy_relaxation` and
    :attr:`proxy_relaxation_mode` must keep their defaults."""
    kinematic_mass_scale: float = 1.0e6
    """Mass scale of the proxies with :attr:`one_way` [dimensionless]."""
    kinematic: bool = False
    """Kinematic (prescribed-pose) coupling, as Newton's ``cloth_franka`` / ``softbody_franka`` examples drive a
    deformable: the destination does not integrate the proxy bodies at all, it reads their poses at the start and
    at the end of the step (and the end velocity) from the source, and nothing goes back to the source (Newton's
    ``proxy_relaxation`` is 0). Needs a VBD destination with
    :attr:`~isaaclab_contrib.physics.VBDSolverCfg.integrate_with_external_rigid_solver` (Newton's only solver
    that takes externally integrated bodies), stepping once per coupled step (``substeps=1``, not in place),
    body proxies only (no :attr:`particles` or :attr:`joints`), ``mode="lagged"``, and the feedback fields
    (:attr:`mass_scale`, :attr:`proxy_relaxation`, :attr:`proxy_relaxation_mode`, :attr:`one_way`) at their
    defaults. Unlike :attr:`one_way`, the proxies are not heavy bodies: their motion is exactly the source's.
    True or False."""

    def newton_feedback(self) -> tuple[float, float, str]:
        """``(mass_scale, proxy_relaxation, proxy_relaxation_mode)`` passed to Newton's ``Proxy``."""
        if self.kinematic:  # the destination does not integrate the proxies; their masses are never read
            return 1.0, 0.0, "fixed"
        if self.one_way:
            return float(self.kinematic_mass_scale), 0.0, "fixed"
        return float(self.mass_scale), float(self.proxy_relaxation), self.proxy_relaxation_mode

    def _changed_from(self, defaults: tuple[tuple[str, object], ...]) -> list[str]:
        """``name=value`` of each of *defaults*' fields that differs from its default."""
        return [f"{name}={getattr(self, name)!r}" for name, default in defaults if getattr(self, name) != default]

    def validate(self, owner: str = "CouplerProxyMappingCfg") -> None:
        """Check the mapping without a model."""
        check_missing(self)
        check_fields(self, owner)
        for name in ("source", "destination"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{owner}.{name} must be an entry name string")
        if self.source == self.destination:
            raise ValueError(f"{owner}: source and destination are both {self.source!r}; they must differ")
        if not isinstance(self.bodies, (list, tuple)):
            raise TypeError(f"{owner}.bodies must be a list of regex strings or body ids")
        for i, selector in enumerate(self.bodies):
            if isinstance(selector, str):
                check_regex(selector, f"{owner}.bodies[{i}]")
            elif _is_int(selector):
                if selector < 0:
                    raise ValueError(f"{owner}.bodies[{i}]={selector} must be >= 0")
            else:
                raise TypeError(
                    f"{owner}.bodies[{i}] must be a regex string or a body id, got {type(selector).__name__}"
                )
        _check_index_list(self.particles, f"{owner}.particles")
        if not isinstance(self.joints, (list, tuple)):
            raise TypeError(
                f"{owner}.joints must be a list of joint-label regexes or joint ids, got {type(self.joints).__name__}"
            )
        joint_ids: list[int] = []
        for i, selector in enumerate(self.joints):
            if isinstance(selector, str):
                check_regex(selector, f"{owner}.joints[{i}]")
            elif _is_int(selector):
                if selector < 0:
                    raise ValueError(f"{owner}.joints[{i}]={selector} must be >= 0")
                joint_ids.append(int(selector))
            else:
                raise TypeError(
                    f"{owner}.joints[{i}] must be a joint-label regex or a joint id, got {type(selector).__name__}"
                )
        if len(set(joint_ids)) != len(joint_ids):
            raise ValueError(f"{owner}.joints lists a joint id more than once")
        if not self.bodies and not self.particles and not self.joints:
            raise ValueError(f"{owner}: a proxy mapping needs at least one body, particle or joint")
        if self.proxy_relaxation_max < self.proxy_relaxation_min:
            raise ValueError(
                f"{owner}.proxy_relaxation_max={self.proxy_relaxation_max} must be >= "
                f"proxy_relaxation_min={self.proxy_relaxation_min}"
            )
        if self.proxy_relaxation_mode == "aitken" and not (
            self.proxy_relaxation_min <= self.proxy_relaxation <= self.proxy_relaxation_max
        ):
            raise ValueError(
                f"{owner}.proxy_relaxation={self.proxy_relaxation} must lie in "
                f"[proxy_relaxation_min, proxy_relaxation_max] for Aitken relaxation"
            )
        feedback_defaults = (("mass_scale", 1.0), ("proxy_relaxation", 1.0), ("proxy_relaxation_mode", "fixed"))
        if self.one_way:
            changed = self._changed_from(feedback_defaults)
            if changed:
                raise ValueError(
                    f"{owner}.one_way=True sets the proxies' mass scale (kinematic_mass_scale) and turns the feedback "
                    f"off; leave {', '.join(changed)} at the default"
                )
        if self.kinematic:
            changed = self._changed_from((("one_way", False), ("mode", "lagged"), *feedback_defaults))
            if changed:
                raise ValueError(
                    f"{owner}.kinematic=True prescribes the proxies' poses and sends nothing back; leave "
                    f"{', '.join(changed)} at the default"
                )
            if self.particles or self.joints:
                raise ValueError(
                    f"{owner}.kinematic=True drives bodies only (Newton's external rigid integration); move "
                    f"particles={list(self.particles)!r} / joints={list(self.joints)!r} to a separate mapping"
                )
        pipeline = self.collision_pipeline
        if pipeline is not None and not isinstance(pipeline, NewtonCollisionPipelineCfg) and not callable(pipeline):
            raise TypeError(f"{owner}.collision_pipeline must be a NewtonCollisionPipelineCfg, a factory or None")
        if isinstance(pipeline, NewtonCollisionPipelineCfg):
            with nested(f"{owner}.collision_pipeline"):
                pipeline.validate()
        if self.collide_interval is not None:
            if pipeline is None:
                raise ValueError(
                    f"{owner}.collide_interval={self.collide_interval} needs collision_pipeline: without a proxy "
                    "pipeline the destination uses the shared outer contacts every pass."
                )

    def pipeline_factory(self) -> Callable[[Any], Any] | None:
        """Return the factory Newton calls with the destination ``ModelView`` (or ``None``)."""
        pipeline = self.collision_pipeline
        if isinstance(pipeline, NewtonCollisionPipelineCfg):
            return pipeline.build
        return pipeline


@configclass
class CouplerProxyCfg(CouplerCfg):
    """Newton's lagged-impulse virtual-proxy coupling (``SolverCoupledProxy``), at most two entries."""

    _ranges: ClassVar[dict[str, str]] = {"iterations": ">= 1"}

    solver_type: str = "coupled_proxy"
    """Solver type metadata (deprecated): dispatch uses :attr:`class_type`; setting it warns."""
    proxies: list[CouplerProxyMappingCfg] = []
    """Directed proxy mappings between named entries."""
    iterations: int = 1
    """Proxy relaxation passes per coupled step [count]."""

    def validate(self) -> None:
        """Check entries, proxies and iterations without a model."""
        super().validate()
        cls = type(self).__name__
        if len(self.entries) > PROXY_MAX_ENTRIES:
            raise ValueError(
                f"{cls}.entries has {len(self.entries)} entries, but Newton's proxy coupler supports at most "
                f"{PROXY_MAX_ENTRIES}; merge entries or use CouplerAdmmCfg."
            )
        if not isinstance(self.proxies, (list, tuple)):
            raise TypeError(f"{cls}.proxies must be a list of CouplerProxyMappingCfg")
        names = set(self.entry_names())
        for i, mapping in enumerate(self.proxies):
            where = f"{cls}.proxies[{i}]"
            if not isinstance(mapping, CouplerProxyMappingCfg):
                raise TypeError(f"{where} must be a CouplerProxyMappingCfg, got {type(mapping).__name__}")
            mapping.validate(owner=where)
            for field in ("source", "destination"):
                value = getattr(mapping, field)
                if value not in names:
                    raise ValueError(f"{where}.{field}={value!r} is not an entry name; entries: {sorted(names)}")
        self._validate_external_rigid_destinations()

    def _validate_external_rigid_destinations(self) -> None:
        """A kinematic mapping needs a destination that takes external bodies, and such a destination takes
        body proxies only through kinematic mappings (others would stay frozen where it reads them)."""
        cls = type(self).__name__
        entries = {entry.name: entry for entry in self.entries}
        for i, mapping in enumerate(self.proxies):
            where = f"{cls}.proxies[{i}]"
            entry = entries[mapping.destination]
            external = bool(getattr(entry.solver_cfg, "integrate_with_external_rigid_solver", False))
            if mapping.kinematic and not external:
                raise ValueError(
                    f"{where}.kinematic=True, but the destination entry {entry.name!r} "
                    f"({type(entry.solver_cfg).__name__}) integrates its bodies itself; kinematic proxies need a "
                    "VBDSolverCfg(integrate_with_external_rigid_solver=True) destination (Newton's only solver "
                    "that reads externally integrated bodies). For heavy driven proxies in another solver use "
                    "one_way=True instead."
                )
            if mapping.kinematic and (entry.substeps != 1 or entry.in_place):
                raise ValueError(
                    f"{where}.kinematic=True: the destination entry {entry.name!r} must step once per coupled step "
                    f"into a second state (substeps=1, in_place=False), got substeps={entry.substeps}, "
                    f"in_place={entry.in_place}; substep the whole coupler instead (NewtonCfg.num_substeps)"
                )
            if external and mapping.bodies and not mapping.kinematic:
                raise ValueError(
                    f"{where} proxies bodies into {entry.name!r}, whose VBD integrates no body "
                    "(integrate_with_external_rigid_solver=True) and reads them only from kinematic mappings; "
                    "set kinematic=True on this mapping"
                )


@configclass
class CouplerAdmmCfg(CouplerCfg):
    """Newton's linearized ADMM coupling (``SolverCoupledADMM``) of any number of entries.

    Newton's defaults are kept. For stiff rigid-on-cloth contact, raise :attr:`rho`
    (tens) with a little :attr:`gamma` and :attr:`baumgarte`, and more :attr:`iterations`.
    """

    _ranges: ClassVar[dict[str, str]] = {
        "iterations": ">= 1",
        "rho": "> 0",
        "gamma": ">= 0",
        "baumgarte": ">= 0",
        "joint_stiffness": ">= 0",
        "joint_damping": ">= 0",
        "joint_angular_stiffness": ">= 0",
        "joint_angular_damping": ">= 0",
        "joint_proximal_mass_scale": "> 0",
        "contact_matching_pos_threshold": ">= 0",
        "contact_matching_normal_dot_threshold": "[-1.0, 1.0]",
        "contact_matching_force_scale": ">= 0",
        "contact_max_triangle_pairs": ">= 1",
        "contact_reduction_hashtable_size_factor": "> 0",
    }

    solver_type: str = "coupled_admm"
    """Solver type metadata (deprecated): dispatch uses :attr:`class_type`; setting it warns."""
    contact_pairs: list[tuple[str, str]] | None = None
    """Symmetric contact interfaces as ``(entry, entry)`` pairs. ``None`` couples every distinct
    pair of entries; an empty list disables ADMM contact coupling."""
    iterations: int = 5
    """ADMM dual iterations per coupled step [count]."""
    rho: float = 1.0
    """ADMM penalty parameter [dimensionless]."""
    gamma: float = 0.0
    """Proximal mass scaling [dimensionless]."""
    baumgarte: float = 0.0
    """Fraction of position error corrected per step [dimensionless]."""
    joint_stiffness: float = 1.0e4
    """Translational cross-solver joint stiffness [N/m]."""
    joint_damping: float = 0.0
    """Translational cross-solver joint damping [N*s/m]."""
    joint_angular_stiffness: float = 1.0e4
    """Angular cross-solver joint stiffness [N*m/rad]."""
    joint_angular_damping: float = 0.0
    """Angular cross-solver joint damping [N*m*s/rad]."""
    joint_proximal_bodies: bool = True
    """Keep cross-solver joint neighbours visible as inertial proxies."""
    joint_proximal_destination_entries: list[str] | None = None
    """Entries that receive cross-solver joint proximal bodies; ``None`` is symmetric."""
    joint_proximal_mass_scale: float = 1.0
    """Mass scale of cross-solver joint proximal bodies [dimensionless]."""
    rigid_contact_matching: Literal["disabled", "latest", "sticky"] = "disabled"
    """Frame-to-frame matching of collision-detected rigid contacts."""
    contact_matching_pos_threshold: float | None = None
    """Maximum midpoint distance for matching rigid contacts [m]; ``None`` keeps Newton's default."""
    contact_matching_normal_dot_threshold: float | None = None
    """Minimum normal dot product for matching rigid contacts [dimensionless]."""
    contact_matching_force_scale: float = 0.9
    """Scale of the previous ADMM dual when a rigid contact matches [dimensionless]."""
    contact_max_triangle_pairs: int | None = None
    """Triangle-pair capacity of the internal ADMM collision detection [count]; ``None`` keeps Newton's default."""
    contact_reduction_hashtable_size_factor: float | None = None
    """Size factor of the internal contact-reduction hash table [dimensionless]; ``None`` keeps Newton's default."""

    def validate(self) -> None:
        """Check entries, contact pairs and ADMM parameters without a model."""
        super().validate()
        cls = type(self).__name__
        names = set(self.entry_names())
        for entry in self.entries:
            if getattr(entry.solver_cfg, "integrate_with_external_rigid_solver", False):
                raise ValueError(
                    f"{cls}.entries[{entry.name!r}].solver_cfg.integrate_with_external_rigid_solver=True: ADMM gives "
                    "no entry the poses of bodies it does not integrate; use CouplerProxyCfg with kinematic=True"
                )
        if (
            self.contact_max_triangle_pairs is not None
            and self.rigid_contact_matching != "disabled"
            and self.contact_max_triangle_pairs >= 2**20
        ):
            raise ValueError(
                f"{cls}.contact_max_triangle_pairs={self.contact_max_triangle_pairs} must be below 2**20 "
                f"({2**20}) with rigid_contact_matching={self.rigid_contact_matching!r}: Newton packs matched "
                "triangle pairs into 20 bits. Lower it, or set rigid_contact_matching='disabled'."
            )
        if self.joint_proximal_destination_entries is not None:
            if not isinstance(self.joint_proximal_destination_entries, (list, tuple)):
                raise TypeError(f"{cls}.joint_proximal_destination_entries must be a list of entry names or None")
            for i, name in enumerate(self.joint_proximal_destination_entries):
                if name not in names:
                    raise ValueError(
                        f"{cls}.joint_proximal_destination_entries[{i}]={name!r} is not an entry name; "
                        f"entries: {sorted(names)}"
                    )
        if self.contact_pairs is not None:
            if not isinstance(self.contact_pairs, (list, tuple)):
                raise TypeError(f"{cls}.contact_pairs must be a list of (entry, entry) tuples or None")
            seen: set[frozenset[str]] = set()
            for i, pair in enumerate(self.contact_pairs):
                where = f"{cls}.contact_pairs[{i}]"
                if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                    raise TypeError(f"{where} must be a pair (entry_name, entry_name), got {pair!r}")
                for name in pair:
                    if not isinstance(name, str):
                        raise TypeError(f"{where} must hold entry name strings, got {type(name).__name__}")
                    if name not in names:
                        raise ValueError(f"{where} names unknown entry {name!r}; entries: {sorted(names)}")
                if pair[0] == pair[1]:
                    raise ValueError(
                        f"{where}=({pair[0]!r}, {pair[1]!r}) names one entry twice; a pair couples two entries"
                    )
                key = frozenset(pair)
                if key in seen:
                    raise ValueError(
                        f"{where}: the pair {tuple(pair)!r} is listed more than once (pairs are symmetric)"
                    )
                seen.add(key)

    def resolved_contact_pairs(self) -> list[tuple[str, str]]:
        """Return the contact pairs, expanding ``None`` to every distinct pair of entries."""
        if self.contact_pairs is None:
            names = self.entry_names()
            return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
        return [tuple(pair) for pair in self.contact_pairs]
