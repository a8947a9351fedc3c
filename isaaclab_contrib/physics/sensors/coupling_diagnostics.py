"""Coupling diagnostics: per env, how far the coupling iterations of the last env step were from converged.

The coupled bound solver builds the residual computation
(:meth:`~isaaclab_contrib.coupling.binding.BoundCoupledSolver.coupling_diagnostics`); this sensor attaches it to
the solver around every coupled step and publishes the env step's figures once per env step.
"""

from __future__ import annotations

from typing import Any

import warp as wp

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime
from isaaclab_contrib.physics.sensors.interface_force import coupled_factory

__all__ = ["CouplingDiagnosticsRequest", "CouplingDiagnosticsSensor"]


class CouplingDiagnosticsSensor:
    """Zero-copy torch views of the diagnostics (see :meth:`NewtonCouplerManager.get_coupling_diagnostics`)."""

    def __init__(self, diagnostics: Any):
        self.kind = diagnostics.kind
        """``"admm"`` or ``"proxy"``."""
        self.tolerance = diagnostics.tolerance
        """``CouplerCfg.convergence_tolerance`` the ``"converged"`` flags use [dimensionless]."""
        self.iterations = diagnostics.iterations
        """Coupling iterations run per coupled step (the config's fixed budget) [count]."""
        envs, iterations = diagnostics.num_envs, diagnostics.iterations
        out = diagnostics.out
        names = {
            "residual": "residual",
            "residual_max": "residual_max",
            "converged": "converged",
            "iterations": "iterations",
            "iterations_to_tolerance": "iterations_to_tolerance",
        }
        if self.kind == "admm":
            names.update(
                {
                    "primal_residual": "primal_residual",
                    "dual_residual": "dual_residual",
                    "interface_force": "interface_force",
                }
            )
        else:
            names.update({"feedback_change": "primal_residual", "feedback": "interface_force"})
            if diagnostics.has_aitken:
                names["aitken_relaxation"] = "relaxation"
        self.tensors: dict[str, Any] = {name: wp.to_torch(out[source]) for name, source in names.items()}
        self.tensors["residual_history"] = wp.to_torch(out["residual_history"]).view(envs, iterations)
        self._diagnostics = diagnostics


class CouplingDiagnosticsRequest(SensorRequest):
    """The coupling diagnostics of the running coupled solver (one per simulation)."""

    kind = "coupling_diagnostics"

    def __init__(self):
        super().__init__("coupling_diagnostics")

    def create(self, build: SensorBuild) -> SensorRuntime:
        factory = coupled_factory(build, "coupling_diagnostics", self.name, "coupling diagnostics")
        return _DiagnosticsRuntime(CouplingDiagnosticsSensor(factory(self.name)))


class _DiagnosticsRuntime(SensorRuntime):
    samples_substeps = True

    def begin_substep(self, state_in: Any) -> None:
        del state_in
        self.sensor._diagnostics.begin_step()

    def end_substep(self, state_out: Any, dt: float) -> None:
        del state_out, dt
        self.sensor._diagnostics.end_step()

    def update(self, state: Any) -> None:
        del state
        self.sensor._diagnostics.publish()
