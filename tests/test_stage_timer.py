"""The step program's profiling hook: ``StepProgram.set_stage_timer`` times every operation of an env step."""

import numpy as np
import warp as wp

from isaaclab_contrib.physics.runtime.step_program import Phase, Stage, StepProgram


@wp.kernel
def _add(a: wp.array(dtype=float), value: float):
    a[wp.tid()] += value


def _program(device: str, capture: bool, host_calls: list):
    data = wp.zeros(4, dtype=float, device=device)
    stages = [
        Stage("actuators", Phase.PHYSICS_STEP, lambda i: wp.launch(_add, 4, inputs=[data, 1.0], device=device)),
        Stage(
            "post_actuator:host",
            Phase.PHYSICS_STEP,
            lambda i: host_calls.append(i),
            graph_safe=False,
            reason="host work",
        ),
        Stage("substeps", Phase.PHYSICS_STEP, lambda i: wp.launch(_add, 4, inputs=[data, 10.0], device=device)),
        Stage("sensors", Phase.ENV_STEP, lambda i: wp.launch(_add, 4, inputs=[data, 100.0], device=device)),
    ]
    program = StepProgram(stages, decimation=2, device=device, capture=capture)
    program.capture()
    return program, data


def test_stage_timer_times_each_operation_in_program_order_and_steps_the_same(device):
    for capture in (True, False):
        calls: list = []
        program, data = _program(device, capture, calls)
        assert program.mode() == ("partial" if capture else "eager")
        program.run()
        after_one = data.numpy().copy()
        np.testing.assert_array_equal(after_one, np.full(4, 122.0))
        timed: list = []
        program.set_stage_timer(lambda stage, i, seconds, out=timed: out.append((stage.name, i, seconds)))
        program.run()
        names = [(name, i) for name, i, _ in timed]
        assert names == [
            ("actuators", 0),
            ("post_actuator:host", 0),
            ("substeps", 0),
            ("actuators", 1),
            ("post_actuator:host", 1),
            ("substeps", 1),
            ("sensors", -1),
        ]
        assert all(seconds >= 0.0 for _, _, seconds in timed)
        np.testing.assert_array_equal(data.numpy(), 2 * after_one)  # the timed step did the same work once
        assert calls == [0, 1, 0, 1]  # host stages ran once per timed step too (recording runs none)
        program.set_stage_timer(None)
        program.run()
        assert len(timed) == 7  # unset: no more calls
        np.testing.assert_array_equal(data.numpy(), 3 * after_one)
