"""Observation, reward, termination and curriculum managers and observation noise, on a stand-in env.

The managers are pure tensor logic over ``env``: a small object with Isaac Lab's env attributes and an asset whose
``.data`` fields carry ``.torch`` tensors stands in for the simulation. Every expectation is computed by hand.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from isaaclab_contrib.managers import (
    CurriculumManager,
    CurriculumTermCfg,
    ManagerTermBase,
    ObservationGroupCfg,
    ObservationManager,
    ObservationTermCfg,
    RewardManager,
    RewardTermCfg,
    SceneEntityCfg,
    TerminationManager,
    TerminationTermCfg,
)
from isaaclab_contrib.managers.observation_manager import flat_term_columns
from isaaclab_contrib.utils.buffers import CircularBuffer
from isaaclab_contrib.utils.configclass import configclass
from isaaclab_contrib.utils.noise import (
    ConstantNoiseCfg,
    GaussianNoiseCfg,
    NoiseModelWithAdditiveBiasCfg,
    UniformNoiseCfg,
    check_noise_cfg,
    constant_noise,
    gaussian_noise,
    uniform_noise,
)

N = 4  # envs
JOINTS = ["shoulder", "elbow", "wrist"]


# ---------------------------------------------------------------------------------------------- stand-in env
class Field:
    def __init__(self, tensor: torch.Tensor):
        self.torch = tensor


class Asset:
    def __init__(self):
        self.joint_names = list(JOINTS)
        self.body_names = ["base", "hand"]
        pos = torch.arange(N * 3, dtype=torch.float).reshape(N, 3) / 10.0
        self.data = SimpleNamespace(joint_pos=Field(pos), joint_vel=Field(torch.zeros(N, 3)))


class Scene:
    def __init__(self, **entities):
        self._entities = entities

    def keys(self):
        return self._entities.keys()

    def __getitem__(self, name):
        return self._entities[name]


class Env:
    def __init__(self):
        self.num_envs = N
        self.device = "cpu"
        self.scene = Scene(robot=Asset())
        self.physics_dt = 0.005
        self.step_dt = 0.02
        self.max_episode_length_s = 1.0
        self.max_episode_length = 50
        self.episode_length_buf = torch.zeros(N, dtype=torch.long)
        self.common_step_counter = 0
        self.cfg = SimpleNamespace()


@pytest.fixture
def env() -> Env:
    return Env()


# ---------------------------------------------------------------------------------------------- terms
ROBOT = SceneEntityCfg("robot")  # every joint of the robot (the default of the terms below)


def joint_pos(env, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    return env.scene[asset_cfg.name].data.joint_pos.torch[:, asset_cfg.joint_ids]


def constant(env, value: float, width: int = 2) -> torch.Tensor:
    return torch.full((env.num_envs, width), float(value))


def step_value(env) -> torch.Tensor:
    """``10 * env_index + common_step_counter``, ``[num_envs, 1]``: distinct per env and per step."""
    return (torch.arange(env.num_envs, dtype=torch.float) * 10 + env.common_step_counter)[:, None]


def image(env, fill: float = 1.0) -> torch.Tensor:
    return torch.full((env.num_envs, 2, 3), fill)


def joint_sum(env, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    return joint_pos(env, asset_cfg).sum(dim=1)


def time_out(env) -> torch.Tensor:
    return env.episode_length_buf >= env.max_episode_length


def joint_above(env, limit: float, asset_cfg: SceneEntityCfg = ROBOT) -> torch.Tensor:
    return joint_pos(env, asset_cfg)[:, 0] > limit


class CountingTerm(ManagerTermBase):
    """A class term: counts its calls per env; reset clears the count of the given envs."""

    def __init__(self, cfg, env):
        super().__init__(cfg, env)
        self.count = torch.zeros(env.num_envs, 1)
        self.resets: list = []

    def reset(self, env_ids=None):
        self.resets.append(env_ids)
        self.count[slice(None) if env_ids is None else env_ids] = 0

    def __call__(self, env):
        self.count += 1
        return self.count.clone()


# ---------------------------------------------------------------------------------------------- noise
def test_constant_noise_operations_are_exact():
    data = torch.tensor([[1.0, -2.0]])
    assert torch.equal(constant_noise(data, ConstantNoiseCfg(bias=0.5)), torch.tensor([[1.5, -1.5]]))
    assert torch.equal(constant_noise(data, ConstantNoiseCfg(bias=2.0, operation="scale")), torch.tensor([[2.0, -4.0]]))
    assert torch.equal(constant_noise(data, ConstantNoiseCfg(bias=3.0, operation="abs")), torch.full((1, 2), 3.0))


def test_uniform_and_gaussian_noise_draw_from_the_seeded_global_rng():
    data = torch.zeros(200_000, 1)
    torch.manual_seed(7)
    uni = uniform_noise(data, UniformNoiseCfg(n_min=-0.5, n_max=1.5))
    torch.manual_seed(7)
    assert torch.equal(uni, torch.rand_like(data) * 2.0 - 0.5)  # the same draw, replayed by hand
    assert uni.min() >= -0.5 and uni.max() < 1.5
    assert abs(uni.mean().item() - 0.5) < 0.01 and abs(uni.var().item() - 4.0 / 12.0) < 0.01
    torch.manual_seed(3)
    gauss = gaussian_noise(data + 1.0, GaussianNoiseCfg(mean=0.2, std=0.3))
    torch.manual_seed(3)
    assert torch.equal(gauss, data + 1.0 + 0.2 + 0.3 * torch.randn_like(data))
    assert abs(gauss.mean().item() - 1.2) < 0.005 and abs(gauss.std().item() - 0.3) < 0.005
    scaled = gaussian_noise(torch.full((100_000, 1), 2.0), GaussianNoiseCfg(mean=1.0, std=0.1, operation="scale"))
    assert abs(scaled.mean().item() - 2.0) < 0.005 and abs(scaled.std().item() - 0.2) < 0.005


@pytest.mark.parametrize(
    ("cfg", "error", "match"),
    [
        (GaussianNoiseCfg(operation="mul"), ValueError, r"noise\.operation must be one of"),
        (UniformNoiseCfg(n_min=1.0, n_max=0.0), ValueError, r"n_min \(1\.0\) must not exceed n_max"),
        (GaussianNoiseCfg(std=-0.1), ValueError, r"noise\.std must be >= 0"),
        (ConstantNoiseCfg(bias=math.nan), ValueError, r"noise\.bias must be finite"),
        (GaussianNoiseCfg(mean="0"), TypeError, r"noise\.mean must be a real number"),
        (NoiseModelWithAdditiveBiasCfg(noise_cfg=GaussianNoiseCfg()), TypeError, r"noise\.bias_noise_cfg must be a"),
    ],
)
def test_noise_cfg_values_are_checked(cfg, error, match):
    with pytest.raises(error, match=match):
        check_noise_cfg(cfg, "noise")


def test_noise_function_refuses_an_unknown_operation():
    with pytest.raises(ValueError, match="uniform_noise: unknown operation 'mul'"):
        uniform_noise(torch.zeros(2, 1), UniformNoiseCfg(operation="mul"))


# ---------------------------------------------------------------------------------------------- history buffer
def test_circular_buffer_keeps_the_last_values_oldest_first_and_refills_after_reset():
    buf = CircularBuffer(max_len=3, batch_size=2, device="cpu")
    for value in (1.0, 2.0, 3.0, 4.0):
        buf.append(torch.full((2, 1), value))
    assert buf.buffer[:, :, 0].tolist() == [[2.0, 3.0, 4.0]] * 2
    assert buf[torch.tensor([0, 2])][:, 0].tolist() == [4.0, 2.0]  # LIFO index
    buf.reset([1])
    assert buf.buffer[1].abs().sum() == 0 and buf.current_length.tolist() == [3, 0]
    buf.append(torch.full((2, 1), 5.0))
    assert buf.buffer[:, :, 0].tolist() == [[3.0, 4.0, 5.0], [5.0, 5.0, 5.0]]


# ---------------------------------------------------------------------------------------------- observations
def test_group_concatenates_its_terms_in_order(env):
    @configclass
    class PolicyCfg(ObservationGroupCfg):
        all_joints: ObservationTermCfg = ObservationTermCfg(func=joint_pos)
        elbow: ObservationTermCfg = ObservationTermCfg(
            func=joint_pos, params={"asset_cfg": SceneEntityCfg("robot", joint_names=["elbow"])}
        )
        off: ObservationTermCfg | None = None  # switched off: no term

    @configclass
    class ObsCfg:
        policy: PolicyCfg = PolicyCfg()

    cfg = ObsCfg()
    manager = ObservationManager(cfg, env)
    pos = env.scene["robot"].data.joint_pos.torch
    obs = manager.compute()
    assert torch.equal(obs["policy"], torch.cat([pos, pos[:, 1:2]], dim=1))
    assert manager.active_terms == {"policy": ["all_joints", "elbow"]}
    assert manager.group_obs_dim == {"policy": (4,)}
    assert manager.group_obs_term_dim == {"policy": [(3,), (1,)]}
    assert manager.group_obs_concatenate == {"policy": True}
    assert manager.get_active_iterable_terms(2) == [
        ("policy-all_joints", pos[2].tolist()),
        ("policy-elbow", [pos[2, 1].item()]),
    ]
    # the caller's config is not changed: the ids were resolved in the manager's copy
    assert cfg.policy.elbow.params["asset_cfg"].joint_ids == slice(None)
    assert manager.cfg.policy.elbow.params["asset_cfg"].joint_ids == [1]


def test_dict_group_and_concatenate_dim(env):
    @configclass
    class DictCfg(ObservationGroupCfg):
        a: ObservationTermCfg = ObservationTermCfg(func=constant, params={"value": 1.0})
        b: ObservationTermCfg = ObservationTermCfg(func=constant, params={"value": 2.0, "width": 3})
        concatenate_terms: bool = False

    @configclass
    class ImagesCfg(ObservationGroupCfg):
        left: ObservationTermCfg = ObservationTermCfg(func=image, params={"fill": 1.0})
        right: ObservationTermCfg = ObservationTermCfg(func=image, params={"fill": 2.0})
        concatenate_dim: int = 0  # the first dimension of the terms' own shape [2, 3]

    manager = ObservationManager({"dict": DictCfg(), "images": ImagesCfg(), "last": ImagesCfg(concatenate_dim=-1)}, env)
    obs = manager.compute()
    assert set(obs["dict"]) == {"a", "b"}
    assert torch.equal(obs["dict"]["b"], torch.full((N, 3), 2.0))
    assert manager.group_obs_dim["dict"] == [(2,), (3,)]
    assert obs["images"].shape == (N, 4, 3) and manager.group_obs_dim["images"] == (4, 3)
    assert torch.equal(obs["images"][:, 2:], torch.full((N, 2, 3), 2.0))
    assert obs["last"].shape == (N, 2, 6) and manager.group_obs_dim["last"] == (2, 6)
    with pytest.raises(ValueError, match="no observation group 'nope'"):
        manager.compute_group("nope")
    with pytest.raises(ValueError, match="no observation group 'nope'"):
        manager.term_columns("nope")
    with pytest.raises(ValueError, match=r"group 'images' is not one row of columns .* term shapes \[\(2, 3\)"):
        manager.term_columns("images")  # concatenated, but the terms' values are not contiguous columns


def test_flat_term_columns_lays_terms_end_to_end_and_refuses_mismatched_lists():
    assert flat_term_columns(["a", "points", "b"], [(1,), (3, 2), (3,)]) == {
        "a": range(0, 1),
        "points": range(1, 7),
        "b": range(7, 10),
    }
    assert flat_term_columns([], []) == {}
    for names, dims in ((["a"], [(1,), (2,)]), (["a", "a"], [(1,), (2,)])):
        with pytest.raises(ValueError, match="one each, names unique"):
            flat_term_columns(names, dims)


def test_term_pipeline_order_is_modifiers_noise_clip_scale(env):
    def minus(data, amount):
        return data - amount

    terms = {
        # 5 -4.5 (modifier) = 0.5, clip [-1, 1] keeps it, scale 2 -> 1.0 (scaling first would clip 1.0 -> 1.0)
        "modified": ObservationTermCfg(
            func=constant,
            params={"value": 5.0},
            modifiers=[SimpleNamespace(func=minus, params={"amount": 4.5})],
            clip=(-1.0, 1.0),
            scale=2.0,
        ),
        # 5 clipped to 1, then scaled by 2 -> 2 (scale-then-clip would give 1)
        "clipped": ObservationTermCfg(func=constant, params={"value": 5.0}, clip=(-1.0, 1.0), scale=2.0),
        # noise before clip: 1 + 1 = 2 -> clip 1.5 -> x2 = 3
        "noisy": ObservationTermCfg(
            func=constant, params={"value": 1.0}, noise=ConstantNoiseCfg(bias=1.0), clip=(-1.0, 1.5), scale=2.0
        ),
        "per_dim": ObservationTermCfg(func=constant, params={"value": 3.0}, scale=(1.0, -2.0)),
    }

    @configclass
    class Corrupted(ObservationGroupCfg):
        enable_corruption: bool = True

    @configclass
    class Clean(ObservationGroupCfg):
        enable_corruption: bool = False

    corrupted, clean = Corrupted(), Clean()
    for name, term in terms.items():
        setattr(corrupted, name, term)
        setattr(clean, name, term)
    manager = ObservationManager({"corrupted": corrupted, "clean": clean}, env)
    obs = manager.compute()
    row = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, -6.0]
    assert obs["corrupted"].tolist() == [row] * N
    row_clean = [*row[:4], 2.0, 2.0, *row[6:]]  # no noise: 1 -> clip 1 -> x2 = 2
    assert obs["clean"].tolist() == [row_clean] * N


def test_gaussian_noise_in_a_corrupted_group_replays_by_hand(env):
    @configclass
    class Noisy(ObservationGroupCfg):
        pos: ObservationTermCfg = ObservationTermCfg(func=joint_pos, noise=GaussianNoiseCfg(mean=0.0, std=0.05))
        enable_corruption: bool = True

    manager = ObservationManager({"policy": Noisy()}, env)
    torch.manual_seed(11)
    obs = manager.compute()["policy"]
    torch.manual_seed(11)
    pos = env.scene["robot"].data.joint_pos.torch
    assert torch.equal(obs, pos + 0.0 + 0.05 * torch.randn_like(pos))


def test_noise_model_with_additive_bias_draws_its_bias_at_resets(env):
    @configclass
    class Biased(ObservationGroupCfg):
        value: ObservationTermCfg = ObservationTermCfg(
            func=constant,
            params={"value": 1.0},
            noise=NoiseModelWithAdditiveBiasCfg(
                noise_cfg=ConstantNoiseCfg(bias=0.0), bias_noise_cfg=ConstantNoiseCfg(bias=0.25)
            ),
        )
        enable_corruption: bool = True

    manager = ObservationManager({"policy": Biased()}, env)
    assert manager.compute()["policy"].tolist() == [[1.0, 1.0]] * N  # no bias before the first reset
    manager.reset()
    assert manager.compute()["policy"].tolist() == [[1.25, 1.25]] * N
    manager.reset(env_ids=[2])  # "add": the new draw adds onto the previous bias (Isaac Lab's rule)
    assert manager.compute()["policy"][:, 0].tolist() == [1.25, 1.25, 1.5, 1.25]


def test_history_shapes_and_contents_after_steps(env):
    @configclass
    class HistCfg(ObservationGroupCfg):
        value: ObservationTermCfg = ObservationTermCfg(func=step_value, history_length=5)  # group overrides: 3
        width: ObservationTermCfg = ObservationTermCfg(func=constant, params={"value": -1.0})
        history_length: int = 3

    @configclass
    class StackCfg(ObservationGroupCfg):
        value: ObservationTermCfg = ObservationTermCfg(func=step_value, history_length=2, flatten_history_dim=False)
        concatenate_terms: bool = False

    manager = ObservationManager({"hist": HistCfg(), "stack": StackCfg()}, env)
    assert manager.group_obs_term_dim == {"hist": [(3,), (6,)], "stack": [(2, 1)]}
    assert manager.group_obs_dim["hist"] == (9,)
    assert manager.term_columns("hist") == {"value": range(0, 3), "width": range(3, 9)}  # history included
    with pytest.raises(ValueError, match=r"group 'stack' is not one row of columns \(concatenate_terms=False"):
        manager.term_columns("stack")

    def expected(steps_per_env):
        return torch.tensor([[10.0 * e + s for s in steps] for e, steps in enumerate(steps_per_env)])

    env.common_step_counter = 1
    before = manager.compute()  # nothing pushed yet: the current value fills the history, nothing is stored
    assert torch.equal(before["hist"][:, :3], expected([[1, 1, 1]] * N))
    env.common_step_counter = 7
    assert torch.equal(manager.compute()["hist"][:, :3], expected([[7, 7, 7]] * N))
    for step in (1, 2, 3, 4):
        env.common_step_counter = step
        obs = manager.compute(update_history=True)
    assert torch.equal(obs["hist"][:, :3], expected([[2, 3, 4]] * N))  # oldest first
    assert torch.equal(obs["hist"][:, 3:], torch.full((N, 6), -1.0))
    assert obs["stack"]["value"].shape == (N, 2, 1)
    assert torch.equal(obs["stack"]["value"][:, :, 0], expected([[3, 4]] * N))
    env.common_step_counter = 5
    assert torch.equal(manager.compute()["hist"][:, :3], expected([[2, 3, 4]] * N))  # read, not pushed
    kept = manager.compute()["stack"]["value"].clone()

    manager.reset(env_ids=[1])
    assert manager.compute()["hist"][1, :3].tolist() == [0.0, 0.0, 0.0]  # cleared until the next push
    env.common_step_counter = 6
    obs = manager.compute(update_history=True)
    assert torch.equal(obs["hist"][:, :3], expected([[3, 4, 6], [6, 6, 6], [3, 4, 6], [3, 4, 6]]))
    assert torch.equal(kept[:, :, 0], expected([[3, 4]] * N))  # an earlier result is not a view of the history


def test_class_terms_are_reset_at_build_and_with_the_env(env):
    @configclass
    class Grp(ObservationGroupCfg):
        count: ObservationTermCfg = ObservationTermCfg(func=CountingTerm)

    manager = ObservationManager({"policy": Grp()}, env)
    term = manager.cfg["policy"].count.func
    assert isinstance(term, CountingTerm) and term.resets == [None]  # the trial call is undone
    assert manager.compute()["policy"][:, 0].tolist() == [1.0] * N
    manager.compute()
    manager.reset(env_ids=[0, 3])
    assert term.resets[-1] == [0, 3]
    assert manager.compute()["policy"][:, 0].tolist() == [1.0, 3.0, 3.0, 1.0]


def test_isaac_lab_style_unannotated_terms_are_found(env):
    @configclass
    class PolicyCfg(ObservationGroupCfg):
        joints = ObservationTermCfg(func=joint_pos)
        scaled = ObservationTermCfg(func=constant, params={"value": 1.0}, scale=3.0)

        def __post_init__(self):
            self.concatenate_terms = True

    @configclass
    class ObsCfg:
        policy: PolicyCfg = PolicyCfg()

    cfg = ObsCfg()
    manager = ObservationManager(cfg, env)
    assert manager.active_terms == {"policy": ["joints", "scaled"]}
    assert manager.compute()["policy"][:, 3:].tolist() == [[3.0, 3.0]] * N
    assert cfg.policy.scaled.scale == 3.0 and PolicyCfg().scaled.scale == 3.0  # resolved in the manager's copy


def _policy(**terms):
    @configclass
    class Grp(ObservationGroupCfg):
        pass

    grp = Grp()
    for name, term in terms.items():
        setattr(grp, name, term)
    return {"policy": grp}


@pytest.mark.parametrize(
    ("terms", "error", "match"),
    [
        (
            {"pos": ObservationTermCfg(func=joint_pos, params={"asset_cfg": SceneEntityCfg("arm")})},
            KeyError,
            r"ObservationManager term 'policy/pos'.*the scene has no entity 'arm'",
        ),
        (
            {
                "pos": ObservationTermCfg(
                    func=joint_pos, params={"asset_cfg": SceneEntityCfg("robot", joint_names="hip.*")}
                )
            },
            ValueError,
            r"'policy/pos'.*joint_names: the pattern 'hip\.\*' matches none",
        ),
        (
            {"bad": ObservationTermCfg(func=lambda env: torch.zeros(env.num_envs + 1, 3))},
            ValueError,
            r"'policy/bad': must return a tensor of \[num_envs = 4, \.\.\.\], got shape \[5, 3\]",
        ),
        ({"bad": ObservationTermCfg(func=lambda env: [0.0] * 4)}, TypeError, r"'policy/bad': must return a torch"),
        ({"c": ObservationTermCfg(func=constant)}, TypeError, r"'policy/c': missing parameter\(s\) \['value'\]"),
        (
            {"c": ObservationTermCfg(func=constant, params={"value": 1.0, "gain": 2.0})},
            TypeError,
            r"'policy/c': unknown parameter\(s\) \['gain'\]",
        ),
        ({"oops": 3.0}, TypeError, r"group 'policy': field 'oops' is a float, neither an ObservationTermCfg"),
        (
            {"c": ObservationTermCfg(func=constant, params={"value": 1.0}, scale=math.nan)},
            ValueError,
            r"'policy/c': scale must be finite",
        ),
        (
            {"c": ObservationTermCfg(func=constant, params={"value": 1.0}, clip=(-1.0, math.inf))},
            ValueError,
            r"'policy/c': clip\[1\] must be finite",
        ),
        (
            {"c": ObservationTermCfg(func=constant, params={"value": 1.0}, scale=(1.0, 2.0, 3.0))},
            ValueError,
            r"'policy/c': scale has 3 factors, the observation's last dimension has 2",
        ),
        (
            {"a": ObservationTermCfg(func=image), "b": ObservationTermCfg(func=constant, params={"value": 1.0})},
            RuntimeError,
            r"group 'policy': cannot concatenate terms of shapes \{'a': \(2, 3\), 'b': \(2,\)\}",
        ),
        (
            {"c": ObservationTermCfg(func=constant, params={"value": 1.0}, history_length=-1)},
            ValueError,
            r"'policy/c': history_length must be an int >= 0",
        ),
    ],
    ids=[
        "unknown-asset",
        "regex-matches-nothing",
        "wrong-shape",
        "not-a-tensor",
        "missing-param",
        "unknown-param",
        "non-term-field",
        "nan-scale",
        "inf-clip",
        "scale-length",
        "incompatible-concatenation",
        "negative-history",
    ],
)
def test_hostile_observation_configs_are_refused_at_build(env, terms, error, match):
    with pytest.raises(error, match=match):
        ObservationManager(_policy(**terms), env)


def test_a_group_that_is_not_a_group_cfg_is_refused(env):
    with pytest.raises(TypeError, match="ObservationManager group 'policy': expected an ObservationGroupCfg"):
        ObservationManager({"policy": ObservationTermCfg(func=joint_pos)}, env)
    with pytest.raises(ValueError, match="observations config is None"):
        ObservationManager(None, env)


# ---------------------------------------------------------------------------------------------- rewards
class CallCount:
    def __init__(self):
        self.calls = 0

    def __call__(self, env) -> torch.Tensor:
        self.calls += 1
        return torch.ones(env.num_envs)


def alive(env) -> torch.Tensor:
    return torch.full((env.num_envs,), 1.5)


def test_reward_sum_over_three_steps(env):
    zero = CallCount()
    manager = RewardManager(
        {
            "alive": RewardTermCfg(func=alive, weight=2.0),
            "posture": RewardTermCfg(func=joint_sum, weight=-0.5),
            "off": RewardTermCfg(func=zero, weight=0.0),
        },
        env,
    )
    assert manager.active_terms == ["alive", "posture", "off"]
    pos = env.scene["robot"].data.joint_pos.torch
    dt = env.step_dt
    sums = torch.zeros(N)
    posture_sum = torch.zeros(N)
    for step in range(3):
        pos += 0.1 * (step + 1)
        reward = manager.compute(dt=dt)
        by_hand = 2.0 * 1.5 * dt + (-0.5) * pos.sum(dim=1) * dt
        assert torch.allclose(reward, by_hand, atol=1e-6)
        sums += by_hand
        posture_sum += -0.5 * pos.sum(dim=1) * dt
    assert manager.get_term_cfg("off").func.calls == 1  # weight 0: the trial call at build only (on the copy)
    assert torch.allclose(manager._episode_sums["alive"], torch.full((N,), 3 * 2.0 * 1.5 * dt))
    assert torch.allclose(manager._episode_sums["posture"], posture_sum, atol=1e-6)
    assert torch.allclose(manager._step_reward[:, 1], -0.5 * pos.sum(dim=1), atol=1e-5)
    assert manager._step_reward[:, 2].abs().sum() == 0
    assert manager.get_active_iterable_terms(0)[0] == ("alive", [pytest.approx(3.0)])

    logs = manager.reset(env_ids=[0, 2])
    assert logs["Episode_Reward/alive"].item() == pytest.approx(3 * 2.0 * 1.5 * dt / env.max_episode_length_s)
    assert logs["Episode_Reward/posture"].item() == pytest.approx(posture_sum[[0, 2]].mean().item(), abs=1e-6)
    assert logs["Episode_Reward/off"].item() == 0.0
    assert manager._episode_sums["alive"][[0, 2]].abs().sum() == 0
    assert torch.allclose(manager._episode_sums["alive"][[1, 3]], torch.full((2,), 3 * 2.0 * 1.5 * dt))


def test_weight_times_dt_of_one_keeps_the_term_value_bitwise(env):
    values = torch.rand(N) * 1e3 - 500.0

    def noisy(env):
        return values.clone()

    manager = RewardManager({"r": RewardTermCfg(func=noisy, weight=50.0)}, env)
    assert torch.equal(manager.compute(dt=0.02), values)  # 50 * 0.02 == 1.0 exactly


def test_curricula_change_weights_through_set_term_cfg(env):
    manager = RewardManager({"alive": RewardTermCfg(func=alive, weight=1.0)}, env)
    term_cfg = manager.get_term_cfg("alive")
    term_cfg.weight = 4.0
    manager.set_term_cfg("alive", term_cfg)
    assert torch.allclose(manager.compute(dt=0.5), torch.full((N,), 1.5 * 4.0 * 0.5))
    term_cfg = manager.get_term_cfg("alive").replace(weight=math.nan)
    with pytest.raises(ValueError, match="RewardManager term 'alive': weight must be finite"):
        manager.set_term_cfg("alive", term_cfg)
    with pytest.raises(ValueError, match=r"no reward term 'live'; the terms are \['alive'\]"):
        manager.get_term_cfg("live")
    with pytest.raises(ValueError, match="dt must be a positive finite step"):
        manager.compute(dt=0.0)


@pytest.mark.parametrize(
    ("term", "error", "match"),
    [
        (RewardTermCfg(func=alive, weight=math.nan), ValueError, r"RewardManager term 'r': weight must be finite"),
        (RewardTermCfg(func=alive, weight="1"), TypeError, r"'r': weight must be a real number"),
        (RewardTermCfg(func=alive), TypeError, r"'r': weight must be a real number"),
        (RewardTermCfg(func=step_value, weight=1.0), ValueError, r"'r': must return a tensor of shape \[num_envs\]"),
        (
            RewardTermCfg(func=lambda env: torch.ones(env.num_envs, dtype=torch.long), weight=1.0),
            TypeError,
            r"'r': must return a floating-point tensor, got torch.int64",
        ),
        (RewardTermCfg(func=joint_above, weight=1.0), TypeError, r"'r': missing parameter\(s\) \['limit'\]"),
        (
            RewardTermCfg(func=alive, params={"scale": 2.0}, weight=1.0),
            TypeError,
            r"'r': unknown parameter\(s\) \['scale'\]",
        ),
        (
            RewardTermCfg(func=joint_sum, params={"asset_cfg": SceneEntityCfg("arm")}, weight=1.0),
            KeyError,
            r"'r': params\['asset_cfg'\]: the scene has no entity 'arm'",
        ),
    ],
    ids=["nan-weight", "str-weight", "missing-weight", "wrong-shape", "int-dtype", "missing", "unknown", "asset"],
)
def test_hostile_reward_configs_are_refused_at_build(env, term, error, match):
    with pytest.raises(error, match=match):
        RewardManager({"r": term}, env)


# ---------------------------------------------------------------------------------------------- terminations
def test_time_outs_and_terminations_are_kept_apart(env):
    manager = TerminationManager(
        {
            "time_out": TerminationTermCfg(func=time_out, time_out=True),
            "overstretched": TerminationTermCfg(func=joint_above, params={"limit": 1.0}),
        },
        env,
    )
    pos = env.scene["robot"].data.joint_pos.torch
    pos[:, 0] = torch.tensor([0.0, 2.0, 0.0, 2.0])
    env.episode_length_buf[:] = torch.tensor([50, 0, 0, 50])
    dones = manager.compute()
    assert manager.time_outs.tolist() == [True, False, False, True]
    assert manager.terminated.tolist() == [False, True, False, True]
    assert dones.tolist() == manager.dones.tolist() == [True, True, False, True]
    assert manager.get_term("overstretched").tolist() == [False, True, False, True]
    assert manager.get_active_iterable_terms(3) == [("time_out", [1.0]), ("overstretched", [1.0])]
    # Isaac Lab's statistic: per env, the terms that ended its last episode; fraction over all envs
    assert manager.reset(env_ids=[0, 1, 3]) == {
        "Episode_Termination/time_out": 0.5,
        "Episode_Termination/overstretched": 0.5,
    }
    env.episode_length_buf[:] = 0
    pos[:, 0] = 0.0
    assert not manager.compute().any()  # nothing ends: the last episodes' causes are kept
    assert manager.reset()["Episode_Termination/time_out"] == 0.5
    pos[0, 0] = 5.0
    manager.compute()
    assert manager.reset(env_ids=[0]) == {
        "Episode_Termination/time_out": 0.25,
        "Episode_Termination/overstretched": 0.75,
    }
    with pytest.raises(KeyError, match="no termination term 'fall'"):
        manager.get_term("fall")


@pytest.mark.parametrize(
    ("term", "error", "match"),
    [
        (TerminationTermCfg(func=alive), TypeError, r"TerminationManager term 't': must return a bool tensor"),
        (
            TerminationTermCfg(func=lambda env: torch.zeros(env.num_envs, 1, dtype=torch.bool)),
            ValueError,
            r"'t': must return a tensor of shape \[num_envs\] = \[4\], got \[4, 1\]",
        ),
        (TerminationTermCfg(func=time_out, time_out=1), TypeError, r"'t': time_out must be a bool"),
        (TerminationTermCfg(func=joint_above), TypeError, r"'t': missing parameter\(s\) \['limit'\]"),
    ],
    ids=["float", "shape", "time-out-flag", "missing-param"],
)
def test_hostile_termination_configs_are_refused_at_build(env, term, error, match):
    with pytest.raises(error, match=match):
        TerminationManager({"t": term}, env)


# ---------------------------------------------------------------------------------------------- curricula
def raise_alive_weight(env, env_ids, step: float) -> float:
    term_cfg = env.reward_manager.get_term_cfg("alive")
    term_cfg.weight += step
    env.reward_manager.set_term_cfg("alive", term_cfg)
    return term_cfg.weight


def level(env, env_ids) -> dict:
    return {"level": torch.tensor(float(len(env_ids))), "ratio": 0.5}


def silent(env, env_ids) -> None:
    return None


def spread(env, env_ids) -> torch.Tensor:
    return torch.zeros(2)


def test_curriculum_terms_run_at_resets_and_their_returns_are_logged(env):
    env.reward_manager = RewardManager({"alive": RewardTermCfg(func=alive, weight=1.0)}, env)
    manager = CurriculumManager(
        {
            "weight": CurriculumTermCfg(func=raise_alive_weight, params={"step": 0.5}),
            "level": CurriculumTermCfg(func=level),
            "silent": CurriculumTermCfg(func=silent),
        },
        env,
    )
    assert manager.reset() == {}  # nothing computed yet
    manager.compute(env_ids=[1, 2, 3])
    manager.compute(env_ids=[0, 2])
    logs = manager.reset(env_ids=[0, 2])
    assert logs == {"Curriculum/weight": 2.0, "Curriculum/level/level": 2.0, "Curriculum/level/ratio": 0.5}
    assert isinstance(logs["Curriculum/level/level"], float)
    assert torch.allclose(env.reward_manager.compute(dt=1.0), torch.full((N,), 1.5 * 2.0))
    assert manager.active_terms == ["weight", "level", "silent"]


def test_curriculum_term_without_env_ids_is_refused(env):
    with pytest.raises(TypeError, match=r"CurriculumManager term 'c': the function must take at least 2 positional"):
        CurriculumManager({"c": CurriculumTermCfg(func=alive)}, env)
    with pytest.raises(TypeError, match=r"CurriculumManager term 'c': expected a CurriculumTermCfg"):
        CurriculumManager({"c": RewardTermCfg(func=alive, weight=1.0)}, env)


def test_curriculum_state_that_is_not_a_number_is_refused_when_logged(env):
    manager = CurriculumManager({"spread": CurriculumTermCfg(func=spread)}, env)
    manager.compute()
    with pytest.raises(ValueError, match=r"CurriculumManager term 'spread': returned a tensor of shape \[2\]"):
        manager.reset()
