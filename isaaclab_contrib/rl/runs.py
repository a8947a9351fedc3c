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
* :func:`find_checkpoint` — the checkpoint a resumed training starts from (``train.py --resume`` with
  ``--load_run`` / ``--checkpoint``): a run folder of an experiment and a ``model_<it>.pt`` in it, chosen by
  name or regular expression, the latest by default; a missing experiment, run or checkpoint is a
  :class:`CheckpointError` listing what exists.
* :func:`checkpoint_iteration` — the iteration number in a ``model_<it>.pt`` file name.
"""

from __future__ import annotations

import os
import re
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = [
    "CheckpointError",
    "check_log_root",
    "check_path_component",
    "checkpoint_iteration",
    "create_run_dir",
    "find_checkpoint",
    "load_checkpoint",
]

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


_RUN_STAMP = re.compile(r"(\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d(?:-\d{6})?)(?:-(\d+))?_")
_MODEL_FILE = re.compile(r"model_(\d+)\.pt")
_MAX_LISTED = 20


def checkpoint_iteration(name: str) -> int | None:
    """The iteration ``<it>`` of an rsl-rl checkpoint file name ``model_<it>.pt``, else ``None``."""
    match = _MODEL_FILE.fullmatch(name)
    return int(match[1]) if match else None


def _run_order(name: str) -> tuple:
    """Sort key of run folder names, oldest first: the time stamp ``create_run_dir`` writes, then its collision
    suffix ``-1``, ``-2``... (names without a time stamp first, by name)."""
    match = _RUN_STAMP.match(name)
    if match is None:
        return (0, "", 0, name)
    return (1, match[1], int(match[2] or 0), name)


def _checkpoint_order(name: str) -> tuple:
    """Sort key of checkpoint names: ``model_<it>.pt`` by iteration number (``model_10`` after ``model_9``),
    after every other name."""
    iteration = checkpoint_iteration(name)
    return (0, -1, name) if iteration is None else (1, iteration, name)


def _listing(names: list[str]) -> str:
    if not names:
        return "none"
    shown = names[-_MAX_LISTED:]
    more = f"... ({len(names) - len(shown)} more), " if len(names) > len(shown) else ""
    return more + ", ".join(shown)


def _pattern(text: str, flag: str) -> re.Pattern:
    try:
        return re.compile(text)
    except re.error as err:
        raise CheckpointError(
            f"{flag} {text!r} is neither an existing name nor a valid regular expression ({err})"
        ) from None


def _select(names: list[str], wanted: str, flag: str) -> list[str]:
    """The names equal to *wanted*, else those *wanted* fully matches as a regular expression."""
    if wanted in names:
        return [wanted]
    pattern = _pattern(wanted, flag)
    return [name for name in names if pattern.fullmatch(name)]


def find_checkpoint(
    log_root: str | os.PathLike,
    experiment_name: str,
    load_run: str | None = None,
    checkpoint: str | None = None,
) -> Path:
    """The checkpoint file a resumed training loads: ``<log_root>/<experiment_name>/<run>/<checkpoint>``.

    Args:
        log_root: The folder that holds the experiments (``train.py --log_root``).
        experiment_name: The experiment folder below it (one folder name).
        load_run: A run folder name, or a regular expression its whole name must match; the latest matching run
            (by the time stamp in the name) that holds a matching checkpoint is taken. ``None``: any run.
        checkpoint: A file name in the run folder, or a regular expression its whole name must match (e.g.
            ``model_.*.pt``); the latest matching file is taken: ``model_<it>.pt`` files by iteration number,
            not by name. ``None``: the latest ``model_<it>.pt``.

    Raises:
        CheckpointError: The experiment folder does not exist, no run matches, or no run that matches holds a
            matching checkpoint; the message lists the experiments, runs or checkpoints that exist. An
            invalid regular expression is named too.
    """
    experiment_name = check_path_component(experiment_name, "experiment_name")
    root = Path(log_root)
    folder = root / experiment_name
    if not folder.is_dir():
        experiments = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        raise CheckpointError(
            f"--resume: no experiment folder {str(folder)!r} (experiment_name {experiment_name!r}); experiments in "
            f"{str(root)!r}: {_listing(experiments)}"
        )
    runs = sorted((p.name for p in folder.iterdir() if p.is_dir()), key=_run_order)
    chosen = runs if load_run is None else _select(runs, load_run, "--load_run")
    if not chosen:
        raise CheckpointError(
            f"--load_run {load_run!r}: no run folder in {str(folder)!r} has that name or matches it; runs there "
            f"(oldest first): {_listing(runs)}"
        )
    for run in reversed(chosen):
        files = sorted((p.name for p in (folder / run).iterdir() if p.is_file()), key=_checkpoint_order)
        if checkpoint is None:
            found = [name for name in files if checkpoint_iteration(name) is not None]
        else:
            found = _select(files, checkpoint, "--checkpoint")
        if found:
            return folder / run / found[-1]
        if len(chosen) == 1:
            models = [name for name in files if name.endswith(".pt")]
            what = (
                "no model_<it>.pt checkpoint"
                if checkpoint is None
                else f"no checkpoint named or matching {checkpoint!r}"
            )
            raise CheckpointError(
                f"--checkpoint: run {str(folder / run)!r} has {what}; checkpoints there: {_listing(models)}"
            )
    what = "a model_<it>.pt checkpoint" if checkpoint is None else f"a checkpoint named or matching {checkpoint!r}"
    which = "runs" if load_run is None else f"runs matching --load_run {load_run!r}"
    latest = chosen[-1]
    models = sorted((p.name for p in (folder / latest).iterdir() if p.name.endswith(".pt")), key=_checkpoint_order)
    raise CheckpointError(
        f"--resume: none of the {which} in {str(folder)!r} holds {what}; runs there (oldest first): "
        f"{_listing(chosen)}; checkpoints in the latest, {latest}: {_listing(models)}"
    )
