"""A legged robot (Newton's bundled MuJoCo ant) dropped onto a cloth hammock pinned along two edges.

Labels: ``/World/envs/env_{i}/Robot/...`` (the ant's bodies, joints and capsule shapes, imported
from ``nv_ant.xml`` shipped with Newton) and ``/World/envs/env_{i}/Hammock`` (the cloth). The ant
is an articulated Steel entry, the hammock a VBD entry; ADMM contacts couple them.

The ant's eight leg joints are driven Isaac Lab-style: an explicit PD actuator group
(:attr:`AntOnHammockSceneCfg.actuators`) turns joint position targets into joint efforts inside the
captured step, and :func:`trot_in_place` is an open-loop gait that writes those targets (the main
job runs it before every env step).

Registers the scene ``ant_on_hammock``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import newton
import newton.examples
import warp as wp

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg
from isaaclab_contrib.physics import SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.physics.actuators.adapter import add_actuators
from isaaclab_contrib.physics.actuators.cfg import ActuatorBaseCfg, IdealPDActuatorCfg
from isaaclab_contrib.scenes import SceneBaseCfg, SceneSpec, add_pinned_cloth, register_scene, replicate_envs
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["AntOnHammockSceneCfg", "admm_coupler_cfg", "build_ant_on_hammock", "trot_in_place"]


_ANT_TORSO_Z = 0.75  # torso height in nv_ant.xml [m]


@configclass
class AntOnHammockSceneCfg(SceneBaseCfg):
    """Geometry and materials of the ant-on-hammock scene."""

    _ranges: ClassVar[dict[str, str]] = {
        "drop_height": "> 0",
        "hammock_height": "any",
        "hammock_cells": ">= 1",
        "hammock_cell_size": "> 0",
        "hammock_particle_mass": "> 0",
        "hammock_particle_radius": "> 0",
        "hammock_stiffness": ">= 0",
        "hammock_damping": ">= 0",
        "gait_frequency": ">= 0",
        "hip_amplitude": ">= 0",
        "ankle_angle": "any",
        "ankle_amplitude": ">= 0",
    }

    env_spacing: float = 3.0
    """Distance between neighbouring env origins along x [m]."""
    drop_height: float = 0.25
    """Height of the ant's torso center above the hammock at the start [m]."""
    hammock_height: float = 0.5
    """Height of the hammock plane and its pinned edges [m]."""
    hammock_cells: int = 10
    """Cells per hammock side [count] (121 particles by default; 14 cells of 0.08 m give a finer,
    about 1.8x slower hammock of the same size)."""
    hammock_cell_size: float = 0.112
    """Cell edge length [m] (1.12 m wide by default)."""
    hammock_particle_mass: float = 0.005
    """Mass of one hammock particle [kg]."""
    hammock_particle_radius: float = 0.015
    """Contact radius of the hammock particles [m]."""
    hammock_stiffness: float = 5.0e3
    """Membrane stiffness [N/m]."""
    hammock_damping: float = 20.0
    """Membrane damping [N*s/m]."""
    actuators: dict[str, ActuatorBaseCfg] = {
        "legs": IdealPDActuatorCfg(
            joint_names_expr=["hip_.*", "ankle_.*"], stiffness=4.0, damping=0.15, effort_limit=2.0
        )
    }
    """Actuator groups of the ant's joints (Isaac Lab ``ArticulationCfg.actuators``); empty: a passive ant."""
    gait_frequency: float = 1.5
    """Stride frequency of :func:`trot_in_place` [Hz]."""
    hip_amplitude: float = 0.35
    """Hip swing amplitude of the gait [rad]."""
    ankle_angle: float = 0.9
    """Mean ankle flexion that lifts the torso [rad]."""
    ankle_amplitude: float = 0.25
    """Ankle flexion amplitude of the gait [rad]."""


def _prototype(cfg: AntOnHammockSceneCfg) -> newton.ModelBuilder:
    ant = newton.ModelBuilder()
    # The MJCF places the torso 0.75 m up and ships a floor plane; the floor is left out.
    ant.add_mjcf(
        newton.examples.get_asset("nv_ant.xml"),
        xform=wp.transform((0.0, 0.0, cfg.hammock_height + cfg.drop_height - _ANT_TORSO_Z), wp.quat_identity()),
        ignore_names=["floor"],
    )
    if cfg.actuators:
        add_actuators(ant, cfg.actuators)
    proto = newton.ModelBuilder()
    proto.add_builder(ant, label_prefix="Robot")
    add_pinned_cloth(
        proto,
        cells=cfg.hammock_cells,
        cell_size=cfg.hammock_cell_size,
        height=cfg.hammock_height,
        particle_mass=cfg.hammock_particle_mass,
        particle_radius=cfg.hammock_particle_radius,
        stiffness=cfg.hammock_stiffness,
        damping=cfg.hammock_damping,
        label="Hammock",
    )
    return proto


def build_ant_on_hammock(builder: Any, cfg: AntOnHammockSceneCfg) -> None:
    """Add ``cfg.num_envs`` ant-on-hammock envs to *builder*, one Newton world each."""
    cfg.validate()
    replicate_envs(builder, _prototype(cfg), cfg.num_envs, spacing=cfg.env_spacing)


def admm_coupler_cfg() -> CouplerAdmmCfg:
    """Ant (Steel, articulated) and hammock (VBD) coupled by ADMM contacts."""
    return CouplerAdmmCfg(
        entries=[
            CouplerEntryCfg(name="robot", solver_cfg=SteelSolverCfg(), bodies=["/World/envs/env_.*/Robot"]),
            CouplerEntryCfg(name="hammock", solver_cfg=VBDSolverCfg(iterations=10), all_particles=True),
        ],
        contact_pairs=[("robot", "hammock")],
        iterations=8,
        rho=45.0,
        gamma=1.0e-3,
        baumgarte=0.1,
    )


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
        "legged robot (ant, Steel, PD-actuated legs trotting in place) on a pinned cloth hammock (VBD), ADMM contacts",
        AntOnHammockSceneCfg,
        build_ant_on_hammock,
        lambda cfg: admm_coupler_cfg(),
        controller=trot_in_place,
    ),
)
