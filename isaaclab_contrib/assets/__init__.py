"""Runtime asset objects of a launched scene (Isaac Lab 3.0's ``isaaclab.assets``), reached through
:class:`~isaaclab_contrib.scenes.InteractiveScene`: ``scene["robot"]`` is an :class:`Articulation`.

* :class:`Articulation` / :class:`ArticulationData`: a jointed robot per env;
* :class:`RigidObject` / :class:`RigidObjectData`: one free body per env;
* :class:`Cable` / :class:`CableData`: the capsule segments of a VBD cable per env;
* :class:`DeformableObject` / :class:`DeformableObjectData`: the particles of a cloth, soft body, granular bed or
  USD deformable per env;
* :class:`ProxyArray`: every data field, a Warp array with a cached zero-copy ``.torch`` view ``[num_envs, ...]``.

Newton's layout the fields follow (see :mod:`~isaaclab_contrib.assets.body_asset`): quaternions ``(x, y, z, w)``
(Isaac Lab 3.0's order too); ``body_qd`` is ``(linear velocity of the center of mass, angular velocity)``, world
frame; positions are the body frames' origins.
"""

from .articulation import Articulation, ArticulationData
from .asset_base import AssetBase, AssetDataBase
from .cable import Cable, CableData
from .deformable_object import DeformableObject, DeformableObjectData
from .proxy_array import ProxyArray
from .rigid_object import RigidObject, RigidObjectData

__all__ = [
    "Articulation",
    "ArticulationData",
    "AssetBase",
    "AssetDataBase",
    "Cable",
    "CableData",
    "DeformableObject",
    "DeformableObjectData",
    "ProxyArray",
    "RigidObject",
    "RigidObjectData",
]
