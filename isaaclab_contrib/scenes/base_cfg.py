"""Base config of a ready scene: the fields every scene builder reads."""

from __future__ import annotations

from isaaclab_contrib.utils.configclass import configclass

__all__ = ["SceneBaseCfg"]


@configclass
class SceneBaseCfg:
    """Fields shared by every scene config; a scene subclasses it and sets its own ``env_spacing`` default."""

    num_envs: int = 1
    """Number of environments (Newton worlds) [count]."""
    env_spacing: float
    """Distance between neighbouring env origins [m]."""
