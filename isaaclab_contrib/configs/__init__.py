"""Ready coupled scenes: a scene builder plus coupler configs a task can copy.

:data:`SCENES` lists them for the main job (``scripts/run.py --scene NAME``):

* ``ant_on_hammock`` — a legged robot (MuJoCo ant, Steel) falling onto a pinned cloth hammock (VBD), ADMM.
* ``box_on_cloth`` — a box (Steel) pressing into a pinned cloth (VBD) through proxy coupling.
* ``box_on_cloth_admm`` — the same box and cloth coupled by ADMM contacts.
* ``grains_on_cloth`` — a particle bed (XPBD) on a pinned cloth (VBD), proxy-particle coupling.
* ``tool_in_sand`` — a rigid tool (Steel) dropped into granular material (implicit MPM, in place).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import ant_on_hammock, box_on_cloth, grains_on_cloth, tool_in_sand

__all__ = ["SCENES", "SceneSpec"]


@dataclass(frozen=True)
class SceneSpec:
    """How to build and couple one ready scene."""

    description: str
    scene_cfg: Callable[..., Any]
    """Scene config class; called with ``num_envs=...``."""
    build: Callable[[Any, Any], None]
    """``build(builder, scene_cfg)`` adds every env to the builder."""
    coupler: Callable[[Any], Any]
    """``coupler(scene_cfg)`` returns the coupler config."""
    decimation: int = 4
    """Physics steps per env step."""
    num_substeps: int = 1
    """Solver substeps per physics step."""


SCENES: dict[str, SceneSpec] = {
    "ant_on_hammock": SceneSpec(
        "legged robot (ant, Steel) falling onto a pinned cloth hammock (VBD), ADMM contacts",
        ant_on_hammock.AntOnHammockSceneCfg,
        ant_on_hammock.build_ant_on_hammock,
        lambda cfg: ant_on_hammock.admm_coupler_cfg(),
    ),
    "box_on_cloth": SceneSpec(
        "rigid box (Steel) pressing into a pinned cloth (VBD), virtual-proxy coupling",
        box_on_cloth.BoxOnClothSceneCfg,
        box_on_cloth.build_box_on_cloth,
        lambda cfg: box_on_cloth.proxy_coupler_cfg(),
    ),
    "box_on_cloth_admm": SceneSpec(
        "rigid box (Steel) on a pinned cloth (VBD), ADMM contacts",
        box_on_cloth.BoxOnClothSceneCfg,
        box_on_cloth.build_box_on_cloth,
        lambda cfg: box_on_cloth.admm_coupler_cfg(),
    ),
    "grains_on_cloth": SceneSpec(
        "particle bed (XPBD) on a pinned cloth (VBD), proxy-particle coupling",
        grains_on_cloth.GrainsOnClothSceneCfg,
        grains_on_cloth.build_grains_on_cloth,
        grains_on_cloth.proxy_coupler_cfg,
        num_substeps=2,
    ),
    "tool_in_sand": SceneSpec(
        "rigid tool (Steel) dropped into granular material (implicit MPM, in place), virtual-proxy coupling",
        tool_in_sand.ToolInSandSceneCfg,
        tool_in_sand.build_tool_in_sand,
        tool_in_sand.proxy_coupler_cfg,
    ),
}
