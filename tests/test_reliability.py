"""Bad input is named, and nothing is silently ignored: unowned dynamic bodies, script arguments."""

import subprocess
import sys
from pathlib import Path

import newton
import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.coupling import CouplingWarning, prepare_builder, resolve_coupling
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg

ROOT = Path(__file__).resolve().parents[1]


def test_a_dynamic_body_owned_by_no_entry_is_named_in_a_warning():
    scene = BoxOnClothSceneCfg(num_envs=1, coupling="admm")
    scene.cloth.cells = 2
    cfg = scene.coupler_cfg()
    builder = newton.ModelBuilder()
    prepare_builder(builder, cfg)
    scene.build(builder)
    stray = builder.add_body(xform=wp.transform((2.0, 0.0, 1.0), wp.quat_identity()), label="/World/Stray/body")
    builder.add_shape_box(stray, hx=0.1, hy=0.1, hz=0.1)
    fixed = builder.add_body(xform=wp.transform((3.0, 0.0, 1.0), wp.quat_identity()), label="/World/Fixed/body")
    builder.add_shape_box(fixed, hx=0.1, hy=0.1, hz=0.1, cfg=newton.ModelBuilder.ShapeConfig(density=0.0))
    model = builder.finalize(device="cpu")
    with pytest.warns(
        CouplingWarning, match=r"1 dynamic bodies belong to no entry and will not move \(body '/World/Stray/body'"
    ):
        plan = resolve_coupling(model, cfg)
    assert stray in plan.unowned_bodies and fixed in plan.unowned_bodies  # the massless one is not warned about


def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "run.py"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


@pytest.mark.slow  # one fresh interpreter per bad argument
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--frames", "0"], "--frames: must be >= 1, got 0"),
        (["--dt", "inf"], "--dt: must be a finite number > 0, got inf"),
        (["--dt", "nan"], "--dt: must be a finite number > 0, got nan"),
        (["--num-envs", "-2"], "--num-envs: must be >= 1, got -2"),
        (["--frames", "ten"], "--frames: expected an integer, got 'ten'"),
    ],
)
def test_the_main_job_rejects_bad_numbers_before_writing_anything(args, message, tmp_path):
    result = run_script(*args, "--output", str(tmp_path / "out"))
    assert result.returncode == 2 and message in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_boolean_tensor_as_env_ids_is_refused_and_marks_nothing():
    import torch
    from manager_helpers import cheap_coupler, small_scene, snapshot, start

    from isaaclab_contrib.coupling import NewtonCouplerManager

    start(cheap_coupler("admm"), graph=True, substeps=1, decimation=1, scene=small_scene(2))
    before = snapshot()
    with pytest.raises(TypeError, match="env_ids holds booleans; pass a boolean mask as env_mask"):
        NewtonCouplerManager.write_initial_state(env_ids=torch.tensor([False, True]))
    with pytest.raises(TypeError, match="env_mask must be a boolean mask"):
        NewtonCouplerManager.invalidate_fk(env_mask=torch.tensor([0, 1]))
    NewtonCouplerManager.forward()
    for name, values in snapshot().items():
        np.testing.assert_array_equal(values, before[name], err_msg=name)  # nothing was reset
    NewtonCouplerManager.write_initial_state(env_mask=torch.tensor([False, True]))  # the right way works


def test_a_sensor_that_fails_after_reset_is_unregistered_and_later_resets_work():
    from manager_helpers import cheap_coupler, small_scene, start

    from isaaclab_contrib.coupling import NewtonCouplerManager
    from isaaclab_contrib.physics import NewtonManager

    start(cheap_coupler("admm"), graph=True, substeps=1, decimation=1, scene=small_scene(1))
    with pytest.raises(ValueError, match="match no body with shapes and no shape"):
        NewtonCouplerManager.add_contact_sensor(body_names_expr=r"/World/NoSuchBody")
    assert NewtonManager._session.sensors_of("contact") == []
    NewtonCouplerManager.reset()  # used to fail on the leftover sensor, every time
    NewtonCouplerManager.step()
    assert NewtonCouplerManager.step_mode() == "captured"
