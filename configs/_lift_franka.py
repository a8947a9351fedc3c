"""What Isaac Lab's deformable lift tasks share: the Panda with Isaac Lab's drive settings, the table, the proxy
coupling, and the manager terms every lift task uses (actions in two presets, the pose command, the terminations,
the gravity curriculum, the PPO runner) and the scripted oracle.

Not a scene (the leading underscore keeps it out of the registry's imports); :mod:`.lift_franka` builds the six
tasks from these pieces. The numbers are Isaac Lab 3.0's (its ``newton_mjwarp_vbd_proxy`` physics preset and its
Franka configs); ``docs/isaac_lab_lift_tasks.md`` sets them side by side with Isaac Lab's, term by term.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import newton
import torch

from isaaclab_contrib.coupling import CouplerProxyCfg
from isaaclab_contrib.envs import ManagerBasedRLEnv, mdp
from isaaclab_contrib.managers import (
    CurriculumTermCfg,
    EventTermCfg,
    ObservationTermCfg,
    RewardTermCfg,
    SceneEntityCfg,
    TerminationTermCfg,
)
from isaaclab_contrib.managers.manager_base import check_finite_number
from isaaclab_contrib.physics import (
    ImplicitActuatorCfg,
    MJWarpSolverCfg,
    NewtonCfg,
    SimulationCfg,
    VBDSolverCfg,
)
from isaaclab_contrib.rl import RslRlMlpModelCfg, RslRlOnPolicyRunnerCfg, RslRlPpoAlgorithmCfg
from isaaclab_contrib.scenes import (
    ArticulationCfg,
    ArticulationInitialStateCfg,
    CameraCfg,
    GroundPlaneCfg,
    SceneBaseCfg,
    UrdfFileCfg,
)
from isaaclab_contrib.scenes.articulation import ShapeMaterialCfg
from isaaclab_contrib.scenes.asset_paths import example_robot_data_path
from isaaclab_contrib.utils.configclass import configclass
from isaaclab_contrib.utils.math import quat_apply, quat_conjugate, quat_mul

from ._franka import PANDA_URDF, panda_proxy_coupler

__all__ = [
    "ARM",
    "EE",
    "FINGERS",
    "ROBOT",
    "LiftFrankaSceneCfg",
    "LiftIkActionsCfg",
    "LiftJointActionsCfg",
    "LiftPPORunnerCfg",
    "isaac_panda_cfg",
    "lift_oracle",
    "lift_sim",
]

ROBOT = SceneEntityCfg("robot")
ARM = SceneEntityCfg("robot", joint_names=["panda_joint.*"])
FINGERS = SceneEntityCfg("robot", joint_names=["panda_finger_joint.*"])
EE = SceneEntityCfg("robot", body_names="panda_hand_tcp")
"""The end-effector frame: ``panda_hand_tcp``, 10.34 cm along the hand's z axis (Isaac Lab's ee frame offset)."""

ISAAC_START_POSE = {
    "panda_joint1": 0.0,
    "panda_joint2": -0.569,
    "panda_joint3": 0.0,
    "panda_joint4": -2.810,
    "panda_joint5": 0.0,
    "panda_joint6": 3.037,
    "panda_joint7": 0.741,
    "panda_finger_joint.*": 0.04,
}
"""Isaac Lab's Franka start configuration [rad, m]: the hand about 0.48 m over the table, pointing down, open."""
ARMATURE = {
    "panda_joint1": 0.6057,
    "panda_joint2": 0.6057,
    "panda_joint3": 0.4625,
    "panda_joint4": 0.4625,
    "panda_joint5": 0.2055,
    "panda_joint6": 0.2055,
    "panda_joint7": 0.2055,
}
"""Isaac Lab's arm joint armature [kg*m^2]."""


