"""Direct-workflow RL environments over the coupled manager, and task ids (gymnasium registrations)."""

from .direct_env import SEED_MAX, SEED_RANGE, CoupledDirectEnv, CoupledDirectEnvCfg, check_seed
from .registry import check_env_cfg, check_task_cfg, load_cfg_from_registry, register_task, resolve_entry_point

__all__ = [
    "SEED_MAX",
    "SEED_RANGE",
    "CoupledDirectEnv",
    "CoupledDirectEnvCfg",
    "check_env_cfg",
    "check_seed",
    "check_task_cfg",
    "load_cfg_from_registry",
    "register_task",
    "resolve_entry_point",
]
