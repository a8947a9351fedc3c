"""Convex-hull colliders for Newton 1.8's implicit MPM.

``SolverImplicitMPM`` collides its particles with one triangle mesh per collider body, generated from
the body's shapes when the solver is constructed (Newton's ``implicit_mpm_model``), and has no branch
for ``CONVEX_MESH`` (it raises ``Shape type 10 not supported``) although a hull is a mesh. While the
solver is built, :func:`presenting_hulls_as_meshes` shows every hull the solver would collide with as
a ``MESH`` whose source is the hull's outward-wound surface, and restores ``shape_type`` and
``shape_source`` afterwards; the solver reads them at construction only, so nothing else sees the
change. Shape types the solver cannot use at all are refused there with a clear error.

:class:`MPMDeformableColliderCfg` describes a deformable collider: a triangle mesh whose vertices are particles
another coupled entry simulates (a VBD soft body proxied into the MPM entry), as in Newton's
``vbd_mpm_coupled_solver`` example. :func:`setup_deformable_colliders` gives them to the built solver with
``SolverImplicitMPM.setup_collider(..., collider_particle_ids=...)``; the solver then moves the mesh with the
proxied particles the coupler writes into its state and harvests the collider impulses as proxy forces.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numpy as np
import warp as wp

from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.validation import check_fields

__all__ = [
    "NATIVE_COLLIDER_TYPES",
    "MPMDeformableColliderCfg",
    "deformable_collider_surface",
    "hull_surface",
    "presenting_hulls_as_meshes",
    "setup_deformable_colliders",
]

NATIVE_COLLIDER_TYPES = ("PLANE", "SPHERE", "CAPSULE", "CYLINDER", "CONE", "BOX", "MESH")
"""Shape types SolverImplicitMPM turns into collider meshes itself (Newton 1.8)."""

_MAX_CONVEXITY_CHECK = 10_000_000
"""Convexity checks compare every vertex with every face plane; larger hulls are re-triangulated directly."""


def collider_shapes(model: Any) -> list[int]:
    """The shapes the solver's default collider set-up collides with (static ones and those of its bodies)."""
    import newton

    if not model.shape_count:
        return []
    flags = model.shape_flags.numpy()
    body_shapes = model.body_shapes
    candidates = [int(s) for body in range(-1, int(model.body_count)) for s in body_shapes.get(body, ())]
    return sorted({s for s in candidates if int(flags[s]) & int(newton.ShapeFlags.COLLIDE_PARTICLES)})


def shape_name(model: Any, sid: int) -> str:
    labels = getattr(model, "shape_label", None)
    label = labels[sid] if labels is not None and sid < len(labels) else ""
    return f"{label!r} (shape {sid})" if label else f"{sid}"


def hull_surface(source: Any, name: str) -> Any:
    """An outward-wound triangle mesh (``newton.Mesh``) of the convex hull described by *source*.

    Newton collides a ``CONVEX_MESH`` as the hull of its vertices. When *source*'s own triangles already
    form a closed convex surface they are kept (faces wound inwards are flipped); otherwise the hull of
    its vertices is triangulated with ``newton.Mesh.compute_convex_hull`` (which needs SciPy).
    """
    import newton

    vertices = np.asarray(source.vertices, dtype=np.float64).reshape(-1, 3)
    faces = np.asarray(source.indices, dtype=np.int64).reshape(-1, 3)
    oriented = oriented_convex_faces(vertices, faces)
    if oriented is None:
        try:
            hull = newton.Mesh(vertices, faces.ravel(), compute_inertia=False, maxhullvert=0).compute_convex_hull()
        except ImportError as err:
            raise ValueError(
                f"convex hull shape {name}: its mesh is not a closed convex triangle surface, and triangulating "
                f"the hull of its vertices for the MPM collider needs SciPy ({err}). Pass the hull's own mesh "
                "(newton.Mesh.compute_convex_hull()) to add_shape_convex_hull, or install scipy"
            ) from err
        vertices = np.asarray(hull.vertices, dtype=np.float64).reshape(-1, 3)
        oriented = np.asarray(hull.indices, dtype=np.int64).reshape(-1, 3)
    return newton.Mesh(vertices.astype(np.float32), oriented.ravel().astype(np.int32), compute_inertia=False)


