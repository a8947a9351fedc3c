"""Terms of the deformable lift tasks (Isaac Lab 3.0's names): a robot lifts a soft body, a cloth or a cable to a
commanded position.

Every term reads the object through :func:`asset_points_w`, the object's points in the world frame
``[num_envs, P, 3]``: the nodes (particles) of a :class:`~isaaclab_contrib.assets.DeformableObject`, or the
selected bodies (``asset_cfg.body_ids``) of a body asset — a cable's capsule segments, a rigid object, an
articulation's links. The object's center ("COM") is the mean of its points: for a deformable the mean of its
nodes (its ``root_pos_w``), for a cable the mean of the selected segments' frame origins (select the middle
segment to track the cable's middle). The ``cable_*`` names are the same terms with the cable's wording; the
``deformable_*`` ones accept a cable asset as well.

Frames: "robot root frame" is the pose of the robot's root body (``data.root_pos_w`` / ``data.root_quat_w``,
``(x, y, z, w)``); heights are over the env's origin (``scene.env_origins``). Draws (the reset event) come from
torch's global generator, Isaac Lab's convention.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import newton
import torch

from isaaclab_contrib.managers import ManagerTermBase, SceneEntityCfg
from isaaclab_contrib.utils.math import quat_apply, quat_conjugate, sample_uniform

from .scene_reset import env_ids_tensor

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedEnv, ManagerBasedRLEnv

__all__ = [
    "CableGoalDistance",
    "DeformableComGoalDistance",
    "DeformableSampledPointsInRobotRootFrame",
    "asset_points_w",
    "cable_ee_distance",
    "cable_goal_reached",
    "cable_lifting",
    "cable_out_of_bounds",
    "cable_segment_pos_in_robot_root_frame",
    "deformable_com_ee_distance",
    "deformable_com_goal_reached",
    "deformable_lifting",
    "deformable_nearest_node_ee_distance",
    "deformable_outside_bounds",
    "ee_below_minimum",
    "gravity_range_linear",
    "joint_vel_out_of_sim_limit",
    "reset_nodal_state_uniform",
]

OBJECT = SceneEntityCfg("object")
ROBOT = SceneEntityCfg("robot")
EE = SceneEntityCfg("robot", body_names="panda_hand_tcp")
DEFAULT_BOUNDS = ((0.0, 1.0), (-0.5, 0.5), (-0.02, 1.0))
"""Box the object's center must stay in, in the robot root frame: (low, high) [m] per axis x, y, z."""
_AXES = ("x", "y", "z")


# ---------------------------------------------------------------------------------------------- scene access
def _entity(env: ManagerBasedEnv, cfg: SceneEntityCfg, where: str) -> SceneEntityCfg:
    """*cfg* with its names resolved against the env's scene.

    A manager resolves the entity configs it is given in ``params``; a default left in the signature (e.g. the
    end effector's ``body_names``) is not, so it is resolved here once per env, on a copy.
    """
    unresolved = (cfg.body_names is not None and isinstance(cfg.body_ids, slice)) or (
        cfg.joint_names is not None and isinstance(cfg.joint_ids, slice)
    )
    if not unresolved:
        return cfg
    cache = env.__dict__.setdefault("_deformable_term_entities", {})
    if id(cfg) not in cache:
        resolved = copy.deepcopy(cfg)
        resolved.resolve(env.scene, where=where)
        cache[id(cfg)] = (cfg, resolved)  # the original is kept alive so its id is not reused
    return cache[id(cfg)][1]


def _points(
    env: ManagerBasedEnv, asset_cfg: SceneEntityCfg, where: str, node_ids: Sequence[int] | torch.Tensor | None = None
) -> torch.Tensor:
    asset = env.scene[asset_cfg.name]
    data = getattr(asset, "data", None)
    if data is not None and hasattr(data, "nodal_pos_w"):
        points = data.nodal_pos_w.torch
    elif data is not None and hasattr(data, "body_pos_w"):
        points = data.body_pos_w.torch[:, _entity(env, asset_cfg, where).body_ids]
    else:
        raise TypeError(
            f"{where}: scene entity {asset_cfg.name!r} ({type(asset).__name__}) has no points: expected a deformable "
            "object (data.nodal_pos_w) or a body asset such as a cable (data.body_pos_w)"
        )
    if node_ids is not None:
        points = points[:, node_ids]
    if points.shape[1] == 0:
        raise ValueError(f"{where}: scene entity {asset_cfg.name!r} selects no points")
    return points


