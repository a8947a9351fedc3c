"""Isaac Lab's manager-based envs over the coupled simulation: :class:`ManagerBasedEnv` (observations, actions,
events, recorders) and, in :mod:`.manager_based_rl_env`, :class:`ManagerBasedRLEnv` (rewards, terminations,
commands, curricula).

The env launches the scene with :func:`~isaaclab_contrib.scenes.launch` (one captured step program, as the
direct envs), wraps it in an :class:`~isaaclab_contrib.scenes.InteractiveScene` (``env.scene["robot"]``) and builds
the managers, which check every term before the first step. One env step: the action terms write their targets
once (identical in each of the ``decimation`` physics steps, which run inside one captured program); terms that
must act inside every physics step (``apply_in_physics_step``) run there as a post-actuator callback.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import torch
import warp as wp

from isaaclab_contrib.managers import ActionManager, EventManager, ObservationManager, RecorderManager
from isaaclab_contrib.physics.sensors.camera import Camera
from isaaclab_contrib.scenes import InteractiveScene, launch, make_viewport

from .direct_env import as_actions, check_seed
from .manager_based_env_cfg import ManagerBasedEnvCfg

__all__ = ["ManagerBasedEnv"]


class ManagerBasedEnv:
    """The scene, the simulation and the observation / action / event / recorder managers (Isaac Lab's
    ``ManagerBasedEnv``: no rewards or episodes; see :class:`ManagerBasedRLEnv`).

    Args:
        cfg: The env config; validated here (the scene and the simulation settings once).

    Only one env (one simulation) exists at a time; :meth:`close` ends it.
    """

    is_vector_env: ClassVar[bool] = True

    def __init__(self, cfg: ManagerBasedEnvCfg):
        if not isinstance(cfg, ManagerBasedEnvCfg):
            raise TypeError(f"{type(self).__name__}: cfg must be a ManagerBasedEnvCfg, got {type(cfg).__name__}")
        cfg.validate()
        self.cfg = cfg
        if cfg.seed is not None:
            self.seed(cfg.seed)
        self.sim = launch(cfg.scene, cfg.simulation_cfg(), list(cfg.cameras), validated=True)
        self.manager = self.sim.physics_manager
        self._viewport = None
        try:
            self.scene = InteractiveScene(cfg.scene, self.manager)
            for i, camera in enumerate(cfg.cameras):  # the env's cameras are the scene's sensors camera_0, ...
                self.scene.sensors[f"camera_{i}"] = Camera(self.manager, i, camera)
            self.device: str = str(wp.device_to_torch(self.manager.get_device()))
            self.physics_dt: float = float(cfg.sim.dt)
            self.step_dt: float = self.physics_dt * cfg.decimation
            self._sim_step_counter = 0
            self.common_step_counter = 0
            self.episode_length_buf = torch.zeros(self.num_envs, dtype=torch.long, device=self.device)
            self.extras: dict[str, Any] = {}
            self.obs_buf: dict[str, Any] = {}
            self.load_managers()
            if "startup" in self.event_manager.available_modes:  # once every manager exists (Isaac Lab's order)
                self.event_manager.apply(mode="startup")
                self._settle_writes()
            if self.action_manager.has_physics_step_terms:
                self.manager.register_post_actuator_callback(self.action_manager.apply_action_in_physics_step)
        except BaseException:
            self.sim.clear_instance()
            raise

    # ------------------------------------------------------------------ properties
    @property
    def num_envs(self) -> int:
        """Number of envs."""
        return self.scene.num_envs

    @property
    def unwrapped(self) -> ManagerBasedEnv:
        """This env (gymnasium's wrappers reach the base env through it)."""
        return self

    # ------------------------------------------------------------------ set-up
    def load_managers(self) -> None:
        """Build the managers, in Isaac Lab's order: recorder, action, observation, event (the env applies the
        ``startup`` events once every manager exists)."""
        cfg = self.cfg
        self.recorder_manager = RecorderManager(cfg.recorders, self)
        self.action_manager = ActionManager(cfg.actions, self)
        self.observation_manager = ObservationManager(cfg.observations, self)
        self.event_manager = EventManager(cfg.events, self)

    @staticmethod
    def seed(seed: int = -1) -> int:
        """Seed torch's, NumPy's, Python's and Warp's random generators with *seed* (``-1``: a random one);
        returns the seed used."""
        if seed == -1:
            seed = random.randint(0, 2**32 - 1)
        seed = check_seed(seed, "ManagerBasedEnv.seed")
        random.seed(seed)
        np.random.seed(seed % 2**32)
        torch.manual_seed(seed)
        wp.rand_init(seed % 2**32)
        return seed

    # ------------------------------------------------------------------ stepping
    def _check_open(self, what: str) -> None:
        if not self.sim.is_active():
            raise RuntimeError(f"{type(self).__name__}.{what}: the env was closed")

    @property
    def torch_device(self) -> torch.device:
        """:attr:`device` as a ``torch.device``."""
        return torch.device(self.device)

    def _as_actions(self, action: Any) -> torch.Tensor:
        """*action* as a float32 tensor ``[num_envs, total_action_dim]`` on the env's device, or a named error."""
        expected = (self.num_envs, self.action_manager.total_action_dim)
        return as_actions(action, expected, self.device, f"{type(self).__name__}.step")

    def _physics_step(self, action: torch.Tensor) -> None:
        """Process *action* and run one env step of physics (``decimation`` physics steps, one program)."""
        self.action_manager.process_action(self._as_actions(action))
        self.recorder_manager.record_pre_step()
        self.action_manager.apply_action()
        self.sim.step()
        self._sim_step_counter += self.cfg.decimation
        self.scene.update(dt=self.step_dt)
        self.recorder_manager.record_post_physics_decimation_step()

    def _settle_writes(self) -> None:
        """Make what resets and events wrote count now: FK and masked solver resets of the envs they invalidated,
        and the scene's data refreshed, so the observations that follow see it (a reset state, a push's velocity)."""
        self.manager.forward()
        self.scene.update(dt=0.0)

    def _interval_events(self) -> None:
        """Apply the ``interval`` events due after this env step, and settle what they wrote."""
        if "interval" in self.event_manager.available_modes:
            self.event_manager.apply(mode="interval", dt=self.step_dt)
            self._settle_writes()

    def step(self, action: torch.Tensor) -> tuple[dict[str, Any], dict]:
        """Apply *action* (``[num_envs, total_action_dim]``) for one env step; returns ``(obs, extras)``."""
        self._check_open("step()")
        self._physics_step(action)
        self._interval_events()
        self.obs_buf = self.observation_manager.compute(update_history=True)
        self.recorder_manager.record_post_step()
        return self.obs_buf, self.extras

    def reset(
        self, seed: int | None = None, env_ids: Sequence[int] | torch.Tensor | None = None, options: dict | None = None
    ) -> tuple[dict[str, Any], dict]:
        """Reset *env_ids* (``None``: every env); returns ``(obs, extras)``.

        Args:
            seed: Reseed the random generators first (:meth:`seed`); ``None`` keeps them running.
            env_ids: Envs to reset.
            options: Unused (gymnasium's signature).
        """
        del options
        self._check_open("reset()")
        if env_ids is None:
            env_ids = torch.arange(self.num_envs, dtype=torch.long, device=self.device)
        else:
            env_ids = self._as_env_ids(env_ids)
        self.recorder_manager.record_pre_reset(env_ids)
        if seed is not None:
            self.seed(seed)
        self._reset_idx(env_ids)
        self._settle_writes()
        self.recorder_manager.record_post_reset(env_ids)
        self.obs_buf = self.observation_manager.compute(update_history=True)
        return self.obs_buf, self.extras

    def reset_to(
        self,
        state: dict[str, Any],
        env_ids: Sequence[int] | torch.Tensor | None = None,
        seed: int | None = None,
        is_relative: bool = False,
    ) -> tuple[dict[str, Any], dict]:
        """Reset *env_ids* (``None``: every env) as :meth:`reset` does, then put their scene into *state* (the
        layout of ``scene.get_state()``, each value ``[len(env_ids), ...]``; a demonstration's ``initial_state``
        with ``is_relative=True``); returns ``(obs, extras)``. The other envs are not touched."""
        self._check_open("reset_to()")
        env_ids = torch.arange(self.num_envs, device=self.device) if env_ids is None else self._as_env_ids(env_ids)
        self.scene.check_state(state, len(env_ids))  # before the reset: a refused state changes nothing
        self.recorder_manager.record_pre_reset(env_ids)
        if seed is not None:
            self.seed(seed)
        self._reset_idx(env_ids)
        self.scene.reset_to(state, env_ids, is_relative=is_relative)
        self._settle_writes()
        self.recorder_manager.record_post_reset(env_ids)
        self.obs_buf = self.observation_manager.compute(update_history=True)
        return self.obs_buf, self.extras

    # ------------------------------------------------------------------ checkpoints
    def save_state(self) -> dict[str, Any]:
        """A checkpoint of the env: the simulation's (``NewtonManager.save_state()``) and the env's own state
        (episode lengths, step counters, every manager's tensors: actions, commands, histories, episode sums,
        timers, and the random generators of torch, NumPy and Python). :meth:`restore_state` puts it back, and
        the following steps repeat bitwise."""
        self._check_open("save_state()")
        return {
            "simulation": self.manager.save_state(),
            "counters": (self._sim_step_counter, self.common_step_counter),
            "tensors": {path: t.clone() for path, t in _env_tensors(self).items()},
            "random": (torch.get_rng_state(), np.random.get_state(), random.getstate()),
        }

    def restore_state(self, state: dict[str, Any]) -> None:
        """Put back a checkpoint of :meth:`save_state` (of this env, or of one built from the same config).

        Raises:
            TypeError / ValueError: Not a checkpoint of this env (the message names what differs).
        """
        self._check_open("restore_state()")
        if not isinstance(state, dict) or set(state) != {"simulation", "counters", "tensors", "random"}:
            raise TypeError(f"{type(self).__name__}.restore_state: expected a checkpoint of save_state()")
        tensors = _env_tensors(self)
        wrong = sorted(p for p, t in state["tensors"].items() if p not in tensors or tensors[p].shape != t.shape)
        if wrong or set(tensors) != set(state["tensors"]):
            raise ValueError(
                f"{type(self).__name__}.restore_state: the checkpoint is of another env (e.g. {wrong[:3]})"
            )
        self.manager.restore_state(state["simulation"])
        # Steps run under torch.inference_mode() (policy evaluation, rsl-rl's rollouts) may have replaced some of
        # the env's tensors with inference tensors, which take an in-place copy only inside that mode.
        with torch.inference_mode():
            for path, value in state["tensors"].items():
                tensors[path].copy_(value)
        self._sim_step_counter, self.common_step_counter = state["counters"]
        torch_state, numpy_state, python_state = state["random"]
        torch.set_rng_state(torch_state)
        np.random.set_state(numpy_state)
        random.setstate(python_state)
        self.scene.update(dt=0.0)

    def _as_env_ids(self, env_ids: Any) -> torch.Tensor:
        ids = torch.as_tensor(env_ids, device=self.device).reshape(-1)
        if ids.dtype.is_floating_point or ids.dtype == torch.bool:
            raise TypeError(f"{type(self).__name__}: env_ids must be integers, got {ids.dtype}")
        ids = ids.long()
        bad = ids[(ids < 0) | (ids >= self.num_envs)]
        if bad.numel():
            raise ValueError(f"{type(self).__name__}: env_ids {bad.tolist()} are out of range [0, {self.num_envs})")
        return ids

    def _reset_idx(self, env_ids: torch.Tensor) -> None:
        """Reset the scene, apply the ``reset`` events and reset the managers of *env_ids*."""
        self.scene.reset(env_ids)
        if "reset" in self.event_manager.available_modes:
            env_step_count = self._sim_step_counter // self.cfg.decimation
            self.event_manager.apply(mode="reset", env_ids=env_ids, global_env_step_count=env_step_count)
        self.extras["log"] = {}
        for manager in (self.observation_manager, self.action_manager, self.event_manager, self.recorder_manager):
            self.extras["log"].update(manager.reset(env_ids))

    # ------------------------------------------------------------------ rendering and closing
    def _render_frame(self) -> np.ndarray:
        if self._viewport is None:
            self._viewport = make_viewport(self.manager, self.cfg.viewer, self.cfg.scene)
        return self._viewport.render(self.manager.get_state_0())

    def close(self) -> None:
        """Close the dataset files and the simulation, and clear the manager (a no-op when already closed)."""
        recorder = getattr(self, "recorder_manager", None)
        if recorder is not None:
            recorder.close()
        self.sim.clear_instance()


def _env_tensors(env: ManagerBasedEnv) -> dict[str, torch.Tensor]:
    """Every torch tensor the env and its managers and terms hold, by path (``"command_manager._terms.depth.target"``):
    what an env checkpoint saves besides the simulation."""
    found: dict[str, torch.Tensor] = {"episode_length_buf": env.episode_length_buf}
    seen: set[int] = set()

    def visit(value: Any, path: str, depth: int) -> None:
        if isinstance(value, torch.Tensor):
            if path not in found and all(value is not t for t in found.values()):
                found[path] = value
            return
        if depth > 8 or id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, dict):
            for k, v in value.items():
                visit(v, f"{path}.{k}", depth + 1)
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                visit(v, f"{path}.{i}", depth + 1)
        elif hasattr(value, "__dict__") and not isinstance(value, type):
            module = type(value).__module__ or ""
            if module.startswith(("isaaclab_contrib.managers", "isaaclab_contrib.envs", "isaaclab_coupling_configs")):
                for k, v in vars(value).items():
                    if k not in ("_env", "cfg"):
                        visit(v, f"{path}.{k}", depth + 1)

    names = ("action", "observation", "event", "command", "reward", "termination", "curriculum")  # not the recordings
    for name in names:
        manager = getattr(env, f"{name}_manager", None)
        if manager is not None:
            visit(manager, f"{name}_manager", 0)
    return found


def _max_episode_length(episode_length_s: float, step_dt: float) -> int:
    """Env steps of an episode of *episode_length_s* [s] at *step_dt* [s] (Isaac Lab's ceiling)."""
    return max(1, math.ceil(episode_length_s / step_dt))
