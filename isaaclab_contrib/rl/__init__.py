"""Training coupled envs with rsl-rl (``rsl-rl-lib`` 5.x): runner configs and the VecEnv adapter."""

from .evaluation import evaluate_policy, random_policy
from .rsl_rl_cfg import RslRlMlpModelCfg, RslRlOnPolicyRunnerCfg, RslRlPpoAlgorithmCfg
from .runs import CheckpointError, check_log_root, check_path_component, create_run_dir, load_checkpoint
from .vecenv_wrapper import RslRlVecEnvWrapper

__all__ = [
    "CheckpointError",
    "RslRlMlpModelCfg",
    "RslRlOnPolicyRunnerCfg",
    "RslRlPpoAlgorithmCfg",
    "RslRlVecEnvWrapper",
    "check_log_root",
    "check_path_component",
    "create_run_dir",
    "evaluate_policy",
    "load_checkpoint",
    "random_policy",
]
