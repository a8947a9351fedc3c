"""RL task: a rigid pusher must press the middle of a pinned cloth to a target depth and hold it.

Per env: a sphere (``/World/envs/env_{i}/Pusher/body``, Steel entry) above the center of a cloth
pinned along two edges (VBD entry), coupled by a virtual proxy (the pusher is mirrored into the
cloth solver). The action is a vertical force on the pusher on top of gravity compensation, applied
inside the captured decimation loop. The cloth only reaches the depth through the coupling.

Observation (5): pusher height above the pinned edge [m], pusher vertical speed [m/s], depth of the
cloth center [m], target depth [m], previous action. Reward: ``exp(-((depth - target) / sigma)^2)``
minus a small action penalty. Terminated when the pusher leaves the cloth (through it or far above).
"""

from __future__ import annotations

from typing import ClassVar

import torch
import warp as wp

from isaaclab_contrib.envs import register_task
from isaaclab_contrib.rl import RslRlOnPolicyRunnerCfg
from isaaclab_contrib.scenes import InitialStateCfg, RigidObjectCfg, SphereCfg
from isaaclab_contrib.utils.configclass import configclass

from .cloth_depth_task import ClothDepthSceneCfg, ClothDepthTaskCfg, ClothDepthTaskEnv

__all__ = [
    "TASK_ID",
    "PressClothEnv",
    "PressClothEnvCfg",
    "PressClothPPORunnerCfg",
    "PressClothSceneCfg",
    "oracle_policy",
]

TASK_ID = "Isaac-Press-Cloth-Direct-v0"
"""Gymnasium id of this task (registered on import)."""


@configclass
class PressClothSceneCfg(ClothDepthSceneCfg):
    """The cloth and a 4 cm sphere (the pusher) 2 cm above its center."""

    presser: ClassVar[str] = "pusher"
    proxied: ClassVar[str] = "Pusher"

    pusher: RigidObjectCfg = RigidObjectCfg(
        prim_path="{ENV_REGEX_NS}/Pusher",
        entry="pusher",
        spawn=SphereCfg(radius=0.04),
        density=1000.0,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.3 + 0.02 + 0.04)),  # 2 cm above the cloth (0.3 m up)
    )
    """The pusher (Steel entry ``pusher``), mirrored into the cloth solver."""


@configclass
class PressClothEnvCfg(ClothDepthTaskCfg):
    """Action, reward and termination settings of the press-the-cloth task (scene: :class:`PressClothSceneCfg`)."""

    _ranges: ClassVar[dict[str, str]] = {
        "max_force": ">= 0",
        "action_penalty": ">= 0",
        "fail_below": "> 0",
        "fail_above": "> 0",
    }

    scene: PressClothSceneCfg = PressClothSceneCfg()
    """The cloth and the pusher."""
    max_force: float = 6.0
    """Force of a full action, added to gravity compensation [N]; negative actions push down."""
    target_depth_range: tuple[float, float] = (0.025, 0.045)
    """Range of the per-episode target depth of the cloth center [m] (it sags about 2 cm under its own weight;
    with ``max_force`` the pusher holds the cloth down to about 4.5 cm)."""
    reward_sigma: float = 0.02
    """Width of the depth reward [m]."""
    action_penalty: float = 0.01
    """Weight of the squared action in the reward."""
    fail_below: float = 0.15
    """Terminate when the pusher is this far below the pinned edge [m] (through the cloth)."""
    fail_above: float = 0.3
    """Terminate when the pusher is this far above the pinned edge [m] (flew off)."""


@wp.kernel
def _pusher_force_kernel(
    actions: wp.array2d(dtype=float),
    pusher_body: wp.array(dtype=int),
    weight: float,
    max_force: float,
    body_f: wp.array(dtype=wp.spatial_vector),
):
    env = wp.tid()
    fz = weight + max_force * wp.clamp(actions[env, 0], -1.0, 1.0)
    body_f[pusher_body[env]] = wp.spatial_vector(0.0, 0.0, fz, 0.0, 0.0, 0.0)


