"""Utilities shared by the configs: ``@configclass`` (``from isaaclab_contrib.utils import configclass``, as Isaac
Lab's ``isaaclab.utils``), field validation, noise, name matching, script argument types."""

from .configclass import MISSING, configclass

__all__ = ["MISSING", "configclass"]
