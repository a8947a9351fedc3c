"""Configuration of :class:`newton.solvers.SolverKamino`."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg, SolverConfigError
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.utils.configclass import configclass

if TYPE_CHECKING:
    import newton

__all__ = ["KaminoBinding", "KaminoSolverCfg"]

_NESTED = ("constraints", "dynamics", "padmm", "dvi", "lox", "fk", "collision_detector", "materials")


@configclass
class KaminoSolverCfg(NewtonSolverCfg):
    """Newton's Kamino solver (maximal-coordinate constrained dynamics, proximal ADMM).

    Top-level fields map to ``SolverKamino.Config``; the ``*_overrides`` dictionaries set
    attributes of its nested configs (for example ``padmm_overrides={"max_iterations": 120}``)
    and an unknown key raises. Kamino can be a coupled entry; with
    ``use_collision_detector=False`` it steps on Newton pipeline contacts.
    """

    solver_class_path: ClassVar[str] = "newton.solvers:SolverKamino"
    _local_fields: ClassVar[frozenset[str]] = frozenset(
        {"extra_solver_args", *(f"{name}_overrides" for name in _NESTED)}
    )
    _ranges: ClassVar[dict[str, str]] = {"angular_velocity_damping": "[0, 1]"}

    use_collision_detector: bool = False
    """Use Kamino's own collision detector instead of Newton pipeline contacts."""
    use_fk_solver: bool = False
    """Use Kamino's iterative forward-kinematics solver on reset."""
    integrator: Literal["euler", "moreau"] = "euler"
    """Time integrator."""
    dynamics_solver: Literal["padmm", "dvi", "lox"] = "padmm"
    """Constrained dynamics solver."""
    rotation_correction: Literal["twopi", "continuous", "none"] = "twopi"
    """Joint angle wrap-around handling."""
    angular_velocity_damping: float = 0.0
    """Angular velocity damping factor [dimensionless], in [0, 1]."""
    sparse_dynamics: bool = False
    """Use sparse dynamics matrices."""
    constraints_overrides: dict[str, Any] = {}
    """Attributes set on ``Config.constraints`` (constraint stabilization)."""
    dynamics_overrides: dict[str, Any] = {}
    """Attributes set on ``Config.dynamics``."""
    padmm_overrides: dict[str, Any] = {}
    """Attributes set on ``Config.padmm`` (proximal ADMM solver)."""
    dvi_overrides: dict[str, Any] = {}
    """Attributes set on ``Config.dvi``."""
    lox_overrides: dict[str, Any] = {}
    """Attributes set on ``Config.lox``."""
    fk_overrides: dict[str, Any] = {}
    """Attributes set on ``Config.fk``."""
    collision_detector_overrides: dict[str, Any] = {}
    """Attributes set on ``Config.collision_detector``."""
    materials_overrides: dict[str, Any] = {}
    """Attributes set on ``Config.materials``."""

    def _accepted_arguments(self) -> set[str]:
        return {f.name for f in dataclasses.fields(self.solver_class().Config)}

    def make_config(self):
        """Return the ``SolverKamino.Config`` described by this config."""
        cls = self.solver_class()
        config = cls.Config(**self.solver_kwargs())
        for name in _NESTED:
            overrides = getattr(self, f"{name}_overrides") or {}
            if not overrides:
                continue
            nested = getattr(config, name)
            if nested is None:
                raise SolverConfigError(
                    f"{type(self).__name__}.{name}_overrides: SolverKamino.Config.{name} is None in this Newton "
                    "version and cannot be overridden."
                )
            for key, value in overrides.items():
                if not hasattr(nested, key):
                    raise SolverConfigError(
                        f"{type(self).__name__}.{name}_overrides[{key!r}] does not map to an attribute of "
                        f"{type(nested).__name__}."
                    )
                setattr(nested, key, value)
        return config


class KaminoBinding(SolverBinding):
    """Kamino: top-level fields go to ``SolverKamino.Config``, ``*_overrides`` into its nested configs."""

    family = "kamino"

    def build(self, cfg: KaminoSolverCfg, model: Any) -> newton.solvers.SolverBase:
        return cfg.solver_class()(model, cfg.make_config())

    def needs_collision_pipeline(self, cfg: KaminoSolverCfg) -> bool:
        return not cfg.use_collision_detector


register_binding(KaminoSolverCfg, KaminoBinding())
