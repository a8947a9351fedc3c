"""The solver binding of coupled simulations (:class:`CouplerAdmmCfg`, :class:`CouplerProxyCfg`).

:class:`CoupledBinding` answers the pre-build questions through each entry's own family binding
(custom attributes, builder preparation, pipeline contacts, capture and masked-reset rules, each
reason prefixed with the entry's name). :meth:`CoupledBinding.bind` resolves entry ownership,
builds Newton's coupled solver and returns a :class:`BoundCoupledSolver`, which owns the coupling
plan, every entry's bound solver and the entries' filtered contact buffers, and routes sensors'
observables: body kinds come from the coupled solver (every entry that owns bodies must produce
them); contact forces come from the one entry solver that owns all of a contact sensor's shapes,
on that entry's filtered contact buffer and ``ModelView``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import newton
import torch
import warp as wp

from isaaclab_contrib.physics.sensors.observables import CONTACT_F, unsupported_observable
from isaaclab_contrib.physics.solvers.binding import (
    BoundSolver,
    SolverBinding,
    joint_refusal,
    observable_producers,
    register_binding,
    write_array_rows,
)

from .construction import build_coupled_solver, entry_bindings, prepare_entry_builders, register_entry_attributes
from .coupler_cfg import CouplerCfg
from .coupling_diagnostics import CouplingDiagnostics
from .interface_force import InterfaceForceSampler, make_interface_force_sampler
from .ownership import CouplingPlan, resolve_coupling, write_back_proxy_bodies
from .penetration import PenetrationPairs, resolve_penetration

__all__ = ["BoundCoupledSolver", "CoupledBinding"]


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
        register_entry_attributes(builder, cfg)

    def prepare_builder(self, cfg: CouplerCfg, builder) -> None:
        prepare_entry_builders(builder, cfg)

    def needs_collision_pipeline(self, cfg: CouplerCfg) -> bool:
        return any(binding.needs_collision_pipeline(entry.solver_cfg) for entry, binding in entry_bindings(cfg))

    def graph_blockers(self, cfg: CouplerCfg, device: str) -> list[str]:
        return [
            f"entry {entry.name!r}: {reason}"
            for entry, binding in entry_bindings(cfg)
            for reason in binding.graph_blockers(entry.solver_cfg, device)
        ]

    def masked_reset_blockers(self, cfg: CouplerCfg, world_count: int) -> list[str]:
        return [
            f"entry {entry.name!r}: {reason}"
            for entry, binding in entry_bindings(cfg)
            for reason in binding.masked_reset_blockers(entry.solver_cfg, world_count)
        ]

    def usd_schema_resolvers(self, cfg: CouplerCfg) -> list[type]:
        """Every entry family's resolvers, once each, in entry order."""
        resolvers: list[type] = []
        for entry, binding in entry_bindings(cfg):
            resolvers += [r for r in binding.usd_schema_resolvers(entry.solver_cfg) if r not in resolvers]
        return resolvers

    def build(self, cfg: CouplerCfg, model: Any):
        return self.bind(cfg, model).solver

    def bind(self, cfg: CouplerCfg, model: Any) -> BoundCoupledSolver:
        """Resolve ownership over *model*, build the coupled solver and bind every entry's solver (*cfg* was
        validated when the simulation started)."""
        plan = resolve_coupling(model, cfg, validated=True)
        solver = build_coupled_solver(model, cfg, plan=plan, apply_model_cfg=False, write_back=False)
        entries = {
            entry.name: BoundSolver(binding, entry.solver_cfg, solver.view(entry.name), solver.solver(entry.name))
            for entry, binding in entry_bindings(cfg)
        }
        return BoundCoupledSolver(self, cfg, model, solver, plan, entries)


