"""The manager-based workflow on a coupled scene: Isaac-Arm-Press-Cloth-v0 against the direct task, step for step,
and the env contract (spaces, logs, named errors)."""

import gymnasium as gym
import pytest
import torch

from isaaclab_contrib.envs import ManagerBasedRLEnv, load_cfg_from_registry
from isaaclab_contrib.managers import ObservationTermCfg, RewardTermCfg, SceneEntityCfg, TerminationTermCfg
from isaaclab_contrib.utils.configclass import configclass
from isaaclab_coupling_configs.arm_press_cloth_manager_task import TASK_ID, ArmPressClothManagerEnvCfg
from isaaclab_coupling_configs.arm_press_cloth_task import ArmPressClothEnv, ArmPressClothEnvCfg

N = 3
STEPS = 40
EPISODE_S = 0.25  # 15 env steps: two whole episodes and a part, every env reset twice by time


def _actions() -> torch.Tensor:
    g = torch.Generator().manual_seed(7)
    actions = torch.rand(STEPS, N, 2, generator=g) * 2.0 - 1.0
    actions[10:14, 0] = torch.tensor([-1.0, 1.0])  # env 0 drives its fingertip down hard for a while
    return actions


def _rollout(env, actions, manager_based: bool):
    obs, _ = env.reset()
    rows = [(obs["policy"] if manager_based else obs).clone()]
    for a in actions:
        obs, reward, terminated, truncated, _extras = env.step(a.clone())
        obs = obs["policy"] if manager_based else obs
        done = terminated | truncated
        rows.append(torch.cat([obs, reward[:, None], terminated[:, None], done[:, None]], dim=-1).clone())
    return rows


def test_the_manager_based_task_equals_the_direct_task_bitwise():
    """Same seed, same actions, two episodes with resets: equal observations, rewards and dones to the bit."""
    actions = _actions()
    direct_cfg = ArmPressClothEnvCfg(episode_length_s=EPISODE_S, seed=11)
    direct_cfg.scene.num_envs = N
    env = ArmPressClothEnv(direct_cfg)
    try:
        expected = _rollout(env, actions, manager_based=False)
    finally:
        env.close()
    cfg = ArmPressClothManagerEnvCfg(episode_length_s=EPISODE_S, seed=11)
    cfg.scene.num_envs = N
    env = ManagerBasedRLEnv(cfg)
    try:
        assert env.max_episode_length == 15
        got = _rollout(env, actions, manager_based=True)
    finally:
        env.close()
    resets = sum(int(row[:, -1].sum()) for row in expected[1:])
    assert resets >= 2 * N  # both episodes ended in every env
    for step, (a, b) in enumerate(zip(expected, got, strict=True)):
        assert torch.equal(a, b), f"step {step}: max difference {(a - b).abs().max().item()}"


def test_gymnasium_make_spaces_logs_and_named_errors():
    cfg = load_cfg_from_registry(TASK_ID, "env_cfg_entry_point")
    cfg.scene.num_envs = 2
    cfg.episode_length_s = 0.05  # 3 env steps
    env = gym.make(TASK_ID, cfg=cfg).unwrapped
    try:
        assert isinstance(env, ManagerBasedRLEnv)
        assert env.single_observation_space["policy"].shape == (10,)
        assert env.single_action_space.shape == (2,) and env.num_actions == 2
        env.reset()
        for _ in range(3):
            _obs, _reward, terminated, truncated, extras = env.step(torch.zeros(2, 2))
        assert truncated.all() and not terminated.any()
        log = extras["log"]
        for term in ("depth_tracking", "action_rate", "fingertip_drift"):
            assert f"Episode_Reward/{term}" in log
        assert log["Episode_Termination/time_out"] == 1.0  # the share of the reset envs that ended by time
        assert "Metrics/depth/depth_error" in log
        with torch.inference_mode():  # rsl-rl collects rollouts so: the env's buffers must stay writable after it
            for _ in range(4):
                env.step(torch.zeros(2, 2))
        env.reset()
        env.step(torch.zeros(2, 2))
        with pytest.raises(ValueError, match=r"NaN or infinite entries in env\(s\) \[0, 1\]"):
            env.step(torch.full((2, 2), float("nan")))
    finally:
        env.close()


