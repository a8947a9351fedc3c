"""Randomization event terms (Isaac Lab's names, signatures and ``operation`` / ``distribution`` semantics): they
write the model's per-env properties in place — body masses, inertias and centers of mass, shape friction and
restitution, gravity, drive gains — and tell the solvers what changed (``manager.add_model_change``), so the change
takes effect at the next step with no rebuild and no new recording of the captured step (the program reads the same
arrays).

Values are drawn from torch's global generator. ``operation``: ``"abs"`` (the draw is the value), ``"add"`` (added
to the default), ``"scale"`` (times the default), where the default is the value at the simulation's start, so
repeated randomization does not drift.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import newton
import torch
import warp as wp

from isaaclab_contrib.managers import SceneEntityCfg

from .scene_reset import env_ids_tensor

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedEnv

__all__ = [
    "randomize_actuator_gains",
    "randomize_deformable_material",
    "randomize_physics_scene_gravity",
    "randomize_rigid_body_com",
    "randomize_rigid_body_mass",
    "randomize_rigid_body_material",
]

ROBOT = SceneEntityCfg("robot")
Operation = Literal["add", "scale", "abs"]
Distribution = Literal["uniform", "log_uniform", "gaussian"]


def _sample(
    params: tuple[Any, Any], shape: tuple[int, ...], distribution: str, device: str, where: str
) -> torch.Tensor:
    low, high = (torch.as_tensor(p, dtype=torch.float32, device=device) for p in params)
    if not (torch.isfinite(low).all() and torch.isfinite(high).all()):
        raise ValueError(f"{where}: the distribution parameters must be finite, got {params!r}")
    if distribution == "uniform":
        return torch.rand(shape, device=device) * (high - low) + low
    if distribution == "log_uniform":
        if (low <= 0).any() or (high <= 0).any():
            raise ValueError(f"{where}: a log-uniform distribution needs positive bounds, got {params!r}")
        return torch.exp(torch.rand(shape, device=device) * (torch.log(high) - torch.log(low)) + torch.log(low))
    if distribution == "gaussian":
        return torch.randn(shape, device=device) * high + low
    raise ValueError(f"{where}: distribution must be 'uniform', 'log_uniform' or 'gaussian', got {distribution!r}")


def _apply(default: torch.Tensor, draw: torch.Tensor, operation: str, where: str) -> torch.Tensor:
    if operation == "abs":
        return draw
    if operation == "add":
        return default + draw
    if operation == "scale":
        return default * draw
    raise ValueError(f"{where}: operation must be 'abs', 'add' or 'scale', got {operation!r}")


def _defaults(env: ManagerBasedEnv, key: str, array: wp.array) -> torch.Tensor:
    """The start value of a model array (kept on the env at the first randomization of it)."""
    store = env.__dict__.setdefault("_randomization_defaults", {})
    if key not in store:
        store[key] = wp.to_torch(array).clone()
    return store[key]


def _body_rows(env: ManagerBasedEnv, ids: torch.Tensor, asset_cfg: SceneEntityCfg) -> torch.Tensor:
    """Model body ids ``[len(ids), bodies]`` of the asset's selected bodies in the envs *ids*."""
    asset = env.scene[asset_cfg.name]
    return asset._bodies.index[ids][:, asset_cfg.body_ids]


def randomize_rigid_body_mass(
    env: ManagerBasedEnv,
    env_ids: Any,
    asset_cfg: SceneEntityCfg,
    mass_distribution_params: tuple[float, float],
    operation: Operation,
    distribution: Distribution = "uniform",
    recompute_inertia: bool = True,
) -> None:
    """Set the masses [kg] of the asset's selected bodies in *env_ids* from the start masses and a draw per body
    (at least 1e-6 kg); with *recompute_inertia* the inertia tensors scale by the same ratio (the centers of mass
    stay). Inverse mass and inertia follow."""
    where = "randomize_rigid_body_mass"
    model = env.manager.get_model()
    rows = _body_rows(env, env_ids_tensor(env, env_ids), asset_cfg)
    mass0 = _defaults(env, "body_mass", model.body_mass)[rows]
    mass = _apply(
        mass0, _sample(mass_distribution_params, tuple(rows.shape), distribution, env.device, where), operation, where
    )
    mass = mass.clamp(min=1.0e-6)
    write = env.manager.write_model_rows  # the model and the solvers' own copies of it
    flat_rows = rows.reshape(-1)
    write("body_mass", flat_rows, None, mass.reshape(-1))
    write("body_inv_mass", flat_rows, None, (1.0 / mass).reshape(-1))
    if recompute_inertia:
        ratio = (mass / mass0.clamp(min=1.0e-12)).unsqueeze(-1).unsqueeze(-1)
        inertia = (_defaults(env, "body_inertia", model.body_inertia)[rows] * ratio).reshape(-1, 3, 3)
        write("body_inertia", flat_rows, None, inertia)
        write("body_inv_inertia", flat_rows, None, torch.linalg.inv(inertia))
    env.manager.add_model_change(int(newton.ModelFlags.BODY_INERTIAL_PROPERTIES))


