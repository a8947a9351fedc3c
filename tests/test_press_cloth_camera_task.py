"""The env contract on the depth-camera task: the sphere presses the cloth, the policy sees it through a camera.

Observations are a dict of groups ("policy" state, "camera" image); the tests check the spaces, that the image
follows the cloth, masked autoresets, that actions reach the physics, captured == eager, and the rsl-rl side
(groups routed to CNN models, named errors for groups the env does not produce).
"""

import gymnasium as gym
import numpy as np
import pytest
import torch
from task_contract import rollout, rollouts_with_an_aged_env, set_field, task_config
from tensordict import TensorDict

from isaaclab_contrib.physics import SimulationContext
from isaaclab_contrib.rl import (
    RslRlCnnModelCfg,
    RslRlMlpModelCfg,
    RslRlVecEnvWrapper,
    evaluate_policy,
    policy_callable,
    random_policy,
)
from isaaclab_contrib.rl.distributed import DistributedOnPolicyRunner
from isaaclab_coupling_configs import press_cloth_task
from isaaclab_coupling_configs.press_cloth_camera_task import (
    TASK_ID,
    PressClothDepthCameraEnv,
    PressClothDepthCameraEnvCfg,
    PressClothDepthCameraPPORunnerCfg,
    depth_camera_cfg,
    oracle_policy,
)

N, H, W = 3, 16, 16


def config(num_envs: int = N, device: str = "cpu", use_graph: bool = True, **kw) -> PressClothDepthCameraEnvCfg:
    return task_config(PressClothDepthCameraEnvCfg, num_envs, device, use_graph, **kw)


def make(device: str = "cpu", use_graph: bool = True, **kw) -> PressClothDepthCameraEnv:
    return PressClothDepthCameraEnv(config(N, device, use_graph, seed=3, **kw))


def flat(obs, reward, terminated, truncated) -> torch.Tensor:
    """One row per env: policy group, image pixels, reward, terminated, truncated."""
    parts = [obs["policy"], obs["camera"].flatten(1), reward[:, None], terminated[:, None], truncated[:, None]]
    return torch.cat([p.float() for p in parts], dim=-1)


def test_dict_spaces_and_observation_shapes(device):
    env = make(device, episode_length_s=0.1)  # 6 env steps
    try:
        space = env.single_observation_space
        assert isinstance(space, gym.spaces.Dict) and set(space.spaces) == {"policy", "camera"}
        assert space["policy"].shape == (3,) and space["camera"].shape == (1, H, W)
        assert env.observation_space["camera"].shape == (N, 1, H, W) and env.action_space.shape == (N, 1)
        obs, extras = env.reset()
        assert extras == {} and set(obs) == {"policy", "camera"}
        assert obs["policy"].shape == (N, 3) and obs["camera"].shape == (N, 1, H, W)
        assert obs["policy"].dtype == torch.float32 and obs["camera"].dtype == torch.float32
        assert torch.equal(obs["camera"], torch.zeros(N, 1, H, W))  # the rest image: the state every reset restores
        # The privileged depth is not observed: [pusher vz, target, previous action].
        state = env.privileged_observations()
        torch.testing.assert_close(obs["policy"], state[:, [1, 3, 4]])
        assert env.observation_space.contains({k: v.cpu().numpy() for k, v in obs.items()})
        for _ in range(6):
            obs, _, _, truncated, extras = env.step(torch.zeros(N, 1))
        assert truncated.all() and extras["final_observation"]["camera"].shape == (N, 1, H, W)
        assert extras["final_observation"]["policy"].shape == (N, 3)
    finally:
        env.close()
    env = make(device, observe_pusher_height=True)
    try:
        obs, _ = env.reset()
        assert env.single_observation_space["policy"].shape == (4,)
        torch.testing.assert_close(obs["policy"], env.privileged_observations()[:, [0, 1, 3, 4]])
    finally:
        env.close()


def test_the_image_shows_the_pressed_cloth_and_actions_reach_the_physics(device):
    env = make(device)
    try:
        env.reset()
        actions = torch.tensor([[-1.0], [-1.0], [0.0]])  # envs 0-1 press, env 2 hovers (gravity compensated)
        for _ in range(30):
            obs, *_ = env.step(actions)
        state = env.privileged_observations()
        pusher_z, depth = state[:, 0], state[:, 2]
        # The force moved the pushers down 4.6 cm and the cloth center 2.2 cm further than the hovering env's
        # (which sags under its own weight only).
        assert torch.all(pusher_z[:2] < pusher_z[2] - 0.03) and torch.all(depth[:2] > depth[2] + 0.015)
        image = obs["camera"][:, 0]
        peak = image.flatten(1).max(dim=1).values
        # The pressed cloth comes closer to the camera below it than the hovering env's: 0.77 against 0.51 of
        # depth_scale (5 cm) at the deepest pixel.
        assert torch.all(peak[:2] > peak[2] + 0.15), peak
        # Raw depth agrees: the camera 20 cm below the cloth sees it closer where it is pressed.
        raw = env.camera.depth[..., 0]
        nearest = [float(view[view > 0].min()) for view in raw]  # 16.0 cm against 18.1 cm
        assert max(nearest[:2]) < nearest[2] - 0.015, nearest
    finally:
        env.close()


