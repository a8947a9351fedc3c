"""A step or a reset either completes or leaves state, clock and counters as they were; lifecycle calls
are not re-entrant.

Scenes: a box falling onto a ground plane on a Steel solver (no coupling), and a box (Steel) on a
pinned cloth (VBD) coupled by a virtual proxy, both built here with plain Newton builder calls.
"""

import numpy as np
import pytest
import warp as wp
from scenes import add_hinge_arm

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg, NewtonCouplerManager
from isaaclab_contrib.physics import (
    IdealPDActuatorCfg,
    NewtonCfg,
    NewtonCollisionPipelineCfg,
    NewtonManager,
    PhysicsEvent,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
    add_actuators,
)
from isaaclab_contrib.scenes import InitialStateCfg, PinnedClothCfg

DT = 1.0 / 240.0
FIELDS = ("body_q", "body_qd", "joint_q", "joint_qd", "particle_q", "particle_qd")


def _state() -> dict[str, np.ndarray]:
    state = NewtonManager.get_state_0()
    return {name: getattr(state, name).numpy().copy() for name in FIELDS if getattr(state, name) is not None}


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def _falling_box(device: str, *, graph: bool = True, decimation: int = 4) -> SimulationContext:
    sim = SimulationContext(
        SimulationCfg(
            dt=DT,
            device=device,
            physics=NewtonCfg(solver_cfg=SteelSolverCfg(), decimation=decimation, use_cuda_graph=graph),
        )
    )
    builder = NewtonManager.create_builder()
    builder.add_ground_plane()
    body = builder.add_body(xform=wp.transform((0.0, 0.0, 0.5), wp.quat_identity()), label="/World/box")
    builder.add_shape_box(body, hx=0.05, hy=0.05, hz=0.05)
    NewtonManager.set_builder(builder)
    sim.reset()
    return sim


class _RaiseOnCall:
    """A host callback that raises on its *n*-th call."""

    def __init__(self, n: int):
        self.n, self.calls = n, 0

    def __call__(self):
        self.calls += 1
        if self.calls == self.n:
            raise RuntimeError("callback failed on purpose")


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "partial"])
def test_a_callback_failing_mid_step_leaves_state_and_clock_as_before(device, graph):
    sim = _falling_box(device, graph=graph)
    NewtonManager.step()
    before, time_before = _state(), NewtonManager.get_simulation_time()
    # Fails in the second physics step of the next env step (the first physics step already ran).
    failing = _RaiseOnCall(n=2)
    NewtonManager.register_post_actuator_callback(failing, graph_safe=False)
    assert NewtonManager.step_mode() == ("partial" if graph else "eager")
    with pytest.raises(RuntimeError, match="on purpose"):
        NewtonManager.step()
    assert failing.calls == 2
    _assert_same(_state(), before)
    assert NewtonManager.get_simulation_time() == time_before
    # The simulation goes on from where it was: the next step equals a step from the saved state.
    NewtonManager.step()
    assert NewtonManager.get_simulation_time() == pytest.approx(time_before + 4 * DT)
    assert _state()["body_q"][0, 2] < before["body_q"][0, 2]  # still falling
    sim.clear_instance()


def test_a_failing_physics_ready_callback_leaves_the_simulation_unstarted(device):
    def fail(_):
        raise RuntimeError("ready failed on purpose")

    handle = NewtonManager.register_callback(fail, PhysicsEvent.PHYSICS_READY)
    with pytest.raises(RuntimeError, match="ready failed on purpose"):
        _falling_box(device)
    sim = SimulationContext.instance()
    assert NewtonManager.step_mode() == "not started" and NewtonManager.get_model() is None
    with pytest.raises(RuntimeError, match="must run before step"):
        NewtonManager.step()
    NewtonManager.deregister_callback(handle)
    sim.reset()  # the same context starts cleanly once the callback is gone
    assert NewtonManager.step_mode() == "captured"
    sim.clear_instance()


def test_a_failing_physics_ready_callback_on_a_full_reset_keeps_the_running_simulation(device):
    sim = _falling_box(device)
    for _ in range(3):
        NewtonManager.step()
    before, time_before = _state(), NewtonManager.get_simulation_time()
    solver = NewtonManager.get_solver()

    def fail(_):
        raise RuntimeError("ready failed on purpose")

    handle = NewtonManager.register_callback(fail, PhysicsEvent.PHYSICS_READY)
    with pytest.raises(RuntimeError, match="on purpose"):
        sim.reset()
    NewtonManager.deregister_callback(handle)
    _assert_same(_state(), before)
    assert NewtonManager.get_simulation_time() == time_before and NewtonManager.get_solver() is solver
    NewtonManager.step()
    assert NewtonManager.get_simulation_time() == pytest.approx(time_before + 4 * DT)
    sim.clear_instance()


@pytest.mark.parametrize(
    "call",
    [
        lambda sim: sim.reset(),
        lambda sim: NewtonManager.step(),
        lambda sim: NewtonManager.forward(),
        lambda sim: NewtonManager.write_initial_state(),
        lambda sim: sim.clear_instance(),
    ],
    ids=["reset", "step", "forward", "write_initial_state", "clear_instance"],
)
def test_lifecycle_calls_from_inside_a_step_are_refused_by_name(device, call):
    sim = _falling_box(device)
    errors = []

    def reenter():
        try:
            call(sim)
        except RuntimeError as err:
            errors.append(str(err))

    NewtonManager.register_post_step_callback(reenter, graph_safe=False)
    NewtonManager.step()
    assert len(errors) == 1 and "while step() runs" in errors[0], errors
    # The step completed: clock and state agree (one env step of 4 physics steps).
    assert NewtonManager.get_simulation_time() == pytest.approx(4 * DT)
    assert sim.is_active()
    sim.clear_instance()


