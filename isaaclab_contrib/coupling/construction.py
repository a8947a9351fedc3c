"""Construction: resolved entries and solver configs become Newton's coupled solver.

:func:`build_coupled_solver` is usable on its own in a plain Newton loop::

    builder = newton.ModelBuilder()
    prepare_builder(builder, coupler_cfg)      # custom attributes (call before adding assets)
    ...                                         # add bodies, cloth, particles
    finalize_builder(builder, coupler_cfg)     # e.g. VBD colouring (call right before finalize)
    model = builder.finalize()
    solver = build_coupled_solver(model, coupler_cfg)

The solver classes it instantiates are Newton 1.8's ``SolverCoupledADMM`` / ``SolverCoupledProxy``
with the guarded overrides of :mod:`.newton_patches` (each names the upstream defect it works
around). Every entry's solver is built by that entry's own solver binding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from isaaclab_contrib.physics.solvers.binding import SolverBinding, binding_for

from .coupler_cfg import HIDEABLE_ELEMENTS, CouplerAdmmCfg, CouplerCfg, CouplerEntryCfg, CouplerProxyCfg, _callable_name
from .kinematic import gravity_override, install_prescribed_poses
from .newton_patches import coupled_solver_classes
from .ownership import CouplingPlan, resolve_coupling, write_back_proxy_bodies

if TYPE_CHECKING:
    import newton

__all__ = [
    "CouplerHookError",
    "build_coupled_solver",
    "entry_bindings",
    "finalize_builder",
    "prepare_builder",
    "prepare_entry_builders",
    "register_entry_attributes",
]


class CouplerHookError(RuntimeError):
    """A hook of a coupler config (``configure_view``, ``post_build``) raised; the message names the config
    class, the entry and the hook, and the hook's exception is the ``__cause__``."""


def _call_hook(hook: Callable[..., Any], args: Sequence[Any], where: str) -> None:
    try:
        hook(*args)
    except Exception as err:
        raise CouplerHookError(f"{where}={_callable_name(hook)} raised {type(err).__name__}: {err}") from err


def _validated_entries(cfg: CouplerCfg, caller: str) -> list:
    if not isinstance(cfg, CouplerCfg):
        raise TypeError(f"{caller} expects a CouplerCfg, got {type(cfg).__name__}")
    cfg.validate()
    return cfg.entries


def entry_bindings(cfg: CouplerCfg) -> list[tuple[CouplerEntryCfg, SolverBinding]]:
    """Every entry of *cfg* with the binding of its solver config's family, in stepping order."""
    return [(entry, binding_for(entry.solver_cfg)) for entry in cfg.entries]


def register_entry_attributes(builder: newton.ModelBuilder, cfg: CouplerCfg) -> None:
    """Register every entry solver family's custom model attributes on *builder* once per family."""
    seen: set[type] = set()
    for entry, binding in entry_bindings(cfg):
        if type(entry.solver_cfg) not in seen:
            seen.add(type(entry.solver_cfg))
            binding.register_builder_attributes(entry.solver_cfg, builder)


def prepare_entry_builders(builder: newton.ModelBuilder, cfg: CouplerCfg) -> None:
    """Every entry solver's last builder preparation (e.g. VBD colouring), in entry order."""
    for entry, binding in entry_bindings(cfg):
        binding.prepare_builder(entry.solver_cfg, builder)


def prepare_builder(builder: newton.ModelBuilder, cfg: CouplerCfg) -> None:
    """Register every entry solver's custom model attributes on *builder* (before assets are added)."""
    _validated_entries(cfg, "prepare_builder")
    register_entry_attributes(builder, cfg)


def finalize_builder(builder: newton.ModelBuilder, cfg: CouplerCfg) -> None:
    """Apply every entry solver's last builder preparation (e.g. VBD colouring); call right before finalize."""
    _validated_entries(cfg, "finalize_builder")
    prepare_entry_builders(builder, cfg)


def _check_coupling_interface(cfg: CouplerCfg) -> None:
    from newton.solvers.experimental.coupled import CouplingInterface

    cls = type(cfg).__name__
    for entry in cfg.entries:
        solver_cls = entry.solver_cfg.solver_class()
        if not issubclass(solver_cls, CouplingInterface):
            raise ValueError(
                f"{cls}.entries[{entry.name!r}].solver_cfg: {solver_cls.__name__} cannot be a coupled entry: it does "
                "not implement Newton's CouplingInterface."
            )
        entry.solver_cfg.solver_kwargs()  # raises SolverConfigError (a TypeError) for a stale field


