"""A memoryless lift oracle: its action is a function of the state the ``-IK-Abs-v0`` policy observes.

:func:`~._lift_franka.lift_oracle` plans on its own clock (phases by env step, a commanded point moving at a set
speed, a running sum of the tracking error, a close at step 100 at the latest). A policy fitted to it
(``scripts/train_dagger.py``) cannot see that clock or that sum, and the cable's grasp needs millimetres: its
actors stopped 1-2 cm off the grasp point. :func:`state_lift_oracle` keeps no state between calls. Each step it
asks for a joint step toward a goal chosen from what the policy also observes (the hand, the object's points, the
command, the fingers, the last gripper action), so its labels are a function of the policy's inputs.

The damped IK of the ``ik`` preset (lambda 0.6) covers only a few per cent of a position error per env step near
the table. The oracle asks for a less damped joint step instead: it sends the pose error that the preset's
damping turns into the step that a damping of *damping* would give (:func:`undamped_pose_error`). Where a policy
sends the same action with an error, the preset's damping shrinks that error's effect the same way.
"""

from __future__ import annotations

from typing import Any

import torch

from isaaclab_contrib.envs import ManagerBasedRLEnv, mdp
from isaaclab_contrib.envs.mdp.ik_action import _axis_angle_from_quat, _quat_from_axis_angle
from isaaclab_contrib.utils.math import quat_conjugate, quat_mul

from ._lift_franka import check_options, hand_down, in_base_frame

__all__ = ["state_lift_oracle", "undamped_pose_error"]


def undamped_pose_error(jacobian: torch.Tensor, error: torch.Tensor, preset_damping: float, damping: float):
    """The pose error whose damped least-squares step at *preset_damping* is the step at *damping* for *error*.

    ``J^T (J J^T + a^2 I)^-1 e = J^T (J J^T + b^2 I)^-1 d`` holds for ``e = (J J^T + a^2 I) (J J^T + b^2 I)^-1 d``.

    Args:
        jacobian: ``[n, rows, joints]``, the end effector's Jacobian [m/rad; rad/rad].
        error: ``[n, rows]``, the pose error the step is for (position [m], then rotation vector [rad]).
        preset_damping: The damping the action term applies (Isaac Lab's ``lambda_val``) [dimensionless].
        damping: The damping whose step is wanted, > 0 [dimensionless].

    Returns:
        ``[n, rows]``, the pose error to send.
    """
    eye = torch.eye(jacobian.shape[1], dtype=jacobian.dtype, device=jacobian.device)
    jj = jacobian @ jacobian.transpose(1, 2)
    wanted = torch.linalg.solve(jj + damping * damping * eye, error.unsqueeze(-1))
    return ((jj + preset_damping * preset_damping * eye) @ wanted).squeeze(-1)


def _clamp_norm(v: torch.Tensor, limit: torch.Tensor | float) -> torch.Tensor:
    """*v* shortened, row by row, to a norm of at most *limit*."""
    return v * (limit / v.norm(dim=-1, keepdim=True).clamp(min=1e-12)).clamp(max=1.0)