_FREQUENCY = newton.Model.AttributeFrequency
_ROW_FREQUENCY = {
    "tri_materials": _FREQUENCY.TRIANGLE,
    "edge_bending_properties": _FREQUENCY.EDGE,
    "tet_materials": _FREQUENCY.TETRAHEDRON,
    "body_mass": _FREQUENCY.BODY,
    "body_inv_mass": _FREQUENCY.BODY,
    "body_inertia": _FREQUENCY.BODY,
    "body_inv_inertia": _FREQUENCY.BODY,
    "shape_material_mu": _FREQUENCY.SHAPE,
    "shape_material_restitution": _FREQUENCY.SHAPE,
    "shape_material_ke": _FREQUENCY.SHAPE,
    "shape_material_kd": _FREQUENCY.SHAPE,
    "joint_target_ke": _FREQUENCY.JOINT_DOF,
    "joint_target_kd": _FREQUENCY.JOINT_DOF,
    "joint_armature": _FREQUENCY.JOINT_DOF,
    "joint_friction": _FREQUENCY.JOINT_DOF,
    "gravity": _FREQUENCY.WORLD,
    "particle_mass": _FREQUENCY.PARTICLE,
    "particle_inv_mass": _FREQUENCY.PARTICLE,
}
"""The per-element model arrays a coupled entry may hold its own copy of, by Newton's attribute frequency."""


