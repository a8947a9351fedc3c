"""The term library of the manager-based envs, by Isaac Lab's names (``isaaclab.envs.mdp`` ports by changing its
import to ``isaaclab_contrib.envs.mdp``): observations, rewards, terminations, events, actions, commands and
curricula."""

from .actions import *  # noqa: F403
from .commands import *  # noqa: F403
from .coupling import *  # noqa: F403
from .curriculums import *  # noqa: F403
from .deformable import *  # noqa: F403
from .deformable_commands import *  # noqa: F403
from .events import *  # noqa: F403
from .ik_action import *  # noqa: F403
from .observations import *  # noqa: F403
from .randomization import *  # noqa: F403
from .recorders import *  # noqa: F403
from .rewards import *  # noqa: F403
from .terminations import *  # noqa: F403
