"""Simulation-level configuration: the physics step, device and Newton settings."""

from __future__ import annotations

from typing import ClassVar, Literal

from isaaclab_contrib.physics.collision_cfg import NewtonCollisionPipelineCfg
from isaaclab_contrib.physics.model_cfg import NewtonModelCfg
from isaaclab_contrib.physics.shape_cfg import NewtonShapeCfg
from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.validation import check_device_alias, check_fields, nested

__all__ = ["NewtonCfg", "SimulationCfg"]


@configclass
class NewtonCfg:
    """Newton physics settings of a simulation."""

    _ranges: ClassVar[dict[str, str]] = {"decimation": ">= 1", "num_substeps": ">= 1", "collision_interval": ">= 1"}

    solver_cfg: NewtonSolverCfg = MISSING
    """Solver configuration: a coupler (:class:`~isaaclab_contrib.coupling.CouplerAdmmCfg`,
    :class:`~isaaclab_contrib.coupling.CouplerProxyCfg`) or a single solver config."""
    decimation: int = 1
    """Physics steps per ``step()`` (one env step) [count]. Given here, ``sim.reset()`` records the step
    program once for it; ``NewtonManager.set_decimation()`` still changes it later, at a step boundary
    (and records the program again)."""
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
    shape_cfg: NewtonShapeCfg = NewtonShapeCfg()
    """Per-shape defaults (margin, gap, friction...) set on every builder from ``create_builder()``."""
    body_qdd_source: Literal["solver", "step_average"] = "solver"
    """Where IMU body accelerations come from. ``"solver"``: the solver's ``BODY_QDD`` observable
    (MuJoCo-Warp, Kamino; for a coupled solver every entry that owns bodies must support it).
    ``"step_average"``: measured by the manager as ``(body_qd_out - body_qd_in) / dt`` over every
    solver substep of the (coupled) step, for any solver; it includes coupling forces and, across an
    impact, the impulse divided by ``dt``."""

    def validate(self) -> None:
        """Check types and ranges, and validate the nested configs; errors name the field."""
        check_missing(self)
        check_fields(self)
        if not isinstance(self.solver_cfg, NewtonSolverCfg):
            raise TypeError(f"NewtonCfg.solver_cfg must be a NewtonSolverCfg, got {type(self.solver_cfg).__name__}")
        with nested("NewtonCfg.solver_cfg"):
            self.solver_cfg.validate()
        if self.model_cfg is not None:
            if not isinstance(self.model_cfg, NewtonModelCfg):
                raise TypeError(
                    f"NewtonCfg.model_cfg must be a NewtonModelCfg or None, got {type(self.model_cfg).__name__}"
                )
            with nested("NewtonCfg.model_cfg"):
                self.model_cfg.validate()
        if not isinstance(self.collision_cfg, NewtonCollisionPipelineCfg):
            raise TypeError(
                f"NewtonCfg.collision_cfg must be a NewtonCollisionPipelineCfg, got {type(self.collision_cfg).__name__}"
            )
        with nested("NewtonCfg.collision_cfg"):
            self.collision_cfg.validate()
        if not isinstance(self.shape_cfg, NewtonShapeCfg):
            raise TypeError(f"NewtonCfg.shape_cfg must be a NewtonShapeCfg, got {type(self.shape_cfg).__name__}")
        with nested("NewtonCfg.shape_cfg"):
            self.shape_cfg.validate()


@configclass
class SimulationCfg:
    """Top-level simulation configuration."""

    _ranges: ClassVar[dict[str, str]] = {"dt": "> 0"}

    dt: float = 1.0 / 60.0
    """Physics step [s]. One env step is ``decimation * dt``."""
    device: str = "cuda:0"
    """Warp device alias: ``"cpu"``, ``"cuda"`` or ``"cuda:N"``; anything else is rejected. An unavailable
    CUDA device falls back to the CPU with a warning."""
    physics: NewtonCfg = MISSING
    """Newton physics settings."""

    def validate(self) -> None:
        """Check types and ranges, and validate :attr:`physics`; errors name the field."""
        check_missing(self)
        check_fields(self)
        check_device_alias(self.device, "SimulationCfg.device")
        if not isinstance(self.physics, NewtonCfg):
            raise TypeError(f"SimulationCfg.physics must be a NewtonCfg, got {type(self.physics).__name__}")
        with nested("SimulationCfg.physics"):
            self.physics.validate()
