"""Base config of a ready scene: the fields every scene builder reads."""

from __future__ import annotations

from typing import ClassVar

from isaaclab_contrib.utils.configclass import configclass

__all__ = ["SceneBaseCfg"]


@configclass
class SceneBaseCfg:
    """Fields shared by every scene config; a scene subclasses it and sets its own ``env_spacing`` default.

    ``validate()`` checks every field against its type and the range declared in ``_ranges``
    (merged along the class hierarchy, so a scene declares the ranges of its own fields).
    """

    _ranges: ClassVar[dict[str, str]] = {"num_envs": ">= 1", "env_spacing": ">= 0"}

    num_envs: int = 1
    """Number of environments (Newton worlds) [count]."""
    env_spacing: float
    """Distance between neighbouring env origins [m]."""
