"""The env contract on the actuated task: a PD-driven two-joint arm pressing a cloth (proxy coupling)."""

import math

import gymnasium as gym
import numpy as np
import pytest
import torch
from task_contract import rollout, rollouts_with_an_aged_env, set_field, task_config

from isaaclab_contrib.physics import SimulationContext
from isaaclab_coupling_configs.arm_press_cloth_task import (
    TASK_ID,
    ArmPressClothEnv,
    ArmPressClothEnvCfg,
    arm_ik,
    oracle_policy,
)

N = 4


def config(num_envs: int = N, device: str = "cpu", use_graph: bool = True, **kw) -> ArmPressClothEnvCfg:
    return task_config(ArmPressClothEnvCfg, num_envs, device, use_graph, **kw)


def make(device: str, use_graph: bool = True, **kw) -> ArmPressClothEnv:
    return ArmPressClothEnv(config(N, device, use_graph, seed=5, **kw))


def test_inverse_kinematics_inverts_the_arm():
    cfg = ArmPressClothEnvCfg().scene.arm
    y = torch.tensor([0.0, 0.03, -0.02, 0.0], dtype=torch.float64)
    z = torch.tensor([0.07, 0.0, -0.05, -0.1], dtype=torch.float64)
    shoulder, elbow = arm_ik(cfg, y, z)
    # Forward kinematics written out independently of the task module.
    a1, a12 = shoulder, shoulder + elbow
    fy = -cfg.shoulder_offset + cfg.link_length * (torch.cos(a1) + torch.cos(a12))
    fz = cfg.shoulder_height + cfg.link_length * (torch.sin(a1) + torch.sin(a12))
    np.testing.assert_allclose(fy.numpy(), y.numpy(), atol=1e-9)
    np.testing.assert_allclose(fz.numpy(), z.numpy(), atol=1e-9)
    assert torch.all(elbow < 0)  # elbow up


def test_shapes_spaces_and_the_default_pose(device):
    env = make(device, episode_length_s=0.1)  # 6 env steps
    try:
        obs, extras = env.reset()
        assert obs.shape == (N, 10) and obs.dtype == torch.float32 and extras == {}
        assert env.single_action_space.shape == (2,) and env.action_space.shape == (N, 2)
        assert env.observation_space.shape == (N, 10)
        m = env.measurements()
        # Joints start at the default pose: fingertip start_gap above the cloth center.
        arm = env.cfg.scene.arm
        torch.testing.assert_close(m["tip_y"], torch.zeros(N), atol=1e-5, rtol=0)
        torch.testing.assert_close(
            m["tip_z"], torch.full((N,), arm.fingertip_radius + arm.start_gap), atol=1e-5, rtol=0
        )
        # The body the Steel entry simulates sits where the joint angles say (FK was run on reset).
        model = env.manager.get_model()
        forearm = model.body_label.index("/World/envs/env_0/Arm/forearm")
        body_q = env.manager.get_state_0().body_q.numpy()[forearm]
        angle = float(m["q"][0].sum())
        tip_world = body_q[:3] + arm.link_length * np.array([0.0, math.cos(angle), math.sin(angle)])
        np.testing.assert_allclose(
            tip_world[1:], [float(m["tip_y"][0]), env.cfg.scene.cloth.height + float(m["tip_z"][0])], atol=1e-5
        )
        for _ in range(6):
            obs, reward, terminated, truncated, extras = env.step(torch.zeros(N, 2))
            assert reward.shape == (N,) and reward.dtype == torch.float32 and bool((reward <= 1.0).all())
        assert truncated.all() and not terminated.any()
        assert extras["episode"]["length"].tolist() == [6] * N
        with pytest.raises(ValueError, match="actions must have shape"):
            env.step(torch.zeros(N, 1))
    finally:
        env.close()


def test_joint_targets_drive_the_arm_and_it_presses_the_cloth_through_the_coupling(device):
    env = make(device)
    try:
        env.reset()
        # Envs 0-1 reach down (shoulder and elbow open), envs 2-3 lift the arm.
        actions = torch.tensor([[-0.3, 0.3], [-0.3, 0.3], [0.3, -0.3], [0.3, -0.3]])
        for _ in range(40):
            env.step(actions)
        m = env.measurements()
        target = env.default_q + env.cfg.action_scale * actions
        assert torch.all((m["q"] - target).abs() < 0.15)  # the PD actuators follow the targets (up to the load)
        assert torch.equal(env.joint_target[:, env.joint_cols], target)
        assert torch.all(m["tip_z"][:2] < m["tip_z"][2:] - 0.05)
        # The cloth moves only through the proxy coupling: pressed where the arm reaches down.
        assert torch.all(m["depth"][:2] > m["depth"][2:] + 0.01)
    finally:
        env.close()


