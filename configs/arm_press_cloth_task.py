"""RL task: a two-joint arm presses the middle of a pinned cloth to a target depth and holds it.

Per env (``/World/envs/env_{i}``): an arm fixed beside the cloth (``Arm``: a shoulder and an elbow
revolute joint about x, two capsule links, a sphere fingertip; Steel entry) reaches over a cloth
pinned along two edges (``Cloth``, VBD entry). The fingertip is mirrored into the cloth solver by a
virtual proxy, so the cloth moves only through the coupling and pushes the arm back.

Actions are joint position targets, Isaac Lab style: ``target = default_q + action_scale * action``
(clipped to [-1, 1]), written into the manager's zero-copy ``joint_target_q`` view before each env
step; explicit PD actuators (:class:`IdealPDActuatorCfg`, stepped inside the captured loop) turn them
into joint torques. The PD gains are soft compared with the cloth's resistance and the arm's weight,
so reaching a depth takes more than kinematics: the target must overshoot by what the cloth pushes
back, which changes with depth.

Observation (10): joint positions relative to the default [rad], joint velocities [rad/s], fingertip
position relative to the cloth center (y, z) [m], depth of the cloth center below its pinned edges
[m], target depth [m], previous actions. Reward per env step: ``exp(-((depth - target) / sigma)^2)``
minus small action-rate and fingertip-drift penalties (at most 1 per step). Terminated when the
fingertip goes through the cloth.

:func:`oracle_policy` is a scripted controller with privileged knowledge (the arm's kinematics and
the true cloth state): it places the fingertip over the center by inverse kinematics and integrates
the depth error; its return is the reference for training.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import newton
import torch
import warp as wp

from isaaclab_contrib.envs import register_task
from isaaclab_contrib.physics import ActuatorBaseCfg, IdealPDActuatorCfg
from isaaclab_contrib.rl import RslRlOnPolicyRunnerCfg
from isaaclab_contrib.scenes import ArticulationCfg, ArticulationInitialStateCfg
from isaaclab_contrib.utils.configclass import configclass

from .cloth_depth_task import ClothDepthSceneCfg, ClothDepthTaskCfg, ClothDepthTaskEnv

__all__ = [
    "TASK_ID",
    "ArmPressClothEnv",
    "ArmPressClothEnvCfg",
    "ArmPressClothPPORunnerCfg",
    "ArmPressClothSceneCfg",
    "TwoLinkArmCfg",
    "arm_ik",
    "oracle_joint_targets",
    "oracle_policy",
]

TASK_ID = "Isaac-Arm-Press-Cloth-Direct-v0"
COUPLER_OBS_TASK_ID = "Isaac-Arm-Press-Cloth-Coupler-Obs-Direct-v0"
"""Gymnasium id of this task (registered on import)."""


@configclass
class TwoLinkArmCfg(ArticulationCfg):
    """A planar two-link arm built in code: a shoulder and an elbow revolute joint about x, two capsule links
    along their local +y, a sphere fingertip at the end of the forearm.

    ``init_state.pos`` is the point the arm reaches over (the cloth center); the shoulder sits
    :attr:`shoulder_offset` along -y and :attr:`shoulder_height` above it. The joints start at the default pose
    (:meth:`default_joint_pos`): the fingertip :attr:`start_gap` above that point.
    """

    _ranges: ClassVar[dict[str, str]] = {
        "link_length": "> 0",
        "link_radius": "> 0",
        "fingertip_radius": "> 0",
        "density": "> 0",
        "shoulder_offset": "> 0",
        "shoulder_height": "> 0",
        "start_gap": ">= 0",
    }

    prim_path: str = "{ENV_REGEX_NS}/Arm"
    """Label path of the arm."""
    link_length: float = 0.2
    """Length of each of the two links, joint to joint [m]."""
    link_radius: float = 0.012
    """Radius of the link capsules [m] (they do not collide; only the fingertip touches the cloth)."""
    fingertip_radius: float = 0.04
    """Radius of the fingertip sphere at the end of the second link [m]."""
    density: float = 500.0
    """Density of the links and the fingertip [kg/m^3]."""
    shoulder_offset: float = 0.24
    """Horizontal distance of the shoulder from ``init_state.pos``, along -y [m]."""
    shoulder_height: float = 0.16
    """Height of the shoulder above ``init_state.pos`` [m]."""
    start_gap: float = 0.02
    """Gap between the fingertip and ``init_state.pos`` (the flat cloth) in the default pose [m]."""
    actuators: dict[str, ActuatorBaseCfg] = {
        "arm": IdealPDActuatorCfg(
            joint_names_expr=["shoulder", "elbow"], stiffness=40.0, damping=0.8, effort_limit=15.0
        )
    }
    """Explicit PD actuators of both joints: 40 N*m/rad, 0.8 N*m*s/rad, 15 N*m."""

    def default_joint_pos(self) -> tuple[float, float]:
        """Joint angles [rad] of the default pose: the fingertip ``start_gap`` above ``init_state.pos``."""
        z = torch.tensor(self.fingertip_radius + self.start_gap, dtype=torch.float64)
        shoulder, elbow = arm_ik(self, torch.zeros((), dtype=torch.float64), z)
        return float(shoulder), float(elbow)

    def create(self, builder: newton.ModelBuilder, label: str) -> None:
        q0 = self.default_joint_pos()
        link_shape = newton.ModelBuilder.ShapeConfig(
            density=self.density, has_shape_collision=False, has_particle_collision=False
        )
        tip_shape = newton.ModelBuilder.ShapeConfig(density=self.density)
        half = 0.5 * self.link_length
        # Links extend along their local +y; the capsule axis is z, turned onto y.
        along_y = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), -0.5 * math.pi)
        x, y, z = self.init_state.pos
        shoulder_pos = wp.vec3(x, y - self.shoulder_offset, z + self.shoulder_height)
        # Link frames sit at their joints; the joints start at the default pose.
        rot1 = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), q0[0])
        rot12 = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), q0[0] + q0[1])
        elbow_pos = shoulder_pos + wp.quat_rotate(rot1, wp.vec3(0.0, self.link_length, 0.0))
        links = []
        for name, pos, rot in (("upper_arm", shoulder_pos, rot1), ("forearm", elbow_pos, rot12)):
            link = builder.add_link(xform=wp.transform(pos, rot), label=f"{label}/{name}")
            builder.add_shape_capsule(
                link,
                xform=wp.transform((0.0, half, 0.0), along_y),
                radius=self.link_radius,
                half_height=half,
                cfg=link_shape,
                label=f"{label}/{name}/visual",
            )
            links.append(link)
        upper, forearm = links
        builder.add_shape_sphere(
            forearm,
            xform=wp.transform((0.0, self.link_length, 0.0), wp.quat_identity()),
            radius=self.fingertip_radius,
            cfg=tip_shape,
            label=f"{label}/forearm/fingertip",
        )
        shoulder = builder.add_joint_revolute(
            -1,
            upper,
            axis=(1, 0, 0),
            parent_xform=wp.transform(shoulder_pos, wp.quat_identity()),
            label=f"{label}/shoulder",
        )
        elbow = builder.add_joint_revolute(
            upper,
            forearm,
            axis=(1, 0, 0),
            parent_xform=wp.transform((0.0, self.link_length, 0.0), wp.quat_identity()),
            label=f"{label}/elbow",
        )
        builder.add_articulation([shoulder, elbow], label=label)
        builder.joint_q[builder.joint_q_start[shoulder]] = q0[0]
        builder.joint_q[builder.joint_q_start[elbow]] = q0[1]


@configclass
class ArmPressClothSceneCfg(ClothDepthSceneCfg):
    """The cloth and the arm beside it, reaching over its center."""

    presser: ClassVar[str] = "arm"
    proxied: ClassVar[str] = "Arm/forearm"

    arm: TwoLinkArmCfg = TwoLinkArmCfg(entry="arm", init_state=ArticulationInitialStateCfg(pos=(0.0, 0.0, 0.3)))
    """The arm (Steel entry ``arm``); its forearm (with the fingertip) is mirrored into the cloth solver."""


@configclass
class ArmPressClothEnvCfg(ClothDepthTaskCfg):
    """Action, reward and termination settings of the arm-presses-cloth task (scene: :class:`ArmPressClothSceneCfg`)."""

    _ranges: ClassVar[dict[str, str]] = {
        "action_scale": "> 0",
        "action_rate_penalty": ">= 0",
        "drift_penalty": ">= 0",
        "fail_depth": "> 0",
        "penetration_penalty": ">= 0",
    }

    scene: ArmPressClothSceneCfg = ArmPressClothSceneCfg()
    """The cloth and the arm."""
    episode_length_s: float = 2.0
    """Episode length before truncation [s] (120 env steps at the default 60 Hz)."""
    action_scale: float = 1.0
    """Joint target offset of a full action [rad]."""
    action_rate_penalty: float = 0.01
    """Weight of the squared change of the action per env step."""
    drift_penalty: float = 5.0
    """Weight of the squared horizontal distance of the fingertip from the cloth center [1/m^2]."""
    fail_depth: float = 0.15
    """Terminate when the fingertip center is this far below the pinned edges [m] (through the cloth)."""
    coupler_observations: bool = False
    """Add what the coupler measures to the observation (13 values instead of 10): the force the cloth pushes
    the fingertip with, horizontal (y) and vertical (z) [N / 10] (interface-force sensor, averaged over the env
    step), and the fingertip's deepest penetration into the cloth's particles [cm] (penetration sensor)."""
    penetration_penalty: float = 0.0
    """Weight of the fingertip's deepest penetration into the cloth particles in the reward [1/m] (needs no
    observation; ``0``: off)."""

    def validate(self) -> None:
        """Check the fields, the scene, the target depth order, the cloth's center particle and the arm's reach."""
        super().validate()
        cls, scene = type(self).__name__, self.scene
        if scene.cloth.cells % 2:
            raise ValueError(
                f"{cls}.scene.cloth.cells must be even (a particle at the center), got {scene.cloth.cells}"
            )
        arm, cloth = scene.arm, scene.cloth
        if tuple(arm.init_state.pos) != tuple(cloth.init_state.pos):
            raise ValueError(
                f"{cls}.scene.arm.init_state.pos {tuple(arm.init_state.pos)} must be the cloth center "
                f"{cls}.scene.cloth.init_state.pos {tuple(cloth.init_state.pos)}: the arm reaches over it"
            )
        reach = math.hypot(arm.shoulder_offset, arm.shoulder_height + self.fail_depth)
        if reach >= 2.0 * arm.link_length:
            raise ValueError(
                f"{cls}.scene.arm.link_length {arm.link_length} m is too short: the arm must reach "
                f"{reach:.3f} m from the shoulder (shoulder_offset, shoulder_height, fail_depth)"
            )


def arm_ik(cfg: TwoLinkArmCfg, y: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Shoulder and elbow angles [rad] that put the fingertip at (*y*, *z*) relative to the arm's reference point
    (the cloth center) [m].

    Elbow-up solution of the planar two-link arm; angles are about +x, the shoulder's measured from +y.
    Targets beyond the reach are pulled onto it.
    """
    length = cfg.link_length
    dy = y + cfg.shoulder_offset
    dz = z - cfg.shoulder_height
    dist2 = (dy * dy + dz * dz).clamp(max=(2.0 * length * 0.999) ** 2)
    cos_elbow = (dist2 / (2.0 * length * length) - 1.0).clamp(-1.0, 1.0)
    elbow = -torch.acos(cos_elbow)  # negative: the elbow points up
    shoulder = torch.atan2(dz, dy) - torch.atan2(length * torch.sin(elbow), length * (1.0 + torch.cos(elbow)))
    return shoulder, elbow


