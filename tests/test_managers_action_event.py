"""The action, event, command and recorder managers against expectations computed by hand.

The managers are pure logic over torch tensors, so they run here on a small stand-in env (plain attributes, a
dict scene, assets with joint names): no simulation is involved.
"""

from __future__ import annotations

import logging
import math
from types import SimpleNamespace

import pytest
import torch

from isaaclab_contrib.managers import (
    ActionManager,
    ActionTerm,
    ActionTermCfg,
    CommandManager,
    CommandTerm,
    CommandTermCfg,
    DatasetExportMode,
    EventManager,
    EventTermCfg,
    ManagerTermBase,
    RecorderManager,
    RecorderManagerBaseCfg,
    RecorderTerm,
    RecorderTermCfg,
    SceneEntityCfg,
)
from isaaclab_contrib.utils.configclass import configclass

# ---------------------------------------------------------------------------------------------- stand-in env


class FakeAsset:
    """An asset with joints; ``targets`` receives what the action terms write."""

    def __init__(self, joint_names):
        self.joint_names = list(joint_names)
        self.body_names = ["base", "hand"]
        self.targets = None
        self.forces = None


class FakeEnv:
    """The env contract the managers rely on, as plain attributes."""

    def __init__(self, num_envs: int = 3):
        self.num_envs = num_envs
        self.device = "cpu"
        self.scene = {"robot": FakeAsset(["j0", "j1", "j2", "finger_l", "finger_r"])}
        self.step_dt = 0.05
        self.physics_dt = 0.01
        self.episode_length_buf = torch.zeros(num_envs, dtype=torch.long)
        self.max_episode_length = 100
        self.common_step_counter = 0
        self.cfg = SimpleNamespace(seed=42)


# ---------------------------------------------------------------------------------------------- action terms


class JointTargetAction(ActionTerm):
    """targets = clip(raw * scale) for the joints matched by ``cfg.joint_names``."""

    def __init__(self, cfg, env):
        super().__init__(cfg, env)
        self._joint_ids = [i for i, n in enumerate(self._asset.joint_names) if n in cfg.joint_names]
        self._raw = torch.zeros(self.num_envs, len(self._joint_ids))
        self._processed = torch.zeros_like(self._raw)
        self._resolve_clip(cfg.joint_names)
        self.reset_calls = []
        self.apply_calls = 0

    @property
    def action_dim(self):
        return len(self._joint_ids)

    @property
    def raw_actions(self):
        return self._raw

    @property
    def processed_actions(self):
        return self._processed

    def process_actions(self, actions):
        self._raw[:] = actions
        self._processed[:] = self._apply_clip(actions * self.cfg.scale)

    def apply_actions(self):
        self.apply_calls += 1
        self._asset.targets = self._processed.clone()

    def reset(self, env_ids=None):
        self.reset_calls.append(env_ids)
        self._raw[env_ids] = 0.0


@configclass
class JointTargetActionCfg(ActionTermCfg):
    class_type: type = JointTargetAction
    joint_names: list = []
    scale: float = 1.0


class ForceAction(JointTargetAction):
    """A term applied inside every physics step."""

    apply_in_physics_step = True

    def apply_actions(self):
        self.apply_calls += 1
        self._asset.forces = self._processed.clone()


@configclass
class ForceActionCfg(JointTargetActionCfg):
    class_type: type = ForceAction


@configclass
class ArmGripperActionsCfg:
    arm: JointTargetActionCfg = JointTargetActionCfg(asset_name="robot", joint_names=["j0", "j1", "j2"], scale=2.0)
    gripper: ForceActionCfg = ForceActionCfg(asset_name="robot", joint_names=["finger_l", "finger_r"])
    unused: JointTargetActionCfg | None = None


