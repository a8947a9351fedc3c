"""The mdp term library on a real coupled scene (the ant on the cloth hammock, 2 envs): each term against the
simulation's own arrays read directly (the manager's joint views and state arrays), or against the event's
effect on the state."""

import math

import pytest
import torch

from isaaclab_contrib.envs import ManagerBasedRLEnv, ManagerBasedRLEnvCfg, mdp
from isaaclab_contrib.managers import (
    ObservationGroupCfg,
    ObservationTermCfg,
    RewardTermCfg,
    SceneEntityCfg,
    TerminationTermCfg,
)
from isaaclab_contrib.utils.configclass import configclass
from isaaclab_contrib.utils.math import quat_from_euler_xyz, quat_mul
from isaaclab_coupling_configs.ant_on_hammock import AntOnHammockSceneCfg

N = 2
HIPS = SceneEntityCfg("robot", joint_names=["hip_.*"])


@configclass
class _Obs:
    @configclass
    class Policy(ObservationGroupCfg):
        joint_pos = ObservationTermCfg(func=mdp.joint_pos)

    policy: Policy = Policy()


@configclass
class _Actions:
    joints = mdp.JointPositionActionCfg(asset_name="robot", joint_names=[".*"], scale=0.5)


@configclass
class _Commands:
    pose = mdp.UniformPoseCommandCfg(
        asset_name="robot",
        body_name="front_left_foot",
        resampling_time_range=(0.05, 0.05),
        ranges=mdp.UniformPoseCommandCfg.Ranges(
            pos_x=(0.2, 0.3), pos_y=(-0.1, 0.1), pos_z=(0.1, 0.2), roll=(0.0, 0.0), pitch=(0.0, 0.0), yaw=(-1.0, 1.0)
        ),
    )
    nothing = mdp.NullCommandCfg()


@configclass
class _Cfg(ManagerBasedRLEnvCfg):
    scene: AntOnHammockSceneCfg = AntOnHammockSceneCfg(num_envs=N)
    observations: _Obs = _Obs()
    actions: _Actions = _Actions()
    commands: _Commands = _Commands()
    rewards: dict = {"alive": RewardTermCfg(func=mdp.is_alive, weight=1.0)}
    terminations: dict = {"time_out": TerminationTermCfg(func=mdp.time_out, time_out=True)}
    episode_length_s: float = 10.0
    seed: int = 1


@pytest.fixture(scope="module")
def shared_env():
    env = ManagerBasedRLEnv(_Cfg())
    env.reset()
    for step in range(4):
        env.step(torch.full((N, 8), 0.3 * (-1) ** step))
    yield env
    env.close()


def _raw(env):
    """The simulation's own arrays: joint views by column name, body state of the torso and the feet."""
    m = env.manager
    cols = m.joint_view_columns("joint_q")
    joints = [cols.index(n) for n in env.scene["robot"].joint_names]
    dof_cols = m.joint_view_columns("joint_qd")
    dofs = [dof_cols.index(n) for n in env.scene["robot"].joint_names]
    state = m.get_state_0()
    model = m.get_model()
    body_q = torch.as_tensor(state.body_q.numpy()).view(N, -1, 7)
    body_qd = torch.as_tensor(state.body_qd.numpy()).view(N, -1, 6)
    q0 = torch.as_tensor(model.joint_q.numpy()).view(N, -1)
    return {
        "q": m.joint_view("joint_q")[:, joints].clone(),
        "qd": m.joint_view("joint_qd")[:, dofs].clone(),
        "q0": q0[:, joints],
        "f": m.joint_view("joint_f")[:, dofs].clone(),
        "body_q": body_q,
        "body_qd": body_qd,
        "lower": torch.as_tensor(model.joint_limit_lower.numpy()).view(N, -1)[:, dofs],
        "upper": torch.as_tensor(model.joint_limit_upper.numpy()).view(N, -1)[:, dofs],
    }