class BoundCoupledSolver(BoundSolver):
    """Newton's coupled solver of one build, with its plan, bound entries and entry contacts.

    Args:
        binding: The coupled binding.
        cfg: The coupler config.
        model: The finalized model.
        solver: The coupled Newton solver.
        plan: The resolved ownership it was built from.
        entries: Every entry's bound solver (on its ``ModelView``), by entry name.
    """

    def __init__(
        self,
        binding: CoupledBinding,
        cfg: CouplerCfg,
        model: Any,
        solver: Any,
        plan: CouplingPlan,
        entries: dict[str, BoundSolver],
    ):
        super().__init__(binding, cfg, model, solver)
        self.plan = plan
        self.entries = entries
        self.entry_contacts: dict[str, Any] = {}
        """Filtered contact buffer of every entry whose solver feeds a contact sensor (set by
        :meth:`allocate_observables`)."""

    def write_model_rows(self, array_name: str, rows: Any, columns: Sequence[int] | None, values: Any) -> None:
        """Write the rows into the model and into every entry view that holds its own (compacted) copy of the
        array, at the view's local rows (Newton's entry maps from local to global elements, inverted once)."""
        super().write_model_rows(array_name, rows, columns, values)
        parent = getattr(self.model, array_name)
        for flat, global_to_local in self._entry_row_maps(array_name, parent):
            index = torch.as_tensor(rows, device=flat.device).long().reshape(-1)
            local = global_to_local[index]
            keep = local >= 0
            picked = torch.as_tensor(values, device=flat.device, dtype=flat.dtype)
            picked = picked.expand(len(index), *picked.shape[1:]) if picked.ndim and picked.shape[0] == 1 else picked
            write_array_rows(flat, local[keep], columns, picked.reshape(len(index), *picked.shape[1:])[keep])

    def _entry_row_maps(self, array_name: str, parent: Any) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """``(the entry view's array as a tensor, global -> local row map with -1 for rows it does not hold)`` of
        every entry keeping its own copy of *array_name* (found once per array)."""
        cache = self.__dict__.setdefault("_row_maps", {})
        if array_name not in cache:
            frequency = _ROW_FREQUENCY.get(array_name)
            if frequency is None:
                raise ValueError(f"write_model_rows: {array_name!r} has no per-element rows a coupled entry maps")
            maps = []
            for name, entry in self.solver._entries.items():  # Newton 1.8 keeps the entry maps here
                view_array = getattr(self.entries[name].model, array_name, None) if name in self.entries else None
                if view_array is None or view_array.ptr == parent.ptr or view_array.shape[0] == 0:
                    continue
                flat = wp.to_torch(view_array)
                local_to_global = torch.as_tensor(
                    entry.attribute_local_to_global[frequency].numpy(), device=flat.device
                )
                if len(local_to_global) != flat.shape[0]:
                    continue  # the view does not hold the rows it maps (it keeps no copy of its own)
                global_to_local = torch.full((parent.shape[0],), -1, dtype=torch.long, device=flat.device)
                global_to_local[local_to_global.long()] = torch.arange(len(local_to_global), device=flat.device)
                maps.append((flat, global_to_local))
            cache[array_name] = maps
        return cache[array_name]

    def prepare_contacts(self, contacts: Any) -> None:
        self.solver.prepare_contacts(contacts)

    def check_actuated_joints(self, joints: list[int], manager: str) -> None:
        """Every explicitly actuated joint belongs to an entry whose solver follows it.

        An entry running a maximal-coordinate solver (VBD, XPBD, semi-implicit) follows it only with
        :attr:`CouplerCfg.update_joint_coordinates` (joint coordinates recomputed from the bodies after
        every step); an entry running a solver without joints, or no entry, never does.
        """
        cls = type(self.cfg).__name__
        owner = {int(j): name for name, own in self.plan.entries.items() for j in own.joints}
        for joint in joints:
            label = self.model.joint_label[joint]
            name = owner.get(int(joint))
            if name is None:
                raise ValueError(
                    f"{manager}: an explicit actuator drives joint {label!r}, which no entry of {cls} owns, so no "
                    "solver applies its effort. Select the joint's bodies in an entry (CouplerEntryCfg.bodies)."
                )
            entry = self.entries[name]
            if not entry.binding.simulates_joints or (
                not entry.binding.writes_joint_coordinates and not self.cfg.update_joint_coordinates
            ):
                reason = joint_refusal(entry.binding, type(entry.solver).__name__)
                hint = (
                    f"Set {cls}.update_joint_coordinates=True (joint coordinates recomputed from the body poses "
                    "after every step), or give the robot to a reduced-coordinate entry (Steel, MuJoCo-Warp)."
                    if entry.binding.simulates_joints
                    else "Give the robot to an entry whose solver simulates joints."
                )
                raise ValueError(
                    f"{manager}: an explicit actuator drives joint {label!r} of {cls}.entries[{name!r}], but "
                    f"{reason}. {hint}"
                )

    def graph_blockers(self, device: str, solver_steps: int = 1) -> list[str]:
        """The entries' blockers, plus proxy collision cadences a captured env step cannot replay.

        Newton's proxy coupler refreshes proxy contacts when a host-side counter, advanced once per
        coupled step, is a multiple of ``collide_interval``. A captured env step replays the pattern of
        the steps it recorded, so the cadence survives capture only when the coupled steps of one env
        step are a multiple of the interval; otherwise the solver steps run eagerly (named here).
        """
        reasons = self.binding.graph_blockers(self.cfg, device)
        for i, proxy in enumerate(getattr(self.plan, "proxies", ())):
            interval = proxy.mapping.collide_interval
            if interval is not None and interval > 1 and solver_steps % interval != 0:
                reasons.append(
                    f"{type(self.cfg).__name__}.proxies[{i}].collide_interval={interval} does not divide the "
                    f"{solver_steps} coupled steps of one env step (decimation x num_substeps): Newton counts "
                    "proxy contact refreshes on the host, so a captured step would freeze one refresh pattern. "
                    "Choose decimation x num_substeps as a multiple of the interval to capture it."
                )
        return reasons

    def save_host_state(self) -> Any:
        """Newton's proxy collision cadence counters (host-side)."""
        getter = getattr(self.solver, "get_proxy_collision_state", None)
        return getter() if getter is not None else None

    def restore_host_state(self, saved: Any) -> None:
        if saved is not None:
            self.solver.restore_proxy_collision_state(saved)

    def reset(self, state: Any, world_mask: Any = None) -> None:
        """The coupled reset (every entry with ``StateFlags.NONE``), then each entry whose family keeps history
        in its state (implicit MPM) clears that history on its own input state with its family's flags."""
        super().reset(state, world_mask)
        for name, entry in self.entries.items():
            flags = entry.binding.reset_flags(entry.cfg)
            if flags:
                entry.solver.reset(self.solver.entry_state(name, "input"), world_mask=world_mask, flags=flags)

    def commit(self) -> None:
        """The spec's in-place write-back of the resolved proxy body ids into the user's mappings."""
        write_back_proxy_bodies(self.plan)

    # ------------------------------------------------------------------ observables routing
    def allocate_observables(
        self,
        kinds: frozenset[str],
        consumers: dict[str, frozenset[str]],
        contacts: Any,
        manager: str,
        *,
        contact_entries: dict[str, str | None] | None = None,
    ) -> Any:
        """Allocate the coupled container; entries feeding contact sensors get ``contact_f`` on their own buffer.

        Args:
            contact_entries: Contact sensor name -> the entry producing its forces (from :meth:`contact_host`).
        """
        solver, plan = self.solver, self.plan
        body_kinds = frozenset(kinds) - {CONTACT_F}
        for kind in sorted(body_kinds - self.supported_observables):
            lacking = [
                name
                for name, entry in self.entries.items()
                if plan.entries[name].bodies and kind not in entry.supported_observables
            ]
            users = [name for name, ks in consumers.items() if kind in ks]
            raise unsupported_observable(
                manager,
                kind,
                users,
                f"entries {lacking} own bodies and their solvers "
                f"({', '.join(type(self.entries[n].solver).__name__ for n in lacking)}) cannot produce it",
                observable_producers(kind),
            )
        container = solver.observables(body_kinds)
        entry_contacts: dict[str, Any] = {}
        if CONTACT_F in kinds:
            for sensor, name in (contact_entries or {}).items():
                entry = self.entries[name]
                if CONTACT_F not in entry.supported_observables:
                    raise unsupported_observable(
                        manager,
                        CONTACT_F,
                        [sensor],
                        f"entry {name!r} runs {type(entry.solver).__name__}, which cannot",
                        observable_producers(CONTACT_F),
                    )
                if name in entry_contacts:
                    continue
                buffer = solver.entry_contacts(name, contacts)
                current = container.entry_observables[name]
                container.entry_observables[name] = entry.solver.observables(
                    set(current.kinds) | {CONTACT_F}, contacts=buffer
                )
                entry_contacts[name] = buffer
        self.entry_contacts = entry_contacts
        return container

    def contact_host(
        self, sensing_shapes: set[int], involved_shapes: set[int], contacts: Any, sensor: str
    ) -> tuple[Any, str]:
        """The view of the one entry that owns all the sensed shapes and partners."""
        del sensing_shapes
        if contacts is None:
            raise ValueError(
                f"{sensor}: no entry of this coupled simulation consumes Newton pipeline contacts, so there are "
                "no contact rows to report"
            )
        owner = {shape: name for name, own in self.plan.entries.items() for shape in own.shapes}
        entries = sorted({owner.get(shape, "<no entry>") for shape in involved_shapes})
        if len(entries) != 1 or entries[0] == "<no entry>":
            raise ValueError(
                f"{sensor}: its shapes belong to entries {entries}. A contact sensor on a coupled scene reports "
                "one entry solver's contact forces, so all sensed shapes (and partners) must be owned by one entry; "
                "cross-entry coupling forces are not Newton contact rows. Narrow the expressions or move the shapes "
                "(e.g. the ground: include_static_shapes) into one entry."
            )
        return self.entries[entries[0]].model, entries[0]

    def contact_source(self, entry: str | None, state: Any, contacts: Any, observables: Any) -> tuple[Any, Any, Any]:
        del state, contacts
        return (
            self.solver.entry_state(entry, "output"),
            self.entry_contacts[entry],
            observables.entry_observables[entry],
        )

    # ------------------------------------------------------------------ the coupler's own sensors
    def as_coupled(self, consumer: str, what: str) -> BoundCoupledSolver:
        """This bound coupled solver (the coupler's own sensors are created on it)."""
        del consumer, what
        return self

    def interface_force_sampler(
        self, entry: str, partner: str, bodies: Any, particles: Any, sensor: str
    ) -> InterfaceForceSampler:
        """The coupling wrench on *entry*'s bodies (and force on its particles) from *partner*, sampled every
        coupled step (see :mod:`isaaclab_contrib.coupling.interface_force`); raises naming the sensor and config."""
        return make_interface_force_sampler(
            self.solver, self.model, self.plan, type(self.cfg).__name__, entry, partner, bodies, particles, sensor
        )

    def penetration_pairs(self, entry: str, partner: str, bodies: Any, sensor: str) -> PenetrationPairs:
        """The particles of one entry and the rigid body shapes of the other a penetration sensor compares."""
        return resolve_penetration(self.model, self.plan, type(self.cfg).__name__, entry, partner, bodies, sensor)

    def coupling_diagnostics(self, sensor: str) -> CouplingDiagnostics:
        """Per-env residuals of the coupling iterations against ``CouplerCfg.convergence_tolerance``."""
        return CouplingDiagnostics(self.solver, self.model, self.cfg.convergence_tolerance, sensor)


register_binding(CouplerCfg, CoupledBinding())
