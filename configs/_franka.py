"""The Franka Panda of ``example-robot-data`` and a scripted IK pick, shared by the Franka scenes.

Not a scene (the leading underscore keeps it out of the registry's imports): :func:`panda_cfg` is the
robot's asset config (URDF, convex-hull colliders, no visual meshes, PD joint drives by joint regex) and
:class:`PickScript` a keyframed pick-and-lift: end-effector waypoints solved once by Newton's IK
(``newton.ik``, on a model of the robot alone), then joint targets interpolated in joint space and written
into ``joint_view("joint_target_q")`` before every env step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import newton
import newton.ik as ik
import numpy as np
import warp as wp

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import (
    ImplicitActuatorCfg,
    MJWarpSolverCfg,
    NewtonCollisionPipelineCfg,
    NewtonModelCfg,
    VBDSolverCfg,
)
from isaaclab_contrib.scenes import (
    ENV_PATH,
    ArticulationCfg,
    ArticulationInitialStateCfg,
    CameraCfg,
    GroundPlaneCfg,
    SceneBaseCfg,
    UrdfFileCfg,
    scene_sim,
)
from isaaclab_contrib.scenes.articulation import ShapeMaterialCfg
from isaaclab_contrib.scenes.asset_paths import example_robot_data_path
from isaaclab_contrib.scenes.checks import LiftCheck, SceneCheck, body_points, particle_points
from isaaclab_contrib.utils.configclass import configclass

__all__ = [
    "ARM_JOINTS",
    "FINGER_JOINTS",
    "FRAME_DT",
    "PANDA_URDF",
    "TCP_BODY",
    "FrankaPickSceneCfg",
    "PickScript",
    "RobotIk",
    "TcpIkTable",
    "Waypoint",
    "panda_cfg",
    "panda_proxy_coupler",
    "pick_controller",
]

FRAME_DT = 1.0 / 60.0
"""Env step of the Franka scenes [s]; the solvers run ``SUBSTEPS`` substeps per env step."""
SUBSTEPS = 8
"""Solver substeps per env step of the Franka scenes [count]."""

PANDA_URDF = "robots/panda_description/urdf/panda.urdf"
"""The Panda's URDF inside the ``example-robot-data`` package."""
ARM_JOINTS = "panda_joint[1-7]"
"""Regex of the seven arm joints."""
FINGER_JOINTS = "panda_finger_joint[12]"
"""Regex of the two finger slides (each 0 to 0.04 m of opening)."""
TCP_BODY = "panda_hand_tcp"
"""Body at the tool center point, between the finger pads (10.34 cm below the hand)."""
READY_POSE = {
    "panda_joint1": 0.0,
    "panda_joint2": -0.3,
    "panda_joint3": 0.0,
    "panda_joint4": -2.2,
    "panda_joint5": 0.0,
    "panda_joint6": 1.9,
    "panda_joint7": 0.785,
    "panda_finger_joint.*": 0.04,
}
"""Start configuration: the hand above the work area, pointing down, fingers open [rad, m]."""


