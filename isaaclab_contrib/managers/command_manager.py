"""Command terms and the command manager (Isaac Lab's ``CommandTerm`` / ``CommandManager``).

A command term holds a goal per env (a target velocity, a pose) that the policy observes. Each env keeps it
for a time drawn uniformly from :attr:`~CommandTermCfg.resampling_time_range` (torch's global RNG), then draws
a new one; a reset draws one at once. Metrics (``[num_envs]`` tensors the term fills) are averaged over the
envs being reset and logged as ``"Metrics/<term>/<metric>"``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import torch

from isaaclab_contrib.utils.configclass import MISSING

from .action_manager import named_errors
from .event_manager import check_time_range
from .manager_base import ManagerBase, ManagerTermBase, term_fields
from .manager_term_cfg import CommandTermCfg

__all__ = ["CommandManager", "CommandTerm"]


class CommandTerm(ManagerTermBase, ABC):
    """A command generator.

    Subclasses implement :attr:`command`, :meth:`_update_metrics`, :meth:`_resample_command` and
    :meth:`_update_command`, and may fill :attr:`metrics` with ``[num_envs]`` tensors.

    Args:
        cfg: The term's config.
        env: The env.

    Raises:
        TypeError / ValueError: ``cfg.resampling_time_range`` is not a pair ``0 <= min <= max`` of finite
            times [s].
    """

    def __init__(self, cfg: CommandTermCfg, env: Any):
        super().__init__(cfg, env)
        check_time_range(cfg.resampling_time_range, f"{type(self).__name__}: resampling_time_range", allow_never=True)
        self.metrics: dict[str, torch.Tensor] = {}
        """Metrics of the current episode, ``[num_envs]`` each, averaged and zeroed by :meth:`reset`."""
        self.time_left = torch.zeros(self.num_envs, device=self.device)
        """Time until each env draws a new command [s]."""
        self.command_counter = torch.zeros(self.num_envs, device=self.device, dtype=torch.long)
        """Commands drawn by each env in the current episode (the reset's draw counts)."""

    # ------------------------------------------------------------------ interface
    @property
    @abstractmethod
    def command(self) -> torch.Tensor:
        """The command, ``[num_envs, command_dim]``."""

    @abstractmethod
    def _update_metrics(self) -> None:
        """Update :attr:`metrics` from the current state (called at each :meth:`compute`, before resampling)."""

    @abstractmethod
    def _resample_command(self, env_ids: Sequence[int] | torch.Tensor | slice) -> None:
        """Draw a new command for *env_ids*."""

    @abstractmethod
    def _update_command(self) -> None:
        """Update the command from the current state (called at the end of each :meth:`compute`)."""

    @property
    def has_debug_vis_implementation(self) -> bool:
        """Whether the term can draw itself (no visualizer here: ``False``)."""
        return False

    def set_debug_vis(self, debug_vis: bool) -> bool:
        """Switch the term's drawing; returns whether it can draw (no visualizer here: ``False``)."""
        return False

    # ------------------------------------------------------------------ operations
    def reset(self, env_ids: Sequence[int] | torch.Tensor | slice | None = None) -> dict[str, float]:
        """Start a new episode for *env_ids* (``None``: every env).

        Returns each metric's mean over *env_ids* (then zeroed for them); zeroes :attr:`command_counter` and
        draws a new command and time left for those envs.
        """
        if env_ids is None:
            env_ids = slice(None)
        extras = {}
        for name, value in self.metrics.items():
            extras[name] = torch.mean(value[env_ids]).item()
            value[env_ids] = 0.0
        self.command_counter[env_ids] = 0
        self._resample(env_ids)
        return extras

    def compute(self, dt: float) -> None:
        """Advance by *dt* [s]: update the metrics, take *dt* off :attr:`time_left`, draw a new command for the
        envs whose time ran out (``time_left <= 0``), then update the command."""
        self._update_metrics()
        self.time_left -= dt
        due = (self.time_left <= 0.0).nonzero().flatten()
        if len(due) > 0:
            self._resample(due)
        self._update_command()

    def _resample(self, env_ids: Sequence[int] | torch.Tensor | slice) -> None:
        """Draw the time left of *env_ids* uniformly from ``resampling_time_range`` [s], then a new command;
        count it in :attr:`command_counter`."""
        num = len(range(self.num_envs)[env_ids]) if isinstance(env_ids, slice) else len(env_ids)
        if num == 0:
            return
        low, high = self.cfg.resampling_time_range
        if math.isinf(low):  # (inf, inf): never resampled
            self.time_left[env_ids] = low
        else:
            self.time_left[env_ids] = torch.empty(num, device=self.device).uniform_(low, high)
        self._resample_command(env_ids)
        self.command_counter[env_ids] += 1


class CommandManager(ManagerBase):
    """Holds the command terms.

    Args:
        cfg: A configclass (or dict) whose fields are :class:`CommandTermCfg`; ``None`` fields are skipped (a
            ``None`` config: no commands).
        env: The env.

    Raises:
        TypeError: A field is not a :class:`CommandTermCfg`, or its ``class_type`` is not a :class:`CommandTerm`.
        ValueError: A ``resampling_time_range`` that is not ``0 <= min <= max``, finite.
    """

    def __init__(self, cfg: Any, env: Any):
        self._terms: dict[str, CommandTerm] = {}
        super().__init__(cfg, env)

    def __str__(self) -> str:
        lines = [f"<CommandManager> {len(self._terms)} term(s)"]
        for index, (name, term) in enumerate(self._terms.items()):
            lines.append(f"  [{index}] {name}: {type(term).__name__}")
        return "\n".join(lines)

    @property
    def active_terms(self) -> list[str]:
        """Names of the terms."""
        return list(self._terms)

    @property
    def has_debug_vis_implementation(self) -> bool:
        """Whether a term can draw itself (no visualizer here: ``False``)."""
        return any(term.has_debug_vis_implementation for term in self._terms.values())

    def compute(self, dt: float) -> None:
        """Advance every term by *dt* [s] (the env step, ``env.step_dt``); see :meth:`CommandTerm.compute`."""
        for term in self._terms.values():
            term.compute(dt)

    def reset(self, env_ids: Sequence[int] | torch.Tensor | slice | None = None) -> dict[str, float]:
        """Reset every term for *env_ids* (``None``: every env); returns ``{"Metrics/<term>/<metric>": mean}``."""
        if env_ids is None:
            env_ids = slice(None)
        extras = {}
        for name, term in self._terms.items():
            for metric, value in term.reset(env_ids=env_ids).items():
                extras[f"Metrics/{name}/{metric}"] = value
        return extras

    def get_command(self, name: str) -> torch.Tensor:
        """The command of the term *name*, ``[num_envs, command_dim]``."""
        return self.get_term(name).command

    def get_term(self, name: str) -> CommandTerm:
        """The term *name*.

        Raises:
            KeyError: No term has that name (the message lists the terms).
        """
        if name not in self._terms:
            raise KeyError(f"CommandManager: no command term {name!r}; the terms are {list(self._terms)}")
        return self._terms[name]

    def get_active_iterable_terms(self, env_idx: int) -> Sequence[tuple[str, Sequence[float]]]:
        """``(term name, command of env *env_idx*)`` for each term, for display."""
        return [(name, term.command[env_idx].cpu().tolist()) for name, term in self._terms.items()]

    def set_debug_vis(self, debug_vis: bool) -> None:
        """Switch the terms' drawing (no visualizer here: nothing is drawn)."""
        for term in self._terms.values():
            term.set_debug_vis(debug_vis)

    def _prepare_terms(self) -> None:
        for term_name, term_cfg in term_fields(self.cfg):
            where = self._where(term_name)
            if not isinstance(term_cfg, CommandTermCfg):
                raise TypeError(f"{where}: expected a CommandTermCfg, got {type(term_cfg).__name__}")
            class_type = term_cfg.class_type
            if not (isinstance(class_type, type) and issubclass(class_type, CommandTerm)):
                shown = "unset" if class_type is MISSING else repr(class_type)
                raise TypeError(f"{where}: class_type must be a CommandTerm subclass, got {shown}")
            if term_cfg.resampling_time_range is MISSING:
                raise TypeError(f"{where}: resampling_time_range (min, max) [s] is not set")
            check_time_range(term_cfg.resampling_time_range, f"{where}: resampling_time_range", allow_never=True)
            with named_errors(where):
                term = class_type(term_cfg, self._env)
            self._terms[term_name] = term
