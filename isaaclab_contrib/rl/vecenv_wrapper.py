"""Adapter that lets ``rsl_rl.runners.OnPolicyRunner`` (``rsl-rl-lib`` 5.x) train a coupled direct env.

rsl-rl expects its :class:`rsl_rl.env.VecEnv` interface: observations as a ``TensorDict`` of groups,
``step()`` returning ``(obs, rewards, dones, extras)`` with ``extras["time_outs"]``, and a writable
``episode_length_buf``. :class:`RslRlVecEnvWrapper` presents a
:class:`~isaaclab_contrib.envs.CoupledDirectEnv` or a :class:`~isaaclab_contrib.envs.ManagerBasedRLEnv` (or a
gymnasium wrapper around one) that way, like Isaac Lab's wrapper of the same name; a manager-based env's
``extras["log"]`` (its managers' episode logs) is passed through. An env whose observations are one tensor gives the group
``"policy"``; an env whose observations are a dict of groups (e.g. ``{"policy": (num_envs, D), "camera":
(num_envs, C, H, W)}``) gives those groups under their own names, for rsl-rl's ``obs_groups`` to route.
"""

from __future__ import annotations

from typing import Any

import torch
from rsl_rl.env import VecEnv
from tensordict import TensorDict

from isaaclab_contrib.envs import CoupledDirectEnv, ManagerBasedRLEnv

__all__ = ["RslRlVecEnvWrapper"]


class RslRlVecEnvWrapper(VecEnv):
    """rsl-rl's VecEnv over a coupled direct env (autoreset, time-outs and episode logs passed through).

    Args:
        env: The env, or a gymnasium wrapper whose ``unwrapped`` is one (``gymnasium.make`` output).
        clip_actions: Clip actions to ``[-clip_actions, clip_actions]`` before the env sees them;
            ``None`` leaves them (the env clips to [-1, 1] itself).
    """

    def __init__(self, env: Any, clip_actions: float | None = None):
        unwrapped = getattr(env, "unwrapped", env)
        if not isinstance(unwrapped, (CoupledDirectEnv, ManagerBasedRLEnv)):
            raise TypeError(
                "RslRlVecEnvWrapper: env must be a CoupledDirectEnv or a ManagerBasedRLEnv (or a gymnasium wrapper of "
                f"one), got {type(unwrapped).__name__}"
            )
        if clip_actions is not None and not clip_actions > 0:
            raise ValueError(f"RslRlVecEnvWrapper: clip_actions must be > 0 or None, got {clip_actions!r}")
        self.env = env
        self.unwrapped = unwrapped
        self.clip_actions = clip_actions
        self.num_envs = unwrapped.num_envs
        self.num_actions = unwrapped.num_actions
        self.max_episode_length = unwrapped.max_episode_length
        self.device = unwrapped.torch_device
        self.cfg = unwrapped.cfg
        self._obs, _ = unwrapped.reset()

    @property
    def episode_length_buf(self) -> torch.Tensor:
        """Env steps of each env's current episode (rsl-rl may write it to spread the first time-outs).

        A write goes through :attr:`CoupledDirectEnv.episode_length_buf`: an integer tensor of shape
        ``[num_envs]`` with entries in ``[0, max_episode_length - 1]``, else a named error and nothing written.
        """
        return self.unwrapped.episode_length_buf

    @episode_length_buf.setter
    def episode_length_buf(self, value: torch.Tensor) -> None:
        self.unwrapped.episode_length_buf = value

    @property
    def observation_groups(self) -> list[str]:
        """Names of the observation groups the env produces (``["policy"]`` for a tensor observation)."""
        return list(self._group(self._obs).keys())

    def get_observations(self) -> TensorDict:
        """The current observations: ``TensorDict(policy=[num_envs, num_observations])`` for a tensor, or the env's
        groups under their names for a dict of groups."""
        return self._group(self._obs)

    def reset(self) -> TensorDict:
        """Reset every env and return the observations."""
        self._obs, _ = self.unwrapped.reset()
        return self._group(self._obs)

    def step(self, actions: torch.Tensor) -> tuple[TensorDict, torch.Tensor, torch.Tensor, dict]:
        """One env step; ``dones`` = terminated or truncated, ``extras["time_outs"]`` = truncated."""
        if self.clip_actions is not None:
            # The env's own checks first (type, dtype, shape), so a bad input is named the same way here.
            actions = self.unwrapped._as_actions(actions).clamp(-self.clip_actions, self.clip_actions)
        obs, reward, terminated, truncated, info = self.unwrapped.step(actions)
        self._obs = obs
        extras: dict[str, Any] = {"time_outs": truncated}
        if "log" in info:
            extras["log"] = dict(info["log"])
        episode = info.get("episode")
        if episode is not None:
            extras["log"] = {
                "/episode_return": episode["return"].float().mean(),
                "/episode_length": episode["length"].float().mean(),
            }
        return self._group(obs), reward, terminated | truncated, extras

    def close(self) -> None:
        """Close the env (and its simulation)."""
        self.env.close()

    def _group(self, obs: torch.Tensor | dict[str, torch.Tensor]) -> TensorDict:
        if isinstance(obs, torch.Tensor):
            return TensorDict({"policy": obs}, batch_size=[self.num_envs], device=self.device)
        if not isinstance(obs, (dict, TensorDict)) or not len(obs):
            raise TypeError(
                f"RslRlVecEnvWrapper: {type(self.unwrapped).__name__}'s observations must be a tensor or a non-empty dict "
                f"of group tensors, got {type(obs).__name__}"
            )
        return TensorDict(dict(obs.items()), batch_size=[self.num_envs], device=self.device)
