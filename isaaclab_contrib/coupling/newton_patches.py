"""Guarded overrides of Newton 1.8's coupled solvers, one mixin per upstream defect or missing step.

``coupled_solver_classes()`` returns subclasses of ``SolverCoupledADMM`` and ``SolverCoupledProxy``
with these mixins; it checks first that the Newton internals they override exist (and names what
is missing otherwise), so a Newton that changed them fails loudly instead of silently.

``_GraphSafeControlCopy`` (defect: a CPU graph cannot be recorded). Newton copies the full-model control into each entry's control on every entry step. Control
custom attributes (``mujoco:ctrl`` of an MJCF-imported robot, for instance) are copied with
``wp.copy(dst, src[local_to_global])``, an indexed copy that Warp cannot record in a CPU graph, so
no coupled scene with such a robot could be captured on the CPU. The solvers here gather those
rows with a kernel of their own (graph-safe on every device, same values) and let Newton copy
everything else as before.

``_JointCoordinateUpdate`` (a step Newton's examples run in their loops, not in the solver). With
:attr:`~isaaclab_contrib.coupling.CouplerCfg.update_joint_coordinates` they recompute the output
state's joint coordinates from its body poses after every step (``newton.eval_ik``), as Newton's ADMM
examples do in their loops.

``_EmptyVisibilityFix`` (defect: phantom contacts). They neutralize a Newton 1.8 defect in ``SolverCoupled``'s per-entry shape visibility:
when an entry's visible shape set is empty (it owns no shape, receives no proxy body with shapes
and the model has no static shape), Newton returns early and hides *nothing*, so the entry (say a
particle-only VBD cloth) sees every other entry's shapes as static colliders at their body-local
transforms and receives phantom contacts against them. The solvers built here hide every shape
from such an entry, at construction and again after ``notify_model_changed``.

``_AdmmDiagnosticsHook`` / ``_ProxyDiagnosticsHook`` (a missing observable: Newton exposes no per-iteration
coupling residuals). While a :class:`~isaaclab_contrib.coupling.coupling_diagnostics.CouplingDiagnostics` is attached
around a coupled step, they hand it every ADMM dual update (``_update_admm_dual``) or proxy pass
(``_step_proxy``, ``_stash_proxy_feedback``, ``_blend_proxy_feedback``); otherwise they only call Newton's
methods. :class:`~isaaclab_contrib.coupling.coupling_diagnostics.CouplingDiagnostics` checks that these Newton methods
exist (and names what is missing) when the diagnostics are requested.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import warp as wp

__all__ = ["coupled_solver_classes"]


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


class _AdmmDiagnosticsHook:
    """Mixin over ``SolverCoupledADMM``: while a :class:`~isaaclab_contrib.coupling.coupling_diagnostics.CouplingDiagnostics`
    is attached (``_coupling_probe``, only around the coupled steps of a program with coupling diagnostics), it
    sees every ADMM dual update, to compute that iteration's per-env primal and dual residuals. Detached, the
    solver runs exactly Newton's code."""

    _coupling_probe = None

    def _update_admm_dual(self, iteration_k, dt):
        probe = self._coupling_probe
        if probe is not None:
            probe.admm_before_dual(self)
        super()._update_admm_dual(iteration_k, dt)
        if probe is not None:
            probe.admm_after_dual(self)


class _ProxyDiagnosticsHook:
    """Mixin over ``SolverCoupledProxy``: while a diagnostics object is attached it sees every proxy pass, the
    feedback each mapping carries into the pass and the raw feedback harvested from it (before relaxation),
    to compute the per-env change of the feedback between passes. Detached, the solver runs Newton's code."""

    _coupling_probe = None

    def _step_proxy(self, *args, **kwargs):
        probe = self._coupling_probe
        if probe is not None:
            probe.proxy_begin_pass(self)
        super()._step_proxy(*args, **kwargs)
        if probe is not None:
            probe.proxy_end_pass(self)

    def _stash_proxy_feedback(self, proxy):
        if self._coupling_probe is not None:
            self._coupling_probe.proxy_stash(self, proxy)
        super()._stash_proxy_feedback(proxy)

    def _blend_proxy_feedback(self, proxy):
        if self._coupling_probe is not None:
            self._coupling_probe.proxy_harvested(self, proxy)
        super()._blend_proxy_feedback(proxy)


_SOLVER_CLASSES: dict[str, type] = {}


def coupled_solver_classes() -> tuple[type, type]:
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

        class CoupledSolverADMM(
            _AdmmDiagnosticsHook, _JointCoordinateUpdate, _GraphSafeControlCopy, _EmptyVisibilityFix, SolverCoupledADMM
        ):
            """``SolverCoupledADMM`` with graph-safe entry control copies and no phantom shapes (see module docs)."""

        class CoupledSolverProxy(
            _ProxyDiagnosticsHook,
            _JointCoordinateUpdate,
            _GraphSafeControlCopy,
            _EmptyVisibilityFix,
            SolverCoupledProxy,
        ):
            """``SolverCoupledProxy`` with graph-safe entry control copies and no phantom shapes (see module docs)."""

        _SOLVER_CLASSES["admm"] = CoupledSolverADMM
        _SOLVER_CLASSES["proxy"] = CoupledSolverProxy
    return _SOLVER_CLASSES["admm"], _SOLVER_CLASSES["proxy"]