def asset_points_w(
    env: ManagerBasedEnv,
    asset_cfg: SceneEntityCfg = OBJECT,
    node_ids: Sequence[int] | torch.Tensor | None = None,
) -> torch.Tensor:
    """The object's points, world frame [m], ``[num_envs, P, 3]``.

    Args:
        asset_cfg: The object: a deformable (its nodes, ``data.nodal_pos_w``) or a body asset (the bodies
            ``asset_cfg.body_ids`` of ``data.body_pos_w``, e.g. a cable's segments).
        node_ids: A subset of those points (indices into them); ``None``: all.

    Raises:
        TypeError: The entity has neither nodes nor bodies (e.g. an asset the scene keeps as a config only).
        ValueError: The selection is empty.
    """
    return _points(env, asset_cfg, "asset_points_w", node_ids)


def _center(env: ManagerBasedEnv, asset_cfg: SceneEntityCfg, where: str) -> torch.Tensor:
    """Mean of the object's points, world frame [m], ``[num_envs, 3]``."""
    return _points(env, asset_cfg, where).mean(dim=1)


def _root_pose(env: ManagerBasedEnv, robot_cfg: SceneEntityCfg, where: str) -> tuple[torch.Tensor, torch.Tensor]:
    data = getattr(env.scene[robot_cfg.name], "data", None)
    if data is None or not hasattr(data, "root_quat_w"):
        raise TypeError(f"{where}: robot_cfg {robot_cfg.name!r} has no root pose (data.root_pos_w / root_quat_w)")
    return data.root_pos_w.torch, data.root_quat_w.torch


def _to_root_frame(env: ManagerBasedEnv, robot_cfg: SceneEntityCfg, points_w: torch.Tensor, where: str) -> torch.Tensor:
    """World points ``[num_envs, ..., 3]`` expressed in the robot root frame [m]."""
    pos, quat = _root_pose(env, robot_cfg, where)
    extra = (1,) * (points_w.dim() - 2)
    inverse = quat_conjugate(quat).view(quat.shape[0], *extra, 4)
    return quat_apply(inverse.expand(*points_w.shape[:-1], 4), points_w - pos.view(pos.shape[0], *extra, 3))


def _goal_w(env: ManagerBasedRLEnv, command_name: str, robot_cfg: SceneEntityCfg, where: str) -> torch.Tensor:
    """The commanded position (the command's first 3 values, robot root frame) in the world frame [m]."""
    goal_b = env.command_manager.get_command(command_name)[:, :3]
    pos, quat = _root_pose(env, robot_cfg, where)
    return pos + quat_apply(quat, goal_b)


def _ee_pos(env: ManagerBasedEnv, ee_cfg: SceneEntityCfg, where: str) -> torch.Tensor:
    """World position of the one end-effector body of *ee_cfg* [m], ``[num_envs, 3]``."""
    cfg = _entity(env, ee_cfg, where)
    bodies = env.scene[cfg.name].data.body_pos_w.torch[:, cfg.body_ids]
    if bodies.shape[1] != 1:
        raise ValueError(
            f"{where}: ee_cfg must select one body of {cfg.name!r} (body_names), got {bodies.shape[1]} bodies"
        )
    return bodies[:, 0]


def _positive(value: Any, name: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0.0 < value < math.inf):
        raise ValueError(f"{where}: {name} must be a positive finite number, got {value!r}")
    return float(value)


