"""Evaluation of policies on a coupled direct env: fair mean returns over whole episodes."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from isaaclab_contrib.envs import CoupledDirectEnv, check_seed

__all__ = ["evaluate_policy", "random_policy"]

Policy = Callable[[torch.Tensor], torch.Tensor]


def evaluate_policy(env: CoupledDirectEnv, policy: Policy, episodes_per_env: int = 1, seed: int | None = None) -> dict:
    """Mean and standard deviation of the return of *policy* over ``episodes_per_env`` episodes of every env.

    All envs are reset first (reseeded with *seed* when given); each env then contributes exactly its
    first ``episodes_per_env`` finished episodes, so envs that fail early do not weigh more.

    Args:
        env: The env (its ``unwrapped`` when a gymnasium wrapper is given).
        policy: ``obs [num_envs, num_observations] -> actions [num_envs, num_actions]``.
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
    steps = 0
    with torch.inference_mode():
        while min(len(r) for r in returns) < episodes_per_env:
            obs, _, _, _, extras = env.step(policy(obs))
            steps += 1
            episode = extras.get("episode")
            if episode is not None:
                for env_id, value in zip(episode["env_ids"].tolist(), episode["return"].tolist(), strict=True):
                    returns[env_id].append(value)
    values = [v for r in returns for v in r[:episodes_per_env]]
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    return {"mean": mean, "std": std, "episodes": len(values), "env_steps": steps * env.num_envs}


def random_policy(env: CoupledDirectEnv, seed: int = 0) -> Policy:
    """Uniform random actions in [-1, 1] from a generator seeded with *seed* (an integer in ``[0, 2**64 - 1]``)."""
    env = getattr(env, "unwrapped", env)
    seed = check_seed(seed, "random_policy")
    generator = torch.Generator().manual_seed(0 if seed is None else seed)

    def act(obs: torch.Tensor) -> torch.Tensor:
        return (torch.rand(env.num_envs, env.num_actions, generator=generator) * 2.0 - 1.0).to(obs.device)

    return act