def test_action_split_among_terms_in_field_order():
    env = FakeEnv(2)
    manager = ActionManager(ArmGripperActionsCfg(), env)
    assert manager.active_terms == ["arm", "gripper"]
    assert manager.action_term_dim == [3, 2]
    assert manager.total_action_dim == 5
    action = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0]])
    manager.process_action(action)
    arm, gripper = manager.get_term("arm"), manager.get_term("gripper")
    assert torch.equal(arm.raw_actions, torch.tensor([[1.0, 2.0, 3.0], [6.0, 7.0, 8.0]]))
    assert torch.equal(arm.processed_actions, torch.tensor([[2.0, 4.0, 6.0], [12.0, 14.0, 16.0]]))  # scale 2
    assert torch.equal(gripper.raw_actions, torch.tensor([[4.0, 5.0], [9.0, 10.0]]))
    assert manager.get_active_iterable_terms(1) == [("arm", [6.0, 7.0, 8.0]), ("gripper", [9.0, 10.0])]


def test_action_prev_action_and_reset():
    env = FakeEnv(2)
    manager = ActionManager(ArmGripperActionsCfg(), env)
    first = torch.arange(10, dtype=torch.float32).reshape(2, 5)
    second = first + 100.0
    manager.process_action(first)
    assert torch.equal(manager.action, first) and torch.equal(manager.prev_action, torch.zeros(2, 5))
    manager.process_action(second)
    assert torch.equal(manager.action, second) and torch.equal(manager.prev_action, first)
    assert manager.reset(torch.tensor([1])) == {}
    assert torch.equal(manager.action[0], second[0]) and torch.equal(manager.action[1], torch.zeros(5))
    assert torch.equal(manager.prev_action[0], first[0]) and torch.equal(manager.prev_action[1], torch.zeros(5))
    assert torch.equal(manager.get_term("arm").reset_calls[-1], torch.tensor([1]))
    manager.reset()
    assert manager.get_term("gripper").reset_calls[-1] == slice(None)
    assert not manager.action.any() and not manager.prev_action.any()


def test_action_clip_per_dimension():
    @configclass
    class Cfg:
        arm: JointTargetActionCfg = JointTargetActionCfg(
            asset_name="robot", joint_names=["j0", "j1", "j2"], clip={"j0": (-0.5, 0.5), "j[12]": (0.0, 1.0)}
        )

    manager = ActionManager(Cfg(), FakeEnv(2))
    manager.process_action(torch.tensor([[-2.0, -2.0, 0.25], [0.3, 5.0, 0.75]]))
    # j0 in [-0.5, 0.5], j1 and j2 in [0, 1]
    assert torch.equal(manager.get_term("arm").processed_actions, torch.tensor([[-0.5, 0.0, 0.25], [0.3, 1.0, 0.75]]))
    # the raw action is kept unclipped
    assert torch.equal(manager.action, torch.tensor([[-2.0, -2.0, 0.25], [0.3, 5.0, 0.75]]))


def test_action_apply_once_per_env_step_and_in_physics_step():
    env = FakeEnv(2)
    manager = ActionManager(ArmGripperActionsCfg(), env)
    assert manager.has_physics_step_terms
    manager.process_action(torch.ones(2, 5))
    manager.apply_action()
    arm, gripper = manager.get_term("arm"), manager.get_term("gripper")
    assert (arm.apply_calls, gripper.apply_calls) == (1, 0)
    assert torch.equal(env.scene["robot"].targets, torch.full((2, 3), 2.0)) and env.scene["robot"].forces is None
    for _ in range(4):  # decimation 4: the env runs this inside every physics step of the program
        manager.apply_action_in_physics_step()
    assert (arm.apply_calls, gripper.apply_calls) == (1, 4)
    assert torch.equal(env.scene["robot"].forces, torch.ones(2, 2))

    @configclass
    class Cfg:
        arm: JointTargetActionCfg = JointTargetActionCfg(asset_name="robot", joint_names=["j0"])

    assert not ActionManager(Cfg(), env).has_physics_step_terms


