"""Observation noise (Isaac Lab's ``isaaclab.utils.noise``): configs and the functions that apply them.

A noise config names its function in ``func``; the observation manager calls ``cfg.func(data, cfg)`` on each
observation of a group with ``enable_corruption``. ``operation`` says how the drawn value combines with the data:
``"add"`` (``data + n``), ``"scale"`` (``data * n``) or ``"abs"`` (``n`` replaces the data). Random draws use
torch's global generator (``torch.manual_seed`` makes them repeatable), in the same order as Isaac Lab.

Noise values are in the units of the observation they corrupt (``std=0.01`` on joint positions: 0.01 rad).
A :class:`NoiseModelCfg` wraps a noise config in a stateful model (:class:`NoiseModel`), reset with the env;
:class:`NoiseModelWithAdditiveBiasCfg` adds a bias drawn at each reset.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

import torch

from .configclass import MISSING, check_missing, configclass
from .validation import check_fields, nested

__all__ = [
    "ConstantNoiseCfg",
    "GaussianNoiseCfg",
    "NoiseCfg",
    "NoiseModel",
    "NoiseModelCfg",
    "NoiseModelWithAdditiveBias",
    "NoiseModelWithAdditiveBiasCfg",
    "UniformNoiseCfg",
    "check_noise_cfg",
    "constant_noise",
    "gaussian_noise",
    "uniform_noise",
]

_OPERATIONS = ("add", "scale", "abs")


def _on_device(value: Any, data: torch.Tensor) -> Any:
    return value.to(data.device) if isinstance(value, torch.Tensor) else value


def _require_operation(cfg: NoiseCfg, name: str) -> None:
    if cfg.operation not in _OPERATIONS:
        raise ValueError(f"{name}: unknown operation {cfg.operation!r}; expected one of {list(_OPERATIONS)}")


def constant_noise(data: torch.Tensor, cfg: ConstantNoiseCfg) -> torch.Tensor:
    """*data* combined with the constant :attr:`ConstantNoiseCfg.bias` (no random draw).

    Args:
        data: The observation, ``[num_envs, ...]``.
        cfg: The noise config.

    Returns:
        A new tensor of *data*'s shape.

    Raises:
        ValueError: An unknown :attr:`NoiseCfg.operation`.
    """
    _require_operation(cfg, "constant_noise")
    bias = _on_device(cfg.bias, data)
    if cfg.operation == "add":
        return data + bias
    if cfg.operation == "scale":
        return data * bias
    return torch.zeros_like(data) + bias


def uniform_noise(data: torch.Tensor, cfg: UniformNoiseCfg) -> torch.Tensor:
    """*data* combined with noise drawn uniformly in ``[n_min, n_max)``, one draw per element.

    Args:
        data: The observation, ``[num_envs, ...]``.
        cfg: The noise config.

    Returns:
        A new tensor of *data*'s shape.

    Raises:
        ValueError: An unknown :attr:`NoiseCfg.operation`.
    """
    _require_operation(cfg, "uniform_noise")
    n_min, n_max = _on_device(cfg.n_min, data), _on_device(cfg.n_max, data)
    # Isaac Lab's arithmetic, term by term, so that seeded runs agree bitwise
    if cfg.operation == "add":
        return data + torch.rand_like(data) * (n_max - n_min) + n_min
    if cfg.operation == "scale":
        return data * (torch.rand_like(data) * (n_max - n_min) + n_min)
    return torch.rand_like(data) * (n_max - n_min) + n_min


def gaussian_noise(data: torch.Tensor, cfg: GaussianNoiseCfg) -> torch.Tensor:
    """*data* combined with normal noise of :attr:`GaussianNoiseCfg.mean` and :attr:`GaussianNoiseCfg.std`, one
    draw per element.

    Args:
        data: The observation, ``[num_envs, ...]``.
        cfg: The noise config.

    Returns:
        A new tensor of *data*'s shape.

    Raises:
        ValueError: An unknown :attr:`NoiseCfg.operation`.
    """
    _require_operation(cfg, "gaussian_noise")
    mean, std = _on_device(cfg.mean, data), _on_device(cfg.std, data)
    if cfg.operation == "add":
        return data + mean + std * torch.randn_like(data)
    if cfg.operation == "scale":
        return data * (mean + std * torch.randn_like(data))
    return mean + std * torch.randn_like(data)


@configclass
class NoiseCfg:
    """A noise term: ``func(data, cfg)`` returns the corrupted data (same shape)."""

    func: Callable[[torch.Tensor, Any], torch.Tensor] = MISSING
    """The function applying the noise."""
    operation: Literal["add", "scale", "abs"] = "add"
    """How the drawn value combines with the data: ``"add"``, ``"scale"`` (multiply) or ``"abs"`` (replace)."""

    def validate(self) -> None:
        """Check the fields (numbers against their ranges), then what a range cannot say: ``func`` callable, tensor
        values finite, ``n_min <= n_max`` and ``std >= 0`` element-wise (:func:`check_noise_cfg`)."""
        check_missing(self)
        check_fields(self)
        check_noise_cfg(self, type(self).__name__)


@configclass
class ConstantNoiseCfg(NoiseCfg):
    """A constant offset (or factor, or value)."""

    _ranges: ClassVar[dict[str, str]] = {"bias": "any"}

    func: Callable[[torch.Tensor, Any], torch.Tensor] = constant_noise
    bias: torch.Tensor | float = 0.0
    """The constant, in the observation's units (a tensor broadcasts against ``[num_envs, ...]``)."""


