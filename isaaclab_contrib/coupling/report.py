"""A readable ownership report of a coupler config over a model: who owns what, who sees the ground."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from .coupler_cfg import CouplerCfg, _callable_name
from .ownership import CouplingPlan, CouplingWarning, resolve_coupling

if TYPE_CHECKING:
    import newton

__all__ = ["ownership_report"]


def _labels(labels: list[str], ids: list[int], limit: int) -> str:
    if not ids:
        return "-"
    shown = [labels[i] if i < len(labels) and labels[i] else f"#{i}" for i in ids[:limit]]
    more = f" ... (+{len(ids) - limit})" if len(ids) > limit else ""
    return ", ".join(shown) + more


def ownership_report(model: newton.Model, cfg: CouplerCfg, *, examples: int = 3) -> str:
    """Return a text report of how *cfg* resolves over *model*.

    Lists, per entry, the owned bodies, joints, shapes and particles (counts and example labels),
    the bodies selected by index, what the entry's view hides, its ``configure_view`` and
    ``post_build`` hooks, and whether the entry sees static geometry; then what no entry owns, the
    proxy interfaces (bodies, proxy joints, particles) and contact pairs, joints that cross entries,
    the coupler's own step and build settings, and the resolver's warnings. Raises what resolution
    raises.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CouplingWarning)
        plan: CouplingPlan = resolve_coupling(model, cfg)
    lines = [f"Ownership of {plan.coupler} over {model.world_count} world(s)", ""]
    header = f"{'entry':<12}{'solver':<22}{'bodies':>8}{'joints':>8}{'shapes':>8}{'particles':>10}  sees static"
    lines += [header, "-" * len(header)]
    for entry in cfg.entries:
        own = plan.entries[entry.name]
        lines.append(
            f"{entry.name:<12}{type(entry.solver_cfg).__name__:<22}{len(own.bodies):>8}{len(own.joints):>8}"
            f"{len(own.shapes):>8}{len(own.particles):>10}  {'yes' if own.sees_static_shapes else 'NO'}"
        )
    lines.append("")
    for entry in cfg.entries:
        own = plan.entries[entry.name]
        lines.append(f"[{entry.name}]")
        lines.append(f"  bodies: {_labels(model.body_label, own.bodies, examples)}")
        lines.append(f"  joints: {_labels(model.joint_label, own.joints, examples)}")
        lines.append(f"  shapes: {_labels(model.shape_label, own.shapes, examples)}")
        if own.particles:
            lines.append(f"  particles: {len(own.particles)} (ids {own.particles[0]}..{own.particles[-1]})")
        if entry.body_ids:
            ids = sorted(int(b) for b in entry.body_ids)
            lines.append(f"  bodies by id: {len(ids)} [{_labels(model.body_label, ids, examples)}]")
        if entry.hide_elements:
            lines.append(f"  view hides: {', '.join(entry.hide_elements)}")
        if entry.configure_view is not None:
            lines.append(f"  configure_view: {_callable_name(entry.configure_view)}")
        if entry.post_build is not None:
            lines.append(f"  post_build: {_callable_name(entry.post_build)}")
    lines.append("")
    lines.append("Owned by no entry (outside every solver):")
    lines.append(f"  bodies: {_labels(model.body_label, plan.unowned_bodies, examples)}")
    lines.append(f"  joints: {_labels(model.joint_label, plan.unowned_joints, examples)}")
    lines.append(f"  shapes: {_labels(model.shape_label, plan.unowned_shapes, examples)}")
    lines.append(f"  particles: {len(plan.unowned_particles)}")
    lines.append(f"Static shapes: {_labels(model.shape_label, plan.static_shapes, examples)}")
    if plan.contact_pairs:
        lines.append(f"ADMM contact pairs: {', '.join(f'{a} <-> {b}' for a, b in plan.contact_pairs)}")
    elif plan.coupler == "CouplerAdmmCfg":
        lines.append("ADMM contact pairs: none (contact coupling disabled)")
    for proxy in plan.proxies:
        joints = (
            f"{len(proxy.joints)} proxy joints [{_labels(model.joint_label, proxy.joints, examples)}], "
            if proxy.joints
            else ""
        )
        lines.append(
            f"Proxy {proxy.source} -> {proxy.destination} ({proxy.mapping.mode}): "
            f"{len(proxy.bodies)} bodies [{_labels(model.body_label, proxy.bodies, examples)}], "
            f"{joints}{len(proxy.particles)} particles"
        )
    if plan.cross_entry_joints:
        lines.append(
            f"Joints across entries (ADMM couples them): {_labels(model.joint_label, plan.cross_entry_joints, examples)}"
        )
    if cfg.update_joint_coordinates:
        lines.append("Joint coordinates recomputed from body poses after every step (update_joint_coordinates)")
    if cfg.post_build is not None:
        lines.append(f"Coupler post_build: {_callable_name(cfg.post_build)}")
    for message in plan.warnings:
        lines.append(f"WARNING: {message}")
    return "\n".join(lines)
