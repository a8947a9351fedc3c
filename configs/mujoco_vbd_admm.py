"""A ball hangs from a pinned cloth and a pendulum carries a payload: MuJoCo and VBD joined by ADMM constraints.

The scene reproduces the geometry and parameters of Newton's ``mujoco_vbd_admm_solver`` example
(MuJoCo rigid solver) with Isaac Lab-style labels, one copy per env:

* ``/World/envs/env_{i}/Cloth`` — an 11 x 11-cell cloth 2 m up, pinned along two edges;
* ``/World/envs/env_{i}/Ball`` — a free rigid ball hanging just below the cloth's center particle,
  held by a particle-body attachment (the model-level ``add_attachment_particle_body``);
* ``/World/envs/env_{i}/Pendulum`` — a rigid link on a revolute joint to the world;
* ``/World/envs/env_{i}/Payload`` — a free box joined to the pendulum's tip by a ball joint.

The ``rigid`` entry (MuJoCo-Warp) owns the ball and the pendulum; the ``cloth`` entry (VBD) owns the
cloth and the payload. Newton's ADMM coupler turns the two couplings that cross the entries, the
attachment and the pendulum-payload ball joint, into ADMM constraints; only the MuJoCo entry keeps
the payload as a joint-proximal body. There is no contact coupling (``contact_pairs=[]``) and the
model's soft contact is off, so the attachment alone carries the ball.

MuJoCo works in joint coordinates, so it sees the payload where its joint coordinates put it: the
coupler recomputes joint coordinates from body poses after every step
(:attr:`~isaaclab_contrib.coupling.CouplerCfg.update_joint_coordinates`), as the example does.

As in Newton's example no entry owns a shape (``include_body_shapes=False``); the example runs no
collision detection at all. Timing of the example: 60 frames/s, 8 solver steps per frame:
``dt = 1/480`` s, ``decimation = 8`` through the manager (the manager also runs collision
detection, which the example skips; with soft contact off and no contact pairs it only fills
contact buffers).

Registers the scene ``mujoco_vbd_admm``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import numpy as np
import warp as wp

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg
from isaaclab_contrib.physics import MJWarpSolverCfg, NewtonModelCfg, VBDSolverCfg
from isaaclab_contrib.scenes import SceneBaseCfg, SceneSpec, register_scene, replicate_envs
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["PHYSICS_DT", "AttachedBallSceneCfg", "admm_coupler_cfg", "build_mujoco_vbd_admm", "center_particle"]

PHYSICS_DT = (1.0 / 60.0) / 8
"""Physics step of Newton's example [s]: a 1/60 s frame split into 8 solver steps."""


