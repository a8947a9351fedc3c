"""A two-finger gripper (MuJoCo) squeezes a soft block (VBD) in zero gravity, coupled by proxy bodies and joints.

The scene reproduces the geometry and parameters of Newton's ``proxy_joint_gripper`` example with Isaac
Lab-style labels, one copy per env: ``/World/envs/env_{i}/Block`` (a 1 x 3 x 3-cell tetrahedral block, added
first) and the gripper ``/World/envs/env_{i}/Gripper/{palm,left_finger,right_finger}``: a palm welded to the
world and two cube fingers on prismatic slides whose PD drives close them on the block.
:class:`HarshGripperSceneCfg` holds the example's ``--scenario harsh`` values (a larger, denser, stiffer block
gripped harder and faster).

Coupling: the ``hand`` entry (MuJoCo-Warp, contacts off) owns the gripper; the ``block`` entry (VBD) owns the
block and receives the three gripper bodies as proxy bodies *and* the weld and both slides as proxy joints
(:attr:`~isaaclab_contrib.coupling.CouplerProxyMappingCfg.joints`), whose drive targets Newton copies from
the MuJoCo side before every VBD solve. Without the proxy joints the VBD view holds three unrelated free
bodies, and with the harsh settings the block is pushed out of the grip. The proxy contacts come from a
private explicit-broad-phase pipeline on the VBD view, refreshed every coupled step. As in Newton's example,
no entry owns the gripper shapes (the MuJoCo entry simulates no contacts); the VBD entry sees them through the
proxy bodies.

Timing of Newton's example: 60 frames/s, 6 solver steps per frame, collision detection once per frame,
finger targets ramped before every frame: ``dt = 1/60`` s, ``decimation = 1``, ``num_substeps = 6`` through
the manager, with :func:`controller` before every env step.

Registers the scenes ``proxy_joint_gripper`` and ``proxy_joint_gripper_harsh``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import numpy as np
import warp as wp

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import MJWarpSolverCfg, NewtonCollisionPipelineCfg, NewtonModelCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    ENV_PATH,
    ArticulationCfg,
    ArticulationInitialStateCfg,
    CameraCfg,
    InitialStateCfg,
    SceneBaseCfg,
    SceneSpec,
    SoftBlockCfg,
    register_scene,
    scene_sim,
)
from isaaclab_contrib.scenes.checks import MaxDistanceCheck, SceneCheck, body_points, particle_points
from isaaclab_contrib.utils.configclass import configclass

__all__ = [
    "FRAME_DT",
    "GripperCfg",
    "GripperSceneCfg",
    "HarshGripperSceneCfg",
    "controller",
    "finger_target",
    "write_finger_targets",
]

FRAME_DT = 1.0 / 60.0
"""Frame (env step) of Newton's example [s]; the solver runs 6 substeps per frame."""

FINGER_JOINTS = ("left_finger_slide", "right_finger_slide")
"""Labels (below ``/World/envs/env_{i}/Gripper/``) of the two driven slides."""

_BLOCK_CENTER_HEIGHT = 0.12  # [m]
_BLOCK_DEPTH = 0.045  # [m], one cell along x


def _block(size: float, y_offset: float, **material: Any) -> SoftBlockCfg:
    """The soft block of the example: *size* high and wide (3 cells each), one cell deep, centered at
    (``depth / 2``, *y_offset*, 0.12 m)."""
    return SoftBlockCfg(
        prim_path="{ENV_REGEX_NS}/Block",
        entry="block",
        cells=(1, 3, 3),
        cell_size=(_BLOCK_DEPTH, size / 3.0, size / 3.0),
        init_state=InitialStateCfg(pos=(0.0, y_offset - 0.5 * size, _BLOCK_CENTER_HEIGHT - 0.5 * size)),
        **material,
    )