def randomize_rigid_body_com(
    env: ManagerBasedEnv,
    env_ids: Any,
    com_range: dict[str, tuple[float, float]],
    asset_cfg: SceneEntityCfg,
) -> None:
    """Move the centers of mass of the asset's selected bodies in *env_ids*: the start center of mass (body
    frame) plus an offset [m] drawn uniformly per env and body from ``com_range["x"]`` / ``["y"]`` / ``["z"]``
    (a missing axis: no offset). Written through the asset's ``write_material_to_sim(com=...)`` (model, coupled
    copies, ``BODY_INERTIAL_PROPERTIES`` notification): no rebuild, no new recording of the captured step."""
    where = "randomize_rigid_body_com"
    unknown = sorted(set(com_range) - {"x", "y", "z"})
    if unknown:
        raise KeyError(f"{where}: com_range keys must be 'x', 'y' or 'z', got {unknown}")
    asset = env.scene[asset_cfg.name]
    ids = env_ids_tensor(env, env_ids)
    rows = _body_rows(env, ids, asset_cfg)
    start = _defaults(env, "body_com", env.manager.get_model().body_com)[rows]
    draws = [
        _sample(com_range.get(axis, (0.0, 0.0)), tuple(rows.shape), "uniform", env.device, f"{where}: {axis}")
        for axis in ("x", "y", "z")
    ]
    asset.write_material_to_sim(env_ids=ids, body_ids=asset_cfg.body_ids, com=start + torch.stack(draws, dim=-1))


def randomize_rigid_body_material(
    env: ManagerBasedEnv,
    env_ids: Any,
    static_friction_range: tuple[float, float],
    dynamic_friction_range: tuple[float, float],
    restitution_range: tuple[float, float],
    num_buckets: int = 1,
    asset_cfg: SceneEntityCfg = ROBOT,
    make_consistent: bool = False,
) -> None:
    """Give every collision shape of the asset's selected bodies in *env_ids* a material drawn from *num_buckets*
    materials (each drawn uniformly from the ranges; each shape picks one at random).

    Newton has one friction coefficient per shape: it takes the dynamic friction (with *make_consistent*, never
    above the static one); the static friction only bounds it. Restitution is the shape's restitution.
    """
    where = "randomize_rigid_body_material"
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, int) or num_buckets < 1:
        raise ValueError(f"{where}: num_buckets must be an integer >= 1, got {num_buckets!r}")
    model = env.manager.get_model()
    rows = _body_rows(env, env_ids_tensor(env, env_ids), asset_cfg).reshape(-1)
    shape_body = wp.to_torch(model.shape_body).to(rows.device)
    shapes = torch.nonzero(torch.isin(shape_body, rows)).squeeze(-1)
    if shapes.numel() == 0:
        raise ValueError(f"{where}: the bodies of {asset_cfg.name!r} have no collision shapes")
    materials = torch.stack(
        [
            _sample(r, (num_buckets,), "uniform", env.device, where)
            for r in (static_friction_range, dynamic_friction_range, restitution_range)
        ],
        dim=-1,
    )
    if make_consistent:
        materials[:, 1] = torch.minimum(materials[:, 0], materials[:, 1])
    if (materials[:, :2] < 0).any() or (materials[:, 2] < 0).any():
        raise ValueError(f"{where}: friction and restitution must be >= 0")
    pick = torch.randint(0, num_buckets, (shapes.numel(),), device=env.device)
    env.manager.write_model_rows("shape_material_mu", shapes, None, materials[pick, 1])
    env.manager.write_model_rows("shape_material_restitution", shapes, None, materials[pick, 2])
    env.manager.add_model_change(int(newton.ModelFlags.SHAPE_PROPERTIES))


def randomize_physics_scene_gravity(
    env: ManagerBasedEnv,
    env_ids: Any,
    gravity_distribution_params: tuple[list[float], list[float]],
    operation: Operation,
    distribution: Distribution = "uniform",
) -> None:
    """Set the gravity [m/s^2] of the envs *env_ids* from the start gravity and a draw per axis.

    Isaac Lab sets one gravity for the whole scene; Newton keeps one per world, so here each env in *env_ids*
    draws its own (``env_ids`` of every env with one shared draw: pass equal bounds).
    """
    where = "randomize_physics_scene_gravity"
    model = env.manager.get_model()
    ids = env_ids_tensor(env, env_ids)
    gravity0 = _defaults(env, "gravity", model.gravity)[ids]
    draw = _sample(gravity_distribution_params, (len(ids), 3), distribution, env.device, where)
    env.manager.write_model_rows("gravity", ids, None, _apply(gravity0, draw, operation, where))
    env.manager.add_model_change(int(newton.ModelFlags.MODEL_PROPERTIES))


