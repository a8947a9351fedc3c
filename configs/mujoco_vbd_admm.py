"""A ball hangs from a pinned cloth and a pendulum carries a payload: MuJoCo and VBD joined by ADMM constraints.

The scene reproduces the geometry and parameters of Newton's ``mujoco_vbd_admm_solver`` example (MuJoCo rigid
solver) with Isaac Lab-style labels, one copy per env:

* ``/World/envs/env_{i}/Cloth`` — an 11 x 11-cell cloth 2 m up, pinned along two edges;
* ``/World/envs/env_{i}/Ball`` — a free rigid ball hanging just below the cloth's center particle, held by a
  particle-body attachment (the model-level ``add_attachment_particle_body``);
* ``/World/envs/env_{i}/Pendulum`` — a rigid link on a revolute joint to the world;
* ``/World/envs/env_{i}/Payload`` — a free box joined to the pendulum's tip by a ball joint.

The ``rigid`` entry (MuJoCo-Warp) owns the ball and the pendulum; the ``cloth`` entry (VBD) owns the cloth and
the payload. Newton's ADMM coupler turns the two couplings that cross the entries, the attachment and the
pendulum-payload ball joint (both added by :meth:`AttachedBallSceneCfg.connect`), into ADMM constraints; only
the MuJoCo entry keeps the payload as a joint-proximal body. There is no contact coupling
(``contact_pairs=[]``) and the model's soft contact is off, so the attachment alone carries the ball.

MuJoCo works in joint coordinates, so it sees the payload where its joint coordinates put it: the coupler
recomputes joint coordinates from body poses after every step
(:attr:`~isaaclab_contrib.coupling.CouplerCfg.update_joint_coordinates`), as the example does.

As in Newton's example no entry owns a shape (``include_body_shapes=False``); the example runs no collision
detection at all. Timing of the example: 60 frames/s, 8 solver steps per frame: ``dt = 1/480`` s,
``decimation = 8`` through the manager (the manager also runs collision detection, which the example skips;
with soft contact off and no contact pairs it only fills contact buffers).

Registers the scene ``mujoco_vbd_admm``.
"""

from __future__ import annotations

from typing import ClassVar

import newton
import numpy as np
import warp as wp

from isaaclab_contrib.coupling import CouplerAdmmCfg
from isaaclab_contrib.physics import MJWarpSolverCfg, NewtonModelCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    ENV_PATH,
    ArticulationCfg,
    ArticulationInitialStateCfg,
    CameraCfg,
    CuboidCfg,
    GroundPlaneCfg,
    InitialStateCfg,
    PinnedClothCfg,
    RigidObjectCfg,
    SceneBaseCfg,
    SceneSpec,
    SpawnedAsset,
    SphereCfg,
    register_scene,
    scene_sim,
)
from isaaclab_contrib.scenes.checks import MaxDistanceCheck, SceneCheck, body_points, particle_points
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["PHYSICS_DT", "AttachedBallSceneCfg", "PendulumCfg"]

PHYSICS_DT = (1.0 / 60.0) / 8
"""Physics step of Newton's example [s]: a 1/60 s frame split into 8 solver steps."""

_BALL_RADIUS = 0.08  # [m]
_ANCHOR = (1.4, 0.0, 2.2)  # the pendulum's hinge [m]
_HALF_LENGTH = 0.28  # the pendulum link's half length [m]
_PAYLOAD_HALF = (0.12, 0.09, 0.09)  # [m]


def _diagonal(value: float) -> wp.mat33:
    return wp.mat33(np.eye(3) * value)


