"""Action terms and the action manager (Isaac Lab's ``ActionTerm`` / ``ActionManager``).

The policy's action ``[num_envs, total_action_dim]`` is split among the terms in the order of the config's
fields; each term turns its slice into targets for one scene asset.

Two stages, as in Isaac Lab: :meth:`ActionManager.process_action` once per env step (store, check and split
the action), and applying the processed actions to the assets. Here the physics of one env step (all of its
``decimation`` physics steps) runs as one captured program, so the env calls :meth:`ActionManager.apply_action`
once per env step, before that program: a term whose writes are the same in every physics step (joint
targets) needs nothing more. A term that must act inside every physics step (a force that depends on the
current state) sets the class attribute :attr:`ActionTerm.apply_in_physics_step` and implements
:meth:`ActionTerm.apply_actions` with Warp launches only, so that it can be captured;
:meth:`ActionManager.apply_action_in_physics_step` runs those terms, and the env registers it as a callback
inside the program (:attr:`ActionManager.has_physics_step_terms` says whether it has to).
"""

from __future__ import annotations

import contextlib
import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import torch

from isaaclab_contrib.utils.configclass import MISSING
from isaaclab_contrib.utils.string import resolve_matching_names_values

from .manager_base import ManagerBase, ManagerTermBase, term_fields
from .manager_term_cfg import ActionTermCfg

__all__ = ["ActionManager", "ActionTerm"]


@contextlib.contextmanager
def named_errors(where: str) -> Iterator[None]:
    """Prefix the message of a ``TypeError`` / ``ValueError`` / ``KeyError`` raised inside with *where* (the
    manager and the term, e.g. ``"ActionManager term 'arm'"``); other errors get *where* as a note."""
    try:
        yield
    except (TypeError, ValueError, KeyError) as err:
        if type(err) not in (TypeError, ValueError, KeyError):
            err.add_note(f"raised while building {where}")
            raise
        message = err.args[0] if len(err.args) == 1 and isinstance(err.args[0], str) else str(err)
        raise type(err)(f"{where}: {message}") from err


class ActionTerm(ManagerTermBase, ABC):
    """Turns a slice of the policy's action into targets for one scene asset.

    Subclasses implement :attr:`action_dim`, :attr:`raw_actions`, :attr:`processed_actions`,
    :meth:`process_actions` (once per env step) and :meth:`apply_actions`, and override :meth:`reset` when they
    keep per-env state.

    Args:
        cfg: The term's config; :attr:`~ActionTermCfg.asset_name` names the asset (``env.scene[asset_name]``,
            kept as ``self._asset``).
        env: The env.

    Raises:
        KeyError: The scene has no entity ``cfg.asset_name`` (the message lists those it has).
    """

    apply_in_physics_step: ClassVar[bool] = False
    """``True``: :meth:`apply_actions` runs inside every physics step of the captured program (Warp launches
    only, no host synchronization, no new allocations); ``False``: once per env step, before the physics."""

    def __init__(self, cfg: ActionTermCfg, env: Any):
        super().__init__(cfg, env)
        asset_name = cfg.asset_name
        keys = list(env.scene.keys())
        if not isinstance(asset_name, str) or asset_name not in keys:
            shown = "unset" if asset_name is MISSING else repr(asset_name)
            raise KeyError(
                f"{type(self).__name__}: asset_name {shown} is not an entity of the scene; it has {sorted(keys)}"
            )
        self._asset = env.scene[asset_name]
        self._clip: torch.Tensor | None = None

    # ------------------------------------------------------------------ interface
    @property
    @abstractmethod
    def action_dim(self) -> int:
        """Number of action entries the term takes."""

    @property
    @abstractmethod
    def raw_actions(self) -> torch.Tensor:
        """The term's slice of the last action, as received: ``[num_envs, action_dim]``."""

    @property
    @abstractmethod
    def processed_actions(self) -> torch.Tensor:
        """The targets computed from :attr:`raw_actions` (scaled, offset, clipped): ``[num_envs, action_dim]``
        in the units of the targets (rad, m, N, ...)."""

    @abstractmethod
    def process_actions(self, actions: torch.Tensor) -> None:
        """Store and process the term's slice *actions* ``[num_envs, action_dim]``; called once per env step."""

    @abstractmethod
    def apply_actions(self) -> None:
        """Write :attr:`processed_actions` into the asset; called once per env step before the physics, or in
        every physics step when :attr:`apply_in_physics_step` is set."""

    @property
    def has_debug_vis_implementation(self) -> bool:
        """Whether the term can draw itself (no visualizer here: ``False``)."""
        return False

    def set_debug_vis(self, debug_vis: bool) -> bool:
        """Switch the term's drawing; returns whether the term can draw (no visualizer here: ``False``)."""
        return False

    # ------------------------------------------------------------------ clip helpers
    def _resolve_clip(self, dim_names: Sequence[str]) -> torch.Tensor | None:
        """Bounds of :attr:`~ActionTermCfg.clip` per action dimension, ``[num_envs, action_dim, 2]`` (also kept as
        ``self._clip``), or ``None`` when the config sets no clip.

        Args:
            dim_names: The name of each action dimension, in order (e.g. the joint names the term drives); the
                regexes of ``cfg.clip`` are full-matched against them. Dimensions no regex matches are not
                clipped (bounds ``(-inf, inf)``).

        Raises:
            ValueError: ``cfg.clip`` is not a dict of regex to ``(min, max)``, a bound is NaN, a pair has
                ``min > max``, a regex matches no dimension, or *dim_names* does not have :attr:`action_dim`
                entries.
        """
        clip = self.cfg.clip
        where = f"{type(self).__name__} (asset {self.cfg.asset_name!r}): clip"
        if clip is None:
            self._clip = None
            return None
        if not isinstance(clip, dict):
            raise ValueError(f"{where} must be a dict of regex to (min, max), got {type(clip).__name__}")
        if len(dim_names) != self.action_dim:
            raise ValueError(f"{where}: {len(dim_names)} dimension names for an action of {self.action_dim} entries")
        for key, bounds in clip.items():
            ok = isinstance(bounds, (tuple, list)) and len(bounds) == 2
            ok = ok and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
            if not ok or any(math.isnan(b) for b in bounds):
                raise ValueError(f"{where}[{key!r}] must be a pair (min, max) of numbers (not NaN), got {bounds!r}")
            if bounds[0] > bounds[1]:
                raise ValueError(f"{where}[{key!r}]: min {bounds[0]} is greater than max {bounds[1]}")
        ids, _, values = resolve_matching_names_values(clip, list(dim_names), where=where)
        bounds = torch.tensor([[-math.inf, math.inf]] * self.action_dim, dtype=torch.float32)
        bounds[ids] = torch.tensor(values, dtype=torch.float32)
        self._clip = bounds.unsqueeze(0).repeat(self.num_envs, 1, 1).to(self.device)
        return self._clip

    def _apply_clip(self, actions: torch.Tensor) -> torch.Tensor:
        """*actions* ``[num_envs, action_dim]`` clamped to the bounds of :meth:`_resolve_clip` (unchanged when
        no clip is set); returns a new tensor."""
        if self._clip is None:
            return actions
        return torch.clamp(actions, min=self._clip[..., 0], max=self._clip[..., 1])