def test_a_graph_safe_callback_doing_host_work_is_reported(device):
    sim = _falling_box(device)
    targets = NewtonManager.torch_view("body_f", "state_0")

    def host_write():
        targets[:] = 0.0  # a torch write: not recorded in a Warp graph

    with pytest.warns(RuntimeWarning, match="launched no Warp kernel"):
        NewtonManager.register_post_actuator_callback(host_write)
    sim.clear_instance()


def _arm_builder(builder):
    add_hinge_arm(builder, "/World/arm", axis=(0.0, 1.0, 0.0), joint="shoulder", capsule=True, mass=1.0)


def test_a_joint_cannot_be_actuated_twice():
    import newton

    builder = newton.ModelBuilder()
    _arm_builder(builder)
    pd = IdealPDActuatorCfg(joint_names_expr=["shoulder"], stiffness=10.0, damping=1.0)
    add_actuators(builder, {"arm": pd})
    entries = {k: len(e.indices) for k, e in builder.actuator_entries.items()}
    with pytest.raises(ValueError, match=r"actuators\['again'\].*already driven by a Newton actuator"):
        add_actuators(builder, {"again": pd})
    assert {k: len(e.indices) for k, e in builder.actuator_entries.items()} == entries  # nothing added


# ---------------------------------------------------------------------------- proxy collision cadence
def _box_on_cloth_proxy(device: str, *, decimation: int, collide_interval: int, graph: bool = True):
    cfg = CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(name="box", solver_cfg=SteelSolverCfg(), bodies=["/World/envs/env_.*/Box"]),
            CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=5), all_particles=True),
        ],
        iterations=2,
        proxies=[
            CouplerProxyMappingCfg(
                source="box",
                destination="cloth",
                bodies=["/World/envs/env_.*/Box"],
                proxy_relaxation=0.5,
                collide_interval=collide_interval,
                collision_pipeline=NewtonCollisionPipelineCfg(),
            )
        ],
    )
    sim = SimulationContext(
        SimulationCfg(
            dt=DT, device=device, physics=NewtonCfg(solver_cfg=cfg, decimation=decimation, use_cuda_graph=graph)
        )
    )
    builder = NewtonCouplerManager.create_builder()
    builder.begin_world()
    body = builder.add_body(
        xform=wp.transform((0.0, 0.0, 0.56), wp.quat_identity()), label="/World/envs/env_0/Box/body"
    )
    builder.add_shape_box(body, hx=0.05, hy=0.05, hz=0.05, label="/World/envs/env_0/Box/body/collision")
    PinnedClothCfg(cells=4, cell_size=0.1, init_state=InitialStateCfg(pos=(0.0, 0.0, 0.5))).add_to(
        builder, "/World/envs/env_0/Cloth"
    )
    builder.end_world()
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    return sim


def test_a_proxy_collision_cadence_a_captured_step_cannot_replay_runs_eagerly(device):
    sim = _box_on_cloth_proxy(device, decimation=2, collide_interval=3)
    assert NewtonCouplerManager.step_mode() != "captured"
    assert "collide_interval=3 does not divide the 2 coupled steps" in NewtonCouplerManager.eager_reason()
    for _ in range(30):
        NewtonCouplerManager.step()
    z = NewtonCouplerManager.get_state_0().body_q.numpy()[0, 2]
    assert z > 0.4, f"the box fell through the cloth: z = {z:.3f} m"  # the cloth is at 0.5 m
    sim.clear_instance()


@pytest.mark.slow  # captured and eager runs; the refusal twin stays in the default set
def test_a_proxy_collision_cadence_that_divides_the_env_step_is_captured_and_matches_eager(device):
    runs = {}
    for graph in (True, False):
        sim = _box_on_cloth_proxy(device, decimation=3, collide_interval=3, graph=graph)
        assert NewtonCouplerManager.is_graph_captured() == graph, NewtonCouplerManager.eager_reason()
        for _ in range(20):
            NewtonCouplerManager.step()
        runs[graph] = _state()
        sim.clear_instance()
    if device == "cpu":  # CPU kernels run sequentially: bitwise; CUDA atomics may reorder sums
        _assert_same(runs[True], runs[False])
    assert runs[True]["body_q"][0, 2] > 0.4


@pytest.mark.slow  # captured and eager runs at two decimations
def test_changing_the_decimation_after_start_cannot_freeze_the_proxy_collision_cadence(device):
    """Captured at decimation 3 (the interval divides it), then decimation 2: the proxy contacts keep refreshing."""
    sim = _box_on_cloth_proxy(device, decimation=3, collide_interval=3)
    assert NewtonCouplerManager.is_graph_captured()
    NewtonCouplerManager.step()
    NewtonCouplerManager.set_decimation(2)
    assert "collide_interval=3" in NewtonCouplerManager.eager_reason()
    for _ in range(40):
        NewtonCouplerManager.step()
    z = NewtonCouplerManager.get_state_0().body_q.numpy()[0, 2]
    assert z > 0.4, f"the box fell through the cloth: z = {z:.3f} m"
    sim.clear_instance()
