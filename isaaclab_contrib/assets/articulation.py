"""The runtime articulation (Isaac Lab's ``Articulation``): a jointed robot per env, from an ``ArticulationCfg``.

Joint fields are zero-copy views of the manager's joint arrays (``state.joint_q`` / ``joint_qd``, the control's
``joint_target_q`` / ``joint_target_qd`` / ``joint_act`` / ``joint_f``): the same memory as
``NewtonManager.joint_view(...)``, restricted to this articulation's columns. Body fields are zero-copy views of
``state.body_q`` / ``body_qd`` (see :mod:`~isaaclab_contrib.assets.body_asset` for Newton's layout).

The articulation's joints (``joint_names``) are those of its Newton articulation that have degrees of freedom, less
a FREE root joint (a floating base's root pose and velocity are the ``root_*`` fields and root writes, as in Isaac
Lab); fixed joints are left out. A joint with several degrees of freedom (a D6) gives one column per degree of
freedom, named ``"name[k]"``. Joints whose coordinates and degrees of freedom differ in number (ball joints) are
refused when the asset is built.
"""

from __future__ import annotations

from typing import Any

import newton
import numpy as np
import torch
import warp as wp

from .asset_base import RowBlock, field, resolve_names, warp_of
from .body_asset import FLOATING_ROOTS, BodyAsset, BodyAssetData
from .proxy_array import ProxyArray

__all__ = ["Articulation", "ArticulationData"]

_JOINT_SOURCES = {
    # data field: (state or control, array name, "coord" or "dof")
    "joint_pos": ("state", "joint_q", "coord"),
    "joint_vel": ("state", "joint_qd", "dof"),
    "joint_pos_target": ("control", "joint_target_q", "coord"),
    "joint_vel_target": ("control", "joint_target_qd", "dof"),
    "joint_effort_target": ("control", "joint_act", "dof"),
    "applied_torque": ("control", "joint_f", "dof"),
}


class ArticulationData(BodyAssetData):
    """Data of an :class:`Articulation`: joint fields ``[num_envs, num_joints]`` (limits ``[..., 2]``), the body
    and root fields of :class:`~isaaclab_contrib.assets.body_asset.BodyAssetData`."""

    joint_pos = field(
        "joint_pos", "Joint positions [rad or m], ``[num_envs, num_joints]``; a zero-copy view of ``state.joint_q``."
    )
    joint_vel = field(
        "joint_vel", "Joint velocities [rad/s or m/s], ``[num_envs, num_joints]``; a view of ``state.joint_qd``."
    )
    default_joint_pos = field(
        "default_joint_pos",
        "Joint positions at simulation start [rad or m] (``init_state.joint_pos`` applied), ``[num_envs, num_joints]``; "
        "a buffer of its own.",
    )
    default_joint_vel = field(
        "default_joint_vel",
        "Joint velocities at simulation start [rad/s or m/s], ``[num_envs, num_joints]``; a buffer of its own.",
    )
    joint_pos_limits = field(
        "joint_pos_limits",
        "Joint position limits ``[..., 0]`` lower, ``[..., 1]`` upper [rad or m], ``[num_envs, num_joints, 2]``; a copy "
        "of the model's limits (Newton's default for unlimited joints is +-1e10).",
    )
    soft_joint_pos_limits = field(
        "soft_joint_pos_limits",
        "Soft joint position limits [rad or m], ``[num_envs, num_joints, 2]``: the limits shrunk about their middle by "
        "the config's ``soft_joint_pos_limit_factor`` when it has one, else equal to ``joint_pos_limits``.",
    )
    joint_vel_limits = field(
        "joint_vel_limits", "Joint velocity limits [rad/s or m/s], ``[num_envs, num_joints]``; a copy of the model's."
    )
    applied_torque = field(
        "applied_torque",
        "Joint efforts the actuators applied in the last physics step [N*m or N], ``[num_envs, num_joints]``; a view "
        "of ``control.joint_f`` (the actuator stage zeroes and writes it each physics step).",
    )
    joint_acc = field(
        "joint_acc",
        "Joint accelerations [rad/s^2 or m/s^2], ``[num_envs, num_joints]``: the change of ``joint_vel`` over the last "
        "env step divided by its duration (finite difference at each ``update(dt)``; 0 after a reset); a buffer of its "
        "own.",
    )
    joint_pos_target = field(
        "joint_pos_target",
        "Joint position targets [rad or m], ``[num_envs, num_joints]``; a view of ``control.joint_target_q``.",
    )
    joint_vel_target = field(
        "joint_vel_target",
        "Joint velocity targets [rad/s or m/s], ``[num_envs, num_joints]``; a view of ``control.joint_target_qd``.",
    )
    joint_effort_target = field(
        "joint_effort_target",
        "Feed-forward joint efforts [N*m or N], ``[num_envs, num_joints]``; a view of ``control.joint_act``.",
    )

    def __init__(self, asset: Articulation):
        super().__init__(asset)
        self.joint_names: list[str] = list(asset.joint_names)
        """Names of the joints (one per column of the joint fields)."""