def isaac_panda_cfg(entry: str = "rigid") -> ArticulationCfg:
    """The Panda of ``example-robot-data`` with Isaac Lab's lift-task drives, owned by *entry*.

    Arm PD gains per joint (stiffness 600 for joints 1-4, 250 / 150 / 50 for 5-7 [N*m/rad]; damping 50 for 1-4,
    30 / 25 / 15 for 5-7 [N*m*s/rad]; effort 87 / 12 N*m as the URDF), fingers stiffness 1000 N/m, damping
    100 N*s/m, effort 500 N. The URDF's velocity limits are Isaac Lab's (2.175 rad/s for joints 1-4, 2.61 for 5-7);
    the armature (:data:`ARMATURE`) and the arm's gravity compensation are set by :class:`LiftFrankaSceneCfg`.
    """
    arm = [("panda_joint[1-4]", 600.0, 50.0, 87.0)] + [
        (f"panda_joint{j}", k, d, 12.0) for j, k, d in ((5, 250.0, 30.0), (6, 150.0, 25.0), (7, 50.0, 15.0))
    ]
    actuators: dict[str, Any] = {
        f"arm_{i}": ImplicitActuatorCfg(joint_names_expr=[expr], stiffness=k, damping=d, effort_limit=effort)
        for i, (expr, k, d, effort) in enumerate(arm)
    }
    actuators["hand"] = ImplicitActuatorCfg(
        joint_names_expr=["panda_finger_joint[12]"], stiffness=1.0e3, damping=1.0e2, effort_limit=500.0
    )
    return ArticulationCfg(
        prim_path="{ENV_REGEX_NS}/Robot",
        entry=entry,
        spawn=UrdfFileCfg(
            asset_path=example_robot_data_path(PANDA_URDF),
            fix_base=True,
            collider_type="convex_hull",
            self_collision=False,
            load_visuals=False,
            material=ShapeMaterialCfg(mu=1.0),
        ),
        init_state=ArticulationInitialStateCfg(joint_pos=dict(ISAAC_START_POSE)),
        actuators=actuators,
    )


def lift_sim(num_substeps: int = 2) -> SimulationCfg:
    """Isaac Lab's lift-task timing: physics steps of 1/120 s of *num_substeps* solver substeps (the env step,
    four physics steps, is the task's ``decimation``)."""
    return SimulationCfg(dt=1.0 / 120.0, device="cpu", physics=NewtonCfg(num_substeps=num_substeps))


