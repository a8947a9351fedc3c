"""Kitless USD input and output with ``pxr`` (``usd-core``): build from a stage, write results back.

Without Kit there is no Fabric and no viewport: results are written as ordinary USD attributes
(``xformOp:transform`` on body prims, ``points`` on ``UsdGeom.Points`` prims), optionally as time
samples, so ``usdview`` can play a simulation back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "author_body_prims",
    "find_env_prims",
    "load_stage_into_builder",
    "sanitize_prim_path",
    "schema_resolvers",
    "set_time_range",
    "write_body_transforms",
    "write_points",
]

_ENV_NAME = re.compile(r"^(?:env|Env)_(\d+)$")


def find_env_prims(stage: Any) -> list[str]:
    """Paths of env Xforms (prims named ``env_<i>`` or ``Env_<i>``), ordered by index.

    All env prims must share one parent (``/World/envs/env_0``, ``/World/envs/env_1``, ... or
    ``/World/Env_0``, ...). Returns an empty list for a flat stage.
    """
    from pxr import UsdGeom

    found: list[tuple[int, str]] = []
    for prim in stage.Traverse():
        match = _ENV_NAME.match(prim.GetName())
        if match and prim.IsA(UsdGeom.Xform):
            found.append((int(match.group(1)), str(prim.GetPath())))
    if not found:
        return []
    parents = {path.rsplit("/", 1)[0] for _, path in found}
    if len(parents) != 1:
        raise ValueError(f"env Xforms must share one parent prim, found parents {sorted(parents)}")
    return [path for _, path in sorted(found)]


def schema_resolvers(extra: Sequence[type]) -> list[Any] | None:
    """The USD schema resolvers for Newton's importer (``add_usd(schema_resolvers=...)``).

    Newton's ``add_usd`` reads only ``newton:*`` solver attributes by default (``SchemaResolverNewton``).

    Args:
        extra: The resolver classes the solvers that will run the stage read attributes through, in priority
            order (each family's binding names them:
            :meth:`~isaaclab_contrib.physics.solvers.binding.SolverBinding.usd_schema_resolvers`; MuJoCo-Warp's is
            ``SchemaResolverMjc``, for the ``mjc:*`` attributes).

    Returns:
        ``SchemaResolverNewton`` then *extra* (a ``newton:*`` value authored on the same prim keeps priority), or
        ``None`` (Newton's default) when *extra* is empty: attributes for other solvers are then not imported.
    """
    if not extra:
        return None
    from newton.usd import SchemaResolverNewton

    return [SchemaResolverNewton(), *(resolver() for resolver in extra)]


def load_stage_into_builder(builder: Any, stage: Any, **add_usd_kwargs: Any) -> list[str]:
    """Add the stage's physics to *builder*: each env Xform becomes its own Newton world.

    Bodies and shapes are labelled with their prim paths. Prims outside the env Xforms (a ground
    plane, say) are added as global entities. On a flat stage everything is added at once.

    Returns:
        The env prim paths, in world order (empty for a flat stage).
    """
    user_ignore = list(add_usd_kwargs.pop("ignore_paths", None) or [])
    envs = find_env_prims(stage)
    if not envs:
        if user_ignore:
            add_usd_kwargs["ignore_paths"] = user_ignore
        builder.add_usd(stage, **add_usd_kwargs)
        return []
    env_parent = envs[0].rsplit("/", 1)[0]
    for path in envs:
        builder.begin_world(label=path)
        builder.add_usd(stage, root_path=path, ignore_paths=user_ignore or None, **add_usd_kwargs)
        builder.end_world()
    # Everything outside the env subtree (e.g. /World/ground) is global.
    ignore = [*user_ignore, f"{re.escape(env_parent)}(/.*)?"]
    builder.add_usd(stage, ignore_paths=ignore, **add_usd_kwargs)
    return envs


def sanitize_prim_path(label: str) -> str:
    """A valid absolute Sdf path for a Newton label (invalid characters become ``_``)."""
    parts = [re.sub(r"[^A-Za-z0-9_]", "_", part) or "_" for part in label.strip("/").split("/")]
    parts = [f"_{part}" if part[0].isdigit() else part for part in parts]
    return "/" + "/".join(parts)


def author_body_prims(stage: Any, model: Any) -> list[str]:
    """Define one Xform per body (at its sanitized label path) with simple geometry for its shapes.

    Boxes, spheres and capsules become ``UsdGeom.Cube`` / ``Sphere`` / ``Capsule`` children at the
    shape's body-local transform; other shapes are omitted. Returns the body prim paths in body order.
    """
    import newton
    from pxr import Gf, UsdGeom

    paths = []
    used: set[str] = set()
    for body, label in enumerate(model.body_label):
        path = sanitize_prim_path(label or f"/World/bodies/body_{body}")
        while path in used:
            path += "_"
        used.add(path)
        UsdGeom.Xform.Define(stage, path)
        paths.append(path)
    shape_body = model.shape_body.numpy()
    shape_type = model.shape_type.numpy()
    shape_scale = model.shape_scale.numpy()
    shape_xform = model.shape_transform.numpy()
    shape_flags = model.shape_flags.numpy()
    visible = int(newton.ShapeFlags.VISIBLE)
    for shape, body in enumerate(shape_body):
        if body < 0 or not shape_flags[shape] & visible:
            continue
        kind = int(shape_type[shape])
        sx, sy, sz = (float(v) for v in shape_scale[shape])
        geo_path = f"{paths[body]}/shape_{shape}"
        if kind == int(newton.GeoType.BOX):
            geom = UsdGeom.Cube.Define(stage, geo_path)
            geom.CreateSizeAttr(2.0)
            scale = Gf.Vec3f(sx, sy, sz)
        elif kind == int(newton.GeoType.SPHERE):
            geom = UsdGeom.Sphere.Define(stage, geo_path)
            geom.CreateRadiusAttr(sx)
            scale = None
        elif kind == int(newton.GeoType.CAPSULE):
            geom = UsdGeom.Capsule.Define(stage, geo_path)
            geom.CreateRadiusAttr(sx)
            geom.CreateHeightAttr(2.0 * sy)
            geom.CreateAxisAttr("Z")
            scale = None
        else:
            continue
        p, q = shape_xform[shape][:3], shape_xform[shape][3:]
        geom.AddTranslateOp().Set(Gf.Vec3d(*(float(v) for v in p)))
        geom.AddOrientOp().Set(Gf.Quatf(float(q[3]), float(q[0]), float(q[1]), float(q[2])))
        if scale is not None:
            geom.AddScaleOp().Set(scale)
    return paths


def _matrix(transform: np.ndarray):
    from pxr import Gf

    p, q = transform[:3], transform[3:]
    rotation = Gf.Matrix3d(Gf.Rotation(Gf.Quatd(float(q[3]), float(q[0]), float(q[1]), float(q[2]))))
    matrix = Gf.Matrix4d(1.0)
    matrix.SetRotateOnly(rotation)
    matrix.SetTranslateOnly(Gf.Vec3d(*(float(v) for v in p)))
    return matrix


def write_body_transforms(
    stage: Any, prim_paths: Sequence[str | None], body_q: np.ndarray, time_code: float | None = None
) -> int:
    """Write world poses ``body_q`` (``[p, q_xyzw]`` rows) to the prims as one ``xformOp:transform``.

    Prims whose parent is transformed receive the pose relative to the parent. Entries whose path
    is ``None`` or not on the stage are skipped. Returns the number of prims written.

    Raises:
        ValueError: *body_q* is not numbers of shape ``(len(prim_paths), 7)`` (nothing is written then). Non-finite
            poses (a diverged simulation) are written as they are.
    """
    from pxr import UsdGeom

    body_q = _checked_rows(body_q, 7, "write_body_transforms: body_q", rows=len(prim_paths))
    code = _time_code(time_code, "write_body_transforms")
    cache = UsdGeom.XformCache(code)
    written = 0
    for path, pose in zip(prim_paths, body_q, strict=True):
        if path is None:
            continue
        prim = stage.GetPrimAtPath(path)
        if not prim or not prim.IsA(UsdGeom.Xformable):
            continue
        xformable = UsdGeom.Xformable(prim)
        ops = xformable.GetOrderedXformOps()
        if len(ops) != 1 or ops[0].GetOpType() != UsdGeom.XformOp.TypeTransform:
            xformable.ClearXformOpOrder()
            op = xformable.AddTransformOp()
        else:
            op = ops[0]
        world = _matrix(pose)
        parent_world = cache.GetParentToWorldTransform(prim)
        op.Set(world * parent_world.GetInverse(), code)
        written += 1
    return written


def write_points(stage: Any, prim_path: str, points: np.ndarray, time_code: float | None = None) -> None:
    """Set the ``points`` of the ``UsdGeom.Points`` prim at *prim_path* (world frame) [m].

    Raises:
        ValueError: *points* is not numbers of shape ``(n, 3)``, or the prim is not a ``UsdGeom.Points`` (nothing
            is written then). Non-finite points (a diverged simulation) are written as they are.
    """
    from pxr import Gf, UsdGeom, Vt

    points = _checked_rows(points, 3, f"write_points({prim_path!r}): points")
    prim = stage.GetPrimAtPath(prim_path)
    if not prim or not prim.IsA(UsdGeom.Points):
        raise ValueError(f"{prim_path!r} is not a UsdGeom.Points prim on the stage")
    code = _time_code(time_code, "write_points")
    values = Vt.Vec3fArray([Gf.Vec3f(*(float(c) for c in p)) for p in points])
    UsdGeom.Points(prim).GetPointsAttr().Set(values, code)


def _checked_rows(values: Any, width: int, where: str, rows: int | None = None) -> np.ndarray:
    """*values* as a ``(rows, width)`` float array, or a ``ValueError`` naming *where*."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where} must be an array of numbers, got {type(values).__name__}") from err
    if array.ndim != 2 or array.shape[1] != width or (rows is not None and array.shape[0] != rows):
        expected = f"({rows if rows is not None else 'n'}, {width})"
        raise ValueError(f"{where} must have shape {expected}, got {array.shape}")
    return array


def _time_code(time_code: float | None, where: str) -> Any:
    from pxr import Usd

    if time_code is None:
        return Usd.TimeCode.Default()
    if isinstance(time_code, bool) or not isinstance(time_code, (int, float, np.number)) or not np.isfinite(time_code):
        raise ValueError(f"{where}: time_code must be None or a finite number, got {time_code!r}")
    return Usd.TimeCode(float(time_code))


def set_time_range(stage: Any, start: float, end: float, codes_per_second: float) -> None:
    """Set the stage's playback range and rate."""
    stage.SetStartTimeCode(start)
    stage.SetEndTimeCode(end)
    stage.SetTimeCodesPerSecond(codes_per_second)