def randomize_actuator_gains(
    env: ManagerBasedEnv,
    env_ids: Any,
    asset_cfg: SceneEntityCfg,
    stiffness_distribution_params: tuple[float, float] | None = None,
    damping_distribution_params: tuple[float, float] | None = None,
    operation: Operation = "abs",
    distribution: Distribution = "uniform",
) -> None:
    """Set the drive gains of the asset's selected joints in *env_ids*: stiffness [N*m/rad or N/m] and damping
    [N*m*s/rad or N*s/m], each from its start value and a draw per joint (``None``: left).

    Explicit PD actuators (stepped by the program) have their gains written in the actuator's parameters;
    implicit ones (the solver's PD) in the model's ``joint_target_ke`` / ``joint_target_kd``.
    """
    where = "randomize_actuator_gains"
    asset = env.scene[asset_cfg.name]
    ids = env_ids_tensor(env, env_ids)
    dofs = asset._dof_rows.index[ids][:, asset_cfg.joint_ids].reshape(-1)
    model = env.manager.get_model()
    targets = [("stiffness", stiffness_distribution_params, "joint_target_ke", "kp")]
    targets.append(("damping", damping_distribution_params, "joint_target_kd", "kd"))
    explicit = _explicit_gains(env, dofs)
    for name, params, model_array, drive_attr in targets:
        if params is None:
            continue
        draw = _sample(params, (dofs.numel(),), distribution, env.device, f"{where}: {name}")
        implicit_values = wp.to_torch(getattr(model, model_array))
        implicit_default = _defaults(env, model_array, getattr(model, model_array))[dofs]
        value = _apply(implicit_default, draw, operation, where).clamp(min=0.0)
        value = torch.where(implicit_default > 0.0, value, implicit_values[dofs])  # an explicit drive keeps its 0
        # The implicit drives through the articulation's write (model, coupled copies, solver notification).
        write = asset.write_joint_stiffness_to_sim if name == "stiffness" else asset.write_joint_damping_to_sim
        write(value.view(len(ids), -1), joint_ids=asset_cfg.joint_ids, env_ids=ids)
        for key, (gains, positions) in explicit.items():
            array = getattr(gains, drive_attr)
            default = _defaults(env, f"{key}.{drive_attr}", array)
            slots = torch.tensor([slot for slot, _ in positions], device=default.device)
            columns = torch.tensor([column for _, column in positions], device=draw.device)
            values = _apply(default[slots], draw[columns].to(default.device), operation, where).clamp(min=0.0)
            wp.to_torch(array)[slots] = values


def _explicit_gains(env: ManagerBasedEnv, dofs: torch.Tensor) -> dict[str, tuple[Any, list[tuple[int, int]]]]:
    """For each explicit PD drive acting on some of *dofs*: ``(drive, [(slot in the drive, position in dofs)])``."""
    adapter = env.manager.get_actuator_adapter()
    out = {}
    if adapter is None:
        return out
    position = {int(d): i for i, d in enumerate(dofs.tolist())}
    for a, actuator in enumerate(adapter.actuators):
        drive = getattr(actuator, "drive", None)
        if drive is None or not hasattr(drive, "kp"):
            continue
        indices = actuator.indices.numpy().tolist()
        pairs = [(slot, position[int(d)]) for slot, d in enumerate(indices) if int(d) in position]
        if pairs:
            out[f"actuator{a}"] = (drive, pairs)
    return out


def randomize_deformable_material(
    env: ManagerBasedEnv,
    env_ids: Any,
    asset_cfg: SceneEntityCfg,
    material_distribution_params: dict[str, tuple[float, float]],
    operation: Operation = "scale",
    distribution: Distribution = "uniform",
) -> None:
    """Set a deformable's material per env, by its config's field names (a cloth's ``stiffness``, ``damping``,
    ``bend_stiffness``, ``bend_damping``; a soft body's ``k_mu``, ``k_lambda``, ``k_damp``; a cable's
    ``stretch_stiffness``, ``stretch_damping``, ``bend_stiffness``, ``bend_damping``): each from the value in the
    asset's config and a draw per env (values below 0 become 0). Written through the asset's
    ``write_material_to_sim`` (``DeformableObject``, ``Cable``): no rebuild, no new recording of the captured
    step."""
    where = "randomize_deformable_material"
    asset = env.scene[asset_cfg.name]
    ids = env_ids_tensor(env, env_ids)
    values = {}
    for field_name, params in material_distribution_params.items():
        if not hasattr(asset.cfg, field_name):
            raise KeyError(f"{where}: {type(asset.cfg).__name__} has no material field {field_name!r}")
        start = torch.full((len(ids),), float(getattr(asset.cfg, field_name)), device=env.device)
        draw = _sample(params, (len(ids),), distribution, env.device, f"{where}: {field_name}")
        values[field_name] = _apply(start, draw, operation, where).clamp(min=0.0)
    asset.write_material_to_sim(env_ids=ids, **values)
