"""Seeding an rsl-rl actor with demonstrations: the demos read back from Isaac Lab's HDF5 layout, the actor's mean
action fitted to them (a known function, no simulation), and every refusal named; ``train.py --init_from_demos``
refuses a dataset of another task before it builds anything."""

import json
import math
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch
from rsl_rl.models.mlp_model import MLPModel
from tensordict import TensorDict

from isaaclab_contrib.rl.demo_init import fit_actor_to_demos, load_demo_pairs, term_noise

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # as `python scripts/NAME.py` does


def _actor(obs_dim: int = 6, action_dim: int = 3, groups=("policy",)) -> MLPModel:
    obs = TensorDict({g: torch.zeros(2, obs_dim) for g in groups}, batch_size=[2])
    return MLPModel(
        obs,
        {"actor": list(groups)},
        "actor",
        action_dim,
        hidden_dims=[64, 64],
        obs_normalization=True,
        distribution_cfg={"class_name": "GaussianDistribution", "init_std": 0.3},
    )


SCALE = torch.tensor([5.0, 0.1, 1.0, 20.0, 1.0, 1.0])
WEIGHTS = torch.randn(6, 3, generator=torch.Generator().manual_seed(3))


def _known_demos(steps: int = 3000, seed: int = 0):
    """Observations far from zero mean and unit scale, and actions a smooth function of them."""
    obs = torch.randn(steps, 6, generator=torch.Generator().manual_seed(seed)) * SCALE + 3.0
    return obs, 2.0 * torch.tanh(((obs - 3.0) / SCALE) @ WEIGHTS)


def _write_dataset(path: Path, demos: list[dict], env_name: str = "Isaac-Lift-Soft-Franka-v0") -> None:
    with h5py.File(path, "w") as f:
        data = f.create_group("data")
        data.attrs["env_args"] = json.dumps({"env_name": env_name, "type": 2})
        data.attrs["total"] = 0
        for i, demo in enumerate(demos):
            group = data.create_group(f"demo_{i}")
            for key, value in demo.items():
                group.create_dataset(key, data=np.asarray(value))


def test_the_actor_fits_a_known_function_of_the_observations():
    torch.manual_seed(0)
    actor = _actor()
    obs, actions = _known_demos()
    std_before = actor.distribution.std_param.detach().clone()
    fit = fit_actor_to_demos(actor, obs, actions, epochs=100, generator=torch.Generator().manual_seed(1))
    assert fit["pairs"] == 3000 and fit["epochs"] == 100
    assert fit["mse_after"] < 0.05 * fit["mse_before"]
    # the normalizer took the demos' statistics, the noise is the config's
    assert torch.allclose(actor.obs_normalizer.mean, obs.mean(0), rtol=1e-4, atol=1e-4)
    assert torch.allclose(actor.obs_normalizer.std, obs.std(0, unbiased=False), rtol=1e-3)
    assert torch.equal(actor.distribution.std_param.detach(), std_before)
    # the deterministic output on new observations drawn the same way follows the function
    new_obs, new_actions = _known_demos(500, seed=7)
    with torch.no_grad():
        out = actor(TensorDict({"policy": new_obs}, batch_size=[500]))
    assert float(torch.nn.functional.mse_loss(out, new_actions)) < 0.1 * float(new_actions.var(0).mean())


def test_load_demo_pairs_stacks_the_demos_in_order(tmp_path):
    first = {"obs": np.arange(12.0).reshape(4, 3), "actions": np.ones((4, 2))}
    second = {"obs": -np.arange(6.0).reshape(2, 3), "actions": np.zeros((2, 2)), "states/x": np.zeros((2, 5))}
    path = tmp_path / "demos.hdf5"
    _write_dataset(path, [first, second])
    obs, actions, env_args = load_demo_pairs(path)
    assert env_args["env_name"] == "Isaac-Lift-Soft-Franka-v0"
    assert obs.dtype == torch.float32 and obs.shape == (6, 3) and actions.shape == (6, 2)
    assert torch.equal(obs[:4], torch.arange(12.0).reshape(4, 3)) and torch.equal(
        obs[4:], -torch.arange(6.0).reshape(2, 3)
    )
    assert torch.equal(actions[:4], torch.ones(4, 2)) and torch.equal(actions[4:], torch.zeros(2, 2))


