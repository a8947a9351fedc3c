"""The reward manager (Isaac Lab's ``RewardManager``): the step's reward as a weighted sum of terms."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from .manager_base import TermListManager, check_finite_number
from .manager_term_cfg import RewardTermCfg

__all__ = ["RewardManager"]


class RewardManager(TermListManager):
    """Sums the reward terms of a config whose fields are :class:`RewardTermCfg` s.

    Each step, :meth:`compute` adds ``value * (weight * dt)`` per term, ``value`` being the term's ``[num_envs]``
    output and ``dt`` the env step [s], so a reward rate (per second) integrates over the step and the sum over an
    episode does not depend on the step size. Terms of weight ``0`` are not called. The per-episode sums feed the
    ``Episode_Reward/<term>`` logs returned by :meth:`reset`.

    At build every term is checked: its weight a finite number, its params against its function, its scene
    entities against the scene; each term is called once and must return a floating-point ``[num_envs]`` tensor.

    Args:
        cfg: The reward config (configclass or dict of term name to :class:`RewardTermCfg`).
        env: The env (``num_envs``, ``device``, ``scene``, ``max_episode_length_s``).
    """

    term_cfg_class = RewardTermCfg
    term_kind = "reward"

    def __init__(self, cfg: Any, env: Any):
        super().__init__(cfg, env)
        self._episode_sums = {
            name: torch.zeros(self.num_envs, dtype=torch.float, device=self.device) for name in self._term_names
        }
        self._reward_buf = torch.zeros(self.num_envs, dtype=torch.float, device=self.device)
        self._step_reward = torch.zeros((self.num_envs, len(self._term_names)), dtype=torch.float, device=self.device)
        """Each term's contribution of the last step divided by ``dt`` (``value * weight``), ``[num_envs, terms]``."""

    def __str__(self) -> str:
        lines = [f"<RewardManager> {len(self._term_names)} active terms:"]
        lines += [
            f"  {i}: {n} (weight {c.weight})"
            for i, (n, c) in enumerate(zip(self._term_names, self._term_cfgs, strict=True))
        ]
        return "\n".join(lines)

    def reset(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """Log and clear the episode sums of *env_ids* (``None``: every env); reset class terms.

        Returns:
            ``{"Episode_Reward/<term>": mean over env_ids of the term's episode sum / env.max_episode_length_s}``
            (0-dim tensors, as Isaac Lab: no device sync). Nothing is logged when *env_ids* is empty.
        """
        ids = slice(None) if env_ids is None else env_ids
        extras: dict[str, torch.Tensor] = {}
        if isinstance(ids, slice) or len(ids) > 0:
            for name, sums in self._episode_sums.items():
                extras[f"Episode_Reward/{name}"] = torch.mean(sums[ids]) / self._env.max_episode_length_s
                sums[ids] = 0.0
        for term_cfg in self._class_term_cfgs:
            term_cfg.func.reset(env_ids=env_ids)
        return extras

    def compute(self, dt: float) -> torch.Tensor:
        """The step's reward, ``[num_envs]``: the sum over terms of ``value * (weight * dt)``.

        Args:
            dt: The env step [s] (``env.step_dt``).

        Returns:
            The reward buffer (overwritten by the next call).

        Raises:
            ValueError: *dt* is not a positive finite number, or a weight (changed since the build) is not finite.
        """
        if not (isinstance(dt, (int, float)) and 0.0 < dt < math.inf):
            raise ValueError(f"RewardManager.compute: dt must be a positive finite step [s], got {dt!r}")
        self._reward_buf[:] = 0.0
        for index, (name, term_cfg) in enumerate(zip(self._term_names, self._term_cfgs, strict=True)):
            weight = term_cfg.weight
            if weight == 0:
                self._step_reward[:, index] = 0.0
                continue
            factor = float(weight) * dt
            if not math.isfinite(factor):
                raise ValueError(f"RewardManager term {name!r}: weight must be finite, got {weight!r}")
            value = term_cfg.func(self._env, **term_cfg.params) * factor
            self._reward_buf += value
            self._episode_sums[name] += value
            self._step_reward[:, index] = value / dt
        return self._reward_buf

    def get_active_iterable_terms(self, env_idx: int) -> Sequence[tuple[str, Sequence[float]]]:
        """``(term, [value * weight])`` of the last step for env *env_idx*."""
        return [(name, [self._step_reward[env_idx, i].item()]) for i, name in enumerate(self._term_names)]

    # ------------------------------------------------------------------ build
    def _check_term_cfg(self, term_name: str, term_cfg: Any) -> None:
        """A :class:`RewardTermCfg` whose weight is a finite number."""
        super()._check_term_cfg(term_name, term_cfg)
        check_finite_number(term_cfg.weight, f"{self._where(term_name)}: weight")

    def _check_output(self, term_name: str, term_cfg: RewardTermCfg) -> None:
        """Call the term once: it must return a floating-point ``[num_envs]`` tensor."""
        where = self._where(term_name)
        value = self._trial_call(term_name, term_cfg)
        if not value.is_floating_point():
            raise TypeError(f"{where}: must return a floating-point tensor, got {value.dtype} (use .float())")
