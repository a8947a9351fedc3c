"""The ready configs of five of Newton's coupled examples against the examples themselves, state for state.

Each test runs Newton's installed example headless (its ``Example`` class with
``newton.viewer.ViewerNull`` and the arguments its own parser gives, as ``python -m newton.examples
NAME --viewer null`` would) and the project's config of the same scene (``configs/``, the package
``isaaclab_coupling_configs``) for the same
number of frames, then compares every body and particle state (positions, velocities, joint
coordinates). The bound is zero: every comparison is ``np.testing.assert_array_equal``. That holds
because both sides build the same model (same element order, same float32 values; the project's
Isaac Lab-style labels and env world do not enter the physics), construct the same Newton solvers
with the same arguments, and run the same kernels in the same order on the CPU, where Warp executes
them sequentially (no atomic-order nondeterminism).

Each test also shows that the new config field it exercises is what makes the match: without it
the states differ by centimetres (or the block leaves the grip).

The parity is a CPU property: on CUDA the atomic accumulations of the VBD / XPBD contact and proxy
kernels make two runs of the same example differ in the last bits, and the examples choose their
capture from the device, so the non-CPU parametrizations are skipped.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

import newton
import newton.viewer
import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.coupling import NewtonCouplerManager, build_coupled_solver
from isaaclab_contrib.scenes import build_model, get_scene, launch
from isaaclab_coupling_configs import (
    mujoco_vbd_admm,
    proxy_joint_gripper,
    softbody_dropping_to_cloth,
    vbd_mpm_coupled,
    xpbd_vbd_coupled,
)

pytestmark = pytest.mark.slow  # Newton's examples run beside our configs for tens of frames

STATE_FIELDS = ("body_q", "body_qd", "particle_q", "particle_qd", "joint_q", "joint_qd")
FRAME_DT = 1.0 / 60.0  # every example steps 60 frames per second


def cpu_only(device: str) -> None:
    if device != "cpu":
        pytest.skip("bitwise parity with Newton's examples is checked on the CPU (see the module documentation)")


def host_state(state) -> dict[str, np.ndarray]:
    return {name: getattr(state, name).numpy().copy() for name in STATE_FIELDS if getattr(state, name) is not None}


def max_differences(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> dict[str, float]:
    """Max abs difference per state array (for messages); both sides must hold the same arrays."""
    assert sorted(ours) == sorted(theirs)
    out = {}
    for name in theirs:
        assert ours[name].shape == theirs[name].shape, name
        out[name] = float(np.abs(ours[name].astype(np.float64) - theirs[name]).max()) if theirs[name].size else 0.0
    return out


def assert_bitwise_equal(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> None:
    diffs = max_differences(ours, theirs)
    for name in theirs:
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=f"{name}: max abs differences {diffs}")


# ------------------------------------------------------------------------------ Newton's side
@functools.cache
def newton_example(name: str, frames: int, argv: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """Run ``newton.examples.multiphysics.example_<name>`` headless for *frames* frames on the CPU (cached)."""
    module = importlib.import_module(f"newton.examples.multiphysics.example_{name}")
    args = module.Example.create_parser().parse_args(["--viewer", "null", "--device", "cpu", *argv])
    with wp.ScopedDevice("cpu"):
        example = module.Example(newton.viewer.ViewerNull(num_frames=frames), args)
        for _ in range(frames):
            example.step()
        return host_state(example.state_0)


# ------------------------------------------------------------------------------ the project's side
class PlainLoop:
    """The project's config in a plain Newton loop shaped like the example's: one captured graph per frame.

    ``collide``: ``"substep"`` (before every solver step), ``"frame"`` (once per frame) or ``"never"``.
    ``before_frame(model, control, t)`` runs on the host before each frame (the gripper's targets).
    ``capture=False`` runs every frame eagerly, as the examples do on the CPU when a solver cannot be
    recorded there (implicit MPM reads its residuals on the host).
    """

    def __init__(
        self,
        scene_cfg: Any,
        coupler_cfg: Any,
        *,
        substeps: int,
        collide: str,
        device: str = "cpu",
        before_frame: Callable[[Any, Any, float], None] | None = None,
        capture: bool = True,
    ):
        self.model = model = build_model(scene_cfg, coupler_cfg, device=device)[0]
        self.solver = build_coupled_solver(model, coupler_cfg)
        self.pipeline = newton.CollisionPipeline(model)
        self.contacts = self.pipeline.contacts()
        self.state_0, self.state_1, self.control = model.state(), model.state(), model.control()
        newton.eval_fk(model, model.joint_q, model.joint_qd, self.state_0)
        self.substeps, self.collide, self.before_frame = substeps, collide, before_frame
        self.dt = FRAME_DT / substeps
        self.t = 0.0
        self.graph = None
        if capture:
            with wp.ScopedCapture(device=device) as recording:
                self._frame()
            self.graph = recording.graph

    def _frame(self) -> None:
        if self.collide == "frame":
            self.pipeline.collide(self.state_0, self.contacts)
        for _ in range(self.substeps):
            self.state_0.clear_forces()
            if self.collide == "substep":
                self.pipeline.collide(self.state_0, self.contacts)
            self.solver.step(self.state_0, self.state_1, self.control, self.contacts, self.dt)
            self.state_0, self.state_1 = self.state_1, self.state_0

    def run(self, frames: int) -> dict[str, np.ndarray]:
        for _ in range(frames):
            if self.before_frame is not None:
                self.before_frame(self.model, self.control, self.t)
            if self.graph is not None:
                wp.capture_launch(self.graph)
            else:
                self._frame()
            self.t += FRAME_DT
        return host_state(self.state_0)


def manager_run(scene: str, scene_cfg, coupler_cfg, *, frames: int, mode: str = "captured") -> dict[str, np.ndarray]:
    """The registered ready scene *scene* with *coupler_cfg* through ``NewtonCouplerManager`` (captured, or in
    the step *mode* the manager must choose): its physics step, decimation, substeps and controller; one env
    step is one example frame."""
    M = NewtonCouplerManager
    spec = get_scene(scene)
    assert spec.sim.dt * spec.sim.physics.decimation == pytest.approx(FRAME_DT)
    sim_cfg = spec.simulation_cfg(device="cpu")
    sim_cfg.physics.solver_cfg = coupler_cfg
    sim = launch(scene_cfg, sim_cfg)
    try:
        assert M.step_mode() == mode, M.eager_reason()
        t = 0.0
        for _ in range(frames):
            if spec.controller is not None:
                spec.controller(M, scene_cfg, t)
            M.step()
            t += FRAME_DT
        return host_state(M.get_state_0())
    finally:
        sim.clear_instance()


# ------------------------------------------------------------------------------ xpbd_vbd_coupled_solver
XPBD_FRAMES = 30  # 0.5 s: the bed lands on the cloth (~0.2 s) and is carried by it


@functools.cache
def xpbd_plain(hide: bool) -> dict[str, np.ndarray]:
    scene = xpbd_vbd_coupled.XpbdVbdCoupledSceneCfg()
    cfg = scene.coupler_cfg()
    if not hide:
        cfg.entries[1].hide_elements = []
    loop = PlainLoop(scene, cfg, substeps=8, collide="substep")
    return loop.run(XPBD_FRAMES)


def test_xpbd_vbd_coupled_matches_newton_bitwise(device):
    cpu_only(device)
    theirs = newton_example("xpbd_vbd_coupled_solver", XPBD_FRAMES)
    assert_bitwise_equal(xpbd_plain(hide=True), theirs)
    # The grain solver must not solve the cloth's elasticity again: without hiding it, 6.4 cm apart.
    assert max_differences(xpbd_plain(hide=False), theirs)["particle_q"] > 0.01


def test_xpbd_vbd_coupled_through_the_manager_matches_the_plain_flow(device):
    cpu_only(device)
    scene = xpbd_vbd_coupled.XpbdVbdCoupledSceneCfg()
    cfg = scene.coupler_cfg()
    ours = manager_run("xpbd_vbd_coupled", scene, cfg, frames=XPBD_FRAMES)
    assert_bitwise_equal(ours, xpbd_plain(hide=True))
    assert_bitwise_equal(ours, newton_example("xpbd_vbd_coupled_solver", XPBD_FRAMES))


# ------------------------------------------------------------------------------ softbody_dropping_to_cloth
def softbody_plain(frames: int, *, hide: bool = True) -> dict[str, np.ndarray]:
    scene = softbody_dropping_to_cloth.SoftbodyOnClothSceneCfg()
    cfg = scene.coupler_cfg()
    if not hide:
        for entry in cfg.entries:
            entry.hide_elements = []
    return PlainLoop(scene, cfg, substeps=10, collide="substep").run(frames)


def test_softbody_dropping_to_cloth_matches_newton_bitwise_in_free_fall(device):
    cpu_only(device)
    frames = 3
    theirs = newton_example("softbody_dropping_to_cloth", frames, ("--solver", "coupled"))
    assert_bitwise_equal(softbody_plain(frames), theirs)


@pytest.mark.slow  # ~2 min on a 2-core CPU: 45 frames of a 1681-particle cloth, three times
def test_softbody_dropping_to_cloth_matches_newton_bitwise_after_contact(device):
    cpu_only(device)
    frames = 45  # the block meets the cloth after ~0.4 s (24 frames) and bounces on it
    theirs = newton_example("softbody_dropping_to_cloth", frames, ("--solver", "coupled"))
    scene = softbody_dropping_to_cloth.SoftbodyOnClothSceneCfg()
    ours = manager_run("softbody_dropping_to_cloth", scene, scene.coupler_cfg(), frames=frames)
    assert_bitwise_equal(ours, theirs)
    block = scene.particle_ids("block")
    # It met the cloth and is held there: in free fall it would be on the ground by now (0.75 s from 2 m).
    lowest = ours["particle_q"][block, 2].min()
    assert scene.cloth.height - 0.3 < lowest < scene.cloth.height + 0.3
    # Each VBD entry must hide the other body's elements: without that, ~4 cm apart after contact.
    assert max_differences(softbody_plain(frames, hide=False), theirs)["particle_q"] > 0.01


# ------------------------------------------------------------------------------ proxy_joint_gripper
GRIP_FRAMES = 120  # the example's default run: 2 s, the fingers closed after 0.3 s (harsh) / 0.8 s


def gripper_scene(scenario: str) -> proxy_joint_gripper.GripperSceneCfg:
    return proxy_joint_gripper.HarshGripperSceneCfg() if scenario == "harsh" else proxy_joint_gripper.GripperSceneCfg()


def gripper_plain(scenario: str, *, proxy_joints: bool = True) -> dict[str, np.ndarray]:
    scene = gripper_scene(scenario)
    cfg = scene.coupler_cfg()
    if not proxy_joints:
        cfg.proxies[0].joints = []
    loop = PlainLoop(
        scene,
        cfg,
        substeps=6,
        collide="frame",
        before_frame=lambda model, control, t: proxy_joint_gripper.write_finger_targets(model, control, scene, t),
    )
    return loop.run(GRIP_FRAMES)


def block_in_grip(state: dict[str, np.ndarray], scene: proxy_joint_gripper.GripperSceneCfg) -> float:
    """Distance of the block's center from the point between the fingertips [m]."""
    left, right = state["body_q"][1, :3], state["body_q"][2, :3]
    return float(np.linalg.norm(state["particle_q"].mean(axis=0) - 0.5 * (left + right)))


@pytest.mark.parametrize("scenario", ["default", "harsh"])
def test_proxy_joint_gripper_matches_newton_bitwise(scenario, device):
    cpu_only(device)
    theirs = newton_example("proxy_joint_gripper", GRIP_FRAMES, ("--scenario", scenario))
    ours = gripper_plain(scenario)
    assert_bitwise_equal(ours, theirs)
    scene = gripper_scene(scenario)
    # The fingers closed on the block and hold it between them.
    assert np.all(ours["joint_q"][1:3] > 0.015)
    assert block_in_grip(ours, scene) < 0.1


def test_the_harsh_grip_keeps_the_block_only_with_proxy_joints(device):
    cpu_only(device)
    scene = gripper_scene("harsh")

    def run(cfg):
        return manager_run("proxy_joint_gripper_harsh", scene, cfg, frames=GRIP_FRAMES)

    ours = run(scene.coupler_cfg())
    assert_bitwise_equal(ours, newton_example("proxy_joint_gripper", GRIP_FRAMES, ("--scenario", "harsh")))
    assert block_in_grip(ours, scene) < 0.1
    without = scene.coupler_cfg()
    without.proxies[0].joints = []
    assert block_in_grip(run(without), scene) > 0.2  # pushed out of the grip


# ------------------------------------------------------------------------------ mujoco_vbd_admm_solver
ADMM_FRAMES = 30


def admm_plain(*, update_joint_coordinates: bool = True) -> dict[str, np.ndarray]:
    scene = mujoco_vbd_admm.AttachedBallSceneCfg()
    cfg = scene.coupler_cfg()
    cfg.update_joint_coordinates = update_joint_coordinates
    return PlainLoop(scene, cfg, substeps=8, collide="never").run(ADMM_FRAMES)


def test_mujoco_vbd_admm_matches_newton_bitwise(device):
    cpu_only(device)
    theirs = newton_example("mujoco_vbd_admm_solver", ADMM_FRAMES)
    assert_bitwise_equal(admm_plain(), theirs)
    # MuJoCo must see the payload VBD moves: without recomputing joint coordinates, ~0.5 m apart.
    assert max_differences(admm_plain(update_joint_coordinates=False), theirs)["body_q"] > 0.05
    # The manager also runs collision detection (the example does not); with the model's soft
    # contact off and no ADMM contact pairs the states stay identical.
    scene = mujoco_vbd_admm.AttachedBallSceneCfg()
    ours = manager_run("mujoco_vbd_admm", scene, scene.coupler_cfg(), frames=ADMM_FRAMES)
    assert_bitwise_equal(ours, theirs)


def test_body_ids_express_the_unlabeled_bodies_of_newtons_admm_example(device):
    """The example's bodies carry only Newton's generated labels; a coupler config selecting them by index,
    built on the example's own model and stepped by the example's own loop, reproduces it bitwise."""
    cpu_only(device)
    from newton.examples.multiphysics import example_mujoco_vbd_admm_solver as module

    args = module.Example.create_parser().parse_args(["--viewer", "null", "--device", "cpu"])
    with wp.ScopedDevice("cpu"):
        example = module.Example(newton.viewer.ViewerNull(num_frames=ADMM_FRAMES), args)
        ball, pendulum, payload = example.ball_body, example.pendulum_body, example.payload_body
        assert example.model.body_label[ball] == f"body_{ball}"  # no label of its own
        # The scene's config with the label selectors swapped for the example's body ids; the example's
        # loop recomputes joint coordinates itself, and its model already holds the contact settings.
        cfg = mujoco_vbd_admm.AttachedBallSceneCfg().coupler_cfg()
        rigid, cloth = cfg.entries
        rigid.bodies, rigid.body_ids = [], [ball, pendulum]
        cloth.bodies, cloth.body_ids = [], [payload]
        cfg.update_joint_coordinates = False
        cfg.model_cfg = None
        example.solver = build_coupled_solver(example.model, cfg)
        example.capture()
        for _ in range(ADMM_FRAMES):
            example.step()
        ours = host_state(example.state_0)
    assert_bitwise_equal(ours, newton_example("mujoco_vbd_admm_solver", ADMM_FRAMES))


# ------------------------------------------------------------------------------ vbd_mpm_coupled_solver
MPM_FRAMES = 2  # 1/30 s: the cube falls freely (it meets the heap after ~0.2 s); ~10 s a frame on the CPU


def vbd_mpm_plain(frames: int, *, in_place: bool = False) -> dict[str, np.ndarray]:
    scene = vbd_mpm_coupled.VbdMpmCoupledSceneCfg()
    cfg = scene.coupler_cfg()
    cfg.entries[1].in_place = in_place
    # Implicit MPM reads its solver residuals on the host, so it cannot be recorded on the CPU: eager frames,
    # as the example runs there.
    return PlainLoop(scene, cfg, substeps=4, collide="substep", capture=False).run(frames)


@pytest.mark.slow  # 4.3 min on the shared 2-core CPU: three 2-frame runs, 7.9k MPM points x 35 iterations x 3 passes
def test_vbd_mpm_coupled_matches_newton_bitwise(device):
    """The registered scene through the manager (partly eager on the CPU: Newton records implicit MPM only on
    CUDA) is the example, bitwise: the same heap (``GranularHeapCfg``), the cube's surface as the MPM entry's
    deformable collider set up after the coupler exists (``MPMSolverCfg.deformable_colliders``), the MPM entry
    stepping out of place. Stepped in place, it is not: each of the three proxy passes of a step then
    overwrites the MPM entry's only state, and the pass restart copies back only positions, velocities and
    forces, not MPM's own per-particle history (elastic strain, stress, velocity gradient), so the second and
    third passes start from a once-advanced history; after one frame the states are 0.7 mm (positions) and
    8 cm/s (velocities) apart."""
    cpu_only(device)
    theirs = newton_example("vbd_mpm_coupled_solver", MPM_FRAMES)
    scene = vbd_mpm_coupled.VbdMpmCoupledSceneCfg()
    ours = manager_run("vbd_mpm_coupled", scene, scene.coupler_cfg(), frames=MPM_FRAMES, mode="partial")
    assert_bitwise_equal(ours, theirs)
    assert max_differences(vbd_mpm_plain(MPM_FRAMES, in_place=True), theirs)["particle_q"] > 1.0e-4
