"""The part rigid objects and articulations share: their bodies' poses and velocities, the root, root writes.

Newton 1.8's layout, which every body field follows:

* ``state.body_q[b]`` is a ``wp.transform``: position of the body frame's origin [m] (the link frame, not the
  center of mass), then its orientation as a unit quaternion in ``(x, y, z, w)`` order, world frame. Isaac Lab 3.0
  uses the same quaternion order, so ``body_quat_w`` is a zero-copy view.
* ``state.body_qd[b]`` is a ``wp.spatial_vector``: **linear first** — the velocity of the body's center of mass
  [m/s], world frame — then the angular velocity [rad/s], world frame. Isaac Lab's ``body_lin_vel_w`` /
  ``root_lin_vel_w`` are center-of-mass velocities too, so they are zero-copy views as well.
* A free body (``RigidObjectCfg``) and a floating-base articulation hang on a FREE root joint whose coordinates are
  the child frame's pose in the joint's parent frame and whose velocity is ``(center-of-mass velocity, angular
  velocity)`` expressed in the parent frame; env replication puts the env offset into those coordinates (free
  roots) or into the root joint's parent frame ``joint_X_p`` (roots welded or hinged to the world).
"""

from __future__ import annotations

from typing import Any

import newton
import numpy as np
import torch
import warp as wp

from isaaclab_contrib.utils.math import quat_apply, quat_conjugate, quat_mul

from .asset_base import (
    AssetBase,
    AssetDataBase,
    RowBlock,
    field,
    resolve_names,
    warp_of,
)
from .proxy_array import ProxyArray

__all__ = ["BodyAsset", "BodyAssetData", "check_inertia", "initial_state", "inverse_inertia"]

FLOATING_ROOTS = (int(newton.JointType.FREE), int(newton.JointType.DISTANCE))


def initial_state(model: newton.Model) -> newton.State:
    """The state at simulation start, as the manager computes it: FK of the model's initial joint coordinates."""
    state = model.state()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state)
    return state


class BodyAssetData(AssetDataBase):
    """Body and root fields of a rigid object or an articulation; every ``.torch`` is ``[num_envs, ...]``."""

    body_pos_w = field(
        "body_pos_w", "Positions of the body (link) frames, world frame [m], ``[num_envs, num_bodies, 3]``."
    )
    body_quat_w = field(
        "body_quat_w",
        "Orientations of the body frames, unit quaternions (x, y, z, w), world frame, ``[num_envs, num_bodies, 4]``.",
    )
    body_lin_vel_w = field(
        "body_lin_vel_w",
        "Linear velocities of the bodies' centers of mass, world frame [m/s], ``[num_envs, num_bodies, 3]`` "
        "(the first half of Newton's ``body_qd``).",
    )
    body_ang_vel_w = field(
        "body_ang_vel_w",
        "Angular velocities of the bodies, world frame [rad/s], ``[num_envs, num_bodies, 3]`` (the second half of "
        "Newton's ``body_qd``).",
    )
    root_pos_w = field("root_pos_w", "Position of the root body's frame, world frame [m], ``[num_envs, 3]``.")
    root_quat_w = field(
        "root_quat_w", "Orientation of the root body, quaternion (x, y, z, w), world frame, ``[num_envs, 4]``."
    )
    root_lin_vel_w = field(
        "root_lin_vel_w", "Linear velocity of the root body's center of mass, world frame [m/s], ``[num_envs, 3]``."
    )
    root_ang_vel_w = field(
        "root_ang_vel_w", "Angular velocity of the root body, world frame [rad/s], ``[num_envs, 3]``."
    )
    root_state_w = field(
        "root_state_w",
        "Root pose and velocity ``[pos (m), quat (x, y, z, w), lin vel of the COM (m/s), ang vel (rad/s)]``, world "
        "frame, ``[num_envs, 13]``; gathered into a buffer of its own, refreshed at most once per env step.",
    )
    default_root_state = field(
        "default_root_state",
        "Root state at simulation start, same layout as ``root_state_w`` but its position relative to the env "
        "origin [m] (Isaac Lab's convention: events add ``scene.env_origins``), ``[num_envs, 13]``; a buffer of its "
        "own (writing it changes nothing in the simulation).",
    )

    def __init__(self, asset: BodyAsset):
        super().__init__(asset)
        self.body_names: list[str] = list(asset.body_names)
        """Names of the bodies (the last segment of their labels), in the order of the body axis."""


