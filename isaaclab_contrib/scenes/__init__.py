"""Scene building blocks: the scene base config, the scene registry, env replication, cloth and granular builders.

Ready scenes and tasks live outside the package, in the repository's top-level ``configs/``
package; each registers itself here with :func:`register_scene`. The package never imports them.
"""

from .base_cfg import SceneBaseCfg
from .cloth import add_pinned_cloth
from .granular import add_granular_bed
from .registry import SceneSpec, get_scene, register_scene, registered_scenes, scene_names
from .replicate import env_particle_blocks, env_prefixes, replicate_envs

__all__ = [
    "SceneBaseCfg",
    "SceneSpec",
    "add_granular_bed",
    "add_pinned_cloth",
    "env_particle_blocks",
    "env_prefixes",
    "get_scene",
    "register_scene",
    "registered_scenes",
    "replicate_envs",
    "scene_names",
]
