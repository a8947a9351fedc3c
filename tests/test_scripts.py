"""The scripts run end to end on tiny settings."""

import sys
from pathlib import Path

import numpy as np
import pytest
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


def test_ownership_report_shows_view_settings_and_proxy_joints():
    report = inspect_ownership.main(["--scene", "xpbd_vbd_coupled", "--num-envs", "1"])
    assert "[grains]" in report and "  view hides: springs, triangles, edges, tetrahedra" in report
    report = inspect_ownership.main(["--scene", "proxy_joint_gripper_harsh", "--num-envs", "2"])
    assert "6 proxy joints [/World/envs/env_0/Gripper/palm_weld, /World/envs/env_0/Gripper/left_finger_slide" in report
    report = inspect_ownership.main(["--scene", "mujoco_vbd_admm", "--num-envs", "1"])
    assert "Joints across entries (ADMM couples them): /World/envs/env_0/Payload/ball_joint" in report
    assert "(update_joint_coordinates)" in report


def test_training_script_trains_with_rsl_rl_exports_and_plays(tmp_path):
    import json

    import play
    import train

    task = "Isaac-Arm-Press-Cloth-Direct-v0"
    common = ["--task", task, "--num_envs", "2", "--eval_episodes", "1", "--seed", "3"]
    result = train.main([*common, "--max_iterations", "2", "--log_root", str(tmp_path)])
    assert result["env_steps"] == 2 * 24 * 2 and result["seed"] == 3
    (run,) = (tmp_path / "arm_press_cloth").iterdir()
    assert run.name.endswith("_seed3")
    assert list(run.glob("events.out.tfevents.*"))  # rsl-rl's tensorboard log
    assert (run / "model_1.pt").exists() and (run / "exported" / "policy.onnx").exists()
    assert (run / "learning_curve.png").stat().st_size > 10_000
    saved = json.loads((run / "result.json").read_text())
    assert saved["oracle_return"] > saved["random_return"] and saved["trained_return"] == result["trained_return"]
    # The checkpoint and its TorchScript export act identically on the same episodes.
    from_checkpoint = play.main([*common, "--checkpoint", str(run / "model_1.pt"), "--no_export"])
    from_export = play.main([*common, "--checkpoint", str(run / "exported" / "policy.pt")])
    assert from_checkpoint["policy_return"] == pytest.approx(result["trained_return"], abs=1e-4)
    assert from_export["policy_return"] == pytest.approx(from_checkpoint["policy_return"], abs=1e-4)
    # A policy of another task is refused with a message naming the file.
    other = ["--task", "Isaac-Press-Cloth-Direct-v0", "--num_envs", "2", "--eval_episodes", "1"]
    for path in (run / "model_1.pt", run / "exported" / "policy.pt"):
        with pytest.raises(SystemExit, match=str(path)):
            play.main([*other, "--checkpoint", str(path), "--no_export"])


def test_rl_scripts_refuse_bad_arguments(tmp_path, capsys):
    import play
    import train

    with pytest.raises(SystemExit):
        train.main(["--task", "Isaac-No-Such-Task-v0"])
    assert "registered coupled tasks" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["--num_envs", "0"])
    with pytest.raises(SystemExit):
        play.main(["--checkpoint", str(tmp_path / "missing.pt")])
    assert "no such checkpoint file" in capsys.readouterr().err


def test_benchmark_env_reports_captured_and_eager_rates():
    import benchmark_env

    (row,) = benchmark_env.main(["--num_envs", "2", "--steps", "4"])
    assert row["num_envs"] == 2 and row["captured"] > 0 and row["eager"] > 0