@pytest.mark.slow  # the arm task's twin stays in the default set
def test_auto_reset_touches_exactly_the_finished_env(device):
    actions = torch.rand(14, N, 1, generator=torch.Generator().manual_seed(2)) * 2 - 1
    # Env 1 is 6 steps from its time limit: it truncates at step 6 and restarts.
    early, plain = rollouts_with_an_aged_env(lambda: make(device), actions, env_id=1, steps_left=6, row=flat)
    truncated = early[:, 1, -1].bool()
    assert int(torch.nonzero(truncated)[0]) == 5 and not plain[:, :, -1].bool().any()
    others = [0, 2]
    assert torch.equal(early[:, others], plain[:, others])  # bitwise untouched, images included
    assert not torch.equal(early[6:, 1], plain[6:, 1])
    # The finished env restarted: zero previous action and the rest image.
    assert float(early[5, 1, 2]) == 0.0
    assert torch.equal(early[5, 1, 3 : 3 + H * W], torch.zeros(H * W))
    assert bool((plain[5, 1, 3 : 3 + H * W] != 0).any())


@pytest.mark.slow  # the arm task's twin stays in the default set
def test_eager_and_captured_rollouts_are_identical(device):
    actions = torch.rand(12, N, 1, generator=torch.Generator().manual_seed(1)) * 2 - 1
    results = []
    for graph in (True, False):
        env = make(device, graph)
        try:
            # Captured: the physics replays from graphs; on the CPU the camera stage runs eagerly ("partial").
            expected = ("partial", "captured") if graph else ("eager",)
            assert env.manager.step_mode() in expected, env.manager.eager_reason()
            results.append(rollout(env, actions, row=flat))
        finally:
            env.close()
    if device == "cpu":
        assert torch.equal(results[0], results[1])
    else:  # CUDA atomics may reorder the physics
        torch.testing.assert_close(results[0], results[1], atol=1e-4, rtol=1e-4)


@pytest.mark.slow  # whole episodes of the oracle and of random actions
def test_the_oracle_and_random_returns_are_the_state_tasks():
    """The camera changes what is observed, not the physics: same seed, same returns."""
    returns = []
    for env_class, cfg_class, oracle in (
        (PressClothDepthCameraEnv, PressClothDepthCameraEnvCfg, oracle_policy),
        (press_cloth_task.PressClothEnv, press_cloth_task.PressClothEnvCfg, press_cloth_task.oracle_policy),
    ):
        cfg = cfg_class(episode_length_s=0.2)
        cfg.scene.num_envs = 2
        env = env_class(cfg)
        try:
            returns.append(
                (
                    evaluate_policy(env, oracle(env), 1, seed=4)["mean"],
                    evaluate_policy(env, random_policy(env, 4), 1, seed=4)["mean"],
                )
            )
        finally:
            env.close()
    assert returns[0] == returns[1]


@pytest.mark.slow  # a training iteration
def test_rsl_rl_trains_a_cnn_on_the_camera_groups(tmp_path):
    env = gym.make(TASK_ID, cfg=config(2))
    try:
        vec = RslRlVecEnvWrapper(env)
        obs = vec.get_observations()
        assert isinstance(obs, TensorDict) and set(obs.keys()) == {"policy", "camera"}
        assert obs["camera"].shape == (2, 1, H, W) and vec.observation_groups == ["policy", "camera"]
        obs, reward, dones, _ = vec.step(torch.zeros(2, 1))
        assert obs["policy"].shape == (2, 3) and reward.shape == (2,) and dones.dtype == torch.bool
        cfg = PressClothDepthCameraPPORunnerCfg(num_steps_per_env=3, max_iterations=1)
        cfg.check_obs_groups(vec)
        train_cfg = cfg.to_rsl_rl()
        assert train_cfg["obs_groups"] == {"actor": ["policy", "camera"], "critic": ["policy", "camera"]}
        assert train_cfg["actor"]["class_name"] == "CNNModel" and train_cfg["actor"]["cnn_cfg"]["flatten"] is True
        runner = DistributedOnPolicyRunner(vec, train_cfg, log_dir=str(tmp_path), device="cpu")
        assert set(runner.alg.get_policy().cnns.keys()) == {"camera"}
        runner.learn(num_learning_iterations=1)
        policy = runner.get_inference_policy()
        result = evaluate_policy(env, policy_callable(policy, 2), episodes_per_env=1)
        assert result["episodes"] == 2 and np.isfinite(result["mean"])
        runner.export_policy_to_jit(str(tmp_path / "exported"), "policy.pt")
        assert (tmp_path / "exported" / "policy.pt").exists()
        # A group the env does not produce, or a model that cannot read the groups: named errors.
        bad = PressClothDepthCameraPPORunnerCfg()
        bad.obs_groups = {"actor": ["policy", "camer"], "critic": ["policy"]}
        with pytest.raises(ValueError, match=r"obs_groups\['actor'\] names the observation group 'camer'"):
            bad.check_obs_groups(vec)
        train_cfg = bad.to_rsl_rl()  # the names alone are well formed
        with pytest.raises(ValueError, match=r"train_cfg\['obs_groups'\]\['actor'\] names the observation group"):
            DistributedOnPolicyRunner(vec, train_cfg, log_dir=None, device="cpu")
        mlp = PressClothDepthCameraPPORunnerCfg(actor=RslRlMlpModelCfg())
        with pytest.raises(ValueError, match=r"PressClothDepthCameraPPORunnerCfg\.actor is an MLP .*\['camera'\]"):
            mlp.check_obs_groups(vec)
        state_only = PressClothDepthCameraPPORunnerCfg(obs_groups={"actor": ["policy", "camera"], "critic": ["policy"]})
        with pytest.raises(ValueError, match=r"\.critic is a CNN model .* no image group"):
            state_only.check_obs_groups(vec)
    finally:
        env.close()