def _entry_factory(cfg: CouplerCfg, entry: CouplerEntryCfg, binding: SolverBinding, plan: CouplingPlan) -> Any:
    where = f"{type(cfg).__name__}.entries[{entry.name!r}]"

    def factory(view):
        try:
            return binding.build(entry.solver_cfg, view)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{where}: building {type(entry.solver_cfg).__name__} failed: {err}") from err
        except NotImplementedError as err:  # Newton refusing what the entry's view holds (e.g. particles)
            raise NotImplementedError(
                f"{where}: {type(entry.solver_cfg).__name__} refuses this entry's view: {err} "
                f"{_view_contents(cfg, entry, plan, view)}"
            ) from err

    return factory


def _view_contents(cfg: CouplerCfg, entry: CouplerEntryCfg, plan: CouplingPlan, view: Any) -> str:
    """Where the particles of an entry's view come from, naming the fields that put them there."""
    own = plan.entries[entry.name]
    total = int(getattr(view, "particle_count", 0) or 0)
    owned = len(own.particles)
    proxied = [(i, len(p.particles)) for i, p in enumerate(getattr(plan, "proxies", ())) if p.destination == entry.name]
    received = sum(count for _, count in proxied)
    parts = [
        f"The view holds {total} particles: {owned} owned by the entry (entries[{entry.name!r}].particles / "
        "all_particles)"
    ]
    parts += [f"{count} proxied in by {type(cfg).__name__}.proxies[{i}].particles" for i, count in proxied if count]
    other = total - owned - received
    if other > 0:
        parts.append(
            f"{other} that the entry neither owns nor receives by proxy (Newton's view of an entry includes "
            "particles of the bodies and worlds it owns, e.g. global ones)"
        )
    return (
        "; ".join(parts) + ". Give the particles to an entry whose solver simulates them (VBD, XPBD, implicit "
        "MPM), or stop proxying them into this one."
    )


def _view_hook(cfg: CouplerCfg, entry: CouplerEntryCfg) -> Callable[[Any], None] | None:
    """The ``configure_view`` Newton calls for *entry*: hide the listed element kinds, set the entry's gravity,
    then the user's hook."""
    counts = [HIDEABLE_ELEMENTS[name] for name in entry.hide_elements]
    user_hook = entry.configure_view
    gravity = None if entry.gravity is None else tuple(entry.gravity)
    if not counts and user_hook is None and gravity is None:
        return None
    where = f"{type(cfg).__name__}.entries[{entry.name!r}].configure_view"

    def configure_view(view) -> None:
        for count in counts:
            setattr(view, count, 0)
        if gravity is not None:
            gravity_override(view, gravity)
        if user_hook is not None:
            _call_hook(user_hook, (view,), where)

    return configure_view


def build_entries(cfg: CouplerCfg, plan: CouplingPlan) -> list:
    """Return the ``SolverCoupled.Entry`` list for a resolved plan."""
    from newton.solvers.experimental.coupled import SolverCoupled

    entries = []
    for entry, binding in entry_bindings(cfg):
        own = plan.entries[entry.name]
        entries.append(
            SolverCoupled.Entry(
                name=entry.name,
                solver=_entry_factory(cfg, entry, binding, plan),
                bodies=tuple(own.bodies),
                particles=tuple(own.particles),
                joints=tuple(own.joints),
                shapes=tuple(own.shapes),
                configure_view=_view_hook(cfg, entry),
                substeps=int(entry.substeps),
                in_place=bool(entry.in_place),
            )
        )
    return entries


def run_post_build_hooks(solver: Any, model: Any, cfg: CouplerCfg) -> None:
    """Finish every entry solver through its binding (:meth:`SolverBinding.post_build`), then call every entry's
    ``post_build(entry_solver, entry_view)``, then the coupler's ``post_build(solver, model)``."""
    cls = type(cfg).__name__
    for entry, binding in entry_bindings(cfg):
        where = f"{cls}.entries[{entry.name!r}]"
        try:
            binding.post_build(entry.solver_cfg, solver.solver(entry.name), solver.view(entry.name), model)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{where}: finishing {type(entry.solver_cfg).__name__} failed: {err}") from err
    for entry in cfg.entries:
        if entry.post_build is not None:
            _call_hook(
                entry.post_build,
                (solver.solver(entry.name), solver.view(entry.name)),
                f"{cls}.entries[{entry.name!r}].post_build",
            )
    if cfg.post_build is not None:
        _call_hook(cfg.post_build, (solver, model), f"{cls}.post_build")


