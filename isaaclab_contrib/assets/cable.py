"""The runtime cable: the capsule bodies of a VBD cable (``CableCfg``, Newton's rod) per env.

A cable of ``segments`` capsules is ``segments`` rigid bodies labelled ``{label}/rod_edge_body_{k}`` (``k`` from the
first end to the last), hung on a FREE root joint (the first capsule) and joined by rod joints (Newton's
``JointType.ROD``, one between capsules ``k - 1`` and ``k``), all in one Newton articulation per env. Body fields
follow Newton's layout (see :mod:`~isaaclab_contrib.assets.body_asset`): positions of the body frames (the
capsules' midpoints, which are their centers of mass), quaternions ``(x, y, z, w)``, center-of-mass velocities,
world frame.

Material: a rod joint has six degrees of freedom, ``[shear x, shear y, stretch z, bend x, bend y, twist z]``, and
``ModelBuilder.add_rod`` stores the config's values unchanged (no scaling by the segment length) in the model's
``joint_target_ke`` (stiffness) and ``joint_target_kd`` (damping) of those degrees of freedom: ``stretch_*`` on
the three linear ones (shear follows stretch, as ``CableCfg`` sets no shear of its own), ``bend_*`` on the three
angular ones (twist follows bend). ``SolverVBD`` keeps its own copy of the rod values (its joint material and
penalty buffers), filled at construction; a write notifies the solvers with ``JOINT_DOF_FORCE_PROPERTIES``, which
makes VBD refill that copy and a coupled solver copy the model's rows into its entries.
"""

from __future__ import annotations

from typing import Any

import newton
import numpy as np
import torch
import warp as wp

from .asset_base import field
from .body_asset import BodyAsset, BodyAssetData, initial_state
from .proxy_array import ProxyArray
from .rigid_object import label_index

__all__ = ["Cable", "CableData"]

_STRETCH, _BEND = slice(0, 3), slice(3, 6)  # degrees of freedom of a rod joint


class CableData(BodyAssetData):
    """Data of a :class:`Cable`: the ``body_*`` fields ``[num_envs, num_segments, ...]`` (segment 0 first), the
    ``root_*`` fields (segment 0), and the cable's own state fields below; units and frames as in
    :class:`~isaaclab_contrib.assets.body_asset.BodyAssetData`."""

    body_state_w = field(
        "body_state_w",
        "Pose and velocity of every segment ``[pos (m), quat (x, y, z, w), lin vel of the COM (m/s), ang vel "
        "(rad/s)]``, world frame, ``[num_envs, num_segments, 13]``; gathered into a buffer of its own, refreshed at "
        "most once per env step.",
    )
    default_body_state = field(
        "default_body_state",
        "Segment states at simulation start, the layout of ``body_state_w``, world frame (env origin included: "
        "write it back as it is), ``[num_envs, num_segments, 13]``; a buffer of its own.",
    )