def test_action_refuses_unknown_asset_bad_type_and_bad_clip():
    env = FakeEnv(2)

    @configclass
    class UnknownAsset:
        arm: JointTargetActionCfg = JointTargetActionCfg(asset_name="robt", joint_names=["j0"])

    with pytest.raises(KeyError, match=r"ActionManager term 'arm': asset_name 'robt' .*\['robot'\]"):
        ActionManager(UnknownAsset(), env)
    with pytest.raises(KeyError, match="JointTargetAction: asset_name 'robt'"):
        JointTargetAction(JointTargetActionCfg(asset_name="robt", joint_names=["j0"]), env)

    @configclass
    class NotATerm:
        arm: ActionTermCfg = ActionTermCfg(class_type=dict, asset_name="robot")

    with pytest.raises(TypeError, match="ActionManager term 'arm': class_type must be an ActionTerm subclass"):
        ActionManager(NotATerm(), env)
    with pytest.raises(ValueError, match="ActionManager: the action config is None"):
        ActionManager(None, env)

    @configclass
    class BadClip:
        arm: JointTargetActionCfg = JointTargetActionCfg(
            asset_name="robot", joint_names=["j0"], clip={"j0": (1.0, -1.0)}
        )

    with pytest.raises(ValueError, match=r"ActionManager term 'arm': .*clip\['j0'\]: min 1.0 is greater than max"):
        ActionManager(BadClip(), env)
    bad = BadClip()
    bad.arm.clip = {"j0": (math.nan, 1.0)}
    with pytest.raises(ValueError, match=r"ActionManager term 'arm': .*clip\['j0'\] .*not NaN"):
        ActionManager(bad, env)
    bad.arm.clip = {"elbow": (0.0, 1.0)}
    with pytest.raises(ValueError, match=r"ActionManager term 'arm': .*'elbow' matches none"):
        ActionManager(bad, env)
    with pytest.raises(KeyError, match=r"no action term 'leg'; the terms are \['arm', 'gripper'\]"):
        ActionManager(ArmGripperActionsCfg(), env).get_term("leg")


def test_action_refuses_wrong_shape_and_non_finite_entries():
    env = FakeEnv(3)
    manager = ActionManager(ArmGripperActionsCfg(), env)
    good = torch.ones(3, 5)
    manager.process_action(good)
    with pytest.raises(
        ValueError, match=r"ActionManager.process_action: the action has shape \(3, 4\), expected \(3, 5\)"
    ):
        manager.process_action(torch.zeros(3, 4))
    with pytest.raises(ValueError, match=r"shape \(2, 5\), expected \(3, 5\)"):
        manager.process_action(torch.zeros(2, 5))
    with pytest.raises(TypeError, match=r"must be a torch\.Tensor"):
        manager.process_action([[0.0] * 5] * 3)
    bad = torch.zeros(3, 5)
    bad[1, 4] = math.nan
    bad[2, 0] = math.inf
    with pytest.raises(
        ValueError, match=r"NaN or infinite entries in env\(s\) \[1, 2\] \(term\(s\) \['arm', 'gripper'\]\)"
    ):
        manager.process_action(bad)
    # refused atomically: nothing changed, so nothing reaches the simulation
    assert torch.equal(manager.action, good) and torch.equal(manager.prev_action, torch.zeros(3, 5))
    assert torch.equal(manager.get_term("gripper").raw_actions, torch.ones(3, 2))


# ---------------------------------------------------------------------------------------------- events


class Calls:
    """Records the calls of event functions: (name, env_ids as a list or the raw value)."""

    def __init__(self):
        self.log = []

    def func(self, name):
        def event(env, env_ids, **params):
            ids = env_ids.tolist() if isinstance(env_ids, torch.Tensor) else env_ids
            self.log.append((name, ids, params))

        return event

    def of(self, name):
        return [ids for n, ids, _ in self.log if n == name]


