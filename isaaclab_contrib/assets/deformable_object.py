"""The runtime deformable object (Isaac Lab's ``DeformableObject``): the particles of one asset config per env.

Any asset config that adds particles is one: a cloth (``PinnedClothCfg``, ``ClothMeshCfg``), a soft body
(``SoftBlockCfg``, ``SoftMeshCfg``), a granular bed or grain lattice, USD-authored deformables. Its nodes are its
particles, in the order the config adds them (``scene_cfg.particle_ids(name)``, env after env). Newton keeps
particle positions in ``state.particle_q`` [m] and velocities in ``state.particle_qd`` [m/s], world frame, one
``vec3`` each; env replication lays every env's particles out alike, so ``nodal_pos_w`` / ``nodal_vel_w`` are
zero-copy strided views.
"""

from __future__ import annotations

from typing import Any

import newton
import numpy as np
import torch
import warp as wp

from .asset_base import AssetBase, AssetDataBase, RowBlock, field, warp_of
from .body_asset import initial_state
from .proxy_array import ProxyArray

__all__ = ["DeformableObject", "DeformableObjectData"]


class DeformableObjectData(AssetDataBase):
    """Data of a :class:`DeformableObject`; every ``.torch`` is ``[num_envs, ...]``."""

    nodal_pos_w = field(
        "nodal_pos_w",
        "Node (particle) positions, world frame [m], ``[num_envs, num_nodes, 3]``; a view of ``state.particle_q``.",
    )
    nodal_vel_w = field(
        "nodal_vel_w",
        "Node velocities, world frame [m/s], ``[num_envs, num_nodes, 3]``; a view of ``state.particle_qd``.",
    )
    nodal_state_w = field(
        "nodal_state_w",
        "Node positions [m] and velocities [m/s], ``[num_envs, num_nodes, 6]``; gathered into a buffer of its own, "
        "refreshed at most once per env step.",
    )
    root_pos_w = field(
        "root_pos_w",
        "Mean of the node positions, world frame [m], ``[num_envs, 3]``; computed at most once per env step.",
    )
    root_vel_w = field(
        "root_vel_w",
        "Mean of the node velocities, world frame [m/s], ``[num_envs, 3]``; computed at most once per env step.",
    )
    default_nodal_state_w = field(
        "default_nodal_state_w",
        "Node positions [m] and velocities [m/s] at simulation start, world frame, ``[num_envs, num_nodes, 6]``; a "
        "buffer of its own (writing it changes nothing in the simulation).",
    )