@pytest.mark.parametrize(
    ("demos", "match"),
    [
        ([], "holds no demos"),
        ([{"obs": np.zeros((3, 2))}], "no 'actions' tensor"),
        ([{"obs": np.zeros((3, 2)), "actions": np.zeros((2, 1))}], "3 observations for 2 actions"),
        ([{"obs": np.full((3, 2), np.nan), "actions": np.zeros((3, 1))}], "non-finite observations"),
        ([{"obs": np.zeros((3, 2)), "actions": np.full((3, 1), np.inf)}], "non-finite actions"),
    ],
)
def test_load_demo_pairs_refuses_a_broken_dataset_by_name(tmp_path, demos, match):
    path = tmp_path / "broken.hdf5"
    _write_dataset(path, demos)
    with pytest.raises(ValueError, match=match):
        load_demo_pairs(path)


def test_load_demo_pairs_refuses_what_is_not_a_dataset(tmp_path):
    with pytest.raises(FileNotFoundError, match="no dataset file"):
        load_demo_pairs(tmp_path / "missing.hdf5")
    (tmp_path / "notes.hdf5").write_text("not hdf5")
    with pytest.raises(ValueError, match="not an HDF5 file"):
        load_demo_pairs(tmp_path / "notes.hdf5")


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"epochs": 0}, ValueError, "epochs must be a positive int"),
        ({"epochs": True}, ValueError, "epochs must be a positive int"),
        ({"batch_size": 2.5}, ValueError, "batch_size must be a positive int"),
        ({"learning_rate": math.nan}, ValueError, "learning_rate must be a finite number > 0"),
        ({"learning_rate": math.inf}, ValueError, "learning_rate must be a finite number > 0"),
        ({"learning_rate": -1e-3}, ValueError, "learning_rate must be a finite number > 0"),
        (
            {"obs": torch.zeros(10, 5)},
            ValueError,
            "the demos have 5 observations and 3 actions per step, the actor reads 6",
        ),
        ({"actions": torch.zeros(10, 4)}, ValueError, "writes 3: demos of another task or preset"),
        ({"obs": torch.zeros(0, 6), "actions": torch.zeros(0, 3)}, ValueError, "same number of steps"),
        ({"actions": torch.zeros(9, 3)}, ValueError, "same number of steps"),
        ({"obs": torch.full((10, 6), math.nan)}, ValueError, "hold NaN or inf"),
        ({"obs_noise": torch.zeros(5)}, ValueError, r"obs_noise must be \[6\] finite standard deviations"),
        ({"obs_noise": torch.full((6,), math.nan)}, ValueError, "obs_noise must be"),
        ({"obs_noise": -torch.ones(6)}, ValueError, "obs_noise must be"),
        ({"keep_statistics": 1}, ValueError, "keep_statistics must be a bool"),
    ],
)
def test_fit_actor_to_demos_refuses_bad_input_before_it_changes_the_actor(change, error, match):
    actor = _actor()
    before = {k: v.clone() for k, v in actor.state_dict().items()}
    args = {"obs": torch.zeros(10, 6), "actions": torch.zeros(10, 3), "epochs": 1} | change
    with pytest.raises(error, match=match):
        fit_actor_to_demos(actor, **args)
    assert all(torch.equal(v, actor.state_dict()[k]) for k, v in before.items())


@pytest.mark.parametrize("keep", [True, False, None])
def test_the_normalizer_keeps_the_demos_statistics_when_told(keep):
    """PPO's rollouts update the actor's normalizer; after a fit with ``keep_statistics=True`` it keeps the demos'
    statistics (the fitted function is relative to them); by default it goes on learning, as rsl-rl's does."""
    actor = _actor()
    obs, actions = _known_demos()
    fit_actor_to_demos(actor, obs, actions, epochs=1, **({} if keep is None else {"keep_statistics": keep}))
    mean = actor.obs_normalizer.mean
    assert torch.allclose(mean, obs.mean(dim=0), atol=1e-3)
    actor.obs_normalizer.update(obs + 10.0)  # what rsl-rl calls on each rollout step
    assert torch.equal(actor.obs_normalizer.mean, mean) == bool(keep)


