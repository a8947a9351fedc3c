"""Convex-hull colliders for Newton 1.8's implicit MPM.

``SolverImplicitMPM`` collides its particles with one triangle mesh per collider body, generated from
the body's shapes when the solver is constructed (Newton's ``implicit_mpm_model``), and has no branch
for ``CONVEX_MESH`` (it raises ``Shape type 10 not supported``) although a hull is a mesh. While the
solver is built, :func:`presenting_hulls_as_meshes` shows every hull the solver would collide with as
a ``MESH`` whose source is the hull's outward-wound surface, and restores ``shape_type`` and
``shape_source`` afterwards; the solver reads them at construction only, so nothing else sees the
change. Shape types the solver cannot use at all are refused there with a clear error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import warp as wp

__all__ = ["NATIVE_COLLIDER_TYPES", "hull_surface", "presenting_hulls_as_meshes"]

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