class BodyAsset(AssetBase):
    """Bodies ``body_ids[e, k]`` (instance *e*, body *k*; body 0 is the root) of a rigid object or an articulation."""

    data_class = BodyAssetData

    def __init__(
        self,
        cfg: Any,
        manager: type,
        name: str,
        body_ids: np.ndarray,
        body_names: list[str],
        per_env: bool,
        env_origins: torch.Tensor | None = None,
        initial: newton.State | None = None,
    ):
        """Args:
        cfg: The asset config.
        manager: The running manager class.
        name: The asset's field name in its scene config.
        body_ids: Model body indices ``[num_instances, num_bodies]``; column 0 is the root body.
        body_names: Name of each column.
        per_env: Whether instance *i* lives in env *i* (else one global instance).
        env_origins: Env origins ``[num_instances, 3]`` [m] (default: zeros), for ``default_root_state``.
        initial: The state at simulation start (default: computed from the model, :func:`initial_state`).
        """
        body_ids = np.asarray(body_ids, dtype=np.int64)
        super().__init__(cfg, manager, name, body_ids.shape[0], per_env)
        self.body_names = list(body_names)
        self._bodies = RowBlock(body_ids, self.device)
        model = self._model
        initial = initial if initial is not None else initial_state(model)
        self._body_q = wp.to_torch(self._state.body_q)
        self._body_qd = wp.to_torch(self._state.body_qd)
        # The root: a FREE root joint (writes go to its coordinates), no joint at all (writes go to the body), or a
        # root welded or hinged to the world (no root writes).
        roots = body_ids[:, 0]
        child = model.joint_child.numpy()
        joint_of = {int(c): j for j, c in enumerate(child)}
        root_joints = [joint_of.get(int(b)) for b in roots]
        types = model.joint_type.numpy()
        if all(j is None for j in root_joints):
            self._root_mode = "body"
        elif any(j is None for j in root_joints):
            raise ValueError(f"{self._where()}: the root body has a joint in some envs and none in others")
        elif all(int(types[j]) in FLOATING_ROOTS for j in root_joints):
            self._root_mode = "free"
        else:
            self._root_mode = "attached"
        self._root_joints = torch.as_tensor(
            [j if j is not None else -1 for j in root_joints], device=self.torch_device, dtype=torch.long
        )
        if self._root_mode == "free":
            q_start, qd_start = model.joint_q_start.numpy(), model.joint_qd_start.numpy()
            self._root_coords = RowBlock(np.array([q_start[j] + np.arange(7) for j in root_joints]), self.device)
            self._root_dofs = RowBlock(np.array([qd_start[j] + np.arange(6) for j in root_joints]), self.device)
            self._joint_q = wp.to_torch(self._state.joint_q)
            self._joint_qd = wp.to_torch(self._state.joint_qd)
        self.data = self.data_class(self)
        self._add_body_fields(initial, env_origins)

    @property
    def num_bodies(self) -> int:
        """Bodies per instance [count]."""
        return len(self.body_names)

    def _add_body_fields(self, initial: newton.State, env_origins: torch.Tensor | None) -> None:
        data, rows, n = self.data, self._bodies, self._num
        specs = (
            ("pos", self._body_q, 0, 3),
            ("quat", self._body_q, 3, 7),
            ("lin_vel", self._body_qd, 0, 3),
            ("ang_vel", self._body_qd, 3, 6),
        )
        for suffix, flat, lo, hi in specs:
            if rows.regular:
                view = rows.view(flat, lo, hi)
                data._add(f"body_{suffix}_w", ProxyArray(warp_of(view, hi - lo)))
                data._add(f"root_{suffix}_w", ProxyArray(warp_of(view[:, 0], hi - lo)))
            else:
                body = ProxyArray(wp.zeros((n, rows.count, hi - lo), dtype=float, device=self.device))
                root = ProxyArray(wp.zeros((n, hi - lo), dtype=float, device=self.device))
                data._add_computed(f"body_{suffix}_w", body, lambda out, f=flat, a=lo, b=hi: rows.gather(f, out, a, b))
                data._add_computed(
                    f"root_{suffix}_w", root, lambda out, f=flat, a=lo, b=hi: out.copy_(f[rows.index[:, 0], a:b])
                )
        state = ProxyArray(wp.zeros((n, 13), dtype=float, device=self.device))
        data._add_computed("root_state_w", state, self._fill_root_state)
        default = ProxyArray(wp.zeros((n, 13), dtype=float, device=self.device))
        roots = rows.index[:, 0]
        default.torch[:, :7] = wp.to_torch(initial.body_q).to(self.torch_device)[roots]
        default.torch[:, 7:] = wp.to_torch(initial.body_qd).to(self.torch_device)[roots]
        if env_origins is not None:
            default.torch[:, :3] -= env_origins.to(self.torch_device, torch.float32)
        data._add("default_root_state", default)

    def _fill_root_state(self, out: torch.Tensor) -> None:
        roots = self._bodies.index[:, 0]
        out[:, :7] = self._body_q[roots]
        out[:, 7:] = self._body_qd[roots]

    # ------------------------------------------------------------------ names
    def find_bodies(self, name_keys: str | list[str], preserve_order: bool = False) -> tuple[list[int], list[str]]:
        """Indices and names of the bodies whose names match the regexes *name_keys* in full (Isaac Lab's
        ``find_bodies``).

        Raises:
            ValueError: A key matches no body (the message names the asset, the key and the body names), or two
                keys match the same body.
        """
        return resolve_names(name_keys, self.body_names, self._where(), "body", preserve_order)

    # ------------------------------------------------------------------ root writes
    def write_root_pose_to_sim(self, root_pose: Any, env_ids: Any = None) -> None:
        """Set the root body's pose ``[len(env_ids), 7]``: position of its frame [m] and orientation (x, y, z, w),
        world frame (add ``scene.env_origins`` to env-local poses).

        A free root (rigid objects, floating-base articulations) gets its joint coordinates written and its envs
        invalidated (``invalidate_fk``), so the next ``forward()`` / step runs FK (the body fields show the new pose
        from then on) and a masked solver reset. Joint velocities are kept.

        Raises:
            ValueError: Wrong shape, non-finite values, non-unit quaternions, or a root attached to the world
                (``is_fixed_base``: its pose is the model's joint frame, not state).
            IndexError: An env id out of range.
        """
        self._write_root(root_pose, None, env_ids)

    def write_root_velocity_to_sim(self, root_velocity: Any, env_ids: Any = None) -> None:
        """Set the root body's velocity ``[len(env_ids), 6]``: linear velocity of its center of mass [m/s], then
        angular velocity [rad/s], world frame (Newton's ``body_qd`` order). Same path and errors as
        :meth:`write_root_pose_to_sim`."""
        self._write_root(None, root_velocity, env_ids)

    def write_root_state_to_sim(self, root_state: Any, env_ids: Any = None) -> None:
        """Set the root pose and velocity ``[len(env_ids), 13]`` (``[pos, quat xyzw, lin vel, ang vel]``, world
        frame) in one write; see :meth:`write_root_pose_to_sim`."""
        env = self._env_index(env_ids)
        state = self._values(root_state, (len(env), 13), "root_state", "[m, xyzw, m/s, rad/s]")
        self._write_root(state[:, :7], state[:, 7:], env)

    def _write_root(self, pose: Any, velocity: Any, env_ids: Any) -> None:
        env = env_ids if isinstance(env_ids, torch.Tensor) and env_ids.dtype == torch.long else self._env_index(env_ids)
        if pose is not None:
            pose = self._values(pose, (len(env), 7), "root_pose", "[m, quaternion xyzw]")
            pose = torch.cat([pose[:, :3], self._unit_quats(pose[:, 3:], "root_pose")], dim=-1)
        if velocity is not None:
            velocity = self._values(velocity, (len(env), 6), "root_velocity", "[m/s, rad/s]")
        if self._root_mode == "attached":
            raise ValueError(
                f"{self._where()}: the root body is attached to the world by its root joint (is_fixed_base); its "
                "placement is the model's joint frame, not simulation state, so root pose and velocity writes are "
                "refused (nothing was written). Write the joint state instead (write_joint_state_to_sim)."
            )
        self._invalidate(env)  # may refuse (the solver cannot reset these envs alone): nothing is written then
        if self._root_mode == "body":
            if pose is not None:
                self._body_q[self._bodies.index[env, 0]] = pose
            if velocity is not None:
                self._body_qd[self._bodies.index[env, 0]] = velocity
        else:
            joints = self._root_joints[env]
            x_p = wp.to_torch(self._model.joint_X_p).to(self.torch_device)[joints]
            if pose is not None:
                x_c = wp.to_torch(self._model.joint_X_c).to(self.torch_device)[joints]
                # body = X_p * X_j * inv(X_c)  =>  X_j = inv(X_p) * body * X_c
                q_p_inv = quat_conjugate(x_p[:, 3:])
                q_bc = quat_mul(pose[:, 3:], x_c[:, 3:])
                p_bc = pose[:, :3] + quat_apply(pose[:, 3:], x_c[:, :3])
                coords = torch.cat([quat_apply(q_p_inv, p_bc - x_p[:, :3]), quat_mul(q_p_inv, q_bc)], dim=-1)
                self._root_coords.scatter(self._joint_q, env, coords)
            if velocity is not None:
                q_p_inv = quat_conjugate(x_p[:, 3:])
                dofs = torch.cat([quat_apply(q_p_inv, velocity[:, :3]), quat_apply(q_p_inv, velocity[:, 3:])], dim=-1)
                self._root_dofs.scatter(self._joint_qd, env, dofs)
        self.data.invalidate()

    # ------------------------------------------------------------------ materials
    BODY_MATERIAL_FIELDS = ("mass", "inertia", "com", "mu", "ke", "kd")
    """What :meth:`write_material_to_sim` sets per selected body: ``mass`` [kg] (the inertia scales with it
    unless ``inertia`` is written too; the center of mass stays), ``inertia`` (the rotational inertia tensor
    about the center of mass, body frame [kg*m^2]), ``com`` (the center of mass in the body (link) frame [m]),
    and the friction ``mu``, contact stiffness ``ke`` [N/m] and damping ``kd`` [N*s/m] of their collision shapes
    (the fields of ``ShapeMaterialCfg``)."""

    _TENSOR_FIELDS = {"com": (3,), "inertia": (3, 3)}

    def write_material_to_sim(self, env_ids: Any = None, body_ids: Any = None, **values: Any) -> None:
        """Set the inertial properties and shape material of the asset's bodies *body_ids* (``None``: all) per env
        (see :attr:`BODY_MATERIAL_FIELDS`). ``mass``, ``mu``, ``ke``, ``kd``: a number for every env of *env_ids*,
        or a tensor ``[len(env_ids)]``. ``com``: ``[3]`` [m] for every env and body, ``[len(env_ids), 3]`` per
        env, or ``[len(env_ids), len(body_ids), 3]`` per body; ``inertia``: ``[3, 3]``, ``[len(env_ids), 3, 3]``
        or ``[len(env_ids), len(body_ids), 3, 3]`` [kg*m^2]. Written in place into the model (``body_mass``,
        ``body_inertia``, ``body_com`` and the inverses) and into the copies a coupled solver's entries keep, then
        the solvers are notified (``BODY_INERTIAL_PROPERTIES``, which MuJoCo-Warp needs to refresh its own model):
        the change takes effect at the next step, with no rebuild and no new recording. The body frames stay
        where they are; the state's velocities are kept.

        Raises:
            KeyError: An unknown field. ValueError: A wrong shape, a non-finite, negative or (mass) zero value, an
            inertia that is not symmetric, not positive definite or whose principal moments break the triangle
            inequality (no rigid body has it). IndexError: ids out of range. Nothing is written then.
        """
        where = f"{self._where()}.write_material_to_sim"
        env = self._env_index(env_ids)
        columns = self._index(body_ids, self.num_bodies, "body_ids", "bodies")
        tensors = {name: values.pop(name) for name in self._TENSOR_FIELDS if name in values}
        checked = self._material_values(env, values, self.BODY_MATERIAL_FIELDS)
        if "mass" in checked and (checked["mass"] <= 0).any():
            raise ValueError(f"{where}: mass must be > 0, got {checked['mass'].tolist()}")
        shape = (len(env), len(columns))
        per_body = {name: self._body_values(where, name, value, shape) for name, value in tensors.items()}
        if "inertia" in per_body:
            check_inertia(per_body["inertia"].reshape(-1, 3, 3), f"{where}: inertia")
        if len(env) == 0 or len(columns) == 0:
            return
        bodies = self._bodies.index[env][:, columns]
        rows = bodies.reshape(-1)
        per_row = {name: value.unsqueeze(-1).expand_as(bodies).reshape(-1) for name, value in checked.items()}
        per_row |= {name: value.reshape(-1, *self._TENSOR_FIELDS[name]) for name, value in per_body.items()}
        write, model = self._manager.write_model_rows, self._model
        if "mass" in per_row:
            mass = per_row["mass"]
            if "inertia" not in per_row:  # scaled with the mass: the mass distribution keeps its shape
                ratio = mass / wp.to_torch(model.body_mass)[rows].clamp(min=1.0e-12)
                per_row["inertia"] = wp.to_torch(model.body_inertia)[rows] * ratio[:, None, None]
            write("body_mass", rows, None, mass)
            write("body_inv_mass", rows, None, 1.0 / mass)
        if "inertia" in per_row:
            write("body_inertia", rows, None, per_row["inertia"])
            write("body_inv_inertia", rows, None, inverse_inertia(per_row["inertia"]))
        if "com" in per_row:
            write("body_com", rows, None, per_row["com"])
        if {"mass", "inertia", "com"} & set(per_row):
            self._manager.add_model_change(int(newton.ModelFlags.BODY_INERTIAL_PROPERTIES))
        shape_fields = [name for name in ("mu", "ke", "kd") if name in per_row]
        if shape_fields:
            shape_body = wp.to_torch(model.shape_body).to(rows.device).long()
            shapes = torch.nonzero(torch.isin(shape_body, rows)).squeeze(-1)
            order = torch.argsort(rows)  # the position in *rows* of each shape's body, without a host loop
            owner = order[torch.searchsorted(rows[order], shape_body[shapes])]
            for name in shape_fields:
                write(f"shape_material_{name}", shapes, None, per_row[name][owner])
            self._manager.add_model_change(int(newton.ModelFlags.SHAPE_PROPERTIES))

    def _body_values(self, where: str, name: str, value: Any, shape: tuple[int, int]) -> torch.Tensor:
        """*value* of the tensor field *name* as ``[len(env), len(bodies), *trailing]`` (broadcast from the
        accepted shorter shapes), finite; ``TypeError`` / ``ValueError`` naming the field otherwise."""
        trailing = self._TENSOR_FIELDS[name]
        accepted = [trailing, (shape[0], *trailing), (*shape, *trailing)]
        try:
            if isinstance(value, (bool, str, bytes)):
                raise TypeError(type(value).__name__)
            if isinstance(value, ProxyArray):
                value = value.torch
            elif isinstance(value, wp.array):
                value = wp.to_torch(value)
            tensor = torch.as_tensor(value, device=self.torch_device).to(torch.float32)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(f"{where}: {name} must be a tensor of one of the shapes {accepted}, got {value!r}") from err
        if tuple(tensor.shape) not in [tuple(a) for a in accepted]:
            raise ValueError(f"{where}: {name} must have one of the shapes {accepted}, got {list(tensor.shape)}")
        if not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{where}: {name} holds non-finite values (NaN or inf): {tensor.tolist()}")
        if tensor.dim() == len(trailing):
            tensor = tensor.expand(*shape, *trailing)
        elif tensor.dim() == len(trailing) + 1:
            tensor = tensor.unsqueeze(1).expand(*shape, *trailing)
        return tensor.contiguous()

    def reset(self, env_ids: Any = None) -> None:
        """Clear the asset's own buffers for *env_ids* (the data caches); the simulation state is NOT put back to
        the initial state (Isaac Lab's events do that, e.g. with ``default_root_state`` and the write methods)."""
        self._env_index(env_ids)
        self.data.invalidate()

    def update(self, dt: float) -> None:
        """Mark the data's computed fields stale (the zero-copy fields are always current). *dt* [s] is unused."""
        del dt
        self.data.invalidate()


