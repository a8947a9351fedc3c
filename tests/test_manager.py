"""NewtonCouplerManager: the flow, the captured step program, masked resets, lifecycle rules and transactions."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch
import warp as wp
from manager_helpers import DT, cheap_coupler, run, small_scene, snapshot, start

from isaaclab_contrib.coupling import NewtonCouplerManager
from isaaclab_contrib.physics import NewtonCfg, NewtonManager, PhysicsEvent, SimulationCfg, SimulationContext


def new_sim(coupler, device: str, *, graph: bool = True, substeps: int = 1) -> SimulationContext:
    return SimulationContext(
        SimulationCfg(
            dt=DT, device=device, physics=NewtonCfg(num_substeps=substeps, use_cuda_graph=graph, solver_cfg=coupler)
        )
    )


def filled_builder(num_envs: int = 1):
    builder = NewtonCouplerManager.create_builder()
    small_scene(num_envs).build(builder)
    return builder


@wp.kernel
def _count(counter: wp.array(dtype=wp.int32)):
    counter[0] = counter[0] + 1


def test_flow_of_the_issue(device):
    sim = new_sim(cheap_coupler("admm"), device, substeps=2)
    assert sim.physics_manager is NewtonCouplerManager
    NewtonCouplerManager.set_builder(filled_builder(2))
    sim.reset()
    NewtonCouplerManager.set_decimation(4)
    assert NewtonCouplerManager.is_graph_captured() and NewtonCouplerManager.handles_decimation()
    assert NewtonCouplerManager.step_mode() == "captured" and NewtonCouplerManager.eager_reason() is None
    z0 = NewtonCouplerManager.get_state_0().body_q.numpy()[:, 2].copy()
    NewtonCouplerManager.step()
    state = NewtonCouplerManager.get_state_0()
    assert NewtonCouplerManager.get_simulation_time() == pytest.approx(4 * DT)
    assert NewtonCouplerManager.get_solver_dt() == pytest.approx(DT / 2)
    assert np.all(state.body_q.numpy()[:, 2] < z0)  # the boxes fell for 4 physics steps
    assert NewtonCouplerManager.get_coupling_plan().entries["box"].bodies == [0, 1]
    view = NewtonCouplerManager.torch_view("body_q")  # zero-copy torch view of the state
    assert isinstance(view, torch.Tensor) and view.shape == (2, 7)
    assert view.data_ptr() == state.body_q.ptr
    sim.clear_instance()
    assert NewtonManager._session is None and SimulationContext.instance() is None
    assert NewtonCouplerManager.get_model() is None


def test_builder_filled_in_model_init_callback(device):
    sim = new_sim(cheap_coupler("proxy"), device)
    calls = []

    def fill(manager):
        calls.append(manager)
        builder = manager.create_builder()
        small_scene(1).build(builder)
        manager.set_builder(builder)

    NewtonCouplerManager.register_callback(fill, PhysicsEvent.MODEL_INIT, wrap_weak_ref=False)
    ready = []
    NewtonCouplerManager.register_callback(lambda m: ready.append(m), PhysicsEvent.PHYSICS_READY)
    sim.reset()
    assert calls == [NewtonCouplerManager] and ready == [NewtonCouplerManager]
    NewtonCouplerManager.step()
    assert np.isfinite(NewtonCouplerManager.get_state_0().body_q.numpy()).all()


@pytest.mark.parametrize("kind", ["admm", "proxy"])
@pytest.mark.parametrize(
    ("decimation", "substeps"),
    # Decimation and substeps above 1 replay the same stages more times: slow tier.
    [(1, 1), pytest.param(3, 2, marks=pytest.mark.slow), pytest.param(4, 1, marks=pytest.mark.slow)],
)
def test_captured_and_eager_stepping_are_bitwise_identical(kind, decimation, substeps, device):
    eager = run(kind, graph=False, substeps=substeps, decimation=decimation, env_steps=60, device=device)
    graph = run(kind, graph=True, substeps=substeps, decimation=decimation, env_steps=60, device=device)
    for name in eager:
        np.testing.assert_array_equal(graph[name], eager[name], err_msg=name)
    assert np.isfinite(eager["particle_q"]).all()


def test_masked_reset_leaves_other_worlds_bitwise_identical(device):
    steps, reset_at = 20, 10
    common = {"graph": True, "substeps": 1, "decimation": 2, "num_envs": 3, "device": device}
    reference = run("admm", env_steps=steps, **common)
    reset = run("admm", env_steps=steps, reset_at=reset_at, reset_ids=[1], **common)
    particles = reference["particle_q"].shape[0] // 3
    for world in (0, 2):
        np.testing.assert_array_equal(reset["body_q"][world], reference["body_q"][world])
        np.testing.assert_array_equal(reset["body_qd"][world], reference["body_qd"][world])
        rows = slice(world * particles, (world + 1) * particles)
        np.testing.assert_array_equal(reset["particle_q"][rows], reference["particle_q"][rows])
        np.testing.assert_array_equal(reset["particle_qd"][rows], reference["particle_qd"][rows])
    # World 1 was put back and ran only the last 10 steps: it matches a fresh 10-step run, not the reference.
    fresh = run("admm", env_steps=steps - reset_at, **common)
    assert not np.array_equal(reset["body_q"][1], reference["body_q"][1])
    np.testing.assert_allclose(reset["body_q"][1], fresh["body_q"][1], atol=1e-4)


def test_config_error_during_reset_leaves_manager_untouched_and_next_simulation_runs(device):
    bad = cheap_coupler("admm")
    bad.entries[0].bodies = ["/World/envs/env_.*/Table"]  # matches nothing
    sim = new_sim(bad, device)
    builder = filled_builder(1)
    NewtonCouplerManager.set_builder(builder)
    session = NewtonManager._session
    with pytest.raises(ValueError, match=r"entries\['box'\]\.bodies\[0\]='/World/envs/env_\.\*/Table' matches no body"):
        sim.reset()
    assert NewtonManager._session is session and session.instance is None and session.builder is builder
    assert NewtonCouplerManager.get_model() is None and NewtonCouplerManager.get_solver() is None
    assert bad.entries[0].bodies == ["/World/envs/env_.*/Table"]
    sim.clear_instance()
    assert NewtonManager._session is None

    good = start(cheap_coupler("admm"), graph=True, substeps=1, decimation=1, scene=small_scene(1), device=device)
    NewtonCouplerManager.step()
    assert np.isfinite(snapshot()["body_q"]).all()
    good.clear_instance()


def test_manager_rejects_a_single_solver_config():
    from isaaclab_contrib.physics import SteelSolverCfg

    cfg = SimulationCfg(dt=DT, device="cpu", physics=NewtonCfg(solver_cfg=SteelSolverCfg()))
    context = SimpleNamespace(cfg=cfg, device="cpu")
    with pytest.raises(TypeError, match=r"NewtonCouplerManager needs NewtonCfg\.solver_cfg to be a CouplerAdmmCfg"):
        NewtonCouplerManager.initialize(context)
    assert NewtonManager._session is None


def test_program_callbacks_are_captured_and_a_host_callback_keeps_the_physics_captured(device):
    start(cheap_coupler("proxy"), graph=True, substeps=1, decimation=3, scene=small_scene(1), device=device)
    counter = wp.zeros(1, dtype=wp.int32, device=device)
    NewtonCouplerManager.register_post_actuator_callback(
        lambda: wp.launch(_count, dim=1, inputs=[counter], device=device)
    )
    assert NewtonCouplerManager.is_graph_captured()
    for _ in range(5):
        NewtonCouplerManager.step()
    assert counter.numpy()[0] == 15  # 5 steps x decimation 3, replayed from the graph

    host_calls = []

    def host_callback():
        host_calls.append(1)

    NewtonCouplerManager.register_post_step_callback(host_callback, graph_safe=False)
    assert not NewtonCouplerManager.is_graph_captured()
    assert NewtonCouplerManager.step_mode() == "partial"
    reason = NewtonCouplerManager.eager_reason()
    assert "post_step:" in reason and "host_callback" in reason and "graph_safe=False" in reason
    program = "\n".join(NewtonCouplerManager.describe_step_program())
    assert "substeps [physics_step] graph-safe (captured)" in program
    NewtonCouplerManager.step()
    assert host_calls == [1] and counter.numpy()[0] == 18
    NewtonCouplerManager.unregister_post_step_callback(host_callback)
    assert NewtonCouplerManager.is_graph_captured()


def _run_with_host_stage(device, *, graph: bool, host: bool, env_steps: int = 12):
    """Box on cloth with a post-actuator callback pushing the box; *host* registers it as not graph-safe."""
    start(cheap_coupler("admm"), graph=graph, substeps=2, decimation=3, scene=small_scene(2), device=device)
    staged = NewtonCouplerManager.get_staged_body_f()
    push = wp.array(
        [wp.spatial_vector(0.0, 0.0, 0.3, 0.0, 0.0, 0.0)] * staged.shape[0], dtype=wp.spatial_vector, device=device
    )
    NewtonCouplerManager.register_post_actuator_callback(lambda: wp.copy(staged, push), graph_safe=not host)
    for _ in range(env_steps):
        NewtonCouplerManager.step()
    mode = NewtonCouplerManager.step_mode()
    state = snapshot()
    NewtonManager.close()
    return mode, state


@pytest.mark.slow  # kept out of the 5-minute default set
def test_a_stage_that_is_not_graph_safe_runs_eagerly_and_the_physics_stays_identical(device):
    mode_graph, captured = _run_with_host_stage(device, graph=True, host=False)
    mode_partial, partial = _run_with_host_stage(device, graph=True, host=True)
    mode_eager, eager = _run_with_host_stage(device, graph=False, host=True)
    assert (mode_graph, mode_partial, mode_eager) == ("captured", "partial", "eager")
    for name in captured:
        np.testing.assert_array_equal(partial[name], captured[name], err_msg=name)
        np.testing.assert_array_equal(eager[name], captured[name], err_msg=name)


def test_staged_forces_reach_the_physics(device):
    start(cheap_coupler("admm"), graph=True, substeps=1, decimation=4, scene=small_scene(1), device=device)
    model = NewtonCouplerManager.get_model()
    mass = float(model.body_mass.numpy()[0])
    staged = wp.to_torch(NewtonCouplerManager.get_staged_body_f())
    staged[0, 2] = 3.0 * mass * 9.81  # net 2 g upwards [N]
    z0 = float(NewtonCouplerManager.get_state_0().body_q.numpy()[0, 2])
    for _ in range(5):
        NewtonCouplerManager.step()
    assert NewtonCouplerManager.get_state_0().body_q.numpy()[0, 2] > z0 + 0.01


def test_kitless_timeline_and_flags(device):
    start(cheap_coupler("proxy"), graph=False, substeps=1, decimation=1, scene=small_scene(1), device=device)
    stops = []
    NewtonCouplerManager.register_callback(lambda payload: stops.append(payload), PhysicsEvent.STOP)
    # No Kit timeline: play/pause/stop/wait_for_playing are the spec's default no-ops; step() always advances.
    NewtonCouplerManager.pause()
    NewtonCouplerManager.stop()
    NewtonCouplerManager.wait_for_playing()
    before = snapshot()["body_q"]
    NewtonCouplerManager.step()
    assert not np.array_equal(snapshot()["body_q"], before) and NewtonCouplerManager.is_playing()
    NewtonCouplerManager.play()
    assert stops == []
    assert NewtonCouplerManager.is_fabric_enabled() is False
    assert NewtonCouplerManager.provides_implicit_damping() is False
    assert NewtonCouplerManager.get_backend() == "torch"
    NewtonCouplerManager.get_physics_sim_view().append("view")
    assert NewtonCouplerManager.get_physics_sim_view() == ["view"]
    with pytest.raises(ValueError, match="decimation must be >= 1"):
        NewtonCouplerManager.set_decimation(0)
    with pytest.raises(TypeError, match="decimation must be an integer"):
        NewtonCouplerManager.set_decimation(2.0)


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


def test_full_reset_returns_worlds_to_start(device):
    start(cheap_coupler("admm"), graph=True, substeps=1, decimation=2, scene=small_scene(2), device=device)
    initial = snapshot()
    for _ in range(5):
        NewtonCouplerManager.step()
    NewtonCouplerManager.reset(soft=True)
    after = snapshot()
    np.testing.assert_allclose(after["body_q"], initial["body_q"], atol=1e-6)
    np.testing.assert_array_equal(after["particle_q"], initial["particle_q"])
    assert NewtonCouplerManager.get_simulation_time() == 0.0


# ---------------------------------------------------------------------- lifecycle rules (Isaac Lab)
def test_a_second_simulation_context_raises_and_the_first_keeps_working(device):
    sim1 = start(cheap_coupler("proxy"), graph=True, substeps=1, decimation=1, scene=small_scene(1), device=device)
    NewtonCouplerManager.step()
    z_before = snapshot()["body_q"][0, 2]
    with pytest.raises(RuntimeError, match=r"already active: SimulationContext\(dt=.*manager=NewtonCouplerManager\)"):
        new_sim(cheap_coupler("admm"), device)
    assert SimulationContext.instance() is sim1
    sim1.step()
    assert snapshot()["body_q"][0, 2] < z_before  # sim1 still steps its own world
    sim1.clear_instance()
    sim2 = new_sim(cheap_coupler("admm"), device)
    NewtonCouplerManager.set_builder(filled_builder(2))
    sim2.reset()
    sim1.clear_instance()  # a cleared context no longer owns the manager: this must not destroy sim2
    assert SimulationContext.instance() is sim2 and NewtonCouplerManager.get_model().world_count == 2
    with pytest.raises(RuntimeError, match="was cleared"):
        sim1.step()
    sim2.step()
    sim2.clear_instance()


def test_set_builder_after_the_simulation_started_raises(device):
    sim = start(cheap_coupler("admm"), graph=True, substeps=1, decimation=1, scene=small_scene(1), device=device)
    model = NewtonCouplerManager.get_model()
    with pytest.raises(RuntimeError, match=r"set_builder\(\) after the simulation started"):
        NewtonCouplerManager.set_builder(filled_builder(3))
    sim.reset()
    assert NewtonCouplerManager.get_model() is model and model.world_count == 1


def test_set_decimation_from_a_graph_safe_post_step_callback_keeps_graph_time_and_decimation_in_step(device):
    start(cheap_coupler("proxy"), graph=True, substeps=1, decimation=2, scene=small_scene(1), device=device)
    counter = wp.zeros(1, dtype=wp.int32, device=device)
    NewtonCouplerManager.register_post_actuator_callback(
        lambda: wp.launch(_count, dim=1, inputs=[counter], device=device)
    )
    requests = [3]

    def change_decimation():  # graph-safe: its Python body runs while the program is recorded
        if requests:
            NewtonCouplerManager.set_decimation(requests.pop())

    NewtonCouplerManager.register_post_step_callback(change_decimation)
    assert NewtonCouplerManager.is_graph_captured()
    assert NewtonCouplerManager.get_decimation() == 2  # the recording does not change the step it is recorded for
    counter.zero_()
    for expected in (2, 5, 8):
        NewtonCouplerManager.step()
        ran = int(counter.numpy()[0])
        # What the replayed graph ran and the simulation time agree; the callback's request (made while the first
        # step was recorded) applies at the end of that step, as if it had run in it.
        assert ran == expected and NewtonCouplerManager.get_decimation() == 3
        assert NewtonCouplerManager.get_simulation_time() == pytest.approx(ran * DT)


def test_set_decimation_inside_a_running_step_applies_at_the_step_boundary(device):
    start(cheap_coupler("proxy"), graph=False, substeps=1, decimation=2, scene=small_scene(1), device=device)
    counter = wp.zeros(1, dtype=wp.int32, device=device)
    NewtonCouplerManager.register_post_actuator_callback(
        lambda: wp.launch(_count, dim=1, inputs=[counter], device=device)
    )
    requests = [3]

    def host_callback():  # eager stage: it runs inside every step()
        if requests:
            NewtonCouplerManager.set_decimation(requests.pop())
            assert NewtonCouplerManager.get_decimation() == 3

    NewtonCouplerManager.register_post_step_callback(host_callback, graph_safe=False)
    NewtonCouplerManager.step()  # runs 2 physics steps, requests 3 on the way
    assert counter.numpy()[0] == 2 and NewtonCouplerManager.get_simulation_time() == pytest.approx(2 * DT)
    NewtonCouplerManager.step()
    assert counter.numpy()[0] == 5 and NewtonCouplerManager.get_simulation_time() == pytest.approx(5 * DT)


def test_base_class_calls_reach_the_coupled_behaviour(device):
    sim = new_sim(cheap_coupler("admm"), device)
    builder = NewtonManager.create_builder()  # the base class: entry solvers' attributes registered
    assert builder.has_custom_attribute("steel:rigid_body_angular_damping")
    small_scene(1).build(builder)
    NewtonManager.set_builder(builder)
    sim.reset()
    solver = NewtonManager.get_solver()
    assert type(solver).__name__ == "CoupledSolverADMM"
    for _ in range(3):
        NewtonManager.step()
    NewtonManager.reset(soft=False)  # rebuilds the coupled solver, not a single-solver one
    assert type(NewtonManager.get_solver()).__name__ == "CoupledSolverADMM"
    assert NewtonManager.get_solver() is not solver
    assert NewtonCouplerManager.get_coupling_plan().entries["box"].bodies == [0]
    NewtonManager.step()
    assert np.isfinite(snapshot()["body_q"]).all()


# ---------------------------------------------------------------------- nothing the user passes in changes
def test_a_proxy_config_reused_for_more_envs_resolves_from_the_selectors_the_user_wrote(device):
    coupler = cheap_coupler("proxy")
    selectors = list(coupler.proxies[0].bodies)
    assert all(isinstance(s, str) for s in selectors)
    sim = new_sim(coupler, device)
    NewtonCouplerManager.set_builder(filled_builder(1))
    sim.reset()
    assert coupler.proxies[0].bodies == [0]  # the spec's in-place write-back of resolved ids
    sim.clear_instance()

    sim = new_sim(coupler, device)  # the same config object, three envs
    NewtonCouplerManager.set_builder(filled_builder(3))
    sim.reset()
    assert NewtonCouplerManager.get_coupling_plan().proxies[0].bodies == [0, 1, 2]
    assert coupler.proxies[0].bodies == [0, 1, 2]
    for _ in range(20):
        NewtonCouplerManager.step()
    z = snapshot()["body_q"][:, 2]
    assert np.ptp(z) < 1e-5 and z.min() > -0.05  # every env's box is held by its cloth alike
    sim.clear_instance()


def test_reset_never_writes_into_the_users_builder(device):
    sim = new_sim(cheap_coupler("admm"), device)
    builder = filled_builder(1)
    NewtonCouplerManager.cl_register_site(r"/World/envs/env_\d+/Box/body", wp.transform_identity())
    shapes, labels = builder.shape_count, list(builder.shape_label)
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    assert builder.shape_count == shapes and list(builder.shape_label) == labels
    assert not builder.particle_color_groups  # VBD coloured its own copy
    sites = [label for label in NewtonCouplerManager.get_model().shape_label if label.endswith("/site_0")]
    assert sites == ["/World/envs/env_0/Box/body/site_0"]


def test_a_failed_reset_leaves_no_sites_in_the_builder_and_a_retry_creates_them_once(device):
    bad = cheap_coupler("admm")
    bad.entries[1].particles = [10_000]  # out of range: fails after finalize (sites were injected by then)
    bad.entries[1].all_particles = False
    sim = new_sim(bad, device)
    builder = filled_builder(1)
    NewtonCouplerManager.cl_register_site(r"/World/envs/env_\d+/Box/body", wp.transform_identity())
    shapes = builder.shape_count
    NewtonCouplerManager.set_builder(builder)
    with pytest.raises(ValueError):
        sim.reset()
    assert builder.shape_count == shapes
    bad.entries[1].particles = []
    bad.entries[1].all_particles = True
    sim.reset()  # retry on the same context and builder
    sites = [label for label in NewtonCouplerManager.get_model().shape_label if label.endswith("/site_0")]
    assert sites == ["/World/envs/env_0/Box/body/site_0"]
    assert builder.shape_count == shapes


def test_calls_out_of_order_name_what_is_missing():
    with pytest.raises(RuntimeError, match="no simulation is initialized"):
        NewtonCouplerManager.step()
    new_sim(cheap_coupler("admm"), "cpu")
    with pytest.raises(RuntimeError, match=r"must run before step\(\)"):
        NewtonCouplerManager.step()
    with pytest.raises(RuntimeError, match="no model builder"):
        NewtonCouplerManager.reset()
    with pytest.raises(TypeError, match=r"expects a newton\.ModelBuilder"):
        NewtonCouplerManager.set_builder("builder")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        NewtonCouplerManager.add_imu_sensor("(unclosed")
    with pytest.raises(ValueError, match="body_names_expr"):
        NewtonCouplerManager.add_contact_sensor(body_names_expr="[bad")
