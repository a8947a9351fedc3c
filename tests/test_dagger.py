"""DAgger (``isaaclab_contrib.rl.dagger``, ``scripts/train_dagger.py``): the expert schedule, the fit against a known
linear map, and rounds on the beam's lift task (``ik`` preset, 2 envs): who acts, what is recorded and until when,
how success is read; the script end to end."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # as `python scripts/NAME.py` does

import plot_dagger_rounds
import train_dagger

import isaaclab_coupling_configs  # noqa: F401  (registers the tasks)
from isaaclab_contrib.envs import ManagerBasedRLEnv
from isaaclab_contrib.rl.dagger import DaggerActor, collect_round, expert_share, fit_actor, oracle_accepts_hold
from isaaclab_coupling_configs import lift_franka as lf
from isaaclab_coupling_configs import lift_franka_ik as lfi


def test_expert_share_follows_the_list_then_zero_and_refuses_bad_values():
    assert [expert_share(r, [1.0, 0.5, 0.25]) for r in range(5)] == [1.0, 0.5, 0.25, 0.0, 0.0]
    assert expert_share(0, []) == 0.0
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="round_index"):
            expert_share(bad, [1.0])
    for shares in ([1.5], [float("nan")], [True], ["1"]):
        with pytest.raises(ValueError, match="every share"):
            expert_share(0, shares)


def test_the_actor_refuses_bad_widths_and_starts_unstandardized():
    for kwargs in (
        {"num_obs": 0, "num_actions": 2},
        {"num_obs": 3, "num_actions": 2.0},
        {"num_obs": True, "num_actions": 2},
    ):
        with pytest.raises(ValueError, match="DaggerActor"):
            DaggerActor(**kwargs)
    with pytest.raises(ValueError, match="hidden_dims"):
        DaggerActor(3, 2, hidden_dims=(8, 0))
    actor = DaggerActor(3, 2, hidden_dims=(8,))
    assert torch.equal(actor.obs_mean, torch.zeros(3)) and torch.equal(actor.obs_std, torch.ones(3))
    assert actor(torch.zeros(4, 3)).shape == (4, 2)


def test_offset_columns_add_observations_to_the_first_actions_and_survive_scripting():
    actor = DaggerActor(5, 3, hidden_dims=(8,), offset_columns=[4, 2])
    torch.nn.init.zeros_(actor.net[-1].weight)
    torch.nn.init.constant_(actor.net[-1].bias, 0.5)
    obs = torch.randn(6, 5)
    expected = torch.stack([obs[:, 4] + 0.5, obs[:, 2] + 0.5, torch.full((6,), 0.5)], dim=-1)
    assert torch.allclose(actor(obs), expected)
    assert torch.allclose(torch.jit.script(actor)(obs), expected)
    for columns in ([5], [-1], [0, 1, 2, 3], [1.0]):
        with pytest.raises(ValueError, match="offset_columns"):
            DaggerActor(5, 3, offset_columns=columns)


def test_relative_columns_add_the_points_less_the_offset_to_the_inputs():
    actor = DaggerActor(7, 2, hidden_dims=(8,), offset_columns=[4, 5], relative_columns=[0, 1, 2, 3])
    obs = torch.arange(14.0).view(2, 7)
    expected = torch.cat([obs, obs[:, 0:2] - obs[:, 4:6], obs[:, 2:4] - obs[:, 4:6]], dim=-1)
    assert torch.equal(actor.inputs(obs), expected) and actor.obs_mean.shape == (11,)
    gen = torch.Generator().manual_seed(0)
    fit_actor(actor, torch.optim.Adam(actor.parameters()), obs, torch.zeros(2, 2), passes=1, generator=gen)
    assert torch.allclose(actor.obs_mean, expected.mean(0))  # standardized over the extended inputs
    assert torch.allclose(torch.jit.script(actor)(obs), actor(obs))
    with pytest.raises(ValueError, match="groups of len"):
        DaggerActor(7, 2, offset_columns=[4, 5], relative_columns=[0, 1, 2])
    with pytest.raises(ValueError, match="groups of len"):
        DaggerActor(7, 2, relative_columns=[0, 1])
    with pytest.raises(ValueError, match="relative_columns must be observation columns"):
        DaggerActor(7, 2, offset_columns=[4, 5], relative_columns=[0, 7])


def test_action_bounds_clamp_what_the_actor_sends_but_not_what_it_fits():
    torch.manual_seed(0)  # the hidden layer's initial weights
    actor = DaggerActor(3, 2, hidden_dims=(8,), action_min=[0.0, -math.inf], action_max=[math.inf, 1.0])
    torch.nn.init.zeros_(actor.net[-1].weight)
    torch.nn.init.constant_(actor.net[-1].bias, 0.0)
    with torch.no_grad():
        actor.net[-1].bias.copy_(torch.tensor([-0.5, 2.0]))
    obs = torch.randn(4, 3, generator=torch.Generator().manual_seed(1))
    assert torch.equal(actor.unbounded(obs), torch.tensor([[-0.5, 2.0]]).expand(4, 2))
    assert torch.equal(actor(obs), torch.tensor([[0.0, 1.0]]).expand(4, 2))
    assert torch.equal(torch.jit.script(actor)(obs), actor(obs))
    # Labels under the floor: the fit still moves the unclamped output onto them (a fit of the clamped output
    # would have no gradient there), while the actor keeps sending the floor.
    gen = torch.Generator().manual_seed(0)
    inputs = torch.randn(64, 3, generator=gen)
    labels = torch.tensor([[-2.0, 0.5]]).expand(64, 2)
    rmse = fit_actor(actor, torch.optim.Adam(actor.parameters(), lr=1e-2), inputs, labels, 50, 16, gen)
    assert rmse < 0.05
    with torch.no_grad():
        assert bool((actor.unbounded(inputs)[:, 0] < -1.5).all()) and torch.equal(actor(inputs)[:, 0], torch.zeros(64))
    numpy_and_torch = DaggerActor(3, 2, action_min=torch.tensor([0.0, -1.0]), action_max=np.array([1.0, np.inf]))
    assert numpy_and_torch.action_min.tolist() == [0.0, -1.0] and numpy_and_torch.action_max.tolist() == [1.0, math.inf]
    unbounded = DaggerActor(3, 2, hidden_dims=(8,))
    assert torch.equal(unbounded.action_min, torch.full((2,), -math.inf))
    assert torch.equal(unbounded.action_max, torch.full((2,), math.inf))
    for kwargs, match in (
        ({"action_min": [0.0]}, "action_min must be 2 numbers"),
        ({"action_max": [0.0, "1"]}, "action_max must be 2 numbers"),
        ({"action_min": [True, 0.0]}, "action_min must be 2 numbers"),
        ({"action_min": [float("nan"), 0.0]}, "must not hold NaN"),
        ({"action_min": [1.0, 0.0], "action_max": [0.0, 1.0]}, "must not exceed"),
    ):
        with pytest.raises(ValueError, match=match):
            DaggerActor(3, 2, **kwargs)


def test_fit_actor_recovers_a_linear_map_over_badly_scaled_inputs():
    gen = torch.Generator().manual_seed(0)
    scale = torch.tensor([1.0, 50.0, 0.01, 3.0])
    offset = torch.tensor([0.0, 100.0, 0.5, -2.0])
    obs = torch.randn(4000, 4, generator=gen) * scale + offset
    weights = torch.randn(4, 2, generator=gen) / scale.unsqueeze(-1)  # every input matters about as much
    labels = (obs - offset) @ weights + torch.tensor([0.3, -0.2])
    obs_given, labels_given = obs.clone(), labels.clone()
    torch.manual_seed(0)
    actor = DaggerActor(4, 2, hidden_dims=(64, 64))
    optimizer = torch.optim.Adam(actor.parameters(), lr=3e-3)
    rmse = fit_actor(actor, optimizer, obs, labels, passes=30, generator=gen)
    spread = float((labels - labels.mean(0)).square().mean().sqrt())
    assert rmse < 0.05 * spread, (rmse, spread)  # a constant would leave the whole spread
    assert torch.allclose(actor.obs_mean, obs.mean(0)) and torch.allclose(actor.obs_std, obs.std(0, unbiased=False))
    assert torch.equal(obs, obs_given) and torch.equal(labels, labels_given)  # the pairs are not changed
    with torch.no_grad():
        assert math.isclose(float((actor(obs) - labels).square().mean().sqrt()), rmse, rel_tol=1e-4)
    assert not actor.training


@pytest.mark.parametrize(
    ("obs", "labels", "kwargs", "match"),
    [
        (torch.zeros(0, 3), torch.zeros(0, 2), {}, "same pairs"),
        (torch.zeros(5, 3), torch.zeros(4, 2), {}, "same pairs"),
        (torch.zeros(5), torch.zeros(5, 2), {}, "same pairs"),
        (torch.full((5, 3), float("nan")), torch.zeros(5, 2), {}, "finite"),
        (torch.zeros(5, 4), torch.zeros(5, 2), {}, "maps 3 observations to 2 actions, the pairs are 4 and 2 wide"),
        (torch.zeros(5, 3), torch.zeros(5, 1), {}, "maps 3 observations to 2 actions, the pairs are 3 and 1 wide"),
        (torch.zeros(5, 3), torch.zeros(5, 2), {"passes": 0}, "passes"),
        (torch.zeros(5, 3), torch.zeros(5, 2), {"batch_size": 2.5}, "batch_size"),
    ],
)
def test_fit_actor_refuses_empty_mismatched_or_non_finite_pairs(obs, labels, kwargs, match):
    actor = DaggerActor(3, 2, hidden_dims=(8,))
    before = {k: v.clone() for k, v in actor.state_dict().items()}
    with pytest.raises(ValueError, match=match):
        fit_actor(actor, torch.optim.Adam(actor.parameters()), obs, labels, **{"passes": 1, **kwargs})
    assert all(torch.equal(v, before[k]) for k, v in actor.state_dict().items())  # nothing half-done


class _Still(torch.nn.Module):
    """An actor that commands one fixed pose: the TCP a little over the table in front of the robot, gripper open."""

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        pose = torch.tensor([0.45, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0, 1.0])
        return pose.expand(obs.shape[0], 8)


def _beam_env(steps: int, **command):
    cfg = lfi.LiftSoftIkEnvCfg(seed=0)
    cfg.scene.num_envs = 2
    cfg.episode_length_s = steps * cfg.sim.dt * cfg.decimation
    for key, value in command.items():
        setattr(cfg.commands.object_pose, key, value)
    return ManagerBasedRLEnv(cfg)


def test_a_round_records_every_step_of_every_env_and_the_outcome_of_its_first_episode():
    env = _beam_env(8)
    try:
        oracle = lf.soft_oracle(env)
        assert oracle_accepts_hold(oracle) and not oracle_accepts_hold(lambda obs: obs)
        expert = torch.tensor([True, False])
        cut = collect_round(env, oracle, _Still(), expert, max_steps=3)  # no episode ends: the last action stays
        assert cut.steps.tolist() == [3, 3] and cut.labels.shape == (6, 8)
        last = env.action_manager.action  # env 0 acted on the oracle's action (its label), env 1 on the actor's
        assert torch.equal(last[0], cut.labels[-2]) and torch.equal(last[1], _Still()(last)[1])
        assert not torch.equal(cut.labels[-1], last[1])  # env 1's label is the oracle's, not what it did
        data = collect_round(env, oracle, _Still(), expert, max_steps=20)
        assert env.max_episode_length == 8 and data.steps.tolist() == [8, 8]  # the first episodes' lengths
        assert data.obs.shape == (40, env.observation_manager.group_obs_dim["policy"][0])  # every step recorded
        assert data.success.tolist() == [False, False] and torch.isfinite(data.returns).all()
        assert data.mean_over(data.returns, expert=True) == float(data.returns[0])
        held = collect_round(env, oracle, _Still(), torch.tensor([False, False]), hold=True, max_steps=2)
        assert held.steps.tolist() == [2, 2] and len(held.obs) == 4
        assert math.isnan(held.mean_over(held.returns, expert=True))
        with pytest.raises(ValueError, match="expert_envs must be a bool tensor of shape"):
            collect_round(env, oracle, _Still(), torch.tensor([1, 0]))
        with pytest.raises(ValueError, match="hold=True needs an oracle that takes hold"):
            collect_round(env, lambda obs: oracle(obs), _Still(), expert, hold=True)
        with pytest.raises(ValueError, match="max_steps must be an int >= 1"):
            collect_round(env, oracle, _Still(), expert, max_steps=0)
        with pytest.raises(ValueError, match="no command term 'goal'"):
            collect_round(env, oracle, _Still(), expert, command_name="goal")
    finally:
        env.close()


class _Down(torch.nn.Module):
    """An actor that sends the hand 30 cm under the table: its episode ends within a few steps."""

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.tensor([0.45, 0.0, -0.3, 1.0, 0.0, 0.0, 0.0, 1.0]).expand(obs.shape[0], 8)


def test_an_env_whose_first_episode_ends_early_goes_on_recorded_with_that_episodes_outcome():
    env = _beam_env(12)
    try:
        data = collect_round(env, lf.soft_oracle(env), _Down(), torch.tensor([True, False]))
        assert data.steps[0] == 12 and 0 < data.steps[1] < 6  # the actor's env ended at once
        assert len(data.obs) == 24  # and went on from its reset, recorded
        assert torch.isfinite(data.returns).all() and not data.success[1]
        assert set(data.endings) == set(env.termination_manager.active_terms)
        assert data.endings["time_out"].tolist() == [True, False]
        assert any(on[1] for name, on in data.endings.items() if name != "time_out")
    finally:
        env.close()


def test_success_is_the_command_terms_metric_as_the_episode_ends():
    env = _beam_env(4, success_threshold=10.0)  # every center is within 10 m of its command
    try:
        data = collect_round(env, lf.soft_oracle(env), _Still(), torch.tensor([True, False]))
        assert data.success.tolist() == [True, True]
    finally:
        env.close()


@pytest.mark.slow  # ~40 s: three short rounds of the beam's task through the script
def test_train_dagger_writes_its_log_curves_and_a_policy_that_runs(tmp_path):
    result = train_dagger.main(
        [
            *("--task", lfi.IK_TASK_IDS["soft"], "--num_envs", "4", "--rounds", "3", "--max_steps", "6", "--hold"),
            *("--first_passes", "2", "--passes", "1", "--expert_shares", "1,0", "--log_root", str(tmp_path)),
            *("--offset_term", "tcp_position", "--relative_term", "object_points", "--action_min", "2=0.05"),
        ]
    )
    folder = Path(result["folder"])
    rows = json.loads((folder / "rounds.json").read_text())["rounds"]
    assert [row["expert_share"] for row in rows] == [1.0, 0.0, 0.0]
    assert rows[0]["actor_envs"] == 0 and math.isnan(rows[0]["actor_return"])
    assert rows[1]["actor_envs"] == 4 and math.isnan(rows[1]["oracle_return"])
    assert 0 < rows[1]["actor_episode_steps"] <= 6 and "ee_below_table" in rows[1]["actor_endings"]
    assert [row["pairs"] for row in rows] == [24, 48, 72]  # 4 envs x 6 steps a round, episodes ended or not
    assert (folder / "dagger.png").stat().st_size > 0 and any(folder.glob("events.out.tfevents.*"))
    both = plot_dagger_rounds.main([str(folder), str(folder), "--output", str(tmp_path / "both.png")])
    assert both.stat().st_size > 0
    policy = torch.jit.load(str(folder / "policy.pt"))
    state = torch.load(folder / "actor.pt")
    num_obs = 96  # the policy group; the points less the hand add 60 inputs
    assert state["offset_columns"].tolist() == [93, 94, 95] and state["relative_columns"].tolist() == list(
        range(18, 78)
    )
    floor = [-math.inf, -math.inf, 0.05] + [-math.inf] * 5
    assert torch.equal(state["action_min"], torch.tensor(floor)) and torch.equal(
        state["action_max"], torch.full((8,), math.inf)
    )
    actor = DaggerActor(num_obs, 8, offset_columns=[93, 94, 95], relative_columns=list(range(18, 78)))
    actor.load_state_dict(state)
    assert len(state["obs_mean"]) == num_obs + 60
    obs = torch.randn(3, num_obs)
    with torch.no_grad():
        heights = actor.unbounded(obs)[:, 2]
        assert torch.allclose(policy(obs), actor(obs)) and torch.equal(policy(obs)[:, 2], heights.clamp(min=0.05))


def test_train_dagger_refuses_bad_shares_a_direct_task_and_a_hold_or_command_the_task_lacks(capsys, tmp_path):
    with pytest.raises(SystemExit):
        train_dagger.main(["--task", lfi.IK_TASK_IDS["soft"], "--expert_shares", "1,nan"])
    assert "every expert share must be in [0, 1]" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="is not a manager-based task"):
        train_dagger.main(["--task", "Isaac-Lift-Soft-Franka-Coarse-Direct-v0", "--num_envs", "1"])
    arm = ["--task", "Isaac-Arm-Press-Cloth-v0", "--num_envs", "1", "--log_root", str(tmp_path)]
    with pytest.raises(SystemExit, match="--hold: the oracle of Isaac-Arm-Press-Cloth-v0 takes no hold"):
        train_dagger.main([*arm, "--hold"])
    with pytest.raises(SystemExit, match="has no command term 'object_pose' with a success metric"):
        train_dagger.main(arm)
    with pytest.raises(SystemExit):
        train_dagger.main([*arm, "--relative_term", "object_points"])
    assert "--relative_term needs --offset_term" in capsys.readouterr().err
    soft = ["--task", lf.SOFT_TASK_ID, "--num_envs", "1", "--log_root", str(tmp_path)]
    with pytest.raises(SystemExit, match=r"--oracle nope:act: No module named 'nope'"):
        train_dagger.main([*soft, "--oracle", "nope:act"])
    with pytest.raises(SystemExit, match=r"lift_franka:CABLE_TASK_ID' is a str, not a function"):
        train_dagger.main([*soft, "--oracle", "isaaclab_coupling_configs.lift_franka:CABLE_TASK_ID"])
    with pytest.raises(SystemExit, match=r"--oracle .*:use_ik_actions: .*it has no ik_gripper_close"):
        train_dagger.main([*soft, "--oracle", "isaaclab_coupling_configs.lift_franka:use_ik_actions"])  # called
    with pytest.raises(SystemExit, match="the 'policy' observation group has no term 'tcp_position'"):
        train_dagger.main(["--task", lf.SOFT_TASK_ID, "--num_envs", "1", "--offset_term", "tcp_position"])
    assert not any(tmp_path.iterdir())  # refused before any log folder was made


def test_action_bound_flags_name_a_column_and_a_value_once(capsys):
    assert train_dagger.bounds_arg("2=0.001") == (2, 0.001)
    assert train_dagger.bounds_arg("0=-inf") == (0, -math.inf)
    for bad in ("2", "x=1", "-1=0", "2=nan", "2=low", "=1"):
        with pytest.raises(argparse.ArgumentTypeError, match="is not COLUMN=VALUE"):
            train_dagger.bounds_arg(bad)
    assert train_dagger.action_bounds([], 3, "--action_min", -math.inf) is None
    assert train_dagger.action_bounds([(2, 0.5)], 3, "--action_min", -math.inf) == [-math.inf, -math.inf, 0.5]
    with pytest.raises(SystemExit, match=r"--action_max 3=1\.0: the action has columns 0-2"):
        train_dagger.action_bounds([(3, 1.0)], 3, "--action_max", math.inf)
    with pytest.raises(SystemExit, match="each bounded once"):
        train_dagger.action_bounds([(1, 0.0), (1, 0.5)], 3, "--action_min", -math.inf)
    with pytest.raises(SystemExit):
        train_dagger.main(["--task", lfi.IK_TASK_IDS["soft"], "--action_min", "2:0.001"])
    assert "'2:0.001' is not COLUMN=VALUE" in capsys.readouterr().err


def test_plot_dagger_rounds_refuses_a_folder_that_is_not_a_run(tmp_path, capsys):
    with pytest.raises(SystemExit):
        plot_dagger_rounds.main([str(tmp_path), "--output", str(tmp_path / "x.png")])
    assert "is not a train_dagger.py run folder (no rounds.json in it)" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_plot_dagger_rounds_names_a_runs_settings_other_than_the_defaults():
    task = "Isaac-Lift-Cable-Franka-IK-Abs-v0"
    plain = {"task": task, "settings": {"seed": 0, "passes": 40, "expert_shares": [1.0, 0.5, 0.25], "hold": False}}
    assert plot_dagger_rounds.run_label(plain) == "Cable (plain labels)"
    assert plot_dagger_rounds.run_label(plain, with_seed=True) == "Cable (seed 0)"
    taught = {
        "task": task,
        "settings": {"seed": 1, "passes": 80, "oracle": "isaaclab_coupling_configs.lift_franka:cable_state_oracle"},
    }
    assert plot_dagger_rounds.run_label(taught) == "Cable (80 passes, oracle cable_state_oracle)"
    assert plot_dagger_rounds.run_label(taught, with_seed=True).endswith("oracle cable_state_oracle, seed 1)")
    assert plot_dagger_rounds.run_label({"task": task}) == "Cable (plain labels)"  # a log from before the settings


def test_term_columns_names_a_term_or_a_slice_of_it():
    env = _beam_env(4)
    try:
        names = env.observation_manager.active_terms["policy"]
        assert names[-2:] == ["actions", "tcp_position"]
        assert train_dagger.term_columns(env, "policy", "tcp_position") == [93, 94, 95]
        assert train_dagger.term_columns(env, "policy", "actions") == list(range(85, 93))
        assert train_dagger.term_columns(env, "policy", "actions[0:3]") == [85, 86, 87]
        assert train_dagger.term_columns(env, "policy", "actions[5:]") == [90, 91, 92]
        for bad, match in (
            ("actions[0]", "is written NAME"),
            ("actions[a:b]", "is written NAME"),
            ("actions[0:3", "is written NAME"),
            ("actions[4:2]", "selects no column"),
            ("action[0:3]", "has no term 'action'"),
        ):
            with pytest.raises(SystemExit, match=match):
                train_dagger.term_columns(env, "policy", bad)
        with pytest.raises(SystemExit, match="no observation group 'critic'"):
            train_dagger.term_columns(env, "critic", "actions")
    finally:
        env.close()
