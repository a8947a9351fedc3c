"""rsl-rl integration: task ids, runner configs and the VecEnv adapter (on the press-the-cloth task)."""

import gymnasium as gym
import numpy as np
import pytest
import torch
from task_contract import set_field
from tensordict import TensorDict

import isaaclab_coupling_configs  # noqa: F401  (registers the task ids)
from isaaclab_contrib.envs import load_cfg_from_registry, register_task
from isaaclab_contrib.rl import RslRlOnPolicyRunnerCfg, RslRlVecEnvWrapper, evaluate_policy
from isaaclab_coupling_configs.press_cloth_task import TASK_ID, PressClothEnvCfg, PressClothPPORunnerCfg


def press_cfg(num_envs: int, device: str = "cpu", **kw) -> PressClothEnvCfg:
    cfg = PressClothEnvCfg(**kw)
    cfg.scene.num_envs = num_envs
    cfg.sim.device = device
    return cfg


def test_both_tasks_are_registered_with_config_entry_points():
    for task in (TASK_ID, "Isaac-Arm-Press-Cloth-Direct-v0"):
        spec = gym.registry[task]
        assert {"env_cfg_entry_point", "rsl_rl_cfg_entry_point"} <= set(spec.kwargs)
    first = load_cfg_from_registry(TASK_ID, "env_cfg_entry_point")
    second = load_cfg_from_registry(TASK_ID, "env_cfg_entry_point")
    assert isinstance(first, PressClothEnvCfg) and first is not second  # a fresh config each time
    first.scene.num_envs = 99
    assert load_cfg_from_registry(TASK_ID, "env_cfg_entry_point").scene.num_envs != 99
    assert isinstance(load_cfg_from_registry(TASK_ID, "rsl_rl_cfg_entry_point"), PressClothPPORunnerCfg)


def test_register_task_names_classes_by_entry_point():
    from isaaclab_coupling_configs.press_cloth_task import PressClothEnv, oracle_policy

    register_task(
        "Test-Press-Cloth-Copy-v0", env_class=PressClothEnv, env_cfg_class=PressClothEnvCfg, oracle=oracle_policy
    )
    try:
        spec = gym.registry["Test-Press-Cloth-Copy-v0"]
        assert spec.entry_point == "isaaclab_coupling_configs.press_cloth_task:PressClothEnv"
        assert spec.kwargs == {
            "env_cfg_entry_point": "isaaclab_coupling_configs.press_cloth_task:PressClothEnvCfg",
            "oracle_entry_point": "isaaclab_coupling_configs.press_cloth_task:oracle_policy",
        }
        with pytest.raises(KeyError, match="has no 'rsl_rl_cfg_entry_point'"):
            load_cfg_from_registry("Test-Press-Cloth-Copy-v0", "rsl_rl_cfg_entry_point")
    finally:
        del gym.registry["Test-Press-Cloth-Copy-v0"]
    with pytest.raises(TypeError, match="task_id must be a non-empty string"):
        register_task("", env_class=PressClothEnv, env_cfg_class=PressClothEnvCfg)


def test_registry_errors_name_the_task_and_key():
    with pytest.raises(
        KeyError, match=r"'Isaac-Nope-v0' is not registered; registered coupled tasks: \[.*Isaac-Press-Cloth"
    ):
        load_cfg_from_registry("Isaac-Nope-v0", "env_cfg_entry_point")
    with pytest.raises(KeyError, match="has no 'skrl_cfg_entry_point'"):
        load_cfg_from_registry(TASK_ID, "skrl_cfg_entry_point")
    with pytest.raises(TypeError, match="task id must be a string"):
        load_cfg_from_registry(3, "env_cfg_entry_point")


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        ("num_steps_per_env", 0, "num_steps_per_env must be >= 1"),
        ("seed", -2, "seed must be >= 0"),
        ("max_iterations", 1.5, "max_iterations must be an integer"),
        ("actor.hidden_dims", [], "actor.hidden_dims must be a non-empty list"),
        ("critic.hidden_dims", [64, True], "critic.hidden_dims must be a non-empty list"),
        ("actor.init_std", 0.0, "actor.init_std must be > 0"),
        ("algorithm.learning_rate", float("inf"), "algorithm.learning_rate"),
        ("algorithm.schedule", "cosine", "algorithm.schedule must be one of"),
        ("logger", "wandb", "logger must be one of"),
    ],
)
def test_runner_config_validation_names_the_field(path, value, match):
    cfg = RslRlOnPolicyRunnerCfg()
    set_field(cfg, path, value)
    with pytest.raises((TypeError, ValueError), match=match):
        cfg.to_rsl_rl()