def state_lift_oracle(
    env: ManagerBasedRLEnv,
    grasp_point: Any,
    object_center: Any,
    reach: float = 0.05,
    carry_reach: float = 0.04,
    peel: float = 0.01,
    peel_gain: float = 0.5,
    turn: float = 0.15,
    damping: float = 0.1,
    arrive: float = 0.008,
    min_height: float = 0.001,
    align: float = 1.0,
    carry_below: float = 0.013,
    settle: float = 0.01,
    yaw: float = 0.0,
):
    """A scripted pick through the ``ik`` preset that keeps nothing between calls.

    Each env step, from the current state only:

    - **Open** (the last gripper action did not close): the goal is the grasp point, raised by *align* times the
      tool center point's horizontal distance from it (a cone the hand comes down once it is over the point) and
      kept at least *min_height* over the table. The gripper closes once the tool center point is within *arrive*
      of the grasp point.
    - **Closing** (the last gripper action closed): the goal is the grasp point; the gripper stays closed.
    - **Carrying** (closing, the finger opening under *carry_below* and the fingers still, under *settle*): the
      hand moves by the command less the object's center, so that the center, not the hand, lands on the command;
      the step grows with the height (*peel* + *peel_gain* times the tool center point's height, at most
      *carry_reach*): the object leaves the table slowly.

    The position step is the goal less the tool center point, at most *reach*; the rotation step turns the hand
    toward pointing down (turned by *yaw*), at most *turn*; the pose error sent is the one whose step through the
    preset's damped IK is the step of damping *damping* (:func:`undamped_pose_error`).

    Args:
        env: The env, with the ``ik`` preset (``arm_action`` an absolute pose by damped least squares).
        grasp_point: ``grasp_point(env) -> [num_envs, 3]``, where the TCP closes, world frame [m].
        object_center: ``object_center(env) -> [num_envs, 3]``, the point that must reach the command, world [m].
        reach: Largest position step asked for before the carry [m].
        carry_reach: Largest position step asked for while carrying [m].
        peel: Largest carrying step with the tool center point at the table's height [m].
        peel_gain: Growth of the largest carrying step with the tool center point's height [dimensionless].
        turn: Largest rotation step asked for [rad].
        damping: Damping of the joint step asked for, > 0 [dimensionless] (the preset's is 0.6).
        arrive: Distance of the tool center point from the grasp point at which the gripper closes [m].
        min_height: Lowest goal height of the tool center point before it closes [m].
        align: Rise of the goal per metre of horizontal distance from the grasp point [dimensionless].
        carry_below: Finger opening under which a closing gripper holds the object [m].
        settle: Finger speed under which the fingers count as still [m/s].
        yaw: Turn of the hand about the vertical from fingers opening along y [rad].

    Returns:
        ``act(obs, hold=None) -> actions`` (pose and gripper). *hold* is accepted for ``train_dagger.py --hold``
        and has no effect: the oracle has no plan to hold.

    Raises:
        TypeError: An option is not a real number.
        ValueError: An option is out of range, or the env's ``arm_action`` is not an absolute pose by damped least
            squares.
    """
    positive = {"reach": reach, "carry_reach": carry_reach, "turn": turn, "damping": damping, "arrive": arrive}
    positive |= {"carry_below": carry_below, "settle": settle}
    non_negative = {"peel": peel, "peel_gain": peel_gain, "align": align}
    checks = [(name, value, "> 0") for name, value in positive.items()]
    checks += [(name, value, ">= 0") for name, value in non_negative.items()]
    check_options("state_lift_oracle", [*checks, ("min_height", min_height, "any"), ("yaw", yaw, "any")])
    ik = env.action_manager.get_term("arm_action")
    controller = getattr(getattr(ik, "cfg", None), "controller", None)
    if (
        not isinstance(ik, mdp.DifferentialInverseKinematicsAction)
        or controller.command_type != "pose"
        or controller.use_relative_mode
        or controller.ik_method != "dls"
    ):
        raise ValueError(
            f"state_lift_oracle: the env's arm_action must be an absolute pose by damped least squares (the 'ik' "
            f"preset, the -IK-Abs-v0 tasks), got {type(ik).__name__} of {type(env.cfg).__name__}"
        )
    preset_damping = float(ik._ik_params["lambda_val"])
    gripper = env.action_manager.get_term("gripper_action")
    robot = env.scene["robot"]
    tcp_id = robot.find_bodies("panda_hand_tcp")[0][0]
    fingers = robot.find_joints("panda_finger_joint.*")[0]
    down = hand_down(env, yaw)

    def act(_obs, hold: torch.Tensor | None = None) -> torch.Tensor:
        tcp = in_base_frame(robot, robot.data.body_pos_w.torch[:, tcp_id])
        grasp, center = in_base_frame(robot, grasp_point(env)), in_base_frame(robot, object_center(env))
        command = env.command_manager.get_command("object_pose")[:, :3]
        opening = robot.data.joint_pos.torch[:, fingers].mean(dim=-1)
        still = robot.data.joint_vel.torch[:, fingers].abs().amax(dim=-1) < settle
        closing = gripper.raw_actions[:, 0] < 0.0
        carrying = closing & (opening < carry_below) & still
        aside = (tcp[:, :2] - grasp[:, :2]).norm(dim=-1)
        cone = torch.clamp(grasp[:, 2] + align * aside, min=min_height)
        goal = torch.cat([grasp[:, :2], torch.where(closing, grasp[:, 2], cone).unsqueeze(-1)], dim=-1)
        carry_limit = (peel + peel_gain * tcp[:, 2:3].clamp(min=0.0)).clamp(max=carry_reach)
        position = torch.where(
            carrying.unsqueeze(-1), _clamp_norm(command - center, carry_limit), _clamp_norm(goal - tcp, reach)
        )
        pos, quat = ik._ee_pose_b()
        rotation = _clamp_norm(_axis_angle_from_quat(quat_mul(down, quat_conjugate(quat))), turn)
        error = undamped_pose_error(ik._jacobian_b(), torch.cat([position, rotation], dim=-1), preset_damping, damping)
        target_quat = quat_mul(_quat_from_axis_angle(error[:, 3:]), quat)
        close = closing | ((tcp - grasp).norm(dim=-1) < arrive)
        grip = torch.where(close, -1.0, 1.0).unsqueeze(-1)
        return torch.cat([pos + error[:, :3], target_quat, grip], dim=-1)

    return act