def test_policy_callable_routes_tensors_and_dicts():
    seen = []

    def policy(td):
        seen.append(td)
        return torch.zeros(td.batch_size[0], 1)

    act = policy_callable(policy, 2)
    act(torch.ones(2, 5))
    act({"policy": torch.ones(2, 3), "camera": torch.ones(2, 1, 4, 4)})
    assert list(seen[0].keys()) == ["policy"] and seen[0]["policy"].shape == (2, 5)
    assert set(seen[1].keys()) == {"policy", "camera"} and seen[1]["camera"].shape == (2, 1, 4, 4)
    with pytest.raises(ValueError, match="num_envs must be an integer >= 1"):
        policy_callable(policy, 0)
    with pytest.raises(TypeError, match="observations must be a tensor or a non-empty dict"):
        act([1, 2])


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        ("obs_groups", {"actor": ["policy"]}, r"obs_groups must have the sets 'actor' and 'critic'"),
        ("obs_groups", {"actor": [], "critic": ["policy"]}, r"obs_groups\['actor'\] must be a non-empty list"),
        ("obs_groups", {"actor": ["policy", "policy"], "critic": ["policy"]}, "distinct group names"),
        ("obs_groups", ["policy"], "obs_groups must be a dict"),
        ("actor.cnn.output_channels", [8, 0], r"actor\.cnn\.output_channels must be a non-empty list"),
        ("actor.cnn.stride", 0, r"actor\.cnn\.stride must be >= 1"),
        ("critic.cnn.padding", "same", r"critic\.cnn\.padding must be one of"),
        ("actor", "cnn", "actor must be an RslRlMlpModelCfg or RslRlCnnModelCfg"),
    ],
)
def test_runner_config_errors_name_the_field(path, value, match):
    cfg = PressClothDepthCameraPPORunnerCfg()
    set_field(cfg, path, value)
    with pytest.raises((TypeError, ValueError), match=match):
        cfg.to_rsl_rl()


def test_cnn_model_config_maps_to_rsl_rl():
    model = RslRlCnnModelCfg(hidden_dims=[32]).to_rsl_rl(stochastic=True)
    assert model["class_name"] == "CNNModel" and model["hidden_dims"] == [32]
    assert model["distribution_cfg"]["class_name"] == "GaussianDistribution"
    assert model["cnn_cfg"] == {
        "output_channels": [16, 32],
        "kernel_size": 3,
        "stride": 2,
        "dilation": 1,
        "padding": "zeros",
        "norm": "none",
        "activation": "elu",
        "max_pool": False,
        "global_pool": "none",
        "flatten": True,
    }


def _camera(**changes):
    camera = depth_camera_cfg()
    for name, value in changes.items():
        setattr(camera, name, value)
    return camera


@pytest.mark.parametrize(
    ("cameras", "match"),
    [
        ([], r"PressClothDepthCameraEnvCfg\.cameras must hold the observation camera"),
        ([_camera(env_index=0)], r"cameras\[0\]\.env_index must be None"),
        ([_camera(data_types=("rgb",))], r"cameras\[0\]\.data_types must include 'depth'"),
    ],
)
def test_bad_camera_configs_are_refused_before_a_simulation_starts(cameras, match):
    cfg = config(1)
    cfg.cameras = cameras
    with pytest.raises(ValueError, match=match):
        PressClothDepthCameraEnv(cfg)
    assert SimulationContext.instance() is None
