"""A bed of XPBD particles (grains) dropped onto a cloth pinned along two edges, one copy per env.

Per env the particles are laid out grains first, then the cloth (``/World/envs/env_{i}/Cloth``); the
coupler's particle lists follow from the assets (:meth:`~isaaclab_contrib.scenes.SceneBaseCfg.particle_ids`).
The cloth (VBD) is mirrored into the XPBD grain solver as proxy particles: XPBD resolves grain-cloth
contacts against the proxies and the lagged proxy impulses act back on the cloth. The grain entry hides the
cloth's elements (``hide_elements``): its XPBD solver treats the proxies as contact-only and leaves the
cloth's elasticity to VBD, instead of solving it a second time.

Registers the scene ``grains_on_cloth``.
"""

from __future__ import annotations

from isaaclab_contrib.coupling import CouplerProxyCfg
from isaaclab_contrib.physics import VBDSolverCfg, XPBDSolverCfg
from isaaclab_contrib.scenes import (
    CameraCfg,
    InitialStateCfg,
    ParticleGridCfg,
    PinnedClothCfg,
    SceneBaseCfg,
    SceneSpec,
    register_scene,
    scene_sim,
)
from isaaclab_contrib.scenes.checks import SceneCheck
from isaaclab_contrib.utils.configclass import configclass

from ._grains import grains_held_check, grains_on_cloth_coupler

__all__ = ["GrainsOnClothSceneCfg"]

_GRAIN_RADIUS = 0.025  # [m]
_GRAIN_SPACING = 2.1 * _GRAIN_RADIUS  # [m]


@configclass
class GrainsOnClothSceneCfg(SceneBaseCfg):
    """A 4 x 4 x 2 grain bed 10 cm above a pinned cloth (8 x 8 cells of 5 cm, 0.4 m up)."""

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    grains: ParticleGridCfg = ParticleGridCfg(
        prim_path="{ENV_REGEX_NS}/Grains",
        entry="grains",
        dims=(4, 4, 2),
        spacing=_GRAIN_SPACING,
        radius=_GRAIN_RADIUS,
        mass=0.02,
        # Centered over the cloth, the lowest grains 10 cm above it.
        init_state=InitialStateCfg(pos=(-0.5 * 3 * _GRAIN_SPACING, -0.5 * 3 * _GRAIN_SPACING, 0.4 + 0.1)),
    )
    """The grains (XPBD entry ``grains``)."""
    cloth: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Cloth",
        entry="cloth",
        particle_mass=0.02,
        particle_radius=_GRAIN_RADIUS,
        stiffness=150.0,
        damping=0.5,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.4)),
    )
    """The cloth (VBD entry ``cloth``)."""

    def coupler_cfg(self) -> CouplerProxyCfg:
        """Grains (XPBD) and cloth (VBD); the cloth particles are contact-only proxies in the grain solver."""
        return grains_on_cloth_coupler(
            self, VBDSolverCfg(iterations=8), XPBDSolverCfg(iterations=8, soft_contact_relaxation=0.85)
        )

    def checks(self) -> list[SceneCheck]:
        """``finite`` and ``grains_min_z``: the cloth holds the grains (none falls 15 cm below the pinned edges)."""
        return [*super().checks(), grains_held_check(self, drop=0.15)]


register_scene(
    "grains_on_cloth",
    SceneSpec(
        GrainsOnClothSceneCfg,
        "particle bed (XPBD) on a pinned cloth (VBD), proxy-particle coupling",
        sim=scene_sim(num_substeps=2),
        viewpoint=CameraCfg(eye=(-0.75, -0.75, 0.95), target=(0.0, 0.0, 0.35)),
    ),
)