def _finite(value: Any, name: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: {name} must be a finite number, got {value!r}")
    return float(value)


# ---------------------------------------------------------------------------------------------- observations
class DeformableSampledPointsInRobotRootFrame(ManagerTermBase):
    """Positions of ``num_points`` of the object's points in the robot root frame [m], flattened:
    ``[num_envs, 3 * num_points]`` (x, y, z of the first point, then the next).

    The points are picked once, when the term is built: ``num_points`` distinct indices drawn from a generator
    of the term's own seeded with ``seed`` (torch's global generator is not touched), listed in ascending order;
    every point when the object has no more than ``num_points`` (then ``[num_envs, 3 * P]``).

    Params:
        num_points: How many points [count], ``>= 1`` (default 20).
        asset_cfg: The object (a deformable's nodes, or a body asset's selected bodies).
        robot_cfg: The robot whose root frame the points are expressed in.
        seed: Seed of the pick.

    Raises:
        ValueError: ``num_points`` is not an integer ``>= 1``; TypeError: the object has no points.
    """

    def __init__(self, cfg: Any, env: ManagerBasedEnv):
        super().__init__(cfg, env)
        params = cfg.params
        where = type(self).__name__
        num_points = params.get("num_points", 20)
        if isinstance(num_points, bool) or not isinstance(num_points, int) or num_points < 1:
            raise ValueError(f"{where}: num_points must be an integer >= 1, got {num_points!r}")
        seed = params.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"{where}: seed must be an integer, got {seed!r}")
        count = _points(env, params.get("asset_cfg", OBJECT), where).shape[1]
        generator = torch.Generator().manual_seed(seed)
        picked = torch.randperm(count, generator=generator)[: min(num_points, count)]
        self.node_ids = torch.sort(picked).values.to(env.device)
        """Indices of the observed points among the object's points, ascending, ``[min(num_points, P)]``."""

    def __call__(
        self,
        env: ManagerBasedEnv,
        num_points: int = 20,
        asset_cfg: SceneEntityCfg = OBJECT,
        robot_cfg: SceneEntityCfg = ROBOT,
        seed: int = 0,
    ) -> torch.Tensor:
        where = type(self).__name__
        points_w = _points(env, asset_cfg, where, self.node_ids)
        return _to_root_frame(env, robot_cfg, points_w, where).reshape(env.num_envs, -1)


def cable_segment_pos_in_robot_root_frame(
    env: ManagerBasedEnv, asset_cfg: SceneEntityCfg = OBJECT, robot_cfg: SceneEntityCfg = ROBOT
) -> torch.Tensor:
    """Positions of the cable's selected segments (their frame origins) in the robot root frame [m], flattened:
    ``[num_envs, 3 * segments]``."""
    where = "cable_segment_pos_in_robot_root_frame"
    points_w = _points(env, asset_cfg, where)
    return _to_root_frame(env, robot_cfg, points_w, where).reshape(env.num_envs, -1)


# ---------------------------------------------------------------------------------------------- rewards
def _com_ee_reward(env, std, asset_cfg, ee_cfg, where) -> torch.Tensor:
    std = _positive(std, "std", where)
    distance = torch.norm(_center(env, asset_cfg, where) - _ee_pos(env, ee_cfg, where), dim=-1)
    return 1.0 - torch.tanh(distance / std)


def deformable_com_ee_distance(
    env: ManagerBasedRLEnv, std: float, asset_cfg: SceneEntityCfg = OBJECT, ee_cfg: SceneEntityCfg = EE
) -> torch.Tensor:
    """Reaching: ``1 - tanh(d / std)``, *d* the distance [m] from the object's center to the end effector (the one
    body of *ee_cfg*); *std* [m] > 0. In ``(0, 1]``."""
    return _com_ee_reward(env, std, asset_cfg, ee_cfg, "deformable_com_ee_distance")


def deformable_nearest_node_ee_distance(
    env: ManagerBasedRLEnv, std: float, asset_cfg: SceneEntityCfg = OBJECT, ee_cfg: SceneEntityCfg = EE
) -> torch.Tensor:
    """Reaching a cloth: ``1 - tanh(d / std)``, *d* the distance [m] from the end effector to the object's nearest
    point (node); *std* [m] > 0. In ``(0, 1]``."""
    where = "deformable_nearest_node_ee_distance"
    std = _positive(std, "std", where)
    points = _points(env, asset_cfg, where)
    distance = torch.norm(points - _ee_pos(env, ee_cfg, where).unsqueeze(1), dim=-1).min(dim=1).values
    return 1.0 - torch.tanh(distance / std)


def _lifting(env, minimal_height, std, asset_cfg, where) -> torch.Tensor:
    minimal_height = _finite(minimal_height, "minimal_height", where)
    std = _positive(std, "std", where)
    height = _center(env, asset_cfg, where)[:, 2] - env.scene.env_origins[:, 2]
    return torch.tanh((height - minimal_height).clamp(min=0.0) / std)


