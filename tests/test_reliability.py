"""Bad input is named, and nothing is silently ignored: unowned dynamic bodies, script arguments."""

import subprocess
import sys
from pathlib import Path

import newton
import pytest
import warp as wp

from configs.box_on_cloth import BoxOnClothSceneCfg, admm_coupler_cfg, build_box_on_cloth
from isaaclab_contrib.coupling import CouplingWarning, prepare_builder, resolve_coupling

ROOT = Path(__file__).resolve().parents[1]


def test_a_dynamic_body_owned_by_no_entry_is_named_in_a_warning():
    cfg = admm_coupler_cfg()
    builder = newton.ModelBuilder()
    prepare_builder(builder, cfg)
    build_box_on_cloth(builder, BoxOnClothSceneCfg(num_envs=1, cloth_cells=2))
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
