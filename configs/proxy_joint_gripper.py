"""A two-finger gripper (MuJoCo) squeezes a soft block (VBD) in zero gravity, coupled by proxy bodies and joints.

The scene reproduces the geometry and parameters of Newton's ``proxy_joint_gripper`` example with
Isaac Lab-style labels, one copy per env: ``/World/envs/env_{i}/Block`` (a 1 x 3 x 3-cell
tetrahedral block, added first) and the gripper ``/World/envs/env_{i}/Gripper/{palm,left_finger,
right_finger}``: a palm welded to the world and two cube fingers on prismatic slides whose PD drives
close them on the block. :class:`HarshGripperSceneCfg` holds the example's ``--scenario harsh`` values
(a larger, denser, stiffer block gripped harder and faster).

Coupling: the ``hand`` entry (MuJoCo-Warp, contacts off) owns the gripper; the ``block`` entry (VBD)
owns the block and receives the three gripper bodies as proxy bodies *and* the weld and both slides
as proxy joints (:attr:`~isaaclab_contrib.coupling.CouplerProxyMappingCfg.joints`), whose drive
targets Newton copies from the MuJoCo side before every VBD solve. Without the proxy joints the VBD
view holds three unrelated free bodies, and with the harsh settings the block is pushed out of the
grip. The proxy contacts come from a private explicit-broad-phase pipeline on the VBD view, refreshed
every coupled step. As in Newton's example, no entry owns the gripper shapes (the MuJoCo entry
simulates no contacts); the VBD entry sees them through the proxy bodies.

Timing of Newton's example: 60 frames/s, 6 solver steps per frame, collision detection once per
frame, finger targets ramped before every frame: ``dt = 1/60`` s, ``decimation = 1``,
``num_substeps = 6`` through the manager, with :func:`controller` before every env step.

Registers the scenes ``proxy_joint_gripper`` and ``proxy_joint_gripper_harsh``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import numpy as np
import warp as wp

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import MJWarpSolverCfg, NewtonCollisionPipelineCfg, NewtonModelCfg, VBDSolverCfg
from isaaclab_contrib.scenes import SceneBaseCfg, SceneSpec, register_scene, replicate_envs
from isaaclab_contrib.utils.configclass import configclass

__all__ = [
    "FRAME_DT",
    "GripperSceneCfg",
    "HarshGripperSceneCfg",
    "build_proxy_joint_gripper",
    "controller",
    "finger_target",
    "proxy_coupler_cfg",
    "write_finger_targets",
]

FRAME_DT = 1.0 / 60.0
"""Frame (env step) of Newton's example [s]; the solver runs 6 substeps per frame."""

FINGER_JOINTS = ("left_finger_slide", "right_finger_slide")
"""Labels (below ``/World/envs/env_{i}/Gripper/``) of the two driven slides."""


