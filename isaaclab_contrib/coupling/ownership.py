"""Ownership resolution: from a finalized ``newton.Model`` and a coupler config to index lists.

Pure functions, no manager state. The rules:

* **Bodies** — each regex of :attr:`CouplerEntryCfg.bodies` is matched (full match) against every
  body label *and every path prefix of it*, so a pattern that names a path selects all bodies at or
  below it: ``/World/envs/env_.*/Robot`` selects ``/World/envs/env_3/Robot/base`` and its links.
* **Joints** — with ``include_child_joints`` a joint is owned when its child body is selected and
  its parent is the world (-1) or a body selected by the same entry.
* **Shapes** — ``include_body_shapes`` takes the shapes of selected bodies, ``include_static_shapes``
  every shape with body -1, and ``shape_label_patterns`` shapes whose label fully matches.
* **Particles** — explicit indices, or every particle with ``all_particles``.
* **Body ids** — :attr:`CouplerEntryCfg.body_ids` adds raw Newton body ids (each that body only),
  for scenes whose bodies carry no meaningful label; an id claimed by two entries is the same error
  as a regex overlap.
* **Proxy selectors** — regexes (body semantics above) or raw body ids; a regex keeps only the
  bodies that have at least one collidable shape. Proxy joints are regexes over joint labels (same
  path semantics) or raw joint ids; each must be a fixed, prismatic or revolute joint owned by the
  source entry whose bodies the destination sees (its own or proxied into it).

Every element belongs to at most one entry. Errors name the config class, the entry and the field;
invalid values raise ``ValueError``, wrong types ``TypeError``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from isaaclab_contrib.utils.labels import LabelSelector

from .coupler_cfg import CouplerAdmmCfg, CouplerCfg, CouplerProxyCfg, CouplerProxyMappingCfg

if TYPE_CHECKING:
    import newton

__all__ = [
    "CouplingPlan",
    "CouplingWarning",
    "EntryOwnership",
    "ProxyResolution",
    "proxy_selectors",
    "resolve_coupling",
    "resolve_entries",
    "write_back_proxy_bodies",
]

# ShapeFlags.COLLIDE_SHAPES | ShapeFlags.COLLIDE_PARTICLES (read from Newton at call time).
_COLLIDE_FLAGS_CACHE: list[int] = []


def _collide_flags() -> int:
    if not _COLLIDE_FLAGS_CACHE:
        import newton

        _COLLIDE_FLAGS_CACHE.append(int(newton.ShapeFlags.COLLIDE_SHAPES | newton.ShapeFlags.COLLIDE_PARTICLES))
    return _COLLIDE_FLAGS_CACHE[0]


class CouplingWarning(UserWarning):
    """A coupler config that resolves but is probably not what the user wants."""


@dataclass(frozen=True)
class EntryOwnership:
    """What one entry owns, as sorted global model ids."""

    name: str
    bodies: list[int]
    joints: list[int]
    shapes: list[int]
    particles: list[int]
    sees_static_shapes: bool
    """Whether Newton shows this entry the static shapes: it owns one, or it owns no shape at all."""

    def owns_anything(self) -> bool:
        return bool(self.bodies or self.joints or self.shapes or self.particles)


@dataclass(frozen=True)
class ProxyResolution:
    """One proxy mapping with its selectors resolved to ids."""

    source: str
    destination: str
    bodies: list[int]
    particles: list[int]
    mapping: CouplerProxyMappingCfg
    joints: list[int] = field(default_factory=list)
    """Source joints kept enabled as proxy joints in the destination (sorted global ids)."""


@dataclass
class CouplingPlan:
    """The full resolution of a coupler config over one model."""

    coupler: str
    entries: dict[str, EntryOwnership]
    proxies: list[ProxyResolution] = field(default_factory=list)
    contact_pairs: list[tuple[str, str]] = field(default_factory=list)
    cross_entry_joints: list[int] = field(default_factory=list)
    unowned_bodies: list[int] = field(default_factory=list)
    unowned_joints: list[int] = field(default_factory=list)
    unowned_shapes: list[int] = field(default_factory=list)
    unowned_particles: list[int] = field(default_factory=list)
    static_shapes: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _ModelData:
    """Host copies of the model arrays resolution needs (read once)."""

    def __init__(self, model: newton.Model):
        self.body_count = int(model.body_count)
        self.joint_count = int(model.joint_count)
        self.shape_count = int(model.shape_count)
        self.particle_count = int(model.particle_count)
        self.body_label = list(getattr(model, "body_label", None) or [""] * self.body_count)
        self.joint_label = list(getattr(model, "joint_label", None) or [""] * self.joint_count)
        self.shape_label = list(getattr(model, "shape_label", None) or [""] * self.shape_count)
        self.joint_type = model.joint_type.numpy() if self.joint_count else np.zeros(0, np.int32)
        self.joint_parent = model.joint_parent.numpy() if self.joint_count else np.zeros(0, np.int32)
        self.joint_child = model.joint_child.numpy() if self.joint_count else np.zeros(0, np.int32)
        self.shape_body = model.shape_body.numpy() if self.shape_count else np.zeros(0, np.int32)
        self.shape_flags = model.shape_flags.numpy() if self.shape_count else np.zeros(0, np.int32)
        self._body_index: LabelSelector | None = None
        self._joint_index: LabelSelector | None = None
        self._shape_index: LabelSelector | None = None

    @property
    def body_index(self) -> LabelSelector:
        if self._body_index is None:
            self._body_index = LabelSelector(self.body_label, "body")
        return self._body_index

    @property
    def joint_index(self) -> LabelSelector:
        if self._joint_index is None:
            self._joint_index = LabelSelector(self.joint_label, "joint")
        return self._joint_index

    @property
    def shape_index(self) -> LabelSelector:
        if self._shape_index is None:
            self._shape_index = LabelSelector(self.shape_label, "shape")
        return self._shape_index

    def describe(self, kind: str, index: int) -> str:
        labels = {"body": self.body_label, "joint": self.joint_label, "shape": self.shape_label}.get(kind)
        label = labels[index] if labels is not None and index < len(labels) else ""
        return f"{kind} {label!r} (id {index})" if label else f"{kind} id {index}"


def _site_flag() -> int:
    import newton

    return int(newton.ShapeFlags.SITE)


def _label_hits(index: LabelSelector, pattern: str, where: str, kind: str) -> np.ndarray:
    """Ids selected by *pattern* (the label and everything below it); a pattern matching nothing is an error at *where*."""
    del kind
    return index.require(pattern, where, scope="subtree")


def _check_id_in_range(value: int, count: int, where: str, plural: str) -> int:
    if int(value) >= count:
        raise ValueError(f"{where}={int(value)} is out of range: the model has {count} {plural}")
    return int(value)


def _check_owned_by_source(ids: set[int], owned: Sequence[int], where: str, describe, source: str, why: str) -> None:
    stray = sorted(ids - set(owned))
    if stray:
        raise ValueError(
            f"{where}: {describe(stray[0])}{' and ' + str(len(stray) - 1) + ' more' if len(stray) > 1 else ''} "
            f"is not owned by the source entry {source!r}{why}"
        )


def _select_bodies(data: _ModelData, patterns: Sequence[str], ids: Sequence[int], where: str) -> np.ndarray:
    """Bodies selected by an entry's regexes (``{where}.bodies``) and raw ids (``{where}.body_ids``)."""
    selected = [np.zeros(0, dtype=np.int64)]
    for i, pattern in enumerate(patterns):
        selected.append(_label_hits(data.body_index, pattern, f"{where}.bodies[{i}]", "body"))
    for i, body in enumerate(ids):
        _check_id_in_range(body, data.body_count, f"{where}.body_ids[{i}]", "bodies")
    if len(ids):
        selected.append(np.asarray(ids, dtype=np.int64))
    return np.unique(np.concatenate(selected))


