"""A rigid box dropped on a cloth pinned along two edges, one copy per env.

Labels follow Isaac Lab: ``/World/envs/env_{i}/Box/body`` (one collision box) and
``/World/envs/env_{i}/Cloth`` (a particle grid). The box belongs to a rigid entry (Steel), the
cloth to a VBD entry; :func:`admm_coupler_cfg` couples them through ADMM contacts and
:func:`proxy_coupler_cfg` mirrors the box into the cloth solver as a virtual proxy.

Registers the scenes ``box_on_cloth`` (proxy) and ``box_on_cloth_admm``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import warp as wp

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.scenes import SceneBaseCfg, SceneSpec, add_pinned_cloth, register_scene, replicate_envs
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["BoxOnClothSceneCfg", "admm_coupler_cfg", "build_box_on_cloth", "env_origins", "proxy_coupler_cfg"]


@configclass
class BoxOnClothSceneCfg(SceneBaseCfg):
    """Geometry and materials of the box-on-cloth scene."""

    _ranges: ClassVar[dict[str, str]] = {
        "env_origin_offset": "any",
        "box_half_extent": "> 0",
        "box_density": "> 0",
        "box_drop_height": ">= 0",
        "cloth_height": "any",
        "cloth_cells": ">= 1",
        "cloth_cell_size": "> 0",
        "cloth_particle_mass": "> 0",
        "cloth_particle_radius": "> 0",
        "cloth_stretch_stiffness": ">= 0",
        "cloth_stretch_damping": ">= 0",
        "cloth_bend_stiffness": ">= 0",
    }

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    env_origin_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Origin of env 0 [m]."""
    box_half_extent: float = 0.05
    """Half edge length of the box [m]."""
    box_density: float = 100.0
    """Box density [kg/m^3] (0.1 kg for the default 10 cm box)."""
    box_drop_height: float = 0.02
    """Initial gap between the box bottom and the cloth [m]."""
    cloth_height: float = 0.1
    """Height of the cloth plane and its pinned edges [m]."""
    cloth_cells: int = 8
    """Cloth cells per side; the cloth has ``(cloth_cells + 1) ** 2`` particles [count]."""
    cloth_cell_size: float = 0.05
    """Cloth cell edge length [m]."""
    cloth_particle_mass: float = 0.01
    """Mass of one cloth particle [kg]."""
    cloth_particle_radius: float = 0.01
    """Contact radius of the cloth particles [m]."""
    cloth_stretch_stiffness: float = 1.0e3
    """Membrane (triangle) stiffness [N/m]."""
    cloth_stretch_damping: float = 10.0
    """Membrane damping [N*s/m]."""
    cloth_bend_stiffness: float = 1.0e-2
    """Bending stiffness [N*m]."""


def env_origins(cfg: BoxOnClothSceneCfg) -> list[tuple[float, float, float]]:
    """Origins of the envs [m]."""
    ox, oy, oz = cfg.env_origin_offset
    return [(ox + i * cfg.env_spacing, oy, oz) for i in range(cfg.num_envs)]


def _prototype(cfg: BoxOnClothSceneCfg):
    proto = newton.ModelBuilder()
    half = cfg.box_half_extent
    z = cfg.cloth_height + cfg.box_drop_height + half
    body = proto.add_body(xform=wp.transform((0.0, 0.0, z), wp.quat_identity()), label="Box/body")
    proto.add_shape_box(
        body,
        hx=half,
        hy=half,
        hz=half,
        cfg=newton.ModelBuilder.ShapeConfig(density=cfg.box_density),
        label="Box/body/collision",
    )
    add_pinned_cloth(
        proto,
        cells=cfg.cloth_cells,
        cell_size=cfg.cloth_cell_size,
        height=cfg.cloth_height,
        particle_mass=cfg.cloth_particle_mass,
        particle_radius=cfg.cloth_particle_radius,
        stiffness=cfg.cloth_stretch_stiffness,
        damping=cfg.cloth_stretch_damping,
        bend_stiffness=cfg.cloth_bend_stiffness,
    )
    return proto


def build_box_on_cloth(builder: Any, cfg: BoxOnClothSceneCfg) -> None:
    """Add ``cfg.num_envs`` box-on-cloth envs to *builder*, one Newton world each."""
    cfg.validate()
    replicate_envs(builder, _prototype(cfg), cfg.num_envs, origins=env_origins(cfg))


def _entries() -> list[CouplerEntryCfg]:
    return [
        CouplerEntryCfg(name="box", solver_cfg=SteelSolverCfg(), bodies=["/World/envs/env_.*/Box"]),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=10), all_particles=True),
    ]


def admm_coupler_cfg() -> CouplerAdmmCfg:
    """Box (Steel) and cloth (VBD) coupled by ADMM contacts, tuned for a 0.1 kg box on a light cloth."""
    return CouplerAdmmCfg(
        entries=_entries(), contact_pairs=[("box", "cloth")], iterations=8, rho=45.0, gamma=1.0e-3, baumgarte=0.1
    )


def proxy_coupler_cfg() -> CouplerProxyCfg:
    """The box mirrored into the cloth solver as a lagged virtual proxy.

    A light box on a stiff cloth makes the lagged feedback overshoot; two relaxation passes with
    an under-relaxed update (0.5) keep it stable (a single pass launches the 0.1 kg box).
    """
    return CouplerProxyCfg(
        entries=_entries(),
        iterations=2,
        proxies=[
            CouplerProxyMappingCfg(
                source="box", destination="cloth", bodies=["/World/envs/env_.*/Box"], proxy_relaxation=0.5
            )
        ],
    )


register_scene(
    "box_on_cloth",
    SceneSpec(
        "rigid box (Steel) pressing into a pinned cloth (VBD), virtual-proxy coupling",
        BoxOnClothSceneCfg,
        build_box_on_cloth,
        lambda cfg: proxy_coupler_cfg(),
    ),
)
register_scene(
    "box_on_cloth_admm",
    SceneSpec(
        "rigid box (Steel) on a pinned cloth (VBD), ADMM contacts",
        BoxOnClothSceneCfg,
        build_box_on_cloth,
        lambda cfg: admm_coupler_cfg(),
    ),
)
