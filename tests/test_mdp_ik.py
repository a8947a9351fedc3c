"""Differential IK as an action term, on the two-link arm over the cloth: its Jacobian against the arm's planar
kinematics written out by hand, and the fingertip brought to commanded points."""

import math

import torch

from isaaclab_contrib.envs import ManagerBasedRLEnv, mdp
from isaaclab_contrib.utils.configclass import configclass
from isaaclab_coupling_configs.arm_press_cloth_manager_task import ArmPressClothManagerEnvCfg

N = 2


@configclass
class IkActionsCfg:
    arm = mdp.DifferentialInverseKinematicsActionCfg(
        asset_name="arm",
        joint_names=["shoulder", "elbow"],
        body_name="forearm",
        body_offset=mdp.DifferentialInverseKinematicsActionCfg.OffsetCfg(pos=(0.0, 0.2, 0.0)),  # the fingertip
        controller=mdp.DifferentialIKControllerCfg(
            command_type="position", ik_method="dls", ik_params={"lambda_val": 0.05}
        ),
    )


def test_differential_ik_follows_the_arms_kinematics_and_reaches_the_command():
    cfg = ArmPressClothManagerEnvCfg(actions=IkActionsCfg())
    cfg.scene.num_envs = N
    cfg.observations.policy.actions = None  # the policy's action is now 3 values: drop the 2-joint term
    arm = cfg.scene.arm
    env = ManagerBasedRLEnv(cfg)
    try:
        env.reset()
        term = env.action_manager.get_term("arm")
        q = env.scene["arm"].data.joint_pos.torch
        a1, a12, length = q[:, 0], q[:, 0] + q[:, 1], arm.link_length
        expected = torch.stack(
            [
                torch.stack([-length * (torch.sin(a1) + torch.sin(a12)), -length * torch.sin(a12)], dim=-1),
                torch.stack([length * (torch.cos(a1) + torch.cos(a12)), length * torch.cos(a12)], dim=-1),
            ],
            dim=1,
        )
        jac = term._jacobian_b()
        assert torch.allclose(jac[:, 1:3], expected, atol=1e-5)  # d(y, z) / d(shoulder, elbow) [m/rad]
        assert torch.allclose(jac[:, 0], torch.zeros(N, 2), atol=1e-6) and torch.allclose(jac[:, 3], torch.ones(N, 2))
        # Points in the shoulder's frame, above the cloth: one per env.
        targets = torch.tensor([[0.0, 0.25, -0.05], [0.0, 0.18, 0.05]])
        for _ in range(40):
            env.step(targets)
        tip, _ = term._ee_pose_b()
        error = (tip - targets).norm(dim=-1)
        assert (error < 0.015).all(), error  # the soft PD leaves a small sag under the arm's weight
        assert math.isclose(float(tip[0, 0]), 0.0, abs_tol=1e-4)  # the planar arm stays in its plane
    finally:
        env.close()
