"""The deformable lift terms (``mdp.deformable*``) on a real coupled scene: the two-link arm over a 5 x 5-node cloth,
2 envs, the cloth unpinned so that it falls freely. Every term is held in the env's managers (built and
trial-called there) and checked against values computed here by hand from the simulation's arrays: rotations
from the quaternion's matrix, distances, heights, the uniform draws replayed from torch's generator, and the
free fall ``1/2 g t^2``."""

import math

import pytest
import torch

from isaaclab_contrib.envs import ManagerBasedRLEnv, mdp
from isaaclab_contrib.managers import (
    CurriculumTermCfg,
    EventTermCfg,
    ObservationGroupCfg,
    ObservationTermCfg,
    RewardTermCfg,
    SceneEntityCfg,
    TerminationTermCfg,
)
from isaaclab_contrib.scenes import AssetBaseCfg
from isaaclab_contrib.utils.configclass import configclass
from isaaclab_coupling_configs.arm_press_cloth_manager_task import ArmPressClothManagerEnvCfg
from isaaclab_coupling_configs.arm_press_cloth_task import ArmPressClothSceneCfg

N = 2
CLOTH = SceneEntityCfg("cloth")
ARM = SceneEntityCfg("arm")
TIP = SceneEntityCfg("arm", body_names="forearm")
WIDE = ((-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0))
SHOULDER_Z = 0.46
"""Height of the shoulder joint [m]: the arm's base 0.3 m up plus its shoulder height 0.16 m."""
LINK = 0.2
"""Length of the upper arm [m]: the forearm's frame is at the elbow, this far from the shoulder."""


def _scene() -> ArmPressClothSceneCfg:
    scene = ArmPressClothSceneCfg(num_envs=N)
    scene.cloth.fix_left = scene.cloth.fix_right = False  # every node free
    return scene


@configclass
class _Obs:
    @configclass
    class Policy(ObservationGroupCfg):
        points = ObservationTermCfg(
            func=mdp.DeformableSampledPointsInRobotRootFrame,
            params={"num_points": 6, "asset_cfg": CLOTH, "robot_cfg": ARM, "seed": 3},
        )

    policy: Policy = Policy()


@configclass
class _Commands:
    object_pose = mdp.DeformableUniformPoseCommandCfg(asset_name="arm", object_cfg=SceneEntityCfg("cloth"))


GOAL_PARAMS = {"std": 0.3, "minimal_height": 0.02, "asset_cfg": CLOTH, "robot_cfg": ARM}


@configclass
class _Rewards:
    reaching = RewardTermCfg(
        func=mdp.deformable_com_ee_distance, weight=1.0, params={"std": 0.1, "asset_cfg": CLOTH, "ee_cfg": TIP}
    )
    nearest = RewardTermCfg(
        func=mdp.deformable_nearest_node_ee_distance, weight=1.0, params={"std": 0.1, "asset_cfg": CLOTH, "ee_cfg": TIP}
    )
    lifting = RewardTermCfg(
        func=mdp.deformable_lifting, weight=1.0, params={"minimal_height": 0.11, "std": 0.1, "asset_cfg": CLOTH}
    )
    goal = RewardTermCfg(func=mdp.DeformableComGoalDistance, weight=1.0, params=GOAL_PARAMS)
    success = RewardTermCfg(
        func=mdp.deformable_com_goal_reached, weight=1.0, params={"asset_cfg": CLOTH, "robot_cfg": ARM}
    )


@configclass
class _Terminations:
    time_out = TerminationTermCfg(func=mdp.time_out, time_out=True)
    out = TerminationTermCfg(
        func=mdp.deformable_outside_bounds, params={"bounds": WIDE, "asset_cfg": CLOTH, "robot_cfg": ARM}
    )
    ee_low = TerminationTermCfg(func=mdp.ee_below_minimum, params={"minimum_height": -10.0, "ee_cfg": TIP})
    too_fast = TerminationTermCfg(func=mdp.joint_vel_out_of_sim_limit, params={"asset_cfg": ARM})