@configclass
class LiftFrankaSceneCfg(SceneBaseCfg):
    """Base of the lift scenes: the table (a static plane at z = 0), the Panda (MuJoCo-Warp entry ``rigid``) and
    the proxy coupling into the VBD entry :attr:`soft_entry` that owns the object and the table.

    Coupling (Isaac Lab's ``newton_mjwarp_vbd_proxy``): MuJoCo-Warp (elliptic cone, 50 line-search iterations,
    ``implicitfast``) for the robot; VBD for the object; the hand and both fingers mirrored into VBD as proxies,
    collided every substep, one proxy iteration; the contact forces go back to MuJoCo.
    """

    _ranges: ClassVar[dict[str, str]] = {
        "contact_ke": ">= 0",
        "contact_kd": ">= 0",
        "contact_mu": ">= 0",
        "vbd_iterations": ">= 1",
        "contact_buffer": ">= 1",
        "body_contact_buffer": ">= 1",
        "proxy_mass_scale": "> 0",
    }

    env_spacing: float = 2.0
    """Distance between neighbouring env origins [m]."""
    table: GroundPlaneCfg = GroundPlaneCfg(entry="soft")
    """The table top (Isaac Lab: a table asset whose top is at z = 0; here the plane z = 0)."""
    robot: ArticulationCfg = isaac_panda_cfg("rigid")
    """The Panda (MuJoCo-Warp entry ``rigid``)."""
    soft_entry: str = "soft"
    """Name of the VBD entry that owns the object and the table."""
    contact_ke: float = 8.0e3
    """Soft contact stiffness (particle-shape) [N/m]."""
    contact_kd: float = 1.0e-2
    """Soft contact damping [N*s/m]."""
    contact_mu: float = 10.0
    """Soft contact friction coefficient [dimensionless]."""
    vbd_iterations: int = 10
    """VBD iterations per substep [count]."""
    contact_buffer: int = 256
    """VBD's rigid-body-particle contact buffer per particle [count] (Isaac Lab: 256 for the beam, 1024 for the
    cloth)."""
    body_contact_buffer: int = 64
    """VBD's rigid-body contact buffer per body [count] (the cable's capsules against the finger hulls and the
    table need more than Newton's default 64)."""
    arm_gravity: bool = False
    """Whether gravity acts on the robot's links (Isaac Lab: off; MuJoCo's gravity compensation of every link)."""
    proxy_mass_scale: float = 10.0
    """Mass scale of the proxy hand and fingers in VBD [dimensionless] (see ``FrankaPickSceneCfg``: at 1 the
    30 g fingers are pushed apart inside a VBD solve)."""

    def connect(self, builder: newton.ModelBuilder, spawned: dict[str, Any]) -> None:
        """Give the arm joints Isaac Lab's armature and, unless :attr:`arm_gravity`, the robot's links MuJoCo's
        gravity compensation (``mujoco:gravcomp`` = 1)."""
        super().connect(builder, spawned)
        robot = spawned["robot"]
        for j in robot.joints:
            name = builder.joint_label[j].rsplit("/", 1)[-1]
            if name in ARMATURE:
                builder.joint_armature[builder.joint_qd_start[j]] = ARMATURE[name]
        if not self.arm_gravity:
            newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
            values = builder.custom_attributes["mujoco:gravcomp"]
            if values.values is None:
                values.values = {}
            for body in robot.bodies:
                values.values[body] = 1.0

    def object_solver(self) -> VBDSolverCfg:
        """The VBD config of the object's entry."""
        return VBDSolverCfg(
            iterations=self.vbd_iterations,
            particle_enable_tile_solve=False,
            rigid_body_particle_contact_buffer_size=self.contact_buffer,
            rigid_body_contact_buffer_size=self.body_contact_buffer,
        )

    def coupler_cfg(self) -> CouplerProxyCfg:
        """MuJoCo-Warp robot mirrored into the object's VBD solver (Isaac Lab's proxy preset)."""
        rigid = MJWarpSolverCfg(
            cone="elliptic",
            integrator="implicitfast",
            ls_iterations=50,
            disable_contacts=True,
            use_mujoco_contacts=False,
        )
        return panda_proxy_coupler(self, ("rigid", rigid), (self.soft_entry, self.object_solver()))


# ---------------------------------------------------------------------------------------------- actions
@configclass
class LiftJointActionsCfg:
    """Isaac Lab's ``joint`` preset (the RL default): arm joint targets relative to the current positions (scale
    0.03 rad per unit action) and the fingers' targets rescaled from [-1, 1] onto their limits."""

    arm_action = mdp.RelativeJointPositionActionCfg(asset_name="robot", joint_names=["panda_joint.*"], scale=0.03)
    gripper_action = mdp.JointPositionToLimitsActionCfg(asset_name="robot", joint_names=["panda_finger_joint.*"])


IK_OFFSET = 0.107
"""Isaac Lab's IK frame: 0.107 m along the hand's z axis [m]."""


@configclass
class LiftIkActionsCfg:
    """Isaac Lab's ``ik`` preset: an absolute end-effector pose in the robot's base frame (position and ``(x, y,
    z, w)``) by damped least squares (lambda 0.6), and a binary gripper (open 0.04 m, close 0.01 m)."""

    arm_action = mdp.DifferentialInverseKinematicsActionCfg(
        asset_name="robot",
        joint_names=["panda_joint.*"],
        body_name="panda_hand",
        controller=mdp.DifferentialIKControllerCfg(
            command_type="pose", use_relative_mode=False, ik_method="dls", ik_params={"lambda_val": 0.6}
        ),
        body_offset=mdp.ik_action.DifferentialIKOffsetCfg(pos=(0.0, 0.0, IK_OFFSET)),
    )
    gripper_action = mdp.BinaryJointPositionActionCfg(
        asset_name="robot",
        joint_names=["panda_finger_joint.*"],
        open_command_expr={"panda_finger_joint.*": 0.04},
        close_command_expr={"panda_finger_joint.*": 0.01},
    )


