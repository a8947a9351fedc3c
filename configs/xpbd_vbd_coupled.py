"""A bed of XPBD grains lands on a VBD cloth that hangs between two pinned edges, above a ground plane.

The scene reproduces the geometry and parameters of Newton's ``xpbd_vbd_coupled_solver`` example
(its coupled variant) with Isaac Lab-style labels, one copy per env:
``/World/envs/env_{i}/Cloth`` (a 14 x 14-cell grid with springs, triangles and bending edges) and a
5 x 5 x 3 grain bed, added after the cloth in each env; the ground ``/World/ground`` is shared.

Coupling: the cloth entry (VBD) is the proxy source; the grain entry (XPBD) receives every cloth
particle as a proxy particle, resolves grain-cloth contact against them, and the harvested
impulses act back on the cloth on the next step. The grain entry hides the cloth's springs,
triangles, edges (and any tetrahedra) with :attr:`~isaaclab_contrib.coupling.CouplerEntryCfg.hide_elements`:
without that, XPBD would solve the cloth's elasticity a second time on the proxies.

Timing of Newton's example: 60 frames/s, 8 solver steps per frame, collision detection before
every step. Through the manager that is ``dt = 1/480`` s, ``decimation = 8`` (one env step is one
frame), ``num_substeps = 1``; the registered scene carries that ``physics_dt``.

Registers the scene ``xpbd_vbd_coupled``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import warp as wp

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import NewtonModelCfg, VBDSolverCfg, XPBDSolverCfg
from isaaclab_contrib.scenes import SceneBaseCfg, SceneSpec, env_particle_blocks, register_scene, replicate_envs
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["PHYSICS_DT", "XpbdVbdCoupledSceneCfg", "build_xpbd_vbd_coupled", "particle_ids", "proxy_coupler_cfg"]

PHYSICS_DT = (1.0 / 60.0) / 8
"""Physics step of Newton's example [s]: a 1/60 s frame split into 8 solver steps."""


@configclass
class XpbdVbdCoupledSceneCfg(SceneBaseCfg):
    """Geometry and materials of the grain-bed-on-cloth scene (values of Newton's example)."""

    _ranges: ClassVar[dict[str, str]] = {
        "cloth_cells": ">= 1",
        "cloth_cell_size": "> 0",
        "cloth_height": "any",
        "cloth_particle_mass": "> 0",
        "cloth_particle_radius": "> 0",
        "cloth_stiffness": ">= 0",
        "cloth_bending_stiffness": ">= 0",
        "cloth_damping_ratio": ">= 0",
        "bed_grains": ">= 1",
        "bed_corner": "any",
        "grain_spacing": "> 0",
        "grain_radius": "> 0",
        "grain_mass": "> 0",
        "grain_jitter": ">= 0",
    }

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    ground: bool = True
    """Add a shared ground plane at z = 0."""
    cloth_cells: int = 14
    """Cloth cells per side; the cloth is centered on the env's z axis [count]."""
    cloth_cell_size: float = 0.05
    """Cloth cell edge length [m]."""
    cloth_height: float = 0.38
    """Height of the cloth plane; its left and right edges are pinned there [m]."""
    cloth_particle_mass: float = 0.02
    """Mass of one cloth particle [kg]."""
    cloth_particle_radius: float = 0.025
    """Contact radius of the cloth particles [m]."""
    cloth_stiffness: float = 150.0
    """Stretch and shear stiffness of the cloth's springs and triangles [N/m]."""
    cloth_bending_stiffness: float = 0.01
    """Bending stiffness of the cloth's edges [N*m]."""
    cloth_damping_ratio: float = 0.005
    """Damping as a fraction of stiffness [s]: springs get ``ratio * stiffness``, triangles and
    edges ``0.05 * ratio`` times their stiffness."""
    bed_grains: tuple[int, int, int] = (5, 5, 3)
    """Grains along x, y, z [count]."""
    bed_corner: tuple[float, float, float] = (-0.12, -0.12, 0.66)
    """Center of the grain with the lowest x, y and z, relative to the env origin [m]."""
    grain_spacing: float = 0.05
    """Distance between neighbouring grain centers [m]."""
    grain_radius: float = 0.025
    """Grain radius [m]."""
    grain_mass: float = 0.02
    """Mass of one grain [kg]."""
    grain_jitter: float = 0.002
    """Largest random offset of a grain from its lattice site (Newton's seeded generator) [m]."""

    @property
    def cloth_particles_per_env(self) -> int:
        return (self.cloth_cells + 1) ** 2

    @property
    def grains_per_env(self) -> int:
        nx, ny, nz = self.bed_grains
        return nx * ny * nz