@configclass
class _Events:
    reset_scene = EventTermCfg(func=mdp.reset_scene_to_default, mode="reset")
    cloth = EventTermCfg(
        func=mdp.reset_nodal_state_uniform,
        mode="reset",
        params={"position_range": {"x": (-0.05, 0.05), "y": (-0.05, 0.05)}, "asset_cfg": CLOTH},
    )


@configclass
class _Curriculum:
    gravity = CurriculumTermCfg(
        func=mdp.gravity_range_linear, params={"initial_gravity": -0.0001, "final_gravity": -9.81, "num_steps": 100}
    )


@configclass
class _Cfg(ArmPressClothManagerEnvCfg):
    scene: ArmPressClothSceneCfg = _scene()
    observations: _Obs = _Obs()
    commands: _Commands = _Commands()
    rewards: _Rewards = _Rewards()
    terminations: _Terminations = _Terminations()
    events: _Events = _Events()
    curriculum: _Curriculum = _Curriculum()


@pytest.fixture(scope="module")
def shared_env():
    env = ManagerBasedRLEnv(_Cfg())
    for cfg in (CLOTH, ARM, TIP):
        cfg.resolve(env.scene)
    env.reset()
    yield env
    env.close()


# ---------------------------------------------------------------------------------------------- by hand
def _matrix(q: torch.Tensor) -> torch.Tensor:
    """Rotation matrices ``[n, 3, 3]`` of unit quaternions ``(x, y, z, w)`` ``[n, 4]``."""
    x, y, z, w = q.unbind(-1)
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    return torch.stack([torch.stack(r, dim=-1) for r in rows], dim=-2)


def _in_root(env, points: torch.Tensor) -> torch.Tensor:
    """World points ``[n, P, 3]`` in the arm's root frame: ``R^T (p - t)``, as row vectors ``(p - t) R``."""
    data = env.scene["arm"].data
    t, rot = data.root_pos_w.torch, _matrix(data.root_quat_w.torch)
    return torch.einsum("npi,nij->npj", points - t[:, None], rot)


def _from_root(env, points_b: torch.Tensor) -> torch.Tensor:
    data = env.scene["arm"].data
    return data.root_pos_w.torch + torch.einsum("nij,nj->ni", _matrix(data.root_quat_w.torch), points_b)


def _nodes(env) -> torch.Tensor:
    return env.scene["cloth"].data.nodal_pos_w.torch.clone()


def _tip(env) -> torch.Tensor:
    return env.scene["arm"].data.body_pos_w.torch[:, 1].clone()  # the forearm's frame, at the elbow


# ---------------------------------------------------------------------------------------------- tests
def test_sampled_points_are_the_picked_nodes_in_the_arm_root_frame(shared_env):
    env = shared_env
    obs = env.observation_manager.compute_group("policy")
    assert obs.shape == (N, 18)
    params = {"num_points": 6, "asset_cfg": CLOTH, "robot_cfg": ARM, "seed": 3}
    term = mdp.DeformableSampledPointsInRobotRootFrame(ObservationTermCfg(func=None, params=params), env)
    ids = term.node_ids.tolist()
    assert len(set(ids)) == 6 and ids == sorted(ids) and 0 <= ids[0] and ids[-1] < 25
    expected = _in_root(env, _nodes(env)[:, ids]).reshape(N, -1)
    assert torch.allclose(obs, expected, atol=1e-6)  # the manager's term picked the same nodes: same seed
    other = mdp.DeformableSampledPointsInRobotRootFrame(
        ObservationTermCfg(func=None, params={**params, "seed": 4}), env
    )
    assert other.node_ids.tolist() != ids
    every = mdp.DeformableSampledPointsInRobotRootFrame(
        ObservationTermCfg(func=None, params={**params, "num_points": 100}), env
    )
    assert every.node_ids.tolist() == list(range(25))
    assert torch.allclose(every(env, **params), _in_root(env, _nodes(env)).reshape(N, -1), atol=1e-6)
    with pytest.raises(ValueError, match=r"DeformableSampledPointsInRobotRootFrame: num_points .* got 0"):
        mdp.DeformableSampledPointsInRobotRootFrame(
            ObservationTermCfg(func=None, params={**params, "num_points": 0}), env
        )
    # A body asset's points are its bodies: the root is at its own origin, the forearm one link along its y axis.
    links = mdp.cable_segment_pos_in_robot_root_frame(env, asset_cfg=ARM, robot_cfg=ARM).view(N, 2, 3)
    assert torch.allclose(links, torch.tensor([[0.0, 0.0, 0.0], [0.0, LINK, 0.0]]).expand(N, 2, 3), atol=1e-6)