# ---------------------------------------------------------------------------------------------- shared terms
def pose_command_cfg(object_cfg: SceneEntityCfg, resampling_s: float = 5.0) -> Any:
    """Isaac Lab's lift command: a position in the robot's base frame, x 0.4-0.6, y -0.25-0.25, z 0.25-0.5 m,
    resampled every *resampling_s* seconds; the center of *object_cfg* is what must reach it (metrics
    ``position_error`` [m] and ``success``, within 5 cm)."""
    return mdp.DeformableUniformPoseCommandCfg(
        asset_name="robot", object_cfg=object_cfg, resampling_time_range=(resampling_s, resampling_s)
    )


def proprio_terms() -> dict[str, ObservationTermCfg]:
    """Joint positions and velocities relative to their defaults (every joint of the robot)."""
    return {
        "joint_pos": ObservationTermCfg(func=mdp.joint_pos_rel),
        "joint_vel": ObservationTermCfg(func=mdp.joint_vel_rel),
    }


def gravity_curriculum() -> CurriculumTermCfg:
    """Isaac Lab's gravity curriculum: g from -0.0001 to -9.81 m/s^2 over 10,000 env steps, set at each reset."""
    return CurriculumTermCfg(
        func=mdp.gravity_range_linear,
        params={"initial_gravity": -1.0e-4, "final_gravity": -9.81, "num_steps": 10_000},
    )


def action_rate_curriculum() -> CurriculumTermCfg:
    """Isaac Lab's action-rate curriculum: the ``action_rate`` weight -1e-3 becomes -0.1 after 15,000 env steps."""
    return CurriculumTermCfg(
        func=mdp.modify_reward_weight, params={"term_name": "action_rate", "weight": -0.1, "num_steps": 15_000}
    )


def common_terminations(object_cfg: SceneEntityCfg, out_of_bounds: Any) -> dict[str, TerminationTermCfg]:
    """Time-out, the object out of its box, the end effector below the table, a joint too fast."""
    return {
        "time_out": TerminationTermCfg(func=mdp.time_out, time_out=True),
        "object_out_of_bounds": TerminationTermCfg(
            func=out_of_bounds,
            params={"bounds": ((0.0, 1.0), (-0.5, 0.5), (-0.02, 1.0)), "asset_cfg": object_cfg},
        ),
        "ee_below_table": TerminationTermCfg(func=mdp.ee_below_minimum, params={"minimum_height": 0.0}),
        "joint_vel_out_of_limit": TerminationTermCfg(func=mdp.joint_vel_out_of_sim_limit),
    }


def robot_reset_events() -> dict[str, EventTermCfg]:
    """Arm joints reset by a scale 0.9-1.1 of their defaults, both fingers by one offset -0.02-0 m."""
    return {
        "reset_arm": EventTermCfg(
            func=mdp.reset_joints_by_scale,
            mode="reset",
            params={"position_range": (0.9, 1.1), "velocity_range": (0.0, 0.0), "asset_cfg": ARM},
        ),
        "reset_gripper": EventTermCfg(
            func=mdp.reset_joints_by_offset,
            mode="reset",
            params={"position_range": (-0.02, 0.0), "velocity_range": (0.0, 0.0), "asset_cfg": FINGERS},
        ),
    }


def reward_terms(names: dict[str, tuple[Any, float, dict]]) -> dict[str, RewardTermCfg]:
    """Reward term configs from ``{name: (func, weight, params)}``."""
    return {
        name: RewardTermCfg(func=func, weight=weight, params=params) for name, (func, weight, params) in names.items()
    }


