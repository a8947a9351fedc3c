"""A legged robot (Newton's bundled MuJoCo ant) dropped onto a cloth hammock pinned along two edges.

Labels: ``/World/envs/env_{i}/Robot/...`` (the ant's bodies, joints and capsule shapes, imported from
``nv_ant.xml`` shipped with Newton) and ``/World/envs/env_{i}/Hammock`` (the cloth). The ant is an
articulated Steel entry, the hammock a VBD entry; ADMM contacts couple them.

The ant's eight leg joints are driven Isaac Lab-style: an explicit PD actuator group
(``robot.actuators``) turns joint position targets into joint efforts inside the captured step, and
:func:`trot_in_place` is an open-loop gait that writes those targets (the main job runs it before every
env step).

Registers the scene ``ant_on_hammock``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import newton.examples

from isaaclab_contrib.coupling import CouplerAdmmCfg
from isaaclab_contrib.physics import IdealPDActuatorCfg, SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    ENV_PATH,
    ArticulationCfg,
    ArticulationInitialStateCfg,
    CameraCfg,
    InitialStateCfg,
    MjcfFileCfg,
    PinnedClothCfg,
    SceneBaseCfg,
    SceneSpec,
    register_scene,
)
from isaaclab_contrib.scenes.checks import MinHeightCheck, SceneCheck, body_points
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["AntOnHammockSceneCfg", "gait_targets", "trot_in_place"]


@configclass
class AntOnHammockSceneCfg(SceneBaseCfg):
    """The ant 25 cm above a 1.12 m hammock (10 x 10 cells, 0.5 m up), and its open-loop trot."""

    _ranges: ClassVar[dict[str, str]] = {
        "gait_frequency": ">= 0",
        "hip_amplitude": ">= 0",
        "ankle_angle": "any",
        "ankle_amplitude": ">= 0",
    }

    env_spacing: float = 3.0
    """Distance between neighbouring env origins along x [m]."""
    robot: ArticulationCfg = ArticulationCfg(
        prim_path="{ENV_REGEX_NS}/Robot",
        entry="robot",
        spawn=MjcfFileCfg(asset_path=newton.examples.get_asset("nv_ant.xml"), ignore_names=["floor"]),
        # The MJCF places the torso 0.75 m up: at the origin it starts 0.25 m above the hammock.
        init_state=ArticulationInitialStateCfg(pos=(0.0, 0.0, 0.0)),
        actuators={
            "legs": IdealPDActuatorCfg(
                joint_names_expr=["hip_.*", "ankle_.*"], stiffness=4.0, damping=0.15, effort_limit=2.0
            )
        },
    )
    """The ant (articulated Steel entry ``robot``); empty ``actuators``: a passive ant."""
    hammock: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Hammock",
        entry="hammock",
        # 121 particles; 14 cells of 0.08 m give a finer, about 1.8x slower hammock of the same size.
        cells=10,
        cell_size=0.112,
        particle_mass=0.005,
        particle_radius=0.015,
        stiffness=5.0e3,
        damping=20.0,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.5)),
    )
    """The hammock (VBD entry ``hammock``)."""
    gait_frequency: float = 1.5
    """Stride frequency of :func:`trot_in_place` [Hz]."""
    hip_amplitude: float = 0.35
    """Hip swing amplitude of the gait [rad]."""
    ankle_angle: float = 0.9
    """Mean ankle flexion that lifts the torso [rad]."""
    ankle_amplitude: float = 0.25
    """Ankle flexion amplitude of the gait [rad]."""

    def coupler_cfg(self) -> CouplerAdmmCfg:
        """Ant (Steel, articulated) and hammock (VBD) coupled by ADMM contacts."""
        return CouplerAdmmCfg(
            entries=[self.entry_cfg("robot", SteelSolverCfg()), self.entry_cfg("hammock", VBDSolverCfg(iterations=10))],
            contact_pairs=[("robot", "hammock")],
            iterations=8,
            rho=45.0,
            gamma=1.0e-3,
            baumgarte=0.1,
        )

    def checks(self) -> list[SceneCheck]:
        """``finite`` and ``torso_min_z``: the hammock holds the ant (its torso stays above 0.2 m)."""
        torso = body_points(f"{ENV_PATH}/{self.robot.label()}/ant/worldbody/torso")
        return [*super().checks(), MinHeightCheck("torso_min_z", torso, 0.2)]


# Leg order of nv_ant.xml: front left, front right, left back, right back. Diagonal legs swing together
# (a trot); the ankle joint of each leg flexes with the sign of its joint range.
_HIP_PHASE = {"hip_1": 0.0, "hip_2": math.pi, "hip_3": math.pi, "hip_4": 0.0}
_ANKLE_SIGN = {"ankle_1": 1.0, "ankle_2": -1.0, "ankle_3": -1.0, "ankle_4": 1.0}
_ANKLE_PHASE = {"ankle_1": 0.0, "ankle_2": math.pi, "ankle_3": math.pi, "ankle_4": 0.0}


def gait_targets(cfg: AntOnHammockSceneCfg, t: float) -> dict[str, float]:
    """Joint position targets [rad] of the open-loop trot at time *t* [s], by joint name."""
    w = 2.0 * math.pi * cfg.gait_frequency
    targets = {name: cfg.hip_amplitude * math.sin(w * t + phase) for name, phase in _HIP_PHASE.items()}
    for name, sign in _ANKLE_SIGN.items():
        flex = cfg.ankle_angle + cfg.ankle_amplitude * math.cos(w * t + _ANKLE_PHASE[name])
        targets[name] = sign * flex
    return targets


def trot_in_place(manager: Any, cfg: AntOnHammockSceneCfg, t: float) -> None:
    """Write the trot's joint position targets for time *t* [s] into every env (a zero-copy torch view)."""
    view = manager.joint_view("joint_target_q")
    columns = manager.joint_view_columns("joint_target_q")
    for name, value in gait_targets(cfg, t).items():
        view[:, columns.index(name)] = value


register_scene(
    "ant_on_hammock",
    SceneSpec(
        AntOnHammockSceneCfg,
        "legged robot (ant, Steel, PD-actuated legs trotting in place) on a pinned cloth hammock (VBD), ADMM contacts",
        controller=trot_in_place,
        viewpoint=CameraCfg(eye=(-1.9, -1.9, 1.6), target=(0.0, 0.0, 0.4)),
    ),
)
