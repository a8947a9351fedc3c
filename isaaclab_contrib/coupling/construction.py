"""Construction: resolved entries and solver configs become Newton's coupled solver.

:func:`build_coupled_solver` is usable on its own in a plain Newton loop::

    builder = newton.ModelBuilder()
    prepare_builder(builder, coupler_cfg)      # custom attributes (call before adding assets)
    ...                                         # add bodies, cloth, particles
    finalize_builder(builder, coupler_cfg)     # e.g. VBD colouring (call right before finalize)
    model = builder.finalize()
    solver = build_coupled_solver(model, coupler_cfg)

The solvers built here differ from Newton 1.8's classes in two guarded overrides.

Newton copies the full-model control into each entry's control on every entry step. Control
custom attributes (``mujoco:ctrl`` of an MJCF-imported robot, for instance) are copied with
``wp.copy(dst, src[local_to_global])``, an indexed copy that Warp cannot record in a CPU graph, so
no coupled scene with such a robot could be captured on the CPU. The solvers here gather those
rows with a kernel of their own (graph-safe on every device, same values) and let Newton copy
everything else as before.

With :attr:`~isaaclab_contrib.coupling.CouplerCfg.update_joint_coordinates` they recompute the output
state's joint coordinates from its body poses after every step (``newton.eval_ik``), as Newton's ADMM
examples do in their loops.

They also neutralize a Newton 1.8 defect in ``SolverCoupled``'s per-entry shape visibility:
when an entry's visible shape set is empty (it owns no shape, receives no proxy body with shapes
and the model has no static shape), Newton returns early and hides *nothing*, so the entry (say a
particle-only VBD cloth) sees every other entry's shapes as static colliders at their body-local
transforms and receives phantom contacts against them. The solvers built here hide every shape
from such an entry, at construction and again after ``notify_model_changed``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import warp as wp

from isaaclab_contrib.physics.solvers.binding import binding_for

from .coupler_cfg import HIDEABLE_ELEMENTS, CouplerAdmmCfg, CouplerCfg, CouplerEntryCfg, CouplerProxyCfg, _callable_name
from .ownership import CouplingPlan, resolve_coupling, write_back_proxy_bodies

if TYPE_CHECKING:
    import newton

__all__ = ["CouplerHookError", "build_coupled_solver", "finalize_builder", "prepare_builder"]


class CouplerHookError(RuntimeError):
    """A hook of a coupler config (``configure_view``, ``post_build``) raised; the message names the config
    class, the entry and the hook, and the hook's exception is the ``__cause__``."""


def _call_hook(hook: Callable[..., Any], args: Sequence[Any], where: str) -> None:
    try:
        hook(*args)
    except Exception as err:
        raise CouplerHookError(f"{where}={_callable_name(hook)} raised {type(err).__name__}: {err}") from err


_VISIBILITY_HOOKS = ("_apply_entry_shape_visibility", "_entry_visible_shapes", "_refresh_model_view_overrides")
_CONTROL_COPY_HOOKS = ("_step_entry",)


@wp.kernel(enable_backward=False)
def _gather_control_rows_kernel(
    local_to_global: wp.array(dtype=Any), src: wp.array(dtype=Any), dst: wp.array(dtype=Any)
):
    row = wp.tid()
    source = local_to_global[row]
    if source >= 0:  # negative: an entry-local row with no model row (kept as it is)
        dst[row] = src[source]


def _attribute(container: Any, full_name: str) -> Any:
    """``container.ns.attr`` for ``"ns:attr"``, ``container.attr`` for ``"attr"`` (``None`` when absent)."""
    namespace, _, name = full_name.rpartition(":")
    holder = getattr(container, namespace, None) if namespace else container
    return None if holder is None else getattr(holder, name, None)


