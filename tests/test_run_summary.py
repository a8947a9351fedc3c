"""``scripts/run.py`` writes ``<output>/<scene>.json`` (stepping mode, eager stage, speed and the scene's own
checks) beside the USD and PNG, and exits with status 1 when a check fails; the Franka and USD scenes pass their
checks as a user runs them (``slow``: each simulates 2.5 to 5.5 s)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parents[1] / "scripts" / "run.py"

pytestmark = pytest.mark.slow  # scripts/run.py in fresh interpreters


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )


def test_summary_json_and_exit_status(tmp_path):
    ok = _run(
        f"""
        import runpy, sys
        sys.argv = ["run.py", "--scene", "box_on_cloth", "--frames", "3", "--no-video", "--output", "out"]
        runpy.run_path({str(RUN)!r}, run_name="__main__")
        """,
        tmp_path,
    )
    assert ok.returncode == 0, ok.stderr[-2000:]
    summary = json.loads((tmp_path / "out" / "box_on_cloth.json").read_text())
    assert {"step_mode", "eager_reason", "env_steps_per_s", "checks", "passed"} <= set(summary)
    assert summary["step_mode"] == "captured" and summary["eager_reason"] is None and summary["env_steps_per_s"] > 0
    assert set(summary["checks"]) == {"finite", "box_min_z"} and summary["passed"]
    assert summary["checks"]["box_min_z"]["passed"] and summary["checks"]["box_min_z"]["unit"] == "m"
    assert (tmp_path / "out" / "box_on_cloth.usda").is_file() and (tmp_path / "out" / "box_on_cloth.png").is_file()

    # A check that cannot pass (the box above 10 m): the run says so and exits with status 1.
    failed = _run(
        f"""
        import runpy, sys
        from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg
        from isaaclab_contrib.scenes import ENV_PATH, MinHeightCheck
        from isaaclab_contrib.scenes.checks import body_points
        BoxOnClothSceneCfg.checks = lambda self: [MinHeightCheck("box_flies", body_points(ENV_PATH + "/Box/body"), 10.0)]
        sys.argv = ["run.py", "--scene", "box_on_cloth", "--frames", "2", "--no-video", "--output", "out"]
        runpy.run_path({str(RUN)!r}, run_name="__main__")
        """,
        tmp_path,
    )
    assert failed.returncode == 1, failed.stderr[-2000:]
    assert "check box_flies" in failed.stdout and "FAIL" in failed.stdout
    summary = json.loads((tmp_path / "out" / "box_on_cloth.json").read_text())
    assert not summary["passed"] and not summary["checks"]["box_flies"]["passed"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scene", "num_envs", "expected"),
    [
        ("franka_lift_soft", 1, {"lifted_m": 0.10, "held_s": 1.0}),
        ("franka_lift_soft", 3, {"lifted_m": 0.10, "held_s": 1.0}),  # the checks take the worst env
        ("franka_lift_cable", 1, {"lifted_m": 0.10, "held_s": 1.0}),
        ("franka_cloth", 1, {"lifted_m": 0.10, "held_s": 1.0}),
        ("usd_cloth_on_robot", 1, {"cloth_min_z": 0.1}),
    ],
)
def test_robot_scenes_pass_their_checks_captured(scene, num_envs, expected, tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            str(RUN),
            "--scene",
            scene,
            "--num-envs",
            str(num_envs),
            "--no-video",
            "--output",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    summary = json.loads((tmp_path / f"{scene}.json").read_text())
    assert summary["step_mode"] == "captured" and summary["eager_reason"] is None
    for name, bound in expected.items():
        assert summary["checks"][name]["passed"] and summary["checks"][name]["value"] >= bound, summary["checks"]
