"""rsl-rl integration: task ids, runner configs and the VecEnv adapter (on the press-the-cloth task)."""

import gymnasium as gym
import pytest
import torch
from tensordict import TensorDict

import configs  # noqa: F401  (registers the task ids)
from configs.press_cloth_task import TASK_ID, PressClothEnvCfg, PressClothPPORunnerCfg
from isaaclab_contrib.envs import load_cfg_from_registry, register_task
from isaaclab_contrib.rl import RslRlOnPolicyRunnerCfg, RslRlVecEnvWrapper, evaluate_policy


def test_both_tasks_are_registered_with_config_entry_points():
    for task in (TASK_ID, "Isaac-Arm-Press-Cloth-Direct-v0"):
        spec = gym.registry[task]
        assert {"env_cfg_entry_point", "rsl_rl_cfg_entry_point"} <= set(spec.kwargs)
    first = load_cfg_from_registry(TASK_ID, "env_cfg_entry_point")
    second = load_cfg_from_registry(TASK_ID, "env_cfg_entry_point")
    assert isinstance(first, PressClothEnvCfg) and first is not second  # a fresh config each time
    first.num_envs = 99
    assert load_cfg_from_registry(TASK_ID, "env_cfg_entry_point").num_envs != 99
    assert isinstance(load_cfg_from_registry(TASK_ID, "rsl_rl_cfg_entry_point"), PressClothPPORunnerCfg)


def test_register_task_names_classes_by_entry_point():
    from configs.press_cloth_task import PressClothEnv, oracle_policy

    register_task(
        "Test-Press-Cloth-Copy-v0", env_class=PressClothEnv, env_cfg_class=PressClothEnvCfg, oracle=oracle_policy
    )
    try:
        spec = gym.registry["Test-Press-Cloth-Copy-v0"]
        assert spec.entry_point == "configs.press_cloth_task:PressClothEnv"
        assert spec.kwargs == {
            "env_cfg_entry_point": "configs.press_cloth_task:PressClothEnvCfg",
            "oracle_entry_point": "configs.press_cloth_task:oracle_policy",
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
    target = cfg
    *parents, name = path.split(".")
    for parent in parents:
        target = getattr(target, parent)
    setattr(target, name, value)
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
    env = gym.make(TASK_ID, cfg=PressClothEnvCfg(num_envs=3, episode_length_s=0.1, device=device))
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


def test_rsl_rl_runner_learns_one_iteration_on_the_press_task(tmp_path):
    from rsl_rl.runners import OnPolicyRunner

    env = gym.make(TASK_ID, cfg=PressClothEnvCfg(num_envs=2))
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
    env = gym.make(TASK_ID, cfg=PressClothEnvCfg(num_envs=2, episode_length_s=0.05, device=device))
    try:
        with pytest.raises(ValueError, match="episodes_per_env"):
            evaluate_policy(env, lambda obs: torch.zeros(2, 1), episodes_per_env=0)
        result = evaluate_policy(env, lambda obs: torch.zeros(2, 1), episodes_per_env=2)
        assert result["episodes"] == 4 and result["env_steps"] == 2 * 2 * env.unwrapped.max_episode_length
    finally:
        env.close()
