"""The curriculum manager (Isaac Lab's ``CurriculumManager``): terms that adapt the task as training goes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from .manager_base import TermListManager
from .manager_term_cfg import CurriculumTermCfg

__all__ = ["CurriculumManager"]


class CurriculumManager(TermListManager):
    """Runs the curriculum terms of a config whose fields are :class:`CurriculumTermCfg` s.

    A term is ``func(env, env_ids, **params)``, called by :meth:`compute` at the resets (the env passes the
    envs being reset); it changes the env (reward weights, command ranges, ...) and may return a state to log:
    a number, a one-element tensor, or a dict of them. :meth:`reset` returns the last states as
    ``Curriculum/<term>`` (``Curriculum/<term>/<key>`` for a dict), tensors turned into floats.

    Terms are not called at build (calling one changes the env).

    Args:
        cfg: The curriculum config (configclass or dict of term name to :class:`CurriculumTermCfg`), or ``None``.
        env: The env.
    """

    term_cfg_class = CurriculumTermCfg
    term_kind = "curriculum"
    min_argc = 2

    def __init__(self, cfg: Any, env: Any):
        super().__init__(cfg, env)
        self._curriculum_state: dict[str, Any] = dict.fromkeys(self._term_names)

    def __str__(self) -> str:
        lines = [f"<CurriculumManager> {len(self._term_names)} active terms:"]
        lines += [f"  {i}: {name}" for i, name in enumerate(self._term_names)]
        return "\n".join(lines)

    def compute(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> None:
        """Call every term with *env_ids* (``None``: every env, passed as ``slice(None)``) and keep what each
        returns for the logs."""
        if env_ids is None:
            env_ids = slice(None)
        for name, term_cfg in zip(self._term_names, self._term_cfgs, strict=True):
            self._curriculum_state[name] = term_cfg.func(self._env, env_ids, **term_cfg.params)

    def reset(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> dict[str, Any]:
        """The last state of every term that returned one; class terms are reset for *env_ids*.

        Returns:
            ``{"Curriculum/<term>": value}`` or, for a dict state, ``{"Curriculum/<term>/<key>": value}``, over
            all envs (Isaac Lab's: *env_ids* does not select).

        Raises:
            ValueError: A term returned a tensor of more than one element (nothing to log as a number).
        """
        extras: dict[str, Any] = {}
        for name, state in self._curriculum_state.items():
            if state is None:
                continue
            if isinstance(state, dict):
                for key, value in state.items():
                    extras[f"Curriculum/{name}/{key}"] = self._loggable(name, value)
            else:
                extras[f"Curriculum/{name}"] = self._loggable(name, state)
        for term_cfg in self._class_term_cfgs:
            term_cfg.func.reset(env_ids=env_ids)
        return extras

    def get_active_iterable_terms(self, env_idx: int) -> Sequence[tuple[str, Sequence[float]]]:
        """``(term, values)`` of the terms' last states (the same for every env)."""
        terms = []
        for name, state in self._curriculum_state.items():
            if state is None:
                continue
            values = state.values() if isinstance(state, dict) else [state]
            terms.append((name, [self._loggable(name, value) for value in values]))
        return terms

    # ------------------------------------------------------------------ build
    def _loggable(self, term_name: str, value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            if value.numel() != 1:
                raise ValueError(
                    f"{self._where(term_name)}: returned a tensor of shape {list(value.shape)}; return a number, a "
                    "one-element tensor or a dict of them to log"
                )
            return value.item()
        return value
