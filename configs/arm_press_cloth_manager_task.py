"""RL task, manager-based: the arm presses the middle of a pinned cloth to a target depth and holds it.

The same task as ``Isaac-Arm-Press-Cloth-Direct-v0`` (:mod:`.arm_press_cloth_task`: the same scene, physics,
observation, reward and termination, step for step), written as an Isaac Lab user writes a manager-based task:
observation, action, command, reward, termination and event terms, taken from :mod:`isaaclab_contrib.envs.mdp`
where it has them (``joint_pos_rel``, ``joint_vel_rel``, ``last_action``, ``generated_commands``,
``action_rate_l2``, ``time_out``, ``JointPositionActionCfg``, ``reset_scene_to_default``) and defined here where
the task is particular (the fingertip's position, the cloth's depth, the depth target).

Isaac Lab's reward manager multiplies each term by its weight and by the env step ``dt``; the direct task's
reward is per env step, so the weights here are the direct task's divided by ``dt``. The target depth is a
command drawn at each reset from torch's global generator (Isaac Lab's convention; the env seeds it with its
``seed``), which is the only draw of the task: for the same seed its targets are the direct task's, whose env
draws them from a generator of its own seeded alike.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from isaaclab_contrib.envs import ManagerBasedRLEnv, ManagerBasedRLEnvCfg, mdp, register_task
from isaaclab_contrib.managers import (
    CommandTerm,
    CommandTermCfg,
    EventTermCfg,
    ObservationGroupCfg,
    ObservationTermCfg,
    RewardTermCfg,
    SceneEntityCfg,
    TerminationTermCfg,
)
from isaaclab_contrib.utils.configclass import configclass

from .arm_press_cloth_task import (
    ArmPressClothEnvCfg,
    ArmPressClothPPORunnerCfg,
    ArmPressClothSceneCfg,
    _fingertip,
    oracle_joint_targets,
)

__all__ = [
    "TASK_ID",
    "ArmPressClothManagerEnvCfg",
    "ClothDepthCommand",
    "ClothDepthCommandCfg",
    "cloth_center_depth",
    "fingertip_yz",
]

TASK_ID = "Isaac-Arm-Press-Cloth-v0"
"""Gymnasium id of this task (registered on import)."""

DIRECT = ArmPressClothEnvCfg()
"""The direct task's settings this task takes its numbers from."""
STEP_DT = DIRECT.sim.dt * DIRECT.decimation
"""Env step [s]."""
ARM = SceneEntityCfg("arm", joint_names=["shoulder", "elbow"], preserve_order=True)
"""The arm's two joints, shoulder first."""
CLOTH = SceneEntityCfg("cloth")


# ---------------------------------------------------------------------------------------------- task terms
def fingertip_yz(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = ARM) -> torch.Tensor:
    """Fingertip (y, z) relative to the cloth center [m], ``[num_envs, 2]`` (from the joint angles)."""
    q = env.scene[asset_cfg.name].data.joint_pos.torch[:, asset_cfg.joint_ids]
    tip_y, tip_z = _fingertip(env.cfg.scene.arm, q)
    return torch.stack([tip_y, tip_z], dim=-1)


def cloth_center_depth(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = CLOTH) -> torch.Tensor:
    """Depth of the cloth's center particle below the pinned edges [m], ``[num_envs, 1]``."""
    cloth = env.cfg.scene.cloth
    z = env.scene[asset_cfg.name].data.nodal_pos_w.torch[:, cloth.center_particle(), 2]
    return (cloth.height - z).unsqueeze(-1)


def depth_tracking_exp(env: ManagerBasedRLEnv, sigma: float, command_name: str = "depth") -> torch.Tensor:
    """``exp(-((depth - target) / sigma)^2)``, in [0, 1]."""
    target = env.command_manager.get_command(command_name)[:, 0]
    depth = cloth_center_depth(env)[:, 0]
    return torch.exp(-(((depth - target) / sigma) ** 2))


def fingertip_drift_l2(env: ManagerBasedRLEnv, asset_cfg: SceneEntityCfg = ARM) -> torch.Tensor:
    """Squared horizontal distance of the fingertip from the cloth center [m^2]."""
    return fingertip_yz(env, asset_cfg)[:, 0] ** 2


def fingertip_below(env: ManagerBasedRLEnv, depth: float, asset_cfg: SceneEntityCfg = ARM) -> torch.Tensor:
    """The fingertip's center is more than *depth* below the pinned edges [m] (through the cloth)."""
    return fingertip_yz(env, asset_cfg)[:, 1] < -depth


class ClothDepthCommand(CommandTerm):
    """The target depth of the cloth center [m], ``[num_envs, 1]``, drawn uniformly from ``depth_range`` at each
    reset (torch's global generator). Metric: ``depth_error`` [m], the distance of the depth from its target."""

    cfg: Any

    def __init__(self, cfg: ClothDepthCommandCfg, env: ManagerBasedRLEnv):
        super().__init__(cfg, env)
        self.target = torch.zeros(self.num_envs, 1, device=self.device)
        self.metrics["depth_error"] = torch.zeros(self.num_envs, device=self.device)

    @property
    def command(self) -> torch.Tensor:
        return self.target

    def _update_metrics(self) -> None:
        self.metrics["depth_error"][:] = (cloth_center_depth(self._env)[:, 0] - self.target[:, 0]).abs()  # in place

    def _resample_command(self, env_ids) -> None:
        low, high = self.cfg.depth_range
        n = len(range(self.num_envs)[env_ids]) if isinstance(env_ids, slice) else len(env_ids)
        draw = torch.rand(n, device=self.device)
        self.target[env_ids, 0] = low + (high - low) * draw

    def _update_command(self) -> None:
        pass