def particle_ids(cfg: XpbdVbdCoupledSceneCfg) -> tuple[list[int], list[int]]:
    """Global particle ids of every env's cloth and of every env's grains (cloth first in each env)."""
    cloth, grains = env_particle_blocks(cfg.num_envs, cfg.cloth_particles_per_env, cfg.grains_per_env)
    return cloth, grains


def _env_prototype(cfg: XpbdVbdCoupledSceneCfg) -> newton.ModelBuilder:
    env = newton.ModelBuilder()
    half_width = 0.5 * cfg.cloth_cells * cfg.cloth_cell_size
    stiffness, bending, ratio = cfg.cloth_stiffness, cfg.cloth_bending_stiffness, cfg.cloth_damping_ratio
    env.add_cloth_grid(
        pos=wp.vec3(-half_width, -half_width, cfg.cloth_height),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=cfg.cloth_cells,
        dim_y=cfg.cloth_cells,
        cell_x=cfg.cloth_cell_size,
        cell_y=cfg.cloth_cell_size,
        mass=cfg.cloth_particle_mass,
        fix_left=True,
        fix_right=True,
        add_springs=True,
        spring_ke=stiffness,
        spring_kd=ratio * stiffness,
        tri_ke=stiffness,
        tri_ka=stiffness,
        tri_kd=ratio * 0.05 * stiffness,
        edge_ke=bending,
        edge_kd=ratio * 0.05 * bending,
        particle_radius=cfg.cloth_particle_radius,
        label="Cloth",
    )
    # The grains come after the cloth: Newton seeds the jitter with the builder's particle count.
    nx, ny, nz = cfg.bed_grains
    env.add_particle_grid(
        pos=wp.vec3(*cfg.bed_corner),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=nx,
        dim_y=ny,
        dim_z=nz,
        cell_x=cfg.grain_spacing,
        cell_y=cfg.grain_spacing,
        cell_z=cfg.grain_spacing,
        mass=cfg.grain_mass,
        jitter=cfg.grain_jitter,
        radius_mean=cfg.grain_radius,
    )
    return env


def build_xpbd_vbd_coupled(builder: Any, cfg: XpbdVbdCoupledSceneCfg) -> None:
    """Add the shared ground and ``cfg.num_envs`` cloth-and-grains envs to *builder*, one Newton world each."""
    cfg.validate()
    if cfg.ground:
        builder.add_ground_plane(label="/World/ground")
    replicate_envs(builder, _env_prototype(cfg), cfg.num_envs, spacing=cfg.env_spacing)


def proxy_coupler_cfg(cfg: XpbdVbdCoupledSceneCfg | None = None) -> CouplerProxyCfg:
    """Cloth (VBD, proxy source) and grains (XPBD, contact-only view of the cloth proxies)."""
    cfg = cfg or XpbdVbdCoupledSceneCfg()
    cloth, grains = particle_ids(cfg)
    return CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(
                name="cloth",
                solver_cfg=VBDSolverCfg(iterations=8, particle_enable_tile_solve=True),
                particles=cloth,
            ),
            CouplerEntryCfg(
                name="grains",
                solver_cfg=XPBDSolverCfg(iterations=16, soft_contact_relaxation=0.85),
                particles=grains,
                hide_elements=["springs", "triangles", "edges", "tetrahedra"],
            ),
        ],
        proxies=[CouplerProxyMappingCfg(source="cloth", destination="grains", particles=cloth)],
        model_cfg=NewtonModelCfg(particle_mu=0.6, soft_contact_ke=5.0e4, soft_contact_kd=500.0, soft_contact_mu=0.6),
    )


register_scene(
    "xpbd_vbd_coupled",
    SceneSpec(
        "grain bed (XPBD) on a pinned cloth (VBD) over a ground, proxy particles into a contact-only XPBD view",
        XpbdVbdCoupledSceneCfg,
        build_xpbd_vbd_coupled,
        proxy_coupler_cfg,
        decimation=8,
        physics_dt=PHYSICS_DT,
    ),
)