@configclass
class GripperCfg(ArticulationCfg):
    """The two-finger gripper, built in code: a palm welded to the world at ``init_state.pos`` (its center) and
    two cube fingers at x = 0 (in front of the palm) on PD-driven prismatic slides that close toward the
    center line."""

    _ranges: ClassVar[dict[str, str]] = {
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
    }

    prim_path: str = "{ENV_REGEX_NS}/Gripper"
    """Label path of the gripper."""
    entry: str | None = "hand"
    """The MuJoCo-Warp entry owning the gripper."""
    init_state: ArticulationInitialStateCfg = ArticulationInitialStateCfg(pos=(-0.07, 0.0, 0.12))
    """The palm's center, where it is welded to the world [m]."""
    palm_half_extents: tuple[float, float, float] = (0.025, 0.16, 0.055)
    """Half extents of the palm box [m]."""
    finger_half_extents: tuple[float, float, float] = (0.045, 0.035, 0.045)
    """Half extents of each cube finger [m]."""
    finger_offset: float = 0.105
    """Distance of each open finger's center from the center line along y [m]."""
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

    def create(self, builder: newton.ModelBuilder, label: str) -> None:
        shape = newton.ModelBuilder.ShapeConfig(
            density=self.shape_density, ke=self.shape_ke, kd=self.shape_kd, kf=self.shape_kf, mu=self.shape_mu
        )
        palm_position = self.init_state.pos
        palm_at = wp.vec3(*palm_position)
        z = palm_position[2]
        identity = wp.quat_identity()
        palm = builder.add_link(xform=wp.transform(p=palm_at, q=identity), label=f"{label}/palm")
        fingers = []
        for side, sign in (("left", 1.0), ("right", -1.0)):
            y = sign * self.finger_offset
            fingers.append(
                builder.add_link(xform=wp.transform(p=wp.vec3(0.0, y, z), q=identity), label=f"{label}/{side}_finger")
            )
        px, py, pz = self.palm_half_extents
        builder.add_shape_box(palm, hx=px, hy=py, hz=pz, cfg=shape, label=f"{label}/palm/box")
        for body, side in zip(fingers, ("left", "right"), strict=True):
            hx, hy, hz = self.finger_half_extents
            builder.add_shape_box(body, hx=hx, hy=hy, hz=hz, cfg=shape, label=f"{label}/{side}_finger/box")
        weld = builder.add_joint_fixed(
            parent=-1,
            child=palm,
            parent_xform=wp.transform(p=palm_at, q=identity),
            child_xform=wp.transform(p=wp.vec3(0.0, 0.0, 0.0), q=identity),
            label=f"{label}/palm_weld",
        )
        # Each finger sits in front of the palm (x = 0) and slides toward the center line.
        slides = []
        for body, side, sign in zip(fingers, ("left", "right"), (1.0, -1.0), strict=True):
            slides.append(
                builder.add_joint_prismatic(
                    parent=palm,
                    child=body,
                    axis=wp.vec3(0.0, -sign, 0.0),
                    parent_xform=wp.transform(p=wp.vec3(-palm_position[0], sign * self.finger_offset, 0.0), q=identity),
                    child_xform=wp.transform(p=wp.vec3(0.0, 0.0, 0.0), q=identity),
                    target_q=0.0,
                    target_qd=0.0,
                    target_ke=self.drive_ke,
                    target_kd=self.drive_kd,
                    limit_lower=0.0,
                    limit_upper=self.finger_stroke,
                    limit_ke=self.limit_ke,
                    limit_kd=self.limit_kd,
                    effort_limit=self.drive_effort_limit,
                    label=f"{label}/{side}_finger_slide",
                )
            )
        builder.add_articulation([weld, *slides], label=label)