@configclass
class ClothDepthCommandCfg(CommandTermCfg):
    """The target depth of the cloth center (:class:`ClothDepthCommand`), held for the whole episode."""

    _ranges: ClassVar[dict[str, str]] = {"depth_range": ">= 0"}

    class_type: type = ClothDepthCommand
    resampling_time_range: tuple[float, float] = (float("inf"), float("inf"))
    """Never resampled within an episode: a new target only at a reset (and no draw for the time) [s]."""
    depth_range: tuple[float, float] = DIRECT.target_depth_range
    """Range of the target depth [m]."""

    def validate(self) -> None:
        """Check the fields, the resampling time range and that :attr:`depth_range` is ``(low, high)``, low <= high."""
        super().validate()
        low, high = self.depth_range
        if low > high:
            raise ValueError(
                f"{type(self).__name__}.depth_range must be (low, high) with low <= high, got {self.depth_range!r}"
            )


# ---------------------------------------------------------------------------------------------- manager configs
@configclass
class ObservationsCfg:
    """The policy's observation: 10 values, as the direct task's."""

    @configclass
    class PolicyCfg(ObservationGroupCfg):
        """Joint positions and velocities, fingertip, depth, target, last action."""

        joint_pos = ObservationTermCfg(func=mdp.joint_pos_rel, params={"asset_cfg": ARM})
        joint_vel = ObservationTermCfg(func=mdp.joint_vel_rel, params={"asset_cfg": ARM})
        fingertip = ObservationTermCfg(func=fingertip_yz)
        depth = ObservationTermCfg(func=cloth_center_depth)
        target = ObservationTermCfg(func=mdp.generated_commands, params={"command_name": "depth"})
        actions = ObservationTermCfg(func=mdp.last_action)

    policy: PolicyCfg = PolicyCfg()


@configclass
class ActionsCfg:
    """Joint position targets ``default + action_scale * action`` for both joints."""

    arm = mdp.JointPositionActionCfg(
        asset_name="arm", joint_names=["shoulder", "elbow"], preserve_order=True, scale=DIRECT.action_scale
    )


@configclass
class CommandsCfg:
    """The target depth."""

    depth = ClothDepthCommandCfg()


@configclass
class RewardsCfg:
    """The direct task's reward, term by term (weights divided by the env step, which the manager multiplies)."""

    depth_tracking = RewardTermCfg(func=depth_tracking_exp, weight=1.0 / STEP_DT, params={"sigma": DIRECT.reward_sigma})
    action_rate = RewardTermCfg(func=mdp.action_rate_l2, weight=-DIRECT.action_rate_penalty / STEP_DT)
    fingertip_drift = RewardTermCfg(func=fingertip_drift_l2, weight=-DIRECT.drift_penalty / STEP_DT)


@configclass
class TerminationsCfg:
    """Time-out, and the fingertip through the cloth."""

    time_out = TerminationTermCfg(func=mdp.time_out, time_out=True)
    through_cloth = TerminationTermCfg(func=fingertip_below, params={"depth": DIRECT.fail_depth})


@configclass
class EventsCfg:
    """Each reset puts the env's arm and cloth back to their start."""

    reset_scene = EventTermCfg(func=mdp.reset_scene_to_default, mode="reset")


@configclass
class ArmPressClothManagerEnvCfg(ManagerBasedRLEnvCfg):
    """The arm-presses-cloth task as a manager-based config."""

    scene: ArmPressClothSceneCfg = ArmPressClothSceneCfg()
    decimation: int = DIRECT.decimation
    episode_length_s: float = DIRECT.episode_length_s
    seed: int | None = DIRECT.seed
    observations: ObservationsCfg = ObservationsCfg()
    actions: ActionsCfg = ActionsCfg()
    commands: CommandsCfg = CommandsCfg()
    rewards: RewardsCfg = RewardsCfg()
    terminations: TerminationsCfg = TerminationsCfg()
    events: EventsCfg = EventsCfg()


@configclass
class ArmPressClothManagerPPORunnerCfg(ArmPressClothPPORunnerCfg):
    """The direct task's PPO settings; actions clipped to [-1, 1] before the env sees them, as the direct env
    clips them itself."""

    experiment_name: str = "arm_press_cloth_manager"
    clip_actions: float | None = 1.0


def oracle_policy(env: ManagerBasedRLEnv, gain: float = 0.5):
    """The direct task's scripted controller (:func:`.arm_press_cloth_task.oracle_policy`) on this env's state."""
    arm = env.cfg.scene.arm
    command = torch.zeros(env.num_envs, 2, device=env.device)
    default_q = torch.tensor(arm.default_joint_pos(), device=env.device)

    def act(_obs) -> torch.Tensor:
        target = env.command_manager.get_command("depth")[:, 0]
        tip_y = fingertip_yz(env)[:, 0]
        depth = cloth_center_depth(env)[:, 0]
        q = oracle_joint_targets(arm, command, env.episode_length_buf == 0, tip_y, depth, target, gain)
        return ((q - default_q) / env.cfg.actions.arm.scale).clamp(-1.0, 1.0)

    return act


register_task(
    TASK_ID,
    env_class=ManagerBasedRLEnv,
    env_cfg_class=ArmPressClothManagerEnvCfg,
    runner_cfg_class=ArmPressClothManagerPPORunnerCfg,
    oracle=oracle_policy,
)
