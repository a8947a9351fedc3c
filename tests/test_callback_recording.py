"""A callback's recording cannot change the step it is recorded for.

A step-program callback also runs while the program is recorded (the warm-up at ``sim.reset()``, the graph
recording at a registration or a decimation change), which is not a step. The reference for what a callback's
request does is the same request made by hand between steps: ``step()``, ``set_decimation(3)``, ``step()`` runs
2 + 3 physics steps. A falling box on a Steel solver (no coupling needed) checks the physics against that
reference and against free fall.
"""

import re

import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.physics import NewtonCfg, NewtonManager, SimulationCfg, SimulationContext, SteelSolverCfg
from isaaclab_contrib.physics.runtime.step_program import RecordingRefusal

DT = 1.0 / 240.0
G = 9.81

# A graph-safe callback doing host work is reported each time it is recorded; the tests assert it where it matters.
pytestmark = pytest.mark.filterwarnings("ignore:step-program stage .* launched no Warp kernel:RuntimeWarning")


def _start(device: str, decimation: int = 2, graph: bool = True) -> SimulationContext:
    physics = NewtonCfg(solver_cfg=SteelSolverCfg(), decimation=decimation, use_cuda_graph=graph)
    sim = SimulationContext(SimulationCfg(dt=DT, device=device, physics=physics))
    builder = NewtonManager.create_builder()
    body = builder.add_body(xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()), label="/World/box")
    builder.add_shape_box(body, hx=0.05, hy=0.05, hz=0.05)
    NewtonManager.set_builder(builder)
    sim.reset()
    return sim


def _physics_steps() -> int:
    return round(NewtonManager.get_simulation_time() / DT)


def _box_q() -> np.ndarray:
    return NewtonManager.get_state_0().body_q.numpy().copy()


def _reference(device: str) -> np.ndarray:
    """``step()``, ``set_decimation(3)``, ``step()``: the box pose after 2 + 3 physics steps."""
    sim = _start(device)
    NewtonManager.step()
    NewtonManager.set_decimation(3)
    NewtonManager.step()
    assert _physics_steps() == 5
    q = _box_q()
    sim.clear_instance()
    return q


def _free_fall_z(steps: int) -> float:
    t = steps * DT
    return 1.0 - 0.5 * G * t * t


@pytest.mark.parametrize(
    ("graph_safe", "graph"),
    [(True, True), (False, True), (True, False)],
    ids=["captured-graph-safe", "eager-callback", "capture-off"],
)
def test_a_callback_setting_the_decimation_changes_the_next_step_not_the_first(device, graph_safe, graph):
    reference = _reference(device)
    sim = _start(device, graph=graph)
    with pytest.warns(RuntimeWarning) if graph_safe and graph else _no_warning():
        NewtonManager.register_post_step_callback(lambda: NewtonManager.set_decimation(3), graph_safe=graph_safe)
    assert NewtonManager.get_decimation() == 2
    NewtonManager.step()
    assert _physics_steps() == 2 and NewtonManager.get_decimation() == 3
    NewtonManager.step()
    assert _physics_steps() == 2 + 3
    q = _box_q()
    assert np.array_equal(q, reference)  # the same physics as the request made by hand between the steps
    assert q[0, 2] == pytest.approx(_free_fall_z(5), abs=G * DT * 5 * DT)
    NewtonManager.step()
    assert _physics_steps() == 2 + 3 + 3
    sim.clear_instance()


def test_a_callback_registered_before_reset_runs_the_configured_decimation_first(device):
    """At ``sim.reset()`` the callback runs in the warm-up and in the graph recording: neither is a step."""
    physics = NewtonCfg(solver_cfg=SteelSolverCfg(), decimation=2)
    sim = SimulationContext(SimulationCfg(dt=DT, device=device, physics=physics))
    builder = NewtonManager.create_builder()
    body = builder.add_body(xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()), label="/World/box")
    builder.add_shape_box(body, hx=0.05, hy=0.05, hz=0.05)
    NewtonManager.set_builder(builder)
    with pytest.warns(RuntimeWarning, match="launched no Warp kernel"):
        NewtonManager.register_post_step_callback(lambda: NewtonManager.set_decimation(3))
        sim.reset()
    assert NewtonManager.get_decimation() == 2
    NewtonManager.step()
    NewtonManager.step()
    assert _physics_steps() == 2 + 3
    sim.clear_instance()


