"""The runtime scene (Isaac Lab 3.0's ``InteractiveScene``): the asset objects of a launched scene config.

``launch(scene_cfg, sim_cfg)`` builds the simulation from a copy of *scene_cfg* (:func:`copy_config`: the runtime
never writes into the caller's config, and the copy is not kept). The model it built therefore follows the values
of the config that was passed to ``launch()``: build the scene from that same config, after ``launch()``::

    sim = launch(scene_cfg, sim_cfg)
    scene = InteractiveScene(scene_cfg)             # the manager of the running simulation
    robot = scene["arm"]                             # an Articulation
    robot.data.joint_pos.torch                       # [num_envs, num_joints], zero-copy

The scene keeps a copy of the config (later edits of *scene_cfg* change nothing) and checks it against the running
model: the number of worlds, and every asset's labels or particle ids (a config edited between ``launch()`` and
here is refused with a ``KeyError`` / ``ValueError`` naming the asset).

What each asset config field becomes:

* ``ArticulationCfg`` -> :class:`~isaaclab_contrib.assets.Articulation` (``articulations``);
* ``RigidObjectCfg`` -> :class:`~isaaclab_contrib.assets.RigidObject` (``rigid_objects``);
* any config that adds particles (cloth, soft body, granular bed, grain lattice, USD deformables) ->
  :class:`~isaaclab_contrib.assets.DeformableObject` (``deformable_objects``);
* ``CableCfg`` -> :class:`~isaaclab_contrib.assets.Cable` (``cables``: its capsule segments);
* every other asset (the ground plane: no runtime state) is kept as its config in :attr:`InteractiveScene.extras`,
  as Isaac Lab keeps non-physics assets there: ``scene["ground"]`` gives that config.

``keys()`` lists them all. Sensors are registered with the manager (``launch(cameras=...)``,
``add_*_sensor``) and read from it; :attr:`InteractiveScene.sensors` is empty (no scene config declares sensors).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch
import warp as wp

from isaaclab_contrib.assets import Articulation, AssetBase, Cable, DeformableObject, RigidObject
from isaaclab_contrib.assets.body_asset import initial_state
from isaaclab_contrib.physics import NewtonManager

from .articulation import ArticulationCfg
from .base_cfg import SceneBaseCfg
from .cable import CableCfg
from .launch import copy_config
from .rigid_object import RigidObjectCfg

__all__ = ["InteractiveScene"]


class InteractiveScene:
    """The asset objects of the launched scene config *cfg*, by config field name (see the module documentation).

    Args:
        cfg: The scene config that was passed to ``launch()``.
        manager: The manager class of the running simulation (default: ``NewtonManager``, whose class methods act
            on the active simulation whichever manager subclass runs it).

    Raises:
        TypeError: *cfg* is not a scene config.
        RuntimeError: No simulation is running.
        ValueError / KeyError: *cfg* does not match the running model (another config, or edited since ``launch()``).
    """

    def __init__(self, cfg: SceneBaseCfg, manager: type | None = None):
        if not isinstance(cfg, SceneBaseCfg):
            raise TypeError(f"InteractiveScene: cfg must be a scene config (SceneBaseCfg), got {type(cfg).__name__}")
        manager = NewtonManager if manager is None else manager
        if not (isinstance(manager, type) and issubclass(manager, NewtonManager)):
            raise TypeError(f"InteractiveScene: manager must be a NewtonManager class, got {manager!r}")
        model = manager.get_model()
        if model is None or manager.get_state_0() is None:
            raise RuntimeError(
                f"InteractiveScene({type(cfg).__name__}): no simulation is running; call launch(scene_cfg, sim_cfg) first"
            )
        self.cfg = copy_config(cfg)
        """The scene config (a copy of the one given)."""
        self._manager = manager
        assets = self.cfg.assets()
        if any(a.is_per_env() for a in assets.values()) and int(model.world_count) != int(self.cfg.num_envs):
            raise ValueError(
                f"InteractiveScene({type(cfg).__name__}): num_envs={self.cfg.num_envs} but the running model has "
                f"{model.world_count} worlds; build the scene from the config that was launched"
            )
        self._device = str(manager.get_device())
        torch_device = wp.device_to_torch(self._device)
        up_axis = int(getattr(model, "up_axis", 2))
        self._env_origins = torch.tensor(
            self.cfg.env_origin_positions(up_axis), dtype=torch.float32, device=torch_device
        ).reshape(-1, 3)
        initial = initial_state(model)
        self.articulations: dict[str, Articulation] = {}
        """Articulations by config field name."""
        self.rigid_objects: dict[str, RigidObject] = {}
        """Rigid objects by config field name."""
        self.deformable_objects: dict[str, DeformableObject] = {}
        """Deformable objects (particle assets) by config field name."""
        self.cables: dict[str, Cable] = {}
        """Cables (``CableCfg``: their capsule segments) by config field name."""
        self.sensors: dict[str, Any] = {}
        """Sensors by name: empty (sensors are registered with the manager and read from it)."""
        self.extras: dict[str, Any] = {}
        """Configs of the assets without an asset object (the ground plane), by config field name."""
        for name, asset_cfg in assets.items():
            origins = self._env_origins if asset_cfg.is_per_env() else None
            if isinstance(asset_cfg, ArticulationCfg):
                self.articulations[name] = Articulation(asset_cfg, manager, name, origins, initial)
            elif isinstance(asset_cfg, RigidObjectCfg):
                self.rigid_objects[name] = RigidObject(asset_cfg, manager, name, origins, initial)
            elif isinstance(asset_cfg, CableCfg):
                self.cables[name] = Cable(asset_cfg, manager, name, origins, initial)
            elif asset_cfg.particle_count() > 0:
                ids = self.cfg.particle_ids(name)
                self.deformable_objects[name] = DeformableObject(asset_cfg, manager, name, ids, initial)
            else:
                self.extras[name] = asset_cfg

    # ------------------------------------------------------------------ lookup
    def _groups(self) -> tuple[dict[str, Any], ...]:
        return (
            self.articulations,
            self.rigid_objects,
            self.deformable_objects,
            self.cables,
            self.sensors,
            self.extras,
        )

    def keys(self) -> list[str]:
        """Names of every entity: the asset objects, the sensors and the extras, in config order per group."""
        return [name for group in self._groups() for name in group]

    def __getitem__(self, key: str) -> Any:
        """The asset object of config field *key* (an extra's config for the ground plane).

        Raises:
            KeyError: *key* names no entity (the message lists the available names).
        """
        for group in self._groups():
            if key in group:
                return group[key]
        raise KeyError(f"InteractiveScene({type(self.cfg).__name__}) has no entity {key!r}; available: {self.keys()}")

    def __contains__(self, key: object) -> bool:
        return any(key in group for group in self._groups())

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def _assets(self) -> list[AssetBase]:
        return [
            *self.articulations.values(),
            *self.rigid_objects.values(),
            *self.deformable_objects.values(),
            *self.cables.values(),
        ]

    # ------------------------------------------------------------------ properties
    @property
    def num_envs(self) -> int:
        """Number of envs (Newton worlds) [count]."""
        return int(self.cfg.num_envs)

    @property
    def env_origins(self) -> torch.Tensor:
        """Origin of every env, world frame [m], ``[num_envs, 3]``: where the scene's replication placed each env
        (``cfg.env_origin_positions()``). Env-local poses (``default_root_state``) plus these are world poses."""
        return self._env_origins

    @property
    def device(self) -> str:
        """Torch device string of the data (``"cpu"``, ``"cuda:0"``)."""
        return str(wp.device_to_torch(self._device))

    @property
    def physics_dt(self) -> float:
        """Physics step [s] (one ``decimation`` iteration; the solver substeps divide it further)."""
        return float(self._manager.get_physics_dt())

    @property
    def env_ns(self) -> str:
        """Label prefix of the envs (``/World/envs``)."""
        return "/World/envs"

    @property
    def env_regex_ns(self) -> str:
        """Regex over the env label prefixes (``/World/envs/env_.*``)."""
        return "/World/envs/env_.*"

    @property
    def physics_manager(self) -> type:
        """The manager class the scene reads and writes through."""
        return self._manager

    # ------------------------------------------------------------------ the step
    def reset(self, env_ids: Any = None) -> None:
        """Reset every asset object's own buffers for *env_ids* (``None``: every env). The simulation state is not
        restored: Isaac Lab's events (or ``manager.write_initial_state``) do that."""
        for asset in self._assets():
            asset.reset(env_ids if asset._per_env else None)

    def update(self, dt: float) -> None:
        """Mark every asset's computed data fields stale (call after each env step, as Isaac Lab does); *dt* [s]."""
        for asset in self._assets():
            asset.update(dt)

    # ------------------------------------------------------------------ state
    def get_state(self, is_relative: bool = False) -> dict[str, dict[str, dict[str, torch.Tensor]]]:
        """The state of every per-env asset, copied (Isaac Lab's layout): ``{"articulation": {name: {"root_pose",
        "root_velocity", "joint_position", "joint_velocity"}}, "rigid_object": {name: {"root_pose",
        "root_velocity"}}, "deformable_object": {name: {"nodal_position", "nodal_velocity"}}}``, plus a group of
        this package, ``"cable": {name: {"body_pose", "body_velocity"}}`` (every segment, ``[num_envs, segments,
        7 or 6]``), each ``[num_envs, ...]``: poses are position [m] and ``(x, y, z, w)``, velocities linear [m/s]
        then angular [rad/s]; with *is_relative*, positions are relative to each env's origin."""
        origins = self._env_origins if is_relative else torch.zeros_like(self._env_origins)
        state: dict[str, dict[str, dict[str, torch.Tensor]]] = {
            "articulation": {},
            "rigid_object": {},
            "deformable_object": {},
            "cable": {},
        }
        for group, objects in (("articulation", self.articulations), ("rigid_object", self.rigid_objects)):
            for name, asset in objects.items():
                if not asset._per_env:
                    continue
                data = asset.data
                entry = {
                    "root_pose": torch.cat([data.root_pos_w.torch - origins, data.root_quat_w.torch], dim=-1),
                    "root_velocity": torch.cat([data.root_lin_vel_w.torch, data.root_ang_vel_w.torch], dim=-1),
                }
                if group == "articulation" and asset.num_joints:
                    entry["joint_position"] = data.joint_pos.torch.clone()
                    entry["joint_velocity"] = data.joint_vel.torch.clone()
                state[group][name] = entry
        for name, asset in self.deformable_objects.items():
            if asset._per_env:
                state["deformable_object"][name] = {
                    "nodal_position": asset.data.nodal_pos_w.torch - origins.unsqueeze(1),
                    "nodal_velocity": asset.data.nodal_vel_w.torch.clone(),
                }
        for name, asset in self.cables.items():
            if asset._per_env:
                data = asset.data
                state["cable"][name] = {
                    "body_pose": torch.cat([data.body_pos_w.torch - origins.unsqueeze(1), data.body_quat_w.torch], -1),
                    "body_velocity": torch.cat([data.body_lin_vel_w.torch, data.body_ang_vel_w.torch], dim=-1),
                }
        return state

    def reset_to(self, state: dict[str, Any], env_ids: Any = None, is_relative: bool = False) -> None:
        """Write *state* (the layout of :meth:`get_state`, each value ``[len(env_ids), ...]``) into the envs
        *env_ids* (``None``: every env) through the assets' write methods; the next step (or ``forward()``) runs
        FK and a masked solver reset of those envs. A fixed-base articulation's root is not written (it cannot
        move). With *is_relative*, positions are relative to each env's origin.

        Raises:
            KeyError: *state* names an asset the scene does not have.
        """
        ids = torch.arange(self.num_envs, device=self._env_origins.device) if env_ids is None else env_ids
        ids = torch.as_tensor(ids, device=self._env_origins.device).long().reshape(-1)
        self.check_state(state, len(ids))
        origins = self._env_origins[ids] if is_relative else torch.zeros_like(self._env_origins[ids])
        groups = self._state_groups()
        for group, entries in state.items():
            for name, values in entries.items():
                asset = groups[group][name]
                if group == "deformable_object":
                    nodal = torch.cat(
                        [values["nodal_position"] + origins.unsqueeze(1), values["nodal_velocity"]], dim=-1
                    )
                    asset.write_nodal_state_to_sim(nodal, env_ids=ids)
                    continue
                if group == "cable":
                    pose = values["body_pose"].clone()
                    pose[..., :3] += origins.unsqueeze(1)
                    asset.write_body_state_to_sim(torch.cat([pose, values["body_velocity"]], dim=-1), env_ids=ids)
                    continue
                if not getattr(asset, "is_fixed_base", False):
                    pose = values["root_pose"].clone()
                    pose[:, :3] += origins
                    asset.write_root_pose_to_sim(pose, env_ids=ids)
                    asset.write_root_velocity_to_sim(values["root_velocity"], env_ids=ids)
                if "joint_position" in values:
                    asset.write_joint_state_to_sim(values["joint_position"], values["joint_velocity"], env_ids=ids)

    def _state_groups(self) -> dict[str, dict[str, AssetBase]]:
        return {
            "articulation": self.articulations,
            "rigid_object": self.rigid_objects,
            "deformable_object": self.deformable_objects,
            "cable": self.cables,
        }

    def check_state(self, state: Any, count: int) -> None:
        """Check *state* (the layout of :meth:`get_state`) for :meth:`reset_to` into *count* envs before anything
        is written: known groups and assets, every key the asset's write needs, shapes ``[count, ...]``, finite.

        Raises:
            TypeError: *state* is not a dict of dicts of tensors.
            KeyError: An unknown group or asset, or a missing key (the message names it).
            ValueError: A wrong shape or a non-finite value.
        """
        where = "InteractiveScene.reset_to"
        if not isinstance(state, dict):
            raise TypeError(
                f"{where}: state must be a dict of groups (scene.get_state()'s layout), got {type(state).__name__}"
            )
        groups = self._state_groups()
        for group, entries in state.items():
            if group not in groups:
                raise KeyError(f"{where}: unknown state group {group!r}; expected {sorted(groups)}")
            for name, values in entries.items():
                if name not in groups[group]:
                    raise KeyError(f"{where}: the scene has no {group} {name!r}")
                asset = groups[group][name]
                if group == "deformable_object":
                    shapes = {"nodal_position": (asset.num_nodes, 3), "nodal_velocity": (asset.num_nodes, 3)}
                elif group == "cable":
                    shapes = {"body_pose": (asset.num_bodies, 7), "body_velocity": (asset.num_bodies, 6)}
                else:
                    shapes = (
                        {} if getattr(asset, "is_fixed_base", False) else {"root_pose": (7,), "root_velocity": (6,)}
                    )
                    if group == "articulation" and asset.num_joints:
                        shapes |= {"joint_position": (asset.num_joints,), "joint_velocity": (asset.num_joints,)}
                for key, shape in shapes.items():
                    if key not in values:
                        raise KeyError(f"{where}: {group} {name!r} misses {key!r} (it needs {sorted(shapes)})")
                    value = torch.as_tensor(values[key])
                    if tuple(value.shape) != (count, *shape):
                        raise ValueError(
                            f"{where}: {group} {name!r} {key} must have shape {(count, *shape)}, got {tuple(value.shape)}"
                        )
                    if not bool(torch.isfinite(value).all()):
                        raise ValueError(f"{where}: {group} {name!r} {key} holds non-finite values")

    def write_data_to_sim(self) -> None:
        """No-op: every write method writes the simulation's own arrays at once (joint and root state into the
        state with ``invalidate_fk``, targets into the control the captured step reads), so there is no buffered
        data to flush before a step."""

    def __repr__(self) -> str:
        groups = ", ".join(
            f"{label}={list(group)}"
            for label, group in zip(
                ("articulations", "rigid_objects", "deformable_objects", "cables", "sensors", "extras"),
                self._groups(),
                strict=True,
            )
            if group
        )
        return f"InteractiveScene({type(self.cfg).__name__}, num_envs={self.num_envs}, {groups})"