class ActionManager(ManagerBase):
    """Splits the policy's action among the action terms and applies them.

    Args:
        cfg: A configclass (or dict) whose fields are :class:`ActionTermCfg`; ``None`` fields are skipped. The
            order of the fields is the order of the terms' slices in the action.
        env: The env (``num_envs``, ``device``, ``scene``).

    Raises:
        ValueError: *cfg* is ``None`` (a manager-based env needs actions).
        TypeError: A field is not an :class:`ActionTermCfg`, or its ``class_type`` is not an :class:`ActionTerm`.
        KeyError: A term's ``asset_name`` is not in the scene.
    """

    def __init__(self, cfg: Any, env: Any):
        if cfg is None:
            raise ValueError("ActionManager: the action config is None; a manager-based env needs action terms")
        self._term_names: list[str] = []
        self._terms: dict[str, ActionTerm] = {}
        super().__init__(cfg, env)
        self._action = torch.zeros((self.num_envs, self.total_action_dim), device=self.device)
        self._prev_action = torch.zeros_like(self._action)

    def __str__(self) -> str:
        lines = [f"<ActionManager> {len(self._term_names)} term(s), total action dim {self.total_action_dim}"]
        for index, (name, term) in enumerate(self._terms.items()):
            step = "physics step" if term.apply_in_physics_step else "env step"
            lines.append(f"  [{index}] {name}: {type(term).__name__}, dim {term.action_dim}, applied per {step}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ properties
    @property
    def total_action_dim(self) -> int:
        """Length of the action: the sum of the terms' :attr:`~ActionTerm.action_dim`."""
        return sum(self.action_term_dim)

    @property
    def action_term_dim(self) -> list[int]:
        """:attr:`~ActionTerm.action_dim` of each term, in order."""
        return [term.action_dim for term in self._terms.values()]

    @property
    def active_terms(self) -> list[str]:
        """Names of the terms, in the order of their slices."""
        return self._term_names

    @property
    def action(self) -> torch.Tensor:
        """The last action received, ``[num_envs, total_action_dim]``."""
        return self._action

    @property
    def prev_action(self) -> torch.Tensor:
        """The action received before :attr:`action`, ``[num_envs, total_action_dim]``."""
        return self._prev_action

    @property
    def has_physics_step_terms(self) -> bool:
        """Whether a term applies inside every physics step (the env must register
        :meth:`apply_action_in_physics_step` as a callback of the captured program)."""
        return any(term.apply_in_physics_step for term in self._terms.values())

    @property
    def has_debug_vis_implementation(self) -> bool:
        """Whether a term can draw itself (no visualizer here: ``False``)."""
        return any(term.has_debug_vis_implementation for term in self._terms.values())

    # ------------------------------------------------------------------ operations
    def process_action(self, action: torch.Tensor) -> None:
        """Store *action* and hand each term its slice; call once per env step, before :meth:`apply_action`.

        :attr:`prev_action` takes the old :attr:`action`, :attr:`action` the new one (moved to the env's
        device). Nothing changes when the action is refused.

        Args:
            action: ``[num_envs, total_action_dim]``.

        Raises:
            TypeError: *action* is not a tensor.
            ValueError: Its shape is not ``(num_envs, total_action_dim)``, or it holds NaN or infinite entries
                (the message names the envs and the terms they fall in, so they never reach the simulation).
        """
        if not isinstance(action, torch.Tensor):
            raise TypeError(
                f"ActionManager.process_action: the action must be a torch.Tensor, got {type(action).__name__}"
            )
        expected = (self.num_envs, self.total_action_dim)
        if tuple(action.shape) != expected:
            raise ValueError(
                f"ActionManager.process_action: the action has shape {tuple(action.shape)}, expected {expected} "
                f"(num_envs, total_action_dim); the terms {self._term_names} take {self.action_term_dim}"
            )
        action = action.to(device=self.device, dtype=self._action.dtype)
        finite = torch.isfinite(action)
        if not bool(finite.all()):
            self._refuse_non_finite(finite)
        self._prev_action[:] = self._action
        self._action[:] = action
        start = 0
        for term in self._terms.values():
            term.process_actions(self._action[:, start : start + term.action_dim])
            start += term.action_dim

    def apply_action(self) -> None:
        """Apply the terms that write once per env step (all but those with
        :attr:`~ActionTerm.apply_in_physics_step`); the env calls it once per env step, before the physics."""
        for term in self._terms.values():
            if not term.apply_in_physics_step:
                term.apply_actions()

    def apply_action_in_physics_step(self) -> None:
        """Apply the terms with :attr:`~ActionTerm.apply_in_physics_step` (Warp launches only); the env runs it
        inside every physics step of the captured program."""
        for term in self._terms.values():
            if term.apply_in_physics_step:
                term.apply_actions()

    def reset(self, env_ids: Sequence[int] | torch.Tensor | slice | None = None) -> dict[str, float]:
        """Zero :attr:`action` and :attr:`prev_action` of *env_ids* (``None``: every env) and reset the terms;
        returns ``{}`` (nothing to log)."""
        if env_ids is None:
            env_ids = slice(None)
        self._action[env_ids] = 0.0
        self._prev_action[env_ids] = 0.0
        for term in self._terms.values():
            term.reset(env_ids=env_ids)
        return {}

    def get_term(self, name: str) -> ActionTerm:
        """The term *name*.

        Raises:
            KeyError: No term has that name (the message lists the terms).
        """
        if name not in self._terms:
            raise KeyError(f"ActionManager: no action term {name!r}; the terms are {self._term_names}")
        return self._terms[name]

    def get_active_iterable_terms(self, env_idx: int) -> Sequence[tuple[str, Sequence[float]]]:
        """``(term name, its slice of the action of env *env_idx*)`` for each term, for display."""
        out = []
        start = 0
        for name, term in self._terms.items():
            out.append((name, self._action[env_idx, start : start + term.action_dim].cpu().tolist()))
            start += term.action_dim
        return out

    def set_debug_vis(self, debug_vis: bool) -> None:
        """Switch the terms' drawing (no visualizer here: nothing is drawn)."""
        for term in self._terms.values():
            term.set_debug_vis(debug_vis)

    # ------------------------------------------------------------------ helpers
    def _refuse_non_finite(self, finite: torch.Tensor) -> None:
        bad_envs = (~finite).any(dim=1).nonzero().flatten().tolist()
        bad_cols = (~finite).any(dim=0)
        bad_terms = []
        start = 0
        for name, term in self._terms.items():
            if bool(bad_cols[start : start + term.action_dim].any()):
                bad_terms.append(name)
            start += term.action_dim
        raise ValueError(
            f"ActionManager.process_action: the action has NaN or infinite entries in env(s) {bad_envs} "
            f"(term(s) {bad_terms}); it was refused and nothing was applied"
        )

    def _prepare_terms(self) -> None:
        for term_name, term_cfg in term_fields(self.cfg):
            where = self._where(term_name)
            if not isinstance(term_cfg, ActionTermCfg):
                raise TypeError(f"{where}: expected an ActionTermCfg, got {type(term_cfg).__name__}")
            class_type = term_cfg.class_type
            if not (isinstance(class_type, type) and issubclass(class_type, ActionTerm)):
                shown = "unset" if class_type is MISSING else repr(class_type)
                raise TypeError(f"{where}: class_type must be an ActionTerm subclass, got {shown}")
            keys = list(self._env.scene.keys())
            if term_cfg.asset_name not in keys:
                shown = "unset" if term_cfg.asset_name is MISSING else repr(term_cfg.asset_name)
                raise KeyError(f"{where}: asset_name {shown} is not an entity of the scene; it has {sorted(keys)}")
            with named_errors(where):
                term = class_type(term_cfg, self._env)
            dim = term.action_dim
            if isinstance(dim, bool) or not isinstance(dim, int) or dim < 0:
                raise ValueError(f"{where}: {class_type.__name__}.action_dim must be an int >= 0, got {dim!r}")
            self._term_names.append(term_name)
            self._terms[term_name] = term