def panda_cfg(
    entry: str = "robot",
    *,
    arm_stiffness: float = 6.0e3,
    arm_damping: float = 2.5e2,
    finger_stiffness: float = 4.0e2,
    finger_damping: float = 20.0,
    finger_effort: float = 40.0,
    mu: float = 1.0,
) -> ArticulationCfg:
    """The Panda (fixed base at the env origin) as an asset config owned by *entry*.

    Args:
        entry: Coupler entry owning the robot.
        arm_stiffness: Position gain of the arm joints' PD drives [N*m/rad].
        arm_damping: Velocity gain of the arm joints [N*m*s/rad].
        finger_stiffness: Position gain of the finger slides [N/m].
        finger_damping: Velocity gain of the finger slides [N*s/m].
        finger_effort: Force limit of each finger slide [N].
        mu: Friction coefficient of the robot's collision shapes [dimensionless].
    """
    return ArticulationCfg(
        prim_path="{ENV_REGEX_NS}/Robot",
        entry=entry,
        spawn=UrdfFileCfg(
            asset_path=example_robot_data_path(PANDA_URDF),
            fix_base=True,
            collider_type="convex_hull",
            self_collision=False,
            load_visuals=False,
            material=ShapeMaterialCfg(mu=mu),
        ),
        init_state=ArticulationInitialStateCfg(joint_pos=dict(READY_POSE)),
        actuators={
            "arm": ImplicitActuatorCfg(
                joint_names_expr=[ARM_JOINTS], stiffness=arm_stiffness, damping=arm_damping, effort_limit=87.0
            ),
            "fingers": ImplicitActuatorCfg(
                joint_names_expr=[FINGER_JOINTS],
                stiffness=finger_stiffness,
                damping=finger_damping,
                effort_limit=finger_effort,
            ),
        },
    )


class RobotIk:
    """Newton's IK (``newton.ik``, Levenberg-Marquardt, analytic Jacobians) for the tool center point of a robot
    config, on a CPU model of the robot alone (built once).

    Args:
        robot: The Panda's asset config (its ``init_state`` is the seed of :meth:`start_q`).
    """

    def __init__(self, robot: ArticulationCfg):
        builder = newton.ModelBuilder()
        robot.add_to(builder, "Robot")
        self.model = builder.finalize(device="cpu")
        self.tcp = next(i for i, label in enumerate(self.model.body_label) if label.endswith("/" + TCP_BODY))
        labels = _coord_labels(self.model)
        self.coord_names = [label.rsplit("/", 1)[-1] for label in labels]
        """Joint name of every coordinate, in the robot's coordinate order."""
        self.finger_coords = [i for i, label in enumerate(labels) if "finger" in label]
        """Coordinates of the two finger slides."""

    def start_q(self) -> np.ndarray:
        """The robot's start configuration, shape ``(1, coords)`` [rad, m]."""
        return self.model.joint_q.numpy().reshape(1, self.model.joint_coord_count).astype(np.float32)

    def tcp_position(self, q: np.ndarray) -> np.ndarray:
        """Tool-center-point positions [m] (robot base frame) of configurations ``q`` of shape ``(M, coords)``."""
        state = self.model.state()
        out = np.zeros((len(q), 3))
        for k, row in enumerate(np.asarray(q, dtype=np.float32)):
            state.joint_q.assign(row)
            newton.eval_fk(self.model, state.joint_q, state.joint_qd, state)
            out[k] = state.body_q.numpy()[self.tcp, :3]
        return out

    def solve(
        self,
        positions: Any,
        rotation: tuple[float, float, float, float],
        seed: np.ndarray,
        iterations: int,
    ) -> np.ndarray:
        """Joint positions [rad, m] that put the tool center point at each of *positions* (``(M, 3)``, robot
        base frame [m]) with the hand orientation *rotation* (quaternion ``x, y, z, w``), every problem seeded
        from *seed* (``(1, coords)`` or ``(M, coords)``); shape ``(M, coords)``."""
        positions = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
        count, coords = len(positions), self.model.joint_coord_count
        seed = np.broadcast_to(np.asarray(seed, dtype=np.float32), (count, coords))
        target_pos = wp.array(positions, dtype=wp.vec3, device="cpu")
        target_rot = wp.array(np.tile(np.asarray(rotation, dtype=np.float32), (count, 1)), dtype=wp.vec4, device="cpu")
        objectives = [
            ik.IKObjectivePosition(link_index=self.tcp, link_offset=wp.vec3(0.0), target_positions=target_pos),
            ik.IKObjectiveRotation(
                link_index=self.tcp, link_offset_rotation=wp.quat_identity(), target_rotations=target_rot
            ),
            ik.IKObjectiveJointLimit(
                joint_limit_lower=self.model.joint_limit_lower,
                joint_limit_upper=self.model.joint_limit_upper,
                weight=10.0,
            ),
        ]
        solver = ik.IKSolver(
            self.model, count, objectives, lambda_initial=0.1, jacobian_mode=ik.IKJacobianType.ANALYTIC
        )
        q_in = wp.array(np.ascontiguousarray(seed), dtype=wp.float32, device="cpu")
        q_out = wp.zeros_like(q_in)
        solver.step(q_in, q_out, iterations=iterations)
        return q_out.numpy()