@configclass
class GripperSceneCfg(SceneBaseCfg):
    """Geometry, materials, drives and the closing ramp of the gripper scene (default scenario of Newton's example)."""

    _ranges: ClassVar[dict[str, str]] = {
        "block_size": "> 0",
        "block_depth": "> 0",
        "block_y_offset": "any",
        "block_center_height": "any",
        "block_density": "> 0",
        "block_mu": ">= 0",
        "block_lambda": ">= 0",
        "block_damping": ">= 0",
        "block_particle_radius": "> 0",
        "palm_position": "any",
        "palm_half_extents": "> 0",
        "finger_half_extents": "> 0",
        "finger_offset": "> 0",
        "finger_stroke": "> 0",
        "shape_density": "> 0",
        "shape_ke": ">= 0",
        "shape_kd": ">= 0",
        "shape_kf": ">= 0",
        "shape_mu": ">= 0",
        "drive_ke": ">= 0",
        "drive_kd": ">= 0",
        "drive_effort_limit": "> 0",
        "limit_ke": ">= 0",
        "limit_kd": ">= 0",
        "close_distance": ">= 0",
        "close_time": "> 0",
        "contact_ke": ">= 0",
        "contact_kd": ">= 0",
        "contact_kf": ">= 0",
        "contact_mu": ">= 0",
        "vbd_joint_linear_ke": "> 0",
        "vbd_joint_angular_ke": "> 0",
        "vbd_contact_buffer": ">= 1",
    }

    env_spacing: float = 1.0
    """Distance between neighbouring env origins along x [m]."""
    block_size: float = 0.09
    """Height and width (z, y) of the soft block; 3 cells each [m]."""
    block_depth: float = 0.045
    """Depth (x) of the soft block; one cell [m]."""
    block_y_offset: float = 0.0
    """Offset of the block's center from the gripper's center line along y [m]."""
    block_center_height: float = 0.12
    """Height of the block's center [m]."""
    block_density: float = 180.0
    """Density of the block [kg/m^3]."""
    block_mu: float = 2.0e3
    """First Lame parameter (shear) of the Neo-Hookean block [Pa]."""
    block_lambda: float = 6.0e3
    """Second Lame parameter of the block [Pa]."""
    block_damping: float = 0.1
    """Elastic damping of the block [dimensionless]."""
    block_particle_radius: float = 0.012
    """Contact radius of the block's particles [m]."""
    palm_position: tuple[float, float, float] = (-0.07, 0.0, 0.12)
    """Position of the palm's center, welded to the world [m]."""
    palm_half_extents: tuple[float, float, float] = (0.025, 0.16, 0.055)
    """Half extents of the palm box [m]."""
    finger_half_extents: tuple[float, float, float] = (0.045, 0.035, 0.045)
    """Half extents of each cube finger [m]."""
    finger_offset: float = 0.105
    """Distance of each open finger's center from the center line along y [m]; the fingers sit at
    x = 0, in front of the palm."""
    finger_stroke: float = 0.055
    """Upper limit of each slide (closing travel) [m]."""
    shape_density: float = 800.0
    """Density of the palm and finger boxes [kg/m^3]."""
    shape_ke: float = 8.0e4
    """Contact stiffness of the gripper boxes [N/m]."""
    shape_kd: float = 1.0e-4
    """Contact damping of the gripper boxes [N*s/m]."""
    shape_kf: float = 1.0e3
    """Friction stiffness of the gripper boxes [N/m]."""
    shape_mu: float = 0.7
    """Friction coefficient of the gripper boxes [dimensionless]."""
    drive_ke: float = 2.0e4
    """Position gain of each slide's drive [N/m]."""
    drive_kd: float = 250.0
    """Velocity gain of each slide's drive [N*s/m]."""
    drive_effort_limit: float = 250.0
    """Force limit of each slide's drive [N]."""
    limit_ke: float = 5.0e4
    """Stiffness of the slide limits [N/m]."""
    limit_kd: float = 100.0
    """Damping of the slide limits [N*s/m]."""
    close_distance: float = 0.04
    """Final closing target of each slide [m]."""
    close_time: float = 0.8
    """Duration of the linear closing ramp of the targets [s]."""
    contact_ke: float = 5.0e4
    """Model soft-contact stiffness (particle-shape contacts) [N/m]."""
    contact_kd: float = 1.0e-4
    """Model soft-contact damping [N*s/m]."""
    contact_kf: float = 1.0e3
    """Model soft-contact friction stiffness [N/m]."""
    contact_mu: float = 2.0
    """Model soft-contact friction coefficient [dimensionless]."""
    vbd_joint_linear_ke: float = 2.0e7
    """Linear stiffness of the proxy joints in the VBD solver [N/m]."""
    vbd_joint_angular_ke: float = 2.0e6
    """Angular stiffness of the proxy joints in the VBD solver [N*m/rad]."""
    vbd_contact_buffer: int = 512
    """Body-particle contact slots per body in the VBD solver [count]."""


