"""RL tasks: the Franka Panda grasps a deformable and lifts it to a target height (Isaac Lab's lift tasks).

Scenes: ``franka_lift_soft`` (a 4 cm soft block, VBD) and ``franka_cloth`` (a free cloth, VBD, pinched near a
corner), the Panda driven by MuJoCo-Warp with PD joint drives, coupled by a virtual proxy (hand and fingers
mirrored into VBD). Per env the object rests at the same place; the target height is drawn per episode.

Action (4, clipped to [-1, 1]), Isaac Lab's relative end-effector action plus a gripper command:
``a[:3]`` moves the commanded tool-center-point (TCP) position by ``action_scale * a[:3]`` [m per env step],
kept inside the work box :attr:`FrankaLiftEnvCfg.workspace_low` .. ``workspace_high``; the arm's joint
position targets follow from a table of inverse-kinematics solutions over that box
(:class:`~isaaclab_coupling_configs._franka.TcpIkTable`, hand pointing down). ``a[3]`` is the gripper:
the finger-slide targets move toward the scene's ``grasp_opening`` (``a[3] = 1``) or open, 4 cm (``a[3] = -1``),
linearly in between, at :attr:`FrankaLiftEnvCfg.finger_speed`, so the fingers squeeze without slamming.

Observation (16): TCP position relative to the object's grasp point [m], commanded TCP position relative to
it [m], finger opening (mean slide position / 4 cm) [1], lifted part's center relative to the TCP [m], its
rise above rest and the rise still to go to the target (target - rise) [m], previous actions. With :attr:`FrankaLiftEnvCfg.coupler_observations`
4 more: what the coupler measures, the object's push on each finger [N], the vertical force on both [N] and the
object's deepest penetration into the fingers [cm].

Reward per env step (Isaac Lab's lift terms plus a grasp term): ``reach_weight * (1 - tanh(|tcp - object| /
0.1 m))`` + ``grasp_weight * squeeze * (1 - tanh(|tcp - object| / grasp_std))`` (``squeeze``: how far the
finger targets have moved from open toward closed, 0 to 1) + ``lift_weight * clamp(2 rise / lift_threshold - 1, 0, 1)`` (0 up to half the
threshold, 1 from the threshold on) + ``[rise > lift_threshold] * (goal_weight * (1 - tanh(|rise -
target| / goal_std)) + goal_coarse_weight * (1 - tanh(|rise - target| / goal_coarse_std)))`` (Isaac Lab's fine
and coarse goal terms) - ``action_rate_penalty * |a - a_prev|^2`` - ``action_limit_penalty * |excess|^2``
(``excess``: how far the policy's actions lay outside [-1, 1] before the clip) - ``penetration_penalty * depth`` (the object's
deepest penetration into the fingers [m], off by default). Terminated when the lifted part leaves the
work area (flung: more than :attr:`FrankaLiftEnvCfg.fling_distance` from its rest position) or is not finite.

:func:`oracle_policy` is a scripted pick with privileged state (the grasp point, the target): over the
grasp point, down, close, wait, lift to the target (:func:`cloth_oracle_policy` closes later for the cloth). Its
return is the reference for training.

Task ids (registered on import):

* ``Isaac-Lift-Soft-Franka-Direct-v0`` -- the ``franka_lift_soft`` scene as the scene checks it (4 x 4 x 4
  cells, 10 VBD iterations, 8 substeps per 60 Hz frame); runner sized for a GPU (4096 envs).
* ``Isaac-Lift-Soft-Franka-Coarse-Direct-v0`` -- the documented reduced variant that trains on a 2-core CPU
  (:class:`FrankaLiftVerticalEnv`): a coarser block (the same 4 cm cube as 2 x 2 x 2 cells of 2 cm, 86 g
  instead of 50 g), 5 VBD iterations and 4 substeps per frame (about 15x cheaper per env step), 32 envs, and
  2 actions: the commanded TCP stays straight over the grasp point, the policy moves it vertically and works
  the gripper (observation 14: the same with 2 previous actions). Episodes start with the hand 10 cm over the
  block (:data:`HOVER_POSE`, instead of the ready pose 38 cm over it) in a work box 26 cm high, so the
  approach takes 10 of the 120 env steps instead of 38. The same reward and oracle.
* ``Isaac-Lift-Cloth-Franka-Direct-v0`` -- the ``franka_cloth`` scene: pinch the cloth near its corner and lift
  that corner to the target; runner sized for a GPU (4096 envs).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

import torch
import warp as wp

from isaaclab_contrib.envs import CoupledDirectEnv, CoupledDirectEnvCfg, register_task
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg
from isaaclab_contrib.rl import RslRlOnPolicyRunnerCfg
from isaaclab_contrib.scenes import InitialStateCfg
from isaaclab_contrib.utils.configclass import MISSING, configclass

from ._franka import FINGER_JOINTS, FRAME_DT, SUBSTEPS, TCP_BODY, FrankaPickSceneCfg, TcpIkTable
from .franka_cloth import FrankaClothSceneCfg
from .franka_lift_soft import BLOCK_LIFT, BLOCK_X, FrankaLiftSoftSceneCfg

__all__ = [
    "CLOTH_TASK_ID",
    "COARSE_TASK_ID",
    "HOVER_POSE",
    "SOFT_TASK_ID",
    "FrankaLiftClothEnvCfg",
    "FrankaLiftEnv",
    "FrankaLiftEnvCfg",
    "FrankaLiftSoftCoarseEnvCfg",
    "FrankaLiftSoftEnvCfg",
    "FrankaLiftVerticalEnv",
    "cloth_oracle_policy",
    "coarse_oracle_policy",
    "oracle_policy",
]

SOFT_TASK_ID = "Isaac-Lift-Soft-Franka-Direct-v0"
COARSE_TASK_ID = "Isaac-Lift-Soft-Franka-Coarse-Direct-v0"
CLOTH_TASK_ID = "Isaac-Lift-Cloth-Franka-Direct-v0"
OPEN = 0.04
"""Finger-slide position of the open gripper [m]."""
HOVER_POSE = {
    "panda_joint1": 0.0,
    "panda_joint2": 0.2124,
    "panda_joint3": 0.0,
    "panda_joint4": -2.4011,
    "panda_joint5": 0.0,
    "panda_joint6": 2.6135,
    "panda_joint7": 0.7854,
    "panda_finger_joint.*": 0.04,
}
"""Start configuration of the coarse task [rad, m]: the hand pointing down, fingers open, the TCP 10 cm over the
soft block's grasp point, at (0.5, 0, 0.124) m in the robot's frame (Newton's IK from the ready pose)."""


@configclass
class FrankaLiftEnvCfg(CoupledDirectEnvCfg):
    """Action, observation, reward and termination settings of the Franka lift tasks; the scene is any
    :class:`~isaaclab_coupling_configs._franka.FrankaPickSceneCfg` (its ``grasp_point()`` and
    ``lifted_particle_ids()`` say where to grasp and what must rise)."""

    _ranges: ClassVar[dict[str, str]] = {
        "action_scale": "> 0",
        "finger_speed": "> 0",
        "reach_weight": ">= 0",
        "lift_weight": ">= 0",
        "grasp_weight": ">= 0",
        "grasp_std": "> 0",
        "goal_weight": ">= 0",
        "goal_std": "> 0",
        "goal_coarse_weight": ">= 0",
        "goal_coarse_std": "> 0",
        "lift_threshold": ">= 0",
        "action_rate_penalty": ">= 0",
        "action_limit_penalty": ">= 0",
        "fling_distance": "> 0",
        "ik_resolution": ">= 2",
        "workspace_low": "any",
        "workspace_high": "any",
        "target_height_range": ">= 0",
        "penetration_penalty": ">= 0",
        "success_weight": ">= 0",
        "success_threshold": "> 0",
    }

    sim: SimulationCfg = SimulationCfg(dt=FRAME_DT, device="cpu", physics=NewtonCfg(num_substeps=SUBSTEPS))
    """60 Hz physics frames of :data:`~isaaclab_coupling_configs._franka.SUBSTEPS` solver substeps."""
    scene: FrankaPickSceneCfg = MISSING
    decimation: int = 2
    """Physics frames per env step: the policy acts at 30 Hz."""
    episode_length_s: float = 4.0
    """Episode length before truncation [s] (120 env steps)."""
    action_scale: float = 0.01
    """Move of the commanded TCP position per env step at a full action, per axis [m] (0.3 m/s)."""
    finger_speed: float = 0.05
    """Speed of the finger-slide targets toward open or closed [m/s]."""
    workspace_low: tuple[float, float, float] = (0.35, -0.15, 0.005)
    """Lower corner of the box the commanded TCP stays in, env frame [m]."""
    workspace_high: tuple[float, float, float] = (0.65, 0.15, 0.45)
    """Upper corner of that box, env frame [m] (it holds the start pose, 0.40 m up)."""
    ik_resolution: tuple[int, int, int] = (5, 5, 10)
    """IK table nodes along x, y, z [count]."""
    target_height_range: tuple[float, float] = (0.10, 0.20)
    """Range of the per-episode target rise of the lifted part above its rest height [m]."""
    reach_weight: float = 1.0
    """Weight of the reaching reward ``1 - tanh(|tcp - object| / 0.1 m)``."""
    grasp_weight: float = 2.0
    """Weight of the grasp reward ``squeeze * (1 - tanh(|tcp - object| / grasp_std))``, ``squeeze`` how far the
    finger targets have moved from open toward the scene's ``grasp_opening`` (0 to 1): a firm squeeze, not
    fingers that merely touch, earns it."""
    grasp_std: float = 0.02
    """Width of the grasp reward [m]."""
    lift_weight: float = 5.0
    """Reward per env step while the lifted part is above :attr:`lift_threshold` (ramping up from half of it)."""
    goal_weight: float = 10.0
    """Weight of the goal reward ``1 - tanh(|rise - target| / goal_std)`` (only while lifted)."""
    goal_std: float = 0.05
    """Width of the goal reward [m]."""
    goal_coarse_weight: float = 5.0
    """Weight of the coarse goal reward ``1 - tanh(|rise - target| / goal_coarse_std)`` (only while lifted): it
    reaches far from the target, so a policy that lifts too high still feels where the target is."""
    goal_coarse_std: float = 0.3
    """Width of the coarse goal reward [m]."""
    success_weight: float = 0.0
    """Weight of the success bonus (Isaac Lab's ``success_bonus``): paid per env step while the lifted part's rise
    is within :attr:`success_threshold` of the target (only while lifted); ``0``: off."""
    success_threshold: float = 0.02
    """How close the rise must be to the target for the success bonus [m]."""
    lift_threshold: float = 0.02
    """Rise above rest that counts as lifted [m]."""
    action_rate_penalty: float = 0.01
    """Weight of the squared change of the action per env step."""
    action_limit_penalty: float = 0.5
    """Weight of the squared excess of the policy's actions beyond [-1, 1] (before the env clips them): a
    Gaussian policy whose mean drifts past the clip explores nothing there, every sample acts as the limit
    (a policy stuck at the top of the work box whatever the target did so)."""
    fling_distance: float = 0.5
    """Terminate when the lifted part's center is this far from its rest position [m]."""
    coupler_observations: bool = False
    """Add what the coupler measures to the observation (4 more values): the magnitude of the force the object
    pushes each finger with [N] and the vertical force on both fingers together [N] (interface-force sensor on
    the ``robot`` entry's fingers against the ``object`` entry, averaged over the env step; about ``-m g`` while
    the fingers carry the object), and the object's deepest penetration into the fingers [cm] (penetration
    sensor)."""
    penetration_penalty: float = 0.0
    """Weight of the object's deepest penetration into the fingers in the reward [1/m] (needs no observation;
    ``0``: off)."""

    def validate(self) -> None:
        """Check the fields, the scene and the simulation settings, the work box and the target range."""
        super().validate()
        cls = type(self).__name__
        if not isinstance(self.scene, FrankaPickSceneCfg):
            raise TypeError(f"{cls}.scene must be a FrankaPickSceneCfg, got {type(self.scene).__name__}")
        if not all(h > lo for lo, h in zip(self.workspace_low, self.workspace_high, strict=True)):
            raise ValueError(
                f"{cls}.workspace_high {self.workspace_high!r} must exceed {cls}.workspace_low "
                f"{self.workspace_low!r} on every axis"
            )
        low, high = self.target_height_range
        if not 0.0 <= low <= high:
            raise ValueError(
                f"{cls}.target_height_range must be (low, high) with 0 <= low <= high, got {(low, high)!r}"
            )
        grasp = self.scene.grasp_point()
        inside = all(lo <= g <= h for lo, g, h in zip(self.workspace_low, grasp, self.workspace_high, strict=True))
        lifted = grasp[2] + high <= self.workspace_high[2]
        if not (inside and lifted):
            raise ValueError(
                f"{cls}: the work box {self.workspace_low!r} .. {self.workspace_high!r} must hold the scene's grasp "
                f"point {tuple(round(g, 4) for g in grasp)!r} and the highest target {high} m above it"
            )


@configclass
class FrankaLiftSoftEnvCfg(FrankaLiftEnvCfg):
    """Lift the soft block (scene ``franka_lift_soft`` as its checks run it)."""

    scene: FrankaLiftSoftSceneCfg = FrankaLiftSoftSceneCfg(num_envs=4096)


def _coarse_block_scene() -> FrankaLiftSoftSceneCfg:
    scene = FrankaLiftSoftSceneCfg(num_envs=32, vbd_iterations=5)
    scene.robot.init_state.joint_pos = dict(HOVER_POSE)
    scene.block.cells = (2, 2, 2)
    scene.block.cell_size = (0.02, 0.02, 0.02)
    scene.block.init_state = InitialStateCfg(pos=(BLOCK_X - 0.02, -0.02, BLOCK_LIFT))
    return scene


@configclass
class FrankaLiftSoftCoarseEnvCfg(FrankaLiftEnvCfg):
    """The reduced soft-block task that trains on a CPU: the same 4 cm cube as 2 x 2 x 2 tetrahedral
    cells (27 particles instead of 125), 5 VBD iterations and 4 solver substeps per 60 Hz frame; the hand starts
    10 cm over the block (:data:`HOVER_POSE`)."""

    sim: SimulationCfg = SimulationCfg(dt=FRAME_DT, device="cpu", physics=NewtonCfg(num_substeps=4))
    scene: FrankaLiftSoftSceneCfg = _coarse_block_scene()
    workspace_high: tuple[float, float, float] = (0.65, 0.15, 0.26)
    """Upper corner of the work box, env frame [m]: 4 cm over the highest target."""
    success_weight: float = 20.0
    """Isaac Lab's success bonus weight: paid per env step while the block's rise is within 2 cm of the target."""


@configclass
class FrankaLiftClothEnvCfg(FrankaLiftEnvCfg):
    """Pinch the cloth near its corner and lift that corner (scene ``franka_cloth``)."""

    scene: FrankaClothSceneCfg = FrankaClothSceneCfg(num_envs=4096)


class FrankaLiftEnv(CoupledDirectEnv):
    """Grasp the scene's object with the Panda and lift it to a target height (4 actions: TCP move, gripper)."""

    num_observations = 16
    num_actions = 4

    cfg: FrankaLiftEnvCfg

    def _register_sensors(self, manager: type) -> None:
        cfg = self.cfg
        if cfg.coupler_observations or cfg.penetration_penalty > 0.0:
            fingers = f"{cfg.scene.robot.selector()}/panda/panda_(leftfinger|rightfinger)"
            self.finger_force_sensor = manager.add_interface_force_sensor("robot", "object", bodies=fingers)
            self.penetration_sensor = manager.add_penetration_sensor("object", "robot", bodies=fingers)

    def _setup_buffers(self) -> None:
        cfg, scene, manager, dev = self.cfg, self.cfg.scene, self.manager, self.torch_device
        if cfg.coupler_observations:
            self.num_observations = type(self).num_observations + 4
        self.ik_table = TcpIkTable(scene.robot, cfg.workspace_low, cfg.workspace_high, cfg.ik_resolution)
        columns = [c.rsplit("/", 1)[-1] for c in manager.joint_view_columns("joint_target_q")]
        self.arm_cols = torch.tensor([columns.index(n) for n in self.ik_table.coord_names], device=dev)
        fingers = re.compile(FINGER_JOINTS)
        self.finger_cols = torch.tensor([i for i, n in enumerate(columns) if fingers.fullmatch(n)], device=dev)
        self.joint_q = manager.joint_view("joint_q")
        self.joint_target = manager.joint_view("joint_target_q")
        model = manager.get_model()
        tcp_ids = [i for i, label in enumerate(model.body_label) if label.endswith("/" + TCP_BODY)]
        if len(tcp_ids) != self.num_envs:
            raise ValueError(f"{type(cfg).__name__}.scene: expected one {TCP_BODY} per env, found {len(tcp_ids)}")
        self.tcp_ids = torch.tensor(tcp_ids, device=dev)
        self.lifted_ids = torch.tensor(scene.lifted_particle_ids(), device=dev).view(self.num_envs, -1)
        # Env origins from the start pose: the TCP's world position minus its position in the robot's frame.
        start_local = torch.tensor(
            self.ik_table.ik.tcp_position(self.ik_table.ik.start_q())[0], device=dev, dtype=torch.float32
        )
        self.origin = (self.tcp_world() - start_local).clone()
        self.start_tcp = start_local
        self.grasp = torch.tensor(scene.grasp_point(), device=dev, dtype=torch.float32)
        self.rest_center = (self.lifted_world().mean(dim=1) - self.origin).mean(dim=0).clone()
        self.low = torch.tensor(cfg.workspace_low, device=dev)
        self.high = torch.tensor(cfg.workspace_high, device=dev)
        n = self.num_envs
        self.tcp_command = self.start_command().repeat(n, 1)
        self.finger_target = torch.full((n,), OPEN, device=dev)
        self.target_height = torch.zeros(n, device=dev)
        self.prev_action = torch.zeros(n, self.num_actions, device=dev)
        self.action_rate = torch.zeros(n, device=dev)
        self._write_targets()

    # ------------------------------------------------------------------ measurements
    def tcp_world(self) -> torch.Tensor:
        """World position of every env's tool center point [m], ``(num_envs, 3)``."""
        return wp.to_torch(self.manager.get_state_0().body_q)[self.tcp_ids, :3]

    def lifted_world(self) -> torch.Tensor:
        """World positions of the lifted part's particles [m], ``(num_envs, n, 3)``."""
        return wp.to_torch(self.manager.get_state_0().particle_q)[self.lifted_ids]

    def measurements(self) -> dict[str, torch.Tensor]:
        """Env-frame TCP ``tcp`` and lifted-part center ``object`` [m], its ``rise`` above rest [m] and the
        gripper ``opening`` (mean finger slide) [m]; with the coupler terms on (``coupler_observations`` or
        ``penetration_penalty``) also ``finger_force``, the force the object pushes the left and right finger
        with, world frame [N] ``(num_envs, 2, 3)``, and ``penetration``, the object's deepest penetration into
        the fingers [m]."""
        tcp = self.tcp_world() - self.origin
        center = self.lifted_world().mean(dim=1) - self.origin
        m = {
            "tcp": tcp,
            "object": center,
            "rise": center[:, 2] - self.rest_center[2],
            "opening": self.joint_q[:, self.finger_cols].mean(dim=-1),
        }
        if hasattr(self, "finger_force_sensor"):
            manager = self.manager
            m["finger_force"] = manager.get_interface_force_sensor(self.finger_force_sensor).wrench[:, :, :3]
            m["penetration"] = manager.get_penetration_sensor(self.penetration_sensor).max_depth
        return m

    # ------------------------------------------------------------------ env hooks
    def _write_targets(self, env_ids: torch.Tensor | None = None) -> None:
        """Joint targets of the envs *env_ids* (default: all) from their TCP command and finger targets."""
        rows = slice(None) if env_ids is None else env_ids.unsqueeze(-1)
        command = self.tcp_command if env_ids is None else self.tcp_command[env_ids]
        fingers = self.finger_target if env_ids is None else self.finger_target[env_ids]
        self.joint_target[rows, self.arm_cols] = self.ik_table.joint_targets(command)
        self.joint_target[rows, self.finger_cols] = fingers.unsqueeze(-1)

    def tcp_actions(self, actions: torch.Tensor) -> torch.Tensor:
        """The task's actions as ``(num_envs, 4)``: TCP move along x, y, z and the gripper command."""
        return actions

    def _pre_physics_step(self, actions: torch.Tensor) -> None:
        cfg = self.cfg
        self.action_rate.copy_(((actions - self.prev_action) ** 2).sum(dim=-1))
        self.prev_action.copy_(actions)
        actions = self.tcp_actions(actions)
        moved = self.tcp_command + cfg.action_scale * actions[:, :3]
        self.tcp_command.copy_(torch.minimum(torch.maximum(moved, self.low), self.high))
        # The gripper command maps [-1, 1] onto open .. closed; the slide targets follow at finger_speed.
        closing = 0.5 * (actions[:, 3] + 1.0)
        goal = OPEN + (cfg.scene.grasp_opening - OPEN) * closing
        step = cfg.finger_speed * cfg.sim.dt * cfg.decimation
        self.finger_target.copy_(self.finger_target + (goal - self.finger_target).clamp(-step, step))
        self._write_targets()

    def _get_observations(self) -> torch.Tensor:
        m = self.measurements()
        parts = [
            m["tcp"] - self.grasp,
            self.tcp_command - self.grasp,
            (m["opening"] / OPEN).unsqueeze(-1),
            m["object"] - m["tcp"],
            torch.stack([m["rise"], self.target_height - m["rise"]], dim=-1),
            self.prev_action,
        ]
        if self.cfg.coupler_observations:
            force = m["finger_force"]
            parts.append(force.norm(dim=-1))
            parts.append(force[:, :, 2].sum(dim=-1, keepdim=True))
            parts.append((100.0 * m["penetration"]).unsqueeze(-1))
        return torch.cat(parts, dim=-1)

    def _get_rewards(self) -> torch.Tensor:
        cfg = self.cfg
        m = self.measurements()
        distance = (m["tcp"] - m["object"]).norm(dim=-1)
        reach = 1.0 - torch.tanh(distance / 0.1)
        squeeze = (OPEN - self.finger_target) / (OPEN - cfg.scene.grasp_opening)
        grasp = squeeze * (1.0 - torch.tanh(distance / cfg.grasp_std))
        lifting = (2.0 * m["rise"] / cfg.lift_threshold - 1.0).clamp(0.0, 1.0)
        lifted = (m["rise"] > cfg.lift_threshold).float()
        error = (m["rise"] - self.target_height).abs()
        goal = lifted * (1.0 - torch.tanh(error / cfg.goal_std))
        goal_coarse = lifted * (1.0 - torch.tanh(error / cfg.goal_coarse_std))
        success = lifted * (error < cfg.success_threshold).float()
        reward = (
            cfg.reach_weight * reach
            + cfg.grasp_weight * grasp
            + cfg.lift_weight * lifting
            + cfg.goal_weight * goal
            + cfg.goal_coarse_weight * goal_coarse
            + cfg.success_weight * success
            - cfg.action_rate_penalty * self.action_rate
            - cfg.action_limit_penalty * (self.action_excess**2).sum(dim=-1)
        )
        if cfg.penetration_penalty > 0.0:
            reward = reward - cfg.penetration_penalty * m["penetration"]
        return reward

    def _get_dones(self) -> torch.Tensor:
        center = self.measurements()["object"]
        away = (center - self.rest_center).norm(dim=-1)
        return (away > self.cfg.fling_distance) | ~torch.isfinite(away)

    def start_command(self) -> torch.Tensor:
        """The commanded TCP position an episode starts with, env frame [m]: the start pose's TCP."""
        return self.start_tcp

    def _reset_idx(self, env_ids: torch.Tensor) -> None:
        low, high = self.cfg.target_height_range
        draw = torch.rand(len(env_ids), generator=self.generator, device=self.torch_device)
        self.target_height[env_ids] = low + (high - low) * draw
        self.tcp_command[env_ids] = self.start_command()
        self.finger_target[env_ids] = OPEN
        self.prev_action[env_ids] = 0.0
        self.action_rate[env_ids] = 0.0
        self._write_targets(env_ids)


class FrankaLiftVerticalEnv(FrankaLiftEnv):
    """The lift with the TCP kept over the grasp point: 2 actions, the vertical move and the gripper.

    The commanded TCP starts at the start pose's height straight over the grasp point; ``a[0]`` moves it
    vertically, ``a[1]`` is the gripper command. Observations as :class:`FrankaLiftEnv` with 2 previous actions
    (14).
    """

    num_observations = 14
    num_actions = 2

    def start_command(self) -> torch.Tensor:
        """Over the grasp point at the start pose's height, env frame [m]."""
        return torch.stack([self.grasp[0], self.grasp[1], self.start_tcp[2]])

    def tcp_actions(self, actions: torch.Tensor) -> torch.Tensor:
        zeros = torch.zeros_like(actions[:, 0])
        return torch.stack([zeros, zeros, actions[:, 0], actions[:, 1]], dim=-1)


def oracle_policy(
    env: FrankaLiftEnv,
    close_height: float = 0.05,
    close_steps: int = 12,
    hover: float = 0.05,
    rise_gain: float = 0.0,
) -> Callable[[Any], torch.Tensor]:
    """A scripted pick with privileged knowledge; returns ``obs -> actions``.

    Per env, from the env's own command and clock: move the commanded TCP over the grasp point (at
    *hover* [m] above it), then down onto it; start closing the gripper once the command is over the grasp
    point and less than *close_height* [m] above it; *close_steps* env steps after that raise the command to
    the grasp point plus the target rise and hold it. Every move runs at the action's full rate. Its mean
    return is the reference return.

    With *rise_gain* > 0 the lift is closed on the measured rise instead: each env step the command moves by
    ``rise_gain * (target - rise)`` (at most the action's rate), so the object, which hangs below the fingers,
    comes to rest at the target itself rather than the command.
    """
    cfg = env.cfg
    dev = env.torch_device
    closed_for = torch.zeros(env.num_envs, dtype=torch.long, device=dev)

    def act(_obs) -> torch.Tensor:
        closed_for[env.episode_length == 0] = 0
        command, grasp = env.tcp_command, env.grasp
        xy_off = (command[:, :2] - grasp[:2]).norm(dim=-1)
        desired = grasp.repeat(env.num_envs, 1)
        above = xy_off > 0.005
        desired[above, 2] = torch.clamp(command[above, 2], min=float(grasp[2]) + hover)
        near = ~above & (command[:, 2] - grasp[2] < close_height)
        closed_for.add_((near | (closed_for > 0)).long())
        closing = closed_for > 0
        lifting = closed_for > close_steps
        if rise_gain > 0.0:
            to_go = env.target_height - env.measurements()["rise"]
            desired[lifting, 2] = command[lifting, 2] + rise_gain * to_go[lifting]
        else:
            desired[lifting, 2] = grasp[2] + env.target_height[lifting]
        move = ((desired - command) / cfg.action_scale).clamp(-1.0, 1.0)
        gripper = torch.where(closing, 1.0, -1.0).unsqueeze(-1)
        if isinstance(env, FrankaLiftVerticalEnv):
            return torch.cat([move[:, 2:], gripper], dim=-1)
        return torch.cat([move, gripper], dim=-1)

    return act


def cloth_oracle_policy(env: FrankaLiftEnv) -> Callable[[Any], torch.Tensor]:
    """:func:`oracle_policy` for the cloth: a pinch holds only the fold the pads gather at the grasp point, so it
    closes once there (not on the way down) and lifts 36 env steps (1.2 s) later, when the pads have gathered
    the fold (with 24 steps one of two envs lost the corner)."""
    return oracle_policy(env, close_height=0.001, close_steps=36)


def coarse_oracle_policy(env: FrankaLiftEnv) -> Callable[[Any], torch.Tensor]:
    """:func:`oracle_policy` for the coarse task: the lift closed on the measured rise (``rise_gain`` 0.5), so the
    block itself rests at the target and earns the success bonus."""
    return oracle_policy(env, rise_gain=0.5)


@configclass
class FrankaLiftSoftPPORunnerCfg(RslRlOnPolicyRunnerCfg):
    """rsl-rl PPO settings sized for a GPU (4096 envs)."""

    experiment_name: str = "franka_lift_soft"
    num_envs: int = 4096
    num_steps_per_env: int = 24
    max_iterations: int = 1500
    save_interval: int = 100


@configclass
class FrankaLiftSoftCoarsePPORunnerCfg(RslRlOnPolicyRunnerCfg):
    """rsl-rl PPO settings that train the coarse task on a 2-core CPU within 30 minutes."""

    experiment_name: str = "franka_lift_soft_coarse"
    num_envs: int = 32
    num_steps_per_env: int = 24
    max_iterations: int = 500
    save_interval: int = 100


@configclass
class FrankaLiftClothPPORunnerCfg(RslRlOnPolicyRunnerCfg):
    """rsl-rl PPO settings sized for a GPU (4096 envs)."""

    experiment_name: str = "franka_lift_cloth"
    num_envs: int = 4096
    num_steps_per_env: int = 24
    max_iterations: int = 1500
    save_interval: int = 100


register_task(
    SOFT_TASK_ID,
    env_class=FrankaLiftEnv,
    env_cfg_class=FrankaLiftSoftEnvCfg,
    runner_cfg_class=FrankaLiftSoftPPORunnerCfg,
    oracle=oracle_policy,
)
register_task(
    COARSE_TASK_ID,
    env_class=FrankaLiftVerticalEnv,
    env_cfg_class=FrankaLiftSoftCoarseEnvCfg,
    runner_cfg_class=FrankaLiftSoftCoarsePPORunnerCfg,
    oracle=coarse_oracle_policy,
)
register_task(
    CLOTH_TASK_ID,
    env_class=FrankaLiftEnv,
    env_cfg_class=FrankaLiftClothEnvCfg,
    runner_cfg_class=FrankaLiftClothPPORunnerCfg,
    oracle=cloth_oracle_policy,
)