class Articulation(BodyAsset):
    """A jointed robot per env with Isaac Lab 3.0's data fields, name lookups and per-env writes.

    Joint state writes go into ``state.joint_q`` / ``joint_qd`` and invalidate the envs (``invalidate_fk``): the
    next ``forward()`` / step runs FK (body fields follow from then on) and a masked solver reset. Targets go into
    the control arrays the actuators read (no invalidation; they take effect at the next step).
    """

    kind = "Articulation"
    data_class = ArticulationData

    def __init__(
        self,
        cfg: Any,
        manager: type,
        name: str = "robot",
        env_origins: torch.Tensor | None = None,
        initial: newton.State | None = None,
    ):
        """Args:
        cfg: The articulation's config (``ArticulationCfg``), a field of the launched scene config.
        manager: The running manager class.
        name: Its field name in the scene config (for errors).
        env_origins: Env origins ``[num_envs, 3]`` [m], for ``default_root_state``.
        initial: The state at simulation start (default: computed from the model).

        Raises:
            KeyError: The model has no articulation below the config's label in some env.
            ValueError: Several articulations below it, envs that differ, or a joint whose coordinates and degrees
                of freedom differ in number.
        """
        where = f"Articulation {name!r}"
        model = manager.get_model()
        if model is None:
            raise RuntimeError(f"{where}: no simulation is running; launch() the scene first")
        per_env = bool(cfg.is_per_env())
        count = int(model.world_count) if per_env else 1
        starts = model.articulation_start.numpy()
        joint_label = list(model.joint_label)
        roots = {joint_label[int(starts[a])]: a for a in range(len(starts) - 1)}
        types, q_start, qd_start = model.joint_type.numpy(), model.joint_q_start.numpy(), model.joint_qd_start.numpy()
        child = model.joint_child.numpy()
        bodies, coords, dofs, names = [], [], [], None
        for env in range(count):
            prefix = cfg.label_in_env(env)
            found = [a for label, a in roots.items() if label == prefix or label.startswith(prefix + "/")]
            if len(found) != 1:
                raise (KeyError if not found else ValueError)(
                    f"{where}: expected one Newton articulation below {prefix!r} in the running model, found "
                    f"{len(found)}; build the InteractiveScene from the config that was launched"
                )
            joints = range(int(starts[found[0]]), int(starts[found[0] + 1]))
            env_coords, env_dofs, env_names = [], [], []
            for j in joints:
                n_q, n_qd = int(q_start[j + 1] - q_start[j]), int(qd_start[j + 1] - qd_start[j])
                if n_qd == 0 or (j == joints[0] and int(types[j]) in FLOATING_ROOTS):
                    continue
                label = joint_label[j].rsplit("/", 1)[-1]
                if n_q != n_qd:
                    raise ValueError(
                        f"{where}: joint {joint_label[j]!r} has {n_q} coordinates and {n_qd} degrees of freedom (a ball "
                        "joint?); the articulation's joint fields support joints with one coordinate per degree of freedom"
                    )
                env_coords += [int(q_start[j]) + k for k in range(n_q)]
                env_dofs += [int(qd_start[j]) + k for k in range(n_qd)]
                env_names += [label] if n_qd == 1 else [f"{label}[{k}]" for k in range(n_qd)]
            if names is not None and env_names != names:
                raise ValueError(f"{where}: env {env} has joints {env_names}, env 0 has {names}; envs must match")
            names = env_names
            coords.append(env_coords)
            dofs.append(env_dofs)
            bodies.append([int(child[j]) for j in joints])
        body_label = list(model.body_label)
        body_names = [body_label[b].rsplit("/", 1)[-1] for b in bodies[0]]
        self.joint_names: list[str] = list(names)
        """Names of the joints (one per column of the joint fields)."""
        super().__init__(cfg, manager, name, np.asarray(bodies), body_names, per_env, env_origins, initial)
        self._coord_rows = RowBlock(np.asarray(coords).reshape(count, -1), self.device) if names else None
        self._dof_rows = RowBlock(np.asarray(dofs).reshape(count, -1), self.device) if names else None
        self._add_joint_fields()

    # ------------------------------------------------------------------ properties
    @property
    def num_joints(self) -> int:
        """Joints (columns of the joint fields) per instance [count]."""
        return len(self.joint_names)

    @property
    def is_fixed_base(self) -> bool:
        """Whether the root is attached to the world (its root joint is not FREE): root writes are then refused."""
        return self._root_mode != "free"

    # ------------------------------------------------------------------ data fields
    def _flat(self, source: str, array: str) -> torch.Tensor | None:
        holder = self._state if source == "state" else self._control
        value = getattr(holder, array, None)
        return wp.to_torch(value) if value is not None else None

    def _add_joint_fields(self) -> None:
        data, n = self.data, self._num
        if not self.joint_names:
            return
        self._joint_flat = {}
        for name, (source, array, layout) in _JOINT_SOURCES.items():
            flat = self._flat(source, array)
            if flat is None:
                continue
            rows = self._coord_rows if layout == "coord" else self._dof_rows
            self._joint_flat[name] = (flat, rows)
            if rows.regular:
                data._add(name, ProxyArray(warp_of(rows.view(flat), None)))
            else:
                buffer = ProxyArray(wp.zeros((n, rows.count), dtype=float, device=self.device))
                data._add_computed(name, buffer, lambda out, f=flat, r=rows: r.gather(f, out))

        def own(values: torch.Tensor, *shape: int) -> ProxyArray:
            proxy = ProxyArray(wp.zeros((n, self.num_joints, *shape), dtype=float, device=self.device))
            proxy.torch.copy_(values.view(proxy.torch.shape))
            return proxy

        model, dev = self._model, self.torch_device
        coord, dof = self._coord_rows.index, self._dof_rows.index
        data._add("default_joint_pos", own(wp.to_torch(model.joint_q).to(dev)[coord]))
        data._add("default_joint_vel", own(wp.to_torch(model.joint_qd).to(dev)[dof]))
        lower = wp.to_torch(model.joint_limit_lower).to(dev)[dof]
        upper = wp.to_torch(model.joint_limit_upper).to(dev)[dof]
        data._add("joint_pos_limits", own(torch.stack([lower, upper], dim=-1), 2))
        factor = getattr(self.cfg, "soft_joint_pos_limit_factor", None)
        if factor is not None:
            mid, half = 0.5 * (lower + upper), 0.5 * (upper - lower) * float(factor)
            lower, upper = mid - half, mid + half
        data._add("soft_joint_pos_limits", own(torch.stack([lower, upper], dim=-1), 2))
        data._add("joint_vel_limits", own(wp.to_torch(model.joint_velocity_limit).to(dev)[dof]))
        data._add("joint_acc", own(torch.zeros(n, self.num_joints, device=dev)))
        self._prev_joint_vel = data.joint_vel.torch.clone()

    # ------------------------------------------------------------------ raw simulation arrays (for kernels)
    def joint_coordinate_ids(self) -> np.ndarray:
        """Index of every joint column into Newton's coordinate arrays (``state.joint_q``,
        ``control.joint_target_q``), ``[num_instances, num_joints]`` int64: for Warp kernels that read or write
        the joints inside the captured physics step."""
        if not self.joint_names:
            raise ValueError(f"{self._where()}: has no joints")
        return self._coord_rows.ids.copy()

    def simulation_array(self, field_name: str) -> wp.array:
        """The whole flat Newton array behind the joint field *field_name* (``"joint_pos"``: ``state.joint_q``,
        ``"joint_pos_target"``: ``control.joint_target_q``, ...), the same memory the manager steps; index it with
        :meth:`joint_coordinate_ids` (coordinate fields). For kernels inside the captured physics step.

        Raises:
            KeyError: Not a joint field this articulation has (the message lists those it has).
        """
        flats = getattr(self, "_joint_flat", {})
        if field_name not in flats:
            raise KeyError(f"{self._where()}: no joint field {field_name!r}; it has {sorted(flats)}")
        holder_name, array, _ = _JOINT_SOURCES[field_name]
        holder = self._state if holder_name == "state" else self._control
        return getattr(holder, array)

    # ------------------------------------------------------------------ names
    def find_joints(
        self, name_keys: str | list[str], joint_subset: list[str] | None = None, preserve_order: bool = False
    ) -> tuple[list[int], list[str]]:
        """Indices and names of the joints whose names match the regexes *name_keys* in full (Isaac Lab's
        ``find_joints``); with *joint_subset* (joint names), the indices are into that list.

        Raises:
            ValueError: A key matches no joint (the message names the asset, the key and the joint names), or two
                keys match the same joint.
        """
        names = self.joint_names if joint_subset is None else list(joint_subset)
        return resolve_names(name_keys, names, self._where(), "joint", preserve_order)

    # ------------------------------------------------------------------ writes
    def _joint_write(self, field_name: str, value: Any, joint_ids: Any, env_ids: Any, unit: str) -> tuple:
        """Check a write of *field_name*; returns ``(env, joint index, values)``; nothing is written here."""
        if field_name not in getattr(self, "_joint_flat", {}):
            raise ValueError(
                f"{self._where()}: has no {field_name} to write (no joints, or the array is not allocated)"
            )
        env = self._env_index(env_ids)
        joints = self._index(joint_ids, self.num_joints, "joint_ids", "joints")
        values = self._values(value, (len(env), len(joints)), field_name.replace("joint_", "", 1), unit)
        return env, joints, values

    def _scatter(self, field_name: str, env: torch.Tensor, joints: torch.Tensor, values: torch.Tensor) -> None:
        flat, rows = self._joint_flat[field_name]
        flat[rows.index[env][:, joints]] = values

    def write_joint_state_to_sim(self, position: Any, velocity: Any, joint_ids: Any = None, env_ids: Any = None):
        """Set joint positions [rad or m] and velocities [rad/s or m/s], each ``[len(env_ids), len(joint_ids)]``, and
        invalidate those envs (FK and a masked solver reset at the next ``forward()`` / step).

        Raises:
            ValueError: A wrong shape, non-finite values, repeated ids; IndexError: ids out of range. Nothing is
                written then.
        """
        env, joints, pos = self._joint_write("joint_pos", position, joint_ids, env_ids, "[rad or m]")
        _, _, vel = self._joint_write("joint_vel", velocity, joint_ids, env_ids, "[rad/s or m/s]")
        self._invalidate(env)
        self._scatter("joint_pos", env, joints, pos)
        self._scatter("joint_vel", env, joints, vel)
        self.data.invalidate()

    def write_joint_position_to_sim(self, position: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set joint positions [rad or m] ``[len(env_ids), len(joint_ids)]``; see :meth:`write_joint_state_to_sim`."""
        env, joints, pos = self._joint_write("joint_pos", position, joint_ids, env_ids, "[rad or m]")
        self._invalidate(env)
        self._scatter("joint_pos", env, joints, pos)
        self.data.invalidate()

    def write_joint_velocity_to_sim(self, velocity: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set joint velocities [rad/s or m/s] ``[len(env_ids), len(joint_ids)]``; see :meth:`write_joint_state_to_sim`."""
        env, joints, vel = self._joint_write("joint_vel", velocity, joint_ids, env_ids, "[rad/s or m/s]")
        self._invalidate(env)
        self._scatter("joint_vel", env, joints, vel)
        self.data.invalidate()

    def set_joint_position_target(self, target: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set joint position targets [rad or m] ``[len(env_ids), len(joint_ids)]`` (``control.joint_target_q``, read
        by the actuators from the next physics step on)."""
        self._scatter(
            "joint_pos_target", *self._joint_write("joint_pos_target", target, joint_ids, env_ids, "[rad or m]")
        )

    def set_joint_velocity_target(self, target: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set joint velocity targets [rad/s or m/s] ``[len(env_ids), len(joint_ids)]`` (``control.joint_target_qd``)."""
        self._scatter(
            "joint_vel_target", *self._joint_write("joint_vel_target", target, joint_ids, env_ids, "[rad/s or m/s]")
        )

    def set_joint_effort_target(self, target: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set feed-forward joint efforts [N*m or N] ``[len(env_ids), len(joint_ids)]`` (``control.joint_act``)."""
        self._scatter(
            "joint_effort_target", *self._joint_write("joint_effort_target", target, joint_ids, env_ids, "[N*m or N]")
        )

    # ------------------------------------------------------------------ drive gains
    def write_joint_stiffness_to_sim(self, stiffness: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set the stiffness of the joints' implicit drives (the solver's own PD, ``ImplicitActuatorCfg``)
        [N*m/rad or N/m]: a number for every selected joint and env, or ``[len(env_ids), len(joint_ids)]``.

        Written in place into the model's ``joint_target_ke`` (and the coupled entries' copies), then the solvers
        are notified (``JOINT_DOF_FORCE_PROPERTIES``: MuJoCo-Warp refreshes its actuator gains from it): the
        change takes effect at the next step, with no rebuild and no new recording. An explicit actuator's gains
        are its own (``mdp.randomize_actuator_gains`` writes them); its joints accept only 0 here (the solver
        must not add a drive of its own to the explicit law).

        Raises:
            ValueError: A wrong shape, non-finite or negative values, a nonzero value for a joint an explicit
                actuator drives, or an articulation without joints. IndexError: ids out of range. Nothing is
                written then.
        """
        self._write_drive_gain("joint_target_ke", "stiffness", stiffness, joint_ids, env_ids, "[N*m/rad or N/m]")

    def write_joint_damping_to_sim(self, damping: Any, joint_ids: Any = None, env_ids: Any = None) -> None:
        """Set the damping of the joints' implicit drives [N*m*s/rad or N*s/m] (the model's ``joint_target_kd``);
        shapes, path and errors as :meth:`write_joint_stiffness_to_sim`."""
        self._write_drive_gain("joint_target_kd", "damping", damping, joint_ids, env_ids, "[N*m*s/rad or N*s/m]")

    def _write_drive_gain(self, array: str, arg: str, value: Any, joint_ids: Any, env_ids: Any, unit: str) -> None:
        where = f"{self._where()}.write_joint_{arg}_to_sim"
        if not self.joint_names:
            raise ValueError(f"{where}: the articulation has no joints to drive")
        env = self._env_index(env_ids)
        joints = self._index(joint_ids, self.num_joints, "joint_ids", "joints")
        shape = (len(env), len(joints))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = torch.full(shape, float(value), device=self.torch_device)
        values = self._values(value, shape, arg, unit)
        if bool((values < 0).any()):
            raise ValueError(f"{where}: {arg} must be >= 0 {unit}, got {values.tolist()}")
        dofs = self._dof_rows.index[env][:, joints]
        explicit = self._explicit_dofs()[dofs] & (values != 0)
        if bool(explicit.any()):
            column = int(torch.nonzero(explicit)[0, 1])
            raise ValueError(
                f"{where}: joint {self.joint_names[int(joints[column])]!r} is driven by an explicit actuator, whose "
                f"gains are its own (mdp.randomize_actuator_gains sets them); a nonzero {arg} here would add the "
                "solver's drive to the explicit law. Nothing was written."
            )
        if values.numel() == 0:
            return
        self._manager.write_model_rows(array, dofs.reshape(-1), None, values.reshape(-1))
        self._manager.add_model_change(int(newton.ModelFlags.JOINT_DOF_FORCE_PROPERTIES))

    def _explicit_dofs(self) -> torch.Tensor:
        """Boolean mask over the model's degrees of freedom: those an explicit actuator drives."""
        if getattr(self, "_explicit_mask", None) is None:
            mask = torch.zeros(int(self._model.joint_dof_count), dtype=torch.bool, device=self.torch_device)
            adapter = self._manager.get_actuator_adapter()
            if adapter is not None and adapter.actuated_dofs.shape[0]:
                mask[wp.to_torch(adapter.actuated_dofs).to(self.torch_device).long()] = True
            self._explicit_mask = mask
        return self._explicit_mask

    # ------------------------------------------------------------------ materials
    JOINT_MATERIAL_FIELDS = ("armature", "joint_friction")
    """Joint fields :meth:`write_material_to_sim` also sets, per selected joint: ``armature`` [kg*m^2 or kg] and
    ``joint_friction`` (Newton's joint friction coefficient)."""

    def write_material_to_sim(self, env_ids: Any = None, body_ids: Any = None, joint_ids: Any = None, **values: Any):
        """Set the bodies' mass and shape material (:meth:`BodyAsset.write_material_to_sim`) and the joints'
        ``armature`` / ``joint_friction`` of *joint_ids* (``None``: all) per env, in place (model and the coupled
        entries' copies), with no rebuild and no new recording.

        Raises:
            KeyError / ValueError: as :meth:`BodyAsset.write_material_to_sim`. IndexError: *joint_ids* out of
            range. Nothing is written then.
        """
        joint_values = {name: values.pop(name) for name in self.JOINT_MATERIAL_FIELDS if name in values}
        env = self._env_index(env_ids)
        checked = self._material_values(env, joint_values, self.JOINT_MATERIAL_FIELDS)
        joints = self._index(joint_ids, self.num_joints, "joint_ids", "joints")  # checked before the bodies' write
        if values:
            super().write_material_to_sim(env_ids=env_ids, body_ids=body_ids, **values)  # checks its own fields first
        if not checked:
            return
        dofs = self._dof_rows.index[env][:, joints]
        for name, value in checked.items():
            array = "joint_armature" if name == "armature" else "joint_friction"
            self._manager.write_model_rows(
                array, dofs.reshape(-1), None, value.unsqueeze(-1).expand_as(dofs).reshape(-1)
            )
        self._manager.add_model_change(
            int(newton.ModelFlags.JOINT_DOF_INERTIAL_PROPERTIES | newton.ModelFlags.JOINT_DOF_PROPERTIES)
        )

    # ------------------------------------------------------------------ per step
    def update(self, dt: float) -> None:
        """Mark the computed fields stale and, for *dt* > 0 [s] (an env step), take ``joint_acc`` as the change of
        the joint velocities since the previous update divided by *dt*; ``dt == 0`` (after a reset or a write)
        makes the current velocities the reference of the next difference."""
        super().update(dt)
        if not self.joint_names:
            return
        velocity = self.data.joint_vel.torch
        if dt > 0.0:
            self.data.joint_acc.torch.copy_((velocity - self._prev_joint_vel) / dt)
        self._prev_joint_vel.copy_(velocity)

    def reset(self, env_ids: Any = None) -> None:
        """Clear the asset's own buffers for *env_ids*: the data caches and ``joint_acc`` (the simulation state is not
        put back: Isaac Lab's events do that)."""
        super().reset(env_ids)
        if self.joint_names:
            env = slice(None) if env_ids is None else self._env_index(env_ids)
            self.data.joint_acc.torch[env] = 0.0
            self._prev_joint_vel[env] = self.data.joint_vel.torch[env]
