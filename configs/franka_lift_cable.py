"""The Franka Panda grasps one end of a cable lying on the ground and lifts it: MuJoCo-Warp arm, VBD cable.

Per env: the Panda of ``example-robot-data`` (as in ``franka_lift_soft``), a 30 cm cable
(``/World/envs/env_{i}/Cable``: Newton's VBD rod, 10 capsule segments of 8 mm radius, 84 g) lying on the
ground along x from 0.45 m in front of the robot, and the ground. The scripted pick closes the fingers on the
cable's first segment and lifts it 20 cm; the rest of the cable hangs from the grasp and drags on the ground.
The cable is held by friction only (finger pads squeezing the capsule, no attachment).

Coupling (:class:`~isaaclab_coupling_configs._franka.FrankaPickSceneCfg`): virtual proxy, hand and fingers
mirrored from the ``robot`` entry (MuJoCo-Warp) into the ``object`` entry (VBD: the cable's capsule bodies and
rod joints, and the ground). The finger-capsule contacts are rigid-rigid contacts inside VBD.

Checks: ``finite``, ``lifted_m`` (rise of the grasped first segment, >= 0.10 m), ``held_s`` (it stayed lifted
and within 3 cm of the tool center point, >= 1 s).

Registers the scene ``franka_lift_cable``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from isaaclab_contrib.coupling import CouplerAdmmCfg
from isaaclab_contrib.physics import MJWarpSolverCfg, VBDSolverCfg
from isaaclab_contrib.scenes import ENV_PATH, ArticulationCfg, InitialStateCfg, SceneSpec, register_scene
from isaaclab_contrib.scenes.cable import CableCfg
from isaaclab_contrib.scenes.checks import body_points
from isaaclab_contrib.utils.configclass import configclass

from ._franka import FrankaPickSceneCfg, panda_cfg, pick_spec_kwargs

__all__ = ["FrankaLiftCableSceneCfg"]


@configclass
class FrankaLiftCableSceneCfg(FrankaPickSceneCfg):
    """The Panda, a cable on the ground; the pick closes on the cable's first segment."""

    _ranges: ClassVar[dict[str, str]] = {"admm_iterations": ">= 1", "admm_rho": "> 0"}

    cable: CableCfg = CableCfg(
        prim_path="{ENV_REGEX_NS}/Cable",
        entry="object",
        length=0.3,
        segments=10,
        radius=0.008,
        bend_stiffness=5.0e-3,
        bend_damping=1.0e-4,
        init_state=InitialStateCfg(pos=(0.45, 0.0, 0.008)),
    )
    """The cable (VBD entry ``object``), its first end nearest the robot."""
    robot: ArticulationCfg = panda_cfg("robot", finger_stiffness=2.0e3, finger_damping=100.0, finger_effort=100.0)
    """The Panda, with stiffer finger drives than in ``franka_lift_soft`` (the capsule is hard)."""
    grasp_opening: float = 0.0
    """Finger-slide target while grasping [m] (closed: the squeeze is the drive's force on the capsule)."""
    admm_iterations: int = 5
    """ADMM iterations per substep [count]."""
    admm_rho: float = 1.0e3
    """ADMM penalty parameter [dimensionless]."""
    vbd_iterations: int = 8
    """VBD iterations per substep [count]."""

    def coupler_cfg(self) -> CouplerAdmmCfg:
        """ADMM contacts between the Panda's shapes (MuJoCo-Warp) and the cable's capsules (VBD), as in Newton's
        ``mujoco_franka_vbd_cable_admm_solver`` example."""
        return CouplerAdmmCfg(
            entries=[
                self.entry_cfg("robot", MJWarpSolverCfg(iterations=12, ls_iterations=25, use_mujoco_contacts=False)),
                self.entry_cfg("object", VBDSolverCfg(iterations=self.vbd_iterations)),
            ],
            contact_pairs=[("robot", "object")],
            iterations=self.admm_iterations,
            rho=self.admm_rho,
            gamma=1.0e-3,
            baumgarte=0.5,
            rigid_contact_matching="sticky",
        )

    def grasp_point(self) -> tuple[float, float, float]:
        """Center of the cable's first segment at rest [m]."""
        (x, y, z), _ = self.cable.end_points()
        dx, dy, _ = self.cable.unit_direction()
        half = 0.5 * self.cable.length / self.cable.segments
        return (x + half * dx, y + half * dy, z)

    def lifted_points(self) -> Any:
        """The origin of the cable's first segment (the grasped end)."""
        return body_points(f"{ENV_PATH}/{self.cable.label()}/rod_edge_body_0")


register_scene(
    "franka_lift_cable",
    SceneSpec(
        FrankaLiftCableSceneCfg,
        "Franka Panda (MuJoCo-Warp, PD drives, scripted IK) lifts one end of a VBD cable by friction, proxy coupling",
        **pick_spec_kwargs(),
    ),
)
