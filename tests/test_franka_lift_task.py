"""The env contract on the Franka lift tasks: the Panda (MuJoCo-Warp) grasps a soft block / cloth (VBD)."""

import gymnasium as gym
import numpy as np
import pytest
import torch
from task_contract import rollout, rollouts_with_an_aged_env, set_field, task_config

from isaaclab_contrib.physics import SimulationContext
from isaaclab_coupling_configs._franka import TcpIkTable, panda_cfg
from isaaclab_coupling_configs.franka_lift_task import (
    CLOTH_TASK_ID,
    COARSE_TASK_ID,
    OPEN,
    SOFT_TASK_ID,
    FrankaLiftEnv,
    FrankaLiftSoftCoarseEnvCfg,
    FrankaLiftVerticalEnv,
    oracle_policy,
)

N = 3


def config(num_envs: int = N, device: str = "cpu", use_graph: bool = True, **kw) -> FrankaLiftSoftCoarseEnvCfg:
    return task_config(FrankaLiftSoftCoarseEnvCfg, num_envs, device, use_graph, **kw)


def make(device: str, use_graph: bool = True, **kw) -> FrankaLiftEnv:
    return FrankaLiftEnv(config(N, device, use_graph, seed=3, **kw))


@pytest.fixture(scope="module")
def _env_holder(device):
    holder = {}
    yield holder
    if "env" in holder:
        holder["env"].close()


@pytest.fixture
def shared_env(_env_holder, device) -> FrankaLiftEnv:
    """``make(device)`` built once for the tests that only need a reset env of the default config (each test
    resets it first); built again if a test in between closed it."""
    env = _env_holder.get("env")
    if env is None or env.manager.step_mode() == "not started":
        env = _env_holder["env"] = make(device)
    return env


def test_the_ik_table_puts_the_tool_center_point_where_asked():
    table = TcpIkTable(panda_cfg(), (0.4, -0.1, 0.02), (0.6, 0.1, 0.3), (4, 4, 5))
    # Forward kinematics of the interpolated configurations, at random points inside the box.
    assert table.max_error(samples=40) < 0.005
    inside = torch.tensor([[0.5, 0.0, 0.1]])
    outside = torch.tensor([[0.9, 0.0, 0.1]])  # clamped onto the box's face x = 0.6
    q_in, q_out = table.joint_targets(inside).numpy(), table.joint_targets(outside).numpy()
    np.testing.assert_allclose(table.ik.tcp_position(q_in)[0], [0.5, 0.0, 0.1], atol=0.005)
    np.testing.assert_allclose(table.ik.tcp_position(q_out)[0], [0.6, 0.0, 0.1], atol=0.005)
    with pytest.raises(ValueError, match="resolution must be at least 2"):
        TcpIkTable(panda_cfg(), (0.4, -0.1, 0.02), (0.6, 0.1, 0.3), (1, 4, 5))
    with pytest.raises(ValueError, match="must exceed low"):
        TcpIkTable(panda_cfg(), (0.4, 0.1, 0.02), (0.6, -0.1, 0.3))


def test_shapes_spaces_and_the_start_pose(device):
    env = make(device, episode_length_s=0.2)  # 6 env steps
    try:
        obs, extras = env.reset()
        assert obs.shape == (N, 16) and obs.dtype == torch.float32 and extras == {}
        assert env.single_action_space.shape == (4,) and env.observation_space.shape == (N, 16)
        m = env.measurements()
        # Env frames: the robot bases sit at the env origins; the TCP starts at the start pose, 10 cm over the
        # block's center (the coarse task's HOVER_POSE).
        torch.testing.assert_close(m["tcp"], env.start_tcp.repeat(N, 1), atol=2e-3, rtol=0)
        hover = env.grasp + torch.tensor([0.0, 0.0, 0.10])
        torch.testing.assert_close(env.start_tcp, hover, atol=2e-3, rtol=0)
        torch.testing.assert_close(m["opening"], torch.full((N,), OPEN), atol=1e-5, rtol=0)
        assert torch.equal(env.joint_target[:, env.finger_cols], torch.full((N, 2), OPEN))
        for _ in range(6):
            obs, reward, terminated, truncated, extras = env.step(torch.zeros(N, 4))
            assert reward.shape == (N,) and bool(torch.isfinite(reward).all())
            # The block starts at rest on the ground: it neither hops nor sinks (no lift reward for nothing).
            assert float(env.measurements()["rise"].abs().max()) < 1e-3
        assert truncated.all() and not terminated.any()
        assert extras["episode"]["length"].tolist() == [6] * N
        with pytest.raises(ValueError, match="actions must have shape"):
            env.step(torch.zeros(N, 3))
    finally:
        env.close()


