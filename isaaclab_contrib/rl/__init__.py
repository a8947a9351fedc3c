"""Training coupled envs with rsl-rl (``rsl-rl-lib`` 5.x): runner configs and the VecEnv adapter."""

from .evaluation import evaluate_policy, random_policy
from .rsl_rl_cfg import RslRlMlpModelCfg, RslRlOnPolicyRunnerCfg, RslRlPpoAlgorithmCfg
from .vecenv_wrapper import RslRlVecEnvWrapper

__all__ = [
    "RslRlMlpModelCfg",
    "RslRlOnPolicyRunnerCfg",
    "RslRlPpoAlgorithmCfg",
    "RslRlVecEnvWrapper",
    "evaluate_policy",
    "random_policy",
]