class PressClothEnv(ClothDepthTaskEnv):
    """Press the cloth center to a target depth with a force-controlled pusher."""

    num_observations = 5
    num_actions = 1

    cfg: PressClothEnvCfg

    def _setup_buffers(self) -> None:
        model = self.manager.get_model()
        labels = model.body_label
        pusher = [labels.index(self.cfg.scene.pusher.body_label_in_env(i)) for i in range(self.num_envs)]
        self.pusher_ids = torch.tensor(pusher, device=self.torch_device)
        self.pusher_body = wp.array(pusher, dtype=int, device=self.device)
        mass = float(model.body_mass.numpy()[pusher[0]])
        self.weight = mass * float(-model.gravity.numpy()[0][2])
        self._setup_cloth_buffers()
        self.prev_action = torch.zeros(self.num_envs, device=self.torch_device)
        self.staged_f = self.manager.get_staged_body_f()

    def _apply_action_launch(self) -> None:
        wp.launch(
            _pusher_force_kernel,
            dim=self.num_envs,
            inputs=[self.actions_wp, self.pusher_body, self.weight, self.cfg.max_force],
            outputs=[self.staged_f],
            device=self.device,
        )

    def _state(self):
        state = self.manager.get_state_0()
        body_q, body_qd = wp.to_torch(state.body_q), wp.to_torch(state.body_qd)
        pusher_z = body_q[self.pusher_ids, 2] - self.cfg.scene.cloth.height
        pusher_vz = body_qd[self.pusher_ids, 2]
        return pusher_z, pusher_vz, self.cloth_depth()

    def _get_observations(self) -> torch.Tensor:
        pusher_z, pusher_vz, depth = self._state()
        return torch.stack([pusher_z, pusher_vz, depth, self.target, self.prev_action], dim=-1)

    def _get_rewards(self) -> torch.Tensor:
        _, _, depth = self._state()
        action = self.actions[:, 0]
        self.prev_action.copy_(action)  # in place: buffers stay normal tensors under inference_mode
        return self.depth_reward(depth) - self.cfg.action_penalty * action**2

    def _get_dones(self) -> torch.Tensor:
        pusher_z, _, _ = self._state()
        return (pusher_z < -self.cfg.fail_below) | (pusher_z > self.cfg.fail_above)

    def _reset_idx(self, env_ids: torch.Tensor) -> None:
        self._draw_targets(env_ids)
        self.prev_action[env_ids] = 0.0


def oracle_policy(env: PressClothEnv, gain: float = 1.0, damping: float = 1.0):
    """A scripted force controller; returns ``obs -> actions``.

    Integrates the depth error into the force command (``gain`` [action per m of error per env step])
    and damps the pusher's vertical speed (``damping`` [action per m/s]). Its mean return is the
    reference return of the task.
    """
    command = torch.zeros(env.num_envs, device=env.torch_device)

    def act(obs: torch.Tensor) -> torch.Tensor:
        command[env.episode_length == 0] = 0.0  # an env that was just reset starts its command over
        pusher_vz, depth, target = obs[:, 1], obs[:, 2], obs[:, 3]
        command.sub_(gain * (target - depth))
        return (command - damping * pusher_vz).clamp(-1.0, 1.0).unsqueeze(-1)

    return act


@configclass
class PressClothPPORunnerCfg(RslRlOnPolicyRunnerCfg):
    """rsl-rl PPO settings of the press-the-cloth task."""

    experiment_name: str = "press_cloth"
    num_envs: int = 16
    num_steps_per_env: int = 32
    max_iterations: int = 200
    save_interval: int = 50


register_task(
    TASK_ID,
    env_class=PressClothEnv,
    env_cfg_class=PressClothEnvCfg,
    runner_cfg_class=PressClothPPORunnerCfg,
    oracle=oracle_policy,
)
