"""``NewtonVBDManager``: the spec's manager for simulations with deformables, base of the coupler manager."""

from __future__ import annotations

from isaaclab_contrib.physics.runtime.newton_manager import NewtonManager

__all__ = ["NewtonVBDManager"]


class NewtonVBDManager(NewtonManager):
    """Newton manager for scenes with deformables (cloth, cables, soft bodies) stepped by VBD.

    In the spec this class carries the deformable-specific builder handling (graph colouring,
    deformables added beside the USD import). Here that knowledge lives in the VBD solver binding
    (:class:`~isaaclab_contrib.physics.solvers.vbd.VBDBinding` colours the builder before finalization),
    so this class adds no behaviour to :class:`NewtonManager`: it exists for the spec's class chain
    (``NewtonCouplerManager`` derives from it) and for configs that name it as ``class_type``.
    Deformables are not read from USD; add them to the builder in code.
    """
