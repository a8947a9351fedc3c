"""A Neo-Hookean soft block falls onto a wide cloth pinned along two edges; two VBD solvers, one per body.

The scene reproduces the geometry and parameters of the coupled variant of Newton's
``softbody_dropping_to_cloth`` example with Isaac Lab-style labels, one copy per env:
``/World/envs/env_{i}/Cloth`` (a 40 x 40-cell grid, 2 m wide, 1 m above the ground) and
``/World/envs/env_{i}/SoftBlock`` (a 6 x 6 x 3-cell tetrahedral grid, added after the cloth);
the ground ``/World/ground`` is shared.

Coupling: the ``soft`` entry (VBD, no self contact) owns the block and is the proxy source; the
``cloth`` entry (VBD, with self contact) owns the cloth and receives the block's particles as
proxies. Each entry hides the other body's elements from its solver
(:attr:`~isaaclab_contrib.coupling.CouplerEntryCfg.hide_elements`): the soft entry does not see the
cloth's triangles and bending edges, the cloth entry does not see the block's tetrahedra, so the
cloth solver treats the block's particles as contact-only proxies instead of solving its elasticity
a second time.

Timing of Newton's example: 60 frames/s, 10 solver steps per frame, collision detection before every
step: ``dt = 1/600`` s, ``decimation = 10``, ``num_substeps = 1`` through the manager (the registered
scene's ``physics_dt``).

Registers the scene ``softbody_dropping_to_cloth``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import warp as wp

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import NewtonModelCfg, VBDSolverCfg
from isaaclab_contrib.scenes import SceneBaseCfg, SceneSpec, env_particle_blocks, register_scene, replicate_envs
from isaaclab_contrib.utils.configclass import configclass

__all__ = [
    "PHYSICS_DT",
    "SoftbodyOnClothSceneCfg",
    "build_softbody_dropping_to_cloth",
    "particle_ids",
    "proxy_coupler_cfg",
]

PHYSICS_DT = (1.0 / 60.0) / 10
"""Physics step of Newton's example [s]: a 1/60 s frame split into 10 solver steps."""


@configclass
class SoftbodyOnClothSceneCfg(SceneBaseCfg):
    """Geometry and materials of the soft-block-on-cloth scene (values of Newton's example)."""

    _ranges: ClassVar[dict[str, str]] = {
        "cloth_cells": ">= 1",
        "cloth_cell_size": "> 0",
        "cloth_height": "any",
        "cloth_particle_mass": "> 0",
        "cloth_particle_radius": "> 0",
        "cloth_stretch_stiffness": ">= 0",
        "cloth_stretch_damping": ">= 0",
        "cloth_bend_stiffness": ">= 0",
        "cloth_bend_damping": ">= 0",
        "block_cells": ">= 1",
        "block_cell_size": "> 0",
        "block_corner": "any",
        "block_density": "> 0",
        "block_mu": ">= 0",
        "block_lambda": ">= 0",
        "block_damping": ">= 0",
        "block_particle_radius": "> 0",
    }

    env_spacing: float = 3.0
    """Distance between neighbouring env origins along x [m]."""
    ground: bool = True
    """Add a shared ground plane at z = 0."""
    cloth_cells: int = 40
    """Cloth cells per side; the cloth is centered on the env's z axis [count]."""
    cloth_cell_size: float = 0.05
    """Cloth cell edge length [m]."""
    cloth_height: float = 1.0
    """Height of the cloth plane; its left and right edges are pinned there [m]."""
    cloth_particle_mass: float = 0.0005
    """Mass of one cloth particle [kg]."""
    cloth_particle_radius: float = 0.05
    """Contact radius of the cloth particles [m]."""
    cloth_stretch_stiffness: float = 1.0e5
    """Membrane (triangle) stiffness, stretch and area [N/m]."""
    cloth_stretch_damping: float = 1.0
    """Membrane damping [N*s/m]."""
    cloth_bend_stiffness: float = 0.01
    """Bending (edge) stiffness [N*m]."""
    cloth_bend_damping: float = 1.0e-4
    """Bending damping [N*m*s]."""
    block_cells: tuple[int, int, int] = (6, 6, 3)
    """Tetrahedral grid cells of the soft block along x, y, z [count]."""
    block_cell_size: float = 0.1
    """Edge length of one grid cell [m]."""
    block_corner: tuple[float, float, float] = (0.0, 0.0, 2.0)
    """Lowest corner of the block relative to the env origin [m]."""
    block_density: float = 1.0e3
    """Density of the block [kg/m^3]."""
    block_mu: float = 1.0e5
    """First Lame parameter (shear) of the Neo-Hookean block [Pa]."""
    block_lambda: float = 1.0e5
    """Second Lame parameter of the Neo-Hookean block [Pa]."""
    block_damping: float = 1.0e2
    """Elastic damping of the block [dimensionless]."""
    block_particle_radius: float = 0.03
    """Contact radius of the block's particles [m]."""

    @property
    def cloth_particles_per_env(self) -> int:
        return (self.cloth_cells + 1) ** 2

    @property
    def block_particles_per_env(self) -> int:
        nx, ny, nz = self.block_cells
        return (nx + 1) * (ny + 1) * (nz + 1)