class TcpIkTable:
    """Joint targets for tool-center-point targets inside a box, from IK solved once on a grid.

    The arm's IK (:class:`RobotIk`, hand pointing down) is solved at every node of a regular grid over
    ``low .. high`` (robot base frame [m]), all problems seeded from the start configuration; a query
    interpolates the nodes' joint positions trilinearly (torch, every env at once). Inside a cell the
    interpolated configuration puts the tool center point within about a millimetre of the query (see
    :meth:`max_error`): the solutions are smooth over the grid because every problem starts from the same
    seed and the box is far from the arm's singularities.

    Args:
        robot: The Panda's asset config.
        low: Lower corner of the box [m].
        high: Upper corner of the box [m].
        resolution: Grid nodes along x, y and z [count], each at least 2.
        iterations: IK iterations per node [count].
        rotation: Hand orientation (quaternion ``x, y, z, w``; default: pointing down, fingers along y).
    """

    def __init__(
        self,
        robot: ArticulationCfg,
        low: tuple[float, float, float],
        high: tuple[float, float, float],
        resolution: tuple[int, int, int] = (5, 5, 9),
        iterations: int = 80,
        rotation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0),
    ):
        if any(int(n) < 2 for n in resolution):
            raise ValueError(f"TcpIkTable: resolution must be at least 2 nodes per axis, got {resolution!r}")
        if not all(h > lo for lo, h in zip(low, high, strict=True)):
            raise ValueError(f"TcpIkTable: high {high!r} must exceed low {low!r} on every axis")
        self.ik = RobotIk(robot)
        self.low = np.asarray(low, dtype=np.float64)
        self.high = np.asarray(high, dtype=np.float64)
        self.resolution = tuple(int(n) for n in resolution)
        axes = [np.linspace(a, b, n) for a, b, n in zip(self.low, self.high, self.resolution, strict=True)]
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
        q = self.ik.solve(grid, rotation, self.ik.start_q(), iterations)
        self.nodes = q.reshape(*self.resolution, -1)
        """Joint positions at the grid nodes [rad, m], shape ``(nx, ny, nz, coords)``."""
        self._torch: dict[str, Any] = {}

    @property
    def coord_names(self) -> list[str]:
        """Joint name of every column of :meth:`joint_targets`."""
        return self.ik.coord_names

    def joint_targets(self, positions: Any) -> Any:
        """Interpolated joint positions [rad, m] for tool-center-point targets *positions* (torch ``(N, 3)``, robot
        base frame [m]; clamped into the box); torch ``(N, coords)`` on the positions' device."""
        import torch

        key = str(positions.device)
        if key not in self._torch:
            self._torch[key] = (
                torch.as_tensor(self.nodes, dtype=torch.float32, device=positions.device),
                torch.as_tensor(self.low, dtype=torch.float32, device=positions.device),
                torch.as_tensor(self.high, dtype=torch.float32, device=positions.device),
                torch.tensor(self.resolution, device=positions.device),
            )
        nodes, low, high, res = self._torch[key]
        u = (positions.clamp(low, high) - low) / (high - low) * (res - 1)
        i0 = u.floor().long().clamp(max=res - 2)
        f = u - i0
        out = 0.0
        for corner in range(8):
            bits = [(corner >> axis) & 1 for axis in range(3)]
            weight = torch.ones_like(f[:, 0])
            for axis, bit in enumerate(bits):
                weight = weight * (f[:, axis] if bit else 1.0 - f[:, axis])
            out = out + weight.unsqueeze(-1) * nodes[i0[:, 0] + bits[0], i0[:, 1] + bits[1], i0[:, 2] + bits[2]]
        return out

    def max_error(self, samples: int = 64, seed: int = 0) -> float:
        """Largest distance [m] between a random query inside the box and the tool center point of its
        interpolated configuration (forward kinematics on the robot model)."""
        import torch

        rng = np.random.default_rng(seed)
        queries = self.low + rng.random((samples, 3)) * (self.high - self.low)
        q = self.joint_targets(torch.as_tensor(queries, dtype=torch.float32)).numpy()
        return float(np.linalg.norm(self.ik.tcp_position(q) - queries, axis=1).max())