@pytest.mark.parametrize(
    ("change", "error", "match", "before_launch"),
    [
        (lambda c: setattr(c.rewards.action_rate, "weight", float("nan")), ValueError, "action_rate", True),
        (
            lambda c: setattr(c.rewards, "fingertip_drift", RewardTermCfg(func=lambda env, scale: env, weight=1.0)),
            TypeError,
            "scale",
            True,
        ),
        (
            lambda c: setattr(
                c.observations.policy, "joint_pos", ObservationTermCfg(func=lambda env: torch.zeros(7, 2))
            ),
            ValueError,
            "joint_pos",
            False,
        ),
        (
            lambda c: c.observations.policy.joint_vel.params.update(asset_cfg=SceneEntityCfg("robot")),
            KeyError,
            "robot",
            False,
        ),
        (
            lambda c: c.observations.policy.joint_vel.params.update(
                asset_cfg=SceneEntityCfg("arm", joint_names=["wrist"])
            ),
            ValueError,
            "wrist",
            False,
        ),
    ],
    ids=["nan-weight", "missing-parameter", "wrong-shape", "unknown-asset", "regex-matches-nothing"],
)
def test_hostile_configs_are_refused_by_name_and_leave_no_simulation(change, error, match, before_launch, monkeypatch):
    """Errors name the term; those a config shows by itself come before the simulation is built, the others
    (they need the scene) before the first step, and the failed env leaves nothing behind."""
    import isaaclab_contrib.envs.manager_based_env as module

    launches = []
    launch = module.launch
    monkeypatch.setattr(module, "launch", lambda *a, **k: launches.append(1) or launch(*a, **k))
    cfg = ArmPressClothManagerEnvCfg()
    cfg.scene.num_envs = 1
    change(cfg)
    with pytest.raises(error, match=match):
        ManagerBasedRLEnv(cfg)
    assert launches == ([] if before_launch else [1])
    env = ManagerBasedRLEnv(ArmPressClothManagerEnvCfg(scene=cfg.scene))  # the failed one left nothing behind
    env.close()


def test_coupler_terms_read_what_the_direct_task_measures():
    """The coupler's interface force and penetration as observation terms equal the direct coupler-observation
    task's measurements, step for step (both read the coupler's sensors, through different paths)."""
    from isaaclab_contrib.envs import mdp
    from isaaclab_coupling_configs.arm_press_cloth_task import ArmPressClothCouplerObsEnvCfg

    actions = _actions()[:12]
    direct_cfg = ArmPressClothCouplerObsEnvCfg(seed=5)
    direct_cfg.scene.num_envs = N
    env = ArmPressClothEnv(direct_cfg)
    try:
        env.reset()
        expected = []
        for a in actions:
            env.step(a.clone())
            m = env.measurements()
            expected.append(torch.cat([m["cloth_force"], m["penetration"][:, None]], dim=-1).clone())
    finally:
        env.close()
    cfg = ArmPressClothManagerEnvCfg(seed=5)
    cfg.scene.num_envs = N
    tip = r"/World/envs/env_.*/Arm/forearm"
    policy = cfg.observations.policy
    policy.cloth_force = ObservationTermCfg(
        func=mdp.coupling_interface_force, params={"entry": "arm", "partner": "cloth", "bodies": tip}
    )
    policy.penetration = ObservationTermCfg(
        func=mdp.coupling_penetration_depth, params={"entry": "cloth", "partner": "arm", "bodies": tip}
    )
    policy.residual = ObservationTermCfg(func=mdp.coupling_residual)
    cfg.rewards.force_l2 = RewardTermCfg(
        func=mdp.coupling_interface_force_l2, weight=1.0, params={"entry": "arm", "partner": "cloth", "bodies": tip}
    )
    cfg.rewards.penetration = RewardTermCfg(
        func=mdp.coupling_penetration_l1, weight=1.0, params={"entry": "cloth", "partner": "arm", "bodies": tip}
    )
    cfg.terminations.diverged = TerminationTermCfg(func=mdp.coupling_not_converged, params={"threshold": 1.0e9})
    env = ManagerBasedRLEnv(cfg)
    try:
        assert env.manager.step_mode() == "captured"
        env.reset()
        for step, a in enumerate(actions):
            obs, *_ = env.step(a.clone())
            got = obs["policy"][:, 10:14]
            assert torch.equal(got, expected[step]), step
            residual = obs["policy"][:, 14]
            assert torch.isfinite(residual).all() and (residual >= 0).all()
            names = env.reward_manager.active_terms
            step_reward = env.reward_manager._step_reward  # value * weight per term (Isaac Lab's, per second)
            force = expected[step][:, :3]
            assert torch.allclose(step_reward[:, names.index("force_l2")], (force**2).sum(-1))
            assert torch.allclose(step_reward[:, names.index("penetration")], expected[step][:, 3])
            assert not env.termination_manager.get_term("diverged").any()  # a residual never reaches 1e9
        assert expected[-1][:, 2].abs().max() > 0.1  # the cloth pushes the fingertip up [N]: a real signal
    finally:
        env.close()


