"""Demonstration datasets in Isaac Lab's HDF5 layout, read and written with h5py.

A file holds the group ``data`` (attributes ``env_args``, a JSON string naming the env and its settings, and
``total``, the number of samples of every episode together) and, in it, one group per episode, ``demo_0``,
``demo_1``, ... (attributes ``num_samples``, ``seed``, ``success``) whose datasets follow the episode's key paths
(``actions``, ``obs/policy``, ``initial_state/articulation/robot/joint_position``, ``states/...``), the first
dimension running over the steps. Any HDF5 reader opens it (``h5py.File(path)["data"]["demo_0"]["actions"]``).
"""

from __future__ import annotations

import json
import os
from typing import Any

import h5py
import numpy as np
import torch

__all__ = ["DatasetFileHandlerBase", "HDF5DatasetFileHandler"]


class DatasetFileHandlerBase:
    """What a dataset file handler offers the recorder manager (Isaac Lab's interface)."""

    def create(self, file_path: str, env_name: str | None = None) -> None:
        raise NotImplementedError

    def open(self, file_path: str, mode: str = "r") -> None:
        raise NotImplementedError

    def write_episode(self, episode: Any) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class HDF5DatasetFileHandler(DatasetFileHandlerBase):
    """Writes and reads demonstration datasets in Isaac Lab's HDF5 layout (see the module docs)."""

    def __init__(self):
        self._file: h5py.File | None = None
        self._path: str | None = None
        self._demo_count = 0

    # ------------------------------------------------------------------ files
    def create(self, file_path: str, env_name: str | None = None) -> None:
        """Create (or overwrite) the dataset file *file_path* (``.hdf5`` is added when missing); its folder is
        created. *env_name*: the task id recorded in ``env_args``."""
        if not str(file_path).endswith((".hdf5", ".h5")):
            file_path = f"{file_path}.hdf5"
        folder = os.path.dirname(os.path.abspath(file_path))
        os.makedirs(folder, exist_ok=True)
        self.close()
        self._file = h5py.File(file_path, "w")
        self._path = str(file_path)
        data = self._file.create_group("data")
        data.attrs["total"] = 0
        data.attrs["env_args"] = json.dumps({"env_name": env_name or "", "type": 2})
        self._demo_count = 0

    def open(self, file_path: str, mode: str = "r") -> None:
        """Open an existing dataset file (``mode`` ``"r"`` or ``"a"``).

        Raises:
            FileNotFoundError: No such file.
            ValueError: The file is not an HDF5 dataset of this layout (no ``data`` group).
        """
        if not os.path.isfile(file_path):
            raise FileNotFoundError(f"HDF5DatasetFileHandler: no dataset file {file_path!r}")
        self.close()
        try:
            self._file = h5py.File(file_path, mode)
        except OSError as err:
            raise ValueError(f"HDF5DatasetFileHandler: {file_path!r} is not an HDF5 file ({err})") from None
        if "data" not in self._file:
            self._file.close()
            self._file = None
            raise ValueError(f"HDF5DatasetFileHandler: {file_path!r} has no 'data' group (not a demonstration dataset)")
        self._path = str(file_path)
        self._demo_count = len(self.get_episode_names())

    def _data(self) -> h5py.Group:
        if self._file is None:
            raise RuntimeError("HDF5DatasetFileHandler: no file is open (create() or open() one first)")
        return self._file["data"]

    # ------------------------------------------------------------------ metadata
    def add_env_args(self, env_args: dict[str, Any]) -> None:
        """Merge *env_args* (JSON-serializable) into the file's ``env_args``."""
        data = self._data()
        merged = {**json.loads(data.attrs["env_args"]), **env_args}
        data.attrs["env_args"] = json.dumps(merged)

    def get_env_args(self) -> dict[str, Any]:
        """The file's ``env_args``."""
        return json.loads(self._data().attrs["env_args"])

    def get_env_name(self) -> str | None:
        """The task id the dataset was recorded on."""
        return self.get_env_args().get("env_name") or None

    def get_episode_names(self) -> list[str]:
        """The episode groups, in recording order (``demo_0``, ``demo_1``, ...)."""
        return sorted(self._data().keys(), key=lambda name: int(name.rsplit("_", 1)[-1]))

    def get_num_episodes(self) -> int:
        """Number of episodes in the file."""
        return len(self.get_episode_names())

    @property
    def demo_count(self) -> int:
        """Episodes written (or found) so far."""
        return self._demo_count

    # ------------------------------------------------------------------ episodes
    def write_episode(self, episode: Any) -> None:
        """Append *episode* (an :class:`~isaaclab_contrib.managers.recorder_manager.EpisodeData`) as the group
        ``demo_<n>``: its key paths as datasets, its step count, seed and success as attributes. An empty
        episode is not written."""
        if episode.is_empty():
            return
        data = self._data()
        group = data.create_group(f"demo_{self._demo_count}")
        _write_tree(group, episode.data)
        samples = len(episode.data["actions"]) if "actions" in episode.data else _first_length(episode.data)
        group.attrs["num_samples"] = samples
        if episode.seed is not None:
            group.attrs["seed"] = int(episode.seed)
        group.attrs["success"] = bool(episode.success)
        if episode.env_id is not None:
            group.attrs["env_id"] = int(episode.env_id)  # the env slot it ran in (to replay it there)
        data.attrs["total"] = int(data.attrs["total"]) + samples
        self._demo_count += 1

    def load_episode(self, episode_name: str, device: str = "cpu") -> dict[str, Any]:
        """The datasets of *episode_name* as a nested dict of tensors on *device* (``[steps, ...]`` each), with
        ``"attrs"`` holding its attributes.

        Raises:
            KeyError: No such episode (the message lists the names).
        """
        data = self._data()
        if episode_name not in data:
            raise KeyError(
                f"HDF5DatasetFileHandler: no episode {episode_name!r}; the file has {self.get_episode_names()}"
            )
        group = data[episode_name]
        tree = _read_tree(group, device)
        tree["attrs"] = {key: _plain(value) for key, value in group.attrs.items()}
        return tree

    def flush(self) -> None:
        """Write what is buffered to disk."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Close the file (a no-op when none is open)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def _write_tree(group: h5py.Group, tree: dict[str, Any]) -> None:
    for key, value in tree.items():
        if isinstance(value, dict):
            _write_tree(group.create_group(key), value)
        else:
            stacked = torch.stack([torch.as_tensor(v) for v in value]) if isinstance(value, list) else value
            group.create_dataset(key, data=torch.as_tensor(stacked).detach().cpu().numpy(), compression="gzip")


def _read_tree(group: h5py.Group, device: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in group.items():
        if isinstance(item, h5py.Group):
            out[key] = _read_tree(item, device)
        else:
            out[key] = torch.as_tensor(np.asarray(item[()]), device=device)
    return out


def _first_length(tree: dict[str, Any]) -> int:
    for value in tree.values():
        if isinstance(value, dict):
            return _first_length(value)
        return len(value)
    return 0


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value
