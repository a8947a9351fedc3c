"""Coupling diagnostics: per env, how far the coupling iterations of the last env step were from converged.

:class:`CouplingDiagnostics` computes, inside the coupled step, the residual of every coupling iteration of every
coupled step. ADMM: the primal residual ``rho W^2 |u - Jv|`` (the change of the interface force at the dual
update) and the dual residual ``rho W^2 |u_k - u_{k-1}|``, both [N], over the force ``|W lambda|``; proxy: the
change of the harvested feedback between passes [N, N*m] over the feedback. Newton exposes no residuals: they are
computed from its iteration buffers in hooks the solver classes of :mod:`~isaaclab_contrib.coupling.newton_patches`
call while a diagnostics object is attached (``_update_admm_dual``, ``_step_proxy``, ``_stash_proxy_feedback``,
``_blend_proxy_feedback``). The bound coupled solver makes it
(:meth:`~isaaclab_contrib.coupling.binding.BoundCoupledSolver.coupling_diagnostics`); the sensor attaches it to
the solver around every coupled step and publishes the env step's figures once per env step.
"""

# No ``from __future__ import annotations`` here: the per-dtype kernels' annotations name their factory's
# ``dtype``, which Warp resolves only from evaluated annotations.

from typing import Any

import warp as wp

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime

from .coupler_internals import (
    ADMM_GROUPS,
    CouplerInternalsError,
    RowCounts,
    gather_rows_kernel,
    per_dtype,
    require_internals,
)

__all__ = ["FORCE_FLOOR", "CouplingDiagnostics", "CouplingDiagnosticsRequest", "CouplingDiagnosticsSensor"]

FORCE_FLOOR = 1.0e-6
"""Smallest interface force a relative residual is divided by [N] (envs without coupling forces read 0)."""


# --------------------------------------------------------------------------------------------- kernels
@wp.kernel(enable_backward=False)
def _zero_env_sums_kernel(
    a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float), d: wp.array(dtype=float)
):
    e = wp.tid()
    a[e] = 0.0
    b[e] = 0.0
    c[e] = 0.0
    d[e] = 0.0


@wp.kernel(enable_backward=False)
def _admm_residual_rows_kernel(
    active_count: wp.array(dtype=wp.int32),
    by_particle: int,
    ids: wp.array(dtype=wp.int32),
    body_l2g: wp.array(dtype=wp.int32),
    body_world: wp.array(dtype=wp.int32),
    particle_world: wp.array(dtype=wp.int32),
    rho: float,
    W: wp.array(dtype=float),
    u: wp.array(dtype=wp.vec3),
    Jv: wp.array(dtype=wp.vec3),
    u_prev: wp.array(dtype=wp.vec3),
    lam: wp.array(dtype=wp.vec3),
    primal2: wp.array(dtype=float),
    dual2: wp.array(dtype=float),
    force2: wp.array(dtype=float),
    previous2: wp.array(dtype=float),
):
    i = wp.tid()
    if i >= active_count[0]:
        return
    w = -1
    if by_particle != 0:
        w = particle_world[ids[i]]
    else:
        w = body_world[body_l2g[ids[i]]]
    if w < 0 or w >= primal2.shape[0]:
        return
    W_i = W[i]
    scale = rho * W_i * W_i
    change = scale * (u[i] - Jv[i])  # the change of the row's force W lambda at this dual update
    wp.atomic_add(primal2, w, wp.length_sq(change))
    wp.atomic_add(dual2, w, scale * scale * wp.length_sq(u[i] - u_prev[i]))
    force = W_i * lam[i]
    wp.atomic_add(force2, w, wp.length_sq(force))
    wp.atomic_add(previous2, w, wp.length_sq(force - change))


@per_dtype
def _proxy_change_kernel(dtype: type) -> wp.Kernel:
    """Proxy feedback of *dtype* (body wrenches or particle forces): per env, the squared change since the pass
    began, the squared harvested feedback and the squared feedback the pass applied."""

    @wp.kernel(enable_backward=False, module="unique")
    def proxy_change(
        src_ids: wp.array(dtype=wp.int32),
        proxy_ids: wp.array(dtype=wp.int32),
        world: wp.array(dtype=wp.int32),
        values: wp.array(dtype=dtype),
        previous: wp.array(dtype=dtype),
        change2: wp.array(dtype=float),
        force2: wp.array(dtype=float),
        previous2: wp.array(dtype=float),
    ):
        i = wp.tid()
        w = world[src_ids[i]]
        if w < 0 or w >= change2.shape[0]:
            return
        raw = values[proxy_ids[i]]
        delta = raw - previous[i]
        wp.atomic_add(change2, w, wp.dot(delta, delta))
        wp.atomic_add(force2, w, wp.dot(raw, raw))
        wp.atomic_add(previous2, w, wp.dot(previous[i], previous[i]))

    return proxy_change