@configclass
class HarshGripperSceneCfg(GripperSceneCfg):
    """The example's harsh scenario: a larger, denser, stiffer block, off center, gripped harder and faster.
    Only the values differ; see :class:`GripperSceneCfg` for each field's meaning."""

    block_size: float = 0.1
    """Harsh: a larger block [m]."""
    block_y_offset: float = 0.03
    """Harsh: the block sits off the center line [m]."""
    block_density: float = 450.0
    """Harsh: a denser block [kg/m^3]."""
    block_mu: float = 1.2e4
    """Harsh: a stiffer block, shear [Pa]."""
    block_lambda: float = 3.6e4
    """Harsh: a stiffer block, compression [Pa]."""
    block_damping: float = 0.25
    """Harsh: more elastic damping [dimensionless]."""
    block_particle_radius: float = 0.014
    """Harsh: larger contact radius of the block's particles [m]."""
    shape_ke: float = 1.5e5
    """Harsh: stiffer gripper boxes [N/m]."""
    drive_ke: float = 5.0e4
    """Harsh: stronger slide drives, position gain [N/m]."""
    drive_kd: float = 500.0
    """Harsh: stronger slide drives, velocity gain [N*s/m]."""
    drive_effort_limit: float = 500.0
    """Harsh: stronger slide drives, force limit [N]."""
    close_distance: float = 0.052
    """Harsh: closing further [m]."""
    close_time: float = 0.3
    """Harsh: closing faster [s]."""
    contact_ke: float = 1.5e5
    """Harsh: stiffer particle-shape contact [N/m]."""
    vbd_joint_linear_ke: float = 5.0e5
    """Harsh: softer proxy joints in VBD, linear [N/m]."""
    vbd_joint_angular_ke: float = 5.0e5
    """Harsh: softer proxy joints in VBD, angular [N*m/rad]."""
    vbd_contact_buffer: int = 1024
    """Harsh: more body-particle contact slots per body [count]."""


def _env_prototype(cfg: GripperSceneCfg) -> newton.ModelBuilder:
    env = newton.ModelBuilder()
    # The block first: its particles are the env's first particles.
    cell = cfg.block_size / 3.0
    env.add_soft_grid(
        pos=wp.vec3(0.0, cfg.block_y_offset - 0.5 * cfg.block_size, cfg.block_center_height - 0.5 * cfg.block_size),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=1,
        dim_y=3,
        dim_z=3,
        cell_x=cfg.block_depth,
        cell_y=cell,
        cell_z=cell,
        density=cfg.block_density,
        k_mu=cfg.block_mu,
        k_lambda=cfg.block_lambda,
        k_damp=cfg.block_damping,
        particle_radius=cfg.block_particle_radius,
        label="Block",
    )
    shape = newton.ModelBuilder.ShapeConfig(
        density=cfg.shape_density, ke=cfg.shape_ke, kd=cfg.shape_kd, kf=cfg.shape_kf, mu=cfg.shape_mu
    )
    palm_at = wp.vec3(*cfg.palm_position)
    z = cfg.palm_position[2]
    identity = wp.quat_identity()
    palm = env.add_link(xform=wp.transform(p=palm_at, q=identity), label="Gripper/palm")
    fingers = []
    for side, sign in (("left", 1.0), ("right", -1.0)):
        y = sign * cfg.finger_offset
        fingers.append(
            env.add_link(xform=wp.transform(p=wp.vec3(0.0, y, z), q=identity), label=f"Gripper/{side}_finger")
        )
    env.add_shape_box(
        palm,
        hx=cfg.palm_half_extents[0],
        hy=cfg.palm_half_extents[1],
        hz=cfg.palm_half_extents[2],
        cfg=shape,
        label="Gripper/palm/box",
    )
    for body, side in zip(fingers, ("left", "right"), strict=True):
        hx, hy, hz = cfg.finger_half_extents
        env.add_shape_box(body, hx=hx, hy=hy, hz=hz, cfg=shape, label=f"Gripper/{side}_finger/box")
    weld = env.add_joint_fixed(
        parent=-1,
        child=palm,
        parent_xform=wp.transform(p=palm_at, q=identity),
        child_xform=wp.transform(p=wp.vec3(0.0, 0.0, 0.0), q=identity),
        label="Gripper/palm_weld",
    )
    # Each finger sits in front of the palm (x = 0) and slides toward the center line.
    slides = []
    for body, side, sign in zip(fingers, ("left", "right"), (1.0, -1.0), strict=True):
        slides.append(
            env.add_joint_prismatic(
                parent=palm,
                child=body,
                axis=wp.vec3(0.0, -sign, 0.0),
                parent_xform=wp.transform(p=wp.vec3(-cfg.palm_position[0], sign * cfg.finger_offset, 0.0), q=identity),
                child_xform=wp.transform(p=wp.vec3(0.0, 0.0, 0.0), q=identity),
                target_q=0.0,
                target_qd=0.0,
                target_ke=cfg.drive_ke,
                target_kd=cfg.drive_kd,
                limit_lower=0.0,
                limit_upper=cfg.finger_stroke,
                limit_ke=cfg.limit_ke,
                limit_kd=cfg.limit_kd,
                effort_limit=cfg.drive_effort_limit,
                label=f"Gripper/{side}_finger_slide",
            )
        )
    env.add_articulation([weld, *slides], label="Gripper")
    return env