def _claim(owner: np.ndarray, ids: np.ndarray, entry_idx: int, names: list[str], kind: str, data: _ModelData, cls: str):
    if ids.size == 0:
        return
    clash = owner[ids] >= 0
    if np.any(clash):
        element = int(ids[np.argmax(clash)])
        other = names[int(owner[element])]
        raise ValueError(
            f"{cls}: {data.describe(kind, element)} is owned by both entries {other!r} and {names[entry_idx]!r}"
            f"{' and ' + str(int(clash.sum()) - 1) + ' more' if clash.sum() > 1 else ''}. "
            "Each element may belong to one entry only; narrow the selectors of one of them."
        )
    owner[ids] = entry_idx


def _resolve_proxy(
    data: _ModelData,
    mapping: CouplerProxyMappingCfg,
    where: str,
    source: EntryOwnership,
    body_has_collider: np.ndarray,
) -> ProxyResolution:
    bodies: set[int] = set()
    for i, selector in enumerate(proxy_selectors(mapping)):
        if isinstance(selector, str):
            hit = _label_hits(data.body_index, selector, f"{where}.bodies[{i}]", "body")
            collidable = hit[body_has_collider[hit]]
            if collidable.size == 0:
                raise ValueError(
                    f"{where}.bodies[{i}]={selector!r} matches {hit.size} bod{'y' if hit.size == 1 else 'ies'}, "
                    "none with a collidable shape; a proxy body needs a shape to interact through."
                )
            bodies.update(int(b) for b in collidable)
        else:
            bodies.add(_check_id_in_range(selector, data.body_count, f"{where}.bodies[{i}]", "bodies"))
    _check_owned_by_source(
        bodies,
        source.bodies,
        f"{where}.bodies",
        lambda b: data.describe("body", b),
        source.name,
        "; proxies mirror the source's own bodies.",
    )
    joints = _resolve_proxy_joints(data, mapping, where, source)
    particles = {int(p) for p in mapping.particles}
    for p in sorted(particles):
        if p >= data.particle_count:
            raise ValueError(
                f"{where}.particles: index {p} is out of range: the model has {data.particle_count} particles"
            )
    _check_owned_by_source(
        particles, source.particles, f"{where}.particles", lambda p: f"particle {p}", source.name, "."
    )
    return ProxyResolution(
        mapping.source, mapping.destination, sorted(bodies), sorted(particles), mapping, joints=joints
    )


