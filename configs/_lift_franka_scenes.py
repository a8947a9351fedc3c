"""The scenes of Isaac Lab's deformable lift tasks (:mod:`.lift_franka`): the soft beam, the cloth on its two
supports and the cable, each with the Panda, the table and the proxy coupling of :class:`._lift_franka.LiftFrankaSceneCfg`.

Not registered as ready scenes: they are the tasks' scenes (the tasks' resets, commands and oracles drive them).
"""

from __future__ import annotations

from typing import Any, ClassVar

from isaaclab_contrib.scenes import (
    AssetBaseCfg,
    CableCfg,
    GroundPlaneCfg,
    InitialStateCfg,
    PinnedClothCfg,
    ShapeMaterialCfg,
    SoftBlockCfg,
)
from isaaclab_contrib.utils.configclass import configclass

from ._lift_franka import LiftFrankaSceneCfg

__all__ = [
    "BEAM_LAMBDA",
    "BEAM_MU",
    "CABLE_SEGMENTS",
    "LiftCableSceneCfg",
    "LiftClothSceneCfg",
    "LiftSoftSceneCfg",
    "StaticBoxCfg",
]

CABLE_SEGMENTS = 12
"""Capsules of the cable [count]."""


def _lame(youngs: float, poisson: float) -> tuple[float, float]:
    """Lamé's (mu, lambda) [Pa] of Young's modulus [Pa] and Poisson's ratio."""
    return youngs / (2.0 * (1.0 + poisson)), youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson))


BEAM_MU, BEAM_LAMBDA = _lame(2.0e5, 0.3)


# ---------------------------------------------------------------------------------------------- scenes
@configclass
class StaticBoxCfg(AssetBaseCfg):
    """A static box per env (a shape on no body), seen by the entry that owns the static shapes.

    ``init_state.pos`` is the box's center in the env frame [m].
    """

    _ranges: ClassVar[dict[str, str]] = {"size": "> 0", "mu": ">= 0"}

    prim_path: str = "{ENV_REGEX_NS}/Box"
    """Label path of the box's shape."""
    size: tuple[float, float, float] = (0.1, 0.1, 0.1)
    """Full extents along x, y, z [m]."""
    mu: float = 1.0
    """Friction coefficient [dimensionless]."""

    def add_to(self, builder: Any, label: str) -> None:
        import newton
        import warp as wp

        cfg = newton.ModelBuilder.ShapeConfig(mu=self.mu)
        hx, hy, hz = (0.5 * s for s in self.size)
        xform = wp.transform(wp.vec3(*self.init_state.pos), wp.quat(*self.init_state.rot))
        builder.add_shape_box(-1, xform=xform, hx=hx, hy=hy, hz=hz, cfg=cfg, label=label)

    def is_static(self) -> bool:
        return True


@configclass
class LiftSoftSceneCfg(LiftFrankaSceneCfg):
    """The Panda, the table and the soft beam."""

    object: SoftBlockCfg = SoftBlockCfg(
        prim_path="{ENV_REGEX_NS}/Object",
        entry="soft",
        cells=(15, 2, 2),
        cell_size=(0.02, 0.02, 0.02),
        density=1000.0,
        k_mu=BEAM_MU,
        k_lambda=BEAM_LAMBDA,
        k_damp=0.0,
        particle_radius=0.0025,
        init_state=InitialStateCfg(pos=(0.35, -0.02, 0.03)),
    )
    """The beam: its lowest corner at (0.35, -0.02, 0.03) m, so its center is at (0.5, 0, 0.05) m."""


@configclass
class LiftClothSceneCfg(LiftFrankaSceneCfg):
    """The Panda, the table, the cloth and its two supports."""

    contact_buffer: int = 1024
    object: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Object",
        entry="soft",
        cells=8,
        cell_size=0.025,
        particle_mass=0.04 / 81,
        particle_radius=0.002,
        stiffness=500.0,
        damping=1.0e-3,
        bend_stiffness=0.5,
        bend_damping=1.0e-3,
        fix_left=False,
        fix_right=False,
        init_state=InitialStateCfg(pos=(0.4, 0.0, 0.102)),
    )
    """The cloth (1 kg/m^2: 81 particles of 0.49 g), flat at 0.102 m over the supports' tops."""
    support_left: StaticBoxCfg = StaticBoxCfg(
        prim_path="{ENV_REGEX_NS}/SupportLeft",
        entry="soft",
        size=(0.1, 0.02, 0.1),
        init_state=InitialStateCfg(pos=(0.4, 0.075, 0.05)),
    )
    """A 0.1 x 0.02 x 0.1 m support under the cloth's left part (top at 0.1 m)."""
    support_right: StaticBoxCfg = StaticBoxCfg(
        prim_path="{ENV_REGEX_NS}/SupportRight",
        entry="soft",
        size=(0.1, 0.02, 0.1),
        init_state=InitialStateCfg(pos=(0.4, -0.075, 0.05)),
    )
    """The support under the cloth's right part, 0.15 m from the left one."""


@configclass
class LiftCableSceneCfg(LiftFrankaSceneCfg):
    """The Panda, the table (friction 0.01) and the cable, owned by the VBD entry ``cable``."""

    soft_entry: str = "cable"
    vbd_iterations: int = 30
    """VBD iterations per substep [count]: 30, not Isaac Lab's 10. The fingers hold the capsule by friction, whose
    multipliers VBD builds up over the iterations of a step and starts afresh each step; with 10 the capsule slid
    out of the closed fingers about 1 mm per env step as the hand rose (no lift in 16 envs), with 30 it holds."""
    body_contact_buffer: int = 256
    contact_ke: float = 2.5e3
    contact_kd: float = 100.0
    table: Any = None
    cable: CableCfg = CableCfg(
        prim_path="{ENV_REGEX_NS}/Cable",
        entry="cable",
        length=0.03 * CABLE_SEGMENTS,
        segments=CABLE_SEGMENTS,
        radius=0.005,
        density=1000.0,
        stretch_stiffness=1.0e6,
        bend_stiffness=1.0e5,
        mu=10.0,
        ke=2.5e3,
        kd=100.0,
        init_state=InitialStateCfg(pos=(0.32, 0.0, 0.011)),
    )
    """The cable: 12 capsules of 3 cm, 1 cm thick, first end at (0.32, 0, 0.011) m, along x."""

    def __post_init__(self) -> None:
        if self.table is None:
            self.table = GroundPlaneCfg(entry="cable", friction=0.01)
        # Isaac Lab's cable preset sets the default shape material (friction 10), which the Panda's shapes take too.
        self.robot.spawn.material = ShapeMaterialCfg(mu=10.0)
