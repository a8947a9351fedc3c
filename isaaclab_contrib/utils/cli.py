"""Argument types for the scripts' command lines: bad numbers are rejected by ``argparse`` with a message."""

from __future__ import annotations

import argparse
import math

__all__ = ["nonnegative_int", "positive_float", "positive_int"]


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
