"""Compact proximal policy optimization (clipped objective, GAE) in torch, for vectorized envs.

Written for the small continuous-control tasks of this package: a Gaussian MLP policy with a
state-independent log standard deviation, a separate MLP value function, running observation
normalization, and rollouts of ``num_steps`` env steps over all envs per update.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from isaaclab_contrib.utils.configclass import configclass

__all__ = ["PPO", "PPOCfg", "RunningNorm"]


@configclass
class PPOCfg:
    """PPO hyperparameters."""

    num_steps: int = 32
    """Env steps per rollout (per env) [count]."""
    epochs: int = 5
    """Optimization passes over each rollout [count]."""
    minibatches: int = 4
    """Minibatches per pass [count]."""
    learning_rate: float = 1.0e-3
    """Adam learning rate."""
    gamma: float = 0.98
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip: float = 0.2
    """Policy ratio clip range."""
    value_coef: float = 0.5
    """Weight of the value loss."""
    entropy_coef: float = 0.0
    """Weight of the entropy bonus."""
    max_grad_norm: float = 1.0
    """Gradient norm clip."""
    hidden: int = 64
    """Hidden units per layer (two layers)."""
    init_log_std: float = -0.5
    """Initial log standard deviation of the actions."""


class RunningNorm(nn.Module):
    """Running mean / variance observation normalizer (saved with the checkpoint)."""

    def __init__(self, size: int):
        super().__init__()
        self.register_buffer("mean", torch.zeros(size))
        self.register_buffer("var", torch.ones(size))
        self.register_buffer("count", torch.tensor(1.0e-4))

    def update(self, x: torch.Tensor) -> None:
        batch_mean, batch_var, n = x.mean(0), x.var(0, unbiased=False), x.shape[0]
        delta = batch_mean - self.mean
        total = self.count + n
        self.mean += delta * n / total
        self.var = (self.var * self.count + batch_var * n + delta**2 * self.count * n / total) / total
        self.count = total

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ((x - self.mean) / torch.sqrt(self.var + 1.0e-8)).clamp(-10.0, 10.0)


def _mlp(inputs: int, outputs: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, outputs)
    )


class ActorCritic(nn.Module):
    def __init__(self, num_obs: int, num_act: int, cfg: PPOCfg):
        super().__init__()
        self.norm = RunningNorm(num_obs)
        self.actor = _mlp(num_obs, num_act, cfg.hidden)
        self.critic = _mlp(num_obs, 1, cfg.hidden)
        self.log_std = nn.Parameter(torch.full((num_act,), cfg.init_log_std))

    def dist(self, obs: torch.Tensor) -> torch.distributions.Normal:
        return torch.distributions.Normal(self.actor(self.norm(obs)), self.log_std.exp())

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(self.norm(obs)).squeeze(-1)

    def act(self, obs: torch.Tensor, deterministic: bool = False) -> torch.Tensor:
        with torch.no_grad():
            d = self.dist(obs)
            return d.mean if deterministic else d.sample()


class PPO:
    """Collect rollouts from a vectorized env and update the actor-critic."""

    def __init__(self, env: Any, cfg: PPOCfg, seed: int = 0):
        torch.manual_seed(seed)
        self.env, self.cfg = env, cfg
        self.model = ActorCritic(env.num_observations, env.num_actions, cfg)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.learning_rate)
        self.obs, _ = env.reset(seed=seed)

    def collect(self) -> tuple[dict[str, torch.Tensor], list[float]]:
        """Run ``num_steps`` env steps; returns the rollout and the returns of finished episodes."""
        n, t = self.env.num_envs, self.cfg.num_steps
        buf = {
            "obs": torch.zeros(t, n, self.env.num_observations),
            "act": torch.zeros(t, n, self.env.num_actions),
            "logp": torch.zeros(t, n),
            "val": torch.zeros(t, n),
            "rew": torch.zeros(t, n),
            "done": torch.zeros(t, n),
            "bootstrap": torch.zeros(t, n),
        }
        finished: list[float] = []
        for step in range(t):
            obs = self.obs.detach().cpu()
            self.model.norm.update(obs)
            with torch.no_grad():
                dist = self.model.dist(obs)
                action = dist.sample()
                buf["logp"][step] = dist.log_prob(action).sum(-1)
                buf["val"][step] = self.model.value(obs)
            next_obs, reward, terminated, truncated, extras = self.env.step(action)
            buf["obs"][step], buf["act"][step] = obs, action
            buf["rew"][step] = reward.detach().cpu()
            buf["done"][step] = (terminated | truncated).float().cpu()
            if "episode" in extras:
                finished.extend(extras["episode"]["return"].cpu().tolist())
                # Truncated episodes bootstrap from the value of their final observation.
                trunc_ids = torch.nonzero(truncated[extras["episode"]["env_ids"]].cpu()).squeeze(-1)
                if trunc_ids.numel():
                    envs = extras["episode"]["env_ids"].cpu()[trunc_ids]
                    with torch.no_grad():
                        final = extras["final_observation"].cpu()[trunc_ids]
                        buf["bootstrap"][step, envs] = self.cfg.gamma * self.model.value(final)
            self.obs = next_obs
        with torch.no_grad():
            last_value = self.model.value(self.obs.detach().cpu())
        advantages = torch.zeros(t, n)
        gae = torch.zeros(n)
        for step in reversed(range(t)):
            next_value = last_value if step == t - 1 else buf["val"][step + 1]
            not_done = 1.0 - buf["done"][step]
            reward = buf["rew"][step] + buf["bootstrap"][step]
            delta = reward + self.cfg.gamma * next_value * not_done - buf["val"][step]
            gae = delta + self.cfg.gamma * self.cfg.gae_lambda * not_done * gae
            advantages[step] = gae
        buf["adv"] = advantages
        buf["ret"] = advantages + buf["val"]
        return buf, finished

    def update(self, buf: dict[str, torch.Tensor]) -> dict[str, float]:
        """PPO epochs over the rollout; returns mean losses."""
        flat = {k: v.reshape(-1, *v.shape[2:]) for k, v in buf.items()}
        adv = (flat["adv"] - flat["adv"].mean()) / (flat["adv"].std() + 1.0e-8)
        size = adv.shape[0]
        batch = max(1, size // self.cfg.minibatches)
        stats = {"policy": 0.0, "value": 0.0, "entropy": 0.0}
        count = 0
        for _ in range(self.cfg.epochs):
            for idx in torch.randperm(size).split(batch):
                dist = self.model.dist(flat["obs"][idx])
                logp = dist.log_prob(flat["act"][idx]).sum(-1)
                ratio = (logp - flat["logp"][idx]).exp()
                policy_loss = -torch.min(
                    ratio * adv[idx], ratio.clamp(1.0 - self.cfg.clip, 1.0 + self.cfg.clip) * adv[idx]
                ).mean()
                value_loss = (self.model.value(flat["obs"][idx]) - flat["ret"][idx]).pow(2).mean()
                entropy = dist.entropy().sum(-1).mean()
                loss = policy_loss + self.cfg.value_coef * value_loss - self.cfg.entropy_coef * entropy
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_grad_norm)
                self.optimizer.step()
                stats["policy"] += policy_loss.item()
                stats["value"] += value_loss.item()
                stats["entropy"] += entropy.item()
                count += 1
        return {k: v / count for k, v in stats.items()}

    def save(self, path: str, extra: dict | None = None) -> None:
        torch.save({"model": self.model.state_dict(), "cfg": self.cfg.to_dict(), **(extra or {})}, path)