def _copycat_demos(steps: int = 4000):
    """Observations ``[state (3), last action (2)]`` whose last action is the action itself (demos repeat their
    action step after step), the action a smooth function of the state."""
    generator = torch.Generator().manual_seed(5)
    state = torch.randn(steps, 3, generator=generator)
    actions = torch.tanh(state @ torch.randn(3, 2, generator=generator))
    last = actions + 0.01 * torch.randn(steps, 2, generator=generator)
    return torch.cat([state, last], dim=1), actions


def test_noise_on_the_last_action_makes_the_fit_read_the_state():
    """Fitted without noise, the actor copies its last-action input: given another last action, its error is large.
    With the last action's columns noised (term_noise, 2 standard deviations), it reads the state instead."""
    obs, actions = _copycat_demos()
    wrong_last = obs.clone()
    wrong_last[:, 3:] = wrong_last[torch.randperm(len(obs), generator=torch.Generator().manual_seed(1)), 3:]
    errors = {}
    for scale in (0.0, 2.0):
        torch.manual_seed(0)
        actor = _actor(obs_dim=5, action_dim=2)
        noise = term_noise(obs, ["state", "actions"], [(3,), (2,)], {"actions": scale})
        assert torch.equal(noise[:3], torch.zeros(3))
        assert torch.allclose(noise[3:], scale * obs[:, 3:].std(dim=0))
        report = fit_actor_to_demos(
            actor, obs, actions, epochs=40, obs_noise=noise, generator=torch.Generator().manual_seed(2)
        )
        assert report["mse_after"] < 0.1 * report["mse_before"]
        with torch.no_grad():
            errors[scale] = float(torch.nn.functional.mse_loss(actor.mlp(actor.obs_normalizer(wrong_last)), actions))
    assert errors[2.0] < 0.25 * errors[0.0], errors


@pytest.mark.parametrize(
    ("names", "dims", "scales", "error", "match"),
    [
        (["state", "actions"], [(3,), (2,)], {"action": 1.0}, KeyError, r"no observation term \['action'\].*'actions'"),
        (["state", "actions"], [(3,), (3,)], {"actions": 1.0}, ValueError, "hold 6 observations, the demos 5"),
        (["state"], [(3,), (2,)], {}, ValueError, "demos of another task"),
        (["state", "actions"], [(3,), (2,)], {"actions": math.nan}, ValueError, "finite number >= 0"),
        (["state", "actions"], [(3,), (2,)], {"actions": -1.0}, ValueError, "finite number >= 0"),
        (["state", "actions"], [(3,), (2,)], {"actions": True}, ValueError, "finite number >= 0"),
        (["state", "actions"], [(3,), (2,)], {"actions": "2"}, ValueError, "finite number >= 0"),
    ],
)
def test_term_noise_refuses_unknown_terms_and_bad_scales(names, dims, scales, error, match):
    with pytest.raises(error, match=match):
        term_noise(torch.zeros(4, 5), names, dims, scales)


def test_term_noise_spans_terms_of_several_dimensions():
    obs = torch.arange(40.0).reshape(4, 10) ** 2
    noise = term_noise(obs, ["a", "points", "b"], [(1,), (3, 2), (3,)], {"points": 0.5, "b": 0.0})
    assert torch.equal(noise[0], torch.tensor(0.0)) and torch.equal(noise[7:], torch.zeros(3))
    assert torch.allclose(noise[1:7], 0.5 * obs[:, 1:7].std(dim=0))


def test_fit_actor_to_demos_refuses_an_actor_over_two_groups_or_not_an_mlp():
    with pytest.raises(TypeError, match=r"reads the observation groups \['policy', 'proprio'\]"):
        fit_actor_to_demos(_actor(groups=("policy", "proprio")), torch.zeros(4, 12), torch.zeros(4, 3))
    with pytest.raises(TypeError, match="is not an rsl-rl MLPModel"):
        fit_actor_to_demos(torch.nn.Linear(6, 3), torch.zeros(4, 6), torch.zeros(4, 3))


