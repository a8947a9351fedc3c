"""Isaac Lab's deformable lift tasks with the ``ik`` action preset, under Isaac Lab's ``-IK-Abs-`` naming.

Task ids (registered on import): ``Isaac-Lift-Soft-Franka-IK-Abs-v0``, ``Isaac-Lift-Cloth-Franka-IK-Abs-v0``,
``Isaac-Lift-Cable-Franka-IK-Abs-v0``: the tasks of :mod:`.lift_franka`, term for term, but the policy commands
an absolute pose of the end effector in the robot's base frame (position [m] and an ``(x, y, z, w)`` quaternion,
damped least-squares IK, lambda 0.6) and a binary gripper (action < 0 closes). Isaac Lab's lift tasks name this
preset ``ik``. One departure from Isaac Lab's observations: the policy group ends with ``tcp_position``, the tool
center point's position in the robot's base frame [m] (:func:`~isaaclab_contrib.envs.mdp.body_pos_b`, no noise),
the frame of the action's targets. Isaac Lab's group holds the hand's position only through the joint angles, and
an absolute-pose policy fitted to the oracle missed the object by centimetres without it (the lift tasks' docs).
The runner (:class:`LiftIkPPORunnerCfg`) is the ``joint`` preset's but for a smaller action noise and learning
rate.

Their oracles are the tasks' oracles (:func:`.lift_franka.soft_oracle` and the others), which act through this
preset natively, so ``scripts/record_demos.py`` records demonstrations in the policy's own action space and
``scripts/train.py --init_from_demos`` fits an actor to them; ``docs/isaac_lab_lift_tasks.md`` reports such a run.
"""

from __future__ import annotations

from typing import Any

from isaaclab_contrib.envs import mdp
from isaaclab_contrib.managers import ObservationTermCfg, SceneEntityCfg
from isaaclab_contrib.utils.configclass import configclass

from ._lift_franka import LiftPPORunnerCfg
from .lift_franka import (
    LiftCableEnvCfg,
    LiftClothEnvCfg,
    LiftSoftEnvCfg,
    register_lift_tasks,
    use_ik_actions,
)

__all__ = ["IK_TASK_IDS", "LiftCableIkEnvCfg", "LiftClothIkEnvCfg", "LiftIkPPORunnerCfg", "LiftSoftIkEnvCfg"]

IK_TASK_IDS = {
    "soft": "Isaac-Lift-Soft-Franka-IK-Abs-v0",
    "cloth": "Isaac-Lift-Cloth-Franka-IK-Abs-v0",
    "cable": "Isaac-Lift-Cable-Franka-IK-Abs-v0",
}


def _check_gripper_close(cfg: Any) -> None:
    """Raise where *cfg*'s gripper action does not close to its ``ik_gripper_close``: the config copies the field
    into the action when it is made, so a later change to one of them alone would be silently ignored."""
    expr = getattr(cfg.actions.gripper_action, "close_command_expr", None)
    if not isinstance(expr, dict) or set(expr.values()) != {cfg.ik_gripper_close}:
        raise ValueError(
            f"{type(cfg).__name__}: ik_gripper_close is {cfg.ik_gripper_close!r} but "
            f"actions.gripper_action.close_command_expr is {expr!r}; the config copies ik_gripper_close into the "
            "gripper action when it is made: pass it to the constructor, or set both"
        )


TCP = SceneEntityCfg("robot", body_names="panda_hand_tcp")
"""The tool center point, the body whose pose the ``ik`` preset commands."""


class _IkPreset:
    """The ``ik`` preset on a lift task's env config, and the tool center point's position in the policy group:
    set when the config is made, checked by ``validate``."""

    def __post_init__(self) -> None:
        use_ik_actions(self)
        self.observations.policy.tcp_position = ObservationTermCfg(func=mdp.body_pos_b, params={"asset_cfg": TCP})

    def validate(self) -> None:
        """Check the fields and that the gripper closes to :attr:`ik_gripper_close`."""
        super().validate()
        _check_gripper_close(self)


@configclass
class LiftSoftIkEnvCfg(_IkPreset, LiftSoftEnvCfg):
    """``Isaac-Lift-Soft-Franka-IK-Abs-v0``."""


@configclass
class LiftClothIkEnvCfg(_IkPreset, LiftClothEnvCfg):
    """``Isaac-Lift-Cloth-Franka-IK-Abs-v0``."""


@configclass
class LiftCableIkEnvCfg(_IkPreset, LiftCableEnvCfg):
    """``Isaac-Lift-Cable-Franka-IK-Abs-v0``."""


@configclass
class LiftIkPPORunnerCfg(LiftPPORunnerCfg):
    """The ``joint`` preset's PPO settings with an action noise of 0.02 (the actions are metres and quaternion
    components: the joint preset's 1.0 would throw the hand about by a metre) and a learning rate of 1e-4 (still
    adaptive): from an actor fitted to the oracle's demos (``train.py --init_from_demos``), 91-98 % of the episodes
    of iterations 1-9 ended on the joints' velocity limit at 1e-3, 18-58 % at 1e-4 (beam, 32 envs, seed 0, the
    same demos; see the lift tasks' docs)."""

    experiment_name: str = "lift_franka_ik"

    def __post_init__(self) -> None:
        self.actor.init_std = 0.02
        self.algorithm.learning_rate = 1.0e-4


register_lift_tasks(
    IK_TASK_IDS, {"soft": LiftSoftIkEnvCfg, "cloth": LiftClothIkEnvCfg, "cable": LiftCableIkEnvCfg}, LiftIkPPORunnerCfg
)