@configclass
class PendulumCfg(ArticulationCfg):
    """A rigid box link on a revolute joint (axis y) to the world at ``init_state.pos``, extending along +x."""

    _ranges: ClassVar[dict[str, str]] = {
        "half_length": "> 0",
        "half_width": "> 0",
        "mass": "> 0",
        "inertia": "> 0",
        "damping": ">= 0",
    }

    prim_path: str = "{ENV_REGEX_NS}/Pendulum"
    """Label path of the pendulum."""
    init_state: ArticulationInitialStateCfg = ArticulationInitialStateCfg(pos=_ANCHOR)
    """The hinge's world point [m]."""
    half_length: float = _HALF_LENGTH
    """Half length of the link along x [m]."""
    half_width: float = 0.045
    """Half width and half height of the link [m]."""
    mass: float = 0.6
    """Mass of the link [kg]."""
    inertia: float = 1.0e-2
    """Diagonal rotational inertia of the link [kg*m^2]."""
    damping: float = 0.5
    """Velocity gain of the hinge's drive (zero target velocity) [N*m*s/rad]."""

    def create(self, builder: newton.ModelBuilder, label: str) -> None:
        identity = wp.quat_identity()
        anchor = wp.vec3(*self.init_state.pos)
        half = self.half_length
        pendulum = builder.add_link(
            xform=wp.transform(p=anchor + wp.vec3(half, 0.0, 0.0), q=identity),
            mass=self.mass,
            inertia=_diagonal(self.inertia),
            label=label,
        )
        width = self.half_width
        builder.add_shape_box(pendulum, hx=half, hy=width, hz=width, label=f"{label}/box")
        hinge = builder.add_joint_revolute(
            parent=-1,
            child=pendulum,
            axis=wp.vec3(0.0, 1.0, 0.0),
            target_kd=self.damping,
            parent_xform=wp.transform(p=anchor, q=identity),
            child_xform=wp.transform(p=wp.vec3(-half, 0.0, 0.0), q=identity),
            label=f"{label}/hinge",
        )
        builder.add_articulation([hinge], label=label)


