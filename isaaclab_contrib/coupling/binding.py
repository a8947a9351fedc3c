"""The solver binding of coupled simulations (:class:`CouplerAdmmCfg`, :class:`CouplerProxyCfg`).

It resolves entry ownership, builds Newton's coupled solver, prepares the builder for every entry
solver (through each entry's own binding), names the entries whose solver cannot be captured, and
routes sensors' observables: body kinds come from the coupled solver (every entry that owns bodies
must produce them); contact forces come from the one entry solver that owns all of a contact
sensor's shapes, on that entry's filtered contact buffer and ``ModelView``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isaaclab_contrib.physics.sensors.observables import (
    CONTACT_F,
    new_contact_sensor,
    shape_ids_matching,
    unsupported_observable,
)
from isaaclab_contrib.physics.solvers.binding import SolverBinding, binding_for, register_binding

from .construction import build_coupled_solver
from .coupler_cfg import CouplerCfg
from .ownership import resolve_coupling, write_back_proxy_bodies

__all__ = ["CoupledBinding"]


class CoupledBinding(SolverBinding):
    """Binding of the coupler configs; see the module documentation."""

    family = "coupled"
    reset_policy = (
        "the coupled solver resets every entry solver on its entry view: full reset rebuilds the coupled solver; "
        "masked reset / FK invalidation follow each entry solver's policy"
    )

    def solver_cfgs(self, cfg: CouplerCfg) -> list:
        return [entry.solver_cfg for entry in cfg.entries]

    def register_builder_attributes(self, cfg: CouplerCfg, builder) -> None:
        seen: set[type] = set()
        for entry in cfg.entries:
            if type(entry.solver_cfg) not in seen:
                seen.add(type(entry.solver_cfg))
                binding_for(entry.solver_cfg).register_builder_attributes(entry.solver_cfg, builder)

    def prepare_builder(self, cfg: CouplerCfg, builder) -> None:
        for entry in cfg.entries:
            binding_for(entry.solver_cfg).prepare_builder(entry.solver_cfg, builder)

    def build(self, cfg: CouplerCfg, model: Any):
        return self.construct(cfg, model)[0]

    def construct(self, cfg: CouplerCfg, model: Any):
        plan = resolve_coupling(model, cfg)
        solver = build_coupled_solver(model, cfg, plan=plan, apply_model_cfg=False, write_back=False)
        return solver, {"coupling_plan": plan}

    def commit(self, cfg: CouplerCfg, info: dict[str, Any]) -> None:
        write_back_proxy_bodies(info["coupling_plan"])

    def needs_collision_pipeline(self, cfg: CouplerCfg) -> bool:
        return any(binding_for(entry.solver_cfg).needs_collision_pipeline(entry.solver_cfg) for entry in cfg.entries)

    def prepare_contacts(self, solver: Any, contacts: Any) -> None:
        solver.prepare_contacts(contacts)

    def graph_blockers(self, cfg: CouplerCfg, device: str) -> list[str]:
        return [
            f"entry {entry.name!r}: {reason}"
            for entry in cfg.entries
            for reason in binding_for(entry.solver_cfg).graph_blockers(entry.solver_cfg, device)
        ]

    def masked_reset_blockers(self, cfg: CouplerCfg, world_count: int) -> list[str]:
        return [
            f"entry {entry.name!r}: {reason}"
            for entry in cfg.entries
            for reason in binding_for(entry.solver_cfg).masked_reset_blockers(entry.solver_cfg, world_count)
        ]

    # ------------------------------------------------------------------ observables routing
    def allocate_observables(self, instance: Any, part: Any, kinds: frozenset[str], by_sensor: dict) -> Any:
        solver, plan = part.solver, part.info["coupling_plan"]
        manager = instance.session.manager_name
        body_kinds = frozenset(kinds) - {CONTACT_F}
        for kind in sorted(body_kinds - solver.supported_observables):
            lacking = [
                name
                for name in solver.entry_names()
                if plan.entries[name].bodies and kind not in solver.solver(name).supported_observables
            ]
            users = [name for name, ks in by_sensor.items() if kind in ks]
            raise unsupported_observable(
                manager,
                kind,
                users,
                f"entries {lacking} own bodies and their solvers "
                f"({', '.join(type(solver.solver(n)).__name__ for n in lacking)}) cannot produce it",
            )
        container = solver.observables(body_kinds)
        if CONTACT_F not in kinds:
            return container
        entry_contacts: dict[str, Any] = {}
        for record in instance.session.sensor_records():
            if CONTACT_F not in record.observable_kinds:
                continue
            name = part.sensors[id(record)].entry
            entry_solver = solver.solver(name)
            if CONTACT_F not in entry_solver.supported_observables:
                raise unsupported_observable(
                    manager,
                    CONTACT_F,
                    [record.name],
                    f"entry {name!r} runs {type(entry_solver).__name__}, which cannot",
                )
            if name in entry_contacts:
                continue
            contacts = solver.entry_contacts(name, part.contacts)
            current = container.entry_observables[name]
            container.entry_observables[name] = entry_solver.observables(
                set(current.kinds) | {CONTACT_F}, contacts=contacts
            )
            entry_contacts[name] = contacts
        part.info["entry_contacts"] = entry_contacts
        return container

    def create_contact_sensor(self, instance: Any, part: Any, record: Any):
        """Build the sensor on the view of the one entry that owns all its shapes (and partners)."""
        if part.contacts is None:
            raise ValueError(
                f"{record.name}: no entry of this coupled simulation consumes Newton pipeline contacts, so there are "
                "no contact rows to report"
            )
        model = instance.model
        plan = part.info["coupling_plan"]
        bodies, shapes, partner_bodies, partner_shapes = record.request["key"]
        shape_body = model.shape_body.numpy()

        def shapes_of(body_pattern, shape_pattern):
            ids = set(shape_ids_matching(model.shape_label, shape_pattern).tolist())
            body_ids = shape_ids_matching(model.body_label, body_pattern)
            if body_ids.size:
                ids.update(np.nonzero(np.isin(shape_body, body_ids))[0].tolist())
            return ids

        sensing = shapes_of(bodies, shapes)
        if not sensing:
            raise ValueError(f"{record.name}: the expressions match no body with shapes and no shape")
        involved = sensing | shapes_of(partner_bodies, partner_shapes)
        owner = {shape: name for name, own in plan.entries.items() for shape in own.shapes}
        entries = sorted({owner.get(shape, "<no entry>") for shape in involved})
        if len(entries) != 1 or entries[0] == "<no entry>":
            raise ValueError(
                f"{record.name}: its shapes belong to entries {entries}. A contact sensor on a coupled scene reports "
                "one entry solver's contact forces, so all sensed shapes (and partners) must be owned by one entry; "
                "cross-entry coupling forces are not Newton contact rows. Narrow the expressions or move the shapes "
                "(e.g. the ground: include_static_shapes) into one entry."
            )
        entry = entries[0]
        return new_contact_sensor(part.solver.view(entry), record), entry

    def contact_update_args(self, instance: Any, part: Any, runtime: Any, full: Any) -> dict[str, Any]:
        name = runtime.entry
        return {
            "state": part.solver.entry_state(name, "output"),
            "contacts": part.info["entry_contacts"][name],
            "observables": full.entry_observables[name],
        }


register_binding(CouplerCfg, CoupledBinding())
