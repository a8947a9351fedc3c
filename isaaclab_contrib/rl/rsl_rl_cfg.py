"""Isaac Lab-style config classes for training with rsl-rl (``rsl-rl-lib`` 5.x).

A task names its runner config (:class:`RslRlOnPolicyRunnerCfg`) in its gymnasium registration
(``rsl_rl_cfg_entry_point``); :meth:`RslRlOnPolicyRunnerCfg.to_rsl_rl` turns it into the dictionary
``rsl_rl.runners.OnPolicyRunner`` takes. The fields mirror rsl-rl's own argument names.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Literal

from isaaclab_contrib.envs import SEED_RANGE
from isaaclab_contrib.utils.configclass import check_missing, configclass
from isaaclab_contrib.utils.validation import check_fields

from .runs import check_path_component

__all__ = ["RslRlMlpModelCfg", "RslRlOnPolicyRunnerCfg", "RslRlPpoAlgorithmCfg"]


@configclass
class RslRlMlpModelCfg:
    """An MLP actor or critic (``rsl_rl.models.MLPModel``)."""

    _ranges: ClassVar[dict[str, str]] = {"init_std": "> 0"}

    hidden_dims: list[int] = [64, 64]
    """Widths of the hidden layers [count]."""
    activation: Literal["elu", "selu", "relu", "crelu", "lrelu", "tanh", "sigmoid", "identity"] = "elu"
    """Activation of the hidden layers."""
    obs_normalization: bool = True
    """Normalize the observations with running statistics."""
    init_std: float = 1.0
    """Initial standard deviation of the Gaussian action distribution (actor only) [action units]."""

    def validate(self, where: str | None = None) -> None:
        """Check the fields; every hidden layer needs at least one unit."""
        label = where or type(self).__name__
        check_fields(self, label)
        if not self.hidden_dims or any(
            isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in self.hidden_dims
        ):
            raise ValueError(f"{label}.hidden_dims must be a non-empty list of integers >= 1, got {self.hidden_dims!r}")

    def to_rsl_rl(self, stochastic: bool) -> dict[str, Any]:
        """rsl-rl's model dictionary; *stochastic* adds the Gaussian output distribution (the actor)."""
        model: dict[str, Any] = {
            "class_name": "MLPModel",
            "hidden_dims": list(self.hidden_dims),
            "activation": self.activation,
            "obs_normalization": self.obs_normalization,
        }
        if stochastic:
            model["distribution_cfg"] = {"class_name": "GaussianDistribution", "init_std": self.init_std}
        return model


@configclass
class RslRlPpoAlgorithmCfg:
    """PPO settings (``rsl_rl.algorithms.PPO``)."""

    _ranges: ClassVar[dict[str, str]] = {
        "num_learning_epochs": ">= 1",
        "num_mini_batches": ">= 1",
        "clip_param": "> 0",
        "gamma": "[0, 1]",
        "lam": "[0, 1]",
        "value_loss_coef": ">= 0",
        "entropy_coef": ">= 0",
        "learning_rate": "> 0",
        "max_grad_norm": "> 0",
        "desired_kl": "> 0",
    }

    num_learning_epochs: int = 5
    """Passes over each rollout [count]."""
    num_mini_batches: int = 4
    """Mini-batches per pass [count]."""
    clip_param: float = 0.2
    """PPO ratio clip."""
    gamma: float = 0.99
    """Discount factor per env step."""
    lam: float = 0.95
    """GAE lambda."""
    value_loss_coef: float = 1.0
    """Weight of the value loss."""
    entropy_coef: float = 0.005
    """Weight of the entropy bonus."""
    learning_rate: float = 1.0e-3
    """Initial Adam learning rate."""
    max_grad_norm: float = 1.0
    """Gradient norm clip."""
    use_clipped_value_loss: bool = True
    """Clip the value loss like the policy ratio."""
    schedule: Literal["adaptive", "fixed"] = "adaptive"
    """Learning-rate schedule; ``"adaptive"`` follows :attr:`desired_kl`."""
    desired_kl: float = 0.01
    """Target KL divergence of the adaptive schedule."""

    def to_rsl_rl(self) -> dict[str, Any]:
        """rsl-rl's algorithm dictionary."""
        return {"class_name": "PPO", **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}}


@configclass
class RslRlOnPolicyRunnerCfg:
    """Settings of ``rsl_rl.runners.OnPolicyRunner`` for one task (Isaac Lab's ``RslRlOnPolicyRunnerCfg``)."""

    _ranges: ClassVar[dict[str, str]] = {
        "seed": SEED_RANGE,
        "num_envs": ">= 1",
        "num_steps_per_env": ">= 1",
        "max_iterations": ">= 1",
        "save_interval": ">= 1",
    }

    experiment_name: str = "experiment"
    """Folder of the runs below the log root (``logs/rsl_rl/<experiment_name>/<run>``): one folder name
    (``A-Z a-z 0-9 _ . + = , @ -``, not starting with ``.``)."""
    run_name: str = ""
    """Suffix of the run folder name (after the time stamp and seed); empty or one folder name like
    :attr:`experiment_name`."""
    seed: int = 0
    """Seed of torch, of the env's reset draws and of the policy's initialization (``0 .. 2**64 - 1``; a
    distributed run adds the process rank)."""
    num_envs: int = 64
    """Parallel envs used for training [count] (overrides the env config's ``num_envs``)."""
    num_steps_per_env: int = 24
    """Env steps per env in each rollout [count]; one PPO update per rollout."""
    max_iterations: int = 100
    """PPO updates (rollout + learning) of a training run [count]."""
    save_interval: int = 50
    """Save a checkpoint every this many iterations [count] (and after the last one)."""
    logger: Literal["tensorboard"] = "tensorboard"
    """Log writer (rsl-rl's tensorboard writer)."""
    actor: RslRlMlpModelCfg = RslRlMlpModelCfg()
    """Policy network."""
    critic: RslRlMlpModelCfg = RslRlMlpModelCfg()
    """Value network."""
    algorithm: RslRlPpoAlgorithmCfg = RslRlPpoAlgorithmCfg()
    """PPO settings."""

    def validate(self) -> None:
        """Check every field (types and declared ranges), also of the nested configs; the experiment and run
        names must be single folder names."""
        check_missing(self)
        check_fields(self)
        label = type(self).__name__
        check_path_component(self.experiment_name, f"{label}.experiment_name")
        if self.run_name:
            check_path_component(self.run_name, f"{label}.run_name")
        for name in ("actor", "critic"):
            getattr(self, name).validate(f"{type(self).__name__}.{name}")
        check_fields(self.algorithm, f"{type(self).__name__}.algorithm")

    def to_rsl_rl(self) -> dict[str, Any]:
        """The training dictionary ``OnPolicyRunner(env, train_cfg, ...)`` takes (validated first)."""
        self.validate()
        return {
            "seed": self.seed,
            "num_steps_per_env": self.num_steps_per_env,
            "max_iterations": self.max_iterations,
            "save_interval": self.save_interval,
            "experiment_name": self.experiment_name,
            "run_name": self.run_name,
            "logger": self.logger,
            "obs_groups": {"actor": ["policy"], "critic": ["policy"]},
            "actor": self.actor.to_rsl_rl(stochastic=True),
            "critic": self.critic.to_rsl_rl(stochastic=False),
            "algorithm": self.algorithm.to_rsl_rl(),
        }
