"""Recorder terms and the recorder manager (Isaac Lab's ``RecorderTerm`` / ``RecorderManager``).

Recorder terms return ``(key, value)`` pairs at fixed points of the env's step and reset; the manager adds
them to one episode per env (:class:`EpisodeData`): ``key`` is a path such as ``"obs/policy"``, ``value`` a
tensor ``[len(env_ids), ...]`` (or a dict of them), and each env's row is appended to that env's episode.

When an episode ends (:meth:`RecorderManager.export_episodes`, by default from
:meth:`RecorderManager.record_pre_reset`) it is handed, according to ``dataset_export_mode``, to
:meth:`RecorderManager.write_episode`. That method is the seam for dataset writers: here it keeps the episode
in :attr:`RecorderManager.completed_episodes` and writes no file (an HDF5 writer overrides it later).
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from typing import Any

import torch

from isaaclab_contrib.utils.configclass import MISSING, configclass
from isaaclab_contrib.utils.datasets import HDF5DatasetFileHandler

from .action_manager import named_errors
from .manager_base import ManagerBase, ManagerTermBase, term_fields
from .manager_term_cfg import RecorderTermCfg

__all__ = ["DatasetExportMode", "EpisodeData", "RecorderManager", "RecorderManagerBaseCfg", "RecorderTerm"]

RecordedValue = torch.Tensor | dict[str, Any] | None


class DatasetExportMode(enum.IntEnum):
    """Which finished episodes are handed to the writer (Isaac Lab's values)."""

    EXPORT_NONE = 0
    """None (the episodes are still counted)."""
    EXPORT_ALL = 1
    """Every episode, into one dataset."""
    EXPORT_SUCCEEDED_FAILED_IN_SEPARATE_FILES = 2
    """Every episode: the succeeded ones into the dataset, the failed ones into a second, ``<name>_failed``."""
    EXPORT_SUCCEEDED_ONLY = 3
    """The succeeded episodes only."""


_SETTINGS = (
    "dataset_file_handler_class_type",
    "dataset_export_dir_path",
    "dataset_filename",
    "dataset_export_mode",
    "export_in_record_pre_reset",
)


@configclass
class RecorderManagerBaseCfg:
    """Settings of the recorder manager; subclass it and declare the :class:`RecorderTermCfg` terms as fields."""

    dataset_file_handler_class_type: type | None = HDF5DatasetFileHandler
    """The dataset writer (Isaac Lab's HDF5 layout by default); ``None``: no file, the exported episodes are kept
    in memory (:attr:`RecorderManager.completed_episodes`)."""
    dataset_export_dir_path: str = "datasets"
    """Folder of the exported dataset (a relative path is relative to the working directory; created when
    missing)."""
    dataset_filename: str = "dataset"
    """Dataset file name, without extension (``.hdf5`` is added; the failed episodes of
    ``EXPORT_SUCCEEDED_FAILED_IN_SEPARATE_FILES`` go to ``<name>_failed.hdf5``)."""
    dataset_export_mode: DatasetExportMode = DatasetExportMode.EXPORT_ALL
    """Which finished episodes are handed to the writer."""
    export_in_record_pre_reset: bool = True
    """Export the episodes of the envs being reset in :meth:`RecorderManager.record_pre_reset`."""


class EpisodeData:
    """The data recorded for one env in one episode: a nested dict of key paths to lists of per-step values.

    ``add("obs/policy", x)`` appends ``x`` to ``data["obs"]["policy"]``; :meth:`get` stacks such a list into
    one tensor ``[num_records, ...]``.
    """

    def __init__(self, env_id: int | None = None, seed: int | None = None):
        self.data: dict[str, Any] = {}
        """Nested dict: the leaves are lists of tensors, one per record, in order."""
        self.env_id = env_id
        """The env the episode ran in."""
        self.seed = seed
        """The env's seed (``env.cfg.seed``) when the episode started, if any."""
        self.success: bool | None = None
        """Whether the episode succeeded (set when it ends; ``None`` before)."""

    def is_empty(self) -> bool:
        """Whether nothing was recorded."""
        return not self.data

    def add(self, key: str, value: torch.Tensor | dict[str, Any]) -> None:
        """Append *value* (a tensor, or a dict of them whose keys extend the path) under the path *key*
        (``"/"``-separated)."""
        if isinstance(value, dict):
            for sub_key, sub_value in value.items():
                self.add(f"{key}/{sub_key}", sub_value)
            return
        if not isinstance(key, str) or not key or any(not part for part in key.split("/")):
            raise ValueError(f"EpisodeData.add: the key must be a non-empty '/'-separated path, got {key!r}")
        parts = key.split("/")
        node = self.data
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ValueError(f"EpisodeData.add: {key!r} extends the path of values {part!r}")
            node = child
        leaf = node.setdefault(parts[-1], [])
        if not isinstance(leaf, list):
            raise ValueError(f"EpisodeData.add: {key!r} is a group of keys, not a value")
        leaf.append(value)

    def get(self, key: str) -> torch.Tensor | dict[str, Any]:
        """The records under *key*: a tensor ``[num_records, ...]`` for a value path, a nested dict of them
        for a group.

        Raises:
            KeyError: Nothing was recorded under *key*.
        """
        node: Any = self.data
        for part in key.split("/"):
            if not isinstance(node, dict) or part not in node:
                raise KeyError(f"EpisodeData: nothing recorded under {key!r}")
            node = node[part]
        return _stacked(node)

    def num_records(self, key: str) -> int:
        """How many values were recorded under the value path *key* (0 if none)."""
        try:
            value = self.get(key)
        except KeyError:
            return 0
        return value.shape[0] if isinstance(value, torch.Tensor) else 0


def _stacked(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _stacked(v) for k, v in node.items()}
    return torch.stack(node)


class RecorderTerm(ManagerTermBase):
    """Records data at fixed points of the env's step and reset; override the hooks needed.

    Every hook returns ``(key, value)``: ``key`` a path (``"obs/policy"``), ``value`` a tensor whose first
    dimension runs over the envs concerned (every env for the step hooks, ``env_ids`` for the reset hooks) or
    a dict of such tensors; ``(None, None)`` records nothing (the default).
    """

    def __init__(self, cfg: RecorderTermCfg, env: Any):
        super().__init__(cfg, env)

    def record_pre_reset(self, env_ids: Sequence[int] | None) -> tuple[str | None, RecordedValue]:
        """At the start of the env's reset, before the envs *env_ids* are reset."""
        return None, None

    def record_post_reset(self, env_ids: Sequence[int] | None) -> tuple[str | None, RecordedValue]:
        """At the end of the env's reset of *env_ids*."""
        return None, None

    def record_pre_step(self) -> tuple[str | None, RecordedValue]:
        """At the start of the env step, after the action is processed, before it is applied."""
        return None, None

    def record_post_step(self) -> tuple[str | None, RecordedValue]:
        """At the end of the env step, after every manager ran."""
        return None, None

    def record_post_physics_decimation_step(self) -> tuple[str | None, RecordedValue]:
        """After the physics of the env step (here the env step's physics is one captured program, so this runs
        once per env step, not after each of its physics steps)."""
        return None, None


class RecorderManager(ManagerBase):
    """Calls the recorder terms' hooks and keeps one :class:`EpisodeData` per env.

    Args:
        cfg: A :class:`RecorderManagerBaseCfg` (subclass) whose other fields are :class:`RecorderTermCfg`;
            ``None`` or a config without terms: the manager records nothing and every method does nothing.
        env: The env (``num_envs``, ``device``; ``cfg.seed`` and ``termination_manager`` when present).

    Raises:
        TypeError: *cfg* has terms but is not a :class:`RecorderManagerBaseCfg`; a field is not a
            :class:`RecorderTermCfg`, or its ``class_type`` is not a :class:`RecorderTerm`.
    """

    def __init__(self, cfg: Any, env: Any):
        self._term_names: list[str] = []
        self._terms: dict[str, RecorderTerm] = {}
        self._episodes: dict[int, EpisodeData] = {}
        self._succeeded_count: dict[int, int] = {}
        self._failed_count: dict[int, int] = {}
        self.completed_episodes: list[EpisodeData] = []
        """The episodes handed to :meth:`write_episode`, in order (what a dataset file would hold)."""
        self.completed_failed_episodes: list[EpisodeData] = []
        """With ``EXPORT_SUCCEEDED_FAILED_IN_SEPARATE_FILES``: the failed episodes (the second dataset)."""
        super().__init__(cfg, env)
        if self._term_names and not isinstance(self.cfg, RecorderManagerBaseCfg):
            raise TypeError(
                f"RecorderManager: the config must be a RecorderManagerBaseCfg (subclass), got {type(cfg).__name__}"
            )
        for env_id in range(self.num_envs):
            self._episodes[env_id] = self._new_episode(env_id)
        self._handlers: dict[bool, Any] = {}
        """The dataset writers by ``failed`` (created when the manager has terms and a writer class)."""
        handler_class = getattr(self.cfg, "dataset_file_handler_class_type", None)
        mode = DatasetExportMode(getattr(self.cfg, "dataset_export_mode", DatasetExportMode.EXPORT_NONE))
        if self._term_names and handler_class is not None and mode != DatasetExportMode.EXPORT_NONE:
            env_name = getattr(getattr(env, "spec", None), "id", None) or type(getattr(env, "cfg", env)).__name__
            folder, name = self.cfg.dataset_export_dir_path, self.cfg.dataset_filename
            files = [False]
            if mode == DatasetExportMode.EXPORT_SUCCEEDED_FAILED_IN_SEPARATE_FILES:
                files.append(True)
            for failed in files:
                handler = handler_class()
                handler.create(os.path.join(folder, f"{name}_failed" if failed else name), env_name=env_name)
                self._handlers[failed] = handler

    def __str__(self) -> str:
        return f"<RecorderManager> {len(self._term_names)} term(s): {self._term_names}"

    # ------------------------------------------------------------------ properties
    @property
    def active_terms(self) -> list[str]:
        """Names of the terms."""
        return self._term_names

    @property
    def exported_successful_episode_count(self) -> int:
        """Succeeded episodes exported so far, over every env."""
        return sum(self._succeeded_count.values())

    @property
    def exported_failed_episode_count(self) -> int:
        """Failed episodes exported so far, over every env."""
        return sum(self._failed_count.values())

    def get_exported_episode_count(self, env_id: int, succeeded: bool = True) -> int:
        """Succeeded (or failed) episodes of env *env_id* exported so far."""
        return (self._succeeded_count if succeeded else self._failed_count).get(env_id, 0)

    # ------------------------------------------------------------------ operations
    def get_episode(self, env_id: int) -> EpisodeData:
        """The episode env *env_id* is recording."""
        if env_id not in self._episodes:
            raise KeyError(f"RecorderManager: no env {env_id!r}; the envs are 0..{self.num_envs - 1}")
        return self._episodes[env_id]

    def reset(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> dict[str, float]:
        """Reset the terms and start a new, empty episode for *env_ids* (``None``: every env); returns ``{}``."""
        if not self._term_names:
            return {}
        ids = self._ids(env_ids)
        for term in self._terms.values():
            term.reset(env_ids=ids)
        for env_id in ids:
            self._episodes[env_id] = self._new_episode(env_id)
        return {}

    def add_to_episodes(self, key: str | None, value: RecordedValue, env_ids: Sequence[int] | None = None) -> None:
        """Append row ``i`` of *value* to the episode of ``env_ids[i]`` (``None``: every env) under *key*;
        a dict adds each entry under ``key/<name>``; ``key=None`` records nothing.

        Raises:
            ValueError: A tensor whose first dimension is not ``len(env_ids)``.
        """
        if key is None or not self._term_names:
            return
        ids = self._ids(env_ids)
        if isinstance(value, dict):
            for sub_key, sub_value in value.items():
                self.add_to_episodes(f"{key}/{sub_key}", sub_value, ids)
            return
        if not isinstance(value, torch.Tensor) or value.ndim == 0 or value.shape[0] != len(ids):
            shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
            raise ValueError(
                f"RecorderManager: the value recorded under {key!r} must be a tensor with one row per env "
                f"({len(ids)}), got {shape}"
            )
        rows = value.detach().clone()  # a record must not change when the env overwrites its buffers
        for row, env_id in enumerate(ids):
            self._episodes[env_id].add(key, rows[row])

    def set_success_to_episodes(self, env_ids: Sequence[int] | None, success_values: torch.Tensor) -> None:
        """Set the ``success`` of the episodes of *env_ids* from *success_values* ``[len(env_ids)]``."""
        if not self._term_names:
            return
        ids = self._ids(env_ids)
        values = success_values.flatten().tolist()
        for env_id, value in zip(ids, values, strict=True):
            self._episodes[env_id].success = bool(value)

    def record_pre_step(self) -> None:
        """Run the terms' :meth:`RecorderTerm.record_pre_step` and record what they return for every env."""
        for term in self._terms.values():
            self.add_to_episodes(*term.record_pre_step())

    def record_post_step(self) -> None:
        """Run the terms' :meth:`RecorderTerm.record_post_step` and record what they return for every env."""
        for term in self._terms.values():
            self.add_to_episodes(*term.record_post_step())

    def record_post_physics_decimation_step(self) -> None:
        """Run the terms' :meth:`RecorderTerm.record_post_physics_decimation_step` for every env."""
        for term in self._terms.values():
            self.add_to_episodes(*term.record_post_physics_decimation_step())

    def record_pre_reset(
        self, env_ids: Sequence[int] | torch.Tensor | None, force_export_or_skip: bool | None = None
    ) -> None:
        """Before the envs *env_ids* (``None``: every env) are reset: record the terms'
        :meth:`RecorderTerm.record_pre_reset`, set each episode's ``success`` (the termination term
        ``"success"`` of ``env.termination_manager`` when there is one; else whether the episode ran out its time
        without a failure termination; ``False`` without terminations), then export the
        episodes if *force_export_or_skip* is ``True``, or if it is ``None`` and ``export_in_record_pre_reset``
        is set."""
        if not self._term_names:
            return
        ids = self._ids(env_ids)
        for term in self._terms.values():
            key, value = term.record_pre_reset(ids)
            self.add_to_episodes(key, value, ids)
        success = torch.zeros(len(ids), dtype=torch.bool)
        terminations = getattr(self._env, "termination_manager", None)
        if terminations is not None and "success" in terminations.active_terms:
            success |= terminations.get_term("success")[ids].bool().cpu()
        elif terminations is not None:  # no success term: an episode that ran out its time without failing
            success |= (terminations.time_outs[ids] & ~terminations.terminated[ids]).bool().cpu()
        self.set_success_to_episodes(ids, success)
        if force_export_or_skip or (force_export_or_skip is None and self.cfg.export_in_record_pre_reset):
            self.export_episodes(ids)

    def record_post_reset(self, env_ids: Sequence[int] | torch.Tensor | None) -> None:
        """After the envs *env_ids* were reset: record the terms' :meth:`RecorderTerm.record_post_reset`."""
        if not self._term_names:
            return
        ids = self._ids(env_ids)
        for term in self._terms.values():
            key, value = term.record_post_reset(ids)
            self.add_to_episodes(key, value, ids)

    def export_episodes(self, env_ids: Sequence[int] | torch.Tensor | None = None) -> None:
        """End the episodes of *env_ids* (``None``: every env): each non-empty one is counted (succeeded or
        failed) and, as ``dataset_export_mode`` says, handed to :meth:`write_episode`; every env of *env_ids*
        then starts an empty episode."""
        if not self._term_names:
            return
        mode = DatasetExportMode(self.cfg.dataset_export_mode)
        for env_id in self._ids(env_ids):
            episode = self._episodes[env_id]
            if not episode.is_empty():
                succeeded = bool(episode.success)
                if mode == DatasetExportMode.EXPORT_ALL or (
                    mode == DatasetExportMode.EXPORT_SUCCEEDED_ONLY and succeeded
                ):
                    self.write_episode(episode, failed_dataset=False)
                elif mode == DatasetExportMode.EXPORT_SUCCEEDED_FAILED_IN_SEPARATE_FILES:
                    self.write_episode(episode, failed_dataset=not succeeded)
                counts = self._succeeded_count if succeeded else self._failed_count
                counts[env_id] = counts.get(env_id, 0) + 1
            self._episodes[env_id] = self._new_episode(env_id)

    def write_episode(self, episode: EpisodeData, failed_dataset: bool = False) -> None:
        """Write a finished episode into the dataset file (the failed-episodes file when *failed_dataset*) and
        flush it; without a writer (``dataset_file_handler_class_type=None``) keep it in memory, in
        :attr:`completed_episodes` (or :attr:`completed_failed_episodes`)."""
        handler = self._handlers.get(failed_dataset)
        if handler is None:
            (self.completed_failed_episodes if failed_dataset else self.completed_episodes).append(episode)
            return
        handler.write_episode(episode)
        handler.flush()

    @property
    def dataset_file_handlers(self) -> dict[bool, Any]:
        """The open dataset writers by ``failed`` (empty without a file)."""
        return dict(self._handlers)

    def close(self) -> None:
        """Close the dataset files (the env does on ``close()``)."""
        for handler in self._handlers.values():
            handler.close()
        self._handlers = {}

    # ------------------------------------------------------------------ helpers
    def _ids(self, env_ids: Sequence[int] | torch.Tensor | slice | None) -> list[int]:
        if env_ids is None:
            return list(range(self.num_envs))
        if isinstance(env_ids, slice):
            return list(range(self.num_envs))[env_ids]
        if isinstance(env_ids, torch.Tensor):
            env_ids = env_ids.flatten().tolist()
        ids = [int(i) for i in env_ids]
        bad = [i for i in ids if not 0 <= i < self.num_envs]
        if bad:
            raise ValueError(f"RecorderManager: env ids {bad} are out of range [0, {self.num_envs})")
        return ids

    def _new_episode(self, env_id: int) -> EpisodeData:
        seed = getattr(getattr(self._env, "cfg", None), "seed", None)
        return EpisodeData(env_id=env_id, seed=seed)

    def _prepare_terms(self) -> None:
        for term_name, term_cfg in term_fields(self.cfg):
            if term_name in _SETTINGS and isinstance(self.cfg, RecorderManagerBaseCfg):
                continue
            where = self._where(term_name)
            if not isinstance(term_cfg, RecorderTermCfg):
                raise TypeError(f"{where}: expected a RecorderTermCfg, got {type(term_cfg).__name__}")
            class_type = term_cfg.class_type
            if not (isinstance(class_type, type) and issubclass(class_type, RecorderTerm)):
                shown = "unset" if class_type is MISSING else repr(class_type)
                raise TypeError(f"{where}: class_type must be a RecorderTerm subclass, got {shown}")
            with named_errors(where):
                term = class_type(term_cfg, self._env)
            self._term_names.append(term_name)
            self._terms[term_name] = term