def test_rewards_equal_the_hand_computed_distances_and_heights(shared_env):
    env = shared_env
    nodes, tip = _nodes(env), _tip(env)
    com = nodes.mean(dim=1)
    height = com[:, 2] - env.scene.env_origins[:, 2]
    reach = 1.0 - torch.tanh((com - tip).norm(dim=-1) / 0.1)
    assert torch.allclose(mdp.deformable_com_ee_distance(env, 0.1, asset_cfg=CLOTH, ee_cfg=TIP), reach, atol=1e-6)
    nearest = 1.0 - torch.tanh((nodes - tip[:, None]).norm(dim=-1).min(dim=1).values / 0.1)
    got = mdp.deformable_nearest_node_ee_distance(env, 0.1, asset_cfg=CLOTH, ee_cfg=TIP)
    assert torch.allclose(got, nearest, atol=1e-6) and (got > reach).all()  # a node is nearer than the center
    lifted = torch.tanh((height - 0.25) / 0.1)
    assert (height > 0.25).all()
    assert torch.allclose(mdp.deformable_lifting(env, 0.25, 0.1, asset_cfg=CLOTH), lifted, atol=1e-6)
    assert torch.equal(mdp.deformable_lifting(env, 0.5, 0.1, asset_cfg=CLOTH), torch.zeros(N))
    # the cable names on a body asset: the upper arm's frame is one link from the forearm's
    upper = SceneEntityCfg("arm", body_names="upper_arm")  # not resolved: the term resolves it
    expected = torch.full((N,), 1.0 - math.tanh(LINK / 0.1))
    assert torch.allclose(mdp.cable_ee_distance(env, 0.1, asset_cfg=upper, ee_cfg=TIP), expected, atol=1e-5)
    upper_height = env.scene["arm"].data.body_pos_w.torch[:, 0, 2]
    assert torch.allclose(mdp.cable_lifting(env, 0.4, 0.05, asset_cfg=upper), torch.tanh((upper_height - 0.4) / 0.05))
    with pytest.raises(KeyError, match=r"deformable_com_ee_distance"):  # the default end effector is the Panda's
        mdp.deformable_com_ee_distance(env, 0.1, asset_cfg=CLOTH)
    with pytest.raises(ValueError, match=r"deformable_com_ee_distance.*panda_hand_tcp"):
        mdp.deformable_com_ee_distance(
            env, 0.1, asset_cfg=CLOTH, ee_cfg=SceneEntityCfg("arm", body_names="panda_hand_tcp")
        )
    with pytest.raises(ValueError, match=r"cable_ee_distance: ee_cfg must select one body.* got 2"):
        mdp.cable_ee_distance(env, 0.1, asset_cfg=CLOTH, ee_cfg=ARM)
    with pytest.raises(ValueError, match=r"deformable_lifting: std must be a positive .* got -0.1"):
        mdp.deformable_lifting(env, 0.1, -0.1, asset_cfg=CLOTH)
    env.scene.extras["marker"] = AssetBaseCfg(prim_path="/World/Marker")  # an asset kept as its config only
    try:
        with pytest.raises(TypeError, match=r"deformable_lifting: scene entity 'marker' .* has no points"):
            mdp.deformable_lifting(env, 0.1, 0.1, asset_cfg=SceneEntityCfg("marker"))
    finally:
        del env.scene.extras["marker"]