def test_train_refuses_demos_of_another_task_or_with_resume_before_building_anything(tmp_path, capsys):
    import train

    path = tmp_path / "arm.hdf5"
    _write_dataset(path, [{"obs": np.zeros((3, 10)), "actions": np.zeros((3, 2))}], env_name="Isaac-Arm-Press-Cloth-v0")
    log_root = tmp_path / "logs"
    common = ["--task", "Isaac-Lift-Soft-Franka-v0", "--log_root", str(log_root)]
    with pytest.raises(SystemExit) as exit_info:
        train.main([*common, "--init_from_demos", str(path)])
    assert exit_info.value.code == 2
    assert "was recorded on 'Isaac-Arm-Press-Cloth-v0', not on 'Isaac-Lift-Soft-Franka-v0'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main([*common, "--init_from_demos", str(tmp_path / "missing.hdf5")])
    assert "no dataset file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main([*common, "--init_from_demos", str(path), "--resume"])
    assert "cannot be combined with --resume" in capsys.readouterr().err
    for extra in (["--demo_obs_noise", "actions=2"], ["--demo_critic_warmup", "3"], ["--demo_keep_statistics"]):
        with pytest.raises(SystemExit):
            train.main([*common, *extra])
        assert f"{extra[0]} needs --init_from_demos" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main([*common, "--init_from_demos", str(path), "--demo_critic_warmup", "-1"])
    assert "must be >= 0, got -1" in capsys.readouterr().err
    for bad in ("actions", "=2", "actions=-1", "actions=nan", "actions=two"):
        with pytest.raises(SystemExit):
            train.main([*common, "--init_from_demos", str(path), "--demo_obs_noise", bad])
        assert f"expected TERM=SCALE with a finite SCALE >= 0, got {bad!r}" in capsys.readouterr().err
    assert not log_root.exists()


@pytest.mark.slow  # records 8 demos, then one PPO iteration and three evaluations of 4 envs: 1-3 minutes
def test_train_starts_ppo_from_the_demonstrated_policy(tmp_path):
    """The arm task's oracle, cloned into the runner's actor before PPO: after one PPO iteration the deterministic
    policy returns most of the oracle's return (71 % measured), far above the random policy's (11 %)."""
    import record_demos
    import train

    path = tmp_path / "arm.hdf5"
    record_demos.main(["--num_demos", "8", "--num_envs", "4", "--dataset_file", str(path)])
    result = train.main(
        [
            *("--task", "Isaac-Arm-Press-Cloth-v0", "--num_envs", "4", "--max_iterations", "1", "--eval_episodes", "1"),
            *("--log_root", str(tmp_path / "logs"), "--init_from_demos", str(path), "--demo_epochs", "100"),
        ]
    )
    fit = result["demo_init"]
    assert fit["dataset"] == str(path) and fit["pairs"] == 8 * 120 and fit["epochs"] == 100
    assert fit["mse_after"] < 0.05 * fit["mse_before"]
    assert result["trained_return"] > 0.5 * result["oracle_return"] > result["random_return"]
    written = json.loads(next((tmp_path / "logs").rglob("result.json")).read_text())
    assert written["demo_init"]["mse_after"] == fit["mse_after"]
    with pytest.raises(SystemExit, match=r"no observation term \['joint_velocity'\] in the policy group; its terms"):
        train.main(
            [
                *("--task", "Isaac-Arm-Press-Cloth-v0", "--num_envs", "4", "--max_iterations", "1"),
                *("--log_root", str(tmp_path / "logs2"), "--init_from_demos", str(path)),
                *("--demo_obs_noise", "joint_velocity=1"),
            ]
        )


class _PointEnv:
    """A pure-torch rsl-rl VecEnv for the runner's bookkeeping (no simulation): a point in the plane moved by the
    action, rewarded for nearing the origin, episodes of 8 steps."""

    def __init__(self, num_envs: int = 8):
        self.num_envs, self.num_actions, self.max_episode_length = num_envs, 2, 8
        self.device, self.cfg = "cpu", {}
        self.episode_length_buf = torch.zeros(num_envs, dtype=torch.long)
        self.generator = torch.Generator().manual_seed(4)
        self.pos = torch.randn(num_envs, 2, generator=self.generator)

    def get_observations(self) -> TensorDict:
        return TensorDict({"policy": self.pos.clone()}, batch_size=[self.num_envs])

    def step(self, actions: torch.Tensor):
        self.pos = self.pos + 0.1 * actions.clamp(-1.0, 1.0)
        reward = -self.pos.norm(dim=-1)
        self.episode_length_buf += 1
        dones = self.episode_length_buf >= self.max_episode_length
        self.pos[dones] = torch.randn(int(dones.sum()), 2, generator=self.generator)
        self.episode_length_buf[dones] = 0
        return self.get_observations(), reward, dones, {"time_outs": dones.clone(), "log": {}}