def test_joint_observations_equal_the_joint_views(shared_env):
    env = shared_env
    raw = _raw(env)
    all_joints = SceneEntityCfg("robot")
    all_joints.resolve(env.scene)
    HIPS.resolve(env.scene)
    hips = [0, 2, 4, 6]
    assert torch.equal(mdp.joint_pos(env, all_joints), raw["q"])
    assert torch.equal(mdp.joint_pos(env, HIPS), raw["q"][:, hips])
    assert torch.equal(mdp.joint_pos_rel(env, all_joints), raw["q"] - raw["q0"])
    assert torch.equal(mdp.joint_vel(env, all_joints), raw["qd"])
    assert torch.equal(mdp.joint_vel_rel(env, all_joints), raw["qd"])  # the default velocity is 0
    assert torch.equal(mdp.joint_effort(env, all_joints), raw["f"])
    mid = 0.5 * (raw["lower"] + raw["upper"])
    expected = 2.0 * (raw["q"] - mid) / (raw["upper"] - raw["lower"])
    assert torch.allclose(mdp.joint_pos_limit_normalized(env, all_joints), expected, atol=1e-6)
    assert torch.allclose(mdp.joint_vel_l2(env, all_joints), (raw["qd"] ** 2).sum(1))
    assert torch.allclose(mdp.joint_torques_l2(env, all_joints), (raw["f"] ** 2).sum(1))
    outside = (raw["lower"] - raw["q"]).clamp(min=0) + (raw["q"] - raw["upper"]).clamp(min=0)
    assert torch.equal(mdp.joint_pos_limits(env, all_joints), outside.sum(1))
    assert torch.equal(mdp.joint_pos_out_of_limit(env, all_joints), (outside > 0).any(1))
    before = raw["qd"]
    env.step(torch.zeros(N, 8))
    after = _raw(env)["qd"]
    acc = (after - before) / env.step_dt
    assert torch.allclose(env.scene["robot"].data.joint_acc.torch, acc, rtol=1e-5, atol=1e-4)
    assert torch.allclose(mdp.joint_acc_l2(env, all_joints), (acc**2).sum(1), rtol=1e-4)


