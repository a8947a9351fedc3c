"""The main job runs end to end on a tiny setting."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import run


def test_main_job_runs_through_the_manager_and_reports(capsys):
    result = run.main(["--env-steps", "15", "--num-envs", "1", "--device", "cpu"])
    out = capsys.readouterr().out
    assert "Coupling: CouplerAdmmCfg -> newton SolverCoupledADMM" in out
    assert "box     SteelSolverCfg        1" in out
    assert "captured as one graph" in out
    assert result["finite"]
    assert result["box_bottom"].shape == (1,)