@configclass
class UniformNoiseCfg(NoiseCfg):
    """Noise drawn uniformly in ``[n_min, n_max)``."""

    _ranges: ClassVar[dict[str, str]] = {"n_min": "any", "n_max": "any"}

    func: Callable[[torch.Tensor, Any], torch.Tensor] = uniform_noise
    n_min: torch.Tensor | float = -1.0
    """Lower bound, in the observation's units."""
    n_max: torch.Tensor | float = 1.0
    """Upper bound, in the observation's units (at least :attr:`n_min`)."""


@configclass
class GaussianNoiseCfg(NoiseCfg):
    """Normally distributed noise."""

    _ranges: ClassVar[dict[str, str]] = {"mean": "any", "std": ">= 0"}

    func: Callable[[torch.Tensor, Any], torch.Tensor] = gaussian_noise
    mean: torch.Tensor | float = 0.0
    """Mean, in the observation's units."""
    std: torch.Tensor | float = 1.0
    """Standard deviation, in the observation's units (at least 0)."""


class NoiseModel:
    """A noise with state, built once per observation term as ``class_type(cfg, num_envs=..., device=...)``.

    The base model applies :attr:`NoiseModelCfg.noise_cfg` and keeps no state; subclasses override
    :meth:`reset` (called with the env's resets) and :meth:`__call__`.
    """

    def __init__(self, noise_model_cfg: NoiseModelCfg, num_envs: int, device: str | torch.device):
        self._noise_model_cfg = noise_model_cfg
        self._num_envs = num_envs
        self._device = device

    def reset(self, env_ids: Sequence[int] | torch.Tensor | slice | None = None) -> None:
        """Redraw the state of *env_ids* (``None``: every env). The base model has none."""

    def __call__(self, data: torch.Tensor) -> torch.Tensor:
        """*data* (``[num_envs, ...]``) with the noise applied."""
        noise_cfg = self._noise_model_cfg.noise_cfg
        return noise_cfg.func(data, noise_cfg)


class NoiseModelWithAdditiveBias(NoiseModel):
    """:class:`NoiseModel` plus a bias per env, kept for the episode and redrawn at each reset (zero until the
    first reset).

    As in Isaac Lab, a reset applies :attr:`NoiseModelWithAdditiveBiasCfg.bias_noise_cfg` to the current bias: with
    ``operation="abs"`` the bias is drawn afresh, with ``"add"`` the new draw adds onto the previous one.
    """

    def __init__(self, noise_model_cfg: NoiseModelWithAdditiveBiasCfg, num_envs: int, device: str | torch.device):
        super().__init__(noise_model_cfg, num_envs, device)
        self._bias_noise_cfg = noise_model_cfg.bias_noise_cfg
        self._per_component = bool(noise_model_cfg.sample_bias_per_component)
        self._bias = torch.zeros((num_envs, 1), device=device)
        self._drawn = False  # a reset drew a bias already

    def reset(self, env_ids: Sequence[int] | torch.Tensor | slice | None = None) -> None:
        """Draw a new bias for *env_ids* (``None``: every env)."""
        if env_ids is None:
            env_ids = slice(None)
        self._bias[env_ids] = self._bias_noise_cfg.func(self._bias[env_ids], self._bias_noise_cfg)
        self._drawn = True

    def __call__(self, data: torch.Tensor) -> torch.Tensor:
        """*data* with the noise and the bias added."""
        if self._per_component and self._bias.shape[1:] != data.shape[1:]:
            # first call: the data's shape is known now; one bias per component from here on
            bias = self._bias.reshape(self._num_envs, *([1] * (data.ndim - 1))).expand_as(data).clone()
            self._bias = self._bias_noise_cfg.func(bias, self._bias_noise_cfg) if self._drawn else bias
        return super().__call__(data) + self._bias


