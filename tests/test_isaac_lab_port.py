"""A manager-based config written as an Isaac Lab user writes one (Isaac Lab's import aliases, terms declared
without annotations, nested config classes), on a coupled scene of its own: the ant on the cloth hammock. Only its
import lines differ from an Isaac Lab config (``isaaclab.`` -> ``isaaclab_contrib.``)."""

import math

import torch

import isaaclab_contrib.envs.mdp as mdp
from isaaclab_contrib.envs import ManagerBasedRLEnv, ManagerBasedRLEnvCfg
from isaaclab_contrib.managers import CurriculumTermCfg as CurrTerm
from isaaclab_contrib.managers import EventTermCfg as EventTerm
from isaaclab_contrib.managers import ObservationGroupCfg as ObsGroup
from isaaclab_contrib.managers import ObservationTermCfg as ObsTerm
from isaaclab_contrib.managers import RewardTermCfg as RewTerm
from isaaclab_contrib.managers import SceneEntityCfg
from isaaclab_contrib.managers import TerminationTermCfg as DoneTerm
from isaaclab_contrib.utils import configclass
from isaaclab_contrib.utils.noise import AdditiveUniformNoiseCfg as Unoise
from isaaclab_coupling_configs.ant_on_hammock import AntOnHammockSceneCfg

# ------------------------------------------------------------------------ the config, as an Isaac Lab user writes it


@configclass
class ObservationsCfg:
    @configclass
    class PolicyCfg(ObsGroup):
        base_lin_vel = ObsTerm(func=mdp.root_lin_vel_w)
        base_height = ObsTerm(func=mdp.root_pos_w)
        joint_pos = ObsTerm(func=mdp.joint_pos_rel, noise=Unoise(n_min=-0.01, n_max=0.01))
        joint_vel = ObsTerm(func=mdp.joint_vel_rel, scale=0.1)
        actions = ObsTerm(func=mdp.last_action)

        def __post_init__(self):
            self.enable_corruption = True
            self.concatenate_terms = True

    policy: PolicyCfg = PolicyCfg()


@configclass
class ActionsCfg:
    joint_pos = mdp.JointPositionActionCfg(asset_name="robot", joint_names=["hip_.*", "ankle_.*"], scale=0.5)


@configclass
class EventCfg:
    reset_scene = EventTerm(func=mdp.reset_scene_to_default, mode="reset")
    reset_joints = EventTerm(
        func=mdp.reset_joints_by_offset,
        mode="reset",
        params={"position_range": (-0.1, 0.1), "velocity_range": (0.0, 0.0)},
    )
    push_robot = EventTerm(
        func=mdp.push_by_setting_velocity,
        mode="interval",
        interval_range_s=(0.1, 0.1),
        params={"velocity_range": {"x": (0.5, 0.5)}},
    )


@configclass
class RewardsCfg:
    alive = RewTerm(func=mdp.is_alive, weight=1.0)
    action_rate = RewTerm(func=mdp.action_rate_l2, weight=-0.01)
    joint_vel = RewTerm(func=mdp.joint_vel_l2, weight=-0.001, params={"asset_cfg": SceneEntityCfg("robot")})


@configclass
class TerminationsCfg:
    time_out = DoneTerm(func=mdp.time_out, time_out=True)
    fell = DoneTerm(func=mdp.root_height_below_minimum, params={"minimum_height": -1.0})


@configclass
class CurriculumCfg:
    action_rate = CurrTerm(
        func=mdp.modify_reward_weight, params={"term_name": "action_rate", "weight": -0.1, "num_steps": 4}
    )


@configclass
class AntHammockEnvCfg(ManagerBasedRLEnvCfg):
    scene: AntOnHammockSceneCfg = AntOnHammockSceneCfg(num_envs=2)
    observations: ObservationsCfg = ObservationsCfg()
    actions: ActionsCfg = ActionsCfg()
    events: EventCfg = EventCfg()
    rewards: RewardsCfg = RewardsCfg()
    terminations: TerminationsCfg = TerminationsCfg()
    curriculum: CurriculumCfg = CurriculumCfg()

    def __post_init__(self):
        self.decimation = 4
        self.episode_length_s = 0.2
        self.sim.dt = 1.0 / 240.0
        self.seed = 3


# ------------------------------------------------------------------------ the check


def test_an_isaac_lab_style_config_runs_on_a_coupled_scene():
    env = ManagerBasedRLEnv(AntHammockEnvCfg())
    try:
        assert env.max_episode_length == 12 and env.step_dt == 4.0 / 240.0
        robot = env.scene["robot"]
        assert env.observation_manager.active_terms["policy"] == [
            "base_lin_vel",
            "base_height",
            "joint_pos",
            "joint_vel",
            "actions",
        ]
        joints = robot.num_joints
        assert env.num_actions == 8 and env.single_observation_space["policy"].shape == (3 + 3 + 2 * joints + 8,)
        env.reset()
        # the reset events: the start state, then the hips offset within +-0.1 rad of their defaults (the ankles'
        # limits exclude their default of 0: they are clamped onto the limit)
        offsets = robot.data.joint_pos.torch - robot.data.default_joint_pos.torch
        hips = offsets[:, 0::2]
        assert hips.abs().max() <= 0.1 + 1e-6 and hips.abs().max() > 0.0
        velocity_before = robot.data.root_lin_vel_w.torch.clone()
        rewards = []
        for step in range(12):
            action = torch.full((2, 8), 0.2 if step % 2 else -0.2)
            _obs, reward, terminated, truncated, extras = env.step(action)
            rewards.append(reward)
            if step == 5:  # the push (every 0.1 s = 6 env steps) added 0.5 m/s along x to the root
                pushed = robot.data.root_lin_vel_w.torch
                assert (pushed[:, 0] - velocity_before[:, 0]).min() > 0.2
            velocity_before = robot.data.root_lin_vel_w.torch.clone()
        assert truncated.all() and not terminated.any()
        log = extras["log"]
        assert math.isclose(log["Curriculum/action_rate"], -0.1)  # raised after 4 env steps
        assert env.reward_manager.get_term_cfg("action_rate").weight == -0.1
        assert set(log) >= {"Episode_Reward/alive", "Episode_Reward/action_rate", "Episode_Termination/time_out"}
        # the alive term pays weight * dt per env step for a whole episode: 12 steps / 0.2 s = 1 per second
        assert math.isclose(float(log["Episode_Reward/alive"]), 12 * (4.0 / 240.0) / 0.2, rel_tol=1e-5)
        assert all(torch.isfinite(r).all() for r in rewards)
    finally:
        env.close()