def test_actions_move_the_tool_and_close_the_gripper(shared_env):
    env = shared_env
    env.reset()
    # Env 0 goes 10 cm up and closes, env 1 stays and stays open, env 2 moves 10 cm along +y.
    actions = torch.tensor([[0.0, 0.0, 0.5, 1.0], [0.0, 0.0, 0.0, -1.0], [0.0, 0.5, 0.0, -1.0]])
    for _ in range(20):
        env.step(actions)
    m = env.measurements()
    step = env.cfg.action_scale
    expected = env.start_tcp.repeat(N, 1) + 20 * step * actions[:, :3]
    torch.testing.assert_close(env.tcp_command, expected, atol=1e-6, rtol=0)
    # The PD-driven arm follows its commanded TCP (within the hand's sag under gravity).
    assert torch.all((m["tcp"] - env.tcp_command).norm(dim=-1) < 0.02), m["tcp"] - env.tcp_command
    assert float(m["tcp"][0, 2]) > float(m["tcp"][1, 2]) + 0.08
    assert float(m["tcp"][2, 1]) > float(m["tcp"][1, 1]) + 0.08
    # Finger targets ramp toward closed at finger_speed: 20 steps of 1/30 s at 0.05 m/s = 3.3 cm.
    ramp = 20 * env.cfg.finger_speed * env.cfg.sim.dt * env.cfg.decimation
    expected_target = max(env.cfg.scene.grasp_opening, OPEN - ramp)
    torch.testing.assert_close(
        env.joint_target[0, env.finger_cols], torch.full((2,), expected_target), atol=1e-6, rtol=0
    )
    assert float(m["opening"][0]) < OPEN - 0.02 and float(m["opening"][1]) > OPEN - 1e-3


def test_actions_past_the_clip_act_as_the_limit_and_cost_the_limit_penalty(shared_env):
    env = shared_env
    env.reset()
    # Envs 0 and 1 act the same once clipped (up, closing); env 1's policy overshot the range by 0.5 and 2.
    actions = torch.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.5, 3.0], [0.0, 0.0, -1.0, -1.0]])
    weight = env.cfg.action_limit_penalty
    assert weight > 0.0
    for _ in range(4):
        obs, reward, *_ = env.step(actions)
        assert torch.equal(env.actions[0], env.actions[1])
        torch.testing.assert_close(env.action_excess[1], torch.tensor([0.0, 0.0, 0.5, 2.0]))
        assert float(env.action_excess[[0, 2]].abs().max()) == 0.0
        # Same physics (up to rounding in the envs' world frames), so the same reward but for the penalty on
        # the excess: 0.5^2 + 2^2.
        torch.testing.assert_close(reward[1], reward[0] - weight * 4.25, atol=1e-3, rtol=0)
        same = [i for i in range(16) if i != 11]  # all but the rise to go: each env drew its own target
        torch.testing.assert_close(obs[0, same], obs[1, same], atol=1e-4, rtol=0)
    # The observation carries the rise and the rise still to go: together the episode's target.
    torch.testing.assert_close(obs[:, 10] + obs[:, 11], env.target_height, atol=1e-6, rtol=0)
    with pytest.raises(ValueError, match="not finite"):
        env.step(torch.full((N, 4), float("inf")))
    assert torch.equal(env.action_excess[1], torch.tensor([0.0, 0.0, 0.5, 2.0]))  # the refused step wrote nothing


def test_the_oracle_lifts_the_block_to_the_target_by_friction(shared_env):
    env = shared_env
    obs, _ = env.reset()
    oracle = oracle_policy(env)
    rewards = []
    for _ in range(env.max_episode_length - 1):
        obs, reward, terminated, *_ = env.step(oracle(obs))
        rewards.append(reward)
        assert not terminated.any()
    m = env.measurements()
    # Every block rose with its target (drawn in 10..20 cm) and stays between the fingers.
    assert torch.all((m["rise"] - env.target_height).abs() < 0.04), (m["rise"], env.target_height)
    assert torch.all((m["object"] - m["tcp"]).norm(dim=-1) < 0.03)
    assert float(torch.stack(rewards[-20:]).mean()) > 10.0  # lifted (5) + most of the goal term (10)