def test_goal_tracking_command_metrics_and_success_rate(shared_env):
    env = shared_env
    env.reset()
    command = env.command_manager.get_term("object_pose")
    target = env.command_manager.get_command("object_pose")
    assert command.cfg.resampling_time_range == (5.0, 5.0)
    for axis, (low, high) in enumerate(((0.4, 0.6), (-0.25, 0.25), (0.25, 0.5))):
        assert ((target[:, axis] >= low) & (target[:, axis] <= high)).all()
    assert torch.equal(target[:, 3:], torch.tensor([[0.0, 0.0, 0.0, 1.0]] * N))
    com = _nodes(env).mean(dim=1)
    com_b = _in_root(env, com[:, None])[:, 0]
    command.pose_command_b[:, :3] = com_b + torch.tensor([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0]])  # env 1: 20 cm off
    assert torch.allclose(_from_root(env, command.pose_command_b[:, :3])[0], com[0], atol=1e-5)
    command.compute(dt=0.0)
    assert torch.allclose(command.metrics["position_error"], torch.tensor([0.0, 0.2]), atol=1e-5)
    assert torch.equal(command.metrics["success"], torch.tensor([1.0, 0.0]))
    goal = env.reward_manager.get_term_cfg("goal").func
    value = goal(env, **GOAL_PARAMS)
    assert torch.allclose(value, torch.tensor([1.0, 1.0 - math.tanh(0.2 / 0.3)]), atol=1e-4)
    assert torch.equal(goal.reached, torch.tensor([True, False]))
    assert torch.equal(goal(env, **{**GOAL_PARAMS, "minimal_height": 1.0}), torch.zeros(N))  # not lifted: 0
    goal(env, **GOAL_PARAMS)
    for success in (mdp.deformable_com_goal_reached, mdp.cable_goal_reached):
        assert torch.equal(success(env, asset_cfg=CLOTH, robot_cfg=ARM), torch.tensor([1.0, 0.0]))
    assert torch.equal(mdp.deformable_com_goal_reached(env, 0.3, asset_cfg=CLOTH, robot_cfg=ARM), torch.ones(N))
    _, extras = env.reset()
    log = extras["log"]
    assert float(log["Metrics/goal/success_rate"]) == 0.5  # the episodes that ended: one of two at the goal
    assert log["Metrics/object_pose/success"] == 0.5
    assert math.isclose(log["Metrics/object_pose/position_error"], 0.1, abs_tol=1e-5)
    assert not goal.reached.any()
    assert issubclass(mdp.CableGoalDistance, mdp.DeformableComGoalDistance)