def test_a_camera_is_an_observation_term():
    """``mdp.image`` reads the env's camera (scene sensor ``camera_0``): the rendered depth, and its distance to the
    image plane (the ray distance times the cosine of each pixel's ray against the optical axis)."""
    from isaaclab_contrib.envs import mdp
    from isaaclab_contrib.managers import ObservationGroupCfg
    from isaaclab_contrib.scenes import CameraCfg

    camera = CameraCfg(
        width=8,
        height=6,
        fov=1.2,
        data_types=("depth",),
        env_index=None,
        eye=(0.0, 0.0, 0.1),
        target=(0.0, 0.0, 0.3),
        up=(0.0, 1.0, 0.0),
    )
    cfg = ArmPressClothManagerEnvCfg(cameras=[camera])
    cfg.scene.num_envs = 2

    @configclass
    class ImageCfg(ObservationGroupCfg):
        depth = ObservationTermCfg(
            func=mdp.image, params={"sensor_cfg": SceneEntityCfg("camera_0"), "data_type": "depth", "normalize": False}
        )
        plane = ObservationTermCfg(
            func=mdp.image,
            params={"sensor_cfg": SceneEntityCfg("camera_0"), "data_type": "distance_to_image_plane"},
        )
        concatenate_terms = False

    cfg.observations.image = ImageCfg()
    env = ManagerBasedRLEnv(cfg)
    try:
        obs, _ = env.reset()
        obs, *_ = env.step(torch.zeros(2, 2))
        rendered = env.manager.get_camera_sensor(0).depth
        assert obs["image"]["depth"].shape == (2, 6, 8, 1) and torch.equal(obs["image"]["depth"], rendered)
        center = rendered[:, 2:4, 3:5]  # the cloth 0.2 m above the camera, straight ahead
        assert torch.allclose(center, torch.full_like(center, 0.2), atol=0.03)
        plane = obs["image"]["plane"]
        assert (plane <= rendered + 1e-6).all() and (plane[rendered > 0] > 0).all()
        corner, middle = plane[:, 0, 0] / rendered[:, 0, 0], plane[:, 3, 4] / rendered[:, 3, 4]
        assert (corner < middle).all()  # off-axis rays are longer than their distance to the image plane
        assert env.single_observation_space["image"]["depth"].shape == (6, 8, 1)
    finally:
        env.close()


def test_recorder_terms_record_each_env_step_and_start_a_new_episode_at_a_reset():
    from isaaclab_contrib.managers import RecorderTerm, RecorderTermCfg
    from isaaclab_contrib.managers.recorder_manager import RecorderManagerBaseCfg

    class ActionsAndDepth(RecorderTerm):
        def record_pre_step(self):
            return "actions", self._env.action_manager.action

        def record_post_step(self):
            return "obs/depth", self._env.obs_buf["policy"][:, 6:7]

    @configclass
    class Recorders(RecorderManagerBaseCfg):
        dataset_file_handler_class_type = None  # episodes kept in memory: no file
        record = RecorderTermCfg(class_type=ActionsAndDepth)

    cfg = ArmPressClothManagerEnvCfg(recorders=Recorders(), episode_length_s=0.05)  # 3 env steps
    cfg.scene.num_envs = 2
    env = ManagerBasedRLEnv(cfg)
    try:
        env.reset()
        actions = [torch.full((2, 2), 0.1 * (k + 1)) for k in range(3)]
        depths = []
        for a in actions:
            obs, *_ = env.step(a)
            depths.append(obs["policy"][:, 6:7].clone())
        finished = env.recorder_manager.completed_episodes
        assert len(finished) == 2  # both envs timed out after 3 steps
        for episode in finished:
            env_id = episode.env_id
            assert torch.equal(episode.get("actions"), torch.stack([a[env_id] for a in actions]))
            recorded = episode.get("obs/depth")
            assert recorded.shape == (3, 1)
            # the last record is the state the episode ended in (the returned observation is after the reset)
            assert torch.equal(recorded[:2], torch.stack([d[env_id] for d in depths[:2]]))
        assert env.recorder_manager.get_episode(0).is_empty()  # a new episode started at the reset
    finally:
        env.close()