@configclass
class AttachedBallSceneCfg(SceneBaseCfg):
    """Geometry, masses and attachment of the ball-under-cloth and pendulum scene (values of Newton's example)."""

    _ranges: ClassVar[dict[str, str]] = {
        "cloth_cells": ">= 2",
        "cloth_cell_size": "> 0",
        "cloth_corner": "any",
        "cloth_particle_mass": "> 0",
        "cloth_particle_radius": "> 0",
        "cloth_stiffness": ">= 0",
        "cloth_bend_stiffness": ">= 0",
        "cloth_damping_ratio": ">= 0",
        "ball_radius": "> 0",
        "ball_mass": "> 0",
        "ball_inertia": "> 0",
        "attachment_stiffness": "> 0",
        "pendulum_anchor": "any",
        "pendulum_half_length": "> 0",
        "pendulum_half_width": "> 0",
        "pendulum_mass": "> 0",
        "pendulum_inertia": "> 0",
        "pendulum_damping": ">= 0",
        "payload_half_extents": "> 0",
        "payload_mass": "> 0",
        "payload_inertia": "> 0",
        "payload_joint_friction": ">= 0",
    }

    env_spacing: float = 4.0
    """Distance between neighbouring env origins along x [m]."""
    ground: bool = True
    """Add a shared ground plane at z = 0."""
    cloth_cells: int = 11
    """Cloth cells per side [count]."""
    cloth_cell_size: float = 0.1
    """Cloth cell edge length [m]."""
    cloth_corner: tuple[float, float, float] = (-0.5, -0.5, 2.0)
    """Position of the cloth's first particle (lowest x and y); the cloth lies in the plane z = corner z [m]."""
    cloth_particle_mass: float = 0.05
    """Mass of one cloth particle [kg]."""
    cloth_particle_radius: float = 0.01
    """Contact radius of the cloth particles [m]."""
    cloth_stiffness: float = 1.0e3
    """Membrane (triangle) stiffness, stretch and area [N/m]."""
    cloth_bend_stiffness: float = 0.01
    """Bending (edge) stiffness [N*m]."""
    cloth_damping_ratio: float = 1.0e-2
    """Damping of triangles and edges as a fraction of their stiffness [s]."""
    ball_radius: float = 0.08
    """Radius of the ball; it starts with its top touching the cloth plane [m]."""
    ball_mass: float = 0.5
    """Mass of the ball [kg]."""
    ball_inertia: float = 5.0e-3
    """Diagonal rotational inertia of the ball [kg*m^2]."""
    attachment_stiffness: float = 1.0e3
    """Stiffness of the particle-body attachment between the cloth's center particle and the ball's top [N/m]."""
    pendulum_anchor: tuple[float, float, float] = (1.4, 0.0, 2.2)
    """World point of the pendulum's revolute joint (axis y) [m]."""
    pendulum_half_length: float = 0.28
    """Half length of the pendulum link along x [m]."""
    pendulum_half_width: float = 0.045
    """Half width and half height of the pendulum link [m]."""
    pendulum_mass: float = 0.6
    """Mass of the pendulum link [kg]."""
    pendulum_inertia: float = 1.0e-2
    """Diagonal rotational inertia of the pendulum link [kg*m^2]."""
    pendulum_damping: float = 0.5
    """Velocity gain of the pendulum joint's drive (zero target velocity) [N*m*s/rad]."""
    payload_half_extents: tuple[float, float, float] = (0.12, 0.09, 0.09)
    """Half extents of the payload box, which hangs off the pendulum's tip along x [m]."""
    payload_mass: float = 0.35
    """Mass of the payload [kg]."""
    payload_inertia: float = 6.0e-3
    """Diagonal rotational inertia of the payload [kg*m^2]."""
    payload_joint_friction: float = 1.0
    """Friction of the pendulum-payload ball joint [N*m]."""


def center_particle(cfg: AttachedBallSceneCfg, env: int = 0) -> int:
    """Global id of the cloth particle the ball of *env* is attached to."""
    per_env = (cfg.cloth_cells + 1) ** 2
    middle = cfg.cloth_cells // 2
    return env * per_env + middle * (cfg.cloth_cells + 1) + middle


def _diagonal(value: float) -> wp.mat33:
    return wp.mat33(np.eye(3) * value)