class Cable(BodyAsset):
    """The capsule segments of a VBD cable per env (a global config: one instance): segment state reads and
    writes, and the cable's material written per env (:meth:`write_material_to_sim`)."""

    kind = "Cable"
    data_class = CableData

    ROD_MATERIAL_FIELDS = ("stretch_stiffness", "stretch_damping", "bend_stiffness", "bend_damping")
    """Rod-joint fields of :meth:`write_material_to_sim`, ``CableCfg``'s names and units: ``stretch_stiffness``
    [N/m] (> 0), ``stretch_damping`` [N*s/m], ``bend_stiffness`` [N*m/rad] and ``bend_damping`` [N*m*s/rad]
    (>= 0), each of every rod joint of the cable."""
    SHAPE_MATERIAL_FIELDS = ("mu", "ke", "kd")
    """Capsule fields of :meth:`write_material_to_sim`: friction ``mu``, contact stiffness ``ke`` [N/m] and
    damping ``kd`` [N*s/m] (``CableCfg``'s names)."""

    def __init__(
        self,
        cfg: Any,
        manager: type,
        name: str = "cable",
        env_origins: torch.Tensor | None = None,
        initial: newton.State | None = None,
    ):
        """Args:
        cfg: The cable's config (``CableCfg``), a field of the launched scene config.
        manager: The running manager class.
        name: Its field name in the scene config (for errors).
        env_origins: Env origins ``[num_envs, 3]`` [m] (``default_root_state`` is relative to them).
        initial: The state at simulation start (default: computed from the model).

        Raises:
            KeyError: The model has no capsule body of the config's label (a config changed after ``launch()``).
            ValueError: The capsules are not joined by one rod joint each, or not in one articulation per env.
        """
        where = f"Cable {name!r}"
        model = manager.get_model()
        if model is None:
            raise RuntimeError(f"{where}: no simulation is running; launch() the scene first")
        per_env = bool(cfg.is_per_env())
        count = int(model.world_count) if per_env else 1
        segments = int(cfg.segments)
        names = [f"rod_edge_body_{k}" for k in range(segments)]
        labels = [f"{cfg.label_in_env(env)}/{body}" for env in range(count) for body in names]
        ids = np.asarray(label_index(list(model.body_label), labels, where, "body")).reshape(count, segments)
        # The rod joint whose child is segment k (k >= 1), and the articulation holding the cable.
        types, child = model.joint_type.numpy(), model.joint_child.numpy()
        joint_of = {int(c): j for j, c in enumerate(child)}
        rods = [[joint_of.get(int(b), -1) for b in row[1:]] for row in ids]
        if any(j < 0 or int(types[j]) != int(newton.JointType.ROD) for row in rods for j in row):
            raise ValueError(f"{where}: segments of the cable are not joined to their predecessors by rod joints")
        roots = [joint_of.get(int(row[0]), -1) for row in ids]
        articulation = model.joint_articulation.numpy()
        arts = [int(articulation[j]) if j >= 0 else -1 for j in roots]
        if any(a < 0 or any(int(articulation[j]) != a for j in row) for a, row in zip(arts, rods, strict=True)):
            raise ValueError(f"{where}: the cable's joints are not in one articulation per env")
        initial = initial if initial is not None else initial_state(model)
        super().__init__(cfg, manager, name, ids, names, per_env, env_origins, initial)
        qd_start = model.joint_qd_start.numpy()
        dofs = np.asarray([[int(qd_start[j]) + np.arange(6) for j in row] for row in rods], dtype=np.int64)
        self._rod_dofs = torch.as_tensor(dofs.reshape(count, segments - 1, 6), device=self.torch_device)
        self._articulations = torch.as_tensor(arts, dtype=torch.int32, device=self.torch_device)
        self._add_state_fields(initial)

    @property
    def num_segments(self) -> int:
        """Capsule segments (bodies) per instance [count]."""
        return self.num_bodies

    def _add_state_fields(self, initial: newton.State) -> None:
        data, rows, n = self.data, self._bodies, self._num
        state = ProxyArray(wp.zeros((n, rows.count, 13), dtype=float, device=self.device))
        data._add_computed("body_state_w", state, self._fill_body_state)
        default = ProxyArray(wp.zeros((n, rows.count, 13), dtype=float, device=self.device))
        default.torch[..., :7] = wp.to_torch(initial.body_q).to(self.torch_device)[rows.index]
        default.torch[..., 7:] = wp.to_torch(initial.body_qd).to(self.torch_device)[rows.index]
        data._add("default_body_state", default)

    def _fill_body_state(self, out: torch.Tensor) -> None:
        index = self._bodies.index
        out[..., :7] = self._body_q[index]
        out[..., 7:] = self._body_qd[index]

    # ------------------------------------------------------------------ state writes
    def write_body_state_to_sim(self, body_state: Any, env_ids: Any = None) -> None:
        """Set the pose and velocity of every segment ``[len(env_ids), num_segments, 13]`` (``[pos (m), quat
        (x, y, z, w), lin vel of the COM (m/s), ang vel (rad/s)]``, world frame: add ``scene.env_origins`` to
        env-local positions; ``default_body_state`` is already in the world frame).

        The segments' body states are written, the cable's joint coordinates are computed from them (Newton's
        inverse kinematics, so the FK the next ``forward()`` / step runs puts them back) and the envs are
        invalidated (FK and a masked solver reset: the solver's history of those envs starts over).

        Raises:
            ValueError: A wrong shape, non-finite values, quaternions that are not unit length, repeated ids.
            IndexError: An env id out of range. Nothing is written then.
        """
        env = self._env_index(env_ids)
        state = self._values(body_state, (len(env), self.num_segments, 13), "body_state", "[m, xyzw, m/s, rad/s]")
        quat = self._unit_quats(state[..., 3:7], "body_state")
        if len(env) == 0:
            return
        self._invalidate(env)  # may refuse (the solver cannot reset these envs alone): nothing is written then
        index = self._bodies.index[env]
        self._body_q[index] = torch.cat([state[..., :3], quat], dim=-1)
        self._body_qd[index] = state[..., 7:]
        arts = wp.from_torch(self._articulations[env].contiguous(), dtype=wp.int32)
        newton.eval_ik(self._model, self._state, self._state.joint_q, self._state.joint_qd, indices=arts)
        self.data.invalidate()

    def _write_root(self, pose: Any, velocity: Any, env_ids: Any) -> None:
        raise ValueError(
            f"{self._where()}: a cable's state is the state of all its segments; write it with "
            "write_body_state_to_sim (a root write alone would leave the other segments' joint coordinates as "
            "they were). Nothing was written."
        )

    # ------------------------------------------------------------------ materials
    def write_material_to_sim(self, env_ids: Any = None, **values: Any) -> None:
        """Set the cable's material per env by ``CableCfg``'s field names (:attr:`ROD_MATERIAL_FIELDS`,
        :attr:`SHAPE_MATERIAL_FIELDS`): each a number for every env of *env_ids*, or a tensor ``[len(env_ids)]``.

        A written value is what the same config field gives at build time (``add_rod`` stores the config's values
        unchanged), so an env written after the start moves as a build with that value in its config. Written in
        place into the model and the coupled entries' copies, then the solvers are notified (rod values:
        ``JOINT_DOF_FORCE_PROPERTIES``, which VBD needs to refill its own copy; shape values:
        ``SHAPE_PROPERTIES``): the change takes effect at the next step, with no rebuild and no new recording.

        Raises:
            KeyError: An unknown field. TypeError / ValueError: A wrong type or shape, a non-finite or negative
            value, a ``stretch_stiffness`` of 0. Nothing is written then.
        """
        fields = (*self.ROD_MATERIAL_FIELDS, *self.SHAPE_MATERIAL_FIELDS)
        rod = {name: values.pop(name) for name in self.ROD_MATERIAL_FIELDS if name in values}
        env = self._env_index(env_ids)
        checked = self._material_values(env, rod, fields)
        self._material_values(env, dict(values), fields)  # the shape fields: checked before anything is written
        if "stretch_stiffness" in checked and bool((checked["stretch_stiffness"] <= 0).any()):
            raise ValueError(
                f"{self._where()}.write_material_to_sim: stretch_stiffness must be > 0 [N/m] (CableCfg's range), "
                f"got {checked['stretch_stiffness'].tolist()}"
            )
        if values:
            super().write_material_to_sim(env_ids=env, **values)
        if not checked or len(env) == 0 or self._rod_dofs.shape[1] == 0:
            return
        for name, value in checked.items():
            array = "joint_target_ke" if name.endswith("stiffness") else "joint_target_kd"
            dofs = self._rod_dofs[env][:, :, _STRETCH if name.startswith("stretch") else _BEND]
            rows = value[:, None, None].expand(dofs.shape).reshape(-1)
            self._manager.write_model_rows(array, dofs.reshape(-1), None, rows)
        self._manager.add_model_change(int(newton.ModelFlags.JOINT_DOF_FORCE_PROPERTIES))

    def material(self, env_ids: Any = None) -> dict[str, torch.Tensor]:
        """The rod material the model holds now, per env of *env_ids*, by ``CableCfg``'s names (each
        ``[len(env_ids)]``, read from the first rod joint; every joint of an env holds the same values)."""
        env = self._env_index(env_ids)
        if self._rod_dofs.shape[1] == 0:
            return {}
        first = self._rod_dofs[env][:, 0]
        ke = wp.to_torch(self._model.joint_target_ke).to(self.torch_device)
        kd = wp.to_torch(self._model.joint_target_kd).to(self.torch_device)
        return {
            "stretch_stiffness": ke[first[:, 2]],
            "stretch_damping": kd[first[:, 2]],
            "bend_stiffness": ke[first[:, 3]],
            "bend_damping": kd[first[:, 3]],
        }
