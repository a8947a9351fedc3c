"""Configuration of :class:`newton.solvers.SolverMuJoCo` (MuJoCo-Warp backend)."""

from __future__ import annotations

from typing import ClassVar

from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
from isaaclab_contrib.physics.solvers.binding import SolverBinding, register_binding
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["MJWarpSolverCfg", "MuJoCoBinding"]


@configclass
class MJWarpSolverCfg(NewtonSolverCfg):
    """Newton's MuJoCo solver on the MuJoCo-Warp backend.

    ``None`` values keep the solver's (or the model's MJCF) setting. With
    ``use_mujoco_contacts=True`` MuJoCo detects contacts itself and Newton's collision
    pipeline is not consumed; set it to ``False`` to step on pipeline contacts, which is what
    a coupled entry that must see shapes selected by the coupler normally wants.
    As a coupled entry, MuJoCo needs the same selection (bodies, joints, shapes) in every world.
    """

    solver_class_path: ClassVar[str] = "newton.solvers:SolverMuJoCo"
    _ranges: ClassVar[dict[str, str]] = {
        "njmax": ">= 0",
        "nconmax": ">= 0",
        "iterations": ">= 1",
        "ls_iterations": ">= 1",
        "solver": "[1, 2]",
        "integrator": "[0, 4]",
        "cone": "[0, 1]",
        "impratio": "> 0",
        "tolerance": ">= 0",
        "ls_tolerance": ">= 0",
        "update_data_interval": ">= 0",
    }

    njmax: int | None = None
    """Constraint rows per world [count]."""
    nconmax: int | None = None
    """Contacts per world [count]."""
    iterations: int | None = None
    """Main solver iterations [count]."""
    ls_iterations: int | None = None
    """Line-search iterations [count]."""
    solver: int | str | None = None
    """Constraint solver: ``"cg"`` or ``"newton"`` (or MuJoCo's constant, 1 or 2)."""
    integrator: int | str | None = None
    """Integrator: ``"euler"``, ``"rk4"``, ``"implicit"``, ``"implicitfast"`` or ``"discrete"``
    (or MuJoCo's constant, 0 to 4)."""
    cone: int | str | None = None
    """Friction cone: ``"pyramidal"`` or ``"elliptic"`` (or MuJoCo's constant, 0 or 1)."""
    impratio: float | None = None
    """Ratio of frictional to normal constraint impedance [dimensionless]."""
    tolerance: float | None = None
    """Solver convergence tolerance [dimensionless]; 0 disables early termination."""
    ls_tolerance: float | None = None
    """Line-search tolerance [dimensionless]."""
    use_mujoco_cpu: bool = False
    """Run MuJoCo's C backend instead of MuJoCo-Warp (debugging only; no graph capture)."""
    disable_contacts: bool | None = None
    """Disable all contacts in the MuJoCo model."""
    use_mujoco_contacts: bool = True
    """Let MuJoCo detect contacts itself instead of consuming Newton pipeline contacts."""
    update_data_interval: int | None = None
    """Synchronize MuJoCo data from Newton state every N steps [steps]."""


class MuJoCoBinding(SolverBinding):
    """MuJoCo-Warp: registers its custom attributes; consumes pipeline contacts only with
    ``use_mujoco_contacts=False``; the MuJoCo CPU backend runs on the host and is never captured; reads the
    ``mjc:*`` USD attributes."""

    family = "mujoco"

    def usd_schema_resolvers(self, cfg: MJWarpSolverCfg) -> list[type]:
        """``SchemaResolverMjc``: the ``mjc:*`` attributes authored for MuJoCo reach the model. On joints
        ``mjc:armature`` -> ``joint_armature``, ``mjc:frictionloss`` -> ``joint_friction``, ``mjc:damping``,
        ``mjc:stiffness``, ``mjc:springref``, ``mjc:ref`` and ``mjc:actuatorfrcrange``; on shapes ``mjc:margin``,
        ``mjc:gap``, ``mjc:solref``, ``mjc:maxhullvert``, ``mjc:shellinertia``; MuJoCo's scene options and
        materials. The resolver needs the MuJoCo custom attributes on the builder, which the manager's
        ``create_builder()`` registers."""
        from newton.usd import SchemaResolverMjc

        del cfg
        return [SchemaResolverMjc]

    def needs_collision_pipeline(self, cfg: MJWarpSolverCfg) -> bool:
        return not cfg.use_mujoco_contacts

    def graph_blockers(self, cfg: MJWarpSolverCfg, device: str) -> list[str]:
        del device
        return ["MJWarpSolverCfg.use_mujoco_cpu=True steps MuJoCo on the host"] if cfg.use_mujoco_cpu else []


register_binding(MJWarpSolverCfg, MuJoCoBinding())