@wp.kernel(enable_backward=False)
def _finish_iteration_kernel(
    k: int,
    last: int,
    iterations: int,
    tolerance: float,
    floor: float,
    primal2: wp.array(dtype=float),
    dual2: wp.array(dtype=float),
    force2: wp.array(dtype=float),
    previous2: wp.array(dtype=float),
    history: wp.array(dtype=float),
    residual: wp.array(dtype=float),
    primal: wp.array(dtype=float),
    dual: wp.array(dtype=float),
    force: wp.array(dtype=float),
    first_converged: wp.array(dtype=wp.int32),
):
    e = wp.tid()
    p = wp.sqrt(primal2[e])
    d = wp.sqrt(dual2[e])
    f = wp.sqrt(force2[e])
    r = wp.max(p, d) / wp.max(wp.max(f, wp.sqrt(previous2[e])), floor)
    history[e * iterations + k] = r
    if k == 0:
        first_converged[e] = -1
    if r <= tolerance and first_converged[e] < 0:
        first_converged[e] = k + 1
    if last != 0:
        residual[e] = r
        primal[e] = p
        dual[e] = d
        force[e] = f


@wp.kernel(enable_backward=False)
def _fold_step_kernel(residual: wp.array(dtype=float), residual_max: wp.array(dtype=float)):
    e = wp.tid()
    residual_max[e] = wp.max(residual_max[e], residual[e])


