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
    "schema_resolvers_for",
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


def schema_resolvers_for(solver_cfgs: Sequence[Any]) -> list[Any] | None:
    """The USD schema resolvers Newton's importer needs for the solvers that will run the stage.

    Newton's ``add_usd`` reads only ``newton:*`` solver attributes by default
    (``SchemaResolverNewton``). When a MuJoCo solver runs the scene (a standalone
    :class:`~.mjwarp_cfg.MJWarpSolverCfg`, or a coupler entry with one; any config whose solver class
    is ``newton.solvers.SolverMuJoCo``), ``SchemaResolverMjc`` is added after it, so the ``mjc:*``
    attributes authored for MuJoCo reach the model: on joints ``mjc:armature`` ->
    ``joint_armature``, ``mjc:frictionloss`` -> ``joint_friction``, ``mjc:damping``, ``mjc:stiffness``,
    ``mjc:springref``, ``mjc:ref`` and ``mjc:actuatorfrcrange``; on shapes ``mjc:margin``,
    ``mjc:gap``, ``mjc:solref``, ``mjc:maxhullvert``, ``mjc:shellinertia``; MuJoCo's scene options and
    materials. A ``newton:*`` value authored on the same prim keeps priority. The resolver needs
    the MuJoCo custom attributes on the builder, which the manager's ``create_builder()`` registers
    for these configs.

    Returns:
        The resolvers in priority order, or ``None`` (Newton's default) when no MuJoCo solver runs: other
        solvers ignore ``mjc:*`` attributes, which are then not imported.
    """
    from newton.solvers import SolverMuJoCo

    runs_mujoco = False
    for cfg in solver_cfgs:
        solver_class = cfg.solver_class() if hasattr(cfg, "solver_class") else None
        if isinstance(solver_class, type) and issubclass(solver_class, SolverMuJoCo):
            runs_mujoco = True
    if not runs_mujoco:
        return None
    from newton.usd import SchemaResolverMjc, SchemaResolverNewton

    return [SchemaResolverNewton(), SchemaResolverMjc()]


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
    """
    from pxr import Usd, UsdGeom

    code = Usd.TimeCode.Default() if time_code is None else Usd.TimeCode(time_code)
    cache = UsdGeom.XformCache(code)
    written = 0
    for path, pose in zip(prim_paths, body_q, strict=False):
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
    """Set the ``points`` of the ``UsdGeom.Points`` prim at *prim_path* (world frame) [m]."""
    from pxr import Gf, Usd, UsdGeom, Vt

    prim = stage.GetPrimAtPath(prim_path)
    if not prim or not prim.IsA(UsdGeom.Points):
        raise ValueError(f"{prim_path!r} is not a UsdGeom.Points prim on the stage")
    code = Usd.TimeCode.Default() if time_code is None else Usd.TimeCode(time_code)
    values = Vt.Vec3fArray([Gf.Vec3f(*(float(c) for c in p)) for p in points])
    UsdGeom.Points(prim).GetPointsAttr().Set(values, code)


def set_time_range(stage: Any, start: float, end: float, codes_per_second: float) -> None:
    """Set the stage's playback range and rate."""
    stage.SetStartTimeCode(start)
    stage.SetEndTimeCode(end)
    stage.SetTimeCodesPerSecond(codes_per_second)
