"""Evaluation of policies on a coupled direct env: fair mean returns over whole episodes.

A policy here is ``obs -> actions``, where *obs* is what the env returns: one tensor ``[num_envs,
num_observations]`` or a dict of observation groups (e.g. ``{"policy": [num_envs, D], "camera": [num_envs, C,
H, W]}``). :func:`policy_callable` turns rsl-rl's inference policy (which takes a ``TensorDict`` of groups) into
such a function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import torch
from tensordict import TensorDict

from isaaclab_contrib.envs import CoupledDirectEnv, ManagerBasedRLEnv, check_seed

__all__ = ["evaluate_policy", "policy_callable", "random_policy"]

Observations = torch.Tensor | Mapping[str, torch.Tensor]
"""One tensor ``[num_envs, num_observations]`` or a dict (or ``TensorDict``) of groups ``[num_envs, ...]``."""
Policy = Callable[[Observations], torch.Tensor]


def evaluate_policy(
    env: CoupledDirectEnv | ManagerBasedRLEnv, policy: Policy, episodes_per_env: int = 1, seed: int | None = None
) -> dict:
    """Mean and standard deviation of the return of *policy* over ``episodes_per_env`` episodes of every env.

    All envs are reset first (reseeded with *seed* when given); each env then contributes exactly its
    first ``episodes_per_env`` finished episodes, so envs that fail early do not weigh more.

    Args:
        env: The env (its ``unwrapped`` when a gymnasium wrapper is given).
        policy: ``obs -> actions [num_envs, num_actions]``; *obs* is what the env returns (a tensor
            ``[num_envs, num_observations]`` or a dict of groups).
        episodes_per_env: Episodes counted per env (>= 1).
        seed: Reseed of the env's reset draws; ``None`` keeps its generator running.

    Returns:
        ``{"mean": float, "std": float, "episodes": int, "env_steps": int}``.
    """
    env = getattr(env, "unwrapped", env)
    if isinstance(episodes_per_env, bool) or not isinstance(episodes_per_env, int) or episodes_per_env < 1:
        raise ValueError(f"evaluate_policy: episodes_per_env must be an integer >= 1, got {episodes_per_env!r}")
    obs, _ = env.reset(seed=seed)
    returns: list[list[float]] = [[] for _ in range(env.num_envs)]
    running = None
    steps = 0
    with torch.inference_mode():
        while min(len(r) for r in returns) < episodes_per_env:
            obs, reward, terminated, truncated, _ = env.step(policy(obs))
            steps += 1
            running = reward.clone() if running is None else running + reward  # float32, as the envs sum them
            done = torch.nonzero(terminated | truncated).squeeze(-1)
            if done.numel():
                for env_id, value in zip(done.tolist(), running[done].tolist(), strict=True):
                    returns[env_id].append(value)
                running[done] = 0.0
    values = [v for r in returns for v in r[:episodes_per_env]]
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    return {"mean": mean, "std": std, "episodes": len(values), "env_steps": steps * env.num_envs}


def random_policy(env: CoupledDirectEnv | ManagerBasedRLEnv, seed: int = 0) -> Policy:
    """Uniform random actions in [-1, 1] from a generator seeded with *seed* (an integer in ``[0, 2**64 - 1]``)."""
    env = getattr(env, "unwrapped", env)
    seed = check_seed(seed, "random_policy")
    generator = torch.Generator().manual_seed(0 if seed is None else seed)

    def act(obs: Observations) -> torch.Tensor:
        return (torch.rand(env.num_envs, env.num_actions, generator=generator) * 2.0 - 1.0).to(_device_of(obs))

    return act


def policy_callable(policy: Callable[[TensorDict], torch.Tensor], num_envs: int) -> Policy:
    """rsl-rl's inference policy (``runner.get_inference_policy()``: it takes a ``TensorDict`` of observation
    groups) as ``obs -> actions``, for :func:`evaluate_policy` and the scripts.

    A tensor observation becomes the group ``"policy"`` (what :class:`~isaaclab_contrib.rl.RslRlVecEnvWrapper`
    gives rsl-rl for it); a dict (or ``TensorDict``) of groups keeps its group names.

    Args:
        policy: The inference policy (or any callable taking a ``TensorDict`` with batch size ``[num_envs]``).
        num_envs: Number of envs (the batch size) [count].

    Raises:
        ValueError: *num_envs* is not an integer >= 1.
        TypeError: (when called) the observation is neither a tensor nor a non-empty dict of tensors.
    """
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"policy_callable: num_envs must be an integer >= 1, got {num_envs!r}")

    def act(obs: Observations) -> torch.Tensor:
        if isinstance(obs, torch.Tensor):
            groups: dict[str, Any] = {"policy": obs}
        elif isinstance(obs, (Mapping, TensorDict)) and len(obs):
            groups = dict(obs.items())
        else:
            raise TypeError(
                f"policy_callable: observations must be a tensor or a non-empty dict of group tensors, got "
                f"{type(obs).__name__}"
            )
        return policy(TensorDict(groups, batch_size=[num_envs], device=_device_of(obs)))

    return act


def _device_of(obs: Observations) -> torch.device:
    """The device of an observation tensor, or of the first group of a dict of groups."""
    if isinstance(obs, torch.Tensor):
        return obs.device
    return next(iter(obs.values())).device
