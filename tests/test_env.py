"""The direct-workflow env contract on the press-the-cloth task."""

import numpy as np
import pytest
import torch

from configs.press_cloth_task import PressClothEnv, PressClothEnvCfg

N = 4


def make(device: str, **kw) -> PressClothEnv:
    return PressClothEnv(PressClothEnvCfg(num_envs=N, seed=3, device=device, **kw))


def rollout(env: PressClothEnv, actions: torch.Tensor):
    obs, _ = env.reset()
    history = [obs.clone()]
    for a in actions:
        obs, reward, terminated, truncated, _ = env.step(a)
        history.append(torch.cat([obs, reward[:, None], terminated[:, None], truncated[:, None]], dim=-1).clone())
    return torch.stack(history[1:])


def test_shapes_dtypes_and_truncation(device):
    env = make(device, episode_length_s=0.1)  # 6 env steps
    try:
        obs, extras = env.reset()
        assert obs.shape == (N, 5) and obs.dtype == torch.float32 and extras == {}
        for _ in range(6):
            obs, reward, terminated, truncated, extras = env.step(torch.zeros(N, 1))
            assert obs.shape == (N, 5) and reward.shape == (N,) and reward.dtype == torch.float32
            assert terminated.dtype == torch.bool and truncated.dtype == torch.bool
        assert truncated.all() and not terminated.any()
        assert extras["episode"]["length"].tolist() == [6] * N
        assert extras["episode"]["return"].shape == (N,)
        assert env.episode_length.tolist() == [0] * N  # auto-reset
        with pytest.raises(ValueError, match="actions must have shape"):
            env.step(torch.zeros(N + 1, 1))
    finally:
        env.close()


def test_actions_reach_the_physics(device):
    env = make(device)
    try:
        env.reset()
        for _ in range(15):
            obs, *_ = env.step(torch.tensor([[-1.0], [-1.0], [1.0], [1.0]]))
        pusher_z, depth = obs[:, 0], obs[:, 2]
        assert torch.all(pusher_z[:2] < pusher_z[2:] - 0.05)  # pushed down vs lifted
        assert torch.all(depth[:2] > depth[2:] + 0.01)  # the cloth is pressed only through the coupling
    finally:
        env.close()


def test_auto_reset_touches_exactly_the_finished_env(device):
    lift = torch.zeros(40, N, 1)
    lift[:, 1, 0] = 1.0  # env 1 flies off the cloth and terminates
    env = make(device)
    try:
        with_lift = rollout(env, lift)
        initial_obs = env.reset()[0].clone()
    finally:
        env.close()
    env = make(device)
    try:
        without = rollout(env, torch.zeros(40, N, 1))
    finally:
        env.close()
    terminated = with_lift[:, 1, 6].bool()
    assert terminated.any() and not without[:, :, 6].bool().any()
    step = int(torch.nonzero(terminated)[0])
    others = [0, 2, 3]
    assert torch.equal(with_lift[:, others], without[:, others])  # bitwise
    # The finished env restarted from its initial state (a new target is drawn).
    np.testing.assert_allclose(with_lift[step, 1, [0, 1, 2, 4]], initial_obs[1, [0, 1, 2, 4]], atol=1e-6)


def test_eager_and_captured_rollouts_are_identical(device):
    actions = torch.rand(25, N, 1, generator=torch.Generator().manual_seed(1)) * 2 - 1
    env = make(device, use_graph=True)
    try:
        assert env.manager.is_graph_captured()
        captured = rollout(env, actions)
    finally:
        env.close()
    env = make(device, use_graph=False)
    try:
        assert not env.manager.is_graph_captured()
        eager = rollout(env, actions)
    finally:
        env.close()
    assert torch.equal(captured, eager)


def test_non_finite_actions_are_refused_and_a_second_env_cannot_take_over(device):
    env = make(device)
    try:
        env.reset()
        before = env.manager.get_state_0().body_q.numpy().copy()
        actions = torch.zeros(N, 1)
        actions[2, 0] = float("nan")
        actions[3, 0] = float("inf")
        with pytest.raises(ValueError, match=r"actions of envs \[2, 3\] are not finite"):
            env.step(actions)
        np.testing.assert_array_equal(env.manager.get_state_0().body_q.numpy(), before)  # nothing stepped
        assert float(env.actions.abs().sum()) == 0.0  # nothing written into the action buffer
        with pytest.raises(RuntimeError, match="already active"):
            make(device)  # used to close this env's simulation silently and take over the manager
        env.step(torch.zeros(N, 1))  # the first env keeps working
    finally:
        env.close()
    with pytest.raises(RuntimeError, match="the env was closed"):
        env.step(torch.zeros(N, 1))