@configclass
class GripperSceneCfg(SceneBaseCfg):
    """Block, gripper, closing ramp and contact settings of the gripper scene (default scenario of Newton's example)."""

    _ranges: ClassVar[dict[str, str]] = {
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
    block: SoftBlockCfg = _block(
        0.09, 0.0, density=180.0, k_mu=2.0e3, k_lambda=6.0e3, k_damp=0.1, particle_radius=0.012
    )
    """The soft block (VBD entry ``block``): its particles are the env's first particles."""
    gripper: GripperCfg = GripperCfg()
    """The gripper (MuJoCo-Warp entry ``hand``)."""
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

    def coupler_cfg(self) -> CouplerProxyCfg:
        """Gripper (MuJoCo-Warp) mirrored into the block's VBD solver as proxy bodies and proxy joints."""
        gripper = self.entry_bodies("hand")
        return CouplerProxyCfg(
            entries=[
                self.entry_cfg(
                    "hand",
                    MJWarpSolverCfg(iterations=20, disable_contacts=True, use_mujoco_contacts=False),
                    include_body_shapes=False,
                ),
                self.entry_cfg(
                    "block",
                    VBDSolverCfg(
                        iterations=30,
                        particle_enable_tile_solve=False,
                        rigid_body_particle_contact_buffer_size=self.vbd_contact_buffer,
                        rigid_joint_linear_ke=self.vbd_joint_linear_ke,
                        rigid_joint_angular_ke=self.vbd_joint_angular_ke,
                    ),
                ),
            ],
            proxies=[
                CouplerProxyMappingCfg(
                    source="hand",
                    destination="block",
                    bodies=gripper,
                    joints=gripper,
                    collision_pipeline=NewtonCollisionPipelineCfg(broad_phase="explicit"),
                    collide_interval=1,
                )
            ],
            model_cfg=NewtonModelCfg(
                gravity=(0.0, 0.0, 0.0),
                soft_contact_ke=self.contact_ke,
                soft_contact_kd=self.contact_kd,
                soft_contact_kf=self.contact_kf,
                soft_contact_mu=self.contact_mu,
            ),
        )

    def checks(self) -> list[SceneCheck]:
        """``finite`` and ``block_to_fingers_m``: the block stays in the grip (its center within 10 cm of the
        fingers' midpoint; without the proxy joints the harsh block is squeezed out to 0.93 m)."""
        block = particle_points(self.particle_ids("block"), self.num_envs)
        fingers = body_points(f"{ENV_PATH}/{self.gripper.label()}/(left|right)_finger")
        return [*super().checks(), MaxDistanceCheck("block_to_fingers_m", block, fingers, 0.1)]


@configclass
class HarshGripperSceneCfg(GripperSceneCfg):
    """The example's harsh scenario: a larger, denser, stiffer block, off center, gripped harder and faster.
    Only the values differ; see :class:`GripperSceneCfg` for each field's meaning."""

    block: SoftBlockCfg = _block(
        0.1, 0.03, density=450.0, k_mu=1.2e4, k_lambda=3.6e4, k_damp=0.25, particle_radius=0.014
    )
    """Harsh: a larger (10 cm), off-center, denser, stiffer and more damped block."""
    gripper: GripperCfg = GripperCfg(shape_ke=1.5e5, drive_ke=5.0e4, drive_kd=500.0, drive_effort_limit=500.0)
    """Harsh: stiffer gripper boxes and stronger slide drives."""
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


_TIMING: dict[str, Any] = {"sim": scene_sim(FRAME_DT, decimation=1, num_substeps=6), "controller": controller}
register_scene(
    "proxy_joint_gripper",
    SceneSpec(
        GripperSceneCfg,
        "two-finger gripper (MuJoCo-Warp) squeezing a soft block (VBD), proxy bodies and proxy joints, no gravity",
        **_TIMING,
        viewpoint=CameraCfg(eye=(-0.32, -0.32, 0.3), target=(-0.01, 0.0, 0.11)),
    ),
)
register_scene(
    "proxy_joint_gripper_harsh",
    SceneSpec(
        HarshGripperSceneCfg,
        "the gripper's harsh scenario: a larger, heavier, stiffer block gripped harder and faster",
        **_TIMING,
        viewpoint=CameraCfg(eye=(-0.32, -0.32, 0.3), target=(-0.01, 0.0, 0.11)),
    ),
)
