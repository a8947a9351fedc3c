"""Checks of the meshes deformable assets read from files: what Newton would drop is named first.

Newton's ``add_cloth_mesh`` drops zero-area triangles and ``add_soft_mesh`` drops inverted and flat
tetrahedra, each with one log line and no error. A particle whose every element was dropped gets no mass: it
never moves, and a cloth or body made only of such particles silently does nothing. These checks run on the
mesh read from the file (in float64, after the asset's scale) before it reaches Newton:

* the vertices are ``(n, 3)`` finite numbers and the elements index them (``0 .. n - 1``);
* an *inverted* tetrahedron (negative signed volume: its vertex order is mirrored) is an error: Newton drops
  it, and the body loses its volume and mass;
* a *degenerate* element (zero area or volume, relative to its size) carries no mass and no stiffness, so
  dropping it loses nothing as long as each of its vertices belongs to another element: then it is a
  ``UserWarning`` naming the elements dropped; when it leaves a vertex in no element it is an error;
* a vertex in no element at all is an error (a massless particle that never moves);
* an empty mesh is an error.

:func:`check_added` then checks what the builder actually received (elements and particle masses), which
also catches elements that degenerate only in Newton's float32 arithmetic.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["DEGENERATE_RELATIVE", "check_added", "check_tet_mesh", "check_triangle_mesh"]

DEGENERATE_RELATIVE = 1.0e-7
"""An element is degenerate when its area (volume) is at most this fraction of its longest edge squared (cubed)."""

_SHOWN = 5
_SINGULAR = {"triangles": "triangle", "tetrahedra": "tetrahedron"}


def _first(ids: np.ndarray) -> str:
    shown = ", ".join(str(int(i)) for i in ids[:_SHOWN])
    return shown + (f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else "")


def _check_arrays(vertices: Any, elements: Any, corners: int, noun: str, where: str, path: str):
    try:
        v = np.asarray(vertices, dtype=np.float64)
        e = np.asarray(elements)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: the mesh read from {path!r} is not numeric ({err})") from err
    if v.ndim != 2 or v.shape[1] != 3 or len(v) == 0:
        raise ValueError(
            f"{where}: {path!r} holds no vertices (vertex array of shape {v.shape}); give a non-empty mesh"
        )
    if not np.isfinite(v).all():
        bad = np.nonzero(~np.isfinite(v).all(axis=1))[0]
        raise ValueError(f"{where}: {path!r} has non-finite vertex coordinates (vertices {_first(bad)})")
    if e.size == 0:
        raise ValueError(f"{where}: {path!r} has {len(v)} vertices and no {noun}; the asset would import nothing")
    if not np.issubdtype(e.dtype, np.integer):
        raise ValueError(f"{where}: the {noun} of {path!r} are not integer vertex indices (dtype {e.dtype})")
    e = e.reshape(-1, corners) if e.ndim == 1 and e.size % corners == 0 else e
    if e.ndim != 2 or e.shape[1] != corners:
        raise ValueError(
            f"{where}: the {noun} of {path!r} must have {corners} vertex indices each, got shape {e.shape}"
        )
    outside = np.nonzero(((e < 0) | (e >= len(v))).any(axis=1))[0]
    if outside.size:
        raise ValueError(
            f"{where}: {path!r} has {len(outside)} {noun} indexing vertices outside 0 .. {len(v) - 1} "
            f"({noun} {_first(outside)})"
        )
    return v, e.astype(np.int64)


def _orphans(count: int, kept: np.ndarray) -> np.ndarray:
    used = np.zeros(count, dtype=bool)
    used[kept.reshape(-1)] = True
    return np.nonzero(~used)[0]


def _report_degenerate(
    v: np.ndarray, e: np.ndarray, bad: np.ndarray, noun: str, measure: str, where: str, path: str
) -> None:
    """Error when dropping the degenerate elements *bad* leaves vertices in no element, else a warning."""
    kept = e[np.setdiff1d(np.arange(len(e)), bad)]
    orphans = _orphans(len(v), kept)
    if not kept.size or orphans.size:
        single = _SINGULAR[noun]
        lost = f"vertices {_first(orphans)} would belong to no {single}" if kept.size else f"no {single} is left"
        raise ValueError(
            f"{where}: {path!r} has {len(bad)} {noun} of zero {measure} ({noun} {_first(bad)}); Newton drops them, and "
            f"then {lost}: massless particles that never move. Fix the mesh (merge or remove the collapsed elements)"
        )
    warnings.warn(
        f"{where}: {path!r} has {len(bad)} {noun} of zero {measure} ({noun} {_first(bad)}); they are dropped (they "
        "carry no mass and no stiffness, and every vertex belongs to another element)",
        UserWarning,
        stacklevel=3,
    )


def _refuse_orphans(count: int, elements: np.ndarray, element: str, where: str, path: str) -> None:
    """Refuse vertices that no *element* uses: they would become massless particles that never move."""
    orphans = _orphans(count, elements)
    if orphans.size:
        raise ValueError(
            f"{where}: {path!r} has {len(orphans)} vertices in no {element} (vertices {_first(orphans)}): they would "
            "be massless particles that never move; remove them from the mesh"
        )


def check_triangle_mesh(vertices: Any, triangles: Any, scale: float, where: str, path: str) -> tuple[np.ndarray, int]:
    """Check a cloth's triangle mesh (vertices before *scale*); returns the triangles ``(m, 3)`` and how many of
    them are not degenerate (Newton keeps at least those).

    Raises:
        ValueError: See the module documentation; the message names *where* and the file *path*.
    """
    v, t = _check_arrays(vertices, triangles, 3, "triangles", where, path)
    _refuse_orphans(len(v), t, "triangle", where, path)
    p = v * float(scale)
    a, b, c = p[t[:, 0]], p[t[:, 1]], p[t[:, 2]]
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
    edge = np.max([np.linalg.norm(b - a, axis=1), np.linalg.norm(c - b, axis=1), np.linalg.norm(a - c, axis=1)], axis=0)
    bad = np.nonzero(area <= DEGENERATE_RELATIVE * edge**2)[0]
    if bad.size:
        _report_degenerate(v, t, bad, "triangles", "area", where, path)
    return t, len(t) - len(bad)


def check_tet_mesh(vertices: Any, tets: Any, scale: float, where: str, path: str) -> tuple[np.ndarray, int]:
    """Check a soft body's tetrahedral mesh (vertices before *scale*); returns the tetrahedra ``(m, 4)`` and how
    many of them are not degenerate (Newton keeps at least those).

    Raises:
        ValueError: See the module documentation; the message names *where* and the file *path*.
    """
    v, t = _check_arrays(vertices, tets, 4, "tetrahedra", where, path)
    _refuse_orphans(len(v), t, "tetrahedron", where, path)
    p = v * float(scale)
    o = p[t[:, 0]]
    edges = np.stack([p[t[:, 1]] - o, p[t[:, 2]] - o, p[t[:, 3]] - o], axis=-1)
    volume = np.linalg.det(edges) / 6.0  # Newton's sign convention (add_tetrahedron)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    longest = np.max([np.linalg.norm(p[t[:, i]] - p[t[:, j]], axis=1) for i, j in pairs], axis=0)
    flat = np.abs(volume) <= DEGENERATE_RELATIVE * longest**3
    inverted = np.nonzero((volume < 0.0) & ~flat)[0]
    if inverted.size:
        i = int(inverted[0])
        raise ValueError(
            f"{where}: {path!r} has {len(inverted)} inverted tetrahedra (negative volume: tetrahedra "
            f"{_first(inverted)}; tetrahedron {i} = vertices {t[i].tolist()}, volume {volume[i]:.3g} m^3). Newton "
            "drops inverted tetrahedra, losing their volume and mass: swap two vertices of each (e.g. the last two)"
        )
    bad = np.nonzero(flat)[0]
    if bad.size:
        _report_degenerate(v, t, bad, "tetrahedra", "volume", where, path)
    return t, len(t) - len(bad)


def check_added(builder: Any, first_particle: int, added: int, expected: int, noun: str, where: str, path: str) -> None:
    """After Newton added a mesh: at least *expected* elements (the non-degenerate ones) were kept, *added* in
    all, and every particle from *first_particle* on has mass.

    Raises:
        ValueError: Newton dropped elements (degenerate in its float32 arithmetic) or left particles massless.
    """
    masses = np.asarray(builder.particle_mass[first_particle:], dtype=np.float32)  # as the model will hold them
    massless = np.nonzero(~(masses > 0.0))[0]
    if added < expected or massless.size:
        raise ValueError(
            f"{where}: Newton kept {added} {noun} of {path!r} ({expected} expected) and {len(massless)} of its particles "
            f"got no mass (particles {_first(massless)}): the mesh is too small or too thin for float32 (scale it up, "
            "or fix the collapsed elements)"
        )