@configclass
class NoiseModelCfg:
    """A noise model: :attr:`class_type` built once per observation term."""

    class_type: type = NoiseModel
    """The :class:`NoiseModel` subclass built as ``class_type(cfg, num_envs=..., device=...)``."""
    noise_cfg: NoiseCfg = MISSING
    """The noise the model applies."""
    func: Callable[[torch.Tensor], torch.Tensor] | None = None
    """The built model; set by the observation manager (leave ``None``)."""

    def validate(self) -> None:
        """Check the fields, that :attr:`class_type` is a :class:`NoiseModel` subclass, and the noise configs."""
        check_missing(self)
        check_fields(self)
        cls = type(self).__name__
        if not (isinstance(self.class_type, type) and issubclass(self.class_type, NoiseModel)):
            raise TypeError(f"{cls}.class_type must be a NoiseModel subclass, got {self.class_type!r}")
        self._validate_noise("noise_cfg")

    def _validate_noise(self, name: str) -> None:
        cls, noise = type(self).__name__, getattr(self, name)
        if not isinstance(noise, NoiseCfg):
            raise TypeError(f"{cls}.{name} must be a NoiseCfg, got {type(noise).__name__}")
        with nested(f"{cls}.{name}"):
            noise.validate()


@configclass
class NoiseModelWithAdditiveBiasCfg(NoiseModelCfg):
    """A noise model adding a bias per env, drawn at each reset."""

    class_type: type = NoiseModelWithAdditiveBias
    bias_noise_cfg: NoiseCfg = MISSING
    """The noise the bias is drawn from (applied to zeros at each reset)."""
    sample_bias_per_component: bool = True
    """One bias per observation component (``False``: one per env, shared by the components)."""

    def validate(self) -> None:
        """Check the fields, the model class, the noise and the bias noise."""
        super().validate()
        self._validate_noise("bias_noise_cfg")


def _check_value(value: Any, where: str) -> None:
    if isinstance(value, torch.Tensor):
        if not value.is_floating_point() or not bool(torch.isfinite(value).all()):
            raise ValueError(f"{where} must hold finite floating-point values, got {value!r}")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{where} must be a real number or a tensor, got {type(value).__name__} {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{where} must be finite, got {value!r}")


def check_noise_cfg(cfg: Any, where: str = "noise") -> None:
    """Check a noise config (or noise model config) before use.

    Args:
        cfg: A :class:`NoiseCfg` or :class:`NoiseModelCfg`.
        where: What holds the config, for the messages (``"ObservationManager term 'policy/joint_pos': noise"``).

    Raises:
        TypeError: Not a noise config, ``func`` not callable, a value that is not a number or tensor, a model
            class that is not a :class:`NoiseModel` subclass.
        ValueError: An unknown ``operation``, a non-finite value, ``n_min > n_max`` or a negative ``std``.
    """
    if isinstance(cfg, NoiseModelCfg):
        if not (isinstance(cfg.class_type, type) and issubclass(cfg.class_type, NoiseModel)):
            raise TypeError(f"{where}.class_type must be a NoiseModel subclass, got {cfg.class_type!r}")
        check_noise_cfg(cfg.noise_cfg, f"{where}.noise_cfg")
        if isinstance(cfg, NoiseModelWithAdditiveBiasCfg):
            check_noise_cfg(cfg.bias_noise_cfg, f"{where}.bias_noise_cfg")
        return
    if not isinstance(cfg, NoiseCfg):
        raise TypeError(f"{where} must be a NoiseCfg or NoiseModelCfg, got {type(cfg).__name__}")
    if not callable(cfg.func):
        raise TypeError(f"{where}.func must be callable, got {cfg.func!r}")
    if cfg.operation not in _OPERATIONS:
        raise ValueError(f"{where}.operation must be one of {list(_OPERATIONS)}, got {cfg.operation!r}")
    if isinstance(cfg, ConstantNoiseCfg):
        _check_value(cfg.bias, f"{where}.bias")
    elif isinstance(cfg, UniformNoiseCfg):
        _check_value(cfg.n_min, f"{where}.n_min")
        _check_value(cfg.n_max, f"{where}.n_max")
        if bool(torch.any(torch.as_tensor(cfg.n_min) > torch.as_tensor(cfg.n_max))):
            raise ValueError(f"{where}: n_min ({cfg.n_min!r}) must not exceed n_max ({cfg.n_max!r})")
    elif isinstance(cfg, GaussianNoiseCfg):
        _check_value(cfg.mean, f"{where}.mean")
        _check_value(cfg.std, f"{where}.std")
        if bool(torch.any(torch.as_tensor(cfg.std) < 0)):
            raise ValueError(f"{where}.std must be >= 0, got {cfg.std!r}")


AdditiveUniformNoiseCfg = UniformNoiseCfg
"""Isaac Lab's older name of :class:`UniformNoiseCfg` (``from isaaclab.utils.noise import AdditiveUniformNoiseCfg as
Unoise`` in many task configs)."""
AdditiveGaussianNoiseCfg = GaussianNoiseCfg
"""Isaac Lab's older name of :class:`GaussianNoiseCfg`."""
__all__ += ["AdditiveGaussianNoiseCfg", "AdditiveUniformNoiseCfg"]
