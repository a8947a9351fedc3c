"""NewtonCouplerManager: the flow, the captured step program, masked resets and transactional init."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch
import warp as wp
from manager_helpers import DT, cheap_coupler, run, small_scene, snapshot, start

from isaaclab_contrib.configs.box_on_cloth import build_box_on_cloth
from isaaclab_contrib.coupling import NewtonCouplerManager
from isaaclab_contrib.physics import NewtonCfg, NewtonManager, PhysicsEvent, SimulationCfg, SimulationContext
from isaaclab_contrib.physics.newton_manager import _SLOT_DEFAULTS


@pytest.fixture(autouse=True)
def _closed_manager():
    NewtonManager.close()
    yield
    NewtonManager.close()


def pristine_values():
    return {name: factory() for name, factory in _SLOT_DEFAULTS.items()}


def assert_slots_equal(expected: dict):
    for name, value in expected.items():
        if name.startswith("__"):  # snapshot bookkeeping (sensor records), not a slot
            continue
        current = getattr(NewtonCouplerManager, name)
        if isinstance(value, (list, set, dict, str, int, float, bool)) or value is None:
            assert current == value, name
        else:
            assert current is value, name


def test_flow_of_the_issue():
    sim = SimulationContext(
        SimulationCfg(dt=DT, device="cpu", physics=NewtonCfg(num_substeps=2, solver_cfg=cheap_coupler("admm")))
    )
    assert sim.physics_manager is NewtonCouplerManager
    builder = NewtonCouplerManager.create_builder()
    build_box_on_cloth(builder, small_scene(2))
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    NewtonCouplerManager.set_decimation(4)
    assert NewtonCouplerManager.is_graph_captured() and NewtonCouplerManager.handles_decimation()
    z0 = NewtonCouplerManager.get_state_0().body_q.numpy()[:, 2].copy()
    NewtonCouplerManager.step()
    state = NewtonCouplerManager.get_state_0()
    assert NewtonCouplerManager.get_simulation_time() == pytest.approx(4 * DT)
    assert NewtonCouplerManager.get_solver_dt() == pytest.approx(DT / 2)
    assert np.all(state.body_q.numpy()[:, 2] < z0)  # the boxes fell for 4 physics steps
    assert NewtonCouplerManager.get_coupling_plan().entries["box"].bodies == [0, 1]
    # Zero-copy torch views of the state.
    view = NewtonCouplerManager.torch_view("body_q")
    assert isinstance(view, torch.Tensor) and view.shape == (2, 7)
    assert view.data_ptr() == state.body_q.ptr
    sim.clear_instance()
    assert_slots_equal(pristine_values())


def test_builder_filled_in_model_init_callback():
    sim = SimulationContext(SimulationCfg(dt=DT, device="cpu", physics=NewtonCfg(solver_cfg=cheap_coupler("proxy"))))
    calls = []

    def fill(manager):
        calls.append(manager)
        builder = manager.create_builder()
        build_box_on_cloth(builder, small_scene(1))
        manager.set_builder(builder)

    NewtonCouplerManager.register_callback(fill, PhysicsEvent.MODEL_INIT, wrap_weak_ref=False)
    ready = []
    NewtonCouplerManager.register_callback(lambda m: ready.append(m), PhysicsEvent.PHYSICS_READY)
    sim.reset()
    assert calls == [NewtonCouplerManager] and ready == [NewtonCouplerManager]
    NewtonCouplerManager.step()
    assert np.isfinite(NewtonCouplerManager.get_state_0().body_q.numpy()).all()


@pytest.mark.parametrize("kind", ["admm", "proxy"])
@pytest.mark.parametrize(("decimation", "substeps"), [(1, 1), (3, 2), (4, 1)])
def test_captured_and_eager_stepping_are_bitwise_identical(kind, decimation, substeps):
    eager = run(kind, graph=False, substeps=substeps, decimation=decimation, env_steps=100)
    graph = run(kind, graph=True, substeps=substeps, decimation=decimation, env_steps=100)
    for name in eager:
        np.testing.assert_array_equal(graph[name], eager[name], err_msg=name)
    assert np.isfinite(eager["particle_q"]).all()


def test_masked_reset_leaves_other_worlds_bitwise_identical():
    steps, reset_at = 20, 10
    reference = run("admm", graph=True, substeps=1, decimation=2, env_steps=steps, num_envs=3)
    reset = run(
        "admm", graph=True, substeps=1, decimation=2, env_steps=steps, num_envs=3, reset_at=reset_at, reset_ids=[1]
    )
    particles = reference["particle_q"].shape[0] // 3
    for world in (0, 2):
        np.testing.assert_array_equal(reset["body_q"][world], reference["body_q"][world])
        np.testing.assert_array_equal(reset["body_qd"][world], reference["body_qd"][world])
        rows = slice(world * particles, (world + 1) * particles)
        np.testing.assert_array_equal(reset["particle_q"][rows], reference["particle_q"][rows])
        np.testing.assert_array_equal(reset["particle_qd"][rows], reference["particle_qd"][rows])
    # World 1 was put back and ran only the last 10 steps: it matches a fresh 10-step run, not the reference.
    fresh = run("admm", graph=True, substeps=1, decimation=2, env_steps=steps - reset_at, num_envs=3)
    assert not np.array_equal(reset["body_q"][1], reference["body_q"][1])
    np.testing.assert_allclose(reset["body_q"][1], fresh["body_q"][1], atol=1e-4)


def test_config_error_during_reset_leaves_manager_untouched_and_next_simulation_runs():
    bad = cheap_coupler("admm")
    bad.entries[0].bodies = ["/World/envs/env_.*/Table"]  # matches nothing
    sim = SimulationContext(SimulationCfg(dt=DT, device="cpu", physics=NewtonCfg(solver_cfg=bad)))
    builder = NewtonCouplerManager.create_builder()
    build_box_on_cloth(builder, small_scene(1))
    NewtonCouplerManager.set_builder(builder)
    before = NewtonCouplerManager._snapshot()
    with pytest.raises(ValueError, match=r"entries\['box'\]\.bodies\[0\]='/World/envs/env_\.\*/Table' matches no body"):
        sim.reset()
    assert_slots_equal(before)
    assert NewtonCouplerManager.get_model() is None and NewtonCouplerManager.get_solver() is None
    sim.clear_instance()
    assert_slots_equal(pristine_values())

    good = start(cheap_coupler("admm"), graph=True, substeps=1, decimation=1, scene=small_scene(1))
    NewtonCouplerManager.step()
    assert np.isfinite(snapshot()["body_q"]).all()
    good.clear_instance()


def test_manager_rejects_a_single_solver_config():
    from isaaclab_contrib.physics import SteelSolverCfg

    cfg = SimulationCfg(dt=DT, device="cpu", physics=NewtonCfg(solver_cfg=SteelSolverCfg()))
    context = SimpleNamespace(cfg=cfg, device="cpu")
    with pytest.raises(TypeError, match=r"NewtonCouplerManager needs NewtonCfg\.solver_cfg to be a CouplerAdmmCfg"):
        NewtonCouplerManager.initialize(context)
    assert_slots_equal(pristine_values())


@wp.kernel
def _count(counter: wp.array(dtype=wp.int32)):
    counter[0] = counter[0] + 1


def test_program_callbacks_are_captured_and_host_callbacks_force_eager():
    start(cheap_coupler("proxy"), graph=True, substeps=1, decimation=3, scene=small_scene(1))
    counter = wp.zeros(1, dtype=wp.int32, device="cpu")
    NewtonCouplerManager.register_post_actuator_callback(
        lambda: wp.launch(_count, dim=1, inputs=[counter], device="cpu")
    )
    assert NewtonCouplerManager.is_graph_captured()
    for _ in range(5):
        NewtonCouplerManager.step()
    assert counter.numpy()[0] == 15  # 5 steps x decimation 3, replayed from the graph

    host_calls = []
    NewtonCouplerManager.register_post_step_callback(lambda: host_calls.append(1), graph_safe=False)
    assert not NewtonCouplerManager.is_graph_captured()
    assert "host (not graph-safe) callbacks" in NewtonCouplerManager.eager_reason()
    NewtonCouplerManager.step()
    assert host_calls == [1] and counter.numpy()[0] == 18


def test_staged_forces_reach_the_physics():
    start(cheap_coupler("admm"), graph=True, substeps=1, decimation=4, scene=small_scene(1))
    model = NewtonCouplerManager.get_model()
    mass = float(model.body_mass.numpy()[0])
    staged = wp.to_torch(NewtonCouplerManager.get_staged_body_f())
    staged[0, 2] = 3.0 * mass * 9.81  # net 2 g upwards [N]
    z0 = float(NewtonCouplerManager.get_state_0().body_q.numpy()[0, 2])
    for _ in range(5):
        NewtonCouplerManager.step()
    assert NewtonCouplerManager.get_state_0().body_q.numpy()[0, 2] > z0 + 0.01


def test_kitless_timeline_and_flags():
    start(cheap_coupler("proxy"), graph=False, substeps=1, decimation=1, scene=small_scene(1))
    NewtonCouplerManager.pause()
    before = snapshot()["body_q"]
    NewtonCouplerManager.step()
    np.testing.assert_array_equal(snapshot()["body_q"], before)
    with pytest.raises(RuntimeError, match="paused"):
        NewtonCouplerManager.wait_for_playing()
    NewtonCouplerManager.play()
    NewtonCouplerManager.wait_for_playing()
    NewtonCouplerManager.step()
    assert not np.array_equal(snapshot()["body_q"], before)
    assert NewtonCouplerManager.is_fabric_enabled() is False
    assert NewtonCouplerManager.provides_implicit_damping() is False
    assert NewtonCouplerManager.get_backend() == "torch"
    NewtonCouplerManager.get_physics_sim_view().append("view")
    assert NewtonCouplerManager.get_physics_sim_view() == ["view"]
    with pytest.raises(ValueError, match="decimation must be >= 1"):
        NewtonCouplerManager.set_decimation(0)


def test_callback_registry():
    seen = []
    handle = NewtonCouplerManager.register_callback(lambda p: seen.append(("late", p)), PhysicsEvent.STOP, order=5)
    NewtonCouplerManager.register_callback(lambda p: seen.append(("early", p)), PhysicsEvent.STOP, order=-1)
    NewtonCouplerManager.dispatch_event(PhysicsEvent.STOP, 7)
    assert seen == [("early", 7), ("late", 7)]
    NewtonCouplerManager.deregister_callback(handle)
    NewtonCouplerManager.dispatch_event(PhysicsEvent.STOP, 8)
    assert seen[-1] == ("early", 8) and len(seen) == 3
    last_id = handle.id
    NewtonCouplerManager.clear_callbacks()
    assert NewtonCouplerManager.register_callback(print, PhysicsEvent.STOP).id > last_id


def test_full_reset_returns_worlds_to_start():
    start(cheap_coupler("admm"), graph=True, substeps=1, decimation=2, scene=small_scene(2))
    initial = snapshot()
    for _ in range(5):
        NewtonCouplerManager.step()
    NewtonCouplerManager.reset(soft=True)
    after = snapshot()
    np.testing.assert_allclose(after["body_q"], initial["body_q"], atol=1e-6)
    np.testing.assert_array_equal(after["particle_q"], initial["particle_q"])
    assert NewtonCouplerManager.get_simulation_time() == 0.0
