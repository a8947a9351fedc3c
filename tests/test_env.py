"""The direct-workflow env contract on the press-the-cloth task; any registered scene as a task."""

import numpy as np
import pytest
import torch
import warp as wp

from isaaclab_contrib.coupling import CouplerProxyCfg
from isaaclab_contrib.envs import CoupledDirectEnv, CoupledDirectEnvCfg
from isaaclab_contrib.scenes import SceneBaseCfg, get_scene
from isaaclab_contrib.utils.configclass import configclass
from isaaclab_coupling_configs.press_cloth_task import PressClothEnv, PressClothEnvCfg

N = 4


def make(device: str, use_graph: bool = True, **kw) -> PressClothEnv:
    cfg = PressClothEnvCfg(seed=3, **kw)
    cfg.scene.num_envs = N
    cfg.sim.device = device
    cfg.sim.physics.use_cuda_graph = use_graph
    return PressClothEnv(cfg)


def rollout(env: PressClothEnv, actions: torch.Tensor):
    obs, _ = env.reset()
    history = [obs.clone()]
    for a in actions:
        obs, reward, terminated, truncated, _ = env.step(a)
        history.append(torch.cat([obs, reward[:, None], terminated[:, None], truncated[:, None]], dim=-1).clone())
    return torch.stack(history[1:])


def test_shapes_dtypes_and_truncation(device, monkeypatch):
    checks = {"scene": 0, "coupler": 0}
    for cls, key in ((SceneBaseCfg, "scene"), (CouplerProxyCfg, "coupler")):

        def counted(self, *args, _validate=cls.validate, _key=key, **kwargs):
            checks[_key] += 1
            return _validate(self, *args, **kwargs)

        monkeypatch.setattr(cls, "validate", counted)
    env = make(device, episode_length_s=0.1)  # 6 env steps
    assert checks == {"scene": 1, "coupler": 1}  # an env start validates each config once
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


@pytest.mark.slow  # the arm task's twin stays in the default set
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


@pytest.mark.slow  # the arm task's twin stays in the default set
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


def test_env_config_nests_sim_and_scene_and_validates_them():
    cfg = PressClothEnvCfg()
    assert cfg.scene.num_envs == 16 and cfg.sim.dt == pytest.approx(1.0 / 240.0) and cfg.decimation == 4
    sim = cfg.simulation_cfg()
    assert sim.physics.decimation == 4 and sim.physics.solver_cfg.entry_names() == ["pusher", "cloth"]
    assert cfg.sim.physics.decimation == 1  # simulation_cfg() works on a copy
    cfg.scene.cloth.cells = 0
    with pytest.raises(ValueError, match=r"PressClothEnvCfg\.scene\.cloth\.cells must be >= 1, got 0"):
        cfg.validate()
    cfg = PressClothEnvCfg()
    cfg.sim.device = "gpu"
    with pytest.raises(ValueError, match=r"PressClothEnvCfg\.sim: SimulationCfg\.device must be a Warp device alias"):
        cfg.validate()
    with pytest.raises(ValueError, match=r"PressClothEnvCfg\.decimation must be >= 1, got 0"):
        PressClothEnvCfg(decimation=0).validate()
    with pytest.raises(ValueError, match=r"CoupledDirectEnvCfg: required field\(s\) not set: scene"):
        CoupledDirectEnvCfg().validate()


@configclass
class BoxHeightTaskCfg(CoupledDirectEnvCfg):
    """A task over the registered box-on-cloth scene: hold the box at a height (no code of its own for the scene)."""

    scene: SceneBaseCfg = get_scene("box_on_cloth").scene_cfg(num_envs=2)
    episode_length_s: float = 0.1


class BoxHeightEnv(CoupledDirectEnv):
    num_observations = 1
    num_actions = 1

    def _setup_buffers(self) -> None:
        self.box = [
            self.manager.get_model().body_label.index(self.cfg.scene.box.body_label_in_env(i)) for i in range(2)
        ]

    def _get_observations(self) -> torch.Tensor:
        return wp.to_torch(self.manager.get_state_0().body_q)[self.box, 2:3].clone()

    def _get_rewards(self) -> torch.Tensor:
        return -self._get_observations()[:, 0]

    def _get_dones(self) -> torch.Tensor:
        return torch.zeros(self.num_envs, dtype=torch.bool)


def test_any_registered_scene_becomes_a_task(device):
    cfg = BoxHeightTaskCfg()
    cfg.sim.device = device
    env = BoxHeightEnv(cfg)
    try:
        assert env.manager.get_decimation() == cfg.decimation and env.manager.step_mode() == "captured"
        obs, _ = env.reset()
        start = obs.clone()
        for _ in range(6):
            obs, _, _, truncated, _ = env.step(torch.zeros(2, 1))
        assert truncated.all()  # 6 env steps of 4 x 1/240 s: the 0.1 s episode ended, the envs were reset
        torch.testing.assert_close(obs, start)
    finally:
        env.close()


