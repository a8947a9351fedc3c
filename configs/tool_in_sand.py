"""A rigid tool dropped into a bed of granular material (implicit MPM), one copy per env.

Labels: ``/World/envs/env_{i}/Tool/body`` (a box, Steel entry) and a particle bed owned by an implicit-MPM
entry stepping in place. The tool is mirrored into the MPM solver as a virtual proxy
(``CouplerProxyCfg``); the sand pushes back through the lagged proxy feedback. The ground plane
(``/World/ground``) belongs to the tool's entry; MPM collides with it on its own.

Registers the scene ``tool_in_sand``.
"""

from __future__ import annotations

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import MPMSolverCfg, NewtonModelCfg, SteelSolverCfg
from isaaclab_contrib.scenes import (
    ENV_PATH,
    CameraCfg,
    CuboidCfg,
    GranularBedCfg,
    GroundPlaneCfg,
    InitialStateCfg,
    RigidObjectCfg,
    SceneBaseCfg,
    SceneSpec,
    register_scene,
)
from isaaclab_contrib.scenes.checks import MinHeightCheck, SceneCheck, body_points
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["ToolInSandSceneCfg"]


@configclass
class ToolInSandSceneCfg(SceneBaseCfg):
    """An 8 cm box tool 8 cm above a 30 x 30 x 12 cm sand bed on the ground."""

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    tool: RigidObjectCfg = RigidObjectCfg(
        prim_path="{ENV_REGEX_NS}/Tool",
        entry="tool",
        spawn=CuboidCfg(size=(0.08, 0.08, 0.08)),
        density=2000.0,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.12 + 0.08 + 0.04)),  # its bottom 8 cm above the sand
    )
    """The tool (Steel entry ``tool``)."""
    sand: GranularBedCfg = GranularBedCfg(
        prim_path="{ENV_REGEX_NS}/Sand", entry="sand", half_extent=0.15, height=0.12, voxel_size=0.03
    )
    """The sand (implicit-MPM entry ``sand``; its grid uses the bed's ``voxel_size``)."""
    ground: GroundPlaneCfg | None = GroundPlaneCfg(entry="tool")
    """The ground, owned by the tool's entry (MPM collides with it on its own)."""

    def coupler_cfg(self) -> CouplerProxyCfg:
        """Tool (Steel, with the ground) mirrored into an in-place MPM entry with a bounded grid.

        Each env's sand gets its own grid (``separate_worlds=True``), so one env can be reset without the
        others. Newton captures implicit MPM only on CUDA; on the CPU the MPM step runs eagerly.
        """
        sand: CouplerEntryCfg = self.entry_cfg(
            "sand",
            MPMSolverCfg(
                voxel_size=self.sand.voxel_size,
                grid_type="fixed",
                grid_padding=8,
                max_active_cell_count=1 << 14,
                max_iterations=50,
                separate_worlds=True,
            ),
            in_place=True,
        )
        return CouplerProxyCfg(
            entries=[self.entry_cfg("tool", SteelSolverCfg()), sand],
            proxies=[CouplerProxyMappingCfg(source="tool", destination="sand", bodies=self.entry_bodies("tool"))],
            model_cfg=NewtonModelCfg(particle_max_velocity=10.0),
        )

    def checks(self) -> list[SceneCheck]:
        """``finite`` and ``tool_min_z``: the sand holds the tool (its center stays above the bed's bottom)."""
        tool = body_points(f"{ENV_PATH}/{self.tool.label()}/{self.tool.body_name}")
        return [*super().checks(), MinHeightCheck("tool_min_z", tool, float(self.sand.init_state.pos[2]))]


register_scene(
    "tool_in_sand",
    SceneSpec(
        ToolInSandSceneCfg,
        "rigid tool (Steel) dropped into granular material (implicit MPM, in place), virtual-proxy coupling",
        viewpoint=CameraCfg(eye=(-0.45, -0.45, 0.42), target=(0.0, 0.0, 0.07)),
    ),
)