@wp.kernel(enable_backward=False)
def _broadcast_relaxation_kernel(relaxation: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[wp.tid()] = relaxation[0]


@wp.kernel(enable_backward=False)
def _publish_kernel(
    tolerance: float,
    iterations: int,
    residual: wp.array(dtype=float),
    residual_max: wp.array(dtype=float),
    primal: wp.array(dtype=float),
    dual: wp.array(dtype=float),
    force: wp.array(dtype=float),
    first_converged: wp.array(dtype=wp.int32),
    history: wp.array(dtype=float),
    relaxation: wp.array(dtype=float),
    out_residual: wp.array(dtype=float),
    out_residual_max: wp.array(dtype=float),
    out_converged: wp.array(dtype=wp.bool),
    out_primal: wp.array(dtype=float),
    out_dual: wp.array(dtype=float),
    out_force: wp.array(dtype=float),
    out_first: wp.array(dtype=wp.int32),
    out_history: wp.array(dtype=float),
    out_relaxation: wp.array(dtype=float),
):
    e = wp.tid()
    out_residual[e] = residual[e]
    out_residual_max[e] = residual_max[e]
    out_converged[e] = residual_max[e] <= tolerance
    out_primal[e] = primal[e]
    out_dual[e] = dual[e]
    out_force[e] = force[e]
    out_first[e] = first_converged[e]
    out_relaxation[e] = relaxation[e]
    for k in range(iterations):
        out_history[e * iterations + k] = history[e * iterations + k]
    residual_max[e] = 0.0


class CouplingDiagnostics:
    """Per-env residuals of the coupling iterations, computed inside the coupled step (see the module docs).

    While attached (:meth:`begin_step` ... :meth:`end_step`, around each coupled step), the solver's hooks call
    it after every iteration; :meth:`publish` (once per env step) writes the env step's figures into the
    ``out_*`` arrays. Nothing stays attached between coupled steps.

    Args:
        solver: The coupled Newton solver (built from this package's classes, which carry the hooks).
        model: The finalized model.
        tolerance: Relative residual under which a coupled step counts as converged [dimensionless].
        what: The consumer, for messages.
    """

    def __init__(self, solver: Any, model: Any, tolerance: float, what: str):
        self.kind = require_internals(solver, what, hooks=True)
        if not hasattr(type(solver), "_coupling_probe"):
            raise CouplerInternalsError(
                f"{what}: {type(solver).__name__} has no diagnostics hooks; build the coupled solver with "
                "isaaclab_contrib.coupling.build_coupled_solver"
            )
        device = model.device
        self.solver, self.model, self.device = solver, model, device
        self.tolerance = float(tolerance)
        self.iterations = int(solver._coupling.iterations)
        envs = max(int(model.world_count), 1)
        self.num_envs = envs

        def zeros(count=envs, dtype=float):
            return wp.zeros(count, dtype=dtype, device=device)

        self._primal2, self._dual2, self._force2, self._previous2 = zeros(), zeros(), zeros(), zeros()
        self._history = zeros(envs * self.iterations)
        self._residual, self._primal, self._dual, self._force = zeros(), zeros(), zeros(), zeros()
        self._first = zeros(dtype=wp.int32)
        self._residual_max = zeros()
        self._relaxation = wp.full(envs, 1.0, dtype=float, device=device)
        self.out = {
            "residual": zeros(),
            "residual_max": zeros(),
            "converged": zeros(dtype=wp.bool),
            "primal_residual": zeros(),
            "dual_residual": zeros(),
            "interface_force": zeros(),
            "iterations_to_tolerance": zeros(dtype=wp.int32),
            "residual_history": zeros(envs * self.iterations),
            "relaxation": zeros(),
            "iterations": wp.full(envs, self.iterations, dtype=wp.int32, device=device),
        }
        """Published arrays (flat ``residual_history``: ``env * iterations + k``)."""
        self._k = 0
        self._u_prev: dict[int, wp.array] = {}
        self._previous: dict[int, wp.array] = {}
        self._aitken = None
        if self.kind == "admm":
            groups = [group for attr in ADMM_GROUPS.values() for group in getattr(solver, attr) if group.count]
            self._u_prev = {id(group): wp.zeros_like(group.u) for group in groups}
            self._counts = RowCounts(groups, device)
        else:
            self._gather_on = wp.ones(1, dtype=wp.int32, device=device)
            for mapping in (*solver._proxy_mappings, *solver._proxy_particle_mappings):
                self._previous[id(mapping)] = wp.zeros(
                    mapping.proxy_ids_global.shape[0], dtype=mapping.coupling_forces.dtype, device=device
                )
                if self._aitken is None and getattr(mapping, "aitken_relaxation", None) is not None:
                    self._aitken = mapping.aitken_relaxation
        self.has_aitken = self._aitken is not None
        """Whether a proxy mapping adapts its relaxation (Aitken); ``out["relaxation"]`` then holds its factor."""

    # ------------------------------------------------------------------ around one coupled step
    def begin_step(self) -> None:
        """Attach to the solver for the coupled step about to run."""
        self._k = 0
        self.solver._coupling_probe = self

    def end_step(self) -> None:
        """Detach, and fold the step's residual into the env step's maximum."""
        self.solver._coupling_probe = None
        wp.launch(_fold_step_kernel, dim=self.num_envs, inputs=[self._residual, self._residual_max], device=self.device)
        if self._aitken is not None:
            wp.launch(
                _broadcast_relaxation_kernel,
                dim=self.num_envs,
                inputs=[self._aitken, self._relaxation],
                device=self.device,
            )

    def publish(self) -> None:
        """Write the env step's figures into :attr:`out` and restart the env step's maximum."""
        out = self.out
        wp.launch(
            _publish_kernel,
            dim=self.num_envs,
            inputs=[
                self.tolerance,
                self.iterations,
                self._residual,
                self._residual_max,
                self._primal,
                self._dual,
                self._force,
                self._first,
                self._history,
                self._relaxation,
            ],
            outputs=[
                out["residual"],
                out["residual_max"],
                out["converged"],
                out["primal_residual"],
                out["dual_residual"],
                out["interface_force"],
                out["iterations_to_tolerance"],
                out["residual_history"],
                out["relaxation"],
            ],
            device=self.device,
        )

    # ------------------------------------------------------------------ hooks (called by the solver)
    def _finish_iteration(self) -> None:
        k = self._k
        wp.launch(
            _finish_iteration_kernel,
            dim=self.num_envs,
            inputs=[
                min(k, self.iterations - 1),
                int(k >= self.iterations - 1),
                self.iterations,
                self.tolerance,
                FORCE_FLOOR,
                self._primal2,
                self._dual2,
                self._force2,
                self._previous2,
            ],
            outputs=[self._history, self._residual, self._primal, self._dual, self._force, self._first],
            device=self.device,
        )
        self._k = k + 1

    def _zero_sums(self) -> None:
        wp.launch(
            _zero_env_sums_kernel,
            dim=self.num_envs,
            inputs=[self._primal2, self._dual2, self._force2, self._previous2],
            device=self.device,
        )

    def admm_before_dual(self, solver: Any) -> None:
        for attr in ADMM_GROUPS.values():
            for group in getattr(solver, attr):
                previous = self._u_prev.get(id(group))
                if previous is not None:
                    wp.copy(previous, group.u)

    def admm_after_dual(self, solver: Any) -> None:
        self._zero_sums()
        model, entries, rho = self.model, solver._entries, float(solver._coupling.rho)
        for row_kind, attr in ADMM_GROUPS.items():
            for group in getattr(solver, attr):
                previous = self._u_prev.get(id(group))
                if previous is None:
                    continue
                if row_kind.startswith("rp_"):
                    by_particle, ids, l2g = 0, group.body_ids, entries[group.body_entry_name].body_local_to_global
                elif row_kind.startswith("rr_"):
                    by_particle, ids, l2g = 0, group.body_ids_a, entries[group.body_entry_name_a].body_local_to_global
                else:
                    by_particle, ids, l2g = 1, group.particle_ids_a, group.particle_ids_a
                wp.launch(
                    _admm_residual_rows_kernel,
                    dim=group.count,
                    inputs=[
                        self._counts(group),
                        by_particle,
                        ids,
                        l2g,
                        model.body_world if model.body_count else self._first,
                        model.particle_world if model.particle_count else self._first,
                        rho,
                        group.W,
                        group.u,
                        group.Jv,
                        previous,
                        group.lambda_,
                    ],
                    outputs=[self._primal2, self._dual2, self._force2, self._previous2],
                    device=self.device,
                )
        self._finish_iteration()

    def proxy_begin_pass(self, solver: Any) -> None:
        del solver
        self._zero_sums()

    def proxy_stash(self, solver: Any, mapping: Any) -> None:
        del solver
        previous = self._previous.get(id(mapping))
        if previous is None or previous.shape[0] == 0:
            return
        wp.launch(
            gather_rows_kernel(previous.dtype),
            dim=previous.shape[0],
            inputs=[self._gather_on, mapping.proxy_ids_global, mapping.coupling_forces],
            outputs=[previous],
            device=self.device,
        )

    def proxy_harvested(self, solver: Any, mapping: Any) -> None:
        del solver
        previous = self._previous.get(id(mapping))
        if previous is None or previous.shape[0] == 0:
            return
        spatial = mapping.coupling_forces.dtype == wp.spatial_vector
        world = self.model.body_world if spatial else self.model.particle_world
        wp.launch(
            _proxy_change_kernel(previous.dtype),
            dim=previous.shape[0],
            inputs=[mapping.src_ids, mapping.proxy_ids_global, world, mapping.coupling_forces, previous],
            outputs=[self._primal2, self._force2, self._previous2],
            device=self.device,
        )

    def proxy_end_pass(self, solver: Any) -> None:
        del solver
        self._finish_iteration()


# --------------------------------------------------------------------------------------------- the sensor
class CouplingDiagnosticsSensor:
    """Zero-copy torch views of the diagnostics (see :meth:`NewtonCouplerManager.get_coupling_diagnostics`)."""

    def __init__(self, diagnostics: CouplingDiagnostics):
        self.kind = diagnostics.kind
        """``"admm"`` or ``"proxy"``."""
        self.tolerance = diagnostics.tolerance
        """``CouplerCfg.convergence_tolerance`` the ``"converged"`` flags use [dimensionless]."""
        self.iterations = diagnostics.iterations
        """Coupling iterations run per coupled step (the config's fixed budget) [count]."""
        envs, iterations = diagnostics.num_envs, diagnostics.iterations
        # Published name -> the array of CouplingDiagnostics.out it views.
        names = {key: key for key in ("residual", "residual_max", "converged", "iterations", "iterations_to_tolerance")}
        if self.kind == "admm":
            names.update({key: key for key in ("primal_residual", "dual_residual", "interface_force")})
        else:
            names.update({"feedback_change": "primal_residual", "feedback": "interface_force"})
            if diagnostics.has_aitken:
                names["aitken_relaxation"] = "relaxation"
        out = diagnostics.out
        self.tensors: dict[str, Any] = {name: wp.to_torch(out[source]) for name, source in names.items()}
        self.tensors["residual_history"] = wp.to_torch(out["residual_history"]).view(envs, iterations)
        self._diagnostics = diagnostics


class CouplingDiagnosticsRequest(SensorRequest):
    """The coupling diagnostics of the running coupled solver (one per simulation)."""

    kind = "coupling_diagnostics"

    def __init__(self):
        super().__init__("coupling_diagnostics")

    def create(self, build: SensorBuild) -> SensorRuntime:
        coupled = build.bound.as_coupled(self.name, "coupling diagnostics")
        return _DiagnosticsRuntime(CouplingDiagnosticsSensor(coupled.coupling_diagnostics(self.name)))


class _DiagnosticsRuntime(SensorRuntime):
    samples_substeps = True

    def begin_substep(self, state_in: Any) -> None:
        del state_in
        self.sensor._diagnostics.begin_step()

    def end_substep(self, state_out: Any, dt: float) -> None:
        del state_out, dt
        self.sensor._diagnostics.end_step()

    def update(self, state: Any) -> None:
        del state
        self.sensor._diagnostics.publish()