def test_terminations_flip_when_the_state_is_written_past_the_bound(shared_env):
    env = shared_env
    env.reset()
    nodes = _nodes(env)
    com_b = _in_root(env, nodes.mean(dim=1)[:, None])[:, 0]
    bounds = tuple((float(com_b[:, a].min()) - 0.01, float(com_b[:, a].max()) + 0.01) for a in range(3))
    out = mdp.deformable_outside_bounds
    assert not out(env, bounds, asset_cfg=CLOTH, robot_cfg=ARM).any()
    moved = nodes[1:] + torch.tensor([0.3, 0.0, 0.0])  # world x is the root frame's x (the arm turns about x)
    env.scene["cloth"].write_nodal_pos_to_sim(moved, env_ids=[1])
    assert torch.equal(out(env, bounds, asset_cfg=CLOTH, robot_cfg=ARM), torch.tensor([False, True]))
    assert not out(env, WIDE, asset_cfg=CLOTH, robot_cfg=ARM).any()
    forearm = SceneEntityCfg("arm", body_names="forearm")
    around = ((-0.01, 0.01), (LINK - 0.01, LINK + 0.01), (-0.01, 0.01))
    assert not mdp.cable_out_of_bounds(env, around, asset_cfg=forearm, robot_cfg=ARM).any()
    beyond = ((-0.01, 0.01), (LINK + 0.01, 1.0), (-0.01, 0.01))
    assert mdp.cable_out_of_bounds(env, beyond, asset_cfg=forearm, robot_cfg=ARM).all()
    for bad in (((0.0, 1.0), (-0.5, 0.5)), ((1.0, 0.0), (-0.5, 0.5), (0.0, 1.0)), ((0.0, 1.0), (0.0, 1.0), 0.5)):
        with pytest.raises(ValueError, match=r"deformable_outside_bounds: bounds must be three"):
            out(env, bad, asset_cfg=CLOTH, robot_cfg=ARM)

    arm = env.scene["arm"]
    shoulder = arm.data.joint_pos.torch[:, 0].clone()
    elbow_z = SHOULDER_Z + LINK * torch.sin(shoulder)  # the upper arm turns about x from the horizontal y axis
    assert torch.allclose(_tip(env)[:, 2], elbow_z, atol=1e-5)
    assert not mdp.ee_below_minimum(env, 0.4, ee_cfg=TIP).any()
    q = arm.data.joint_pos.torch.clone()
    q[1, 0] = -1.0  # env 1: the upper arm down, the elbow below 0.4 m
    arm.write_joint_state_to_sim(q[1:], torch.zeros(1, 2), env_ids=[1])
    env.manager.forward()
    assert math.isclose(float(_tip(env)[1, 2]), SHOULDER_Z - LINK * math.sin(1.0), abs_tol=1e-5)
    assert torch.equal(mdp.ee_below_minimum(env, 0.4, ee_cfg=TIP), torch.tensor([False, True]))

    limits = torch.as_tensor(env.manager.get_model().joint_velocity_limit.numpy()).view(N, 2)
    assert not mdp.joint_vel_out_of_sim_limit(env, asset_cfg=ARM).any()
    arm.write_joint_state_to_sim(q[:1], (1.5 * limits[:1, :1]).expand(1, 2) * torch.tensor([[1.0, 0.0]]), env_ids=[0])
    assert torch.equal(mdp.joint_vel_out_of_sim_limit(env, asset_cfg=ARM), torch.tensor([True, False]))
    arm.write_joint_state_to_sim(q[:1], -0.5 * limits[:1], env_ids=[0])
    assert not mdp.joint_vel_out_of_sim_limit(env, asset_cfg=ARM).any()
    env.reset()


def test_reset_nodal_state_uniform_moves_the_cloth_by_the_drawn_offset(shared_env):
    env = shared_env
    cloth = env.scene["cloth"]
    default = cloth.data.default_nodal_state_w.torch.clone()
    ids = torch.tensor([0, 1])
    rng = torch.get_rng_state()
    position_range, velocity_range = {"x": (-0.15, 0.1), "y": (-0.2, 0.2)}, {"z": (0.5, 1.0)}
    mdp.reset_nodal_state_uniform(env, ids, position_range, velocity_range, asset_cfg=CLOTH)
    torch.set_rng_state(rng)
    u, v = torch.rand(N, 3), torch.rand(N, 3)  # replayed: the offsets first, then the velocities
    offset = torch.stack([-0.15 + 0.25 * u[:, 0], -0.2 + 0.4 * u[:, 1], torch.zeros(N)], dim=-1)
    velocity = torch.stack([torch.zeros(N), torch.zeros(N), 0.5 + 0.5 * v[:, 2]], dim=-1)
    com_moved = cloth.data.nodal_pos_w.torch.mean(dim=1) - default[..., :3].mean(dim=1)
    assert torch.allclose(com_moved, offset, atol=1e-6)
    assert torch.allclose(cloth.data.nodal_pos_w.torch, default[..., :3] + offset[:, None], atol=1e-6)
    assert torch.allclose(cloth.data.nodal_vel_w.torch, default[..., 3:] + velocity[:, None], atol=1e-6)
    before = _nodes(env)
    mdp.reset_nodal_state_uniform(env, torch.tensor([1]), {"z": (0.1, 0.1)}, asset_cfg=CLOTH)
    after = _nodes(env)
    assert torch.equal(after[0], before[0])  # another env is left as it was
    assert torch.allclose(after[1], default[1, :, :3] + torch.tensor([0.0, 0.0, 0.1]), atol=1e-6)
    assert torch.equal(cloth.data.nodal_vel_w.torch[1], default[1, :, 3:])  # no velocity range: the start velocity
    with pytest.raises(KeyError, match=r"reset_nodal_state_uniform: position_range: unknown key\(s\) \['roll'\]"):
        mdp.reset_nodal_state_uniform(env, ids, {"roll": (0.0, 1.0)}, asset_cfg=CLOTH)
    with pytest.raises(ValueError, match=r"reset_nodal_state_uniform: velocity_range\['x'\] must be \(low, high\)"):
        mdp.reset_nodal_state_uniform(env, ids, {}, {"x": (1.0, 0.0)}, asset_cfg=CLOTH)
    with pytest.raises(TypeError, match=r"reset_nodal_state_uniform: scene entity 'arm'.*reset_root_state_uniform"):
        mdp.reset_nodal_state_uniform(env, ids, {}, asset_cfg=ARM)
    env.reset()