@dataclass(frozen=True)
class Waypoint:
    """One keyframe of a scripted motion: reached at ``time`` [s] by interpolating from the previous one."""

    time: float
    """Time the waypoint is reached [s]."""
    position: tuple[float, float, float]
    """Tool-center-point position in the env frame [m]."""
    opening: float
    """Target of each finger slide [m] (0.04: open)."""


@dataclass
class PickScript:
    """A scripted pick: :class:`Waypoint` s solved by IK once, then joint targets per env step.

    ``rotation`` is the hand orientation of every waypoint (default: pointing down, fingers opening along y).
    """

    waypoints: list[Waypoint]
    rotation: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)
    ik_iterations: int = 60
    _joint_targets: np.ndarray | None = field(default=None, repr=False)
    _names: list[str] = field(default_factory=list, repr=False)

    def solve(self, robot: ArticulationCfg) -> np.ndarray:
        """Joint positions of every waypoint [rad, m] (arm from IK, fingers from the waypoint), seeded from the
        robot's start configuration; one row per waypoint, columns in the robot's coordinate order."""
        ik_model = RobotIk(robot)
        q = ik_model.start_q()
        rows = []
        for wpt in self.waypoints:
            q = ik_model.solve([wpt.position], self.rotation, q, self.ik_iterations)
            q[0, ik_model.finger_coords] = wpt.opening
            rows.append(q[0].copy())
        self._names = ik_model.coord_names
        self._joint_targets = np.stack(rows)
        return self._joint_targets

    def targets_at(self, t: float) -> np.ndarray:
        """Joint targets at time *t* [s]: smooth (cosine) interpolation between the solved waypoints."""
        assert self._joint_targets is not None, "call solve() first"
        times = [w.time for w in self.waypoints]
        if t <= times[0]:
            return self._joint_targets[0]
        for k in range(1, len(times)):
            if t <= times[k]:
                a = (t - times[k - 1]) / max(times[k] - times[k - 1], 1.0e-9)
                a = 0.5 - 0.5 * np.cos(np.pi * a)
                return (1.0 - a) * self._joint_targets[k - 1] + a * self._joint_targets[k]
        return self._joint_targets[-1]

    def write(self, manager: Any, robot: ArticulationCfg, t: float) -> None:
        """Write the targets at time *t* into every env's robot columns of ``joint_view("joint_target_q")``."""
        import torch

        if self._joint_targets is None:
            self.solve(robot)
        columns = [c.rsplit("/", 1)[-1] for c in manager.joint_view_columns("joint_target_q")]
        ours = [columns.index(name) for name in self._names]
        view = manager.joint_view("joint_target_q")
        view[:, ours] = torch.as_tensor(self.targets_at(t), dtype=view.dtype, device=view.device)


def _coord_labels(model: newton.Model) -> list[str]:
    """Label of the joint of every coordinate of *model*."""
    starts = model.joint_q_start.numpy()
    labels = []
    for j, label in enumerate(model.joint_label):
        labels += [label] * int(starts[j + 1] - starts[j])
    return labels


