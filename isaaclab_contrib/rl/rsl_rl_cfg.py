"""Isaac Lab-style config classes for training with rsl-rl (``rsl-rl-lib`` 5.x).

A task names its runner config (:class:`RslRlOnPolicyRunnerCfg`) in its gymnasium registration
(``rsl_rl_cfg_entry_point``); :meth:`RslRlOnPolicyRunnerCfg.to_rsl_rl` turns it into the dictionary
``rsl_rl.runners.OnPolicyRunner`` takes. The fields mirror rsl-rl's own argument names.

Observation groups: the env's observations reach rsl-rl as a ``TensorDict`` of groups (``"policy"``,
plus e.g. an image group ``"camera"`` of shape ``(num_envs, C, H, W)``); :attr:`RslRlOnPolicyRunnerCfg.obs_groups`
says which groups the actor and the critic read. An MLP (:class:`RslRlMlpModelCfg`) reads only flat
``(num_envs, D)`` groups; a CNN model (:class:`RslRlCnnModelCfg`) encodes each image group with its own CNN
and concatenates the flat groups to the encodings. :func:`check_obs_groups` checks a mapping against the
groups an env produces.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from isaaclab_contrib.envs import SEED_RANGE
from isaaclab_contrib.utils.configclass import check_missing, configclass
from isaaclab_contrib.utils.validation import check_fields

from .runs import check_path_component

__all__ = [
    "RslRlCnnCfg",
    "RslRlCnnModelCfg",
    "RslRlMlpModelCfg",
    "RslRlOnPolicyRunnerCfg",
    "RslRlPpoAlgorithmCfg",
    "check_obs_groups",
]

_Activation = Literal["elu", "selu", "relu", "crelu", "lrelu", "tanh", "sigmoid", "identity"]


@configclass
class RslRlMlpModelCfg:
    """An MLP actor or critic (``rsl_rl.models.MLPModel``)."""

    _ranges: ClassVar[dict[str, str]] = {"init_std": "> 0"}

    hidden_dims: list[int] = [64, 64]
    """Widths of the hidden layers [count]."""
    activation: _Activation = "elu"
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


def _per_layer(value: int | tuple[int, ...]) -> int | list[int]:
    """An integer as is, a per-layer tuple as a list (rsl-rl's form)."""
    return list(value) if isinstance(value, (list, tuple)) else value


@configclass
class RslRlCnnCfg:
    """The CNN encoder of one image group (``rsl_rl.modules.CNN``): convolutions, each followed by the activation
    (and optional normalization and max pooling), then an optional global pooling; the output is flattened.

    One layer per entry of :attr:`output_channels`; :attr:`kernel_size`, :attr:`stride` and :attr:`dilation` are one
    value for every layer or a tuple of one value per layer. With ``padding="zeros"`` a layer of stride ``s`` maps
    ``H`` pixels to ``ceil(H / s)``.
    """

    _ranges: ClassVar[dict[str, str]] = {"kernel_size": ">= 1", "stride": ">= 1", "dilation": ">= 1"}
    _PER_LAYER: ClassVar[tuple[str, ...]] = ("kernel_size", "stride", "dilation")

    output_channels: list[int] = [16, 32]
    """Output channels of each convolution layer [count]."""
    kernel_size: int | tuple[int, ...] = 3
    """Kernel size of every convolution layer, or of each [pixels]."""
    stride: int | tuple[int, ...] = 2
    """Stride of every convolution layer, or of each [pixels]."""
    dilation: int | tuple[int, ...] = 1
    """Dilation of every convolution layer, or of each [pixels]."""
    padding: Literal["none", "zeros", "reflect", "replicate", "circular"] = "zeros"
    """Padding mode of the convolutions (``"none"``: no padding, each layer shrinks the image)."""
    norm: Literal["none", "batch", "layer"] = "none"
    """Normalization after each convolution."""
    activation: _Activation = "elu"
    """Activation after each convolution (the CNN's own; the MLP head uses the model's ``activation``)."""
    max_pool: bool = False
    """A 3x3 max pooling of stride 2 after each convolution."""
    global_pool: Literal["none", "max", "avg"] = "none"
    """Global pooling of the last feature map to 1 x 1 (``"none"``: the whole map is flattened)."""

    def validate(self, where: str | None = None) -> None:
        """Check the fields; every layer needs at least one output channel."""
        label = where or type(self).__name__
        check_fields(self, label)
        channels = self.output_channels
        if (
            not isinstance(channels, (list, tuple))
            or not channels
            or any(isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in channels)
        ):
            raise ValueError(f"{label}.output_channels must be a non-empty list of integers >= 1, got {channels!r}")
        for name in self._PER_LAYER:
            value = getattr(self, name)
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values):
                raise ValueError(f"{label}.{name} must be an integer >= 1 or a tuple of them, got {value!r}")
            if isinstance(value, (list, tuple)) and len(values) != len(channels):
                raise ValueError(
                    f"{label}.{name} has {len(values)} values for {len(channels)} layers (output_channels "
                    f"{list(channels)!r}): give one value per layer, or one integer for all"
                )

    def to_rsl_rl(self) -> dict[str, Any]:
        """The keyword arguments of ``rsl_rl.modules.CNN`` (the flattened output rsl-rl's CNN model needs)."""
        return {
            "output_channels": list(self.output_channels),
            "kernel_size": _per_layer(self.kernel_size),
            "stride": _per_layer(self.stride),
            "dilation": _per_layer(self.dilation),
            "padding": self.padding,
            "norm": self.norm,
            "activation": self.activation,
            "max_pool": self.max_pool,
            "global_pool": self.global_pool,
            "flatten": True,
        }