def _fall_after(env, steps: int) -> torch.Tensor:
    """Drop of the cloth's center over *steps* env steps from the reset state (at rest) [m], per env."""
    z0 = _nodes(env)[..., 2].mean(dim=1)
    for _ in range(steps):
        env.step(torch.zeros(N, 2))
    return z0 - _nodes(env)[..., 2].mean(dim=1)


def test_gravity_curriculum_sets_the_fall_of_the_free_cloth(shared_env):
    env = shared_env
    model = env.manager.get_model()
    steps = 6
    t = steps * env.step_dt
    physics_steps = steps * env.cfg.decimation
    try:
        for counter, g in ((0, -0.0001), (50, -0.0001 + 0.5 * (-9.81 + 0.0001)), (1000, -9.81)):
            env.common_step_counter = counter
            _, extras = env.reset()  # the curriculum runs at the reset
            assert math.isclose(extras["log"]["Curriculum/gravity"], g, rel_tol=1e-5)
            assert torch.allclose(torch.as_tensor(model.gravity.numpy())[:, 2], torch.tensor(g), rtol=1e-5)
            fall = _fall_after(env, steps)
            expected = 0.5 * abs(g) * t * t
            # a first-order integrator overshoots 1/2 g t^2 by a fraction 1/(physics steps) = 4 %
            assert torch.allclose(fall, torch.tensor(expected), rtol=1.5 / physics_steps, atol=1e-6), (counter, fall)
        env.common_step_counter = 5
        value = mdp.gravity_range_linear(env, None, (0.0, 0.0, -1.0), (1.0, 0.0, -9.0), num_steps=10)
        assert value == pytest.approx({"x": 0.5, "y": 0.0, "z": -5.0})
        assert torch.allclose(torch.as_tensor(model.gravity.numpy()), torch.tensor([0.5, 0.0, -5.0]).expand(N + 1, 3))
        with pytest.raises(ValueError, match=r"gravity_range_linear: num_steps must be an integer >= 1.* got 0"):
            mdp.gravity_range_linear(env, None, -1.0, -9.81, num_steps=0)
        with pytest.raises(ValueError, match=r"gravity_range_linear: initial_gravity .* both be numbers"):
            mdp.gravity_range_linear(env, None, -1.0, (0.0, 0.0, -9.81), num_steps=10)
    finally:
        mdp.gravity_range_linear(env, None, (0.0, 0.0, -9.81), (0.0, 0.0, -9.81), num_steps=1)
        env.common_step_counter = 0


def test_the_command_config_validates_its_fields():
    cfg = mdp.DeformableUniformPoseCommandCfg()
    cfg.validate()
    assert (cfg.ranges.pos_x, cfg.ranges.pos_y, cfg.ranges.pos_z) == ((0.4, 0.6), (-0.25, 0.25), (0.25, 0.5))
    with pytest.raises(ValueError, match=r"DeformableUniformPoseCommandCfg.success_threshold"):
        mdp.DeformableUniformPoseCommandCfg(success_threshold=0.0).validate()
    with pytest.raises(TypeError, match=r"DeformableUniformPoseCommandCfg.object_cfg"):
        mdp.DeformableUniformPoseCommandCfg(object_cfg="cloth").validate()