def build_proxy_joint_gripper(builder: Any, cfg: GripperSceneCfg) -> None:
    """Add ``cfg.num_envs`` gripper-and-block envs to *builder*, one Newton world each."""
    cfg.validate()
    replicate_envs(builder, _env_prototype(cfg), cfg.num_envs, spacing=cfg.env_spacing)


def proxy_coupler_cfg(cfg: GripperSceneCfg | None = None) -> CouplerProxyCfg:
    """Gripper (MuJoCo-Warp) mirrored into the block's VBD solver as proxy bodies and proxy joints."""
    cfg = cfg or GripperSceneCfg()
    gripper = "/World/envs/env_.*/Gripper"
    return CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(
                name="hand",
                solver_cfg=MJWarpSolverCfg(iterations=20, disable_contacts=True, use_mujoco_contacts=False),
                bodies=[gripper],
                include_body_shapes=False,
            ),
            CouplerEntryCfg(
                name="block",
                solver_cfg=VBDSolverCfg(
                    iterations=30,
                    particle_enable_tile_solve=False,
                    rigid_body_particle_contact_buffer_size=cfg.vbd_contact_buffer,
                    extra_solver_args={
                        "rigid_joint_linear_ke": cfg.vbd_joint_linear_ke,
                        "rigid_joint_angular_ke": cfg.vbd_joint_angular_ke,
                    },
                ),
                all_particles=True,  # the blocks are the scene's only particles
            ),
        ],
        proxies=[
            CouplerProxyMappingCfg(
                source="hand",
                destination="block",
                bodies=[gripper],
                joints=[gripper],
                collision_pipeline=NewtonCollisionPipelineCfg(broad_phase="explicit"),
                collide_interval=1,
            )
        ],
        model_cfg=NewtonModelCfg(
            gravity=(0.0, 0.0, 0.0),
            soft_contact_ke=cfg.contact_ke,
            soft_contact_kd=cfg.contact_kd,
            soft_contact_kf=cfg.contact_kf,
            soft_contact_mu=cfg.contact_mu,
        ),
    )


def finger_target(cfg: GripperSceneCfg, t: float) -> float:
    """Closing target of both slides at time *t* [s]: a linear ramp to ``close_distance`` over ``close_time`` [m]."""
    return cfg.close_distance * min(1.0, t / cfg.close_time)


def write_finger_targets(model: Any, control: Any, cfg: GripperSceneCfg, t: float) -> None:
    """Write :func:`finger_target` into ``control.joint_target_q`` of both slides of every env (plain Newton loop)."""
    starts = model.joint_target_q_start.numpy()
    rows = [int(starts[j]) for j, label in enumerate(model.joint_label) if label.rsplit("/", 1)[-1] in FINGER_JOINTS]
    targets = control.joint_target_q.numpy()
    targets[np.asarray(rows, dtype=np.int64)] = finger_target(cfg, t)
    control.joint_target_q.assign(targets)


def controller(manager: Any, cfg: GripperSceneCfg, t: float) -> None:
    """Scene controller for the manager: the slides' targets for the env step starting at *t* [s]."""
    columns = manager.joint_view_columns("joint_target_q")
    view = manager.joint_view("joint_target_q")
    view[:, [columns.index(name) for name in FINGER_JOINTS]] = finger_target(cfg, t)


register_scene(
    "proxy_joint_gripper",
    SceneSpec(
        "two-finger gripper (MuJoCo-Warp) squeezing a soft block (VBD), proxy bodies and proxy joints, no gravity",
        GripperSceneCfg,
        build_proxy_joint_gripper,
        proxy_coupler_cfg,
        decimation=1,
        num_substeps=6,
        controller=controller,
        physics_dt=FRAME_DT,
    ),
)
register_scene(
    "proxy_joint_gripper_harsh",
    SceneSpec(
        "the gripper's harsh scenario: a larger, heavier, stiffer block gripped harder and faster",
        HarshGripperSceneCfg,
        build_proxy_joint_gripper,
        proxy_coupler_cfg,
        decimation=1,
        num_substeps=6,
        controller=controller,
        physics_dt=FRAME_DT,
    ),
)
