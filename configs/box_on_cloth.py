"""A rigid box dropped on a cloth pinned along two edges, one copy per env.

Labels follow Isaac Lab: ``/World/envs/env_{i}/Box/body`` (one collision box) and
``/World/envs/env_{i}/Cloth`` (a particle grid). The box belongs to a rigid entry (Steel), the cloth to a
VBD entry; :attr:`BoxOnClothSceneCfg.coupling` picks how they interact: ``"proxy"`` mirrors the box into the
cloth solver as a virtual proxy, ``"admm"`` couples them through ADMM contacts.

Registers the scenes ``box_on_cloth`` (proxy) and ``box_on_cloth_admm``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    ENV_PATH,
    CameraCfg,
    CuboidCfg,
    InitialStateCfg,
    PinnedClothCfg,
    RigidObjectCfg,
    SceneBaseCfg,
    SceneSpec,
    register_scene,
)
from isaaclab_contrib.scenes.checks import MinHeightCheck, SceneCheck, body_points
from isaaclab_contrib.utils.configclass import configclass

__all__ = ["BoxOnClothAdmmSceneCfg", "BoxOnClothSceneCfg"]


@configclass
class BoxOnClothSceneCfg(SceneBaseCfg):
    """A 0.1 kg box 2 cm above a light pinned cloth (8 x 8 cells of 5 cm, 10 cm up)."""

    _ranges: ClassVar[dict[str, str]] = {"env_origin_offset": "any"}

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    env_origin_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Origin of env 0 [m]."""
    coupling: Literal["proxy", "admm"] = "proxy"
    """``"proxy"``: the box mirrored into the cloth solver (lagged virtual proxy); ``"admm"``: ADMM contacts."""
    box: RigidObjectCfg = RigidObjectCfg(
        prim_path="{ENV_REGEX_NS}/Box",
        entry="box",
        spawn=CuboidCfg(size=(0.1, 0.1, 0.1)),
        density=100.0,  # 0.1 kg
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.1 + 0.02 + 0.05)),  # its bottom 2 cm above the cloth
    )
    """The box (Steel entry ``box``)."""
    cloth: PinnedClothCfg = PinnedClothCfg(
        prim_path="{ENV_REGEX_NS}/Cloth", entry="cloth", init_state=InitialStateCfg(pos=(0.0, 0.0, 0.1))
    )
    """The cloth (VBD entry ``cloth``)."""

    def env_origins(self) -> list[tuple[float, float, float]]:
        """Env ``i`` at ``env_origin_offset + (i * env_spacing, 0, 0)`` [m]."""
        ox, oy, oz = self.env_origin_offset
        return [(ox + i * self.env_spacing, oy, oz) for i in range(self.num_envs)]

    def coupler_cfg(self) -> CouplerProxyCfg | CouplerAdmmCfg:
        """Box (Steel) and cloth (VBD, 10 iterations), coupled as :attr:`coupling` says.

        ADMM is tuned for a 0.1 kg box on a light cloth. With the proxy, a light box on a stiff cloth makes
        the lagged feedback overshoot; two relaxation passes with an under-relaxed update (0.5) keep it
        stable (a single pass launches the 0.1 kg box).
        """
        entries = [self.entry_cfg("box", SteelSolverCfg()), self.entry_cfg("cloth", VBDSolverCfg(iterations=10))]
        if self.coupling == "admm":
            return CouplerAdmmCfg(
                entries=entries, contact_pairs=[("box", "cloth")], iterations=8, rho=45.0, gamma=1.0e-3, baumgarte=0.1
            )
        box = self.entry_bodies("box")
        return CouplerProxyCfg(
            entries=entries,
            iterations=2,
            proxies=[CouplerProxyMappingCfg(source="box", destination="cloth", bodies=box, proxy_relaxation=0.5)],
        )

    def checks(self) -> list[SceneCheck]:
        """``finite`` and ``box_min_z``: the cloth holds the box (its center stays less than 5 cm below the pinned edges)."""
        box = body_points(f"{ENV_PATH}/{self.box.label()}/{self.box.body_name}")
        return [*super().checks(), MinHeightCheck("box_min_z", box, self.cloth.height - 0.05)]


@configclass
class BoxOnClothAdmmSceneCfg(BoxOnClothSceneCfg):
    """The box-on-cloth scene coupled by ADMM contacts."""

    coupling: Literal["proxy", "admm"] = "admm"
    """ADMM contacts between the box and the cloth."""


register_scene(
    "box_on_cloth",
    SceneSpec(
        BoxOnClothSceneCfg,
        "rigid box (Steel) pressing into a pinned cloth (VBD), virtual-proxy coupling",
        viewpoint=CameraCfg(eye=(-0.6, -0.6, 0.5), target=(0.0, 0.0, 0.08)),
    ),
)
register_scene(
    "box_on_cloth_admm",
    SceneSpec(
        BoxOnClothAdmmSceneCfg,
        "rigid box (Steel) on a pinned cloth (VBD), ADMM contacts",
        viewpoint=CameraCfg(eye=(-0.6, -0.6, 0.5), target=(0.0, 0.0, 0.08)),
    ),
)
