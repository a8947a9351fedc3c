"""Direct-workflow RL environments over the coupled manager."""

from .direct_env import CoupledDirectEnv, CoupledDirectEnvCfg

__all__ = ["CoupledDirectEnv", "CoupledDirectEnvCfg"]