@configclass
class AttachedBallSceneCfg(SceneBaseCfg):
    """Ground, cloth, ball, pendulum and payload of Newton's example (its values), and the two couplings between them."""

    _ranges: ClassVar[dict[str, str]] = {"attachment_stiffness": "> 0", "payload_joint_friction": ">= 0"}

    env_spacing: float = 4.0
    """Distance between neighbouring env origins along x [m]."""
    ground: GroundPlaneCfg | None = GroundPlaneCfg()
    """A shared ground plane at z = 0 (owned by no entry); ``None``: none."""
    cloth: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Cloth",
        entry="cloth",
        cells=11,
        cell_size=0.1,
        particle_mass=0.05,
        particle_radius=0.01,
        stiffness=1.0e3,
        damping=1.0e-2 * 1.0e3,  # the example's damping: 1 % of the stiffness
        bend_stiffness=0.01,
        bend_damping=1.0e-2 * 0.01,
        init_state=InitialStateCfg(pos=(0.05, 0.05, 2.0)),  # its first particle at (-0.5, -0.5, 2.0)
    )
    """The cloth (VBD entry ``cloth``); the ball hangs under its center particle."""
    ball: RigidObjectCfg = RigidObjectCfg(
        prim_path="{ENV_REGEX_NS}/Ball",
        entry="rigid",
        spawn=SphereCfg(radius=_BALL_RADIUS),
        mass=0.5,
        inertia=(5.0e-3, 5.0e-3, 5.0e-3),
        body_name="",
        shape_name="sphere",
        init_state=InitialStateCfg(pos=(0.0, 0.0, 2.0 - _BALL_RADIUS)),  # its top on the cloth's center particle
    )
    """The ball (MuJoCo-Warp entry ``rigid``)."""
    pendulum: PendulumCfg = PendulumCfg(entry="rigid")
    """The pendulum (MuJoCo-Warp entry ``rigid``)."""
    payload: RigidObjectCfg = RigidObjectCfg(
        prim_path="{ENV_REGEX_NS}/Payload",
        entry="cloth",
        spawn=CuboidCfg(size=tuple(2.0 * h for h in _PAYLOAD_HALF)),
        mass=0.35,
        inertia=(6.0e-3, 6.0e-3, 6.0e-3),
        body_name="",
        shape_name="box",
        # Off the pendulum's tip along x.
        init_state=InitialStateCfg(pos=(_ANCHOR[0] + 2.0 * _HALF_LENGTH + _PAYLOAD_HALF[0], 0.0, _ANCHOR[2])),
    )
    """The payload (VBD entry ``cloth``)."""
    attachment_stiffness: float = 1.0e3
    """Stiffness of the particle-body attachment between the cloth's center particle and the ball's top [N/m]."""
    payload_joint_friction: float = 1.0
    """Friction of the pendulum-payload ball joint [N*m]."""

    def connect(self, builder: newton.ModelBuilder, spawned: dict[str, SpawnedAsset]) -> None:
        """Attach the ball's top to the cloth's center particle; join the payload to the pendulum's tip."""
        radius = self.ball.spawn.radius
        builder.add_attachment_particle_body(
            spawned["cloth"].particles[self.cloth.center_particle()],
            spawned["ball"].bodies[0],
            body_point=wp.vec3(0.0, 0.0, radius),
            stiffness=self.attachment_stiffness,
        )
        half, px = self.pendulum.half_length, 0.5 * self.payload.spawn.size[0]
        builder.add_joint_ball(
            parent=spawned["pendulum"].bodies[0],
            child=spawned["payload"].bodies[0],
            friction=self.payload_joint_friction,
            parent_xform=wp.transform(p=wp.vec3(half, 0.0, 0.0), q=wp.quat_identity()),
            child_xform=wp.transform(p=wp.vec3(-px, 0.0, 0.0), q=wp.quat_identity()),
            collision_filter_parent=True,
            label=f"{self.payload.label()}/ball_joint",
        )

    def coupler_cfg(self) -> CouplerAdmmCfg:
        """Ball and pendulum (MuJoCo-Warp) with cloth and payload (VBD), joined by ADMM attachment and joint constraints."""
        return CouplerAdmmCfg(
            entries=[
                self.entry_cfg(
                    "rigid", MJWarpSolverCfg(njmax=32, use_mujoco_contacts=False), include_body_shapes=False
                ),
                self.entry_cfg("cloth", VBDSolverCfg(iterations=8), include_body_shapes=False),
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

    def validate(self, where: str | None = None) -> None:
        """Check the fields and assets; the cloth needs a center particle (at least 2 cells), the ball a sphere."""
        label = where or type(self).__name__
        super().validate(label)
        if self.cloth.cells < 2:
            raise ValueError(
                f"{label}.cloth.cells must be >= 2 (the ball hangs under a center particle), got {self.cloth.cells}"
            )
        if not isinstance(self.ball.spawn, SphereCfg) or not isinstance(self.payload.spawn, CuboidCfg):
            raise TypeError(f"{label}: the ball's spawn must be a SphereCfg and the payload's a CuboidCfg")

    def checks(self) -> list[SceneCheck]:
        """``finite`` and ``ball_to_cloth_m``: the attachment holds the ball under the cloth (its center within
        10 cm of the cloth's center particle)."""
        ball = body_points(f"{ENV_PATH}/{self.ball.label()}")
        ids = np.asarray(self.particle_ids("cloth")).reshape(self.num_envs, -1)[:, self.cloth.center_particle()]
        center = particle_points(ids.tolist(), self.num_envs)
        return [*super().checks(), MaxDistanceCheck("ball_to_cloth_m", ball, center, 0.1)]


register_scene(
    "mujoco_vbd_admm",
    SceneSpec(
        AttachedBallSceneCfg,
        "ball (MuJoCo-Warp) attached under a pinned cloth (VBD) and a pendulum carrying a VBD payload, ADMM joints",
        sim=scene_sim(PHYSICS_DT, decimation=8),
        viewpoint=CameraCfg(eye=(-1.6, -3.4, 3.3), target=(0.8, 0.05, 1.6)),
    ),
)