# ---------------------------------------------------------------------------------------------- runner
@configclass
class LiftPPORunnerCfg(RslRlOnPolicyRunnerCfg):
    """Isaac Lab's lift PPO settings: 24 steps per env per iteration, 3,000 iterations, MLP 256-128-64 ELU with
    observation normalization, lr 1e-3 adaptive (desired KL 0.01), gamma 0.98, lambda 0.95, entropy 0.006, 5
    epochs of 4 mini-batches, clip 0.2; 2048 envs (the env config's count)."""

    experiment_name: str = "lift_franka"
    num_envs: int = 2048
    num_steps_per_env: int = 24
    max_iterations: int = 3000
    save_interval: int = 50
    clip_actions: float | None = None
    """As Isaac Lab's: the policy's actions reach the env unclipped (the ``joint`` preset's relative targets move a
    joint at about 0.36 rad/s per unit of action on joints 1-4; a clip at 1 would cap the arm there)."""
    actor: RslRlMlpModelCfg = RslRlMlpModelCfg(hidden_dims=[256, 128, 64], activation="elu", obs_normalization=True)
    critic: RslRlMlpModelCfg = RslRlMlpModelCfg(hidden_dims=[256, 128, 64], activation="elu", obs_normalization=True)
    algorithm: RslRlPpoAlgorithmCfg = RslRlPpoAlgorithmCfg(
        learning_rate=1.0e-3,
        schedule="adaptive",
        desired_kl=0.01,
        gamma=0.98,
        lam=0.95,
        entropy_coef=0.006,
        num_learning_epochs=5,
        num_mini_batches=4,
        clip_param=0.2,
    )


# ---------------------------------------------------------------------------------------------- oracle
DOWN = (1.0, 0.0, 0.0, 0.0)
"""The hand pointing down, fingers opening along y (quaternion ``x, y, z, w`` of the IK frame in the base frame)."""


TURN_STEPS = 20
"""Env steps over which the oracle turns the hand from its start orientation to pointing down [count]."""


def check_options(where: str, checks: list[tuple[str, Any, str]]) -> None:
    """Check an oracle's options: each ``(name, value, bound)`` a finite real number, ``> 0``, ``>= 0`` or (any
    other *bound*) of any sign.

    Raises:
        TypeError: A value is not a real number (named ``"{where}: {name}"``).
        ValueError: A value is not finite or breaks its bound.
    """
    for name, value, bound in checks:
        value = check_finite_number(value, f"{where}: {name}")
        if (bound == ">= 0" and value < 0.0) or (bound == "> 0" and value <= 0.0):
            raise ValueError(f"{where}: {name} must be finite and {bound}, got {value!r}")


def hand_down(env: ManagerBasedRLEnv, yaw: float) -> torch.Tensor:
    """``[num_envs, 4]``: the IK frame pointing down (:data:`DOWN`) turned by *yaw* [rad] about the vertical."""
    turn_z = torch.tensor([0.0, 0.0, math.sin(0.5 * yaw), math.cos(0.5 * yaw)], device=env.device)
    return quat_mul(torch.tensor(DOWN, device=env.device), turn_z).expand(env.num_envs, 4)


def in_base_frame(robot: Any, points_w: torch.Tensor) -> torch.Tensor:
    """World points ``[num_envs, 3]`` in *robot*'s root (base) frame [m], the frame of the ``ik`` preset's targets."""
    root_pos, root_quat = robot.data.root_pos_w.torch, robot.data.root_quat_w.torch
    return quat_apply(quat_conjugate(root_quat), points_w - root_pos)


