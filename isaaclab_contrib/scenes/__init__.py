"""Scenes as nested, buildable configs: asset configs, the scene base config, the registry and :func:`launch`.

* Asset configs (Isaac Lab style, each naming the coupler entry that owns it): :class:`PinnedClothCfg`,
  :class:`ClothMeshCfg`, :class:`CableCfg`, :class:`GranularBedCfg`, :class:`GranularHeapCfg`, :class:`ParticleGridCfg`,
  :class:`SoftBlockCfg`, :class:`SoftMeshCfg`, :class:`UsdDeformablesCfg` (USD-authored deformables, owned by prim
  path), :class:`RigidObjectCfg` (:class:`CuboidCfg`, :class:`SphereCfg`),
  :class:`ArticulationCfg` (:class:`MjcfFileCfg`, :class:`UrdfFileCfg`, :class:`UsdFileCfg`; collision options,
  :class:`ShapeMaterialCfg`), :class:`GroundPlaneCfg`; robot files and ``package://`` URIs resolved offline
  (:func:`find_package`, :func:`resolve_urdf_text`, :func:`example_robot_data_path`).
* Success checks a scene declares (:meth:`SceneBaseCfg.checks`; :mod:`~isaaclab_contrib.scenes.checks`).
* :class:`SceneBaseCfg`: a scene nests its assets as fields, builds itself (``build(builder)``) and gives its
  coupler (``coupler_cfg()``, entries from :meth:`SceneBaseCfg.entry_cfg`).
* :func:`launch`: ``SimulationContext -> create_builder -> scene.build -> set_builder -> sim.reset()``;
  :func:`build_model`: the finalized model alone.
* The registry (:func:`register_scene`, :func:`get_scene`, :func:`scene_names`) and env replication
  (:func:`replicate_envs`).

Ready scenes and tasks live outside the package, in the repository's top-level ``configs/`` folder (installed
as ``isaaclab_coupling_configs``); each registers itself here. The package never imports them.
"""

from .articulation import (
    COLLIDER_TYPES,
    ArticulationCfg,
    ArticulationFileCfg,
    ArticulationInitialStateCfg,
    MjcfFileCfg,
    ShapeMaterialCfg,
    UrdfFileCfg,
    UsdFileCfg,
)
from .asset_base import ENV_PATH, ENV_REGEX_NS, AssetBaseCfg, GroundPlaneCfg, InitialStateCfg, SpawnedAsset
from .asset_paths import example_robot_data_path, find_package, resolve_asset_uri, resolve_urdf_text
from .base_cfg import SceneBaseCfg
from .cable import CableCfg
from .camera_cfg import CameraCfg, frame_env, frame_points, make_viewport
from .checks import CheckResult, FiniteCheck, LiftCheck, MaxDistanceCheck, MaxHeightCheck, MinHeightCheck, SceneCheck
from .cloth import ClothMeshCfg, PinnedClothCfg, add_pinned_cloth
from .granular import GranularBedCfg, GranularHeapCfg, ParticleGridCfg, add_granular_bed
from .interactive_scene import InteractiveScene
from .launch import build_model, copy_config, launch
from .registry import SceneSpec, get_scene, register_scene, registered_scenes, scene_names, scene_sim
from .replicate import env_particle_blocks, env_prefixes, replicate_envs
from .rigid_object import CuboidCfg, RigidObjectCfg, ShapeSpawnCfg, SphereCfg
from .soft_body import SoftBlockCfg, SoftMeshCfg
from .usd_deformables import UsdDeformable, UsdDeformablesCfg

__all__ = [
    "COLLIDER_TYPES",
    "ENV_PATH",
    "ENV_REGEX_NS",
    "ArticulationCfg",
    "ArticulationFileCfg",
    "ArticulationInitialStateCfg",
    "AssetBaseCfg",
    "CableCfg",
    "CameraCfg",
    "CheckResult",
    "ClothMeshCfg",
    "CuboidCfg",
    "FiniteCheck",
    "GranularBedCfg",
    "GranularHeapCfg",
    "GroundPlaneCfg",
    "InitialStateCfg",
    "InteractiveScene",
    "LiftCheck",
    "MaxDistanceCheck",
    "MaxHeightCheck",
    "MinHeightCheck",
    "MjcfFileCfg",
    "ParticleGridCfg",
    "PinnedClothCfg",
    "RigidObjectCfg",
    "SceneBaseCfg",
    "SceneCheck",
    "SceneSpec",
    "ShapeMaterialCfg",
    "ShapeSpawnCfg",
    "SoftBlockCfg",
    "SoftMeshCfg",
    "SpawnedAsset",
    "SphereCfg",
    "UrdfFileCfg",
    "UsdDeformable",
    "UsdDeformablesCfg",
    "UsdFileCfg",
    "add_granular_bed",
    "add_pinned_cloth",
    "build_model",
    "copy_config",
    "env_particle_blocks",
    "env_prefixes",
    "example_robot_data_path",
    "find_package",
    "frame_env",
    "frame_points",
    "get_scene",
    "launch",
    "make_viewport",
    "register_scene",
    "registered_scenes",
    "replicate_envs",
    "resolve_asset_uri",
    "resolve_urdf_text",
    "scene_names",
    "scene_sim",
]
