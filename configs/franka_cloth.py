"""The Franka Panda pinches a cloth lying on the ground near a corner and lifts the corner: MuJoCo-Warp arm, VBD cloth.

Per env: the Panda of ``example-robot-data`` (as in ``franka_lift_soft``), a free 24 x 24 cm cloth
(``/World/envs/env_{i}/Cloth``: 12 x 12 cells, 169 particles, 34 g, nothing pinned) lying flat on the ground in
front of it, and the ground. The scripted pick lowers the open hand until the finger pads rest on the cloth
4 cm in from a corner, closes the fingers (the pads gather the cloth between them into a fold), lifts the
corner 20 cm and holds it, the rest of the cloth hanging from the pinch and lying on the ground.

What Newton's contacts hold here, and why this task: rigid bodies collide with cloth *particles* (spheres of
the particle radius), not with its triangles, so a thin flat sheet cannot be wedged between two pads the way a
solid is: a pinch works only on the fold the closing pads gather, held by the particle-pad friction. Lifting a
corner by such a pinch holds (the lifted part weighs a few grams); dragging would need the same pinch plus
ground friction, and folding needs the cloth to be released where it lands, which the particle contacts of
one pinch do not place reliably.

Coupling (:class:`~isaaclab_coupling_configs._franka.FrankaPickSceneCfg`): virtual proxy, hand and fingers
mirrored from the ``robot`` entry (MuJoCo-Warp) into the ``object`` entry (VBD: the cloth and the ground).

Checks: ``finite``, ``lifted_m`` (rise of the pinched particles, >= 0.10 m), ``held_s`` (they stayed lifted and
within 3 cm of the tool center point, >= 1 s).

Registers the scene ``franka_cloth``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from isaaclab_contrib.scenes import InitialStateCfg, PinnedClothCfg, SceneSpec, register_scene
from isaaclab_contrib.utils.configclass import configclass

from ._franka import FrankaPickSceneCfg, pick_spec_kwargs

__all__ = ["FrankaClothSceneCfg"]


@configclass
class FrankaClothSceneCfg(FrankaPickSceneCfg):
    """The Panda and a free cloth on the ground; the pick pinches the cloth near a corner."""

    _ranges: ClassVar[dict[str, str]] = {"corner_inset": ">= 0", "pinch_radius": "> 0"}

    cloth: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Cloth",
        entry="object",
        cells=12,
        cell_size=0.02,
        particle_mass=2.0e-4,
        particle_radius=0.005,
        stiffness=2.0e2,
        damping=0.05,
        bend_stiffness=1.0e-4,
        bend_damping=1.0e-6,
        fix_left=False,
        fix_right=False,
        init_state=InitialStateCfg(pos=(0.55, 0.1, 0.005)),
    )
    """The free cloth (VBD entry ``object``; :class:`PinnedClothCfg` with nothing pinned) resting on the ground."""
    grasp_opening: float = 0.0
    """Finger-slide target while pinching [m]: closed, so the drives keep squeezing the gathered fold (a target
    the fold reaches would leave no squeeze to carry it)."""
    corner_inset: float = 0.04
    """Distance of the pinch from the cloth's corner nearest the robot, along x and y [m]."""
    pinch_radius: float = 0.02
    """Particles within this distance of the pinch point (at rest) are the lifted part [m]."""

    def grasp_point(self) -> tuple[float, float, float]:
        """Above the pinch point: the pad bottoms just touch the cloth's top [m]."""
        x, y, z = self.cloth.corner()
        return (x + self.corner_inset, y + self.corner_inset, z + self.cloth.particle_radius + 0.012)

    def pinched(self) -> list[int]:
        """Global ids of the particles near the pinch point (all envs, env after env)."""
        n = self.cloth.cells + 1
        x0, y0, _ = self.cloth.corner()
        gx, gy, _ = self.grasp_point()
        ix, iy = np.meshgrid(np.arange(n), np.arange(n), indexing="xy")
        near = np.hypot(x0 + ix * self.cloth.cell_size - gx, y0 + iy * self.cloth.cell_size - gy) <= self.pinch_radius
        local = np.flatnonzero(near.reshape(-1))
        ids = np.asarray(self.particle_ids("cloth")).reshape(self.num_envs, -1)
        return ids[:, local].reshape(-1).tolist()

    def lifted_particle_ids(self) -> list[int]:
        """The particles near the pinch point."""
        return self.pinched()


register_scene(
    "franka_cloth",
    SceneSpec(
        FrankaClothSceneCfg,
        "Franka Panda (MuJoCo-Warp, PD drives, scripted IK) pinches a cloth (VBD) near a corner and lifts it",
        **pick_spec_kwargs(),
    ),
)
