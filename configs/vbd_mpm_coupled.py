"""A soft tetrahedral cube (VBD) falls into a heap of granular material (implicit MPM), one copy per env.

The scene reproduces the geometry and parameters of Newton's ``vbd_mpm_coupled_solver`` example with Isaac
Lab-style labels: ``/World/envs/env_{i}/SoftCube`` (a 4 x 4 x 4-cell tetrahedral grid, 0.44 m wide, its lowest
corner 1.02 m up, falling at 0.4 m/s) and ``/World/envs/env_{i}/Heap`` (a 0.2 m layer under a 0.58 m paraboloid
heap, 1.9 m square, added after the cube in each env); the ground ``/World/ground`` (friction 0.8) is shared.

Coupling (``CouplerProxyCfg``, three passes per step): the ``soft`` entry (VBD, no self contact) owns the cube
and is the proxy source; its particles reach the ``heap`` entry (implicit MPM) as proxies at half their mass.
The MPM solver collides the grains with the cube's surface triangles as a deformable mesh collider
(:class:`~isaaclab_contrib.physics.MPMDeformableColliderCfg`, 2.5 cm thick, friction 0.6) that follows the
proxied particles, then with the ground; the collider impulses return to the cube as the proxies' lagged
feedback. The MPM entry steps out of place (``in_place=False``), into a second state, as in the example.

Timing of Newton's example: 60 frames/s, 4 solver steps per frame, collision detection before every step:
``dt = 1/240`` s, ``decimation = 4``, ``num_substeps = 1`` through the manager (the registered scene's
``physics_dt``). Newton captures implicit MPM only on CUDA; on the CPU the MPM step runs eagerly.

Registers the scene ``vbd_mpm_coupled``.
"""

from __future__ import annotations

from typing import ClassVar

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import MPMDeformableColliderCfg, MPMSolverCfg, NewtonModelCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    CameraCfg,
    GranularHeapCfg,
    GroundPlaneCfg,
    InitialStateCfg,
    SceneBaseCfg,
    SceneSpec,
    SoftBlockCfg,
    register_scene,
    scene_sim,
)
from isaaclab_contrib.scenes.checks import MinHeightCheck, SceneCheck, particle_points
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["PHYSICS_DT", "VbdMpmCoupledSceneCfg"]

PHYSICS_DT = (1.0 / 60.0) / 4
"""Physics step of Newton's example [s]: a 1/60 s frame split into 4 solver steps."""

_K_MU = 2.0e4  # the cube's Lame parameters [Pa]; its damping is 2e-3 of it
_BEND = 1.0e-2  # bending stiffness of the cube's surface edges [N*m]; damping 1e-3 of it
_CONTACT_KE = 5.0e4  # particle-shape contact stiffness [N/m]; damping 1e-3 of it


@configclass
class VbdMpmCoupledSceneCfg(SceneBaseCfg):
    """Ground, soft cube and granular heap of Newton's example (its values)."""

    env_spacing: float = 3.0
    """Distance between neighbouring env origins along x [m] (the heap is 1.9 m wide)."""
    ground: GroundPlaneCfg | None = GroundPlaneCfg(friction=0.8)
    """A shared ground plane at z = 0 (owned by no entry: both solvers collide with it)."""
    cube: SoftBlockCfg = SoftBlockCfg(
        prim_path="{ENV_REGEX_NS}/SoftCube",
        entry="soft",
        cells=(4, 4, 4),
        cell_size=(0.11, 0.11, 0.11),
        density=420.0,
        k_mu=_K_MU,
        k_lambda=_K_MU,
        k_damp=2.0e-3 * _K_MU,
        bend_stiffness=_BEND,
        bend_damping=1.0e-3 * _BEND,
        particle_radius=0.035,
        velocity=(0.0, 0.0, -0.4),
        init_state=InitialStateCfg(pos=(-0.22, -0.22, 1.02)),  # its lowest corner
    )
    """The soft cube (VBD entry ``soft``, proxy source)."""
    heap: GranularHeapCfg = GranularHeapCfg(prim_path="{ENV_REGEX_NS}/Heap", entry="heap", voxel_size=0.08)
    """The granular heap (implicit-MPM entry ``heap``; its grid uses the heap's ``voxel_size``)."""
    proxy_iterations: int = 3
    """Proxy relaxation passes per solver step [count]."""
    proxy_mass_scale: float = 0.5
    """Mass of the cube's particles in the MPM entry, relative to theirs [dimensionless]."""
    vbd_iterations: int = 8
    """VBD iterations per solver step [count]."""
    mpm_iterations: int = 35
    """Implicit-MPM rheology iterations per solver step [count]."""
    collider_thickness: float = 0.025
    """Thickness of the cube's surface as the grains' collider [m]."""
    collider_friction: float = 0.6
    """Friction between the grains and the cube's surface [dimensionless]."""

    _ranges: ClassVar[dict[str, str]] = {
        "proxy_iterations": ">= 1",
        "proxy_mass_scale": "> 0",
        "vbd_iterations": ">= 1",
        "mpm_iterations": ">= 1",
        "collider_thickness": "any",
        "collider_friction": ">= 0",
    }

    def coupler_cfg(self) -> CouplerProxyCfg:
        """Cube (VBD, proxy source) and heap (implicit MPM, out of place, the cube's surface as its collider)."""
        cube = self.entry_particles("soft")
        heap = MPMSolverCfg(
            voxel_size=self.heap.voxel_size,
            grid_type="fixed",
            grid_padding=32,
            max_active_cell_count=1 << 14,
            max_iterations=self.mpm_iterations,
            critical_fraction=0.0,
            strain_basis="P0",
            collider_velocity_mode="forward",
            deformable_colliders=[
                MPMDeformableColliderCfg(
                    particles=cube, thickness=self.collider_thickness, friction=self.collider_friction
                )
            ],
        )
        return CouplerProxyCfg(
            entries=[
                self.entry_cfg(
                    "soft",
                    VBDSolverCfg(
                        iterations=self.vbd_iterations,
                        particle_enable_tile_solve=True,
                        particle_enable_self_contact=False,
                    ),
                ),
                self.entry_cfg("heap", heap, in_place=False),
            ],
            proxies=[
                CouplerProxyMappingCfg(
                    source="soft", destination="heap", particles=cube, mass_scale=self.proxy_mass_scale
                )
            ],
            iterations=self.proxy_iterations,
            model_cfg=NewtonModelCfg(
                soft_contact_ke=_CONTACT_KE, soft_contact_kd=1.0e-3 * _CONTACT_KE, soft_contact_mu=0.8
            ),
        )

    def checks(self) -> list[SceneCheck]:
        """``finite``, ``cube_min_z`` and ``grains_min_z``: neither the cube nor a grain goes below the ground."""
        cube = particle_points(self.particle_ids("cube"), self.num_envs)
        grains = particle_points(self.particle_ids("heap"), self.num_envs)
        return [*super().checks(), MinHeightCheck("cube_min_z", cube, 0.0), MinHeightCheck("grains_min_z", grains, 0.0)]


register_scene(
    "vbd_mpm_coupled",
    SceneSpec(
        VbdMpmCoupledSceneCfg,
        "soft cube (VBD) dropped into a granular heap (implicit MPM, out of place), its surface a deformable MPM "
        "collider over proxy particles",
        sim=scene_sim(PHYSICS_DT),
        frames=30,  # 0.5 s: the cube lands on the heap after ~0.27 s (16 frames); ~10 s a frame on the CPU,
        viewpoint=CameraCfg(eye=(-2.8, -2.8, 2.6), target=(0.0, 0.0, 0.45)),
    ),
)
