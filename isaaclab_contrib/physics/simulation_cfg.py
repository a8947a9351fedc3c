"""Simulation-level configuration: the physics step, device and Newton settings."""

from __future__ import annotations

from typing import Literal

from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass

from .collision_cfg import NewtonCollisionPipelineCfg
from .model_cfg import NewtonModelCfg
from .solver_cfg import NewtonSolverCfg

__all__ = ["NewtonCfg", "SimulationCfg"]


@configclass
class NewtonCfg:
    """Newton physics settings of a simulation."""

    solver_cfg: NewtonSolverCfg = MISSING
    """Solver configuration: a coupler (:class:`~isaaclab_contrib.coupling.CouplerAdmmCfg`,
    :class:`~isaaclab_contrib.coupling.CouplerProxyCfg`) or a single solver config."""
    num_substeps: int = 1
    """Solver substeps per physics step [count]; the solver step is ``dt / num_substeps`` [s]."""
    collision_interval: int = 1
    """Run collision detection at the start of every N-th physics step of an env step [physics steps].
    Counted from the first physics step of each ``step()`` call; substeps reuse the contacts."""
    use_cuda_graph: bool = True
    """Capture the whole decimation loop as one Warp graph (CUDA, or the CPU where Warp records and
    replays graphs) and replay it on every ``step()``. When capture is impossible the manager steps
    eagerly and logs why once."""
    model_cfg: NewtonModelCfg | None = None
    """Global model parameters applied after finalization; overrides ``solver_cfg.model_cfg`` when set."""
    collision_cfg: NewtonCollisionPipelineCfg = NewtonCollisionPipelineCfg()
    """Collision pipeline built when the solver consumes Newton pipeline contacts."""
    body_qdd_source: Literal["solver", "step_average"] = "solver"
    """Where IMU body accelerations come from. ``"solver"``: the solver's ``BODY_QDD`` observable
    (MuJoCo-Warp, Kamino; for a coupled solver every entry that owns bodies must support it).
    ``"step_average"``: measured by the manager as ``(body_qd_out - body_qd_in) / dt`` over every
    solver substep of the (coupled) step, for any solver; it includes coupling forces and, across an
    impact, the impulse divided by ``dt``."""

    def validate(self) -> None:
        """Check types and ranges; errors name the field."""
        check_missing(self)
        if not isinstance(self.solver_cfg, NewtonSolverCfg):
            raise TypeError(f"NewtonCfg.solver_cfg must be a NewtonSolverCfg, got {type(self.solver_cfg).__name__}")
        for name in ("num_substeps", "collision_interval"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"NewtonCfg.{name} must be an integer, got {type(value).__name__}")
            if value < 1:
                raise ValueError(f"NewtonCfg.{name} must be >= 1, got {value}")
        if self.model_cfg is not None:
            if not isinstance(self.model_cfg, NewtonModelCfg):
                raise TypeError("NewtonCfg.model_cfg must be a NewtonModelCfg or None")
            self.model_cfg.validate()
        if self.body_qdd_source not in ("solver", "step_average"):
            raise ValueError(
                f"NewtonCfg.body_qdd_source must be 'solver' or 'step_average', got {self.body_qdd_source!r}"
            )
        if not isinstance(self.collision_cfg, NewtonCollisionPipelineCfg):
            raise TypeError("NewtonCfg.collision_cfg must be a NewtonCollisionPipelineCfg")


@configclass
class SimulationCfg:
    """Top-level simulation configuration."""

    dt: float = 1.0 / 60.0
    """Physics step [s]. One env step is ``decimation * dt``."""
    device: str = "cuda:0"
    """Warp device (``"cpu"``, ``"cuda:0"``). An unavailable CUDA device falls back to the CPU with a warning."""
    physics: NewtonCfg = MISSING
    """Newton physics settings."""

    def validate(self) -> None:
        """Check types and ranges; errors name the field."""
        check_missing(self)
        if isinstance(self.dt, bool) or not isinstance(self.dt, (int, float)):
            raise TypeError(f"SimulationCfg.dt must be a number [s], got {type(self.dt).__name__}")
        if not self.dt > 0.0:
            raise ValueError(f"SimulationCfg.dt must be > 0 [s], got {self.dt}")
        if not isinstance(self.device, str):
            raise TypeError("SimulationCfg.device must be a device string such as 'cpu' or 'cuda:0'")
        if not isinstance(self.physics, NewtonCfg):
            raise TypeError(f"SimulationCfg.physics must be a NewtonCfg, got {type(self.physics).__name__}")
        self.physics.validate()