@configclass
class RslRlCnnModelCfg(RslRlMlpModelCfg):
    """A CNN actor or critic (``rsl_rl.models.CNNModel``): every image group it reads (shape ``(num_envs, C, H,
    W)``) goes through a CNN encoder (:attr:`cnn`, the same settings for each image group, one encoder each);
    the encodings and the flat groups (normalized when :attr:`obs_normalization` is set; images never are)
    feed the MLP head (:attr:`hidden_dims`, :attr:`activation`). It must read at least one image group."""

    cnn: RslRlCnnCfg = RslRlCnnCfg()
    """The CNN encoder of each image group."""

    def validate(self, where: str | None = None) -> None:
        """Check the MLP head's fields and the CNN encoder's."""
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.cnn, RslRlCnnCfg):
            raise TypeError(f"{label}.cnn must be an RslRlCnnCfg, got {type(self.cnn).__name__}")
        self.cnn.validate(f"{label}.cnn")

    def to_rsl_rl(self, stochastic: bool) -> dict[str, Any]:
        """rsl-rl's model dictionary (``class_name="CNNModel"``, ``cnn_cfg``); *stochastic* adds the Gaussian output
        distribution (the actor)."""
        model = super().to_rsl_rl(stochastic)
        model["class_name"] = "CNNModel"
        model["cnn_cfg"] = self.cnn.to_rsl_rl()
        return model