_PROXY_JOINT_TYPES_CACHE: dict[int, str] = {}


def _proxy_joint_types() -> dict[int, str]:
    """Joint types Newton's proxy joints support (``JointType`` value -> name), read at call time."""
    if not _PROXY_JOINT_TYPES_CACHE:
        import newton

        for joint_type in (newton.JointType.FIXED, newton.JointType.PRISMATIC, newton.JointType.REVOLUTE):
            _PROXY_JOINT_TYPES_CACHE[int(joint_type)] = joint_type.name
    return _PROXY_JOINT_TYPES_CACHE


def _resolve_proxy_joints(
    data: _ModelData, mapping: CouplerProxyMappingCfg, where: str, source: EntryOwnership
) -> list[int]:
    joints: set[int] = set()
    for i, selector in enumerate(mapping.joints):
        if isinstance(selector, str):
            joints.update(int(j) for j in _label_hits(data.joint_index, selector, f"{where}.joints[{i}]", "joint"))
        else:
            joints.add(_check_id_in_range(selector, data.joint_count, f"{where}.joints[{i}]", "joints"))
    _check_owned_by_source(
        joints,
        source.joints,
        f"{where}.joints",
        lambda j: data.describe("joint", j),
        source.name,
        "; proxy joints mirror the source's own joints.",
    )
    supported = _proxy_joint_types()
    for joint in sorted(joints):
        joint_type = int(data.joint_type[joint])
        if joint_type not in supported:
            import newton

            raise ValueError(
                f"{where}.joints: {data.describe('joint', joint)} is a {newton.JointType(joint_type).name} joint; "
                f"proxy joints must be {', '.join(supported.values())} (Newton copies 1-DoF joint targets only)"
            )
    return sorted(joints)


