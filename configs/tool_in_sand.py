"""A rigid tool dropped into a bed of granular material (implicit MPM), one copy per env.

Labels: ``/World/envs/env_{i}/Tool/body`` (a box, Steel entry) and a particle bed owned by an
implicit-MPM entry stepping in place. The tool is mirrored into the MPM solver as a virtual
proxy (``CouplerProxyCfg``); the sand pushes back through the lagged proxy feedback. The ground
plane (``/World/ground``) belongs to the tool's entry; MPM collides with it on its own.

Registers the scene ``tool_in_sand``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import warp as wp

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import MPMSolverCfg, NewtonModelCfg, SteelSolverCfg
from isaaclab_contrib.scenes import SceneBaseCfg, SceneSpec, add_granular_bed, register_scene, replicate_envs
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["ToolInSandSceneCfg", "build_tool_in_sand", "proxy_coupler_cfg"]


@configclass
class ToolInSandSceneCfg(SceneBaseCfg):
    """Geometry and materials of the tool-in-sand scene."""

    _ranges: ClassVar[dict[str, str]] = {
        "bed_half_extent": "> 0",
        "bed_height": "> 0",
        "voxel_size": "> 0",
        "sand_density": "> 0",
        "sand_friction": ">= 0",
        "tool_half_extent": "> 0",
        "tool_density": "> 0",
        "tool_drop_height": ">= 0",
    }

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    bed_half_extent: float = 0.15
    """Half width of the square sand bed [m]."""
    bed_height: float = 0.12
    """Height of the sand bed [m]."""
    voxel_size: float = 0.03
    """MPM grid cell size [m]; particles are seeded at about two per cell and axis."""
    sand_density: float = 1500.0
    """Bulk density of the sand [kg/m^3]."""
    sand_friction: float = 0.6
    """Internal friction coefficient of the sand [dimensionless]."""
    tool_half_extent: float = 0.04
    """Half edge length of the box tool [m]."""
    tool_density: float = 2000.0
    """Tool density [kg/m^3]."""
    tool_drop_height: float = 0.08
    """Initial gap between the tool bottom and the bed surface [m]."""


def _prototype(cfg: ToolInSandSceneCfg) -> newton.ModelBuilder:
    proto = newton.ModelBuilder()
    newton.solvers.SolverImplicitMPM.register_custom_attributes(proto)
    half = cfg.tool_half_extent
    z = cfg.bed_height + cfg.tool_drop_height + half
    tool = proto.add_body(xform=wp.transform((0.0, 0.0, z), wp.quat_identity()), label="Tool/body")
    proto.add_shape_box(
        tool,
        hx=half,
        hy=half,
        hz=half,
        cfg=newton.ModelBuilder.ShapeConfig(density=cfg.tool_density),
        label="Tool/body/collision",
    )
    add_granular_bed(
        proto,
        half_extent=cfg.bed_half_extent,
        height=cfg.bed_height,
        voxel_size=cfg.voxel_size,
        density=cfg.sand_density,
        friction=cfg.sand_friction,
    )
    return proto


def build_tool_in_sand(builder: Any, cfg: ToolInSandSceneCfg) -> None:
    """Add ``cfg.num_envs`` tool-in-sand envs and a ground plane to *builder*."""
    cfg.validate()
    newton.solvers.SolverImplicitMPM.register_custom_attributes(builder)
    replicate_envs(builder, _prototype(cfg), cfg.num_envs, spacing=cfg.env_spacing)
    builder.add_ground_plane(label="/World/ground")


def proxy_coupler_cfg(cfg: ToolInSandSceneCfg | None = None) -> CouplerProxyCfg:
    """Tool (Steel, with the ground) mirrored into an in-place MPM entry with a bounded grid.

    Each env's sand gets its own grid (``separate_worlds=True``), so one env can be reset without the
    others. Newton captures implicit MPM only on CUDA; on the CPU the MPM step runs eagerly.
    """
    cfg = cfg or ToolInSandSceneCfg()
    return CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(
                name="tool", solver_cfg=SteelSolverCfg(), bodies=["/World/envs/env_.*/Tool"], include_static_shapes=True
            ),
            CouplerEntryCfg(
                name="sand",
                solver_cfg=MPMSolverCfg(
                    voxel_size=cfg.voxel_size,
                    grid_type="fixed",
                    grid_padding=8,
                    max_active_cell_count=1 << 14,
                    max_iterations=50,
                    separate_worlds=True,
                ),
                all_particles=True,
                in_place=True,
            ),
        ],
        proxies=[CouplerProxyMappingCfg(source="tool", destination="sand", bodies=["/World/envs/env_.*/Tool"])],
        model_cfg=NewtonModelCfg(particle_max_velocity=10.0),
    )


register_scene(
    "tool_in_sand",
    SceneSpec(
        "rigid tool (Steel) dropped into granular material (implicit MPM, in place), virtual-proxy coupling",
        ToolInSandSceneCfg,
        build_tool_in_sand,
        proxy_coupler_cfg,
    ),
)
