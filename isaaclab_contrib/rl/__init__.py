"""Training coupled envs with rsl-rl (``rsl-rl-lib`` 5.x): runner configs and the VecEnv adapter."""

from .evaluation import evaluate_policy, policy_callable, random_policy
from .rsl_rl_cfg import (
    RslRlCnnCfg,
    RslRlCnnModelCfg,
    RslRlMlpModelCfg,
    RslRlOnPolicyRunnerCfg,
    RslRlPpoAlgorithmCfg,
    check_obs_groups,
)
from .runs import CheckpointError, check_log_root, check_path_component, create_run_dir, load_checkpoint
from .vecenv_wrapper import RslRlVecEnvWrapper

__all__ = [
    "CheckpointError",
    "RslRlCnnCfg",
    "RslRlCnnModelCfg",
    "RslRlMlpModelCfg",
    "RslRlOnPolicyRunnerCfg",
    "RslRlPpoAlgorithmCfg",
    "RslRlVecEnvWrapper",
    "check_log_root",
    "check_obs_groups",
    "check_path_component",
    "create_run_dir",
    "evaluate_policy",
    "load_checkpoint",
    "policy_callable",
    "random_policy",
]