def _env_prototype(cfg: AttachedBallSceneCfg) -> newton.ModelBuilder:
    env = newton.ModelBuilder()
    ratio = cfg.cloth_damping_ratio
    env.add_cloth_grid(
        pos=wp.vec3(*cfg.cloth_corner),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=cfg.cloth_cells,
        dim_y=cfg.cloth_cells,
        cell_x=cfg.cloth_cell_size,
        cell_y=cfg.cloth_cell_size,
        mass=cfg.cloth_particle_mass,
        fix_left=True,
        fix_right=True,
        tri_ke=cfg.cloth_stiffness,
        tri_ka=cfg.cloth_stiffness,
        tri_kd=ratio * cfg.cloth_stiffness,
        edge_ke=cfg.cloth_bend_stiffness,
        edge_kd=ratio * cfg.cloth_bend_stiffness,
        particle_radius=cfg.cloth_particle_radius,
        label="Cloth",
    )
    identity = wp.quat_identity()
    # The ball hangs with its top on the cloth's plane, under the center particle.
    corner = cfg.cloth_corner
    middle = cfg.cloth_cells // 2
    center_xy = (corner[0] + middle * cfg.cloth_cell_size, corner[1] + middle * cfg.cloth_cell_size)
    ball = env.add_body(
        xform=wp.transform(p=wp.vec3(center_xy[0], center_xy[1], corner[2] - cfg.ball_radius), q=identity),
        mass=cfg.ball_mass,
        inertia=_diagonal(cfg.ball_inertia),
        label="Ball",
    )
    env.add_shape_sphere(ball, radius=cfg.ball_radius, label="Ball/sphere")
    env.add_attachment_particle_body(
        center_particle(cfg),
        ball,
        body_point=wp.vec3(0.0, 0.0, cfg.ball_radius),
        stiffness=cfg.attachment_stiffness,
    )
    # The pendulum swings about y at its anchor; the payload hangs off its tip on a ball joint.
    anchor = wp.vec3(*cfg.pendulum_anchor)
    half = cfg.pendulum_half_length
    pendulum = env.add_link(
        xform=wp.transform(p=anchor + wp.vec3(half, 0.0, 0.0), q=identity),
        mass=cfg.pendulum_mass,
        inertia=_diagonal(cfg.pendulum_inertia),
        label="Pendulum",
    )
    width = cfg.pendulum_half_width
    env.add_shape_box(pendulum, hx=half, hy=width, hz=width, label="Pendulum/box")
    hinge = env.add_joint_revolute(
        parent=-1,
        child=pendulum,
        axis=wp.vec3(0.0, 1.0, 0.0),
        target_kd=cfg.pendulum_damping,
        parent_xform=wp.transform(p=anchor, q=identity),
        child_xform=wp.transform(p=wp.vec3(-half, 0.0, 0.0), q=identity),
        label="Pendulum/hinge",
    )
    env.add_articulation([hinge], label="Pendulum")
    px, py, pz = cfg.payload_half_extents
    payload = env.add_body(
        xform=wp.transform(p=anchor + wp.vec3(2.0 * half + px, 0.0, 0.0), q=identity),
        mass=cfg.payload_mass,
        inertia=_diagonal(cfg.payload_inertia),
        label="Payload",
    )
    env.add_shape_box(payload, hx=px, hy=py, hz=pz, label="Payload/box")
    env.add_joint_ball(
        parent=pendulum,
        child=payload,
        friction=cfg.payload_joint_friction,
        parent_xform=wp.transform(p=wp.vec3(half, 0.0, 0.0), q=identity),
        child_xform=wp.transform(p=wp.vec3(-px, 0.0, 0.0), q=identity),
        collision_filter_parent=True,
        label="Payload/ball_joint",
    )
    return env


def build_mujoco_vbd_admm(builder: Any, cfg: AttachedBallSceneCfg) -> None:
    """Add the shared ground and ``cfg.num_envs`` cloth, ball, pendulum and payload envs to *builder*."""
    cfg.validate()
    if cfg.ground:
        builder.add_ground_plane(label="/World/ground")
    replicate_envs(builder, _env_prototype(cfg), cfg.num_envs, spacing=cfg.env_spacing)


def admm_coupler_cfg(cfg: AttachedBallSceneCfg | None = None) -> CouplerAdmmCfg:
    """Ball and pendulum (MuJoCo-Warp) with cloth and payload (VBD), joined by ADMM attachment and joint constraints."""
    return CouplerAdmmCfg(
        entries=[
            CouplerEntryCfg(
                name="rigid",
                solver_cfg=MJWarpSolverCfg(njmax=32, use_mujoco_contacts=False),
                bodies=["/World/envs/env_.*/Ball", "/World/envs/env_.*/Pendulum"],
                include_body_shapes=False,
            ),
            CouplerEntryCfg(
                name="cloth",
                solver_cfg=VBDSolverCfg(iterations=8),
                bodies=["/World/envs/env_.*/Payload"],
                all_particles=True,
                include_body_shapes=False,
            ),
        ],
        contact_pairs=[],
        iterations=2,
        rho=50.0,
        gamma=0.1,
        baumgarte=0.01,
        joint_proximal_destination_entries=["rigid"],
        update_joint_coordinates=True,
        model_cfg=NewtonModelCfg(soft_contact_ke=0.0, soft_contact_kd=0.0),
    )


register_scene(
    "mujoco_vbd_admm",
    SceneSpec(
        "ball (MuJoCo-Warp) attached under a pinned cloth (VBD) and a pendulum carrying a VBD payload, ADMM joints",
        AttachedBallSceneCfg,
        build_mujoco_vbd_admm,
        admm_coupler_cfg,
        decimation=8,
        physics_dt=PHYSICS_DT,
    ),
)