class _GraphSafeControlCopy:
    """Mixin over ``SolverCoupled`` subclasses: control custom attributes reach entries through a gather
    kernel instead of Newton's indexed ``wp.copy`` (which Warp cannot record on the CPU)."""

    def _step_entry(self, entry, control, contacts, dt, **kwargs):
        mappings = getattr(entry, "attribute_local_to_global", None)
        if control is None or getattr(entry, "control", None) is None or not mappings:
            return super()._step_entry(entry, control, contacts, dt, **kwargs)
        model = self.model
        gathered = set()
        for full_name, spec in model._iter_attribute_specs():
            mapping = mappings.get(spec.frequency)
            if spec.assignment != model.AttributeAssignment.CONTROL or mapping is None:
                continue
            gathered.add(spec.frequency)
            src, dst = _attribute(control, full_name), _attribute(entry.control, full_name)
            if not isinstance(dst, wp.array) or dst.shape[0] == 0:
                continue
            if not isinstance(src, wp.array):
                dst.zero_()
                continue
            wp.launch(_gather_control_rows_kernel, dim=dst.shape[0], inputs=[mapping, src, dst], device=dst.device)
        if not gathered:
            return super()._step_entry(entry, control, contacts, dt, **kwargs)
        # Newton's copy skips frequencies it has no mapping for: hide the ones gathered above while it runs.
        entry.attribute_local_to_global = {k: v for k, v in mappings.items() if k not in gathered}
        try:
            return super()._step_entry(entry, control, contacts, dt, **kwargs)
        finally:
            entry.attribute_local_to_global = mappings


def _hidden_collision_mask() -> int:
    import newton

    return int(newton.ShapeFlags.COLLIDE_SHAPES | newton.ShapeFlags.COLLIDE_PARTICLES | newton.ShapeFlags.HYDROELASTIC)


class _EmptyVisibilityFix:
    """Mixin over ``SolverCoupled`` subclasses: an entry whose visible shape set is empty sees no shape."""

    def _apply_entry_shape_visibility(self, view, cfg, proxy_body_keep) -> None:
        super()._apply_entry_shape_visibility(view, cfg, proxy_body_keep)
        model = self.model
        if model.shape_count == 0 or model.shape_flags is None or cfg.shapes:
            return
        visible_bodies = set(proxy_body_keep) | {int(b) for b in cfg.bodies}
        if self._entry_visible_shapes(cfg, visible_bodies):
            return  # Newton hid the other shapes itself.
        flags = view.shape_flags.numpy().copy()
        flags &= ~np.asarray(_hidden_collision_mask(), dtype=flags.dtype)
        view.shape_flags = wp.array(flags, dtype=view.shape_flags.dtype, device=model.device)


class _JointCoordinateUpdate:
    """Mixin over ``SolverCoupled`` subclasses: optionally recompute the output state's joint coordinates from
    its body state after every step (``CouplerCfg.update_joint_coordinates``)."""

    _update_joint_coordinates = False

    def step(self, state_in, state_out, control, contacts, dt, **kwargs):
        super().step(state_in, state_out, control, contacts, dt, **kwargs)
        if self._update_joint_coordinates and self.model.joint_count:
            import newton

            newton.eval_ik(self.model, state_out, state_out.joint_q, state_out.joint_qd)


_SOLVER_CLASSES: dict[str, type] = {}


def _coupled_classes() -> tuple[type, type]:
    """Return the defect-neutralizing subclasses of ``SolverCoupledADMM`` and ``SolverCoupledProxy``."""
    if not _SOLVER_CLASSES:
        from newton import Model
        from newton.solvers.experimental.coupled import SolverCoupled, SolverCoupledADMM, SolverCoupledProxy

        missing = [name for name in (*_VISIBILITY_HOOKS, *_CONTROL_COPY_HOOKS) if not hasattr(SolverCoupled, name)]
        if not hasattr(Model, "_iter_attribute_specs"):
            missing.append("Model._iter_attribute_specs")
        if missing:
            raise RuntimeError(
                f"The installed Newton lacks {missing}, which this package overrides to fix entry shape visibility "
                "and to copy entry controls in a graph-safe way. This package supports newton 1.8; install "
                "newton==1.8.0."
            )

        class CoupledSolverADMM(_JointCoordinateUpdate, _GraphSafeControlCopy, _EmptyVisibilityFix, SolverCoupledADMM):
            """``SolverCoupledADMM`` with graph-safe entry control copies and no phantom shapes (see module docs)."""

        class CoupledSolverProxy(
            _JointCoordinateUpdate, _GraphSafeControlCopy, _EmptyVisibilityFix, SolverCoupledProxy
        ):
            """``SolverCoupledProxy`` with graph-safe entry control copies and no phantom shapes (see module docs)."""

        _SOLVER_CLASSES["admm"] = CoupledSolverADMM
        _SOLVER_CLASSES["proxy"] = CoupledSolverProxy
    return _SOLVER_CLASSES["admm"], _SOLVER_CLASSES["proxy"]