def particle_ids(cfg: SoftbodyOnClothSceneCfg) -> tuple[list[int], list[int]]:
    """Global particle ids of every env's cloth and of every env's soft block (cloth first in each env)."""
    cloth, block = env_particle_blocks(cfg.num_envs, cfg.cloth_particles_per_env, cfg.block_particles_per_env)
    return cloth, block


def _env_prototype(cfg: SoftbodyOnClothSceneCfg) -> newton.ModelBuilder:
    env = newton.ModelBuilder()
    half_width = 0.5 * cfg.cloth_cells * cfg.cloth_cell_size
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
        tri_ke=cfg.cloth_stretch_stiffness,
        tri_ka=cfg.cloth_stretch_stiffness,
        tri_kd=cfg.cloth_stretch_damping,
        edge_ke=cfg.cloth_bend_stiffness,
        edge_kd=cfg.cloth_bend_damping,
        particle_radius=cfg.cloth_particle_radius,
        label="Cloth",
    )
    nx, ny, nz = cfg.block_cells
    env.add_soft_grid(
        pos=wp.vec3(*cfg.block_corner),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=nx,
        dim_y=ny,
        dim_z=nz,
        cell_x=cfg.block_cell_size,
        cell_y=cfg.block_cell_size,
        cell_z=cfg.block_cell_size,
        density=cfg.block_density,
        k_mu=cfg.block_mu,
        k_lambda=cfg.block_lambda,
        k_damp=cfg.block_damping,
        particle_radius=cfg.block_particle_radius,
        label="SoftBlock",
    )
    return env


def build_softbody_dropping_to_cloth(builder: Any, cfg: SoftbodyOnClothSceneCfg) -> None:
    """Add the shared ground and ``cfg.num_envs`` cloth-and-block envs to *builder*, one Newton world each."""
    cfg.validate()
    if cfg.ground:
        builder.add_ground_plane(label="/World/ground")
    replicate_envs(builder, _env_prototype(cfg), cfg.num_envs, spacing=cfg.env_spacing)


def _vbd(self_contact: bool) -> VBDSolverCfg:
    return VBDSolverCfg(
        iterations=10,
        particle_enable_self_contact=self_contact,
        particle_self_contact_margin=0.01,
        particle_enable_tile_solve=True,
        extra_solver_args={"particle_self_contact_gap": 0.01},  # [m]; not a field of VBDSolverCfg
    )


def proxy_coupler_cfg(cfg: SoftbodyOnClothSceneCfg | None = None) -> CouplerProxyCfg:
    """Soft block (VBD, proxy source) and cloth (VBD with self contact, block particles as proxies)."""
    cfg = cfg or SoftbodyOnClothSceneCfg()
    cloth, block = particle_ids(cfg)
    return CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(name="soft", solver_cfg=_vbd(False), particles=block, hide_elements=["triangles", "edges"]),
            CouplerEntryCfg(name="cloth", solver_cfg=_vbd(True), particles=cloth, hide_elements=["tetrahedra"]),
        ],
        proxies=[CouplerProxyMappingCfg(source="soft", destination="cloth", particles=block)],
        model_cfg=NewtonModelCfg(soft_contact_ke=1.0e5, soft_contact_kd=1.0, soft_contact_mu=1.0),
    )


register_scene(
    "softbody_dropping_to_cloth",
    SceneSpec(
        "Neo-Hookean soft block (VBD) dropped on a pinned cloth (VBD), proxy particles, each entry hides the other's elements",
        SoftbodyOnClothSceneCfg,
        build_softbody_dropping_to_cloth,
        proxy_coupler_cfg,
        decimation=10,
        physics_dt=PHYSICS_DT,
    ),
)