def check_obs_groups(obs_groups: Mapping[str, Any], observations: Any, where: str = "obs_groups") -> None:
    """Check that every group *obs_groups* names is one the env produces, and flat or an image.

    Args:
        obs_groups: rsl-rl's mapping of observation sets (``"actor"``, ``"critic"``) to lists of group names.
        observations: What the env produces: a ``TensorDict`` or dict of group tensors (``(num_envs, D)`` flat,
            ``(num_envs, C, H, W)`` images), e.g. ``RslRlVecEnvWrapper.get_observations()``, or an iterable of
            group names (then only the names are checked).
        where: Prefix of the error messages (the config field).

    Raises:
        ValueError: A set names a group the env does not produce (the message lists the groups it does), or a
            group is neither flat nor an image.
    """
    if hasattr(observations, "keys"):
        produced = {str(k): observations[k] for k in observations.keys()}
    else:
        produced = {str(k): None for k in observations}
    for set_name, groups in obs_groups.items():
        for group in groups:
            if group not in produced:
                raise ValueError(
                    f"{where}[{set_name!r}] names the observation group {group!r}, which the env does not produce "
                    f"(it produces {sorted(produced)})"
                )
            value = produced[group]
            if value is not None and len(value.shape) not in (2, 4):
                raise ValueError(
                    f"{where}[{set_name!r}]: observation group {group!r} has shape {tuple(value.shape)}; rsl-rl reads "
                    "flat groups (num_envs, D) and images (num_envs, C, H, W)"
                )


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
        "clip_actions": "> 0",
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
    clip_actions: float | None = None
    """Clip the policy's actions to ``[-clip_actions, clip_actions]`` before the env sees them (Isaac Lab's
    field; the scripts pass it to :class:`~isaaclab_contrib.rl.RslRlVecEnvWrapper`); ``None``: not clipped here
    (the direct envs clip to [-1, 1] themselves)."""
    logger: Literal["tensorboard"] = "tensorboard"
    """Log writer (rsl-rl's tensorboard writer)."""
    obs_groups: dict[str, list[str]] = {"actor": ["policy"], "critic": ["policy"]}
    """Observation groups the actor and the critic read (rsl-rl's ``obs_groups``): ``{"actor": [...], "critic":
    [...]}``, each a non-empty list of group names the env produces (``"policy"``; an image task adds e.g.
    ``"camera"``). Checked against the env by :meth:`check_obs_groups` (and when the runner is built by
    :class:`~isaaclab_contrib.rl.distributed.DistributedOnPolicyRunner`)."""
    actor: RslRlMlpModelCfg = RslRlMlpModelCfg()
    """Policy network (an MLP, or a :class:`RslRlCnnModelCfg` when it reads an image group)."""
    critic: RslRlMlpModelCfg = RslRlMlpModelCfg()
    """Value network (an MLP, or a :class:`RslRlCnnModelCfg` when it reads an image group)."""
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
        self._check_obs_groups_field(label)
        for name in ("actor", "critic"):
            model = getattr(self, name)
            if not isinstance(model, RslRlMlpModelCfg):
                raise TypeError(
                    f"{label}.{name} must be an RslRlMlpModelCfg or RslRlCnnModelCfg, got {type(model).__name__}"
                )
            model.validate(f"{label}.{name}")
        check_fields(self.algorithm, f"{type(self).__name__}.algorithm")

    def _check_obs_groups_field(self, label: str) -> None:
        groups = self.obs_groups
        where = f"{label}.obs_groups"
        if not isinstance(groups, Mapping):
            raise TypeError(f"{where} must be a dict of observation sets to lists of group names, got {groups!r}")
        missing = [name for name in ("actor", "critic") if name not in groups]
        if missing:
            raise ValueError(
                f"{where} must have the sets 'actor' and 'critic' (rsl-rl's PPO reads both), missing {missing}"
            )
        for set_name, names in groups.items():
            if not isinstance(set_name, str):
                raise TypeError(f"{where}: set names must be strings, got {set_name!r}")
            if (
                not isinstance(names, (list, tuple))
                or not names
                or any(not isinstance(n, str) or not n for n in names)
                or len(set(names)) != len(names)
            ):
                raise ValueError(
                    f"{where}[{set_name!r}] must be a non-empty list of distinct group names, got {names!r}"
                )

    def check_obs_groups(self, env: Any) -> None:
        """Check :attr:`obs_groups` and the models against what *env* produces, before rsl-rl builds anything.

        Args:
            env: An :class:`~isaaclab_contrib.rl.RslRlVecEnvWrapper` (anything with ``get_observations()``), or
                its observations (a ``TensorDict`` / dict of groups).

        Raises:
            ValueError: A set names a group the env does not produce (named: ``<Cfg>.obs_groups['actor']``), an MLP
                model reads an image group, or a CNN model reads none.
        """
        label = type(self).__name__
        self._check_obs_groups_field(label)
        observations = env.get_observations() if hasattr(env, "get_observations") else env
        check_obs_groups(self.obs_groups, observations, f"{label}.obs_groups")
        for name in ("actor", "critic"):
            model = getattr(self, name)
            images = [g for g in self.obs_groups[name] if len(observations[g].shape) == 4]
            if isinstance(model, RslRlCnnModelCfg) and not images:
                raise ValueError(
                    f"{label}.{name} is a CNN model (RslRlCnnModelCfg) but {label}.obs_groups[{name!r}] = "
                    f"{list(self.obs_groups[name])} has no image group (num_envs, C, H, W); use RslRlMlpModelCfg"
                )
            if not isinstance(model, RslRlCnnModelCfg) and images:
                raise ValueError(
                    f"{label}.{name} is an MLP (RslRlMlpModelCfg) but {label}.obs_groups[{name!r}] has the image "
                    f"group(s) {images}; use RslRlCnnModelCfg"
                )

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
            "obs_groups": {name: list(groups) for name, groups in self.obs_groups.items()},
            "actor": self.actor.to_rsl_rl(stochastic=True),
            "critic": self.critic.to_rsl_rl(stochastic=False),
            "algorithm": self.algorithm.to_rsl_rl(),
        }