def test_event_interval_per_env_and_global_time_and_reset_of_timers():
    calls = Calls()
    cfg = {
        "push": EventTermCfg(func=calls.func("push"), mode="interval", interval_range_s=(0.1, 0.1)),
        "wind": EventTermCfg(
            func=calls.func("wind"), mode="interval", interval_range_s=(0.1, 0.1), is_global_time=True
        ),
    }
    manager = EventManager(cfg, FakeEnv(3))
    assert manager.active_terms == {"interval": ["push", "wind"]}
    # step 1 (dt 0.05): nothing is due; then env 0 is reset, so its interval starts again
    manager.apply("interval", dt=0.05)
    manager.reset(torch.tensor([0]))
    # step 2: envs 1 and 2 ran 0.1 s; the global term too (a reset does not restart global time)
    manager.apply("interval", dt=0.05)
    assert calls.of("push") == [[1, 2]] and calls.of("wind") == [None]
    # step 3: env 0 ran 0.1 s since its reset
    manager.apply("interval", dt=0.05)
    assert calls.of("push") == [[1, 2], [0]] and calls.of("wind") == [None]
    # step 4: envs 1 and 2 again, and the global term
    manager.apply("interval", dt=0.05)
    assert calls.of("push") == [[1, 2], [0], [1, 2]] and calls.of("wind") == [None, None]


def test_event_interval_draws_from_the_seeded_torch_rng():
    calls = Calls()
    cfg = {"push": EventTermCfg(func=calls.func("push"), mode="interval", interval_range_s=(0.1, 0.3))}
    torch.manual_seed(0)
    expected_times = 0.1 + 0.2 * torch.rand(4)  # what the manager draws at build
    redraw = 0.1 + 0.2 * torch.rand(1)  # the first redraw (one env due)
    dt = 0.02
    first_step = [math.ceil(t / dt - 1e-4) for t in expected_times.tolist()]
    assert all(abs(t / dt - round(t / dt)) > 1e-3 for t in expected_times.tolist())  # no tie at a step boundary
    order = sorted(range(4), key=lambda i: first_step[i])
    assert first_step[order[0]] < first_step[order[1]]  # one env is due first, alone

    torch.manual_seed(0)
    manager = EventManager(cfg, FakeEnv(4))
    for _ in range(first_step[order[0]]):
        manager.apply("interval", dt=dt)
    assert calls.of("push") == [[order[0]]]
    time_left = manager._interval_time_left[0]
    assert time_left[order[0]].item() == pytest.approx(redraw.item(), abs=1e-6)
    assert 0.1 <= time_left[order[0]].item() <= 0.3
    # the second env is due at its own step; the first one (redrawn >= 0.1 s) not again before then
    for _ in range(first_step[order[1]] - first_step[order[0]]):
        manager.apply("interval", dt=dt)
    assert calls.of("push") == [[order[0]], [order[1]]]


def test_event_reset_min_step_count_between_reset():
    calls = Calls()
    cfg = {
        "heavy": EventTermCfg(func=calls.func("heavy"), mode="reset", min_step_count_between_reset=10),
        "light": EventTermCfg(func=calls.func("light"), mode="reset"),
    }
    manager = EventManager(cfg, FakeEnv(3))
    manager.apply("reset", env_ids=torch.tensor([0, 1]), global_env_step_count=0)  # first reset: always
    manager.apply("reset", env_ids=torch.tensor([0, 1, 2]), global_env_step_count=5)  # env 2's first
    manager.apply("reset", env_ids=torch.tensor([0, 1]), global_env_step_count=10)  # 10 steps since 0
    manager.apply("reset", env_ids=torch.tensor([2]), global_env_step_count=12)  # 7 steps since 5: skipped
    manager.apply("reset", env_ids=torch.tensor([1, 2]), global_env_step_count=15)  # 5 since 10 / 10 since 5
    manager.apply("reset", global_env_step_count=40)  # every env
    assert calls.of("heavy") == [[0, 1], [2], [0, 1], [2], [0, 1, 2]]
    assert calls.of("light") == [[0, 1], [0, 1, 2], [0, 1], [2], [1, 2], slice(None)]