def inverse_inertia(inertia: torch.Tensor) -> torch.Tensor:
    """Inverses of the inertia tensors ``[..., 3, 3]`` [1/(kg*m^2)], computed in double precision and stored in
    single precision (as Newton's builder computes ``body_inv_inertia``)."""
    return torch.linalg.inv(inertia.double()).to(inertia.dtype)


def check_inertia(inertia: torch.Tensor, where: str) -> None:
    """Refuse rotational inertia tensors ``[n, 3, 3]`` [kg*m^2] no rigid body has: not symmetric, not positive
    definite, or principal moments breaking the triangle inequality (each at most the sum of the other two);
    ``ValueError`` naming *where* and the offending tensor."""
    scale = inertia.abs().amax(dim=(-2, -1)).clamp(min=1.0e-30)
    asymmetry = (inertia - inertia.transpose(-2, -1)).abs().amax(dim=(-2, -1)) / scale
    bad = torch.nonzero(asymmetry > 1.0e-5).flatten()
    if bad.numel():
        raise ValueError(f"{where}: the inertia tensor must be symmetric, got {inertia[bad[0]].tolist()} [kg*m^2]")
    moments = torch.linalg.eigvalsh(0.5 * (inertia + inertia.transpose(-2, -1)).double())
    bad = torch.nonzero(moments[:, 0] <= 0.0).flatten()
    if bad.numel():
        raise ValueError(
            f"{where}: the inertia tensor must be positive definite, got {inertia[bad[0]].tolist()} [kg*m^2] "
            f"(principal moments {moments[bad[0]].tolist()})"
        )
    slack = moments[:, 0] + moments[:, 1] - moments[:, 2] * (1.0 - 1.0e-5)
    bad = torch.nonzero(slack < 0.0).flatten()
    if bad.numel():
        raise ValueError(
            f"{where}: the principal moments {moments[bad[0]].tolist()} [kg*m^2] of the inertia tensor break the "
            "triangle inequality (the largest must not exceed the sum of the other two)"
        )