class DeformableObject(AssetBase):
    """The particles of one asset config per env, with Isaac Lab 3.0's nodal data fields and writes.

    Nodal writes go into ``state.particle_q`` / ``particle_qd`` and invalidate those envs (``invalidate_fk``), so
    the next ``forward()`` / step runs the solvers' masked reset of them (their particle history, e.g. VBD's
    previous positions, starts over from the written state).
    """

    kind = "DeformableObject"

    def __init__(
        self,
        cfg: Any,
        manager: type,
        name: str,
        particle_ids: Any,
        initial: newton.State | None = None,
    ):
        """Args:
        cfg: The asset config (any config whose ``particle_count()`` is positive).
        manager: The running manager class.
        name: Its field name in the scene config (for errors).
        particle_ids: Its global particle ids, env after env (``scene_cfg.particle_ids(name)``); a per-env asset
            has ``num_envs * particle_count()`` of them, a global one ``particle_count()``.
        initial: The state at simulation start (default: computed from the model).

        Raises:
            ValueError: The ids do not fit the running model (a config changed after ``launch()``).
        """
        model = manager.get_model()
        if model is None:
            raise RuntimeError(f"DeformableObject {name!r}: no simulation is running; launch() the scene first")
        per_env = bool(cfg.is_per_env())
        count = int(model.world_count) if per_env else 1
        ids = np.asarray(list(particle_ids), dtype=np.int64)
        nodes = int(cfg.particle_count())
        if nodes <= 0 or ids.size != count * nodes or ids.min() < 0 or ids.max() >= model.particle_count:
            raise ValueError(
                f"DeformableObject {name!r}: {ids.size} particle ids for {count} instance(s) of {nodes} nodes do not "
                f"fit the running model ({model.particle_count} particles); build the InteractiveScene from the "
                "config that was launched"
            )
        super().__init__(cfg, manager, name, count, per_env)
        self._nodes = RowBlock(ids.reshape(count, nodes), self.device)
        if per_env:
            worlds = model.particle_world.numpy()[ids.reshape(count, nodes)]
            if not np.array_equal(worlds, np.repeat(np.arange(count)[:, None], nodes, axis=1)):
                raise ValueError(f"DeformableObject {name!r}: the particles of instance i are not all in world i")
        self._particle_q = wp.to_torch(self._state.particle_q)
        self._particle_qd = wp.to_torch(self._state.particle_qd)
        self.data = DeformableObjectData(self)
        data, rows = self.data, self._nodes
        for name_, flat in (("nodal_pos_w", self._particle_q), ("nodal_vel_w", self._particle_qd)):
            if rows.regular:
                data._add(name_, ProxyArray(warp_of(rows.view(flat, 0, 3), 3)))
            else:
                buffer = ProxyArray(wp.zeros((count, nodes), dtype=wp.vec3, device=self.device))
                data._add_computed(name_, buffer, lambda out, f=flat: rows.gather(f, out))
        state = ProxyArray(wp.zeros((count, nodes, 6), dtype=float, device=self.device))
        data._add_computed("nodal_state_w", state, self._fill_state)
        for name_, flat in (("root_pos_w", self._particle_q), ("root_vel_w", self._particle_qd)):
            mean = ProxyArray(wp.zeros(count, dtype=wp.vec3, device=self.device))
            data._add_computed(name_, mean, lambda out, f=flat: torch.mean(f[rows.index], dim=1, out=out))
        initial = initial if initial is not None else initial_state(model)
        default = ProxyArray(wp.zeros((count, nodes, 6), dtype=float, device=self.device))
        default.torch[..., :3] = wp.to_torch(initial.particle_q).to(self.torch_device)[rows.index]
        default.torch[..., 3:] = wp.to_torch(initial.particle_qd).to(self.torch_device)[rows.index]
        data._add("default_nodal_state_w", default)

    @property
    def num_nodes(self) -> int:
        """Nodes (particles) per instance [count]."""
        return self._nodes.count

    def _fill_state(self, out: torch.Tensor) -> None:
        out[..., :3] = self._particle_q[self._nodes.index]
        out[..., 3:] = self._particle_qd[self._nodes.index]

    # ------------------------------------------------------------------ writes
    def write_nodal_state_to_sim(self, nodal_state: Any, env_ids: Any = None) -> None:
        """Set node positions [m] and velocities [m/s], ``[len(env_ids), num_nodes, 6]``, world frame, and
        invalidate those envs (a masked solver reset at the next ``forward()`` / step).

        Raises:
            ValueError: A wrong shape, non-finite values or repeated ids; IndexError: ids out of range; the
                manager's ``ValueError`` when the solver cannot reset those envs alone. Nothing is written then.
        """
        env = self._env_index(env_ids)
        state = self._values(nodal_state, (len(env), self.num_nodes, 6), "nodal_state", "[m, m/s]")
        self._write(env, state[..., :3], state[..., 3:])

    def write_nodal_pos_to_sim(self, nodal_pos: Any, env_ids: Any = None) -> None:
        """Set node positions [m], ``[len(env_ids), num_nodes, 3]``, world frame; see :meth:`write_nodal_state_to_sim`."""
        env = self._env_index(env_ids)
        self._write(env, self._values(nodal_pos, (len(env), self.num_nodes, 3), "nodal_pos", "[m]"), None)

    def write_nodal_velocity_to_sim(self, nodal_vel: Any, env_ids: Any = None) -> None:
        """Set node velocities [m/s], ``[len(env_ids), num_nodes, 3]``, world frame; see
        :meth:`write_nodal_state_to_sim`."""
        env = self._env_index(env_ids)
        self._write(env, None, self._values(nodal_vel, (len(env), self.num_nodes, 3), "nodal_vel", "[m/s]"))

    def _write(self, env: torch.Tensor, pos: torch.Tensor | None, vel: torch.Tensor | None) -> None:
        self._invalidate(env)  # may refuse: nothing is written then
        if pos is not None:
            self._nodes.scatter(self._particle_q, env, pos, 0, 3)
        if vel is not None:
            self._nodes.scatter(self._particle_qd, env, vel, 0, 3)
        self.data.invalidate()

    # ------------------------------------------------------------------ materials
    def write_material_to_sim(self, env_ids: Any = None, **values: Any) -> None:
        """Set the asset's material per env, by its config's field names (a cloth's ``stiffness``, ``damping``,
        ``bend_stiffness``, ``bend_damping``; a soft body's ``k_mu``, ``k_lambda``, ``k_damp``; ``particle_mass``
        [kg] where the config has it, pinned (zero-mass) nodes staying pinned): each a number
        for every env of *env_ids*, or a tensor ``[len(env_ids)]``. Written in place into the model's element
        arrays, which the solver reads every step: the change takes effect at the next step, with no solver
        rebuild and no new recording of the captured step.

        Raises:
            KeyError: A field the asset's material does not have (the message lists those it has).
            ValueError: A wrong shape, a non-finite or negative value. Nothing is written then.
        """
        env = self._env_index(env_ids)
        columns = getattr(type(self.cfg), "MATERIAL_COLUMNS", {})
        fields = [*columns, *(["particle_mass"] if hasattr(self.cfg, "particle_mass") else [])]
        checked = self._material_values(env, values, fields)
        if "particle_mass" in checked:
            mass = checked.pop("particle_mass")
            if (mass <= 0).any():
                raise ValueError(
                    f"{self._where()}.write_material_to_sim: particle_mass must be > 0, got {mass.tolist()}"
                )
            nodes = self._nodes.index[env]  # [len(env), nodes]
            current = wp.to_torch(self._model.particle_mass)[nodes]
            new = torch.where(current > 0.0, mass.unsqueeze(-1).expand_as(current), current)  # pinned nodes stay 0
            self._manager.write_model_rows("particle_mass", nodes.reshape(-1), None, new.reshape(-1))
            inverse = torch.where(new > 0.0, 1.0 / new.clamp(min=1e-30), torch.zeros_like(new))
            self._manager.write_model_rows("particle_inv_mass", nodes.reshape(-1), None, inverse.reshape(-1))
        for field_name, tensor in checked.items():
            array_name, cols = columns[field_name]
            elements = self._material_elements(array_name)[env]  # [len(env), elements per env]
            per_row = tensor.unsqueeze(-1).expand_as(elements).reshape(-1)
            self._manager.write_model_rows(array_name, elements.reshape(-1), cols, per_row)

    def _material_elements(self, array_name: str) -> torch.Tensor:
        """The asset's element rows of *array_name* per env, ``[num_envs, elements]`` (found once: the elements whose
        first particle is one of the asset's nodes in that env)."""
        cache = self.__dict__.setdefault("_elements", {})
        if array_name not in cache:
            indices = {
                "tri_materials": "tri_indices",
                "edge_bending_properties": "edge_indices",
                "tet_materials": "tet_indices",
            }
            width = {"tri_materials": 3, "edge_bending_properties": 4, "tet_materials": 4}[array_name]
            first = getattr(self._model, indices[array_name]).numpy().reshape(-1, width)
            first = first[:, 2] if array_name == "edge_bending_properties" else first[:, 0]  # an edge's own vertex
            owner = np.full(int(self._model.particle_count), -1, dtype=np.int64)
            nodes = self._nodes.ids
            owner[nodes.reshape(-1)] = np.repeat(np.arange(nodes.shape[0]), nodes.shape[1])
            rows = [np.nonzero(owner[first] == e)[0] for e in range(nodes.shape[0])]
            if len({len(r) for r in rows}) != 1 or not len(rows[0]):
                raise ValueError(f"{self._where()}: its {array_name} elements are not the same in every env")
            cache[array_name] = torch.as_tensor(np.stack(rows), device=self.torch_device)
        return cache[array_name]

    def reset(self, env_ids: Any = None) -> None:
        """Clear the asset's own buffers for *env_ids* (the data caches); the particles are NOT put back to the
        initial state (Isaac Lab's events do that, e.g. with ``default_nodal_state_w``)."""
        self._env_index(env_ids)
        self.data.invalidate()

    def update(self, dt: float) -> None:
        """Mark the computed fields stale (the zero-copy ones are always current). *dt* [s] is unused."""
        del dt
        self.data.invalidate()
