"""Direct-workflow RL environments over the coupled manager, and task ids (gymnasium registrations)."""

from .direct_env import CoupledDirectEnv, CoupledDirectEnvCfg
from .registry import load_cfg_from_registry, register_task, resolve_entry_point

__all__ = ["CoupledDirectEnv", "CoupledDirectEnvCfg", "load_cfg_from_registry", "register_task", "resolve_entry_point"]