@configclass
class FrankaPickSceneCfg(SceneBaseCfg):
    """Base of the Franka pick scenes: the ground and the Panda, a VBD-owned object (a subclass adds it as a
    field owned by the entry ``object``), the proxy coupling, the pick script and the lift checks.

    Coupling: virtual proxy. The ``robot`` entry (MuJoCo-Warp, its own contacts off) owns the Panda; the
    ``object`` entry (VBD) owns the object and the ground and sees the hand and both fingers as proxy bodies;
    the contact impulses on them go back to MuJoCo as forces (two-way).
    """

    _ranges: ClassVar[dict[str, str]] = {
        "lift_height": "> 0",
        "grasp_opening": "[0, 0.04]",
        "contact_ke": ">= 0",
        "contact_kd": ">= 0",
        "contact_mu": ">= 0",
        "vbd_iterations": ">= 1",
        "min_lift": ">= 0",
        "min_hold_time": ">= 0",
        "hold_radius": "> 0",
        "proxy_mass_scale": "> 0",
    }

    env_spacing: float = 2.0
    """Distance between neighbouring env origins along x [m]."""
    ground: GroundPlaneCfg = GroundPlaneCfg(entry="object")
    """The ground (seen by the VBD entry: the object rests on it)."""
    robot: ArticulationCfg = panda_cfg("robot")
    """The Franka Panda (MuJoCo-Warp entry ``robot``)."""
    lift_height: float = 0.2
    """How far the script lifts the tool center point after the grasp [m]."""
    grasp_opening: float = 0.008
    """Finger-slide target while grasping [m] (inside the object: the squeeze is the drive's force)."""
    contact_ke: float = 2.0e4
    """Particle-shape contact stiffness [N/m]."""
    contact_kd: float = 1.0e-3
    """Particle-shape contact damping [N*s/m]."""
    contact_mu: float = 1.0
    """Particle-shape friction coefficient [dimensionless]."""
    vbd_iterations: int = 10
    """VBD iterations per substep [count]."""
    min_lift: float = 0.10
    """Check: the lifted part of the object must rise at least this much [m]."""
    min_hold_time: float = 1.0
    """Check: the lifted object must stay in the grasp at least this long [s]."""
    hold_radius: float = 0.03
    """Check: distance of the lifted part's center from the tool center point that still counts as held [m]."""
    proxy_mass_scale: float = 10.0
    """Mass scale of the hand and fingers as proxies in the VBD solver [dimensionless]. At 1 the light fingers
    (30 g) are pushed apart inside each VBD solve and put back by the next sync, which flings the object in
    some envs (the grasp then depends on float rounding: 1 to 3 of 4 envs held); at 10 every env holds."""

    def coupler_cfg(self) -> CouplerProxyCfg:
        """The Panda (MuJoCo-Warp) mirrored into the object's VBD solver as proxy hand and fingers."""
        return panda_proxy_coupler(
            self,
            ("robot", MJWarpSolverCfg(iterations=20, disable_contacts=True, use_mujoco_contacts=False)),
            (
                "object",
                VBDSolverCfg(
                    iterations=self.vbd_iterations,
                    particle_enable_tile_solve=False,
                    rigid_body_particle_contact_buffer_size=256,
                ),
            ),
        )

    # ------------------------------------------------------------------ what a subclass gives
    def grasp_point(self) -> tuple[float, float, float]:
        """Where the tool center point closes on the object, in the env frame [m]."""
        raise NotImplementedError

    def lifted_particle_ids(self) -> list[int]:
        """Global ids of the particles of the part of the object that must rise (env after env, the same
        count per env)."""
        raise NotImplementedError

    def lifted_points(self) -> Any:
        """``points(manager) -> (num_envs, n, 3)``: the part of the object that must rise (a
        :mod:`~isaaclab_contrib.scenes.checks` points function)."""
        return particle_points(self.lifted_particle_ids(), self.num_envs)

    # ------------------------------------------------------------------ script and checks
    def pick_script(self) -> PickScript:
        """Approach above the grasp point, descend, close, lift by :attr:`lift_height`, hold."""
        x, y, z = self.grasp_point()
        return PickScript(
            [
                Waypoint(0.0, (x, y, 0.30), 0.04),
                Waypoint(0.8, (x, y, 0.30), 0.04),
                Waypoint(1.8, (x, y, z), 0.04),
                Waypoint(2.6, (x, y, z), self.grasp_opening),
                Waypoint(3.8, (x, y, z + self.lift_height), self.grasp_opening),
            ]
        )

    def checks(self) -> list[SceneCheck]:
        """``finite``, ``lifted_m`` (the lifted part's mean height rose by :attr:`min_lift`) and ``held_s`` (it
        stayed lifted and within :attr:`hold_radius` of the tool center point for :attr:`min_hold_time`)."""
        tcp = body_points(f"{ENV_PATH}/{self.robot.label()}/panda/{TCP_BODY}")
        lift = LiftCheck(
            self.lifted_points(),
            lambda manager: tcp(manager)[:, 0],
            self.min_lift,
            self.min_hold_time,
            radius=self.hold_radius,
        )
        return [*super().checks(), lift.lifted, lift.held]