# Every kind of value gymnasium's seed convention excludes (None or an integer >= 0), plus 2**64, the first
# integer torch generators cannot take: each is refused by name before anything is reseeded or reset.
BAD_SEEDS = [
    ("7", TypeError, "got str '7'"),
    (7.0, TypeError, "got float 7.0"),
    (np.float64(7), TypeError, "got float64"),
    (True, TypeError, "got bool True"),
    (np.bool_(False), TypeError, "got bool"),
    (torch.tensor(7), TypeError, "got Tensor"),
    ([7], TypeError, "got list"),
    (-1, ValueError, r"seed must be in \[0, 2\*\*64 - 1\], got -1"),
    (np.int64(-5), ValueError, "got -5"),
    (2**64, ValueError, "got 18446744073709551616"),
    (2**100, ValueError, "got 1267650600228229401496703205376"),
]


def test_reset_seeds_follow_gymnasiums_convention_and_the_config_range(device):
    env = make(device)
    try:
        first, _ = env.reset(seed=11)
        env.step(torch.zeros(N, 1))
        for seed, error, match in BAD_SEEDS:
            state = env.generator.get_state().clone()
            with pytest.raises(error, match=match):
                env.reset(seed=seed)
            assert torch.equal(env.generator.get_state(), state), seed  # nothing reseeded or drawn
            assert env.episode_length.tolist() == [1] * N, seed  # nothing reset
        for seed in (0, np.uint64(2**64 - 1), 2**64 - 1, np.int32(11)):
            env.reset(seed=seed)
        again, _ = env.reset(seed=11)
        torch.testing.assert_close(again, first, rtol=0, atol=0)  # the same seed draws the same targets
        env.reset(seed=None)
    finally:
        env.close()
    # The config's seed field has the same range (and an integer seed of the config is what reset() takes).
    PressClothEnvCfg(seed=2**64 - 1).validate()
    for seed, _, _ in BAD_SEEDS:
        if isinstance(seed, int | np.integer) and not isinstance(seed, bool | np.bool_):
            with pytest.raises(ValueError, match=r"PressClothEnvCfg\.seed must be"):
                PressClothEnvCfg(seed=seed).validate()


def test_actions_must_be_float_tensors_or_arrays_and_others_are_refused_by_name(device):
    cases = [
        ([[0.0]] * N, TypeError, "must be a torch.Tensor or a numpy.ndarray .* got list"),
        ([[0.0]] * (N + 1), TypeError, "got list"),
        (((0.0,),) * N, TypeError, "got tuple"),
        (0.5, TypeError, "got float"),
        (None, TypeError, "got NoneType"),
        (np.zeros((N, 1), dtype=bool), TypeError, "real floating dtype .* numpy array of bool"),
        (np.zeros((N, 1), dtype=np.int64), TypeError, "numpy array of int64"),
        (np.zeros((N, 1), dtype=object), TypeError, "numpy array of object"),
        (np.zeros((N, 1), dtype=np.complex64), TypeError, "numpy array of complex64"),
        (torch.zeros(N, 1, dtype=torch.bool), TypeError, "tensor of torch.bool"),
        (torch.zeros(N, 1, dtype=torch.int32), TypeError, "tensor of torch.int32"),
        (torch.zeros(N, 1, dtype=torch.complex64), TypeError, "tensor of torch.complex64"),
        (np.zeros((N,)), ValueError, r"actions must have shape \(4, 1\), got \(4,\)"),
        (torch.zeros(1, N), ValueError, r"got \(1, 4\)"),
        (np.full((N, 1), np.nan), ValueError, r"actions of envs \[0, 1, 2, 3\] are not finite"),
    ]
    env = make(device)
    try:
        env.reset(seed=2)
        before = env.manager.get_state_0().body_q.numpy().copy()
        for actions, error, match in cases:
            with pytest.raises(error, match=match):
                env.step(actions)
            np.testing.assert_array_equal(env.manager.get_state_0().body_q.numpy(), before)  # nothing stepped
            assert float(env.actions.abs().sum()) == 0.0 and env.episode_length.tolist() == [0] * N
        # Real floating arrays and tensors of every width are converted explicitly (to float32) and act alike.
        values = np.linspace(-0.9, 0.9, N).reshape(N, 1)
        results = []
        for actions in (
            torch.tensor(values, dtype=torch.float32),
            values,  # float64 numpy
            values.astype(np.float32),
            torch.tensor(values, dtype=torch.float64),
            np.asfortranarray(values),
        ):
            env.reset(seed=2)
            obs, *_ = env.step(actions)
            results.append(obs.clone())
        for obs in results[1:]:
            torch.testing.assert_close(obs, results[0], rtol=0, atol=0)
        env.reset(seed=2)
        env.step(values.astype(np.float16))  # half precision too (rounded on conversion)
        assert env.actions.dtype == torch.float32
    finally:
        env.close()