def lift_oracle(
    env: ManagerBasedRLEnv,
    grasp_point: Any,
    object_center: Any,
    hover: float = 0.10,
    speed: float = 0.4,
    lead: float = 1.0,
    integral: float = 0.3,
    yaw: float = 0.0,
    min_height: float = -math.inf,
    floor_gain: float = 0.0,
    align: float = 0.0,
    arrive: float | None = None,
    carry_speed: float | None = None,
    peel_speed: float | None = None,
    peel_height: float = 0.03,
    lift_first: float = 0.0,
    offset_smoothing: float | None = None,
    joint_action_limit: float = 4.0,
    hold_radius: float = 0.02,
):
    """A scripted pick through the ``ik`` preset's math, with privileged state: over the grasp point, down, close,
    then carry the object's center to the command.

    Phases by env step of the episode (30 Hz): 0-34 over the grasp point (*hover* above it; the point as the
    episode starts), 35-59 down to it,
    60-74 close, then the tool center point goes to ``command + (tcp - center)`` (the offset measured at every
    step, so that the object's center, not the hand, lands on the command). With *arrive*, an env starts closing
    once its tool center point is within *arrive* of the grasp point (at step 100 at the latest) and carries 15
    steps later, its integral restarted (what it summed while the hand pressed down would jerk the object up; so
    also with *lift_first*).
    The commanded point moves toward each phase's goal at *speed* [m/s] at most (the arm's joints stay under
    their velocity limits), the hand turns from its start orientation to pointing down over the first
    :data:`TURN_STEPS` env steps, and the point leads by *lead* times the remaining tracking error plus *integral*
    times its running sum (clamped to 15 cm): the damped IK step (lambda 0.6) covers only part of the error per
    step.

    Works with either action preset: with the ``ik`` preset it returns the pose and the gripper command; with the
    ``joint`` preset it turns the IK step's joint targets into relative joint actions (clipped to
    *joint_action_limit*) and the finger opening (closed: the task's ``ik_gripper_close``) into the limits-rescaled
    action.

    Args:
        env: The env.
        grasp_point: ``grasp_point(env) -> [num_envs, 3]``, where the TCP closes, world frame [m].
        object_center: ``object_center(env) -> [num_envs, 3]``, the point that must reach the command, world [m].
        hover: Height of the approach over the grasp point [m].
        speed: Largest speed of the commanded point [m/s].
        lead: Gain of the lead on the tracking error [dimensionless].
        integral: Gain of the running sum of the tracking error, per env step [dimensionless].
        min_height: Lowest commanded height of the tool center point [m] (default: no floor; the lead and the
            integral push the hand down onto the object, which the beam's grasp needs: a floor of 0.01 m took its
            success from 15 to 9 of 16 envs).
        floor_gain: With *min_height*, the floor sinks below it by *floor_gain* times the tool center point's
            height over it [dimensionless]: the hand is pulled down fast while high and eased onto the floor.
        align: With *min_height*, until the gripper closes the floor rises by *align* times the tool center
            point's horizontal distance from the grasp point [dimensionless]: a hand that lags sideways is held
            up instead of pressing on the table beside the object.
        arrive: Distance of the tool center point from the grasp point at which an env starts closing [m]
            (``None``: at step 60, whatever the distance).
        carry_speed: Largest speed of the commanded point while it carries the object [m/s] (``None``: *speed*).
        peel_speed: Largest speed of the commanded point over the first *peel_height* of the carry [m/s] (``None``:
            no slower start): a pinch that clears a support slowly closes on the cloth's fold as it comes free.
        peel_height: Rise over the tool center point's height at the start of closing that the carry makes at
            *peel_speed* [m].
        lift_first: Rise straight up over the grasp point, measured from the tool center point's height at the
            start of closing, before the carry heads for the command [m] (0: at once): a cloth leaves its supports
            before any sideways pull.
        offset_smoothing: Carry the object's center by a smoothed hand-to-center offset: the offset carried moves
            toward the current one by this fraction per env step [dimensionless, in (0, 1]] (``None``: the current
            offset itself): the hand then does not chase a swinging cloth.
        yaw: Turn of the hand about the vertical from fingers opening along y [rad] (``pi / 2``: along x).
        joint_action_limit: With the ``joint`` preset, the largest relative joint action sent [dimensionless; times
            the preset's scale, 0.03 rad]. The preset's PD drive moves a joint at about stiffness x scale x action /
            damping: at 1 (the policy's usual range) 0.36 rad/s on joints 1-4, too slow for the phases above (the
            hand closed 6 cm over the beam); at 4, 1.4 rad/s, under the joints' 2.175 rad/s limit. Like the
            policy's, the actions are not clipped by the env (the runner's ``clip_actions`` is ``None``).
        hold_radius: Where a call passes ``hold`` (below), the greatest distance [m] kept between the commanded
            point and the tool center point in the envs it marks.

    Returns:
        ``act(obs, hold=None) -> actions``. *hold* (``[num_envs]`` bool, optional) marks envs whose commanded point
        is first pulled back to within *hold_radius* of the tool center point (not at an episode's first step):
        while another policy drives them (DAgger, ``scripts/train_dagger.py``), the oracle's plan then starts
        from where the hand is instead of running ahead on its own time plan, and its action is a correction
        from the state it is asked about.
    """
    checks = [("hover", hover, ">= 0"), ("speed", speed, "> 0"), ("lead", lead, ">= 0"), ("integral", integral, ">= 0")]
    checks += [("floor_gain", floor_gain, ">= 0"), ("align", align, ">= 0"), ("yaw", yaw, "any")]
    checks += [("joint_action_limit", joint_action_limit, "> 0"), ("peel_height", peel_height, ">= 0")]
    checks += [("lift_first", lift_first, ">= 0"), ("hold_radius", hold_radius, "> 0")]
    checks += [
        (name, value, "> 0")
        for name, value in (("arrive", arrive), ("carry_speed", carry_speed), ("peel_speed", peel_speed))
        if value is not None
    ]
    check_options("lift_oracle", checks)
    if offset_smoothing is not None:
        value = check_finite_number(offset_smoothing, "lift_oracle: offset_smoothing")
        if not 0.0 < value <= 1.0:
            raise ValueError(f"lift_oracle: offset_smoothing must be in (0, 1] or None, got {offset_smoothing!r}")
    if min_height != -math.inf:
        check_finite_number(min_height, "lift_oracle: min_height (a height or -inf)")
    term = env.action_manager.get_term("arm_action")
    ik_preset = isinstance(term, mdp.DifferentialInverseKinematicsAction)
    if ik_preset:
        ik = term
    else:
        ik_cfg = LiftIkActionsCfg().arm_action
        ik = ik_cfg.class_type(ik_cfg, env)
    close_to = float(getattr(env.cfg, "ik_gripper_close", 0.01))
    gripper = env.action_manager.get_term("gripper_action")
    if isinstance(gripper, mdp.BinaryJointPositionAction):
        close_to = float(gripper._close[0])
    robot = env.scene["robot"]
    down = hand_down(env, yaw)
    tcp_id = robot.find_bodies("panda_hand_tcp")[0][0]
    grasp = torch.zeros(env.num_envs, 3, device=env.device)
    commanded = torch.zeros(env.num_envs, 3, device=env.device)
    start_quat = torch.zeros(env.num_envs, 4, device=env.device)
    bias = torch.zeros(env.num_envs, 3, device=env.device)
    close_at = torch.full((env.num_envs,), 60, dtype=torch.long, device=env.device)
    close_z = torch.zeros(env.num_envs, device=env.device)
    offset = torch.zeros(env.num_envs, 3, device=env.device)
    step = speed * env.step_dt
    carry_step = (speed if carry_speed is None else carry_speed) * env.step_dt
    peel_step = None if peel_speed is None else peel_speed * env.step_dt

    def act(_obs, hold: torch.Tensor | None = None) -> torch.Tensor:
        t = env.episode_length_buf
        tcp = in_base_frame(robot, robot.data.body_pos_w.torch[:, tcp_id])
        start = (t == 0).unsqueeze(-1)
        if hold is not None:
            if not isinstance(hold, torch.Tensor) or hold.shape != (env.num_envs,) or hold.dtype != torch.bool:
                raise ValueError(
                    f"lift_oracle: hold must be a bool tensor of shape ({env.num_envs},), got "
                    f"{getattr(hold, 'dtype', type(hold).__name__)} {tuple(getattr(hold, 'shape', ()))}"
                )
            gap = commanded - tcp
            held = tcp + gap * (hold_radius / gap.norm(dim=-1, keepdim=True).clamp(min=hold_radius))
            commanded.copy_(torch.where(hold.to(env.device).unsqueeze(-1), held, commanded))
        grasp.copy_(torch.where(start, in_base_frame(robot, grasp_point(env)), grasp))
        commanded.copy_(torch.where(start, tcp, commanded))
        _, quat = ik._ee_pose_b()
        start_quat.copy_(torch.where(start, quat * torch.sign((quat * down).sum(-1, keepdim=True)), start_quat))
        turn = (t.float() / TURN_STEPS).clamp(max=1.0).unsqueeze(-1)
        orientation = (1.0 - turn) * start_quat + turn * down
        orientation = orientation / orientation.norm(dim=-1, keepdim=True)
        above = grasp + torch.tensor([0.0, 0.0, hover], device=env.device)
        goal = torch.where((t < 35).unsqueeze(-1), above, grasp)
        if arrive is not None:
            close_at.copy_(torch.where(t == 0, 100, close_at))
            arrived = (t >= 35) & ((tcp - grasp).norm(dim=-1) < arrive) & (t < close_at)
            close_at.copy_(torch.where(arrived, t, close_at))
        carrying = t >= close_at + 15
        carry_start = (t == close_at + 15).unsqueeze(-1)
        close_z.copy_(torch.where(t == close_at, tcp[:, 2], close_z))
        command, center = (
            env.command_manager.get_command("object_pose")[:, :3],
            in_base_frame(robot, object_center(env)),
        )
        if offset_smoothing is None:
            carry = command + tcp - center
        else:
            held = tcp - center
            offset.copy_(torch.where(carry_start, held, offset + offset_smoothing * (held - offset)))
            carry = command + offset
        if lift_first > 0.0:
            up = torch.cat([grasp[:, :2], (close_z + lift_first + 0.02).unsqueeze(-1)], dim=-1)
            carry = torch.where((tcp[:, 2] < close_z + lift_first).unsqueeze(-1), up, carry)
        goal = torch.where(carrying.unsqueeze(-1), carry, goal)
        move = goal - commanded
        rate = torch.where(carrying, carry_step, step)
        if peel_step is not None:
            rate = torch.where(carrying & (tcp[:, 2] < close_z + peel_height), peel_step, rate)
        rate = rate.unsqueeze(-1)
        commanded.add_(move * (rate / torch.maximum(move.norm(dim=-1, keepdim=True), rate)))
        error = commanded - tcp
        restart = start if arrive is None and lift_first == 0.0 else start | carry_start
        bias.copy_(torch.where(restart, torch.zeros_like(bias), (bias + integral * error).clamp(-0.15, 0.15)))
        target = commanded + lead * error + bias
        if math.isfinite(min_height):
            floor = min_height - floor_gain * (tcp[:, 2] - min_height).clamp(min=0.0)
            if align > 0.0:
                aside = (tcp[:, :2] - grasp[:, :2]).norm(dim=-1)
                floor = torch.where(t < close_at, floor + align * aside, floor)
            target[:, 2] = torch.maximum(target[:, 2], floor)
        close = t >= close_at
        pose = torch.cat([target, orientation], dim=-1)
        if ik_preset:
            return torch.cat([pose, torch.where(close, -1.0, 1.0).unsqueeze(-1)], dim=-1)
        ik.process_actions(pose)
        q = robot.data.joint_pos.torch[:, ik._joint_ids]
        arm = (ik.joint_position_targets() - q) / env.cfg.actions.arm_action.scale
        arm = arm.clamp(-joint_action_limit, joint_action_limit)
        fingers = gripper._joint_ids
        limits = robot.data.soft_joint_pos_limits.torch[:, fingers]
        opening = torch.where(close, close_to, 0.04).unsqueeze(-1)
        grip = (2.0 * (opening - limits[..., 0]) / (limits[..., 1] - limits[..., 0]) - 1.0).clamp(-1.0, 1.0)
        return torch.cat([arm, grip], dim=-1)

    return act


VIEW = CameraCfg(eye=(1.3, -1.0, 0.8), target=(0.45, 0.0, 0.15))
"""The viewer of the lift tasks: from the front right, the arm and the work area."""