def panda_proxy_coupler(
    scene: Any, rigid: tuple[str, MJWarpSolverCfg], soft: tuple[str, VBDSolverCfg], iterations: int = 1
) -> CouplerProxyCfg:
    """The Franka scenes' coupling: the Panda in the MuJoCo-Warp entry ``rigid = (name, config)`` (its shapes not
    selected), its hand and both fingers mirrored as proxies (``scene.proxy_mass_scale``, collided every
    substep) into the VBD entry ``soft`` that owns the object; the soft contact's stiffness, damping and
    friction from ``scene.contact_ke``, ``contact_kd`` and ``contact_mu``; *iterations* proxy iterations."""
    hand = [f"{scene.robot.selector()}/panda/panda_(hand|leftfinger|rightfinger)"]
    return CouplerProxyCfg(
        entries=[
            scene.entry_cfg(rigid[0], rigid[1], include_body_shapes=False),
            scene.entry_cfg(soft[0], soft[1]),
        ],
        proxies=[
            CouplerProxyMappingCfg(
                source=rigid[0],
                destination=soft[0],
                bodies=hand,
                mass_scale=scene.proxy_mass_scale,
                collision_pipeline=NewtonCollisionPipelineCfg(broad_phase="explicit"),
                collide_interval=1,
            )
        ],
        iterations=iterations,
        model_cfg=NewtonModelCfg(
            soft_contact_ke=scene.contact_ke, soft_contact_kd=scene.contact_kd, soft_contact_mu=scene.contact_mu
        ),
    )


_SCRIPTS: dict[int, PickScript] = {}


def pick_controller(manager: Any, cfg: FrankaPickSceneCfg, t: float) -> None:
    """Scene controller of the Franka pick scenes: the pick script's joint targets for the env step starting at
    *t* [s] (the script is solved by IK on the first call for a scene config)."""
    script = _SCRIPTS.get(id(cfg))
    if script is None:
        script = _SCRIPTS[id(cfg)] = cfg.pick_script()
    script.write(manager, cfg.robot, t)


def pick_spec_kwargs() -> dict[str, Any]:
    """Timing and controller of the Franka scenes' ``SceneSpec``: 60 Hz env steps of 8 substeps, 5.5 s."""
    return {
        "sim": scene_sim(FRAME_DT, decimation=1, num_substeps=SUBSTEPS),
        "controller": pick_controller,
        "frames": 330,
        # From the front right, the table edge and the whole arm in view, the object at the center.
        "viewpoint": CameraCfg(eye=(1.25, -0.95, 0.75), target=(0.35, 0.0, 0.2)),
    }
