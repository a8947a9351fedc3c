"""Shared part of the press-the-cloth tasks: per env a pinned cloth whose center must reach a random depth.

:class:`ClothDepthTaskCfg` holds the cloth and the target settings, :class:`ClothDepthTaskEnv` adds the
cloth to an env prototype, measures the depth of the cloth center and draws the per-episode targets.
The tasks (``press_cloth_task``, ``arm_press_cloth_task``) add what presses the cloth.
"""

from __future__ import annotations

from typing import ClassVar

import newton
import torch
import warp as wp

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.envs import CoupledDirectEnv, CoupledDirectEnvCfg
from isaaclab_contrib.physics import SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.scenes import add_pinned_cloth
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["ClothDepthTaskCfg", "ClothDepthTaskEnv"]


@configclass
class ClothDepthTaskCfg(CoupledDirectEnvCfg):
    """The cloth (4 x 4 cells of 8 cm, pinned along two edges) and the target depth of its center."""

    _ranges: ClassVar[dict[str, str]] = {
        "cloth_cells": ">= 1",
        "cloth_cell_size": "> 0",
        "cloth_height": "any",
        "cloth_particle_mass": "> 0",
        "cloth_stiffness": ">= 0",
        "cloth_damping": ">= 0",
        "cloth_particle_radius": "> 0",
        "target_depth_range": ">= 0",
        "reward_sigma": "> 0",
    }

    cloth_cells: int = 4
    """Cloth cells per side [count]."""
    cloth_cell_size: float = 0.08
    """Cloth cell size [m]."""
    cloth_height: float = 0.3
    """Height of the cloth and its pinned edges [m]."""
    cloth_particle_mass: float = 0.02
    """Mass of one cloth particle [kg] (the cloth sags about 2 cm under its own weight)."""
    cloth_stiffness: float = 1.0e3
    """Membrane stiffness [N/m]."""
    cloth_damping: float = 10.0
    """Membrane damping [N*s/m]."""
    cloth_particle_radius: float = 0.02
    """Contact radius of the cloth particles [m]. Rigid bodies collide with the particles, not the
    triangles: with the presser's radius it must close the gaps between particles, or the presser
    slips through the cloth."""
    target_depth_range: tuple[float, float] = (0.03, 0.07)
    """Range of the per-episode target depth of the cloth center below its pinned edges [m]."""
    reward_sigma: float = 0.01
    """Width of the depth reward ``exp(-((depth - target) / sigma)^2)`` [m]."""

    def validate(self) -> None:
        """Check the fields (types and declared ranges) and that the target depth range is ordered."""
        super().validate()
        low, high = self.target_depth_range
        if low > high:
            raise ValueError(
                f"{type(self).__name__}.target_depth_range must be (low, high) with low <= high, "
                f"got {self.target_depth_range!r}"
            )


class ClothDepthTaskEnv(CoupledDirectEnv):
    """Env base of the cloth-depth tasks: the cloth, its center depth and the targets."""

    cfg: ClothDepthTaskCfg

    def _presser_coupler_cfg(self, name: str, owned: str, proxied: str) -> CouplerProxyCfg:
        """The presser (a Steel entry *name* owning ``/World/envs/env_*/{owned}``) and the cloth (a VBD
        entry, 5 iterations) coupled by a virtual proxy: the bodies ``{proxied}`` are mirrored into the
        cloth solver (2 coupling iterations, relaxation 0.5), so the cloth moves only through the coupling."""
        return CouplerProxyCfg(
            entries=[
                CouplerEntryCfg(name=name, solver_cfg=SteelSolverCfg(), bodies=[f"/World/envs/env_.*/{owned}"]),
                CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=5), all_particles=True),
            ],
            iterations=2,
            proxies=[
                CouplerProxyMappingCfg(
                    source=name, destination="cloth", bodies=[f"/World/envs/env_.*/{proxied}"], proxy_relaxation=0.5
                )
            ],
        )

    def _add_cloth(self, proto: newton.ModelBuilder) -> None:
        """Add the pinned cloth to the env prototype *proto* (labelled ``Cloth``)."""
        cfg = self.cfg
        add_pinned_cloth(
            proto,
            cells=cfg.cloth_cells,
            cell_size=cfg.cloth_cell_size,
            height=cfg.cloth_height,
            particle_mass=cfg.cloth_particle_mass,
            particle_radius=cfg.cloth_particle_radius,
            stiffness=cfg.cloth_stiffness,
            damping=cfg.cloth_damping,
        )

    def _setup_cloth_buffers(self) -> None:
        """Index of each env's center particle and the target buffer (call from ``_setup_buffers``)."""
        cells = self.cfg.cloth_cells
        per_env = (cells + 1) ** 2
        center = (cells // 2) * (cells + 1) + cells // 2
        self.center_ids = torch.arange(self.num_envs, device=self.torch_device) * per_env + center
        self.target = torch.zeros(self.num_envs, device=self.torch_device)

    def cloth_depth(self) -> torch.Tensor:
        """Depth of each env's cloth center below the pinned edges [m], ``[num_envs]``."""
        particle_q = wp.to_torch(self.manager.get_state_0().particle_q)
        return self.cfg.cloth_height - particle_q[self.center_ids, 2]

    def depth_reward(self, depth: torch.Tensor) -> torch.Tensor:
        """``exp(-((depth - target) / reward_sigma)^2)`` per env, in [0, 1]."""
        return torch.exp(-(((depth - self.target) / self.cfg.reward_sigma) ** 2))

    def _draw_targets(self, env_ids: torch.Tensor) -> None:
        """Draw new target depths for *env_ids*, uniform in ``target_depth_range``, from the env's generator."""
        low, high = self.cfg.target_depth_range
        draw = torch.rand(len(env_ids), generator=self.generator, device=self.torch_device)
        self.target[env_ids] = low + (high - low) * draw