def build_coupled_solver(
    model: newton.Model,
    coupler_cfg: CouplerCfg,
    *,
    plan: CouplingPlan | None = None,
    apply_model_cfg: bool = True,
    write_back: bool = True,
) -> newton.solvers.SolverBase:
    """Resolve *coupler_cfg* over the finalized *model* and return the ready coupled solver.

    Args:
        model: Finalized Newton model (prepare its builder with :func:`prepare_builder` and
            :func:`finalize_builder`).
        coupler_cfg: :class:`CouplerAdmmCfg` or :class:`CouplerProxyCfg`. Its ``model_cfg``, when
            set, is applied to *model* first.
        plan: A plan already resolved from the same model and config (skips re-resolution).
        apply_model_cfg: Apply ``coupler_cfg.model_cfg`` to *model* (managers that apply model
            parameters themselves pass ``False``).
        write_back: After a successful build, write the resolved integer body ids into the ``bodies``
            of every proxy mapping (the spec's in-place resolution). The selectors the user wrote are
            remembered, so resolving the same config again (a scene with more envs) starts from them.
            Managers pass ``False`` and write back once the whole simulation was built.

    Returns:
        A ``SolverCoupledADMM`` or ``SolverCoupledProxy`` (subclasses that hide every shape from an
        entry with no visible shape; see the module documentation). Every entry's ``post_build`` and
        then the coupler's ``post_build`` have run on it.

    Raises:
        TypeError: A wrong type in the config, or a solver field the installed Newton does not accept.
        ValueError: An invalid value; the message names the config class, entry and field.
        CouplerHookError: A ``configure_view`` or ``post_build`` hook raised; the message names the entry.
    """
    from newton.solvers.experimental.coupled import SolverCoupledADMM, SolverCoupledProxy

    if not isinstance(coupler_cfg, (CouplerAdmmCfg, CouplerProxyCfg)):
        raise TypeError(
            f"build_coupled_solver expects a CouplerAdmmCfg or CouplerProxyCfg, got {type(coupler_cfg).__name__}"
        )
    if plan is None:
        plan = resolve_coupling(model, coupler_cfg)
    _check_coupling_interface(coupler_cfg)
    admm_cls, proxy_cls = coupled_solver_classes()
    if apply_model_cfg and coupler_cfg.model_cfg is not None:
        coupler_cfg.model_cfg.apply(model)
    entries = build_entries(coupler_cfg, plan)

    if isinstance(coupler_cfg, CouplerAdmmCfg):
        c = coupler_cfg
        config = SolverCoupledADMM.Config(
            iterations=c.iterations,
            rho=float(c.rho),
            gamma=float(c.gamma),
            baumgarte=float(c.baumgarte),
            joint_stiffness=float(c.joint_stiffness),
            joint_damping=float(c.joint_damping),
            joint_angular_stiffness=float(c.joint_angular_stiffness),
            joint_angular_damping=float(c.joint_angular_damping),
            joint_proximal_bodies=bool(c.joint_proximal_bodies),
            joint_proximal_destination_entries=(
                None if c.joint_proximal_destination_entries is None else tuple(c.joint_proximal_destination_entries)
            ),
            joint_proximal_mass_scale=float(c.joint_proximal_mass_scale),
            rigid_contact_matching=c.rigid_contact_matching,
            contact_matching_pos_threshold=c.contact_matching_pos_threshold,
            contact_matching_normal_dot_threshold=c.contact_matching_normal_dot_threshold,
            contact_matching_force_scale=float(c.contact_matching_force_scale),
            contact_pairs=tuple(SolverCoupledADMM.ContactPair(a, b) for a, b in plan.contact_pairs),
            contact_max_triangle_pairs=c.contact_max_triangle_pairs,
            contact_reduction_hashtable_size_factor=c.contact_reduction_hashtable_size_factor,
        )
        solver = admm_cls(model, entries, config)
    else:
        proxies = [
            SolverCoupledProxy.Proxy(
                source=p.source,
                destination=p.destination,
                bodies=tuple(p.bodies),
                particles=tuple(p.particles),
                mass_scale=p.mapping.newton_feedback()[0],  # one_way: kinematic proxies, no feedback
                mode=p.mapping.mode,
                proxy_relaxation=p.mapping.newton_feedback()[1],
                proxy_relaxation_mode=p.mapping.newton_feedback()[2],
                proxy_relaxation_min=float(p.mapping.proxy_relaxation_min),
                proxy_relaxation_max=float(p.mapping.proxy_relaxation_max),
                joints=tuple(p.joints),
                collision_pipeline=p.mapping.pipeline_factory(),
                collide_interval=p.mapping.collide_interval,
            )
            for p in plan.proxies
        ]
        config = SolverCoupledProxy.Config(proxies=proxies, iterations=coupler_cfg.iterations)
        solver = proxy_cls(model, entries, config)
    solver._update_joint_coordinates = bool(coupler_cfg.update_joint_coordinates)
    install_prescribed_poses(solver, coupler_cfg)  # kinematic proxies: end poses into the destination
    run_post_build_hooks(solver, model, coupler_cfg)
    if write_back:
        write_back_proxy_bodies(plan)
    return solver
