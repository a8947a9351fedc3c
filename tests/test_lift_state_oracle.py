"""The memoryless lift oracle (``configs/_lift_state_oracle.py``): its damping compensation against the primal form
of damped least squares, its option checks, that it keeps nothing between calls, and (slow) that it lifts the
cable onto the command."""

from __future__ import annotations

import math

import pytest
import torch

import isaaclab_coupling_configs  # noqa: F401  (registers the tasks)
from isaaclab_contrib.envs import ManagerBasedRLEnv
from isaaclab_coupling_configs import lift_franka as lf
from isaaclab_coupling_configs import lift_franka_ik as lfi
from isaaclab_coupling_configs._lift_state_oracle import state_lift_oracle, undamped_pose_error


def _primal_dls(jac: torch.Tensor, error: torch.Tensor, damping: float) -> torch.Tensor:
    """``(J^T J + l^2 I)^-1 J^T e``: the damped least-squares step in its joint-space form."""
    eye = torch.eye(jac.shape[2], dtype=jac.dtype)
    jt = jac.transpose(1, 2)
    return torch.linalg.solve(jt @ jac + damping * damping * eye, jt @ error.unsqueeze(-1)).squeeze(-1)


def test_the_compensated_error_gives_the_less_damped_step_through_the_presets_damping():
    gen = torch.Generator().manual_seed(0)
    jac = torch.randn(5, 6, 7, generator=gen, dtype=torch.float64) * 0.4
    jac[0, :, 3] = 0.0  # a joint that moves nothing: the steps are still finite and equal
    wanted = torch.randn(5, 6, generator=gen, dtype=torch.float64) * 0.02
    sent = undamped_pose_error(jac, wanted, preset_damping=0.6, damping=0.1)
    assert torch.allclose(_primal_dls(jac, sent, 0.6), _primal_dls(jac, wanted, 0.1), atol=1e-10)
    assert not torch.allclose(_primal_dls(jac, wanted, 0.6), _primal_dls(jac, wanted, 0.1), atol=1e-4)
    assert torch.allclose(undamped_pose_error(jac, wanted, 0.6, 0.6), wanted, atol=1e-12)


@pytest.mark.parametrize(
    ("option", "value", "error", "match"),
    [
        ("reach", 0.0, ValueError, "state_lift_oracle: reach must be finite and > 0"),
        ("damping", -0.1, ValueError, "state_lift_oracle: damping must be finite and > 0"),
        ("align", -1.0, ValueError, "state_lift_oracle: align must be finite and >= 0"),
        ("arrive", math.nan, ValueError, "state_lift_oracle: arrive must be finite"),
        ("settle", math.inf, ValueError, "state_lift_oracle: settle must be finite"),
        ("turn", "0.1", TypeError, "state_lift_oracle: turn must be a real number"),
        ("yaw", None, TypeError, "state_lift_oracle: yaw must be a real number"),
    ],
)
def test_state_lift_oracle_refuses_a_bad_option_by_name_before_touching_the_env(option, value, error, match):
    with pytest.raises(error, match=match):
        state_lift_oracle(None, None, None, **{option: value})


def _env(cls, num_envs: int, seed: int = 0, gravity: float = -9.81) -> ManagerBasedRLEnv:
    cfg = cls(seed=seed)
    cfg.scene.num_envs = num_envs
    cfg.curriculum.gravity.params["initial_gravity"] = gravity
    return ManagerBasedRLEnv(cfg)


@pytest.mark.slow  # two 2-env builds of the cable task (~10 s each)
def test_the_state_oracle_keeps_nothing_between_calls_and_needs_the_ik_preset():
    env = _env(lfi.LiftCableIkEnvCfg, 2)
    try:
        obs, _ = env.reset()
        act = lf.cable_state_oracle(env)
        for _ in range(3):
            obs, *_ = env.step(act(obs))
        first = act(obs)
        assert torch.equal(act(obs), first)  # asked twice about one state: one answer
        assert torch.equal(lf.cable_state_oracle(env)(obs), first)  # a fresh oracle answers the same
        assert torch.equal(act(obs, hold=torch.ones(2, dtype=torch.bool)), first)
        env.action_manager.get_term("gripper_action").raw_actions[0] = -1.0  # as if the last action had closed
        closed = act(obs)
        assert closed[0, -1] == -1.0 and closed[1, -1] == first[1, -1]  # the gripper stays closed; env 1 as before
    finally:
        env.close()
    env = _env(lf.LiftCableEnvCfg, 2)
    try:
        with pytest.raises(ValueError, match="state_lift_oracle: the env's arm_action must be an absolute pose"):
            lf.cable_state_oracle(env)
    finally:
        env.close()


@pytest.mark.slow  # 16 envs for a whole episode of the cable task
def test_the_state_oracle_lifts_the_middle_segment_onto_the_command():
    env = _env(lfi.LiftCableIkEnvCfg, 16, seed=1)
    try:
        obs, _ = env.reset()
        act = lf.cable_state_oracle(env)
        for _ in range(env.max_episode_length - 1):
            obs, *_ = env.step(act(obs))
        success = env.command_manager.get_term("object_pose").metrics["success"]
        assert float(success.mean()) >= 15 / 16
    finally:
        env.close()