@pytest.mark.slow  # a whole oracle episode
def test_the_vertical_variant_keeps_the_tool_over_the_grasp_point_and_lifts(device):
    env = FrankaLiftVerticalEnv(config(2, device, seed=4))
    try:
        obs, _ = env.reset()
        assert obs.shape == (2, 14) and env.action_space.shape == (2, 2)
        over = env.grasp[:2].repeat(2, 1)
        torch.testing.assert_close(env.tcp_command[:, :2], over)
        oracle = oracle_policy(env)
        for _ in range(env.max_episode_length - 1):
            obs, *_ = env.step(oracle(obs))
            assert torch.equal(env.tcp_command[:, :2], over)  # only the height moves
        m = env.measurements()
        assert torch.all((m["rise"] - env.target_height).abs() < 0.04), (m["rise"], env.target_height)
    finally:
        env.close()


def coupler_run(device, penalty: float, steps: int):
    """The vertical variant with the coupler terms and a converged VBD solve (20 iterations), 2 envs under the
    oracle: per env step the rewards and the measurements (finger forces [N], penetration [m], rise [m]), and
    each block's weight m g [N]."""
    import warp as wp

    cfg = config(2, device, seed=4, coupler_observations=True, penetration_penalty=penalty, episode_length_s=6.0)
    cfg.scene.vbd_iterations = 20
    env = FrankaLiftVerticalEnv(cfg)
    try:
        obs, _ = env.reset()
        assert obs.shape == (2, 18) and env.observation_space.shape == (2, 18)
        oracle = oracle_policy(env)
        rewards, forces, depths, rises = [], [], [], []
        for _ in range(steps):
            obs, reward, *_ = env.step(oracle(obs))
            m = env.measurements()
            force = m["finger_force"]
            vertical = force[:, :, 2].sum(-1, keepdim=True)
            assert torch.equal(
                obs[:, -4:], torch.cat([force.norm(dim=-1), vertical, 100 * m["penetration"][:, None]], -1)
            )
            rewards.append(reward.clone())
            forces.append(force.clone())
            depths.append(m["penetration"].clone())
            rises.append(m["rise"].clone())
        weight = wp.to_torch(env.manager.get_model().particle_mass)[env.lifted_ids].sum(dim=1) * 9.81
        return torch.stack(rewards), torch.stack(forces), torch.stack(depths), torch.stack(rises), weight
    finally:
        env.close()


@pytest.mark.slow  # 185 env steps at 20 VBD iterations: the weight reads true once the solve has converged
def test_the_coupler_terms_read_the_grip_and_the_penalty_costs_the_penetration(device):
    rewards, forces, depths, rises, weight = coupler_run(device, penalty=0.0, steps=110)
    penalized, forces_p, depths_p, _, _ = coupler_run(device, penalty=50.0, steps=75)
    # The sensors and the penalty leave the physics alone: the same readings in both runs.
    assert torch.equal(forces[:75], forces_p) and torch.equal(depths[:75], depths_p)
    # The hand starts 10 cm over the block and reaches it after about 8 steps: no force, no penetration before.
    assert torch.all(forces[:5] == 0.0) and torch.all(depths[:5] == 0.0)
    # Held (the oracle lifted both blocks by step 45): the pads squeeze from both sides, equal and opposite
    # along y, and once the grip has settled (steps 60 to 110) the fingers carry the block's weight, m g (the
    # reaction on them points down).
    held = slice(60, None)
    assert torch.all(rises[held] > 0.05), rises[held]
    assert torch.all(forces[held, :, :, 1].abs() > 1.0), forces[held, :, :, 1]
    squeeze = forces[held, :, :, 1].mean(dim=0)  # (envs, fingers)
    assert torch.all((squeeze[:, 0] + squeeze[:, 1]).abs() < 0.01 * squeeze[:, 0].abs()), squeeze
    carried = -forces[held, :, :, 2].sum(dim=-1).mean(dim=0)
    torch.testing.assert_close(carried, weight, rtol=0.05, atol=0.0)
    assert torch.all(depths[held] > 0.0) and torch.all(depths[held] < 0.005)
    # The penalty subtracts exactly its weight times the deepest penetration.
    torch.testing.assert_close(penalized, rewards[:75] - 50.0 * depths[:75], atol=1e-5, rtol=0)
    assert float((rewards[:75] - penalized)[held].min()) > 0.0


