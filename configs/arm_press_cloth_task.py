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

from isaaclab_contrib.coupling import CouplerProxyCfg
from isaaclab_contrib.envs import register_task
from isaaclab_contrib.physics.actuators.adapter import add_actuators
from isaaclab_contrib.physics.actuators.cfg import IdealPDActuatorCfg
from isaaclab_contrib.rl import RslRlOnPolicyRunnerCfg
from isaaclab_contrib.scenes import replicate_envs
from isaaclab_contrib.utils.configclass import configclass

from .cloth_depth_task import ClothDepthTaskCfg, ClothDepthTaskEnv

__all__ = ["TASK_ID", "ArmPressClothEnv", "ArmPressClothEnvCfg", "ArmPressClothPPORunnerCfg", "arm_ik", "oracle_policy"]

TASK_ID = "Isaac-Arm-Press-Cloth-Direct-v0"
"""Gymnasium id of this task (registered on import)."""


@configclass
class ArmPressClothEnvCfg(ClothDepthTaskCfg):
    """Arm, actuator, action, reward and termination settings of the arm-presses-cloth task (cloth: the base class)."""

    _ranges: ClassVar[dict[str, str]] = {
        "cloth_cells": ">= 2",
        "link_length": "> 0",
        "link_radius": "> 0",
        "fingertip_radius": "> 0",
        "arm_density": "> 0",
        "shoulder_offset": "> 0",
        "shoulder_height": "> 0",
        "start_gap": ">= 0",
        "stiffness": ">= 0",
        "damping": ">= 0",
        "effort_limit": "> 0",
        "action_scale": "> 0",
        "action_rate_penalty": ">= 0",
        "drift_penalty": ">= 0",
        "fail_depth": "> 0",
    }

    episode_length_s: float = 2.0
    """Episode length before truncation [s] (120 env steps at the default 60 Hz)."""
    cloth_cells: int = 4
    """Cloth cells per side [count] (even, so a particle sits at the center)."""
    link_length: float = 0.2
    """Length of each of the two links, joint to joint [m]."""
    link_radius: float = 0.012
    """Radius of the link capsules [m] (they do not collide; only the fingertip touches the cloth)."""
    fingertip_radius: float = 0.04
    """Radius of the fingertip sphere at the end of the second link [m]."""
    arm_density: float = 500.0
    """Density of the links and the fingertip [kg/m^3]."""
    shoulder_offset: float = 0.24
    """Horizontal distance of the shoulder from the cloth center, along -y [m]."""
    shoulder_height: float = 0.16
    """Height of the shoulder above the cloth's pinned edges [m]."""
    start_gap: float = 0.02
    """Gap between the fingertip and the flat cloth in the default pose [m]."""
    stiffness: float = 40.0
    """PD stiffness of both joints [N*m/rad]."""
    damping: float = 0.8
    """PD damping of both joints [N*m*s/rad]."""
    effort_limit: float = 15.0
    """Torque limit of both joints [N*m]."""
    action_scale: float = 1.0
    """Joint target offset of a full action [rad]."""
    action_rate_penalty: float = 0.01
    """Weight of the squared change of the action per env step."""
    drift_penalty: float = 5.0
    """Weight of the squared horizontal distance of the fingertip from the cloth center [1/m^2]."""
    fail_depth: float = 0.15
    """Terminate when the fingertip center is this far below the pinned edges [m] (through the cloth)."""

    def validate(self) -> None:
        """Check the fields (types and declared ranges), the target depth order and the arm's reach."""
        super().validate()
        if self.cloth_cells % 2:
            raise ValueError(
                f"ArmPressClothEnvCfg.cloth_cells must be even (a particle at the center), got {self.cloth_cells}"
            )
        reach = math.hypot(self.shoulder_offset, self.shoulder_height + self.fail_depth)
        if reach >= 2.0 * self.link_length:
            raise ValueError(
                f"ArmPressClothEnvCfg.link_length {self.link_length} m is too short: the arm must reach "
                f"{reach:.3f} m from the shoulder (shoulder_offset, shoulder_height, fail_depth)"
            )


