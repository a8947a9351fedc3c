"""A cloth authored in USD drapes over a robot authored in the same stage: both built from ``assets/usd_cloth_on_robot.usda``.

The stage (in this folder, ``assets/usd_cloth_on_robot.usda``) authors with the USD physics schemas only:

* ``/World/Robot`` — a post welded to the world (``UsdPhysics.FixedJoint``) and a T-bar on a driven revolute
  joint (``UsdPhysics.RevoluteJoint`` with an angular ``DriveAPI``), box colliders, densities;
* ``/World/Cloth/sim`` — a 0.6 m square cloth mesh (12 x 12 cells, 169 points) 15 cm above the bar, with
  ``PhysicsSurfaceDeformableSimAPI`` and a bound ``PhysicsSurfaceDeformableMaterialAPI`` material (density
  200 kg/m^3, thickness 1 mm: 72 g, stretch and bend stiffness).

The scene imports the robot with ``ArticulationCfg(spawn=UsdFileCfg(root_path="/World/Robot"))`` (MuJoCo-Warp
entry ``robot``) and the cloth with :class:`~isaaclab_contrib.scenes.UsdDeformablesCfg` (``root_path="/World/Cloth"``),
whose ``entries`` give every deformable below ``/World/Cloth`` to the VBD entry ``cloth`` by prim-path regex.
The cloth falls on the bar and drapes over it; after 1 s the bar's drive turns it by 60 degrees, carrying the
cloth. Coupling: virtual proxy, the bar mirrored into the cloth's VBD solver. ``scripts/run.py`` writes the
draped cloth back into ``<scene>.usda`` as a time-sampled mesh (below ``/World/envs/env_{i}/Deformables``).

Checks: ``finite``, ``cloth_min_z`` (the cloth never reaches the ground: the bar holds it) and
``cloth_to_bar_m`` (the cloth's center stays within 5 cm of the bar's center, horizontally: it does not slide
off while the bar turns).

Registers the scene ``usd_cloth_on_robot``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import MJWarpSolverCfg, NewtonModelCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    ENV_PATH,
    ArticulationCfg,
    CameraCfg,
    GroundPlaneCfg,
    SceneBaseCfg,
    SceneSpec,
    UsdFileCfg,
    register_scene,
    scene_sim,
)
from isaaclab_contrib.scenes.checks import MaxDistanceCheck, MinHeightCheck, SceneCheck, body_points, particle_points
from isaaclab_contrib.scenes.usd_deformables import UsdDeformablesCfg
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["STAGE", "UsdClothOnRobotSceneCfg", "controller"]

STAGE = str(Path(__file__).resolve().parent / "assets" / "usd_cloth_on_robot.usda")
"""The stage the scene is built from."""


@configclass
class UsdClothOnRobotSceneCfg(SceneBaseCfg):
    """The robot and the cloth of the stage, a ground; the bar's turn and the checks."""

    _ranges: ClassVar[dict[str, str]] = {"turn_angle": "any", "turn_start": ">= 0", "turn_time": "> 0"}

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    ground: GroundPlaneCfg = GroundPlaneCfg(entry="cloth")
    """The ground (seen by the VBD entry)."""
    robot: ArticulationCfg = ArticulationCfg(
        prim_path="{ENV_REGEX_NS}/Robot",
        entry="robot",
        spawn=UsdFileCfg(asset_path=STAGE, root_path="/World/Robot", self_collision=False),
    )
    """The post and the driven bar (MuJoCo-Warp entry ``robot``; the drive comes from the stage)."""
    cloth: UsdDeformablesCfg = UsdDeformablesCfg(
        prim_path="{ENV_REGEX_NS}/Deformables",
        asset_path=STAGE,
        root_path="/World/Cloth",
        entries={"/World/Cloth/.*": "cloth"},
        particle_radius=0.01,
    )
    """The stage's cloth (VBD entry ``cloth``, by prim path)."""
    turn_angle: float = math.pi / 3.0
    """Final yaw target of the bar [rad]."""
    turn_start: float = 1.0
    """When the bar starts turning [s]."""
    turn_time: float = 1.0
    """Duration of the turn (a linear ramp of the target) [s]."""

    def coupler_cfg(self) -> CouplerProxyCfg:
        """The robot (MuJoCo-Warp, contacts off) mirrored into the cloth's VBD solver."""
        return CouplerProxyCfg(
            entries=[
                self.entry_cfg("robot", MJWarpSolverCfg(disable_contacts=True, use_mujoco_contacts=False)),
                self.entry_cfg("cloth", VBDSolverCfg(iterations=10)),
            ],
            proxies=[CouplerProxyMappingCfg(source="robot", destination="cloth", bodies=self.entry_bodies("robot"))],
            model_cfg=NewtonModelCfg(soft_contact_ke=1.0e4, soft_contact_kd=1.0e-2, soft_contact_mu=0.8),
        )

    def bar_target(self, t: float) -> float:
        """Yaw target of the bar at time *t* [rad]."""
        return self.turn_angle * min(1.0, max(0.0, (t - self.turn_start) / self.turn_time))

    def checks(self) -> list[SceneCheck]:
        """``finite``, ``cloth_min_z`` (>= 0.1 m: the bar holds the cloth off the ground) and ``cloth_to_bar_m``
        (<= 0.05 m: the cloth's center stays over the bar's center, horizontally)."""
        cloth = particle_points(self.particle_ids("cloth"), self.num_envs)
        bar = body_points(f"{ENV_PATH}/{self.robot.label()}/World/Robot/bar")
        return [
            *super().checks(),
            MinHeightCheck("cloth_min_z", cloth, 0.1),
            MaxDistanceCheck("cloth_to_bar_m", cloth, bar, 0.05, axes=(0, 1)),
        ]


def controller(manager: Any, cfg: UsdClothOnRobotSceneCfg, t: float) -> None:
    """Scene controller: the bar's yaw target for the env step starting at *t* [s]."""
    columns = [c.rsplit("/", 1)[-1] for c in manager.joint_view_columns("joint_target_q")]
    manager.joint_view("joint_target_q")[:, columns.index("bar_yaw")] = cfg.bar_target(t)


register_scene(
    "usd_cloth_on_robot",
    SceneSpec(
        UsdClothOnRobotSceneCfg,
        "a USD-authored cloth (VBD, owned by prim path) drapes over a USD-authored driven bar (MuJoCo-Warp), proxy",
        sim=scene_sim(1.0 / 60.0, decimation=1, num_substeps=8),
        controller=controller,
        frames=150,
        viewpoint=CameraCfg(eye=(-1.0, -1.0, 1.1), target=(0.0, 0.0, 0.35)),
    ),
)
