"""Differential inverse kinematics as an action term (Isaac Lab's ``DifferentialInverseKinematicsActionCfg``): the
action is an end-effector command in the articulation's base frame; each env step a batched damped-least-squares
(or pseudo-inverse, SVD, transpose) step on Newton's Jacobians (``newton.eval_jacobian``) turns the pose error into
joint position targets.

The base frame is the articulation's root body for a floating base, and the frame its root joint hangs from for a
fixed base (the world pose of the root joint's parent frame: a Franka's ``panda_link0``, a shoulder hinged to the
world). Quaternions are ``(x, y, z, w)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import newton
import numpy as np
import torch
import warp as wp

from isaaclab_contrib.managers import ActionTermCfg
from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.math import quat_apply, quat_conjugate, quat_mul, subtract_frame_transforms
from isaaclab_contrib.utils.string import resolve_matching_names
from isaaclab_contrib.utils.validation import check_fields

from .actions import BufferedActionTerm

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedEnv

__all__ = [
    "DifferentialIKControllerCfg",
    "DifferentialInverseKinematicsAction",
    "DifferentialInverseKinematicsActionCfg",
]

_DEFAULT_IK_PARAMS = {
    "pinv": {"k_val": 1.0},
    "svd": {"k_val": 1.0, "min_singular_value": 1e-5},
    "trans": {"k_val": 1.0},
    "dls": {"lambda_val": 0.01},
}


def _axis_angle_from_quat(q: torch.Tensor) -> torch.Tensor:
    """Rotation vector [rad] of unit quaternions ``(x, y, z, w)`` (the shorter rotation)."""
    q = torch.where(q[..., 3:4] < 0.0, -q, q)
    sin_half = q[..., :3].norm(dim=-1, keepdim=True)
    angle = 2.0 * torch.atan2(sin_half, q[..., 3:4])
    scale = torch.where(sin_half > 1e-8, angle / sin_half.clamp(min=1e-12), torch.full_like(sin_half, 2.0))
    return q[..., :3] * scale


def _quat_from_axis_angle(v: torch.Tensor) -> torch.Tensor:
    angle = v.norm(dim=-1, keepdim=True)
    axis = v / angle.clamp(min=1e-12)
    return torch.cat([axis * torch.sin(0.5 * angle), torch.cos(0.5 * angle)], dim=-1)


class DifferentialInverseKinematicsAction(BufferedActionTerm):
    """End-effector commands to joint position targets by differential IK (see the module docs)."""

    cfg: Any

    def __init__(self, cfg: DifferentialInverseKinematicsActionCfg, env: ManagerBasedEnv):
        super().__init__(cfg, env)
        where = f"DifferentialInverseKinematicsAction on {cfg.asset_name!r}"
        controller = cfg.controller
        if controller.command_type not in ("position", "pose"):
            raise ValueError(
                f"{where}: controller.command_type must be 'position' or 'pose', got {controller.command_type!r}"
            )
        if controller.ik_method not in _DEFAULT_IK_PARAMS:
            raise ValueError(
                f"{where}: controller.ik_method must be one of {sorted(_DEFAULT_IK_PARAMS)}, got {controller.ik_method!r}"
            )
        self._ik_params = {**_DEFAULT_IK_PARAMS[controller.ik_method], **(controller.ik_params or {})}
        asset = self._asset
        self._joint_ids, self._joint_names = resolve_matching_names(
            cfg.joint_names, asset.joint_names, where=f"{where}: joint_names"
        )
        body_ids, _ = asset.find_bodies(cfg.body_name)
        if len(body_ids) != 1:
            raise ValueError(f"{where}: body_name {cfg.body_name!r} must match one body, got {len(body_ids)}")
        self._body_idx = body_ids[0]
        model = env.manager.get_model()
        self._model = model
        self._setup_jacobian_rows(model, where)
        offset = cfg.body_offset
        self._offset_pos = torch.tensor(offset.pos if offset else (0.0, 0.0, 0.0), device=self.device).repeat(
            self.num_envs, 1
        )
        self._offset_rot = torch.tensor(offset.rot if offset else (0.0, 0.0, 0.0, 1.0), device=self.device).repeat(
            self.num_envs, 1
        )
        dim = {("position", False): 3, ("position", True): 3, ("pose", False): 7, ("pose", True): 6}
        self._dim = dim[(controller.command_type, bool(controller.use_relative_mode))]
        self._raw_actions = torch.zeros(self.num_envs, self._dim, device=self.device)
        self._processed_actions = torch.zeros_like(self._raw_actions)
        self._scale = torch.as_tensor(cfg.scale, dtype=torch.float32, device=self.device)
        self._target_pos = torch.zeros(self.num_envs, 3, device=self.device)
        self._target_quat = torch.zeros(self.num_envs, 4, device=self.device)
        self._target_quat[:, 3] = 1.0

    # ------------------------------------------------------------------ geometry
    def _setup_jacobian_rows(self, model: newton.Model, where: str) -> None:
        """Articulation, link row and DOF columns of the end effector in Newton's Jacobian, per env."""
        starts = model.articulation_start.numpy()
        child = model.joint_child.numpy()
        qd_start = model.joint_qd_start.numpy()
        bodies = self._asset._bodies.index.cpu().numpy()
        dof_rows = self._asset._dof_rows.index.cpu().numpy()[:, self._joint_ids]
        arts, links, cols = [], [], []
        for env in range(self.num_envs):
            body = int(bodies[env, self._body_idx])
            art = next(a for a in range(len(starts) - 1) if body in child[starts[a] : starts[a + 1]])
            joint = int(list(child[starts[art] : starts[art + 1]]).index(body))
            arts.append(art)
            links.append(joint)
            cols.append(dof_rows[env] - int(qd_start[starts[art]]))
        self._art = torch.tensor(arts, device=self.device)
        self._link_rows = torch.tensor(links, device=self.device) * 6
        self._dof_cols = torch.as_tensor(np.asarray(cols), device=self.device)
        self._root_joint = torch.tensor([int(starts[a]) for a in arts], device=self.device)
        max_links, max_dofs = model.max_joints_per_articulation, model.max_dofs_per_articulation
        self._jacobian = wp.zeros((model.articulation_count, max_links * 6, max_dofs), dtype=float, device=model.device)
        self._joint_S_s = wp.zeros(model.joint_dof_count, dtype=wp.spatial_vector, device=model.device)

    def _base_pose(self) -> tuple[torch.Tensor, torch.Tensor]:
        """World pose of the base frame ``(pos [num_envs, 3], quat [num_envs, 4])``."""
        data = self._asset.data
        if not self._asset.is_fixed_base:
            return data.root_pos_w.torch, data.root_quat_w.torch
        x_p = wp.to_torch(self._model.joint_X_p)[self._root_joint]
        return x_p[:, :3], x_p[:, 3:]

    def _ee_pose_w(self) -> tuple[torch.Tensor, torch.Tensor]:
        data = self._asset.data
        pos = data.body_pos_w.torch[:, self._body_idx]
        quat = data.body_quat_w.torch[:, self._body_idx]
        return pos + quat_apply(quat, self._offset_pos), quat_mul(quat, self._offset_rot)

    def _ee_pose_b(self) -> tuple[torch.Tensor, torch.Tensor]:
        base_pos, base_quat = self._base_pose()
        pos_w, quat_w = self._ee_pose_w()
        return subtract_frame_transforms(base_pos, base_quat, pos_w, quat_w)

    def _jacobian_b(self) -> torch.Tensor:
        """``[num_envs, 6, joints]``: the end-effector point's linear and angular velocity in the base frame per
        joint velocity."""
        state = self._env.manager.get_state_0()
        newton.eval_jacobian(self._model, state, self._jacobian, self._joint_S_s)
        full = wp.to_torch(self._jacobian)[self._art]
        rows = self._link_rows.unsqueeze(-1) + torch.arange(6, device=self.device)
        jac = torch.gather(full, 1, rows.unsqueeze(-1).expand(-1, -1, full.shape[-1]))
        jac = torch.gather(jac, 2, self._dof_cols.unsqueeze(1).expand(-1, 6, -1))
        # Newton's rows give the center of mass's velocity: move it to the end-effector point.
        body = self._asset._bodies.index[:, self._body_idx]
        body_q = wp.to_torch(state.body_q)[body]
        com = body_q[:, :3] + quat_apply(body_q[:, 3:], wp.to_torch(self._model.body_com)[body])
        point, _ = self._ee_pose_w()
        r = point - com
        lin, ang = jac[:, :3], jac[:, 3:]
        lin = lin + torch.cross(ang, r.unsqueeze(-1).expand_as(ang), dim=1)
        _, base_quat = self._base_pose()
        inv = quat_conjugate(base_quat).unsqueeze(1)
        lin_b = quat_apply(inv.expand(-1, lin.shape[-1], -1), lin.transpose(1, 2)).transpose(1, 2)
        ang_b = quat_apply(inv.expand(-1, ang.shape[-1], -1), ang.transpose(1, 2)).transpose(1, 2)
        return torch.cat([lin_b, ang_b], dim=1)

    # ------------------------------------------------------------------ action term
    def process_actions(self, actions: torch.Tensor) -> None:
        self._raw_actions[:] = actions
        self._processed_actions[:] = self._raw_actions * self._scale
        controller, command = self.cfg.controller, self._processed_actions
        pos, quat = self._ee_pose_b()
        if controller.command_type == "position":
            self._target_pos[:] = pos + command if controller.use_relative_mode else command
            self._target_quat[:] = quat
        elif controller.use_relative_mode:
            self._target_pos[:] = pos + command[:, :3]
            self._target_quat[:] = quat_mul(_quat_from_axis_angle(command[:, 3:]), quat)
        else:
            self._target_pos[:] = command[:, :3]
            self._target_quat[:] = command[:, 3:] / command[:, 3:].norm(dim=-1, keepdim=True).clamp(min=1e-9)

    def joint_position_targets(self) -> torch.Tensor:
        """The joint position targets one IK step gives for the last processed command from the current state
        [rad], ``[num_envs, len(joint_names)]`` (what :meth:`apply_actions` writes)."""
        pos, quat = self._ee_pose_b()
        jac = self._jacobian_b()
        if self.cfg.controller.command_type == "position":
            error, jac = self._target_pos - pos, jac[:, :3]
        else:
            rot_error = _axis_angle_from_quat(quat_mul(self._target_quat, quat_conjugate(quat)))
            error = torch.cat([self._target_pos - pos, rot_error], dim=-1)
        return self._asset.data.joint_pos.torch[:, self._joint_ids] + self._solve(jac, error)

    def apply_actions(self) -> None:
        self._asset.set_joint_position_target(self.joint_position_targets(), joint_ids=self._joint_ids)

    def _solve(self, jac: torch.Tensor, error: torch.Tensor) -> torch.Tensor:
        method, p = self.cfg.controller.ik_method, self._ik_params
        jt = jac.transpose(1, 2)
        if method == "dls":
            lam = float(p["lambda_val"])
            eye = torch.eye(jac.shape[1], device=self.device)
            return (jt @ torch.linalg.solve(jac @ jt + lam * lam * eye, error.unsqueeze(-1))).squeeze(-1)
        if method == "pinv":
            return float(p["k_val"]) * (torch.linalg.pinv(jac) @ error.unsqueeze(-1)).squeeze(-1)
        if method == "svd":
            u, s, vh = torch.linalg.svd(jac, full_matrices=False)
            s_inv = torch.where(s > float(p["min_singular_value"]), 1.0 / s.clamp(min=1e-12), torch.zeros_like(s))
            pinv = vh.transpose(1, 2) @ torch.diag_embed(s_inv) @ u.transpose(1, 2)
            return float(p["k_val"]) * (pinv @ error.unsqueeze(-1)).squeeze(-1)
        return float(p["k_val"]) * (jt @ error.unsqueeze(-1)).squeeze(-1)


