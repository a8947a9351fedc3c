"""Isaac Lab's managers for manager-based envs: terms over the runtime scene, with Isaac Lab's names.

``isaaclab.managers`` configs port by changing the import to ``isaaclab_contrib.managers``.
"""

from .action_manager import ActionManager, ActionTerm
from .command_manager import CommandManager, CommandTerm
from .curriculum_manager import CurriculumManager
from .event_manager import EventManager
from .manager_base import ManagerBase, ManagerTermBase
from .manager_term_cfg import (
    ActionTermCfg,
    CommandTermCfg,
    CurriculumTermCfg,
    EventTermCfg,
    ManagerTermBaseCfg,
    ObservationGroupCfg,
    ObservationTermCfg,
    RecorderTermCfg,
    RewardTermCfg,
    TerminationTermCfg,
)
from .observation_manager import ObservationManager
from .recorder_manager import DatasetExportMode, EpisodeData, RecorderManager, RecorderManagerBaseCfg, RecorderTerm
from .reward_manager import RewardManager
from .scene_entity_cfg import SceneEntityCfg
from .termination_manager import TerminationManager

__all__ = [
    "ActionTermCfg",
    "CommandTermCfg",
    "CurriculumTermCfg",
    "EventTermCfg",
    "ManagerBase",
    "ManagerTermBase",
    "ManagerTermBaseCfg",
    "ObservationGroupCfg",
    "ObservationTermCfg",
    "RecorderTermCfg",
    "RewardTermCfg",
    "SceneEntityCfg",
    "TerminationTermCfg",
]
__all__ += [
    "ActionManager",
    "ActionTerm",
    "CommandManager",
    "CommandTerm",
    "DatasetExportMode",
    "EpisodeData",
    "EventManager",
    "RecorderManager",
    "RecorderManagerBaseCfg",
    "RecorderTerm",
]
__all__ += ["CurriculumManager", "ObservationManager", "RewardManager", "TerminationManager"]
