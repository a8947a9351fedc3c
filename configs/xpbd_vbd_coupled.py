"""A bed of XPBD grains lands on a VBD cloth that hangs between two pinned edges, above a ground plane.

The scene reproduces the geometry and parameters of Newton's ``xpbd_vbd_coupled_solver`` example (its
coupled variant) with Isaac Lab-style labels, one copy per env: ``/World/envs/env_{i}/Cloth`` (a 14 x
14-cell grid with springs, triangles and bending edges) and a 5 x 5 x 3 grain bed, added after the cloth in
each env; the ground ``/World/ground`` is shared.

Coupling: the cloth entry (VBD) is the proxy source; the grain entry (XPBD) receives every cloth particle as
a proxy particle, resolves grain-cloth contact against them, and the harvested impulses act back on the
cloth on the next step. The grain entry hides the cloth's springs, triangles, edges (and any tetrahedra)
with :attr:`~isaaclab_contrib.coupling.CouplerEntryCfg.hide_elements`: without that, XPBD would solve the
cloth's elasticity a second time on the proxies.

Timing of Newton's example: 60 frames/s, 8 solver steps per frame, collision detection before every step.
Through the manager that is ``dt = 1/480`` s, ``decimation = 8`` (one env step is one frame),
``num_substeps = 1``; the registered scene carries that ``physics_dt``.

Registers the scene ``xpbd_vbd_coupled``.
"""

from __future__ import annotations

from isaaclab_contrib.coupling import CouplerProxyCfg
from isaaclab_contrib.physics import VBDSolverCfg, XPBDSolverCfg
from isaaclab_contrib.scenes import (
    CameraCfg,
    GroundPlaneCfg,
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

__all__ = ["PHYSICS_DT", "XpbdVbdCoupledSceneCfg"]

PHYSICS_DT = (1.0 / 60.0) / 8
"""Physics step of Newton's example [s]: a 1/60 s frame split into 8 solver steps."""

_STIFFNESS, _BENDING, _DAMPING_RATIO = 150.0, 0.01, 0.005  # the example's cloth [N/m], [N*m], [s]


@configclass
class XpbdVbdCoupledSceneCfg(SceneBaseCfg):
    """Ground, cloth and grain bed of Newton's example (its values)."""

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    ground: GroundPlaneCfg | None = GroundPlaneCfg()
    """A shared ground plane at z = 0 (owned by no entry); ``None``: none."""
    cloth: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Cloth",
        entry="cloth",
        cells=14,
        cell_size=0.05,
        particle_mass=0.02,
        particle_radius=0.025,
        # Springs get ratio * stiffness as damping, triangles and edges 0.05 * ratio times theirs.
        spring_stiffness=_STIFFNESS,
        spring_damping=_DAMPING_RATIO * _STIFFNESS,
        stiffness=_STIFFNESS,
        damping=_DAMPING_RATIO * 0.05 * _STIFFNESS,
        bend_stiffness=_BENDING,
        bend_damping=_DAMPING_RATIO * 0.05 * _BENDING,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.38)),
    )
    """The cloth (VBD entry ``cloth``)."""
    grains: ParticleGridCfg = ParticleGridCfg(
        prim_path="{ENV_REGEX_NS}/Grains",
        entry="grains",
        dims=(5, 5, 3),
        spacing=0.05,
        radius=0.025,
        mass=0.02,
        jitter=0.002,  # Newton seeds it with the builder's particle count: the grains come after the cloth
        init_state=InitialStateCfg(pos=(-0.12, -0.12, 0.66)),
    )
    """The grains (XPBD entry ``grains``)."""

    def coupler_cfg(self) -> CouplerProxyCfg:
        """Cloth (VBD, proxy source) and grains (XPBD, contact-only view of the cloth proxies)."""
        return grains_on_cloth_coupler(
            self,
            VBDSolverCfg(iterations=8, particle_enable_tile_solve=True),
            XPBDSolverCfg(iterations=16, soft_contact_relaxation=0.85),
        )

    def checks(self) -> list[SceneCheck]:
        """``finite`` and ``grains_min_z``: the cloth holds the grains (none falls 30 cm below the pinned edges)."""
        return [*super().checks(), grains_held_check(self, drop=0.3)]


register_scene(
    "xpbd_vbd_coupled",
    SceneSpec(
        XpbdVbdCoupledSceneCfg,
        "grain bed (XPBD) on a pinned cloth (VBD) over a ground, proxy particles into a contact-only XPBD view",
        sim=scene_sim(PHYSICS_DT, decimation=8),
        viewpoint=CameraCfg(eye=(-1.15, -1.15, 1.3), target=(0.0, 0.0, 0.45)),
    ),
)
