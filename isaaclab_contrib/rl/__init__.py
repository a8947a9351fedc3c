"""A compact PPO for the vectorized coupled envs."""

from .ppo import PPO, PPOCfg

__all__ = ["PPO", "PPOCfg"]