def test_event_startup_once_custom_modes_and_unknown_mode(caplog):
    calls = Calls()
    cfg = {
        "masses": EventTermCfg(func=calls.func("masses"), mode="startup"),
        "grasp": EventTermCfg(func=calls.func("grasp"), mode="on_grasp", params={"force": 2.0}),
    }
    manager = EventManager(cfg, FakeEnv(3))
    assert manager.available_modes == ["startup", "on_grasp"]
    manager.apply("startup")
    with pytest.raises(
        RuntimeError, match=r"EventManager\.apply\('startup'\): the startup events were already applied"
    ):
        manager.apply("startup")
    assert calls.of("masses") == [None]
    manager.apply("on_grasp", env_ids=torch.tensor([2]))
    manager.apply("on_grasp", env_ids=torch.tensor([0]))
    assert calls.of("grasp") == [[2], [0]] and calls.log[-1][2] == {"force": 2.0}
    with caplog.at_level(logging.WARNING):
        manager.apply("teleport")
    assert "no event terms have mode 'teleport'" in caplog.text
    assert len(calls.log) == 3


class RandomizeGains(ManagerTermBase):
    """A class term with per-env state."""

    def __init__(self, cfg, env):
        super().__init__(cfg, env)
        self.resets = []
        self.calls = []

    def __call__(self, env, env_ids, asset_cfg, factor=1.0):
        self.calls.append((env_ids, asset_cfg.joint_ids, factor))

    def reset(self, env_ids=None):
        self.resets.append(env_ids)


def test_event_class_terms_scene_entities_and_term_cfg():
    cfg = {
        "gains": EventTermCfg(
            func=RandomizeGains, mode="reset", params={"asset_cfg": SceneEntityCfg("robot", joint_names=["j1", "j2"])}
        )
    }
    original = cfg["gains"]
    manager = EventManager(cfg, FakeEnv(3))
    term_cfg = manager.get_term_cfg("gains")
    term = term_cfg.func
    assert isinstance(term, RandomizeGains) and original.func is RandomizeGains  # the caller's config is unchanged
    manager.apply("reset", env_ids=torch.tensor([1]), global_env_step_count=3)
    assert term.calls[0][0].tolist() == [1] and term.calls[0][1:] == ([1, 2], 1.0)
    manager.reset(torch.tensor([2]))
    assert term.resets[0].tolist() == [2]
    manager.reset()
    assert term.resets[1] == slice(None)
    new_cfg = term_cfg.replace(params={**term_cfg.params, "factor": 3.0})
    manager.set_term_cfg("gains", new_cfg)
    manager.apply("reset", env_ids=torch.tensor([0]), global_env_step_count=4)
    assert manager.get_term_cfg("gains") is new_cfg and new_cfg.func.calls[-1][2] == 3.0
    with pytest.raises(ValueError, match="EventManager: no event term 'gravity'"):
        manager.get_term_cfg("gravity")
    with pytest.raises(ValueError, match="cannot change the mode 'reset' to 'startup'"):
        manager.set_term_cfg("gains", new_cfg.replace(mode="startup"))