def oriented_convex_faces(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray | None:
    """*faces* wound outwards if they form a closed convex surface over *vertices*, else ``None``."""
    if len(faces) < 4 or len(faces) * len(vertices) > _MAX_CONVEXITY_CHECK:
        return None
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    _, uses = np.unique(edges, axis=0, return_counts=True)
    if np.any(uses != 2):
        return None  # open or non-manifold: not the whole hull surface
    a, b, c = vertices[faces[:, 0]], vertices[faces[:, 1]], vertices[faces[:, 2]]
    normals = np.cross(b - a, c - a)
    extent = float(np.ptp(vertices, axis=0).max())
    if extent <= 0.0:
        return None
    tol = 1e-6 * extent * np.linalg.norm(normals, axis=1)
    # Signed distance (times |normal|) of every vertex from every face plane.
    heights = vertices @ normals.T - np.einsum("fk,fk->f", normals, a)
    ahead = np.any(heights > tol, axis=0)
    behind = np.any(heights < -tol, axis=0)
    if np.any(ahead & behind):
        return None  # a face plane cuts the vertex set: not convex
    return np.where(ahead[:, None], faces[:, [0, 2, 1]], faces)


@contextlib.contextmanager
def _presenting(model: Any, values: dict[str, Any]) -> Iterator[None]:
    """*model* shows *values* for those attributes inside the block, and exactly what it showed before after it."""
    from newton.solvers.experimental.coupled import ModelView

    previous = {}
    try:
        for name, value in values.items():
            if isinstance(model, ModelView):  # restore the view's own override, or fall back to its parent again
                overrides = model.overrides
                previous[name] = (name in overrides, overrides.get(name))
            else:
                previous[name] = (True, getattr(model, name))
            setattr(model, name, value)
        yield
    finally:
        for name, (had_value, value) in previous.items():
            if had_value:
                setattr(model, name, value)
            elif name in model.overrides:
                delattr(model, name)


@contextlib.contextmanager
def presenting_hulls_as_meshes(model: Any) -> Iterator[None]:
    """Inside the block, *model* (a ``Model`` or an entry ``ModelView``) shows its collider hulls as meshes.

    Raises:
        ValueError: A collider shape has a type the solver cannot use (heightfield, ellipsoid, Gaussian);
            the message names the shape and the types that work.
    """
    import newton

    shape_ids = collider_shapes(model)
    types = model.shape_type.numpy() if shape_ids else np.empty(0, dtype=np.int32)
    supported = {int(newton.GeoType[name]) for name in NATIVE_COLLIDER_TYPES}
    convex = int(newton.GeoType.CONVEX_MESH)
    for sid in shape_ids:
        if int(types[sid]) not in supported and int(types[sid]) != convex:
            raise ValueError(
                f"SolverImplicitMPM cannot collide its particles with shape {shape_name(model, sid)} of type "
                f"{newton.GeoType(int(types[sid])).name}; the shape types that work as MPM colliders are "
                f"{', '.join(NATIVE_COLLIDER_TYPES)} and CONVEX_MESH. Give the shape another type, or "
                "clear its ShapeFlags.COLLIDE_PARTICLES flag (or leave it out of the MPM entry's shapes)"
            )
    hulls = [sid for sid in shape_ids if int(types[sid]) == convex]
    if not hulls:
        yield
        return
    presented_types = types.copy()
    presented_types[hulls] = int(newton.GeoType.MESH)
    presented_sources = list(model.shape_source)
    for sid in hulls:
        presented_sources[sid] = hull_surface(model.shape_source[sid], shape_name(model, sid))
    presented = {
        "shape_type": wp.array(presented_types, dtype=model.shape_type.dtype, device=model.shape_type.device),
        "shape_source": presented_sources,
    }
    with _presenting(model, presented):
        yield


# ------------------------------------------------------------------------------ deformable colliders
@configclass
class MPMDeformableColliderCfg:
    """A deformable triangle-mesh collider of implicit MPM whose vertices are particles of another coupled entry.

    The mesh is the surface of those particles: every triangle of the model (``Model.tri_indices``, e.g. the
    surface triangles Newton's ``add_soft_grid`` / ``add_soft_mesh`` add around a soft body) whose three
    vertices are all in :attr:`particles`. Its vertices follow :attr:`particles` in their order, at the model's
    initial positions; the solver moves them with the particles' positions and velocities in its entry state.
    The particles must reach the MPM entry as proxies (a ``CouplerProxyMappingCfg`` with the MPM entry as
    destination listing them): the coupler then writes the source's poses into the entry state every pass,
    and the collider impulses go back to the source as the proxies' lagged feedback. The MPM solver neither
    simulates these particles nor transfers them to its grid.

    A ``None`` material value keeps the one Newton gives a mesh collider (a multiple of the voxel size for the
    thickness and projection threshold).
    """

    _ranges: ClassVar[dict[str, str]] = {
        "thickness": "any",
        "friction": ">= 0",
        "adhesion": ">= 0",
        "projection_threshold": ">= 0",
    }

    particles: list[int] = MISSING
    """Model particle ids of the mesh vertices, in vertex order (each at most once)."""
    thickness: float | None = None
    """Signed offset of the collision surface from the mesh [m] (Newton's ``collider_margins``)."""
    friction: float | None = None
    """Coulomb friction coefficient between the material and the collider [dimensionless]."""
    adhesion: float | None = None
    """Adhesion of the material to the collider [Pa]."""
    projection_threshold: float | None = None
    """How far below the surface a material point may be before it is projected out [m]."""

    def validate(self, where: str | None = None) -> None:
        """Check the fields; :attr:`particles` must be a non-empty list of distinct particle ids."""
        label = where or type(self).__name__
        check_missing(self)
        check_fields(self, label)
        particles = self.particles
        if not isinstance(particles, (list, tuple)):
            raise TypeError(f"{label}.particles must be a list of particle ids, got {type(particles).__name__}")
        if not particles:
            raise ValueError(f"{label}.particles is empty: a deformable collider needs the particles of its mesh")
        for i, pid in enumerate(particles):
            if not isinstance(pid, numbers.Integral) or isinstance(pid, bool):
                raise TypeError(f"{label}.particles[{i}] must be an integer particle id, got {type(pid).__name__}")
            if pid < 0:
                raise ValueError(f"{label}.particles[{i}]={pid} must be >= 0")
        if len(set(particles)) != len(particles):
            raise ValueError(f"{label}.particles lists a particle more than once")


def deformable_collider_surface(
    tri_indices: np.ndarray | None, particles: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """The triangles over *particles* among the model's *tri_indices* (``(n, 3)`` particle ids, or ``None``).

    Returns ``(vertex_ids, faces)``: *particles* as an int array (the mesh's vertices, in that order) and the
    ``(m, 3)`` faces, in vertex-local indices, of every triangle whose three particles are all in *particles*, in
    the model's triangle order and with its winding.

    Raises:
        ValueError: No triangle has all three particles in *particles*.
    """
    vertex_ids = np.asarray(particles, dtype=np.int64)
    tris = np.empty((0, 3), dtype=np.int64) if tri_indices is None else np.asarray(tri_indices).reshape(-1, 3)
    local = np.full(int(max(vertex_ids.max(initial=-1), tris.max(initial=-1))) + 1, -1, dtype=np.int64)
    local[vertex_ids] = np.arange(vertex_ids.shape[0])
    faces = local[tris]
    faces = faces[np.all(faces >= 0, axis=1)]
    if faces.shape[0] == 0:
        raise ValueError(
            f"no triangle of the model has all three vertices among the collider's {vertex_ids.shape[0]} particles; "
            "list the particles of a body with surface triangles (a soft grid or soft mesh adds them)"
        )
    return vertex_ids, faces


def _shape_colliders(view: Any) -> list[int]:
    """Body ids (``-1``: the static shapes) with shapes the solver collides with, as its default set-up finds them."""
    import newton

    if not view.shape_count:
        return []
    flags = view.shape_flags.numpy()
    mask = int(newton.ShapeFlags.COLLIDE_PARTICLES)
    body_shapes = view.body_shapes
    return [
        body for body in range(-1, int(view.body_count)) if any(int(flags[s]) & mask for s in body_shapes.get(body, ()))
    ]


def setup_deformable_colliders(
    solver: Any, colliders: Sequence[MPMDeformableColliderCfg], view: Any, model: Any
) -> None:
    """Give the built ``SolverImplicitMPM`` *solver* the deformable *colliders*, then its shape colliders.

    The collider list is the deformable meshes in the order given, then the static shapes (body ``-1``) and every
    body with particle-colliding shapes, each with its shapes' own materials (what the solver's default set-up
    collides with). *view* is the MPM entry's ``ModelView`` (the solver's model), *model* the full model, whose
    triangles and initial particle positions make the meshes.

    Raises:
        ValueError: A collider's particles do not reach the entry as proxies, or make no triangle.
    """
    import newton

    flags = view.particle_flags.numpy()
    proxy = int(newton.ParticleFlags.PROXY)
    tri_indices = model.tri_indices.numpy() if model.tri_count else None
    particle_q = model.particle_q.numpy()
    device = model.device
    meshes, particle_ids, margins, friction, adhesion, projection = [], [], [], [], [], []
    for i, collider in enumerate(colliders):
        where = f"deformable_colliders[{i}]"
        ids = np.asarray(collider.particles, dtype=np.int64)
        outside = ids[ids >= flags.shape[0]]
        if outside.size:
            raise ValueError(f"{where}.particles: particle ids {outside[:8].tolist()} are not in the model")
        missing = ids[(flags[ids] & proxy) == 0]
        if missing.size:
            raise ValueError(
                f"{where}.particles: {missing.size} particle(s) ({missing[:8].tolist()}...) are not proxied into the MPM "
                "entry; add a CouplerProxyMappingCfg with this entry as destination and these particles, so the "
                "collider follows the source's poses"
            )
        try:
            vertex_ids, faces = deformable_collider_surface(tri_indices, collider.particles)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        meshes.append(
            wp.Mesh(
                points=wp.array(particle_q[vertex_ids], dtype=wp.vec3, device=device),
                indices=wp.array(faces.ravel().astype(np.int32), dtype=wp.int32, device=device),
                velocities=wp.zeros(vertex_ids.shape[0], dtype=wp.vec3, device=device),
            )
        )
        particle_ids.append([int(p) for p in vertex_ids])
        margins.append(collider.thickness)
        friction.append(collider.friction)
        adhesion.append(collider.adhesion)
        projection.append(collider.projection_threshold)
    bodies = _shape_colliders(view)
    none = [None] * len(bodies)
    with presenting_hulls_as_meshes(view):
        solver.setup_collider(
            collider_meshes=[*meshes, *none],
            collider_body_ids=[None] * len(meshes) + bodies,
            collider_margins=margins + none,
            collider_friction=friction + none,
            collider_adhesion=adhesion + none,
            collider_projection_threshold=projection + none,
            collider_particle_ids=particle_ids + none,
            model=view,
        )