def deformable_lifting(
    env: ManagerBasedRLEnv, minimal_height: float, std: float, asset_cfg: SceneEntityCfg = OBJECT
) -> torch.Tensor:
    """Lifting: ``tanh(max(h - minimal_height, 0) / std)``, *h* the height [m] of the object's center over the
    env's origin; *minimal_height* [m], *std* [m] > 0. In ``[0, 1)``."""
    return _lifting(env, minimal_height, std, asset_cfg, "deformable_lifting")


class DeformableComGoalDistance(ManagerTermBase):
    """Goal tracking: ``(h > minimal_height) * (1 - tanh(d / std))``, *d* the distance [m] from the object's center
    to the commanded position (the command *command_name*'s first 3 values, in the robot root frame, taken to
    the world), *h* the center's height [m] over the env's origin.

    Each call also records, per env, whether *d* < *success_threshold* [m] at that step. :meth:`reset` turns the
    record of the envs whose episodes end into a success rate (their mean, 0-dim tensor): it returns
    ``{"success_rate": rate}`` and writes it into the env's episode log of that reset,
    ``env.extras["log"]["Metrics/<term>/success_rate"]`` (``<term>``: the term's name in the reward manager), next
    to the command metrics. The reward manager does not call terms of weight 0, so such a term records nothing.

    Params: ``std`` [m] > 0, ``minimal_height`` [m], ``command_name``, ``success_threshold`` [m] > 0,
    ``asset_cfg`` (the object), ``robot_cfg`` (the robot of the command's frame).
    """

    def __init__(self, cfg: Any, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        self.reached = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        """Per env: the center was within the success threshold at the last call."""
        self._log_key: str | None = None

    def __call__(
        self,
        env: ManagerBasedRLEnv,
        std: float,
        minimal_height: float,
        command_name: str = "object_pose",
        success_threshold: float = 0.05,
        asset_cfg: SceneEntityCfg = OBJECT,
        robot_cfg: SceneEntityCfg = ROBOT,
    ) -> torch.Tensor:
        where = type(self).__name__
        std = _positive(std, "std", where)
        minimal_height = _finite(minimal_height, "minimal_height", where)
        success_threshold = _positive(success_threshold, "success_threshold", where)
        center = _center(env, asset_cfg, where)
        distance = torch.norm(center - _goal_w(env, command_name, robot_cfg, where), dim=-1)
        self.reached[:] = distance < success_threshold  # in place: usable across inference mode
        lifted = (center[:, 2] - env.scene.env_origins[:, 2]) > minimal_height
        return lifted.float() * (1.0 - torch.tanh(distance / std))

    def reset(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """Log the success rate of the envs *env_ids* (``None``: every env) and clear their record; nothing is
        logged for no env, nor outside an env reset (no open ``env.extras["log"]``)."""
        ids = slice(None) if env_ids is None else env_ids
        count = self.num_envs if env_ids is None else len(env_ids)
        if count == 0:
            return {}
        rate = self.reached[ids].float().mean()
        self.reached[ids] = False
        log = getattr(self._env, "extras", {}).get("log")
        if isinstance(log, dict):
            log[self._metric_key()] = rate
        return {"success_rate": rate}

    def _metric_key(self) -> str:
        if self._log_key is None:
            manager = getattr(self._env, "reward_manager", None)
            for name in getattr(manager, "active_terms", []):
                if manager.get_term_cfg(name).func is self:
                    self._log_key = f"Metrics/{name}/success_rate"
                    return self._log_key
            return f"Metrics/{type(self).__name__}/success_rate"
        return self._log_key


def _goal_reached(env, threshold, command_name, asset_cfg, robot_cfg, where) -> torch.Tensor:
    threshold = _positive(threshold, "threshold", where)
    center = _center(env, asset_cfg, where)
    distance = torch.norm(center - _goal_w(env, command_name, robot_cfg, where), dim=-1)
    return (distance < threshold).float()


def deformable_com_goal_reached(
    env: ManagerBasedRLEnv,
    threshold: float = 0.05,
    command_name: str = "object_pose",
    asset_cfg: SceneEntityCfg = OBJECT,
    robot_cfg: SceneEntityCfg = ROBOT,
) -> torch.Tensor:
    """Success bonus: 1.0 where the object's center is within *threshold* [m] of the commanded position (robot
    root frame, taken to the world), else 0.0."""
    return _goal_reached(env, threshold, command_name, asset_cfg, robot_cfg, "deformable_com_goal_reached")


def cable_ee_distance(
    env: ManagerBasedRLEnv, std: float, asset_cfg: SceneEntityCfg = OBJECT, ee_cfg: SceneEntityCfg = EE
) -> torch.Tensor:
    """Reaching a cable: ``1 - tanh(d / std)``, *d* the distance [m] from the end effector to the mean of the
    cable's selected segments (``asset_cfg.body_names``; one segment: that segment); *std* [m] > 0."""
    return _com_ee_reward(env, std, asset_cfg, ee_cfg, "cable_ee_distance")


def cable_lifting(
    env: ManagerBasedRLEnv, minimal_height: float, std: float, asset_cfg: SceneEntityCfg = OBJECT
) -> torch.Tensor:
    """Lifting a cable: ``tanh(max(h - minimal_height, 0) / std)``, *h* the height [m] over the env's origin of
    the mean of the cable's selected segments; *minimal_height* [m], *std* [m] > 0 (the task uses 0.05)."""
    return _lifting(env, minimal_height, std, asset_cfg, "cable_lifting")


class CableGoalDistance(DeformableComGoalDistance):
    """Goal tracking of a cable: :class:`DeformableComGoalDistance` on the mean of the cable's selected segments
    (the task selects the middle segment with ``asset_cfg.body_names``). Same params, the same success-rate log."""


def cable_goal_reached(
    env: ManagerBasedRLEnv,
    threshold: float = 0.05,
    command_name: str = "object_pose",
    asset_cfg: SceneEntityCfg = OBJECT,
    robot_cfg: SceneEntityCfg = ROBOT,
) -> torch.Tensor:
    """Success bonus of a cable: 1.0 where the mean of its selected segments is within *threshold* [m] of the
    commanded position, else 0.0."""
    return _goal_reached(env, threshold, command_name, asset_cfg, robot_cfg, "cable_goal_reached")


# ---------------------------------------------------------------------------------------------- terminations
def _bounds(bounds: Any, where: str) -> tuple[tuple[float, float], ...]:
    shown = f"bounds must be three (low, high) pairs [m] for x, y, z with low <= high, got {bounds!r}"
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 3:
        raise ValueError(f"{where}: {shown}")
    pairs = []
    for pair in bounds:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"{where}: {shown}")
        low, high = pair
        for value in pair:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
                raise ValueError(f"{where}: {shown}")
        if low > high:
            raise ValueError(f"{where}: {shown}")
        pairs.append((float(low), float(high)))
    return tuple(pairs)


def _outside(env, bounds, asset_cfg, robot_cfg, where) -> torch.Tensor:
    pairs = _bounds(bounds, where)
    center_b = _to_root_frame(env, robot_cfg, _center(env, asset_cfg, where), where)
    outside = torch.zeros(env.num_envs, dtype=torch.bool, device=center_b.device)
    for axis, (low, high) in enumerate(pairs):
        outside |= (center_b[:, axis] < low) | (center_b[:, axis] > high)
    return outside


def deformable_outside_bounds(
    env: ManagerBasedRLEnv,
    bounds: tuple[tuple[float, float], tuple[float, float], tuple[float, float]] = DEFAULT_BOUNDS,
    asset_cfg: SceneEntityCfg = OBJECT,
    robot_cfg: SceneEntityCfg = ROBOT,
) -> torch.Tensor:
    """The object's center, in the robot root frame, is outside *bounds* ((low, high) [m] for x, y, z; infinite
    bounds allowed).

    Raises:
        ValueError: *bounds* is not three ordered pairs.
    """
    return _outside(env, bounds, asset_cfg, robot_cfg, "deformable_outside_bounds")


def cable_out_of_bounds(
    env: ManagerBasedRLEnv,
    bounds: tuple[tuple[float, float], tuple[float, float], tuple[float, float]] = DEFAULT_BOUNDS,
    asset_cfg: SceneEntityCfg = OBJECT,
    robot_cfg: SceneEntityCfg = ROBOT,
) -> torch.Tensor:
    """The mean of the cable's selected segments, in the robot root frame, is outside *bounds* ((low, high) [m]
    for x, y, z)."""
    return _outside(env, bounds, asset_cfg, robot_cfg, "cable_out_of_bounds")


def ee_below_minimum(env: ManagerBasedRLEnv, minimum_height: float, ee_cfg: SceneEntityCfg = EE) -> torch.Tensor:
    """A body of *ee_cfg* (the end effector) is lower than *minimum_height* [m] over the env's origin."""
    where = "ee_below_minimum"
    minimum_height = _finite(minimum_height, "minimum_height", where)
    cfg = _entity(env, ee_cfg, where)
    heights = env.scene[cfg.name].data.body_pos_w.torch[:, cfg.body_ids, 2] - env.scene.env_origins[:, 2:3]
    return torch.any(heights < minimum_height, dim=1)


def joint_vel_out_of_sim_limit(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    """A selected joint moves faster than the simulation's velocity limit of that joint (``|qd| >
    data.joint_vel_limits``, [rad/s or m/s])."""
    cfg = _entity(env, asset_cfg, "joint_vel_out_of_sim_limit")
    data = env.scene[cfg.name].data
    speed = data.joint_vel.torch[:, cfg.joint_ids].abs()
    return torch.any(speed > data.joint_vel_limits.torch[:, cfg.joint_ids], dim=1)


# ---------------------------------------------------------------------------------------------- events
def _xyz_ranges(ranges: dict[str, tuple[float, float]], where: str, device: Any) -> torch.Tensor:
    """``[3, 2]`` (low, high) of x, y, z (missing keys: (0, 0))."""
    if not isinstance(ranges, dict):
        raise TypeError(f"{where} must be a dict of 'x', 'y', 'z' to (low, high), got {type(ranges).__name__}")
    unknown = sorted(set(ranges) - set(_AXES))
    if unknown:
        raise KeyError(f"{where}: unknown key(s) {unknown}; the keys are {list(_AXES)}")
    rows = []
    for key in _AXES:
        pair = ranges.get(key, (0.0, 0.0))
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(math.isfinite(v) for v in pair):
            raise ValueError(f"{where}[{key!r}] must be a finite (low, high) pair, got {pair!r}")
        if pair[0] > pair[1]:
            raise ValueError(f"{where}[{key!r}] must be (low, high) with low <= high, got {tuple(pair)!r}")
        rows.append([float(pair[0]), float(pair[1])])
    return torch.tensor(rows, dtype=torch.float32, device=device)


def reset_nodal_state_uniform(
    env: ManagerBasedEnv,
    env_ids: torch.Tensor | None,
    position_range: dict[str, tuple[float, float]],
    velocity_range: dict[str, tuple[float, float]] | None = None,
    asset_cfg: SceneEntityCfg = OBJECT,
) -> None:
    """Put the object of the envs *env_ids* at its start state moved by one offset per env.

    The offset [m] is drawn uniformly per env from *position_range* (keys ``x``, ``y``, ``z``; a missing key: 0)
    and added to every node; the velocity [m/s] is the start velocity plus one draw per env from
    *velocity_range* (the same keys; ``None``: the start velocity, no draw). Draws: torch's global generator,
    the offsets ``[len(env_ids), 3]`` first, then the velocities.

    A deformable gets ``data.default_nodal_state_w`` (world frame) moved, written with
    ``write_nodal_state_to_sim``. A cable (an asset with ``write_body_state_to_sim``) gets every segment of
    ``data.default_body_state`` (``[num_envs, segments, 13]``: world position, (x, y, z, w), linear and angular
    velocity) moved by the offset, its linear velocities by the velocity draw, orientations and angular
    velocities kept.

    Raises:
        KeyError: An unknown range key. ValueError: A range that is not a finite (low, high) pair.
        TypeError: The asset is neither a deformable nor a cable (use ``reset_root_state_uniform``).
    """
    where = "reset_nodal_state_uniform"
    asset = env.scene[asset_cfg.name]
    ids = env_ids_tensor(env, env_ids)
    data = getattr(asset, "data", None)
    deformable = data is not None and hasattr(data, "default_nodal_state_w")
    cable = data is not None and hasattr(asset, "write_body_state_to_sim") and hasattr(data, "default_body_state")
    if not (deformable or cable):
        raise TypeError(
            f"{where}: scene entity {asset_cfg.name!r} ({type(asset).__name__}) has no nodal or segment state to "
            "reset; use reset_root_state_uniform for rigid objects and articulations"
        )
    pos_range = _xyz_ranges(position_range, f"{where}: position_range", env.device)
    vel_range = None if velocity_range is None else _xyz_ranges(velocity_range, f"{where}: velocity_range", env.device)
    offset = sample_uniform(pos_range[:, 0], pos_range[:, 1], (len(ids), 3), env.device)
    velocity = None
    if vel_range is not None:
        velocity = sample_uniform(vel_range[:, 0], vel_range[:, 1], (len(ids), 3), env.device)
    if deformable:
        state = data.default_nodal_state_w.torch[ids].clone()
        state[..., 0:3] += offset.unsqueeze(1)
        if velocity is not None:
            state[..., 3:6] += velocity.unsqueeze(1)
        asset.write_nodal_state_to_sim(state, env_ids=ids)
        return
    state = data.default_body_state.torch[ids].clone()
    state[..., 0:3] += offset.unsqueeze(1)
    if velocity is not None:
        state[..., 7:10] += velocity.unsqueeze(1)
    asset.write_body_state_to_sim(state, env_ids=ids)


# ---------------------------------------------------------------------------------------------- curriculum
def _gravity_value(value: Any, name: str, where: str) -> torch.Tensor:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return torch.tensor([_finite(value, name, where)], dtype=torch.float32)
    if isinstance(value, (tuple, list)) and len(value) == 3:
        return torch.tensor([_finite(v, name, where) for v in value], dtype=torch.float32)
    raise ValueError(f"{where}: {name} must be a number (z) or three numbers (x, y, z) [m/s^2], got {value!r}")


def gravity_range_linear(
    env: ManagerBasedRLEnv,
    env_ids: Any,
    initial_gravity: float | Sequence[float],
    final_gravity: float | Sequence[float],
    num_steps: int,
) -> float | dict[str, float]:
    """Gravity curriculum: the scene's gravity [m/s^2] goes linearly from *initial_gravity* to *final_gravity* as
    ``env.common_step_counter`` goes from 0 to *num_steps* [env steps], and stays at *final_gravity* after.

    Each value is a number (the z component; x and y are left as they are) or three numbers (x, y, z). The
    gravity is the whole scene's (Isaac Lab's): every world gets it, whichever envs *env_ids* are being reset.
    It is written in place into the model (and the solvers' copies of it), as
    :func:`~isaaclab_contrib.envs.mdp.randomize_physics_scene_gravity` writes it: effective from the next step,
    with no rebuild and no new recording of the captured step.

    Returns:
        The gravity set, to log: its z component, or ``{"x": .., "y": .., "z": ..}`` for three numbers.

    Raises:
        ValueError: A value that is not finite, the two values of different kinds, or *num_steps* not an integer
            ``>= 1``.
    """
    where = "gravity_range_linear"
    del env_ids
    start = _gravity_value(initial_gravity, "initial_gravity", where)
    end = _gravity_value(final_gravity, "final_gravity", where)
    if start.numel() != end.numel():
        raise ValueError(
            f"{where}: initial_gravity {initial_gravity!r} and final_gravity {final_gravity!r} must both be numbers "
            "or both be three numbers"
        )
    if isinstance(num_steps, bool) or not isinstance(num_steps, int) or num_steps < 1:
        raise ValueError(f"{where}: num_steps must be an integer >= 1 [env steps], got {num_steps!r}")
    fraction = min(max(float(env.common_step_counter) / num_steps, 0.0), 1.0)
    value = start + (end - start) * fraction
    model = env.manager.get_model()
    rows = torch.arange(model.gravity.shape[0])
    if value.numel() == 1:
        env.manager.write_model_rows("gravity", rows, [2], value.expand(len(rows)))
    else:
        env.manager.write_model_rows("gravity", rows, None, value.unsqueeze(0).expand(len(rows), 3))
    env.manager.add_model_change(int(newton.ModelFlags.MODEL_PROPERTIES))
    if value.numel() == 1:
        return float(value[0])
    return dict(zip(_AXES, (float(v) for v in value), strict=True))