def test_event_hostile_configs_are_named():
    env = FakeEnv(2)

    def push(env, env_ids, scale):
        pass

    with pytest.raises(TypeError, match=r"EventManager term 'push': missing parameter\(s\) \['scale'\]"):
        EventManager({"push": EventTermCfg(func=push, mode="reset")}, env)
    with pytest.raises(TypeError, match=r"EventManager term 'push': unknown parameter\(s\) \['scal'\]"):
        EventManager({"push": EventTermCfg(func=push, mode="reset", params={"scale": 1, "scal": 2})}, env)
    with pytest.raises(ValueError, match="EventManager term 'push': mode 'interval' needs interval_range_s"):
        EventManager({"push": EventTermCfg(func=push, mode="interval", params={"scale": 1})}, env)
    with pytest.raises(ValueError, match="EventManager term 'push': interval_range_s must be finite"):
        EventManager(
            {"push": EventTermCfg(func=push, mode="interval", interval_range_s=(math.nan, 1.0), params={"scale": 1})},
            env,
        )
    with pytest.raises(ValueError, match=r"EventManager term 'push': interval_range_s must satisfy 0 <= min <= max"):
        EventManager(
            {"push": EventTermCfg(func=push, mode="interval", interval_range_s=(2.0, 1.0), params={"scale": 1})}, env
        )
    with pytest.raises(ValueError, match="EventManager term 'push': min_step_count_between_reset=5 applies to mode"):
        EventManager(
            {
                "push": EventTermCfg(
                    func=push,
                    mode="interval",
                    interval_range_s=(1, 2),
                    min_step_count_between_reset=5,
                    params={"scale": 1},
                )
            },
            env,
        )
    with pytest.raises(TypeError, match="EventManager term 'push': mode must be a non-empty string, got int 3"):
        EventManager({"push": EventTermCfg(func=push, mode=3, params={"scale": 1})}, env)
    with pytest.raises(TypeError, match="EventManager term 'push': mode is not set"):
        EventManager({"push": EventTermCfg(func=push, params={"scale": 1})}, env)
    with pytest.raises(KeyError, match=r"EventManager term 'push': params\['asset_cfg'\].*no entity 'robt'"):
        EventManager(
            {"push": EventTermCfg(func=RandomizeGains, mode="reset", params={"asset_cfg": SceneEntityCfg("robt")})}, env
        )
    manager = EventManager(
        {
            "push": EventTermCfg(func=push, mode="interval", interval_range_s=(1, 2), params={"scale": 1}),
            "drop": EventTermCfg(func=push, mode="reset", params={"scale": 1}),
        },
        env,
    )
    with pytest.raises(ValueError, match=r"apply\('interval'\): dt .* is required"):
        manager.apply("interval")
    with pytest.raises(ValueError, match=r"apply\('interval'\): env_ids must be None"):
        manager.apply("interval", env_ids=torch.tensor([0]), dt=0.1)
    with pytest.raises(ValueError, match=r"apply\('reset'\): global_env_step_count .* is required"):
        manager.apply("reset", env_ids=torch.tensor([0]))


# ---------------------------------------------------------------------------------------------- commands


class CountingCommand(CommandTerm):
    """command[i] = how many commands were drawn in total when env i drew its own; metric: +(i + 1) per update."""

    def __init__(self, cfg, env):
        super().__init__(cfg, env)
        self._command = torch.zeros(self.num_envs, 1)
        self.draws = 0
        self.updates = 0
        self.metrics["error"] = torch.zeros(self.num_envs)

    @property
    def command(self):
        return self._command

    def _update_metrics(self):
        self.metrics["error"] += torch.arange(1, self.num_envs + 1, dtype=torch.float32)

    def _resample_command(self, env_ids):
        self.draws += 1
        self._command[env_ids] = float(self.draws)

    def _update_command(self):
        self.updates += 1


@configclass
class CountingCommandCfg(CommandTermCfg):
    class_type: type = CountingCommand
    resampling_time_range: tuple = (0.1, 0.1)


def test_command_resampling_after_its_time_and_metrics():
    manager = CommandManager({"goal": CountingCommandCfg()}, FakeEnv(3))
    term = manager.get_term("goal")
    assert manager.active_terms == ["goal"]
    manager.reset()  # the env resets every env at the start: one draw for all
    assert term.command_counter.tolist() == [1, 1, 1] and term.draws == 1
    assert manager.get_command("goal").flatten().tolist() == [1.0, 1.0, 1.0]
    manager.compute(0.05)  # 0.05 s left
    assert term.draws == 1 and term.updates == 1
    manager.compute(0.05)  # ran out: every env draws again
    assert term.draws == 2 and term.command_counter.tolist() == [2, 2, 2]
    assert term.time_left.tolist() == pytest.approx([0.1] * 3)
    manager.compute(0.05)
    # three updates of the metric: env i holds 3 * (i + 1); the reset of envs 0 and 2 logs their mean
    extras = manager.reset(torch.tensor([0, 2]))
    assert extras == {"Metrics/goal/error": pytest.approx((3.0 + 9.0) / 2)}
    assert term.metrics["error"].tolist() == [0.0, 6.0, 0.0]
    assert term.command_counter.tolist() == [1, 2, 1]
    assert manager.get_command("goal").flatten().tolist() == [3.0, 2.0, 3.0]
    assert term.time_left.tolist() == pytest.approx([0.1, 0.05, 0.1])
    manager.compute(0.05)  # env 1 ran out
    assert manager.get_command("goal").flatten().tolist() == [3.0, 4.0, 3.0]
    assert manager.get_active_iterable_terms(1) == [("goal", [4.0])]


