"""Isaac Lab's ``ManagerBasedRLEnv`` over the coupled simulation: episodes, rewards, terminations, commands and
curricula on top of :class:`~isaaclab_contrib.envs.ManagerBasedEnv`, as a gymnasium vector env."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import torch

from isaaclab_contrib.managers import CommandManager, CurriculumManager, RewardManager, TerminationManager

from .manager_based_env import ManagerBasedEnv, _max_episode_length
from .manager_based_env_cfg import ManagerBasedRLEnvCfg

__all__ = ["ManagerBasedRLEnv"]


class ManagerBasedRLEnv(ManagerBasedEnv, gym.Env):
    """A manager-based RL env with Isaac Lab's step order.

    ``step(action)``: process the action; the decimation loop (one captured program; the action terms' targets
    written before it); episode counters; terminations; rewards (``weight * dt`` per term); reset of the envs
    that finished (curriculum, scene, ``reset`` events, managers); commands; ``interval`` events;
    observations. Returns ``(obs, reward, terminated, truncated, extras)`` with ``extras["log"]`` holding the
    managers' episode logs of the envs reset in this step (``Episode_Reward/<term>``,
    ``Episode_Termination/<term>``, ``Metrics/<command>/<metric>``, ``Curriculum/<term>``).

    Args:
        cfg: The env config; ``None`` loads it from the ``env_cfg_entry_point`` of the task's registration (given
            by ``gymnasium.make``).
        render_mode: ``None`` or ``"rgb_array"`` (:meth:`render` returns the viewer's frame).
        **kwargs: The ``*_entry_point`` keys of a gymnasium registration (ignored otherwise).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [None, "rgb_array"], "render_fps": 30}

    def __init__(self, cfg: ManagerBasedRLEnvCfg | None = None, render_mode: str | None = None, **kwargs: Any):
        from .registry import env_cfg_from_arguments

        cfg = env_cfg_from_arguments(type(self).__name__, cfg, render_mode, self.metadata["render_modes"], kwargs)
        if not isinstance(cfg, ManagerBasedRLEnvCfg):
            raise TypeError(f"{type(self).__name__}: cfg must be a ManagerBasedRLEnvCfg, got {type(cfg).__name__}")
        self.render_mode = render_mode
        super().__init__(cfg)
        self.metadata = {**self.metadata, "render_fps": 1.0 / self.step_dt}
        try:
            self._configure_gym_env_spaces()
        except BaseException:
            self.sim.clear_instance()
            raise

    @property
    def max_episode_length_s(self) -> float:
        """Episode length [s]."""
        return self.cfg.episode_length_s

    @property
    def max_episode_length(self) -> int:
        """Episode length [env steps]."""
        return _max_episode_length(self.cfg.episode_length_s, self.step_dt)

    @property
    def num_actions(self) -> int:
        """Width of the action (the action terms' dimensions summed)."""
        return self.action_manager.total_action_dim

    def load_managers(self) -> None:
        """Build the managers in Isaac Lab's order: command (observations may read commands), then recorder,
        action, observation, event, then termination, reward, curriculum."""
        self.command_manager = CommandManager(self.cfg.commands, self)
        super().load_managers()
        self.termination_manager = TerminationManager(self.cfg.terminations, self)
        self.reward_manager = RewardManager(self.cfg.rewards, self)
        self.curriculum_manager = CurriculumManager(self.cfg.curriculum, self)
        self.reset_buf = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        self.reset_terminated = torch.zeros_like(self.reset_buf)
        self.reset_time_outs = torch.zeros_like(self.reset_buf)
        self.reward_buf = torch.zeros(self.num_envs, dtype=torch.float32, device=self.device)

    def _configure_gym_env_spaces(self) -> None:
        spaces = {}
        for group, terms in self.observation_manager.active_terms.items():
            dims = self.observation_manager.group_obs_dim[group]
            if self.observation_manager.group_obs_concatenate[group]:
                spaces[group] = gym.spaces.Box(-np.inf, np.inf, tuple(dims), np.float32)
            else:
                spaces[group] = gym.spaces.Dict(
                    {
                        term: gym.spaces.Box(-np.inf, np.inf, tuple(dim), np.float32)
                        for term, dim in zip(terms, dims, strict=True)
                    }
                )
        self.single_observation_space = gym.spaces.Dict(spaces)
        self.single_action_space = gym.spaces.Box(-np.inf, np.inf, (self.num_actions,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)

    def step(self, action: torch.Tensor) -> tuple[dict[str, Any], torch.Tensor, torch.Tensor, torch.Tensor, dict]:
        """Apply *action* for one env step; returns ``(obs, reward, terminated, truncated, extras)``."""
        self._check_open("step()")
        self._physics_step(action)
        self.episode_length_buf += 1
        self.common_step_counter += 1
        self.reset_buf = self.termination_manager.compute()
        self.reset_terminated = self.termination_manager.terminated
        self.reset_time_outs = self.termination_manager.time_outs
        self.reward_buf = self.reward_manager.compute(dt=self.step_dt)
        if self.recorder_manager.active_terms:
            self.obs_buf = self.observation_manager.compute()
            self.recorder_manager.record_post_step()
        self.extras = {}
        reset_env_ids = self.reset_buf.nonzero(as_tuple=False).squeeze(-1)
        if len(reset_env_ids) > 0:
            self.recorder_manager.record_pre_reset(reset_env_ids)
            self._reset_idx(reset_env_ids)
            self._settle_writes()
            self.recorder_manager.record_post_reset(reset_env_ids)
        self.command_manager.compute(dt=self.step_dt)
        self._interval_events()
        self.obs_buf = self.observation_manager.compute(update_history=True)
        return self.obs_buf, self.reward_buf, self.reset_terminated, self.reset_time_outs, self.extras

    def _reset_idx(self, env_ids: torch.Tensor) -> None:
        """Curriculum, scene, ``reset`` events and every manager of *env_ids*; their logs go to ``extras["log"]``."""
        self.curriculum_manager.compute(env_ids=env_ids)
        super()._reset_idx(env_ids)
        log = self.extras["log"]
        for manager in (
            self.reward_manager,
            self.curriculum_manager,
            self.command_manager,
            self.termination_manager,
        ):
            log.update(manager.reset(env_ids))
        self.episode_length_buf[env_ids] = 0

    def render(self) -> np.ndarray | None:
        """The viewer's RGB ``uint8`` frame ``(height, width, 3)`` of the last step; ``None`` without
        ``render_mode="rgb_array"``. Rendered when asked, outside the captured step."""
        self._check_open("render()")
        if self.render_mode != "rgb_array":
            return None
        return self._render_frame()
