"""Shared part of the press-the-cloth tasks: per env a pinned cloth whose center must reach a random depth.

:class:`ClothDepthSceneCfg` is the scene base (the cloth and the presser-cloth proxy coupling),
:class:`ClothDepthTaskCfg` the env config base (target depths, depth reward) and :class:`ClothDepthTaskEnv`
the env base: it measures the depth of the cloth center and draws the per-episode targets. The tasks
(``press_cloth_task``, ``arm_press_cloth_task``) add what presses the cloth.
"""

from __future__ import annotations

from typing import ClassVar

import torch
import warp as wp

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.envs import CoupledDirectEnv, CoupledDirectEnvCfg
from isaaclab_contrib.physics import SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.scenes import InitialStateCfg, PinnedClothCfg, SceneBaseCfg
from isaaclab_contrib.utils.configclass import MISSING, configclass

__all__ = ["ClothDepthSceneCfg", "ClothDepthTaskCfg", "ClothDepthTaskEnv"]


@configclass
class ClothDepthSceneCfg(SceneBaseCfg):
    """The cloth (4 x 4 cells of 8 cm, pinned along two edges, 0.3 m up; it sags about 2 cm under its own weight)
    and the coupling of a presser to it. A task scene adds the presser asset (a Steel entry) and names it in
    :attr:`presser`."""

    presser: ClassVar[str] = ""
    """Field name of the asset that presses the cloth."""
    proxied: ClassVar[str] = ""
    """Label (below the env) of the presser's bodies mirrored into the cloth solver."""

    num_envs: int = 16
    """Number of environments (Newton worlds) [count]."""
    env_spacing: float = 1.0
    """Distance between neighbouring env origins along x [m]."""
    cloth: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Cloth",
        entry="cloth",
        cells=4,
        cell_size=0.08,
        particle_mass=0.02,
        # With the presser's radius it must close the gaps between particles, or the presser slips through.
        particle_radius=0.02,
        stiffness=1.0e3,
        damping=10.0,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.3)),
    )
    """The cloth (VBD entry ``cloth``)."""

    def coupler_cfg(self) -> CouplerProxyCfg:
        """The presser (a Steel entry) and the cloth (a VBD entry, 5 iterations) coupled by a virtual proxy: the
        bodies :attr:`proxied` are mirrored into the cloth solver (2 coupling iterations, relaxation 0.5), so
        the cloth moves only through the coupling."""
        name = getattr(self, self.presser).entry
        return CouplerProxyCfg(
            entries=[
                self.entry_cfg(name, SteelSolverCfg()),
                self.entry_cfg(self.cloth.entry, VBDSolverCfg(iterations=5)),
            ],
            iterations=2,
            proxies=[
                CouplerProxyMappingCfg(
                    source=name,
                    destination=self.cloth.entry,
                    bodies=[f"/World/envs/env_.*/{self.proxied}"],
                    proxy_relaxation=0.5,
                )
            ],
        )


@configclass
class ClothDepthTaskCfg(CoupledDirectEnvCfg):
    """The target depth of the cloth center and the depth reward; the scene is a :class:`ClothDepthSceneCfg`."""

    _ranges: ClassVar[dict[str, str]] = {"target_depth_range": ">= 0", "reward_sigma": "> 0"}

    scene: ClothDepthSceneCfg = MISSING
    """The task's scene: the cloth and its presser."""
    target_depth_range: tuple[float, float] = (0.03, 0.07)
    """Range of the per-episode target depth of the cloth center below its pinned edges [m]."""
    reward_sigma: float = 0.01
    """Width of the depth reward ``exp(-((depth - target) / sigma)^2)`` [m]."""

    def validate(self) -> None:
        """Check the fields, the scene and the simulation settings, and that the target depth range is ordered."""
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

    def _setup_cloth_buffers(self) -> None:
        """Index of each env's center particle and the target buffer (call from ``_setup_buffers``)."""
        scene = self.cfg.scene
        ids = torch.tensor(scene.particle_ids("cloth"), device=self.torch_device).view(self.num_envs, -1)
        self.center_ids = ids[:, scene.cloth.center_particle()].contiguous()
        self.target = torch.zeros(self.num_envs, device=self.torch_device)

    def cloth_depth(self) -> torch.Tensor:
        """Depth of each env's cloth center below the pinned edges [m], ``[num_envs]``."""
        particle_q = wp.to_torch(self.manager.get_state_0().particle_q)
        return self.cfg.scene.cloth.height - particle_q[self.center_ids, 2]

    def depth_reward(self, depth: torch.Tensor) -> torch.Tensor:
        """``exp(-((depth - target) / reward_sigma)^2)`` per env, in [0, 1]."""
        return torch.exp(-(((depth - self.target) / self.cfg.reward_sigma) ** 2))

    def _draw_targets(self, env_ids: torch.Tensor) -> None:
        """Draw new target depths for *env_ids*, uniform in ``target_depth_range``, from the env's generator."""
        low, high = self.cfg.target_depth_range
        draw = torch.rand(len(env_ids), generator=self.generator, device=self.torch_device)
        self.target[env_ids] = low + (high - low) * draw