def _check_proxy_joint_bodies(data: _ModelData, plan: CouplingPlan, cls: str) -> None:
    """Every proxy joint must connect bodies its destination sees: owned by it or proxied into it."""
    visible: dict[str, set[int]] = {name: set(own.bodies) for name, own in plan.entries.items()}
    for proxy in plan.proxies:
        visible[proxy.destination].update(proxy.bodies)
    for i, proxy in enumerate(plan.proxies):
        seen = visible[proxy.destination]
        for joint in proxy.joints:
            ends = [int(data.joint_parent[joint]), int(data.joint_child[joint])]
            missing = [body for body in ends if body >= 0 and body not in seen]
            if missing:
                raise ValueError(
                    f"{cls}.proxies[{i}].joints: {data.describe('joint', joint)} connects "
                    f"{data.describe('body', missing[0])}, which the destination entry {proxy.destination!r} does "
                    "not see; add that body to the mapping's bodies (or another mapping into the same destination)."
                )


_WRITTEN = "_resolved_bodies_written"
_SELECTORS = "_bodies_as_written_by_user"


def proxy_selectors(mapping: CouplerProxyMappingCfg) -> list:
    """The body selectors to resolve for *mapping*.

    After a build wrote resolved ids into ``mapping.bodies`` (see :func:`write_back_proxy_bodies`),
    this returns the selectors the user wrote, as long as ``bodies`` still holds exactly the ids that
    were written; a list the user assigned since is taken as it is.
    """
    written = mapping.__dict__.get(_WRITTEN)
    if written is not None and list(mapping.bodies) == written:
        return list(mapping.__dict__[_SELECTORS])
    return list(mapping.bodies)


def write_back_proxy_bodies(plan: CouplingPlan) -> None:
    """Write each proxy mapping's resolved body ids into its ``bodies`` (the spec's in-place resolution),
    remembering the user's selectors for the next resolution (:func:`proxy_selectors`)."""
    for resolved in plan.proxies:
        mapping = resolved.mapping
        selectors = proxy_selectors(mapping)
        ids = [int(b) for b in resolved.bodies]
        object.__setattr__(mapping, _SELECTORS, selectors)
        object.__setattr__(mapping, _WRITTEN, list(ids))
        mapping.bodies = ids