def arm_ik(cfg: ArmPressClothEnvCfg, y: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Shoulder and elbow angles [rad] that put the fingertip at (*y*, *z*) relative to the cloth center [m].

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


def _fingertip(cfg: ArmPressClothEnvCfg, q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Fingertip (y, z) relative to the cloth center [m] for joint angles ``q[..., 2]`` [rad]."""
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

    def _coupler_cfg(self) -> CouplerProxyCfg:
        return self._presser_coupler_cfg("arm", "Arm", "Arm/forearm")

    def default_joint_q(self) -> tuple[float, float]:
        """Joint angles [rad] of the default pose: the fingertip ``start_gap`` above the cloth center."""
        cfg = self.cfg
        z = torch.tensor(cfg.fingertip_radius + cfg.start_gap, dtype=torch.float64)
        shoulder, elbow = arm_ik(cfg, torch.zeros((), dtype=torch.float64), z)
        return float(shoulder), float(elbow)

    def _build_scene(self, builder) -> None:
        cfg = self.cfg
        q0 = self.default_joint_q()
        proto = newton.ModelBuilder()
        link_shape = newton.ModelBuilder.ShapeConfig(
            density=cfg.arm_density, has_shape_collision=False, has_particle_collision=False
        )
        tip_shape = newton.ModelBuilder.ShapeConfig(density=cfg.arm_density)
        half = 0.5 * cfg.link_length
        # Links extend along their local +y; the capsule axis is z, turned onto y.
        along_y = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), -0.5 * math.pi)
        shoulder_pos = wp.vec3(0.0, -cfg.shoulder_offset, cfg.cloth_height + cfg.shoulder_height)
        # Link frames sit at their joints; the joints start at the default pose.
        rot1 = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), q0[0])
        rot12 = wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), q0[0] + q0[1])
        elbow_pos = shoulder_pos + wp.quat_rotate(rot1, wp.vec3(0.0, cfg.link_length, 0.0))
        links = []
        for name, pos, rot in (("upper_arm", shoulder_pos, rot1), ("forearm", elbow_pos, rot12)):
            link = proto.add_link(xform=wp.transform(pos, rot), label=f"Arm/{name}")
            proto.add_shape_capsule(
                link,
                xform=wp.transform((0.0, half, 0.0), along_y),
                radius=cfg.link_radius,
                half_height=half,
                cfg=link_shape,
                label=f"Arm/{name}/visual",
            )
            links.append(link)
        upper, forearm = links
        proto.add_shape_sphere(
            forearm,
            xform=wp.transform((0.0, cfg.link_length, 0.0), wp.quat_identity()),
            radius=cfg.fingertip_radius,
            cfg=tip_shape,
            label="Arm/forearm/fingertip",
        )
        shoulder = proto.add_joint_revolute(
            -1, upper, axis=(1, 0, 0), parent_xform=wp.transform(shoulder_pos, wp.quat_identity()), label="Arm/shoulder"
        )
        elbow = proto.add_joint_revolute(
            upper,
            forearm,
            axis=(1, 0, 0),
            parent_xform=wp.transform((0.0, cfg.link_length, 0.0), wp.quat_identity()),
            label="Arm/elbow",
        )
        proto.add_articulation([shoulder, elbow], label="Arm")
        proto.joint_q[0], proto.joint_q[1] = q0
        add_actuators(
            proto,
            {
                "arm": IdealPDActuatorCfg(
                    joint_names_expr=["shoulder", "elbow"],
                    stiffness=cfg.stiffness,
                    damping=cfg.damping,
                    effort_limit=cfg.effort_limit,
                )
            },
        )
        self._add_cloth(proto)
        replicate_envs(builder, proto, cfg.num_envs, spacing=1.0)

    def _setup_buffers(self) -> None:
        manager = self.manager
        columns = manager.joint_view_columns("joint_q")
        self.joint_cols = [columns.index("shoulder"), columns.index("elbow")]
        self.joint_q = manager.joint_view("joint_q")
        self.joint_qd = manager.joint_view("joint_qd")
        self.joint_target = manager.joint_view("joint_target_q")
        self.default_q = torch.tensor(self.default_joint_q(), device=self.torch_device)
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
        tip_y, tip_z = _fingertip(self.cfg, q)
        depth = self.cloth_depth()
        return {"q": q, "qd": self.joint_qd[:, self.joint_cols], "tip_y": tip_y, "tip_z": tip_z, "depth": depth}

    def _get_observations(self) -> torch.Tensor:
        m = self.measurements()
        return torch.cat(
            [
                m["q"] - self.default_q,
                m["qd"],
                torch.stack([m["tip_y"], m["tip_z"], m["depth"], self.target], dim=-1),
                self.prev_action,
            ],
            dim=-1,
        )

    def _get_rewards(self) -> torch.Tensor:
        cfg = self.cfg
        m = self.measurements()
        return (
            self.depth_reward(m["depth"])
            - cfg.action_rate_penalty * self.action_rate
            - cfg.drift_penalty * m["tip_y"] ** 2
        )

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
    cfg = env.cfg
    command = torch.zeros(env.num_envs, 2, device=env.torch_device)

    def act(_obs) -> torch.Tensor:
        fresh = env.episode_length == 0  # an env that was just reset starts its command over
        m = env.measurements()
        command[fresh, 0] = 0.0
        command[fresh, 1] = (cfg.fingertip_radius - env.target)[fresh]  # the sphere's bottom at the target depth
        command[:, 0] -= gain * m["tip_y"]
        command[:, 1] -= gain * (env.target - m["depth"])
        shoulder, elbow = arm_ik(cfg, command[:, 0], command[:, 1])
        q = torch.stack([shoulder, elbow], dim=-1)
        return ((q - env.default_q) / cfg.action_scale).clamp(-1.0, 1.0)

    return act


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