def _fingertip(cfg: TwoLinkArmCfg, q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Fingertip (y, z) relative to the arm's reference point [m] for joint angles ``q[..., 2]`` [rad]."""
    a1, a12 = q[..., 0], q[..., 0] + q[..., 1]
    length = cfg.link_length
    y = -cfg.shoulder_offset + length * (torch.cos(a1) + torch.cos(a12))
    z = cfg.shoulder_height + length * (torch.sin(a1) + torch.sin(a12))
    return y, z


class ArmPressClothEnv(ClothDepthTaskEnv):
    """Press the cloth center to a target depth with a PD-actuated two-joint arm."""

    num_observations = 10
    num_actions = 2

    cfg: ArmPressClothEnvCfg

    def _register_sensors(self, manager: type) -> None:
        cfg = self.cfg
        if cfg.coupler_observations or cfg.penetration_penalty > 0.0:
            arm, cloth = cfg.scene.arm.entry, cfg.scene.cloth.entry
            tip = r"/World/envs/env_.*/Arm/forearm"
            self.force_sensor = manager.add_interface_force_sensor(arm, cloth, bodies=tip)
            self.penetration_sensor = manager.add_penetration_sensor(cloth, arm, bodies=tip)

    def _setup_buffers(self) -> None:
        if self.cfg.coupler_observations:
            self.num_observations = 13
        manager = self.manager
        columns = manager.joint_view_columns("joint_q")
        self.joint_cols = [columns.index("shoulder"), columns.index("elbow")]
        self.joint_q = manager.joint_view("joint_q")
        self.joint_qd = manager.joint_view("joint_qd")
        self.joint_target = manager.joint_view("joint_target_q")
        self.default_q = torch.tensor(self.cfg.scene.arm.default_joint_pos(), device=self.torch_device)
        self.joint_target[:, self.joint_cols] = self.default_q
        self._setup_cloth_buffers()
        self.prev_action = torch.zeros(self.num_envs, self.num_actions, device=self.torch_device)
        self.action_rate = torch.zeros(self.num_envs, device=self.torch_device)

    def _pre_physics_step(self, actions: torch.Tensor) -> None:
        # In-place: rsl-rl steps under torch.inference_mode(), and buffers must stay normal tensors.
        self.action_rate.copy_(((actions - self.prev_action) ** 2).sum(dim=-1))
        self.prev_action.copy_(actions)
        self.joint_target[:, self.joint_cols] = self.default_q + self.cfg.action_scale * actions

    def measurements(self) -> dict[str, torch.Tensor]:
        """Current joint angles ``q`` [rad], velocities ``qd`` [rad/s], fingertip ``tip_y``/``tip_z`` and cloth ``depth`` [m]."""
        q = self.joint_q[:, self.joint_cols]
        tip_y, tip_z = _fingertip(self.cfg.scene.arm, q)
        depth = self.cloth_depth()
        m = {"q": q, "qd": self.joint_qd[:, self.joint_cols], "tip_y": tip_y, "tip_z": tip_z, "depth": depth}
        if hasattr(self, "force_sensor"):
            manager = self.manager
            m["cloth_force"] = manager.get_interface_force_sensor(self.force_sensor).wrench[:, 0, :3]  # [N]
            m["penetration"] = manager.get_penetration_sensor(self.penetration_sensor).max_depth  # [m]
        return m

    def _get_observations(self) -> torch.Tensor:
        m = self.measurements()
        parts = [
            m["q"] - self.default_q,
            m["qd"],
            torch.stack([m["tip_y"], m["tip_z"], m["depth"], self.target], dim=-1),
            self.prev_action,
        ]
        if self.cfg.coupler_observations:
            parts.append(torch.stack([m["cloth_force"][:, 1] / 10.0, m["cloth_force"][:, 2] / 10.0], dim=-1))
            parts.append((100.0 * m["penetration"]).unsqueeze(-1))
        return torch.cat(parts, dim=-1)

    def _get_rewards(self) -> torch.Tensor:
        cfg = self.cfg
        m = self.measurements()
        reward = (
            self.depth_reward(m["depth"])
            - cfg.action_rate_penalty * self.action_rate
            - cfg.drift_penalty * m["tip_y"] ** 2
        )
        if cfg.penetration_penalty > 0.0:
            reward = reward - cfg.penetration_penalty * m["penetration"]
        return reward

    def _get_dones(self) -> torch.Tensor:
        return self.measurements()["tip_z"] < -self.cfg.fail_depth

    def _reset_idx(self, env_ids: torch.Tensor) -> None:
        self._draw_targets(env_ids)
        self.prev_action[env_ids] = 0.0
        self.action_rate[env_ids] = 0.0
        self.joint_target[env_ids.unsqueeze(-1), torch.tensor(self.joint_cols, device=self.torch_device)] = (
            self.default_q
        )


def oracle_policy(env: ArmPressClothEnv, gain: float = 0.5) -> Callable[[Any], torch.Tensor]:
    """A scripted controller with privileged knowledge; returns ``obs -> actions``.

    It reads the true cloth depth, fingertip position and target from the env and commands a
    fingertip position through the arm's inverse kinematics (:func:`arm_ik`): it starts with the
    sphere's bottom at the target depth over the cloth center and integrates the depth error and
    the fingertip's horizontal drift into that command (``gain`` [m per m of error per env step]),
    which makes up for the PD offsets that the cloth's push and the arm's weight cause. Its mean
    return defines the reference return.
    """
    cfg, arm = env.cfg, env.cfg.scene.arm
    command = torch.zeros(env.num_envs, 2, device=env.torch_device)

    def act(_obs) -> torch.Tensor:
        m = env.measurements()
        fresh = env.episode_length == 0  # an env that was just reset starts its command over
        q = oracle_joint_targets(arm, command, fresh, m["tip_y"], m["depth"], env.target, gain)
        return ((q - env.default_q) / cfg.action_scale).clamp(-1.0, 1.0)

    return act


def oracle_joint_targets(
    arm: TwoLinkArmCfg,
    command: torch.Tensor,
    fresh: torch.Tensor,
    tip_y: torch.Tensor,
    depth: torch.Tensor,
    target: torch.Tensor,
    gain: float,
) -> torch.Tensor:
    """One step of the oracle's law (see :func:`oracle_policy`): update the fingertip *command* ``[num_envs, 2]``
    (y, z relative to the cloth center [m]; envs *fresh* from a reset start over with the sphere's bottom at the
    *target* depth) by the drift *tip_y* and the depth error, and return the joint angles that reach it [rad]."""
    command[fresh, 0] = 0.0
    command[fresh, 1] = (arm.fingertip_radius - target)[fresh]
    command[:, 0] -= gain * tip_y
    command[:, 1] -= gain * (target - depth)
    shoulder, elbow = arm_ik(arm, command[:, 0], command[:, 1])
    return torch.stack([shoulder, elbow], dim=-1)


@configclass
class ArmPressClothPPORunnerCfg(RslRlOnPolicyRunnerCfg):
    """rsl-rl PPO settings that train the task in a few minutes on a 2-core CPU."""

    experiment_name: str = "arm_press_cloth"
    num_envs: int = 32
    num_steps_per_env: int = 24
    max_iterations: int = 250
    save_interval: int = 50


register_task(
    TASK_ID,
    env_class=ArmPressClothEnv,
    env_cfg_class=ArmPressClothEnvCfg,
    runner_cfg_class=ArmPressClothPPORunnerCfg,
    oracle=oracle_policy,
)


@configclass
class ArmPressClothCouplerObsEnvCfg(ArmPressClothEnvCfg):
    """The arm task observing the coupler: the cloth's push on the fingertip and its penetration, and a
    penalty on penetration (:attr:`ArmPressClothEnvCfg.coupler_observations`)."""

    coupler_observations: bool = True
    penetration_penalty: float = 10.0
    """Weight of the fingertip's penetration into the cloth particles [1/m]: 1 cm costs 0.1 per env step."""


@configclass
class ArmPressClothCouplerObsPPORunnerCfg(ArmPressClothPPORunnerCfg):
    """The arm task's PPO settings, logged under their own experiment name."""

    experiment_name: str = "arm_press_cloth_coupler_obs"


register_task(
    COUPLER_OBS_TASK_ID,
    env_class=ArmPressClothEnv,
    env_cfg_class=ArmPressClothCouplerObsEnvCfg,
    runner_cfg_class=ArmPressClothCouplerObsPPORunnerCfg,
    oracle=oracle_policy,
)
