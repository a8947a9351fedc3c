"""The Franka Panda picks up a soft block and lifts it: PD-driven arm (MuJoCo-Warp), Neo-Hookean block (VBD).

Per env: the Panda of ``example-robot-data`` (``/World/envs/env_{i}/Robot``, URDF, fixed base at the env
origin, convex-hull link colliders and box finger pads; PD joint drives by joint regex), a 4 cm soft cube
(``/World/envs/env_{i}/SoftBlock``, 4 x 4 x 4 tetrahedral cells, 50 g) resting on the ground 0.5 m in front
of it, and the ground. A scripted pick (:class:`~isaaclab_coupling_configs._franka.PickScript`:
tool-center-point waypoints solved once by Newton's IK, joint targets interpolated per env step) moves the
open hand down around the block, closes the fingers, lifts 20 cm and holds.

The block is held by friction only: the finger pads squeeze it (position targets inside the block, force
limited) and the contact's Coulomb friction carries its weight; there is no attachment.

Coupling (:class:`~isaaclab_coupling_configs._franka.FrankaPickSceneCfg`): virtual proxy, the hand and fingers
mirrored from the ``robot`` entry (MuJoCo-Warp) into the ``object`` entry (VBD), which owns the block and the
ground.

Checks: ``finite``, ``lifted_m`` (rise of the block's center, >= 0.10 m), ``held_s`` (simulated time the
lifted block stayed within 3 cm of the tool center point, >= 1 s).

Registers the scene ``franka_lift_soft``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isaaclab_contrib.scenes import ArticulationCfg, InitialStateCfg, SceneSpec, SoftBlockCfg, register_scene
from isaaclab_contrib.utils.configclass import configclass

from ._franka import FrankaPickSceneCfg, panda_cfg, pick_spec_kwargs

__all__ = ["BLOCK_LIFT", "BLOCK_X", "FrankaLiftSoftSceneCfg"]

BLOCK_X = 0.5
"""Distance of the block's center from the robot base along x [m]."""
BLOCK_LIFT = 0.004
"""Height of the block's lowest particles over the ground [m]: their contact radius, so the block starts at rest
(authored on the ground, the ground contact throws it 2 cm up at every reset before it settles 4 mm higher)."""


@configclass
class FrankaLiftSoftSceneCfg(FrankaPickSceneCfg):
    """The Panda, a soft block on the ground; the pick script and the lift checks."""

    block: SoftBlockCfg = SoftBlockCfg(
        prim_path="{ENV_REGEX_NS}/SoftBlock",
        entry="object",
        cells=(4, 4, 4),
        cell_size=(0.01, 0.01, 0.01),
        density=400.0,
        k_mu=2.0e4,
        k_lambda=2.0e4,
        k_damp=0.05,
        particle_radius=0.004,
        init_state=InitialStateCfg(pos=(BLOCK_X - 0.02, -0.02, BLOCK_LIFT)),
    )
    """The 4 cm soft cube (VBD entry ``object``), its lowest particles one contact radius over the ground."""
    robot: ArticulationCfg = panda_cfg("robot", arm_stiffness=2.0e3, arm_damping=1.0e2)
    """The Panda with softer arm drives than the other Franka scenes: the hand sags about 8 mm under gravity
    and closes on the block's lower half, which holds it best."""

    def grasp_point(self) -> tuple[float, float, float]:
        """The block's center at rest [m]."""
        (x, y, z), (nx, ny, nz) = self.block.init_state.pos, self.block.cells
        dx, dy, dz = self.block.cell_size
        return (x + 0.5 * nx * dx, y + 0.5 * ny * dy, z + 0.5 * nz * dz)

    def lifted_particle_ids(self) -> list[int]:
        """Every particle of the block."""
        return list(self.particle_ids("block"))

    def block_center(self, manager: Any) -> np.ndarray:
        """Center of the block of every env [m], shape ``(num_envs, 3)``."""
        return self.lifted_points()(manager).mean(axis=1)


register_scene(
    "franka_lift_soft",
    SceneSpec(
        FrankaLiftSoftSceneCfg,
        "Franka Panda (MuJoCo-Warp, PD drives, scripted IK) lifts a soft block (VBD) by friction, proxy coupling",
        **pick_spec_kwargs(),
    ),
)
