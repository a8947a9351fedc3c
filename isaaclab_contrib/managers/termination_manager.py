"""The termination manager (Isaac Lab's ``TerminationManager``): which episodes end this step, and why."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from .manager_base import TermListManager
from .manager_term_cfg import TerminationTermCfg

__all__ = ["TerminationManager"]


class TerminationManager(TermListManager):
    """Ors the termination terms of a config whose fields are :class:`TerminationTermCfg` s.

    Following Gymnasium, an episode ends either by *time out* (truncation: a term with ``time_out=True``, such
    as the episode-length limit) or by *termination* (a terminal state: failure, success). :meth:`compute` returns
    their union, :attr:`dones`; :attr:`time_outs` and :attr:`terminated` keep them apart.

    The logs returned by :meth:`reset` follow Isaac Lab: ``Episode_Termination/<term>`` is the fraction of all
    envs whose most recently ended episode was ended by that term (terms may fire together; an env that has not
    ended an episode yet counts as not ended by any term).

    At build every term is checked (params, scene entities) and called once: it must return a ``[num_envs]`` bool
    tensor.

    Args:
        cfg: The termination config (configclass or dict of term name to :class:`TerminationTermCfg`).
        env: The env (``num_envs``, ``device``, ``scene``, ``episode_length_buf``, ``max_episode_length``).
    """

    term_cfg_class = TerminationTermCfg
    term_kind = "termination"

    def __init__(self, cfg: Any, env: Any):
        super().__init__(cfg, env)
        self._term_index = {name: i for i, name in enumerate(self._term_names)}
        shape = (self.num_envs, len(self._term_names))
        self._term_dones = torch.zeros(shape, dtype=torch.bool, device=self.device)
        """Each term's value at the last :meth:`compute`, ``[num_envs, terms]``."""
        self._last_episode_dones = torch.zeros(shape, dtype=torch.bool, device=self.device)
        """Per env, the terms that ended its most recently ended episode, ``[num_envs, terms]``."""
        self._truncated_buf = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        self._terminated_buf = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)

    def __str__(self) -> str:
        lines = [f"<TerminationManager> {len(self._term_names)} active terms:"]
        for i, (name, term_cfg) in enumerate(zip(self._term_names, self._term_cfgs, strict=True)):
            lines.append(f"  {i}: {name}{' (time out)' if term_cfg.time_out else ''}")
        return "\n".join(lines)

    @property
    def dones(self) -> torch.Tensor:
        """Episodes ended at the last :meth:`compute` (time out or termination), ``[num_envs]`` bool."""
        return self._truncated_buf | self._terminated_buf

    @property
    def time_outs(self) -> torch.Tensor:
        """Episodes truncated at the last :meth:`compute` (``time_out`` terms), ``[num_envs]`` bool."""
        return self._truncated_buf

    @property
    def terminated(self) -> torch.Tensor:
        """Episodes that reached a terminal state at the last :meth:`compute` (other terms), ``[num_envs]`` bool."""
        return self._terminated_buf

    def reset(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> dict[str, float]:
        """Log why episodes ended; reset class terms for *env_ids* (``None``: every env).

        Returns:
            ``{"Episode_Termination/<term>": fraction of all envs whose most recently ended episode was ended by
            the term}`` (Isaac Lab's statistic: over every env, not only *env_ids*).
        """
        fractions = self._last_episode_dones.float().mean(dim=0).tolist() if self._term_names else []
        extras = {f"Episode_Termination/{name}": value for name, value in zip(self._term_names, fractions, strict=True)}
        for term_cfg in self._class_term_cfgs:
            term_cfg.func.reset(env_ids=env_ids)
        return extras

    def compute(self) -> torch.Tensor:
        """Evaluate every term; returns :attr:`dones`, ``[num_envs]`` bool."""
        self._truncated_buf[:] = False
        self._terminated_buf[:] = False
        for index, term_cfg in enumerate(self._term_cfgs):
            value = term_cfg.func(self._env, **term_cfg.params)
            if term_cfg.time_out:
                self._truncated_buf |= value
            else:
                self._terminated_buf |= value
            self._term_dones[:, index] = value
        ended = self._term_dones.any(dim=1, keepdim=True)
        self._last_episode_dones.copy_(torch.where(ended, self._term_dones, self._last_episode_dones))
        return self.dones

    def get_term(self, name: str) -> torch.Tensor:
        """The value of term *name* at the last :meth:`compute`, ``[num_envs]`` bool.

        Raises:
            KeyError: No such term (the message lists the terms).
        """
        if name not in self._term_index:
            raise KeyError(f"TerminationManager: no termination term {name!r}; the terms are {self._term_names}")
        return self._term_dones[:, self._term_index[name]]

    def get_active_iterable_terms(self, env_idx: int) -> Sequence[tuple[str, Sequence[float]]]:
        """``(term, [0.0 or 1.0])`` of the last :meth:`compute` for env *env_idx*."""
        return [(name, [float(self._term_dones[env_idx, i].item())]) for i, name in enumerate(self._term_names)]

    # ------------------------------------------------------------------ build
    def _check_term_cfg(self, term_name: str, term_cfg: Any) -> None:
        """A :class:`TerminationTermCfg` whose ``time_out`` is a bool."""
        super()._check_term_cfg(term_name, term_cfg)
        if not isinstance(term_cfg.time_out, bool):
            raise TypeError(f"{self._where(term_name)}: time_out must be a bool, got {term_cfg.time_out!r}")

    def _check_output(self, term_name: str, term_cfg: TerminationTermCfg) -> None:
        """Call the term once: it must return a ``[num_envs]`` bool tensor."""
        where = self._where(term_name)
        value = self._trial_call(term_name, term_cfg)
        if value.dtype != torch.bool:
            raise TypeError(f"{where}: must return a bool tensor, got {value.dtype} (compare, e.g. `x > limit`)")
