"""The scripts run end to end on tiny settings."""

import sys
from pathlib import Path

import numpy as np
from pxr import Usd, UsdGeom

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import inspect_ownership
import run

from configs.ant_on_hammock import AntOnHammockSceneCfg


def test_main_job_default_scene_writes_usda_and_png(tmp_path, capsys):
    result = run.main(["--frames", "3", "--output", str(tmp_path)])
    out = capsys.readouterr().out
    assert "Scene 'ant_on_hammock'" in out and "Coupling: CouplerAdmmCfg -> newton SolverCoupledADMM" in out
    assert "Stepping: captured" in out and "env steps/s" in out
    assert result["finite"] and result["step_mode"] == "graph"  # the actuated ant captures on the CPU
    # The gait drove the eight leg joints: targets changed, and the plot got their targets and positions.
    joints = result["joints"]
    assert sorted(joints) == sorted([f"hip_{i}" for i in range(1, 5)] + [f"ankle_{i}" for i in range(1, 5)])
    for target, position in joints.values():
        assert target.shape == position.shape == (4,) and np.ptp(target) > 0.0
    assert result["png"].stat().st_size > 10_000
    stage = Usd.Stage.Open(str(result["usda"]))
    assert stage.GetEndTimeCode() == 3
    bodies = [
        p
        for p in stage.Traverse()
        if p.GetParent().GetName() != "envs" and p.IsA(UsdGeom.Xform) and "Robot" in str(p.GetPath())
    ]
    animated = [p for p in bodies if UsdGeom.Xformable(p).GetOrderedXformOps()]
    assert len(animated) == 9  # every ant body
    for prim in animated:
        assert UsdGeom.Xformable(prim).GetOrderedXformOps()[0].GetAttr().GetNumTimeSamples() == 4
    points = UsdGeom.Points(stage.GetPrimAtPath("/World/envs/env_0/Particles"))
    assert points.GetPointsAttr().GetNumTimeSamples() == 4
    cells = AntOnHammockSceneCfg().hammock_cells
    assert len(points.GetPointsAttr().Get(3)) == (cells + 1) ** 2  # every hammock particle
    # The recorded last frame matches the simulated heights.
    torso = UsdGeom.Xformable(stage.GetPrimAtPath(animated[0].GetPath()))
    z = torso.ComputeLocalToWorldTransform(Usd.TimeCode(3)).ExtractTranslation()[2]
    assert np.isclose(z, result["heights"][-1, 0, 0], atol=1e-4)


def test_main_job_runs_a_captured_scene(tmp_path):
    result = run.main(["--scene", "grains_on_cloth", "--frames", "5", "--output", str(tmp_path)])
    assert result["captured"] and result["finite"] and result["usda"].exists()


def test_ownership_report_lists_entries_and_interfaces(capsys):
    report = inspect_ownership.main(["--scene", "tool_in_sand", "--num-envs", "2"])
    assert "tool        SteelSolverCfg               2       2       3         0  yes" in report
    assert "Proxy tool -> sand (lagged): 2 bodies" in report
    assert "Static shapes: /World/ground" in report
    report = inspect_ownership.main(["--scene", "box_on_cloth_admm", "--num-envs", "1"])
    assert "ADMM contact pairs: box <-> cloth" in report


def test_training_script_trains_saves_and_plays(tmp_path):
    import train

    result = train.main(["--num-envs", "2", "--iterations", "2", "--eval-rounds", "1", "--output", str(tmp_path)])
    assert result["env_steps"] == 2 * 32 * 2
    checkpoint = tmp_path / "press_cloth_seed0.pt"
    assert checkpoint.exists() and (tmp_path / "press_cloth_seed0.png").stat().st_size > 10_000
    played = train.main(["--num-envs", "2", "--play", str(checkpoint), "--eval-rounds", "1"])
    assert isinstance(played, float)
