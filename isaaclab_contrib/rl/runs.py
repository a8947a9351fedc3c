"""Run folders and checkpoints of training scripts, checked before any expensive work.

* :func:`check_path_component` — a name that becomes one folder name (experiment, run name): one path
  component of safe characters, so it cannot escape its parent (``..``, ``a/b``, absolute paths).
* :func:`check_log_root` — a log root that is (or can be created as) a writable folder.
* :func:`create_run_dir` — a new, unique run folder ``<log_root>/<experiment>/<time>_seed<N>[_<run name>]``:
  the time has microseconds and the folder is created with ``exist_ok=False``, so two runs started at the
  same moment (or on a clock that repeats) never share a folder; the second gets a ``-1``, ``-2``... suffix
  on the time.
* :func:`load_checkpoint` — a policy file that is readable and really a TorchScript module or an rsl-rl
  checkpoint; every failure is a :class:`CheckpointError` naming the file.
"""

from __future__ import annotations

import os
import re
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = ["CheckpointError", "check_log_root", "check_path_component", "create_run_dir", "load_checkpoint"]

_COMPONENT = re.compile(r"[A-Za-z0-9_+=,@-][A-Za-z0-9_.+=,@-]*")
_MAX_COMPONENT = 128
_MAX_COLLISIONS = 10_000


def check_path_component(name: Any, where: str) -> str:
    """*name* if it is usable as one folder name, else a ``TypeError`` / ``ValueError`` naming *where*.

    Allowed: 1 to 128 characters from ``A-Z a-z 0-9 _ . + = , @ -``, not starting with ``.`` (so not ``.``,
    ``..`` or a hidden folder). Path separators, ``..``, spaces and control characters are refused.
    """
    if not isinstance(name, str):
        raise TypeError(f"{where} must be a string, got {type(name).__name__} {name!r}")
    if not name or len(name) > _MAX_COMPONENT or not _COMPONENT.fullmatch(name):
        raise ValueError(
            f"{where} must be a single folder name of 1 to {_MAX_COMPONENT} characters from A-Z a-z 0-9 _ . + = , @ - "
            f"not starting with '.', got {name!r}"
        )
    return name


def check_log_root(path: str | os.PathLike) -> Path:
    """*path* as a ``Path`` if it is a writable folder, or does not exist yet below a writable folder.

    Raises:
        NotADirectoryError: *path* (or a folder above it) is a file.
        PermissionError: The folder (or the nearest existing folder above it) is not writable.
    """
    root = Path(path)
    probe = root
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "the log root" if probe == root else f"{probe}, above the log root,"
        raise NotADirectoryError(f"log root {str(root)!r}: {where} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise PermissionError(f"log root {str(root)!r}: folder {str(probe)!r} is not writable")
    return root


def create_run_dir(
    log_root: str | os.PathLike,
    experiment_name: str,
    seed: int,
    run_name: str = "",
    *,
    now: datetime | None = None,
) -> Path:
    """Create and return a new run folder ``<log_root>/<experiment_name>/<time>_seed<seed>[_<run_name>]``.

    ``<time>`` is ``YYYY-mm-dd_HH-MM-SS-ffffff`` (microseconds). The folder is created with ``exist_ok=False``:
    if another run took the name first, ``-1``, ``-2``, ... is appended to the time until a name is free, so
    concurrent runs (threads, processes) always get distinct folders.

    Raises:
        TypeError, ValueError: *experiment_name* or *run_name* is not a single safe folder name.
        NotADirectoryError, PermissionError: The log root cannot hold folders.
    """
    experiment_name = check_path_component(experiment_name, "experiment_name")
    if run_name:
        check_path_component(run_name, "run_name")
    root = check_log_root(log_root)
    parent = root / experiment_name
    parent.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now()).strftime("%Y-%m-%d_%H-%M-%S-%f")
    suffix = f"_seed{seed}" + (f"_{run_name}" if run_name else "")
    for k in range(_MAX_COLLISIONS):
        folder = parent / (f"{stamp}{'' if k == 0 else f'-{k}'}{suffix}")
        try:
            folder.mkdir(exist_ok=False)
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(f"no free run folder name under {str(parent)!r} for {stamp}{suffix} after {_MAX_COLLISIONS}")


class CheckpointError(ValueError):
    """A policy file that cannot be used; the message names the file and why."""


def load_checkpoint(path: str | os.PathLike) -> tuple[str, Any]:
    """Read *path* as a policy: ``("torchscript", module)`` or ``("rsl_rl", checkpoint dict)``.

    An rsl-rl checkpoint (``OnPolicyRunner.save``) is a dict with ``actor_state_dict`` and
    ``critic_state_dict``; it is read with ``weights_only=True`` (tensors and plain containers only).

    Raises:
        CheckpointError: The file does not exist, is not a readable file, is empty, is neither a TorchScript
            module nor a torch checkpoint, or is a torch file without an rsl-rl policy.
    """
    import torch

    file = Path(path)
    if not file.exists():
        raise CheckpointError(f"checkpoint {str(file)!r}: no such file")
    if not file.is_file():
        raise CheckpointError(f"checkpoint {str(file)!r}: not a file")
    try:
        with file.open("rb") as handle:
            head = handle.read(1)
    except OSError as err:
        raise CheckpointError(f"checkpoint {str(file)!r}: cannot be read ({err.strerror or err})") from None
    if not head:
        raise CheckpointError(f"checkpoint {str(file)!r}: the file is empty (0 bytes), not a torch checkpoint")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # torch 2.10+ deprecates TorchScript; rsl-rl exports it
            return "torchscript", torch.jit.load(str(file), map_location="cpu")
    except Exception:  # not TorchScript: try a plain torch checkpoint
        pass
    try:
        data = torch.load(str(file), map_location="cpu", weights_only=True)
    except Exception as err:
        raise CheckpointError(
            f"checkpoint {str(file)!r}: not a TorchScript policy or torch checkpoint ({type(err).__name__}: {err})"
        ) from None
    missing = [
        key for key in ("actor_state_dict", "critic_state_dict") if not isinstance(data, dict) or key not in data
    ]
    if missing:
        raise CheckpointError(
            f"checkpoint {str(file)!r}: a torch file but not an rsl-rl checkpoint (no {', '.join(missing)}; "
            f"found {type(data).__name__}{' with ' + str(sorted(map(str, data))[:6]) if isinstance(data, dict) else ''})"
        )
    return "rsl_rl", data
