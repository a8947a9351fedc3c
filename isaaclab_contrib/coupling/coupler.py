"""``NewtonCouplerManager``: the Newton manager for a coupled simulation of named solver entries."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from isaaclab_contrib.physics.newton_manager import NewtonManager
from isaaclab_contrib.physics.sensors import CONTACT_F, SensorRecord, shape_ids_matching

from .construction import build_coupled_solver
from .coupler_cfg import CouplerAdmmCfg, CouplerCfg, CouplerProxyCfg
from .ownership import CouplingPlan, resolve_coupling

if TYPE_CHECKING:
    from isaaclab_contrib.physics.simulation_context import SimulationContext

__all__ = ["NewtonCouplerManager"]


class NewtonCouplerManager(NewtonManager):
    """Couple named Newton solver entries through proxy or ADMM interfaces.

    The simulation's ``solver_cfg`` is a :class:`CouplerAdmmCfg` or :class:`CouplerProxyCfg`.
    ``initialize_solver()`` resolves entry ownership over the finalized model, builds the coupled
    solver (see :func:`build_coupled_solver`), allocates the collision pipeline when an entry
    consumes pipeline contacts, prepares every entry's filtered contact buffer before the warm-up
    and graph capture, and then runs the same step program as :class:`NewtonManager`.
    """

    @classmethod
    def initialize(cls, sim_context: SimulationContext) -> None:
        """Bind to *sim_context*; its ``solver_cfg`` must be a coupler config (validated here)."""
        solver_cfg = sim_context.cfg.physics.solver_cfg
        if not isinstance(solver_cfg, (CouplerAdmmCfg, CouplerProxyCfg)):
            raise TypeError(
                f"NewtonCouplerManager needs NewtonCfg.solver_cfg to be a CouplerAdmmCfg or CouplerProxyCfg, got "
                f"{type(solver_cfg).__name__}"
            )
        solver_cfg.validate()
        super().initialize(sim_context)

    @classmethod
    def _coupler_cfg(cls) -> CouplerCfg:
        return cls._solver_cfg()

    @classmethod
    def _solver_cfgs(cls):
        return [entry.solver_cfg for entry in cls._coupler_cfg().entries]

    @classmethod
    def _build_solver(cls):
        cfg = cls._coupler_cfg()
        plan = resolve_coupling(cls._model, cfg)
        solver = build_coupled_solver(cls._model, cfg, plan=plan, apply_model_cfg=False)
        cls._set(_solver_info={"coupling_plan": plan})
        return solver

    @classmethod
    def _prepare_solver_contacts(cls, solver, contacts) -> None:
        """Allocate every entry's filtered contact buffer before warm-up and capture."""
        solver.prepare_contacts(contacts)

    # ------------------------------------------------------------------ observables on coupled scenes
    @classmethod
    def _allocate_observables(cls, kinds, by_sensor):
        """Body kinds come from the coupled solver (every body-owning entry must support them);
        contact forces come from the entry solver that owns all of a contact sensor's shapes."""
        solver = cls._solver
        plan = cls.get_coupling_plan()
        body_kinds = frozenset(kinds) - {CONTACT_F}
        for kind in sorted(body_kinds - solver.supported_observables):
            lacking = [
                name
                for name in solver.entry_names()
                if plan.entries[name].bodies and kind not in solver.solver(name).supported_observables
            ]
            users = [name for name, ks in by_sensor.items() if kind in ks]
            raise cls._unsupported_error(
                kind,
                users,
                f"entries {lacking} own bodies and their solvers "
                f"({', '.join(type(solver.solver(n)).__name__ for n in lacking)}) cannot produce it",
            )
        container = solver.observables(body_kinds)
        if CONTACT_F in kinds:
            sensors = [r for r in cls._contact_sensors.values() if CONTACT_F in r.observable_kinds]
            if CONTACT_F in cls._legacy_kinds:
                raise cls._unsupported_error(
                    CONTACT_F,
                    ["legacy request_extended_contact_attribute('force')"],
                    "a coupled solver has no model-wide contact forces (entries solve filtered contact buffers)",
                )
            entry_contacts = {}
            for record in sensors:
                name = record.entry
                entry_solver = solver.solver(name)
                if CONTACT_F not in entry_solver.supported_observables:
                    raise cls._unsupported_error(
                        CONTACT_F, [record.name], f"entry {name!r} runs {type(entry_solver).__name__}, which cannot"
                    )
                if name in entry_contacts:
                    continue
                contacts = solver.entry_contacts(name, cls._contacts)
                current = container.entry_observables[name]
                container.entry_observables[name] = entry_solver.observables(
                    set(current.kinds) | {CONTACT_F}, contacts=contacts
                )
                entry_contacts[name] = contacts
            cls._set(_solver_info={**cls._solver_info, "entry_contacts": entry_contacts})
        return container

    @classmethod
    def _create_contact_sensor(cls, record: SensorRecord, model):
        """Build the sensor on the view of the one entry that owns all its shapes (``None`` until the solver exists)."""
        plan = cls.get_coupling_plan()
        if plan is None or cls._solver is None:
            return None
        if cls._contacts is None:
            raise ValueError(
                f"{record.name}: no entry of this coupled simulation consumes Newton pipeline contacts, so there are "
                "no contact rows to report"
            )
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
        record.entry = entries[0]
        return super()._create_contact_sensor(record, cls._solver.view(record.entry))

    @classmethod
    def _contact_update_args(cls, record: SensorRecord, full):
        name = record.entry
        return {
            "state": cls._solver.entry_state(name, "output"),
            "contacts": cls._solver_info["entry_contacts"][name],
            "observables": full.entry_observables[name],
        }

    @classmethod
    def get_coupling_plan(cls) -> CouplingPlan | None:
        """The resolved ownership of the running simulation (entries, proxies, contact pairs)."""
        return cls._solver_info.get("coupling_plan")

    @classmethod
    def entry_names(cls) -> tuple[str, ...]:
        """Entry names in stepping order."""
        return tuple(cls._coupler_cfg().entry_names())
