"""A Neo-Hookean soft block falls onto a wide cloth pinned along two edges; two VBD solvers, one per body.

The scene reproduces the geometry and parameters of the coupled variant of Newton's
``softbody_dropping_to_cloth`` example with Isaac Lab-style labels, one copy per env:
``/World/envs/env_{i}/Cloth`` (a 40 x 40-cell grid, 2 m wide, 1 m above the ground) and
``/World/envs/env_{i}/SoftBlock`` (a 6 x 6 x 3-cell tetrahedral grid, added after the cloth); the ground
``/World/ground`` is shared.

Coupling: the ``soft`` entry (VBD, no self contact) owns the block and is the proxy source; the ``cloth``
entry (VBD, with self contact) owns the cloth and receives the block's particles as proxies. Each entry
hides the other body's elements from its solver
(:attr:`~isaaclab_contrib.coupling.CouplerEntryCfg.hide_elements`): the soft entry does not see the cloth's
triangles and bending edges, the cloth entry does not see the block's tetrahedra, so the cloth solver
treats the block's particles as contact-only proxies instead of solving its elasticity a second time.

Timing of Newton's example: 60 frames/s, 10 solver steps per frame, collision detection before every step:
``dt = 1/600`` s, ``decimation = 10``, ``num_substeps = 1`` through the manager (the registered scene's
``physics_dt``).

Registers the scene ``softbody_dropping_to_cloth``.
"""

from __future__ import annotations

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import NewtonModelCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    CameraCfg,
    GroundPlaneCfg,
    InitialStateCfg,
    PinnedClothCfg,
    SceneBaseCfg,
    SceneSpec,
    SoftBlockCfg,
    register_scene,
    scene_sim,
)
from isaaclab_contrib.scenes.checks import MinHeightCheck, SceneCheck, particle_points
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["PHYSICS_DT", "SoftbodyOnClothSceneCfg"]

PHYSICS_DT = (1.0 / 60.0) / 10
"""Physics step of Newton's example [s]: a 1/60 s frame split into 10 solver steps."""


@configclass
class SoftbodyOnClothSceneCfg(SceneBaseCfg):
    """Ground, cloth and soft block of Newton's example (its values)."""

    env_spacing: float = 3.0
    """Distance between neighbouring env origins along x [m]."""
    ground: GroundPlaneCfg | None = GroundPlaneCfg()
    """A shared ground plane at z = 0 (owned by no entry); ``None``: none."""
    cloth: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Cloth",
        entry="cloth",
        cells=40,
        cell_size=0.05,
        particle_mass=0.0005,
        particle_radius=0.05,
        stiffness=1.0e5,
        damping=1.0,
        bend_stiffness=0.01,
        bend_damping=1.0e-4,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 1.0)),
    )
    """The cloth (VBD entry ``cloth``, with self contact)."""
    block: SoftBlockCfg = SoftBlockCfg(
        prim_path="{ENV_REGEX_NS}/SoftBlock",
        entry="soft",
        cells=(6, 6, 3),
        cell_size=(0.1, 0.1, 0.1),
        density=1.0e3,
        k_mu=1.0e5,
        k_lambda=1.0e5,
        k_damp=1.0e2,
        particle_radius=0.03,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 2.0)),  # its lowest corner
    )
    """The soft block (VBD entry ``soft``)."""

    def coupler_cfg(self) -> CouplerProxyCfg:
        """Soft block (VBD, proxy source) and cloth (VBD with self contact, block particles as proxies)."""
        return CouplerProxyCfg(
            entries=[
                self.entry_cfg("soft", _vbd(self_contact=False), hide_elements=["triangles", "edges"]),
                self.entry_cfg("cloth", _vbd(self_contact=True), hide_elements=["tetrahedra"]),
            ],
            proxies=[
                CouplerProxyMappingCfg(source="soft", destination="cloth", particles=self.entry_particles("soft"))
            ],
            model_cfg=NewtonModelCfg(soft_contact_ke=1.0e5, soft_contact_kd=1.0, soft_contact_mu=1.0),
        )

    def checks(self) -> list[SceneCheck]:
        """``finite`` and ``block_min_z``: the cloth catches the heavy block before the ground (its lowest particle
        stays 10 cm above it; the cloth sags about 40 cm under the 108 kg block)."""
        block = particle_points(self.particle_ids("block"), self.num_envs)
        return [*super().checks(), MinHeightCheck("block_min_z", block, 0.1)]


def _vbd(self_contact: bool) -> VBDSolverCfg:
    return VBDSolverCfg(
        iterations=10,
        particle_enable_self_contact=self_contact,
        particle_self_contact_margin=0.01,
        particle_enable_tile_solve=True,
        particle_self_contact_gap=0.01,
    )


register_scene(
    "softbody_dropping_to_cloth",
    SceneSpec(
        SoftbodyOnClothSceneCfg,
        "Neo-Hookean soft block (VBD) dropped on a pinned cloth (VBD), proxy particles, each entry hides the other's elements",
        sim=scene_sim(PHYSICS_DT, decimation=10),
        viewpoint=CameraCfg(eye=(-3.2, -3.2, 3.6), target=(0.0, 0.0, 1.2)),
    ),
)
