"""A grain bed on a cloth, shared by the scenes ``grains_on_cloth`` and ``xpbd_vbd_coupled``: the coupling and
the success check."""

from __future__ import annotations

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import NewtonModelCfg, VBDSolverCfg, XPBDSolverCfg
from isaaclab_contrib.scenes import SceneBaseCfg
from isaaclab_contrib.scenes.checks import MinHeightCheck, particle_points

__all__ = ["grains_held_check", "grains_on_cloth_coupler"]


def grains_on_cloth_coupler(scene: SceneBaseCfg, cloth: VBDSolverCfg, grains: XPBDSolverCfg) -> CouplerProxyCfg:
    """Proxy coupling of a cloth (VBD, entry ``cloth``, the proxy source) and a grain bed (XPBD, entry ``grains``).

    Every cloth particle is mirrored into the grain solver as a proxy particle; XPBD resolves grain-cloth contact
    against the proxies and the lagged proxy impulses act back on the cloth. The grain entry hides the cloth's
    springs, triangles, edges (and any tetrahedra): XPBD sees the proxies as contact-only and leaves the cloth's
    elasticity to VBD instead of solving it a second time.

    Args:
        scene: The scene (its ``cloth`` and ``grains`` assets give the entries' selections).
        cloth: The cloth's solver.
        grains: The grains' solver.
    """
    return CouplerProxyCfg(
        entries=[
            scene.entry_cfg("cloth", cloth),
            scene.entry_cfg("grains", grains, hide_elements=["springs", "triangles", "edges", "tetrahedra"]),
        ],
        proxies=[
            CouplerProxyMappingCfg(source="cloth", destination="grains", particles=scene.entry_particles("cloth"))
        ],
        model_cfg=NewtonModelCfg(particle_mu=0.6, soft_contact_ke=5.0e4, soft_contact_kd=500.0, soft_contact_mu=0.6),
    )


def grains_held_check(scene: SceneBaseCfg, drop: float) -> MinHeightCheck:
    """``grains_min_z``: the cloth holds the grains, none falls more than *drop* [m] below the cloth's pinned
    edges (the scene's ``grains`` and ``cloth`` assets)."""
    grains = particle_points(scene.particle_ids("grains"), scene.num_envs)
    return MinHeightCheck("grains_min_z", grains, scene.cloth.height - drop)