@configclass
class DifferentialIKControllerCfg:
    """The differential IK controller (Isaac Lab's)."""

    command_type: Literal["position", "pose"] = MISSING
    """``"position"`` (3 values) or ``"pose"`` (position and orientation)."""
    use_relative_mode: bool = False
    """Commands are offsets from the current end-effector pose (pose: position and rotation vector, 6 values),
    else absolute in the base frame (pose: position and ``(x, y, z, w)``, 7 values)."""
    ik_method: Literal["pinv", "svd", "trans", "dls"] = MISSING
    """How the pose error becomes joint offsets: pseudo-inverse, SVD with small singular values dropped, the
    transpose, or damped least squares."""
    ik_params: dict[str, float] | None = None
    """Method parameters: ``k_val`` (pinv, svd, trans; gain), ``min_singular_value`` (svd), ``lambda_val`` (dls;
    damping [m or rad]); unset ones take Isaac Lab's defaults."""


@configclass
class DifferentialIKOffsetCfg:
    """The end-effector frame in the body's frame."""

    _ranges: ClassVar[dict[str, str]] = {"pos": "any", "rot": "any"}

    pos: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Offset [m]."""
    rot: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)
    """Rotation ``(x, y, z, w)``, a unit quaternion."""

    def validate(self) -> None:
        """Check the fields and that :attr:`rot` is a unit quaternion (to 1e-3)."""
        check_missing(self)
        check_fields(self)
        norm = math.sqrt(sum(float(c) ** 2 for c in self.rot))
        if abs(norm - 1.0) > 1e-3:
            raise ValueError(f"DifferentialIKOffsetCfg.rot must be a unit quaternion (x, y, z, w), got norm {norm:.4f}")


@configclass
class DifferentialInverseKinematicsActionCfg(ActionTermCfg):
    """Differential IK on a body of an articulation (:class:`DifferentialInverseKinematicsAction`)."""

    OffsetCfg = DifferentialIKOffsetCfg

    _ranges: ClassVar[dict[str, str]] = {"scale": "any"}

    class_type: type = DifferentialInverseKinematicsAction
    joint_names: list[str] = MISSING
    """Regexes over the joints the IK moves."""
    body_name: str = MISSING
    """The end-effector body (a regex matching one)."""
    body_offset: DifferentialIKOffsetCfg | None = None
    """The end-effector frame in the body's frame (``None``: the body's frame)."""
    scale: float | tuple[float, ...] = 1.0
    """Factor of the raw action (one per action value with a tuple)."""
    controller: DifferentialIKControllerCfg = MISSING
    """The IK controller."""