def test_the_oracle_holds_the_target_depth(device):
    env = make(device)
    try:
        obs, _ = env.reset()
        oracle = oracle_policy(env)
        rewards = []
        for _ in range(90):
            obs, reward, *_ = env.step(oracle(obs))
            rewards.append(reward)
        m = env.measurements()
        assert torch.all((m["depth"] - env.target).abs() < 0.003), (m["depth"], env.target)
        assert torch.all(m["tip_y"].abs() < 0.01)
        assert float(torch.stack(rewards[-30:]).mean()) > 0.9
    finally:
        env.close()


def test_auto_reset_touches_exactly_the_finished_env(device):
    actions = torch.rand(30, N, 2, generator=torch.Generator().manual_seed(2)) * 2 - 1
    # Env 1 is 10 steps from its time limit: it truncates at step 10 and restarts.
    early, plain = rollouts_with_an_aged_env(lambda: make(device), actions, env_id=1, steps_left=10)
    truncated = early[:, 1, -1].bool()
    assert int(torch.nonzero(truncated)[0]) == 9 and not plain[:, :, -1].bool().any()
    others = [0, 2, 3]
    assert torch.equal(early[:, others], plain[:, others])  # bitwise untouched
    assert not torch.equal(early[10:, 1], plain[10:, 1])
    # The finished env restarted at the default pose with zero previous actions.
    torch.testing.assert_close(early[9, 1, :2], torch.zeros(2), atol=1e-6, rtol=0)
    torch.testing.assert_close(early[9, 1, 8:10], torch.zeros(2))


def test_eager_and_captured_rollouts_are_identical(device):
    actions = torch.rand(20, N, 2, generator=torch.Generator().manual_seed(1)) * 2 - 1
    results = []
    for graph in (True, False):
        env = make(device, graph)
        try:
            assert env.manager.is_graph_captured() == graph
            results.append(rollout(env, actions))
        finally:
            env.close()
    assert torch.equal(results[0], results[1])


def test_steps_under_inference_mode_leave_buffers_usable_outside(device):
    env = make(device)
    try:
        env.reset()
        with torch.inference_mode():  # rsl-rl collects rollouts like this
            for _ in range(3):
                env.step(torch.full((N, 2), 0.2))
        env.reset()  # writes task buffers in place: must not hit inference tensors
        env.step(torch.zeros(N, 2))
        assert not env.prev_action.is_inference() and not env.action_rate.is_inference()
    finally:
        env.close()


def test_gymnasium_make_builds_the_task_from_its_id():
    cfg = config(2)
    env = gym.make(TASK_ID, cfg=cfg)
    try:
        assert isinstance(env.unwrapped, ArmPressClothEnv) and env.unwrapped.num_envs == 2
        obs, _ = env.reset(seed=0)
        assert obs.shape == (2, 10)
    finally:
        env.close()
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        gym.make(TASK_ID, cfg=cfg, num_env=3)
    with pytest.raises(ValueError, match="render_mode must be"):
        ArmPressClothEnv(cfg, render_mode="human")  # (gym.make turns "human" into rgb_array + HumanRendering)
    with pytest.raises(TypeError, match=r"cfg is a builtins\.dict, but this task's config is .*ArmPressClothEnvCfg"):
        gym.make(TASK_ID, cfg={"num_envs": 2})
    with pytest.raises(TypeError, match="cfg must be a CoupledDirectEnvCfg"):
        ArmPressClothEnv({"num_envs": 2})


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        ("scene.cloth.cells", 5, r"ArmPressClothEnvCfg\.scene\.cloth\.cells must be even"),
        ("target_depth_range", (0.07, 0.03), "low <= high"),
        ("scene.arm.link_length", 0.1, r"ArmPressClothEnvCfg\.scene\.arm\.link_length 0\.1 m is too short"),
        ("scene.arm.init_state.pos", (0.0, 0.1, 0.3), r"scene\.arm\.init_state\.pos .* must be the cloth center"),
        ("action_scale", float("nan"), r"ArmPressClothEnvCfg\.action_scale must not be NaN"),
        (
            "scene.arm.actuators.arm.stiffness",
            -1.0,
            r"scene\.arm\.actuators\['arm'\]: IdealPDActuatorCfg\.stiffness must be >= 0",
        ),
        ("sim.dt", 0.0, r"ArmPressClothEnvCfg\.sim: SimulationCfg\.dt must be > 0"),
    ],
)
def test_bad_task_configs_are_refused_before_a_simulation_starts(path, value, match):
    cfg = config(1)
    set_field(cfg, path, value)
    with pytest.raises(ValueError, match=match):
        ArmPressClothEnv(cfg)
    assert SimulationContext.instance() is None