def _point_runner(tmp_path):
    from rsl_rl.runners import OnPolicyRunner

    from isaaclab_contrib.rl.rsl_rl_cfg import RslRlOnPolicyRunnerCfg

    cfg = RslRlOnPolicyRunnerCfg(num_envs=8, num_steps_per_env=8, max_iterations=3, save_interval=1)
    cfg.actor.obs_normalization = cfg.critic.obs_normalization = True
    return OnPolicyRunner(_PointEnv(), cfg.to_rsl_rl(), log_dir=str(tmp_path), device="cpu")


def _saved(path: Path, key: str) -> dict:
    return torch.load(path, map_location="cpu", weights_only=False)[key]


def test_warm_up_critic_holds_the_actor_then_hands_over_to_ppo(tmp_path):
    """Two held iterations: the saved actor (weights and noise; the fit keeps the observation statistics) is the
    fitted one after each, the critic changes and the learning rate is the starting one; the third update is
    PPO's and moves the actor."""
    from isaaclab_contrib.rl.demo_init import warm_up_critic

    torch.manual_seed(0)
    runner = _point_runner(tmp_path)
    obs = torch.randn(500, 2, generator=torch.Generator().manual_seed(6))
    fit_actor_to_demos(runner.alg.actor, obs, -obs, epochs=5, keep_statistics=True)
    fitted = {k: v.clone() for k, v in runner.alg.actor.state_dict().items()}
    critic = {k: v.clone() for k, v in runner.alg.critic.state_dict().items()}
    rate = runner.alg.learning_rate
    warm_up_critic(runner.alg, 2)
    runner.learn(num_learning_iterations=3)
    for it in (0, 1):
        actor = _saved(tmp_path / f"model_{it}.pt", "actor_state_dict")
        assert all(torch.equal(actor[k], v) for k, v in fitted.items()), f"the actor moved in held iteration {it}"
        lrs = {g["lr"] for g in _saved(tmp_path / f"model_{it}.pt", "optimizer_state_dict")["param_groups"]}
        assert lrs == {rate}
    held_critic = _saved(tmp_path / "model_0.pt", "critic_state_dict")
    assert any(not torch.equal(held_critic[k], v) for k, v in critic.items())
    after = runner.alg.actor.state_dict()
    assert any(not torch.equal(after[k], v) for k, v in fitted.items() if "normalizer" not in k)
    assert all(p.requires_grad for p in runner.alg.actor.parameters())

    torch.manual_seed(0)  # the same, not held: PPO moves the actor in its first update
    control = _point_runner(tmp_path / "control")
    control.alg.actor.load_state_dict(fitted)
    control.learn(num_learning_iterations=1)
    actor = _saved(tmp_path / "control" / "model_0.pt", "actor_state_dict")
    assert any(not torch.equal(actor[k], v) for k, v in fitted.items() if "normalizer" not in k)


@pytest.mark.parametrize("iterations", [-1, 1.5, True, "2"])
def test_warm_up_critic_refuses_a_bad_count_or_an_algorithm_without_an_actor(iterations):
    from isaaclab_contrib.rl.demo_init import warm_up_critic

    with pytest.raises(ValueError, match="iterations must be an int >= 0"):
        warm_up_critic(object(), iterations)
    with pytest.raises(TypeError, match="is not an rsl-rl PPO"):
        warm_up_critic(object(), 1)


def test_warm_up_critic_refuses_a_second_hold_while_the_first_lasts(tmp_path):
    """A second call while the actor is held would end with the first (it puts PPO's update back): refused by
    name, the pending hold unchanged; once the hold is over, a new one may start."""
    from isaaclab_contrib.rl.demo_init import warm_up_critic

    runner = _point_runner(tmp_path)
    warm_up_critic(runner.alg, 2)
    held = runner.alg.update
    with pytest.raises(RuntimeError, match="already held for 2 more update"):
        warm_up_critic(runner.alg, 3)
    assert runner.alg.update is held
    runner.learn(num_learning_iterations=2)
    warm_up_critic(runner.alg, 1)