def test_command_time_left_is_drawn_from_the_seeded_torch_rng():
    cfg = CountingCommandCfg(resampling_time_range=(0.5, 1.5))
    manager = CommandManager({"goal": cfg}, FakeEnv(4))
    torch.manual_seed(11)
    manager.reset()
    torch.manual_seed(11)
    expected = 0.5 + torch.rand(4)
    assert torch.allclose(manager.get_term("goal").time_left, expected, atol=1e-6)


def test_command_hostile_configs_are_named():
    env = FakeEnv(2)
    with pytest.raises(ValueError, match="CommandManager term 'goal': resampling_time_range must be finite"):
        CommandManager({"goal": CountingCommandCfg(resampling_time_range=(math.nan, 1.0))}, env)
    with pytest.raises(TypeError, match=r"CommandManager term 'goal': resampling_time_range .* is not set"):
        CommandManager({"goal": CommandTermCfg(class_type=CountingCommand)}, env)
    with pytest.raises(TypeError, match="CommandManager term 'goal': class_type must be a CommandTerm subclass"):
        CommandManager({"goal": CommandTermCfg(class_type=dict, resampling_time_range=(1, 2))}, env)
    with pytest.raises(KeyError, match=r"no command term 'pose'; the terms are \['goal'\]"):
        CommandManager({"goal": CountingCommandCfg()}, env).get_command("pose")
    assert CommandManager(None, env).active_terms == []


# ---------------------------------------------------------------------------------------------- recorder


class StepRecorder(RecorderTerm):
    """Records the env's action before the step, its observation after, and its state after a reset."""

    def record_pre_step(self):
        return "actions", self._env.action

    def record_post_step(self):
        return "obs", {"policy": self._env.obs, "critic": self._env.obs * 10.0}

    def record_post_reset(self, env_ids):
        return "initial_state", self._env.state[env_ids]


@configclass
class RecorderCfg(RecorderManagerBaseCfg):
    dataset_file_handler_class_type: type | None = None  # episodes kept in memory: no file
    steps: RecorderTermCfg = RecorderTermCfg(class_type=StepRecorder)


class FakeTerminations:
    active_terms = ["time_out", "success"]

    def __init__(self, success):
        self.success = success

    def get_term(self, name):
        return self.success


def _recording_env(num_envs=2):
    env = FakeEnv(num_envs)
    env.action = torch.zeros(num_envs, 2)
    env.obs = torch.zeros(num_envs, 1)
    env.state = torch.arange(num_envs, dtype=torch.float32).reshape(num_envs, 1) * 100.0
    env.termination_manager = FakeTerminations(torch.tensor([False, True]))
    return env


def _step(env, manager, value):
    env.action[:] = value  # the env overwrites its buffers in place: the records must not follow
    manager.record_pre_step()
    env.obs[:] = value + 0.5
    manager.record_post_step()


