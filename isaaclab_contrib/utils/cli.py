"""Argument types for the scripts' command lines: a bad value is rejected by ``argparse`` with a message (a usage
error, exit status 2) while the command line is parsed, before any work starts."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from isaaclab_contrib.utils.validation import check_device_alias

__all__ = [
    "DEFAULT_SCENE",
    "MAX_PIXELS",
    "add_device_option",
    "add_num_envs_option",
    "add_scene_option",
    "device_alias",
    "even_pixels",
    "key_and_number",
    "nonnegative_int",
    "positive_float",
    "positive_int",
    "writable_dir",
]

MAX_PIXELS = 4096
"""Largest image side the cameras and viewports render [pixels]."""


def _integer_at_least(text: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (counts: envs, frames, steps, iterations)."""
    return _integer_at_least(text, 1)


def nonnegative_int(text: str) -> int:
    """An integer >= 0."""
    return _integer_at_least(text, 0)


def positive_float(text: str) -> float:
    """A finite number > 0 (time steps [s])."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0.0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def key_and_number(text: str) -> tuple[str, float] | None:
    """``KEY=NUMBER`` split into the key (as written, possibly empty) and the number (``inf`` and ``nan`` parse);
    ``None`` without an ``=`` or when the number does not parse. The caller checks both parts."""
    key, sep, value = text.partition("=")
    try:
        return (key, float(value)) if sep else None
    except ValueError:
        return None


def even_pixels(text: str) -> int:
    """An even image side in ``[2, 4096]`` pixels (video sizes: H.264 in ``yuv420p`` halves both sides, so an odd
    side would have to be padded and the video would not be the size asked for)."""
    value = _integer_at_least(text, 2)
    if value > MAX_PIXELS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_PIXELS} pixels, got {value}")
    if value % 2:
        raise argparse.ArgumentTypeError(
            f"must be an even number of pixels (H.264 video), got {value}; use {value - 1} or {value + 1}"
        )
    return value


def writable_dir(text: str) -> Path:
    """A folder to write into: an existing writable folder, or a path that can be created (its nearest existing
    ancestor is a writable folder). A path below a regular file, or a regular file itself, is refused."""
    if not text:
        raise argparse.ArgumentTypeError("expected a folder path, got an empty string")
    path = Path(text)
    probe = path
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "is a file" if probe == path else f"lies below {str(probe)!r}, which is a file"
        raise argparse.ArgumentTypeError(f"{text!r} {where}, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        what = "folder" if probe == path else f"folder {str(probe)!r} above it"
        raise argparse.ArgumentTypeError(f"{text!r}: the {what} is not writable")
    return path


def device_alias(text: str) -> str:
    """A Warp device alias: ``cpu``, ``cuda`` or ``cuda:N`` (what ``--device`` sets: ``SimulationCfg.device``)."""
    try:
        check_device_alias(text, "SimulationCfg.device")
    except (TypeError, ValueError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


# --------------------------------------------------------------------------------------- options the scripts share
DEFAULT_SCENE = "ant_on_hammock"
"""The ready scene a script runs when ``--scene`` is not given: the main job's."""


def add_scene_option(
    parser: Any, scenes: Sequence[str], *, default: str = DEFAULT_SCENE, what: str = "ready scene"
) -> None:
    """Declare ``--scene``: one of *scenes* (the registered ready scenes, ``scene_names()``), *default* when not
    given. *parser* is an ``argparse`` parser or group; *what* starts the help text."""
    parser.add_argument("--scene", choices=list(scenes), default=default, help=f"{what} (default {default})")


def add_num_envs_option(parser: Any, *, default: int | None = 1) -> None:
    """Declare ``--num_envs`` (also ``--num-envs``): envs, i.e. Newton worlds [count], an integer >= 1; a ``None``
    default leaves the count to the config (a task's own)."""
    shown = "the config's own" if default is None else default
    parser.add_argument(
        "--num_envs", "--num-envs", type=positive_int, default=default, help=f"envs (Newton worlds); default {shown}"
    )


def add_device_option(parser: Any, *, default: str | None = "cpu") -> None:
    """Declare ``--device``: a Warp device alias; a ``None`` default leaves the device to the config."""
    shown = "the config's own" if default is None else default
    parser.add_argument(
        "--device", type=device_alias, default=default, help=f"Warp device: cpu, cuda or cuda:N; default {shown}"
    )