def test_a_refused_registration_keeps_the_decimation_its_callback_set_while_recorded(device):
    sim = _start(device)

    def changes_the_program():
        NewtonManager.set_decimation(3)
        NewtonManager.register_post_step_callback(lambda: None)  # a structural change while recorded: refused

    with pytest.raises(RecordingRefusal) as info:
        NewtonManager.register_post_step_callback(changes_the_program)
    message = str(info.value)
    assert (
        "register_post_step_callback() was called by stage 'post_step:" in message and "changes_the_program" in message
    )
    assert "nothing was changed" in message
    assert NewtonManager.get_decimation() == 2
    assert NewtonManager.step_mode() == "captured" and "post_step" not in " ".join(
        NewtonManager.describe_step_program()
    )
    for expected in (2, 4, 6):  # no request survives the refusal: the decimation stays 2
        NewtonManager.step()
        assert _physics_steps() == expected and NewtonManager.get_decimation() == 2
    assert _box_q()[0, 2] == pytest.approx(_free_fall_z(6), abs=G * DT * 6 * DT)
    sim.clear_instance()


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: NewtonManager.write_initial_state(), "write_initial_state()"),
        (lambda: NewtonManager.invalidate_fk(), "invalidate_fk()"),
        (lambda: NewtonManager.add_model_change(1), "add_model_change()"),
        (lambda: NewtonManager.request_observables("body_qdd"), "request_observables()"),
        (lambda: NewtonManager.unregister_post_step_callback(print), "unregister_post_step_callback()"),
        (lambda: NewtonManager.step(), "step()"),
        (lambda: NewtonManager.reset(), "reset()"),
        (lambda: NewtonManager.clear(), "clear()"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_changes_a_graph_safe_callback_asks_for_while_recorded_are_refused_by_name(device, call, name):
    sim = _start(device)
    NewtonManager.step()
    before, steps = _box_q(), _physics_steps()
    with pytest.raises(RecordingRefusal, match=re.escape(f"NewtonManager.{name} was called by stage 'post_actuator:")):
        NewtonManager.register_post_actuator_callback(call)
    assert np.array_equal(_box_q(), before) and _physics_steps() == steps and sim.is_active()
    NewtonManager.step()  # the simulation goes on, falling as before
    assert _physics_steps() == steps + 2
    assert _box_q()[0, 2] == pytest.approx(_free_fall_z(steps + 2), abs=G * DT * (steps + 2) * DT)
    sim.clear_instance()


def test_fk_pending_before_a_registration_is_not_recorded_into_the_step(device):
    """``get_state()`` applies pending FK outside a step; called by a callback while recorded it must not: the FK
    would be recorded into the graph and replayed by every step, pinning the box to its start pose."""
    sim = _start(device)
    NewtonManager.invalidate_fk()
    with pytest.warns(RuntimeWarning, match="launched no Warp kernel"):
        NewtonManager.register_post_step_callback(lambda: NewtonManager.get_state())
    for _ in range(5):
        NewtonManager.step()
    assert _box_q()[0, 2] == pytest.approx(_free_fall_z(10), abs=G * DT * 10 * DT)
    sim.clear_instance()


def test_an_eager_callback_marking_fk_at_reset_does_not_reset_the_first_step(device):
    """The warm-up's state changes are undone, and so is what its callbacks marked: the first step falls from the
    start pose without an extra reset, and the callback's real runs mark as before."""
    physics = NewtonCfg(solver_cfg=SteelSolverCfg(), decimation=2)
    sim = SimulationContext(SimulationCfg(dt=DT, device=device, physics=physics))
    builder = NewtonManager.create_builder()
    body = builder.add_body(xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()), label="/World/box")
    builder.add_shape_box(body, hx=0.05, hy=0.05, hz=0.05)
    NewtonManager.set_builder(builder)
    calls = []

    def marks_fk():
        calls.append(NewtonManager.get_simulation_time())
        NewtonManager.invalidate_fk(env_ids=[0])

    NewtonManager.register_post_step_callback(marks_fk, graph_safe=False)
    sim.reset()
    assert len(calls) == 1  # the warm-up ran it
    NewtonManager.step()
    assert len(calls) == 2 and _box_q()[0, 2] == pytest.approx(_free_fall_z(2), abs=G * DT * 2 * DT)
    sim.clear_instance()


class _no_warning:
    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error", RuntimeWarning)

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)