def test_recorder_collects_per_env_episodes_across_a_reset():
    env = _recording_env()
    manager = RecorderManager(RecorderCfg(), env)
    assert manager.active_terms == ["steps"]
    manager.record_post_reset(None)
    for value in (1.0, 2.0, 3.0):
        _step(env, manager, value)
    # env 1 ends (its "success" termination is set): its episode is exported, then it restarts
    manager.record_pre_reset(torch.tensor([1]))
    assert manager.reset(torch.tensor([1])) == {}
    env.state[1] = 555.0
    manager.record_post_reset(torch.tensor([1]))
    for value in (4.0, 5.0):
        _step(env, manager, value)

    assert len(manager.completed_episodes) == 1
    done = manager.completed_episodes[0]
    assert (done.env_id, done.success, done.seed) == (1, True, 42)
    assert torch.equal(done.get("actions"), torch.tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))
    assert torch.equal(done.get("obs/policy"), torch.tensor([[1.5], [2.5], [3.5]]))
    assert torch.equal(done.get("obs")["critic"], torch.tensor([[15.0], [25.0], [35.0]]))
    assert torch.equal(done.get("initial_state"), torch.tensor([[100.0]]))
    assert (manager.exported_successful_episode_count, manager.exported_failed_episode_count) == (1, 0)

    env0, env1 = manager.get_episode(0), manager.get_episode(1)
    assert env0.num_records("actions") == 5 and env0.get("actions")[:, 0].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert torch.equal(env0.get("initial_state"), torch.tensor([[0.0]]))
    assert env1.get("actions")[:, 0].tolist() == [4.0, 5.0] and env1.get("initial_state").tolist() == [[555.0]]
    assert env1.success is None and not env1.is_empty()

    # env 0 ends without success: counted as failed
    manager.record_pre_reset([0])
    assert (manager.exported_successful_episode_count, manager.exported_failed_episode_count) == (1, 1)
    assert manager.completed_episodes[1].env_id == 0 and manager.completed_episodes[1].success is False
    assert manager.get_episode(0).is_empty()


def test_recorder_export_modes_and_skipped_export():
    env = _recording_env()
    cfg = RecorderCfg(dataset_export_mode=DatasetExportMode.EXPORT_SUCCEEDED_ONLY)
    manager = RecorderManager(cfg, env)
    _step(env, manager, 1.0)
    manager.record_pre_reset(None)
    assert [e.env_id for e in manager.completed_episodes] == [1]  # env 0 failed: counted, not written
    assert (manager.exported_successful_episode_count, manager.exported_failed_episode_count) == (1, 1)

    manager = RecorderManager(
        RecorderCfg(dataset_export_mode=DatasetExportMode.EXPORT_SUCCEEDED_FAILED_IN_SEPARATE_FILES), env
    )
    _step(env, manager, 1.0)
    manager.record_pre_reset(None)
    assert [e.env_id for e in manager.completed_episodes] == [1]
    assert [e.env_id for e in manager.completed_failed_episodes] == [0]

    manager = RecorderManager(RecorderCfg(), env)
    _step(env, manager, 1.0)
    manager.record_pre_reset([0], force_export_or_skip=False)  # recorded, not exported
    assert manager.completed_episodes == [] and manager.get_episode(0).num_records("actions") == 1
    manager.export_episodes([0])
    assert [e.env_id for e in manager.completed_episodes] == [0] and manager.get_episode(0).is_empty()


def test_recorder_hostile_and_empty_configs():
    env = _recording_env()
    empty = RecorderManager(None, env)
    empty.record_pre_step()
    empty.record_pre_reset(None)
    assert empty.active_terms == [] and empty.reset() == {} and empty.completed_episodes == []
    assert RecorderManager(RecorderManagerBaseCfg(), env).active_terms == []
    with pytest.raises(TypeError, match="RecorderManager: the config must be a RecorderManagerBaseCfg"):
        RecorderManager({"steps": RecorderTermCfg(class_type=StepRecorder)}, env)
    with pytest.raises(TypeError, match="RecorderManager term 'steps': class_type must be a RecorderTerm subclass"):
        RecorderManager(RecorderCfg(steps=RecorderTermCfg(class_type=dict)), env)
    manager = RecorderManager(RecorderCfg(), env)
    with pytest.raises(
        ValueError, match="under 'actions' must be a tensor with one row per env \\(2\\), got \\(3, 2\\)"
    ):
        manager.add_to_episodes("actions", torch.zeros(3, 2))
    with pytest.raises(ValueError, match=r"env ids \[5\] are out of range"):
        manager.reset([5])
