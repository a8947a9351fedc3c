"""How often the step program is recorded: decimation in the config records once; unchanged values never re-record.

A falling box on a Steel solver (no coupling needed): every graph recording goes through
``StepProgram._record``, which the tests count.
"""

import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.physics import NewtonCfg, NewtonManager, SimulationCfg, SimulationContext, SteelSolverCfg
from isaaclab_contrib.physics.runtime.step_program import StepProgram

DT = 1.0 / 240.0


@pytest.fixture
def recordings(monkeypatch):
    """The number of graph recordings made since the test started (one entry per recorded segment)."""
    calls: list[int] = []
    original = StepProgram._record

    def counting(self, ops):
        calls.append(len(ops))
        return original(self, ops)

    monkeypatch.setattr(StepProgram, "_record", counting)
    return calls


def _start(device: str, **physics) -> SimulationContext:
    sim = SimulationContext(
        SimulationCfg(dt=DT, device=device, physics=NewtonCfg(solver_cfg=SteelSolverCfg(), **physics))
    )
    builder = NewtonManager.create_builder()
    body = builder.add_body(xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()), label="/World/box")
    builder.add_shape_box(body, hx=0.05, hy=0.05, hz=0.05)
    NewtonManager.set_builder(builder)
    sim.reset()
    return sim


def test_decimation_in_the_config_records_the_step_once(device, recordings):
    sim = _start(device, decimation=4)
    assert NewtonManager.get_decimation() == 4
    assert NewtonManager.step_mode() == "captured", NewtonManager.eager_reason()
    assert len(recordings) == 1  # one graph for the whole env step, recorded once by sim.reset()
    z0 = NewtonManager.get_state_0().body_q.numpy()[0, 2]
    NewtonManager.step()
    assert len(recordings) == 1
    # Free fall over one env step of 4 physics steps: z0 - g t^2 / 2 (semi-implicit Euler: within one step).
    t = 4 * DT
    z = NewtonManager.get_state_0().body_q.numpy()[0, 2]
    assert z == pytest.approx(z0 - 0.5 * 9.81 * t * t, abs=9.81 * DT * t)
    assert NewtonManager.get_simulation_time() == pytest.approx(t)
    sim.clear_instance()


def test_setting_the_current_decimation_is_not_a_change(device, recordings):
    sim = _start(device, decimation=2)
    NewtonManager.set_decimation(2)
    assert len(recordings) == 1
    NewtonManager.set_decimation(3)
    assert len(recordings) == 2 and NewtonManager.get_decimation() == 3
    sim.clear_instance()


def test_decimation_set_after_reset_records_again(device, recordings):
    sim = _start(device)
    NewtonManager.set_decimation(4)
    assert len(recordings) == 2  # the old start-up sequence: once for decimation 1, once for 4
    sim.clear_instance()


@pytest.mark.filterwarnings("ignore:step-program stage .* launched no Warp kernel:RuntimeWarning")
def test_a_graph_safe_callback_setting_the_decimation_changes_it_from_the_second_step(device, recordings):
    """A callback that sets the decimation on every call: its recording stands for its run in the first step,
    so the change applies at the end of that step (2 + 3 + 3 physics steps), then it is the current value."""
    sim = _start(device, decimation=2)
    # Host work in a graph-safe callback is reported (it would run only while recording).
    with pytest.warns(RuntimeWarning, match="launched no Warp kernel"):
        NewtonManager.register_post_step_callback(lambda: NewtonManager.set_decimation(3))
    assert NewtonManager.get_decimation() == 2  # the step being recorded keeps its decimation
    count = len(recordings)
    NewtonManager.step()
    assert NewtonManager.get_simulation_time() == pytest.approx(2 * DT)
    assert NewtonManager.get_decimation() == 3 and len(recordings) > count  # recorded again for 3
    count = len(recordings)
    for _ in range(2):
        NewtonManager.step()
    assert len(recordings) == count and NewtonManager.get_decimation() == 3
    assert NewtonManager.get_simulation_time() == pytest.approx((2 + 3 + 3) * DT)
    assert np.isfinite(NewtonManager.get_state_0().body_q.numpy()).all()
    sim.clear_instance()