def _validated_entries(cfg: CouplerCfg, caller: str) -> list:
    if not isinstance(cfg, CouplerCfg):
        raise TypeError(f"{caller} expects a CouplerCfg, got {type(cfg).__name__}")
    cfg.validate()
    return cfg.entries


def prepare_builder(builder: newton.ModelBuilder, cfg: CouplerCfg) -> None:
    """Register every entry solver's custom model attributes on *builder* (before assets are added)."""
    seen: set[type] = set()
    for entry in _validated_entries(cfg, "prepare_builder"):
        if type(entry.solver_cfg) not in seen:
            seen.add(type(entry.solver_cfg))
            binding_for(entry.solver_cfg).register_builder_attributes(entry.solver_cfg, builder)


def finalize_builder(builder: newton.ModelBuilder, cfg: CouplerCfg) -> None:
    """Apply every entry solver's last builder preparation (e.g. VBD colouring); call right before finalize."""
    for entry in _validated_entries(cfg, "finalize_builder"):
        binding_for(entry.solver_cfg).prepare_builder(entry.solver_cfg, builder)


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


def _entry_factory(cfg: CouplerCfg, entry) -> Any:
    binding = binding_for(entry.solver_cfg)

    def factory(view):
        try:
            return binding.build(entry.solver_cfg, view)
        except (TypeError, ValueError) as err:
            raise type(err)(
                f"{type(cfg).__name__}.entries[{entry.name!r}]: building {type(entry.solver_cfg).__name__} failed: {err}"
            ) from err

    return factory


def _view_hook(cfg: CouplerCfg, entry: CouplerEntryCfg) -> Callable[[Any], None] | None:
    """The ``configure_view`` Newton calls for *entry*: hide the listed element kinds, then the user's hook."""
    counts = [HIDEABLE_ELEMENTS[name] for name in entry.hide_elements]
    user_hook = entry.configure_view
    if not counts and user_hook is None:
        return None
    where = f"{type(cfg).__name__}.entries[{entry.name!r}].configure_view"

    def configure_view(view) -> None:
        for count in counts:
            setattr(view, count, 0)
        if user_hook is not None:
            _call_hook(user_hook, (view,), where)

    return configure_view


def build_entries(cfg: CouplerCfg, plan: CouplingPlan) -> list:
    """Return the ``SolverCoupled.Entry`` list for a resolved plan."""
    from newton.solvers.experimental.coupled import SolverCoupled

    entries = []
    for entry in cfg.entries:
        own = plan.entries[entry.name]
        entries.append(
            SolverCoupled.Entry(
                name=entry.name,
                solver=_entry_factory(cfg, entry),
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
    """Call every entry's ``post_build(entry_solver, entry_view)``, then the coupler's ``post_build(solver, model)``."""
    cls = type(cfg).__name__
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
    admm_cls, proxy_cls = _coupled_classes()
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
                mass_scale=float(p.mapping.mass_scale),
                mode=p.mapping.mode,
                proxy_relaxation=float(p.mapping.proxy_relaxation),
                proxy_relaxation_mode=p.mapping.proxy_relaxation_mode,
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
    run_post_build_hooks(solver, model, coupler_cfg)
    if write_back:
        write_back_proxy_bodies(plan)
    return solver