def test_runner_config_dict_is_what_rsl_rl_reads():
    cfg = RslRlOnPolicyRunnerCfg(num_steps_per_env=8)
    cfg.actor.hidden_dims = [32]
    train_cfg = cfg.to_rsl_rl()
    assert train_cfg["num_steps_per_env"] == 8 and train_cfg["obs_groups"] == {
        "actor": ["policy"],
        "critic": ["policy"],
    }
    assert train_cfg["actor"]["distribution_cfg"]["class_name"] == "GaussianDistribution"
    assert "distribution_cfg" not in train_cfg["critic"]
    assert train_cfg["algorithm"]["class_name"] == "PPO" and "_ranges" not in train_cfg["algorithm"]
    assert cfg.actor.hidden_dims == [32]  # to_rsl_rl does not change the config


def test_adapter_presents_the_vecenv_interface(device):
    env = gym.make(TASK_ID, cfg=press_cfg(3, device, episode_length_s=0.1))
    try:
        with pytest.raises(TypeError, match="must be a CoupledDirectEnv"):
            RslRlVecEnvWrapper(object())
        with pytest.raises(ValueError, match="clip_actions"):
            RslRlVecEnvWrapper(env, clip_actions=-1.0)
        vec = RslRlVecEnvWrapper(env)
        obs = vec.get_observations()
        assert isinstance(obs, TensorDict) and obs["policy"].shape == (3, 5) and vec.num_actions == 1
        assert vec.max_episode_length == 6
        vec.episode_length_buf = torch.tensor([0, 4, 0])  # rsl-rl spreads the first time-outs like this
        for _ in range(2):
            obs, reward, dones, extras = vec.step(torch.zeros(3, 1))
            assert reward.shape == (3,) and dones.dtype == torch.bool
            assert torch.equal(dones, extras["time_outs"])  # nothing terminates while hovering
        assert dones.tolist() == [False, True, False]  # env 1 hit its time limit and was reset
        assert extras["log"]["/episode_length"] == 6.0
        assert int(vec.episode_length_buf[1]) == 0
    finally:
        env.close()


@pytest.mark.slow  # a training iteration
def test_rsl_rl_runner_learns_one_iteration_on_the_press_task(tmp_path):
    from rsl_rl.runners import OnPolicyRunner

    env = gym.make(TASK_ID, cfg=press_cfg(2))
    try:
        cfg = PressClothPPORunnerCfg(num_steps_per_env=4, max_iterations=1)
        runner = OnPolicyRunner(RslRlVecEnvWrapper(env), cfg.to_rsl_rl(), log_dir=str(tmp_path), device="cpu")
        before = [p.clone() for p in runner.alg.get_policy().parameters()]
        runner.learn(num_learning_iterations=1)
        after = list(runner.alg.get_policy().parameters())
        assert any(not torch.equal(a, b) for a, b in zip(after, before, strict=True))  # PPO updated the policy
        assert (tmp_path / "model_0.pt").exists()
        policy = runner.get_inference_policy()
        result = evaluate_policy(
            env, lambda obs: policy(TensorDict({"policy": obs}, batch_size=[2])), episodes_per_env=1
        )
        assert result["episodes"] == 2 and torch.isfinite(torch.tensor(result["mean"]))
    finally:
        env.close()


