"""Kinematic (prescribed-pose) coupling on top of Newton's proxy coupler, and per-entry gravity.

Newton's ``cloth_franka`` and ``softbody_franka`` examples step the robot without gravity and then step VBD
with ``integrate_with_external_rigid_solver=True``: VBD integrates no body, it reads each body's pose at the
start of the step from its input state and the pose and velocity at the end from its output state. Newton's
``SolverCoupledProxy`` mirrors source bodies into the destination's *input* state only (``mode="lagged"``: the
start poses), so a VBD destination that integrates no body would read stale end poses from its output state.

:func:`install_prescribed_poses` closes that gap for the mappings marked
:attr:`~.coupler_cfg.CouplerProxyMappingCfg.kinematic`: right before the destination VBD steps, the source
entry's end-of-step poses and velocities are written into the destination's output state with Newton's own
proxy sync kernel, through the same per-mapping index map Newton built. That is one more kernel launch per
mapping and pass, with fixed arrays, so the step stays graph-capturable.

:func:`gravity_override` gives an entry its own gravity (:attr:`~.coupler_cfg.CouplerEntryCfg.gravity`) by
replacing ``gravity`` on the entry's ``ModelView``, which every Newton solver reads at step time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import warp as wp

from .coupler_cfg import CouplerCfg, CouplerProxyCfg

__all__ = ["gravity_override", "install_prescribed_poses"]


def gravity_override(view: Any, gravity: Sequence[float]) -> None:
    """Set ``view.gravity`` to a new per-world array holding *gravity* [m/s^2] in every world."""
    world_count = int(view.gravity.shape[0])
    view.gravity = wp.full(world_count, wp.vec3(*(float(g) for g in gravity)), dtype=wp.vec3, device=view.device)


class _PrescribedPoseStep:
    """The destination solver's ``step`` preceded by the copy of the source entries' end poses into the
    output state (see the module documentation)."""

    def __init__(self, step: Any, sources: list[tuple[Any, Any]], device: Any):
        self._step = step
        self._sources = sources  # (source SolverEntry, Newton's _ProxyEntityMapping)
        self._device = device

    def __call__(self, state_in: Any, state_out: Any, control: Any, contacts: Any, dt: float, **kwargs: Any) -> Any:
        from newton._src.solvers.coupled.proxy_utils import sync_proxy_states_kernel

        for source, mapping in self._sources:
            end = source.state_0 if source.in_place else source.state_1
            wp.launch(
                sync_proxy_states_kernel,
                dim=mapping.source_local_to_proxy_local.shape[0],
                inputs=[
                    end.body_q,
                    end.body_qd,
                    mapping.source_local_to_proxy_local,
                    state_out.body_q,
                    state_out.body_qd,
                ],
                device=self._device,
            )
        return self._step(state_in, state_out, control, contacts, dt, **kwargs)


def install_prescribed_poses(solver: Any, cfg: CouplerCfg) -> None:
    """Make every destination of a kinematic mapping of *cfg* read its proxies' end poses from their source.

    Args:
        solver: The ``SolverCoupledProxy`` built from *cfg* (nothing is done for other couplers).
        cfg: The validated coupler config.

    Raises:
        RuntimeError: The installed Newton no longer exposes the proxy mappings this relies on (the message
            names the destination entry).
    """
    if not isinstance(cfg, CouplerProxyCfg):
        return
    destinations = sorted({m.destination for m in cfg.proxies if m.kinematic})
    for name in destinations:
        mappings = getattr(solver, "_proxy_mappings", None)
        entries = getattr(solver, "_entries", None)
        if mappings is None or entries is None:
            raise RuntimeError(
                f"{type(cfg).__name__}: kinematic proxies into {name!r} need SolverCoupledProxy's proxy mappings, "
                "which the installed Newton does not expose"
            )
        sources = [
            (entries[m.src_name], m)
            for m in mappings
            if m.dst_name == name and m.source_local_to_proxy_local is not None and m.src_ids is not None
        ]
        if not sources:
            continue
        destination = entries[name]
        destination.solver.step = _PrescribedPoseStep(destination.solver.step, sources, solver.model.device)
