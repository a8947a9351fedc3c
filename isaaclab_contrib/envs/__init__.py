"""RL environments over the coupled manager: the direct workflow (:class:`CoupledDirectEnv`), Isaac Lab's
manager-based workflow (:class:`ManagerBasedEnv`, :class:`ManagerBasedRLEnv` and the term library :mod:`.mdp`),
and task ids (gymnasium registrations)."""

from .direct_env import SEED_MAX, SEED_RANGE, CoupledDirectEnv, CoupledDirectEnvCfg, check_seed
from .env_cfg_base import CoupledEnvCfgBase
from .manager_based_env import ManagerBasedEnv
from .manager_based_env_cfg import DefaultEventManagerCfg, ManagerBasedEnvCfg, ManagerBasedRLEnvCfg
from .manager_based_rl_env import ManagerBasedRLEnv
from .registry import check_env_cfg, check_task_cfg, load_cfg_from_registry, register_task, resolve_entry_point

__all__ = [
    "SEED_MAX",
    "SEED_RANGE",
    "CoupledDirectEnv",
    "CoupledDirectEnvCfg",
    "CoupledEnvCfgBase",
    "DefaultEventManagerCfg",
    "ManagerBasedEnv",
    "ManagerBasedEnvCfg",
    "ManagerBasedRLEnv",
    "ManagerBasedRLEnvCfg",
    "check_env_cfg",
    "check_seed",
    "check_task_cfg",
    "load_cfg_from_registry",
    "register_task",
    "resolve_entry_point",
]