def test_evaluate_policy_counts_each_env_once_per_episode(device):
    env = gym.make(TASK_ID, cfg=press_cfg(2, device, episode_length_s=0.05))
    try:
        with pytest.raises(ValueError, match="episodes_per_env"):
            evaluate_policy(env, lambda obs: torch.zeros(2, 1), episodes_per_env=0)
        result = evaluate_policy(env, lambda obs: torch.zeros(2, 1), episodes_per_env=2)
        assert result["episodes"] == 4 and result["env_steps"] == 2 * 2 * env.unwrapped.max_episode_length
    finally:
        env.close()


def test_episode_length_writes_are_validated_and_nothing_is_written_on_refusal():
    env = gym.make(TASK_ID, cfg=press_cfg(3, episode_length_s=0.1))  # 6 env steps per episode
    try:
        vec = RslRlVecEnvWrapper(env)
        top = vec.max_episode_length - 1
        vec.episode_length_buf = torch.tensor([1, 2, 3])
        # Every kind of write that would break the time limit: negatives (never time out), lengths at or past the
        # limit, non-integer dtypes (bool, float), wrong shapes and plain lists.
        cases = [
            (torch.tensor([0, -1, 0]), ValueError, r"in \[0, 5\] .* got \[-1\] for envs \[1\]"),
            (torch.tensor([-(2**40), 0, 0]), ValueError, "for envs \\[0\\]"),
            (torch.tensor([0, 0, top + 1]), ValueError, r"got \[6\] for envs \[2\]"),
            (np.array([0, 0, 10**6]), ValueError, "got \\[1000000\\]"),
            (torch.tensor([0.0, 1.0, 2.0]), TypeError, "integer dtype, got a tensor of torch.float32"),
            (torch.tensor([True, False, True]), TypeError, "torch.bool"),
            (np.array([0.5, 1, 2]), TypeError, "numpy array of float64"),
            (torch.zeros(4, dtype=torch.long), ValueError, r"shape \(3,\), got \(4,\)"),
            (torch.zeros(3, 1, dtype=torch.long), ValueError, r"got \(3, 1\)"),
            ([0, 1, 2], TypeError, "got list"),
            (2, TypeError, "got int"),
        ]
        for value, error, match in cases:
            with pytest.raises(error, match=match):
                vec.episode_length_buf = value
            assert vec.episode_length_buf.tolist() == [1, 2, 3]  # nothing written
        # What rsl-rl writes (init_at_random_ep_len) and other integer dtypes are taken, as long ints.
        vec.episode_length_buf = torch.randint_like(vec.episode_length_buf, high=int(vec.max_episode_length))
        vec.episode_length_buf = np.array([0, top, 2], dtype=np.int32)
        assert vec.episode_length_buf.dtype == torch.long and vec.episode_length_buf.tolist() == [0, top, 2]
        _, _, dones, _ = vec.step(torch.zeros(3, 1))
        assert dones.tolist() == [False, True, False]  # the longest episode timed out
    finally:
        env.close()


def test_wrapper_refuses_bad_actions_by_name_also_when_it_clips():
    env = gym.make(TASK_ID, cfg=press_cfg(2))
    try:
        for clip in (None, 0.5):
            vec = RslRlVecEnvWrapper(env, clip_actions=clip)
            with pytest.raises(TypeError, match=r"must be a torch\.Tensor or a numpy\.ndarray"):
                vec.step([[0.0], [0.0]])
            with pytest.raises(TypeError, match=r"tensor of torch\.bool"):
                vec.step(torch.zeros(2, 1, dtype=torch.bool))
        vec.step(torch.full((2, 1), 3.0))
        assert env.unwrapped.actions.tolist() == [[0.5], [0.5]]  # clipped by the wrapper
    finally:
        env.close()