@pytest.mark.slow  # two Franka envs
def test_auto_reset_touches_exactly_the_finished_env(device):
    actions = torch.rand(14, N, 4, generator=torch.Generator().manual_seed(2)) * 2 - 1
    # Env 1 is 8 steps from its time limit: it truncates at step 8 and restarts.
    built = []

    def make_kept():
        built.append(make(device))
        return built[-1]

    early, plain = rollouts_with_an_aged_env(make_kept, actions, env_id=1, steps_left=8)
    truncated = early[:, 1, -1].bool()
    assert int(torch.nonzero(truncated)[0]) == 7 and not plain[:, :, -1].bool().any()
    others = [0, 2]
    assert torch.equal(early[:, others], plain[:, others])  # bitwise untouched
    assert not torch.equal(early[8:, 1], plain[8:, 1])
    # The finished env restarted at the start command, open, with zero previous actions.
    start = built[0].start_tcp - built[0].grasp
    torch.testing.assert_close(early[7, 1, 3:6], start, atol=1e-6, rtol=0)
    torch.testing.assert_close(early[7, 1, 12:16], torch.zeros(4))


@pytest.mark.slow  # two Franka envs
def test_eager_and_captured_rollouts_are_identical(device):
    actions = torch.rand(12, N, 4, generator=torch.Generator().manual_seed(1)) * 2 - 1
    results = []
    for graph in (True, False):
        env = make(device, graph)
        try:
            assert env.manager.is_graph_captured() == graph
            results.append(rollout(env, actions))
        finally:
            env.close()
    assert torch.equal(results[0], results[1])


@pytest.mark.slow  # one Franka env per task
@pytest.mark.parametrize(
    ("task", "env_class", "dims"),
    [
        (SOFT_TASK_ID, FrankaLiftEnv, (16, 4)),
        (COARSE_TASK_ID, FrankaLiftVerticalEnv, (14, 2)),
        (CLOTH_TASK_ID, FrankaLiftEnv, (16, 4)),
    ],
)
def test_gymnasium_make_builds_each_franka_task_from_its_id(task, env_class, dims):
    from isaaclab_contrib.envs import load_cfg_from_registry

    cfg = load_cfg_from_registry(task, "env_cfg_entry_point")
    runner = load_cfg_from_registry(task, "rsl_rl_cfg_entry_point")
    runner.validate()
    assert cfg.scene.num_envs == runner.num_envs  # GPU-sized (4096) or, for the coarse task, CPU-sized (32)
    cfg.scene.num_envs = 1
    env = gym.make(task, cfg=cfg)
    try:
        assert type(env.unwrapped) is env_class
        obs, _ = env.reset(seed=0)
        obs, reward, *_ = env.step(torch.zeros(1, dims[1]))
        assert obs.shape == (1, dims[0]) and bool(torch.isfinite(obs).all()) and bool(torch.isfinite(reward).all())
        # The scene's grasp point is where the lifted part rests (the block's center, above the cloth's pinch).
        unwrapped = env.unwrapped
        assert float((unwrapped.rest_center[:2] - unwrapped.grasp[:2]).norm()) < 0.03
    finally:
        env.close()


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        ("workspace_high", (0.3, 0.15, 0.45), r"FrankaLiftSoftCoarseEnvCfg\.workspace_high .* must exceed"),
        ("target_height_range", (0.2, 0.1), r"target_height_range must be \(low, high\)"),
        ("target_height_range", (0.1, 0.6), r"must hold the scene's grasp point .* and the highest target 0\.6 m"),
        ("workspace_low", (0.55, -0.15, 0.005), r"must hold the scene's grasp point"),
        ("action_scale", float("nan"), r"FrankaLiftSoftCoarseEnvCfg\.action_scale must not be NaN"),
        ("ik_resolution", (5, 1, 10), r"FrankaLiftSoftCoarseEnvCfg\.ik_resolution"),
        ("finger_speed", 0.0, r"FrankaLiftSoftCoarseEnvCfg\.finger_speed must be > 0"),
    ],
)
def test_bad_task_configs_are_refused_before_a_simulation_starts(path, value, match):
    cfg = config(1)
    set_field(cfg, path, value)
    with pytest.raises(ValueError, match=match):
        FrankaLiftEnv(cfg)
    assert SimulationContext.instance() is None
