"""A bed of XPBD particles (grains) dropped onto a cloth pinned along two edges, one copy per env.

Per env the particles are laid out grains first, then the cloth (``/World/envs/env_{i}/Cloth``),
so the index lists of the coupler config follow from :class:`GrainsOnClothSceneCfg`. The cloth
(VBD) is mirrored into the XPBD grain solver as proxy particles: XPBD resolves grain-cloth
contacts against the proxies and the lagged proxy impulses act back on the cloth. The grain entry
hides the cloth's elements (``hide_elements``): its XPBD solver treats the proxies as contact-only
and leaves the cloth's elasticity to VBD, instead of solving it a second time.

Registers the scene ``grains_on_cloth``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import warp as wp

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import NewtonModelCfg, VBDSolverCfg, XPBDSolverCfg
from isaaclab_contrib.scenes import (
    SceneBaseCfg,
    SceneSpec,
    add_pinned_cloth,
    env_particle_blocks,
    register_scene,
    replicate_envs,
)
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["GrainsOnClothSceneCfg", "build_grains_on_cloth", "particle_ranges", "proxy_coupler_cfg"]


@configclass
class GrainsOnClothSceneCfg(SceneBaseCfg):
    """Geometry and materials of the grains-on-cloth scene."""

    _ranges: ClassVar[dict[str, str]] = {
        "grains": ">= 1",
        "grain_radius": "> 0",
        "grain_mass": "> 0",
        "grain_drop_height": ">= 0",
        "cloth_height": "any",
        "cloth_cells": ">= 1",
        "cloth_cell_size": "> 0",
        "cloth_particle_mass": "> 0",
        "cloth_stiffness": ">= 0",
        "cloth_damping": ">= 0",
    }

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    grains: tuple[int, int, int] = (4, 4, 2)
    """Grain grid size along x, y, z [count]."""
    grain_radius: float = 0.025
    """Grain radius [m]."""
    grain_mass: float = 0.02
    """Mass of one grain [kg]."""
    grain_drop_height: float = 0.1
    """Gap between the lowest grains and the cloth at the start [m]."""
    cloth_height: float = 0.4
    """Height of the cloth plane and its pinned edges [m]."""
    cloth_cells: int = 8
    """Cloth cells per side [count]."""
    cloth_cell_size: float = 0.05
    """Cloth cell edge length [m]."""
    cloth_particle_mass: float = 0.02
    """Mass of one cloth particle [kg]."""
    cloth_stiffness: float = 150.0
    """Membrane stiffness [N/m]."""
    cloth_damping: float = 0.5
    """Membrane damping [N*s/m]."""

    @property
    def grains_per_env(self) -> int:
        return self.grains[0] * self.grains[1] * self.grains[2]

    @property
    def cloth_particles_per_env(self) -> int:
        return (self.cloth_cells + 1) ** 2


def particle_ranges(cfg: GrainsOnClothSceneCfg) -> tuple[list[int], list[int]]:
    """Global particle ids of all grains and all cloth particles."""
    grains, cloth = env_particle_blocks(cfg.num_envs, cfg.grains_per_env, cfg.cloth_particles_per_env)
    return grains, cloth


def _prototype(cfg: GrainsOnClothSceneCfg) -> newton.ModelBuilder:
    proto = newton.ModelBuilder()
    nx, ny, nz = cfg.grains
    spacing = 2.1 * cfg.grain_radius
    proto.add_particle_grid(
        pos=wp.vec3(-0.5 * (nx - 1) * spacing, -0.5 * (ny - 1) * spacing, cfg.cloth_height + cfg.grain_drop_height),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=nx,
        dim_y=ny,
        dim_z=nz,
        cell_x=spacing,
        cell_y=spacing,
        cell_z=spacing,
        mass=cfg.grain_mass,
        jitter=0.0,
        radius_mean=cfg.grain_radius,
    )
    add_pinned_cloth(
        proto,
        cells=cfg.cloth_cells,
        cell_size=cfg.cloth_cell_size,
        height=cfg.cloth_height,
        particle_mass=cfg.cloth_particle_mass,
        particle_radius=cfg.grain_radius,
        stiffness=cfg.cloth_stiffness,
        damping=cfg.cloth_damping,
        bend_stiffness=0.01,
    )
    return proto


def build_grains_on_cloth(builder: Any, cfg: GrainsOnClothSceneCfg) -> None:
    """Add ``cfg.num_envs`` grains-on-cloth envs to *builder*, one Newton world each."""
    cfg.validate()
    replicate_envs(builder, _prototype(cfg), cfg.num_envs, spacing=cfg.env_spacing)


def proxy_coupler_cfg(cfg: GrainsOnClothSceneCfg | None = None) -> CouplerProxyCfg:
    """Grains (XPBD) and cloth (VBD); the cloth particles are contact-only proxies in the grain solver."""
    cfg = cfg or GrainsOnClothSceneCfg()
    grains, cloth = particle_ranges(cfg)
    return CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=8), particles=cloth),
            CouplerEntryCfg(
                name="grains",
                solver_cfg=XPBDSolverCfg(iterations=8, soft_contact_relaxation=0.85),
                particles=grains,
                hide_elements=["springs", "triangles", "edges", "tetrahedra"],  # the cloth is VBD's to solve
            ),
        ],
        proxies=[CouplerProxyMappingCfg(source="cloth", destination="grains", particles=cloth)],
        model_cfg=NewtonModelCfg(particle_mu=0.6, soft_contact_ke=5.0e4, soft_contact_kd=500.0, soft_contact_mu=0.6),
    )


register_scene(
    "grains_on_cloth",
    SceneSpec(
        "particle bed (XPBD) on a pinned cloth (VBD), proxy-particle coupling",
        GrainsOnClothSceneCfg,
        build_grains_on_cloth,
        proxy_coupler_cfg,
        num_substeps=2,
    ),
)