def resolve_coupling(
    model: newton.Model, cfg: CouplerCfg, *, warn: bool = True, validated: bool = False
) -> CouplingPlan:
    """Resolve and validate *cfg* over the finalized *model*.

    Args:
        model: Finalized Newton model whose labels the selectors match.
        cfg: A :class:`CouplerAdmmCfg` or :class:`CouplerProxyCfg`.
        warn: Emit :class:`CouplingWarning` for suspicious but valid setups (they are also
            returned in :attr:`CouplingPlan.warnings`).
        validated: *cfg* was validated already (a simulation validates its configs once, when it starts); its
            fields are then not checked again, only how they resolve over *model*.

    Returns:
        The :class:`CouplingPlan`: per-entry ownership, resolved proxies and contact pairs,
        cross-entry joints and what no entry owns.
    """
    if not isinstance(cfg, (CouplerAdmmCfg, CouplerProxyCfg)):
        raise TypeError(f"expected a CouplerAdmmCfg or CouplerProxyCfg, got {type(cfg).__name__}")
    if not validated:
        cfg.validate()
    cls = type(cfg).__name__
    data = _ModelData(model)
    names = cfg.entry_names()

    body_owner = np.full(data.body_count, -1, dtype=np.int64)
    joint_owner = np.full(data.joint_count, -1, dtype=np.int64)
    shape_owner = np.full(data.shape_count, -1, dtype=np.int64)
    particle_owner = np.full(data.particle_count, -1, dtype=np.int64)
    static_shapes = np.nonzero(data.shape_body == -1)[0]

    selected_bodies: list[np.ndarray] = []
    for idx, entry in enumerate(cfg.entries):
        where = f"{cls}.entries[{entry.name!r}]"
        bodies = _select_bodies(data, entry.bodies, entry.body_ids, where)
        _claim(body_owner, bodies, idx, names, "body", data, cls)
        selected_bodies.append(bodies)

    for idx, entry in enumerate(cfg.entries):
        where = f"{cls}.entries[{entry.name!r}]"
        bodies = selected_bodies[idx]
        in_entry = body_owner == idx
        if entry.include_child_joints and data.joint_count:
            child_ok = np.zeros(data.joint_count, dtype=bool)
            child_ok[data.joint_child >= 0] = in_entry[data.joint_child[data.joint_child >= 0]]
            parent = data.joint_parent
            parent_ok = parent < 0
            parent_ok[parent >= 0] = in_entry[parent[parent >= 0]]
            _claim(joint_owner, np.nonzero(child_ok & parent_ok)[0], idx, names, "joint", data, cls)

        shapes = [np.zeros(0, dtype=np.int64)]
        if entry.include_body_shapes and bodies.size and data.shape_count:
            attached = data.shape_body >= 0
            mask = np.zeros(data.shape_count, dtype=bool)
            mask[attached] = in_entry[data.shape_body[attached]]
            shapes.append(np.nonzero(mask)[0])
        if entry.include_static_shapes:
            if static_shapes.size == 0:
                raise ValueError(f"{where}.include_static_shapes=True, but the model has no static shape (body -1)")
            shapes.append(static_shapes)
        for i, pattern in enumerate(entry.shape_label_patterns):
            shapes.append(data.shape_index.require(pattern, f"{where}.shape_label_patterns[{i}]", scope="label"))
        _claim(shape_owner, np.unique(np.concatenate(shapes)), idx, names, "shape", data, cls)

        if entry.all_particles:
            particles = np.arange(data.particle_count, dtype=np.int64)
        else:
            particles = np.asarray(entry.particles, dtype=np.int64)
            if particles.size and particles.max() >= data.particle_count:
                raise ValueError(
                    f"{where}.particles: index {int(particles.max())} is out of range: the model has "
                    f"{data.particle_count} particles"
                )
        _claim(particle_owner, particles, idx, names, "particle", data, cls)

    entries: dict[str, EntryOwnership] = {}
    for idx, entry in enumerate(cfg.entries):
        shapes = np.nonzero(shape_owner == idx)[0]
        entries[entry.name] = EntryOwnership(
            name=entry.name,
            bodies=[int(i) for i in np.nonzero(body_owner == idx)[0]],
            joints=[int(i) for i in np.nonzero(joint_owner == idx)[0]],
            shapes=[int(i) for i in shapes],
            particles=[int(i) for i in np.nonzero(particle_owner == idx)[0]],
            sees_static_shapes=bool(shapes.size == 0 or np.any(data.shape_body[shapes] == -1)),
        )

    # Joints whose two bodies belong to different entries.
    cross: list[int] = []
    if data.joint_count:
        parent = data.joint_parent
        child = data.joint_child
        valid = (parent >= 0) & (child >= 0)
        po = np.full(data.joint_count, -1)
        co = np.full(data.joint_count, -1)
        po[valid] = body_owner[parent[valid]]
        co[valid] = body_owner[child[valid]]
        cross = [int(j) for j in np.nonzero(valid & (po >= 0) & (co >= 0) & (po != co))[0]]
        if cross and isinstance(cfg, CouplerProxyCfg):
            j = cross[0]
            raise ValueError(
                f"{cls}: {data.describe('joint', j)} connects bodies of entries {names[int(po[j])]!r} and "
                f"{names[int(co[j])]!r}{' (' + str(len(cross) - 1) + ' more such joints)' if len(cross) > 1 else ''}. "
                "Proxy coupling cannot couple across joints; put both bodies in one entry or use CouplerAdmmCfg."
            )

    plan = CouplingPlan(coupler=cls, entries=entries, cross_entry_joints=cross)

    if isinstance(cfg, CouplerProxyCfg):
        body_has_collider = np.zeros(data.body_count, dtype=bool)
        collidable = (data.shape_flags & _collide_flags()) != 0
        attached = (data.shape_body >= 0) & collidable
        body_has_collider[data.shape_body[attached]] = True
        for i, mapping in enumerate(cfg.proxies):
            plan.proxies.append(
                _resolve_proxy(data, mapping, f"{cls}.proxies[{i}]", entries[mapping.source], body_has_collider)
            )
        _check_proxy_joint_bodies(data, plan, cls)
    else:
        plan.contact_pairs = cfg.resolved_contact_pairs()

    destinations = {p.destination for p in plan.proxies}
    for name, own in entries.items():
        if not own.owns_anything() and name not in destinations:
            raise ValueError(
                f"{cls}.entries[{name!r}] neither owns anything (bodies, joints, shapes, particles) nor receives "
                "proxies; give it selectors or remove it."
            )

    plan.unowned_bodies = [int(i) for i in np.nonzero(body_owner < 0)[0]]
    plan.unowned_joints = [int(i) for i in np.nonzero(joint_owner < 0)[0]]
    plan.unowned_shapes = [int(i) for i in np.nonzero(shape_owner < 0)[0]]
    plan.unowned_particles = [int(i) for i in np.nonzero(particle_owner < 0)[0]]
    plan.static_shapes = [int(i) for i in static_shapes]

    # Unowned dynamic bodies and particles are stepped by no solver: they stay where they are.
    for kind, unowned, masses in (
        ("bodies", plan.unowned_bodies, model.body_mass),
        ("particles", plan.unowned_particles, model.particle_mass),
    ):
        if not unowned:
            continue
        mass = masses.numpy()[np.asarray(unowned, dtype=np.int64)]
        dynamic = [i for i, m in zip(unowned, mass, strict=True) if m > 0.0]
        if dynamic:
            singular = "body" if kind == "bodies" else "particle"
            examples = ", ".join(data.describe(singular, i) for i in dynamic[:2])
            plan.warnings.append(
                f"{cls}: {len(dynamic)} dynamic {kind} belong to no entry and will not move ({examples}"
                f"{', ...' if len(dynamic) > 2 else ''}). Select them in an entry (bodies / particles / "
                f"all_particles), or give them zero mass if they are meant to stay fixed."
            )

    # Sites (camera and sensor frames) are static shapes nothing collides with: they need no owner.
    solid_static = static_shapes[(data.shape_flags[static_shapes] & _site_flag()) == 0]
    if solid_static.size and not np.any(shape_owner[solid_static] >= 0):
        blind = [name for name, own in entries.items() if not own.sees_static_shapes]
        if blind:
            labels = ", ".join(repr(data.shape_label[s] or f"shape {s}") for s in solid_static[:3])
            plan.warnings.append(
                f"{cls}: no entry owns the static shapes ({labels}{', ...' if solid_static.size > 3 else ''}), "
                f"so entries {blind} own shapes and cannot see the ground or other static geometry: their bodies "
                "will fall through it. Newton shows static shapes only to entries that own no shape. Set "
                "include_static_shapes=True on the entry that should collide with them (or select them with "
                "shape_label_patterns)."
            )
    if warn:
        for message in plan.warnings:
            warnings.warn(message, CouplingWarning, stacklevel=2)
    return plan


def resolve_entries(model: newton.Model, coupler_cfg: CouplerCfg) -> dict[str, EntryOwnership]:
    """Resolve *coupler_cfg* over *model* and return, per entry name, its owned ids.

    Each value has ``bodies``, ``joints``, ``shapes`` and ``particles`` lists of global model ids
    (sorted). The full validation of :func:`resolve_coupling` runs first.
    """
    return resolve_coupling(model, coupler_cfg).entries