def test_root_and_body_observations_equal_the_body_state(shared_env):
    env = shared_env
    raw = _raw(env)
    robot = SceneEntityCfg("robot", body_names=["torso", "front_left_foot"])
    robot.resolve(env.scene)
    torso_q, torso_qd = raw["body_q"][:, 0], raw["body_qd"][:, 0]
    origins = env.scene.env_origins
    assert torch.allclose(mdp.root_pos_w(env, robot), torso_q[:, :3] - origins)
    assert torch.equal(mdp.root_quat_w(env, asset_cfg=robot), torso_q[:, 3:])
    unique = mdp.root_quat_w(env, make_quat_unique=True, asset_cfg=robot)
    assert (unique[:, 3] >= 0).all() and torch.allclose(unique.abs(), torso_q[:, 3:].abs())
    assert torch.equal(mdp.root_lin_vel_w(env, robot), torso_qd[:, :3])
    assert torch.equal(mdp.root_ang_vel_w(env, robot), torso_qd[:, 3:])
    pose = mdp.body_pose_w(env, robot).view(N, 2, 7)
    assert torch.allclose(pose[:, 0, :3], torso_q[:, :3] - origins)
    assert torch.equal(pose[:, 1, 3:], raw["body_q"][:, 2, 3:])
    # in the root's frame: the foot's offset from the torso turned back by the torso's rotation matrix
    x, y, z, w = torso_q[:, 3:].unbind(-1)
    rot = torch.stack(
        [
            torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            torch.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            torch.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )
    feet_b = mdp.body_pos_b(env, robot).view(N, 2, 3)
    offset_w = raw["body_q"][:, 2, :3] - torso_q[:, :3]
    assert torch.allclose(feet_b[:, 1], (rot.transpose(1, 2) @ offset_w.unsqueeze(-1)).squeeze(-1), atol=1e-5)
    assert torch.allclose(feet_b[:, 0], torch.zeros(N, 3), atol=1e-6)  # the root itself
    assert torch.equal(
        mdp.root_height_below_minimum(env, minimum_height=10.0, asset_cfg=robot), torch.ones(N, dtype=torch.bool)
    )


def test_action_terms_write_the_targets_they_promise(shared_env):
    env = shared_env
    m = env.manager
    names = env.scene["robot"].joint_names

    def view(name):  # the control array's columns of the 8 joints
        columns = m.joint_view_columns(name)
        return m.joint_view(name)[:, [columns.index(n) for n in names]]

    raw = _raw(env)
    action = torch.linspace(-1.0, 1.0, 8).repeat(N, 1)
    term = env.action_manager.get_term("joints")
    term.process_actions(action)
    term.apply_actions()
    assert torch.equal(view("joint_target_q"), action * 0.5 + raw["q0"])  # default + scale * a
    relative = mdp.RelativeJointPositionAction(
        mdp.RelativeJointPositionActionCfg(asset_name="robot", joint_names=["hip_1"], scale=0.1), env
    )
    relative.process_actions(torch.full((N, 1), 0.5))
    relative.apply_actions()
    assert torch.allclose(view("joint_target_q")[:, 0], raw["q"][:, 0] + 0.05)
    effort = mdp.JointEffortAction(
        mdp.JointEffortActionCfg(asset_name="robot", joint_names=["ankle_.*"], scale=2.0), env
    )
    effort.process_actions(torch.ones(N, 4))
    effort.apply_actions()
    assert torch.equal(view("joint_act")[:, 1::2], torch.full((N, 4), 2.0))
    limits = mdp.JointPositionToLimitsAction(
        mdp.JointPositionToLimitsActionCfg(asset_name="robot", joint_names=["hip_2"]), env
    )
    limits.process_actions(torch.tensor([[-1.0], [1.0]]))
    limits.apply_actions()
    assert torch.allclose(view("joint_target_q")[:, 2], torch.stack([raw["lower"][0, 2], raw["upper"][1, 2]]))
    binary = mdp.BinaryJointPositionAction(
        mdp.BinaryJointPositionActionCfg(
            asset_name="robot",
            joint_names=["ankle_1", "ankle_2"],
            open_command_expr={"ankle_.*": 0.3},
            close_command_expr={"ankle_1": -0.2, "ankle_2": -0.4},
        ),
        env,
    )
    binary.process_actions(torch.tensor([[1.0], [-1.0]]))
    binary.apply_actions()
    got = view("joint_target_q")[:, [1, 3]]
    assert torch.equal(got, torch.tensor([[0.3, 0.3], [-0.2, -0.4]]))
    m.joint_view("joint_act").zero_()


def test_reset_events_write_the_state_they_promise(shared_env):
    env = shared_env
    robot = SceneEntityCfg("robot")
    robot.resolve(env.scene)
    ids = torch.tensor([1])
    mdp.reset_scene_to_default(env, ids)
    env.manager.forward()
    raw = _raw(env)
    assert torch.equal(raw["q"][1], raw["q0"][1]) and torch.equal(raw["qd"][1], torch.zeros(8))
    mdp.reset_joints_by_offset(env, ids, position_range=(0.05, 0.05), velocity_range=(0.2, 0.2), asset_cfg=robot)
    raw = _raw(env)
    expected = torch.maximum(torch.minimum(raw["q0"][1] + 0.05, raw["upper"][1]), raw["lower"][1])  # clamped
    assert torch.allclose(raw["q"][1], expected) and torch.allclose(raw["qd"][1], torch.full((8,), 0.2))
    assert not torch.allclose(expected, raw["q0"][1] + 0.05)  # the ankles' limits exclude their default of 0
    mdp.reset_joints_by_scale(env, ids, position_range=(1.5, 1.5), velocity_range=(1.0, 1.0), asset_cfg=robot)
    raw = _raw(env)
    expected = torch.maximum(torch.minimum(raw["q0"][1] * 1.5, raw["upper"][1]), raw["lower"][1])
    assert torch.allclose(raw["q"][1], expected) and torch.equal(raw["qd"][1], torch.zeros(8))  # 0 scaled is 0
    default_root = env.scene["robot"].data.default_root_state.torch[1].clone()
    mdp.reset_root_state_uniform(
        env, ids, pose_range={"x": (0.1, 0.1), "yaw": (0.5, 0.5)}, velocity_range={"z": (-1.0, -1.0)}, asset_cfg=robot
    )
    env.manager.forward()
    raw = _raw(env)
    torso = raw["body_q"][1, 0]
    expected_pos = default_root[:3] + env.scene.env_origins[1] + torch.tensor([0.1, 0.0, 0.0])
    yaw = quat_from_euler_xyz(torch.tensor(0.0), torch.tensor(0.0), torch.tensor(0.5))
    assert torch.allclose(torso[:3], expected_pos, atol=1e-5)
    assert torch.allclose(torso[3:], quat_mul(default_root[3:7], yaw), atol=1e-6)
    assert math.isclose(float(raw["body_qd"][1, 0, 2]), -1.0, abs_tol=1e-5)
    before = raw["body_qd"][:, 0, :3].clone()
    mdp.push_by_setting_velocity(env, torch.tensor([0, 1]), velocity_range={"y": (0.4, 0.4)}, asset_cfg=robot)
    env.manager.forward()  # as the env does after its interval events
    after = _raw(env)["body_qd"][:, 0, :3]
    assert torch.allclose(after - before, torch.tensor([[0.0, 0.4, 0.0]] * N), atol=1e-5)
    env.reset()


def test_commands_and_curriculum(shared_env):
    env = shared_env
    term = env.command_manager.get_term("pose")
    env.command_manager.reset(torch.arange(N))
    command = env.command_manager.get_command("pose")
    assert command.shape == (N, 7)
    assert ((command[:, 0] >= 0.2) & (command[:, 0] <= 0.3)).all() and (
        (command[:, 2] >= 0.1) & (command[:, 2] <= 0.2)
    ).all()
    assert torch.allclose(command[:, 3:].norm(dim=-1), torch.ones(N))
    assert torch.equal(mdp.generated_commands(env, "pose"), command)
    term.compute(0.0)
    foot = env.scene["robot"].data.body_pos_w.torch[:, 2]
    assert torch.allclose(term.metrics["position_error"], (term.pose_command_w[:, :3] - foot).norm(dim=-1))
    with pytest.raises(RuntimeError, match="NullCommand has no command"):
        env.command_manager.get_command("nothing")
    value = mdp.modify_env_param(
        env, None, "reward_manager.cfg.alive.weight", lambda env, ids, old, factor: old * factor, {"factor": 2.0}
    )
    assert value == 2.0 and env.reward_manager.get_term_cfg("alive").weight == 2.0
    with pytest.raises(AttributeError, match="no_such"):
        mdp.modify_env_param(env, None, "reward_manager.no_such.weight", lambda env, ids, old: old)
    assert torch.equal(mdp.last_action(env), env.action_manager.action)
    assert torch.equal(mdp.action_l2(env), (env.action_manager.action**2).sum(1))
    assert torch.equal(mdp.is_alive(env) + mdp.is_terminated(env), torch.ones(N))
    assert torch.equal(mdp.time_out(env), env.episode_length_buf >= env.max_episode_length)


def test_randomization_events_write_the_model_and_change_the_motion(shared_env):
    env = shared_env
    model = env.manager.get_model()
    torso = SceneEntityCfg("robot", body_names=["torso"])
    torso.resolve(env.scene)
    body = env.scene["robot"]._bodies.index[:, 0]
    mass0 = torch.as_tensor(model.body_mass.numpy())[body].clone()
    inertia0 = torch.as_tensor(model.body_inertia.numpy())[body].clone()
    mdp.randomize_rigid_body_mass(env, torch.tensor([1]), torso, (2.0, 2.0), operation="scale")
    mass = torch.as_tensor(model.body_mass.numpy())[body]
    assert torch.allclose(mass, mass0 * torch.tensor([1.0, 2.0]))
    assert torch.allclose(torch.as_tensor(model.body_inertia.numpy())[body][1], 2.0 * inertia0[1])
    assert torch.allclose(torch.as_tensor(model.body_inv_mass.numpy())[body][1], 1.0 / mass[1])
    mdp.randomize_rigid_body_mass(env, torch.tensor([1]), torso, (2.0, 2.0), operation="scale")  # no drift
    assert torch.allclose(torch.as_tensor(model.body_mass.numpy())[body], mass)
    with pytest.raises(ValueError, match="operation must be"):
        mdp.randomize_rigid_body_mass(env, None, torso, (1.0, 1.0), operation="times")

    robot = SceneEntityCfg("robot")
    robot.resolve(env.scene)
    mdp.randomize_rigid_body_material(env, None, (0.9, 0.9), (0.3, 0.3), (0.1, 0.1), asset_cfg=robot)
    shapes = torch.isin(torch.as_tensor(model.shape_body.numpy()), env.scene["robot"]._bodies.index.reshape(-1))
    assert torch.allclose(torch.as_tensor(model.shape_material_mu.numpy())[shapes], torch.tensor(0.3))
    assert torch.allclose(torch.as_tensor(model.shape_material_restitution.numpy())[shapes], torch.tensor(0.1))

    legs = SceneEntityCfg("robot", joint_names=["hip_.*"])
    legs.resolve(env.scene)
    mdp.randomize_actuator_gains(env, torch.tensor([0]), legs, (7.0, 7.0), None, operation="abs")
    adapter = env.manager.get_actuator_adapter()
    dof_rows = env.scene["robot"]._dof_rows.index
    hips = set(dof_rows[0, [0, 2, 4, 6]].tolist())
    for actuator in adapter.actuators:
        kp = actuator.drive.kp.numpy()
        for slot, dof in enumerate(actuator.indices.numpy().tolist()):
            assert kp[slot] == (7.0 if dof in hips else 4.0)  # the scene's legs: 4 N*m/rad

    env.reset()
    mdp.randomize_physics_scene_gravity(env, torch.tensor([1]), ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]), operation="abs")
    assert torch.equal(torch.as_tensor(model.gravity.numpy())[:2, 2], torch.tensor([-9.81, 0.0]))
    z0 = env.scene["robot"].data.root_pos_w.torch[:, 2].clone()
    for _ in range(6):
        env.step(torch.zeros(N, 8))
    fall = z0 - env.scene["robot"].data.root_pos_w.torch[:, 2]
    assert fall[0] > 0.01 and abs(float(fall[1])) < 1e-3  # env 1 floats without gravity
