"""Materials written per env after the start, beyond the deformables: a VBD cable's rod material (the ``Cable``
asset), bodies' rotational inertia and center of mass, and implicit joint drive gains.

Independent expectations: builds of the same scene with the value in the config (each written env moves as that
build does over 30 env steps, to 1e-6 or bitwise), the captured step never recorded again (the recordings
fixture), and the physical effect in the right order: a cable held at one end sags less the stiffer it bends and
stretches longer the softer it is, a box whose center of mass lies beyond its footprint tips over toward it, a
link with more rotational inertia falls slower, a stiffer drive holds a link nearer its target. The box and link
scenes run MuJoCo-Warp, which keeps its own copy of the model's inertial properties and drive gains (refreshed only
by the solver notification the writes send); one test reads that copy directly.
"""

from __future__ import annotations

from typing import Any, ClassVar

import newton
import numpy as np
import pytest
import torch
import warp as wp
from test_step_recording import recordings  # noqa: F401  (the fixture counting graph recordings)

from isaaclab_contrib.assets import Cable
from isaaclab_contrib.coupling import CouplerAdmmCfg
from isaaclab_contrib.managers import SceneEntityCfg
from isaaclab_contrib.physics import (
    IdealPDActuatorCfg,
    ImplicitActuatorCfg,
    MJWarpSolverCfg,
    NewtonCfg,
    SimulationCfg,
    VBDSolverCfg,
)
from isaaclab_contrib.scenes import (
    ArticulationCfg,
    ArticulationInitialStateCfg,
    CableCfg,
    CuboidCfg,
    GroundPlaneCfg,
    InitialStateCfg,
    InteractiveScene,
    RigidObjectCfg,
    SceneBaseCfg,
    launch,
)
from isaaclab_contrib.utils.configclass import configclass

STEPS = 30


# ---------------------------------------------------------------------- scenes
@configclass
class HeldCableSceneCfg(SceneBaseCfg):
    """A 30 cm cable of 6 capsules lying straight along x, 0.5 m up; its first capsule is held in place (a body
    without mass is static for VBD), so the rest of the cable sags and swings under its weight."""

    env_spacing: float = 1.0
    cable: CableCfg = CableCfg(
        entry="cable",
        length=0.3,
        segments=6,
        radius=0.006,
        bend_stiffness=0.1,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.5)),
    )

    def coupler_cfg(self) -> CouplerAdmmCfg:
        # One entry: ADMM (Newton 1.8's proxy coupler does not step a lone entry without proxy mappings).
        return CouplerAdmmCfg(entries=[self.entry_cfg("cable", VBDSolverCfg(iterations=10))], contact_pairs=[])

    def connect(self, builder: newton.ModelBuilder, spawned: dict[str, Any]) -> None:
        held = spawned["cable"].bodies[0]
        builder.body_mass[held] = builder.body_inv_mass[held] = 0.0
        builder.body_inertia[held] = builder.body_inv_inertia[held] = wp.mat33(0.0)


@configclass
class OffsetBoxCfg(RigidObjectCfg):
    """A box whose center of mass the config may move off its center (body frame) [m]."""

    _ranges: ClassVar[dict[str, str]] = {"com": "any"}

    com: tuple[float, float, float] | None = None
    """Center of mass in the body frame [m]; ``None``: the shape's (its center)."""

    def add_to(self, builder: Any, label: str) -> None:
        super().add_to(builder, label)
        if self.com is not None:
            builder.body_com[builder.body_count - 1] = wp.vec3(*self.com)


@configclass
class BoxOnGroundSceneCfg(SceneBaseCfg):
    """A 10 cm box resting on the ground; one MuJoCo-Warp entry owns both."""

    env_spacing: float = 1.0
    ground: GroundPlaneCfg = GroundPlaneCfg(entry="box")
    box: OffsetBoxCfg = OffsetBoxCfg(
        prim_path="{ENV_REGEX_NS}/Box",
        entry="box",
        spawn=CuboidCfg(size=(0.1, 0.1, 0.1)),
        density=500.0,
        init_state=InitialStateCfg(pos=(0.0, 0.0, 0.05)),
    )

    def coupler_cfg(self) -> CouplerAdmmCfg:
        return CouplerAdmmCfg(entries=[self.entry_cfg("box", MJWarpSolverCfg())], contact_pairs=[])


@configclass
class HingedLinkCfg(ArticulationCfg):
    """A link on a hinge about y to the world at ``init_state.pos``: its body frame at the hinge, its center of
    mass :attr:`com` out along +x (it starts horizontal, so gravity turns it about the hinge). No shapes."""

    _ranges: ClassVar[dict[str, str]] = {"mass": "> 0", "inertia": "> 0", "com": "any"}

    mass: float = 0.5
    """Mass of the link [kg]."""
    inertia: tuple[float, float, float] = (2.0e-3, 2.0e-3, 2.0e-3)
    """Diagonal rotational inertia about the center of mass [kg*m^2]."""
    com: tuple[float, float, float] = (0.15, 0.0, 0.0)
    """Center of mass in the link frame [m]."""

    def create(self, builder: newton.ModelBuilder, label: str) -> None:
        anchor = wp.transform(wp.vec3(*self.init_state.pos), wp.quat_identity())
        link = builder.add_link(
            xform=anchor,
            com=wp.vec3(*self.com),
            mass=self.mass,
            inertia=wp.mat33(np.diag(np.asarray(self.inertia, dtype=np.float64))),
            label=f"{label}/link",
        )
        hinge = builder.add_joint_revolute(-1, link, axis=(0.0, 1.0, 0.0), parent_xform=anchor, label=f"{label}/hinge")
        builder.add_articulation([hinge], label=label)


@configclass
class HingedLinksSceneCfg(SceneBaseCfg):
    """Two hinged links per env on one MuJoCo-Warp entry: ``link`` held by an implicit drive (the solver's PD),
    ``arm`` by an explicit PD actuator."""

    env_spacing: float = 1.0
    link: HingedLinkCfg = HingedLinkCfg(
        prim_path="{ENV_REGEX_NS}/Link",
        entry="links",
        init_state=ArticulationInitialStateCfg(pos=(0.0, 0.0, 1.0)),
        actuators={"hinge": ImplicitActuatorCfg(joint_names_expr=["hinge"], stiffness=6.0, damping=0.2)},
    )
    arm: HingedLinkCfg = HingedLinkCfg(
        prim_path="{ENV_REGEX_NS}/Arm",
        entry="links",
        init_state=ArticulationInitialStateCfg(pos=(0.0, 0.5, 1.0)),
        actuators={"hinge": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=6.0, damping=0.2)},
    )

    def coupler_cfg(self) -> CouplerAdmmCfg:
        return CouplerAdmmCfg(entries=[self.entry_cfg("links", MJWarpSolverCfg())], contact_pairs=[])


CABLE_SIM = dict(dt=1.0 / 240.0, physics=NewtonCfg(decimation=2, num_substeps=4))
RIGID_SIM = dict(dt=1.0 / 240.0, physics=NewtonCfg(decimation=4))


def _run(cfg, sim_kwargs, write=None, read=None, recorded=None, notify: int = 0):
    """Launch *cfg* on the CPU, apply ``write(scene)`` (or register the notification *notify*, which a build
    compared with a written run needs when the write's notification discards solver warm starts), step STEPS env
    steps and return ``read(scene)`` of every step stacked ``[STEPS, ...]``. With *recorded* (the recordings
    fixture) it checks that the writes and the steps recorded nothing new."""
    sim = launch(cfg, SimulationCfg(device="cpu", **sim_kwargs))
    manager = sim.physics_manager
    try:
        scene = InteractiveScene(cfg, manager)
        before = None if recorded is None else len(recorded)
        if write is not None:
            write(scene)
        elif notify:
            manager.add_model_change(notify)
        frames = []
        for _ in range(STEPS):
            sim.step()
            scene.update(sim.get_physics_dt() * manager.get_decimation())
            frames.append(read(scene).clone())
        if recorded is not None:
            assert len(recorded) == before  # the writes and the steps recorded nothing new
            assert manager.step_mode() == "captured"
        return torch.stack(frames)
    finally:
        sim.clear_instance()


def _cable_scene(num_envs: int, **values: float) -> HeldCableSceneCfg:
    cfg = HeldCableSceneCfg(num_envs=num_envs)
    for name, value in values.items():
        setattr(cfg.cable, name, value)
    return cfg


def _segments(scene) -> torch.Tensor:
    return scene["cable"].data.body_pos_w.torch


# ---------------------------------------------------------------------- the cable asset
def test_cable_asset_fields_and_state_writes():
    cfg = _cable_scene(2)
    sim = launch(cfg, SimulationCfg(device="cpu", **CABLE_SIM))
    manager = sim.physics_manager
    try:
        scene = InteractiveScene(cfg, manager)
        cable = scene["cable"]
        assert isinstance(cable, Cable) and scene.cables == {"cable": cable} and "cable" not in scene.extras
        assert cable.num_segments == cable.num_bodies == 6 and cable.body_names[0] == "rod_edge_body_0"
        model = manager.get_model()
        labels = list(model.body_label)
        ids = [[labels.index(f"/World/envs/env_{e}/Cable/rod_edge_body_{k}") for k in range(6)] for e in range(2)]
        body_q, body_qd = manager.get_state_0().body_q.numpy(), manager.get_state_0().body_qd.numpy()
        state = cable.data.body_state_w.torch.numpy()
        assert np.array_equal(state[..., :7], body_q[ids]) and np.array_equal(state[..., 7:], body_qd[ids])
        assert np.array_equal(cable.data.body_pos_w.torch.numpy(), body_q[ids][..., :3])
        # At rest along x from the first end: segment midpoints 2.5 cm, 7.5 cm, ... from it, world frame.
        origins = scene.env_origins.numpy()
        expected = origins[:, None, :] + np.array([[0.025 + 0.05 * k, 0.0, 0.5] for k in range(6)])
        default = cable.data.default_body_state.torch
        assert np.allclose(default[..., :3].numpy(), expected, atol=1e-6)
        assert torch.equal(cable.data.default_root_state.torch[:, :3], default[:, 0, :3] - scene.env_origins)
        # The config's values are what the model holds, unscaled.
        assert cable.material()["bend_stiffness"].tolist() == pytest.approx([0.1, 0.1])
        assert cable.material()["stretch_stiffness"].tolist() == pytest.approx([cfg.cable.stretch_stiffness] * 2)

        for _ in range(5):
            sim.step()
        scene.update(1.0 / 60.0)
        moved = cable.data.body_state_w.torch.clone()
        assert (moved[:, 1:, 2] < 0.5).all()  # it sagged
        # Write env 1 back to its start state, 10 cm higher: the FK of the next forward() keeps it (the joint
        # coordinates were computed from it); env 0 keeps moving as it was.
        lifted = default[1:].clone()
        lifted[..., 2] += 0.1
        cable.write_body_state_to_sim(lifted, env_ids=[1])
        manager.forward()
        assert (cable.data.body_state_w.torch[1] - lifted[0]).abs().max() <= 1e-5
        assert torch.equal(cable.data.body_state_w.torch[0], moved[0])
        sim.step()
        assert (cable.data.body_pos_w.torch[1, 0] - lifted[0, 0, :3]).abs().max() <= 1e-6  # held where written

        before = manager.get_state_0().body_q.numpy().copy()
        bad = default.clone()
        with pytest.raises(ValueError, match=r"Cable 'cable': body_state must have shape \(2, 6, 13\)"):
            cable.write_body_state_to_sim(bad[:, :5])
        bad[0, 2, 0] = float("nan")
        with pytest.raises(ValueError, match="body_state holds non-finite"):
            cable.write_body_state_to_sim(bad)
        bad = default.clone()
        bad[1, 3, 3:7] = torch.tensor([0.0, 0.0, 0.0, 2.0])
        with pytest.raises(ValueError, match="not unit length"):
            cable.write_body_state_to_sim(bad)
        with pytest.raises(IndexError, match="env_ids must lie in"):
            cable.write_body_state_to_sim(default[:1], env_ids=[2])
        with pytest.raises(ValueError, match="write it with write_body_state_to_sim"):
            cable.write_root_pose_to_sim(default[:, 0, :7])
        assert np.array_equal(manager.get_state_0().body_q.numpy(), before)  # nothing written on a refusal
    finally:
        sim.clear_instance()


def test_scene_state_carries_the_cable_and_reset_to_puts_it_back():
    """``get_state`` has a ``cable`` group (every segment's pose and velocity); ``reset_to`` of a saved state brings
    one env's cable back to it (within the joint-coordinate round trip) and leaves the other env's alone."""
    cfg = _cable_scene(2)
    sim = launch(cfg, SimulationCfg(device="cpu", **CABLE_SIM))
    manager = sim.physics_manager
    try:
        scene = InteractiveScene(cfg, manager)
        saved = scene.get_state(is_relative=True)
        assert set(saved["cable"]["cable"]) == {"body_pose", "body_velocity"}
        assert saved["cable"]["cable"]["body_pose"].shape == (2, 6, 7)
        for _ in range(5):
            sim.step()
        scene.update(1.0 / 60.0)
        moved = scene["cable"].data.body_state_w.torch.clone()
        one = {"cable": {"cable": {key: value[1:] for key, value in saved["cable"]["cable"].items()}}}
        scene.reset_to(one, env_ids=[1], is_relative=True)
        manager.forward()
        now = scene.get_state(is_relative=True)["cable"]["cable"]
        assert (now["body_pose"][1] - saved["cable"]["cable"]["body_pose"][1]).abs().max() <= 1e-5
        assert torch.equal(scene["cable"].data.body_state_w.torch[0], moved[0])
        before = manager.get_state_0().body_q.numpy().copy()
        with pytest.raises(KeyError, match="misses 'body_velocity'"):
            scene.reset_to({"cable": {"cable": {"body_pose": one["cable"]["cable"]["body_pose"]}}}, env_ids=[1])
        short = {key: value[:, :5] for key, value in one["cable"]["cable"].items()}
        with pytest.raises(ValueError, match=r"cable 'cable' body_pose must have shape \(1, 6, 7\)"):
            scene.reset_to({"cable": {"cable": short}}, env_ids=[1])
        assert np.array_equal(manager.get_state_0().body_q.numpy(), before)  # nothing written on a refusal
    finally:
        sim.clear_instance()


def test_cable_material_refusals_write_nothing():
    cfg = _cable_scene(2)
    sim = launch(cfg, SimulationCfg(device="cpu", **CABLE_SIM))
    manager = sim.physics_manager
    try:
        cable = InteractiveScene(cfg, manager)["cable"]
        model = manager.get_model()
        arrays = ("joint_target_ke", "joint_target_kd", "shape_material_mu", "body_mass")
        before = {name: getattr(model, name).numpy().copy() for name in arrays}
        with pytest.raises(KeyError, match=r"unknown material field 'density'; CableCfg has \["):
            cable.write_material_to_sim(bend_stiffness=1.0, density=900.0)
        with pytest.raises(ValueError, match="bend_stiffness must be finite and >= 0"):
            cable.write_material_to_sim(bend_stiffness=torch.tensor([1.0, float("nan")]))
        with pytest.raises(ValueError, match="stretch_damping must be finite and >= 0"):
            cable.write_material_to_sim(stretch_damping=-1.0)
        with pytest.raises(ValueError, match=r"stretch_stiffness must be > 0 \[N/m\]"):
            cable.write_material_to_sim(stretch_stiffness=torch.tensor([1.0e3, 0.0]))
        with pytest.raises(ValueError, match=r"bend_damping must be a number or a tensor of \[1\]"):
            cable.write_material_to_sim(bend_damping=torch.tensor([1.0, 2.0]), env_ids=[0])
        with pytest.raises(ValueError, match="mu must be finite and >= 0"):
            cable.write_material_to_sim(bend_stiffness=1.0, mu=-0.5)  # a bad shape field: the rod is not written
        for name in arrays:
            assert np.array_equal(getattr(model, name).numpy(), before[name]), name
        cable.write_material_to_sim(bend_damping=0.25, mu=0.4, env_ids=[1])
        assert cable.material()["bend_damping"].tolist() == pytest.approx([cfg.cable.bend_damping, 0.25])
        mu = model.shape_material_mu.numpy()[model.shape_body.numpy() == cable._bodies.ids[1, 2]]
        assert mu.tolist() == pytest.approx([0.4])

        from isaaclab_contrib.envs.mdp import randomize_deformable_material

        class Env:  # the event term needs the scene, the env count and the device only
            num_envs, device = 2, "cpu"

        env = Env()
        env.scene = InteractiveScene(cfg, manager)
        params = {"bend_stiffness": (3.0, 3.0), "stretch_stiffness": (0.5, 0.5)}
        randomize_deformable_material(env, None, SceneEntityCfg("cable"), params, operation="scale")
        material = env.scene["cable"].material()
        assert material["bend_stiffness"].tolist() == pytest.approx([0.3, 0.3])  # from the config's 0.1
        assert material["stretch_stiffness"].tolist() == pytest.approx([0.5 * cfg.cable.stretch_stiffness] * 2)
    finally:
        sim.clear_instance()


@pytest.mark.slow  # kept out of the 5-minute default set
def test_cable_bend_written_in_one_env_moves_as_a_build_and_sags_less(recordings):  # noqa: F811
    """Env 1's bend stiffness and damping and stretch damping written after the start: it moves bitwise as a
    build with those values in its config (the written rows equal the build's), env 0 keeps the config's, and
    the stiffer cable's free end sags less (mean height over the run)."""
    values = {"bend_stiffness": 2.0, "bend_damping": 4.0e-3, "stretch_damping": 0.05}
    held: dict[str, np.ndarray] = {}

    def write(scene):
        scene["cable"].write_material_to_sim(env_ids=[1], **values)
        model = scene.physics_manager.get_model()
        held["ke"], held["kd"] = model.joint_target_ke.numpy().copy(), model.joint_target_kd.numpy().copy()

    written = _run(_cable_scene(2), CABLE_SIM, write, _segments, recordings)

    def rows(scene):
        model = scene.physics_manager.get_model()
        held["build_ke"], held["build_kd"] = model.joint_target_ke.numpy(), model.joint_target_kd.numpy()
        return _segments(scene)

    built = _run(_cable_scene(2, **values), CABLE_SIM, read=rows)
    assert torch.equal(written[:, 1], built[:, 1])  # bitwise over 30 env steps
    half = len(held["ke"]) // 2  # env 1's joint rows (the worlds hold equal rows)
    assert np.array_equal(held["ke"][half:], held["build_ke"][half:])
    assert np.array_equal(held["kd"][half:], held["build_kd"][half:])
    tip = written[:, :, -1, 2].mean(dim=0)  # the free end's mean height [m]
    assert tip[1] > tip[0] + 0.02, tip


@pytest.mark.slow  # four builds of the cable: 10 to 20 s
def test_cable_stretch_stiffness_per_env_matches_builds_and_softer_stretches_longer(recordings):  # noqa: F811
    stiffness = [20.0, 200.0, 2.0e5]
    write = lambda scene: scene["cable"].write_material_to_sim(stretch_stiffness=torch.tensor(stiffness))  # noqa: E731
    written = _run(_cable_scene(3), CABLE_SIM, write, _segments, recordings)
    for env, k in enumerate(stiffness):
        built = _run(_cable_scene(3, stretch_stiffness=k), CABLE_SIM, read=_segments)
        assert (written[:, env] - built[:, env]).abs().max() <= 1e-6, k
    length = (written[:, :, -1] - written[:, :, 0]).norm(dim=-1).mean(dim=0)  # first to last midpoint [m]
    assert length[0] > length[1] > length[2], length


# ---------------------------------------------------------------------- rigid bodies: center of mass, inertia
def _box_scene(num_envs: int, com=None) -> BoxOnGroundSceneCfg:
    cfg = BoxOnGroundSceneCfg(num_envs=num_envs)
    cfg.box.com = com
    return cfg


@pytest.mark.slow  # kept out of the 5-minute default set
def test_box_com_per_env_matches_builds_and_tips_the_box_toward_it(recordings):  # noqa: F811
    """A box's center of mass written per env after the start (MuJoCo-Warp keeps its own copy, refreshed by the
    notification): each env moves as a build with that center of mass, which got the same notification (it
    discards MuJoCo's warm start); a center beyond the footprint tips the box over toward it."""
    coms = [(-0.07, 0.0, 0.0), (0.0, 0.0, 0.03), (0.07, 0.0, 0.0)]
    root = lambda scene: scene["box"].data.root_state_w.torch  # noqa: E731
    write = lambda scene: scene["box"].write_material_to_sim(com=torch.tensor(coms))  # noqa: E731
    written = _run(_box_scene(3), RIGID_SIM, write, root, recordings)
    notify = int(newton.ModelFlags.BODY_INERTIAL_PROPERTIES)
    for env, com in enumerate(coms):
        built = _run(_box_scene(3, com), RIGID_SIM, read=root, notify=notify)
        assert (written[:, env] - built[:, env]).abs().max() <= 1e-6, com
    final = written[-1]
    tilt = 2.0 * torch.asin(final[:, 4])  # rotation about y [rad]: +x side down is positive
    assert tilt[0] < -1.0 and abs(float(tilt[1])) < 1e-3 and tilt[2] > 1.0, tilt
    drift = final[:, 0] - torch.tensor([-1.0, 0.0, 1.0])  # from the env origins along x [m]
    assert drift[0] < -0.03 and abs(float(drift[1])) < 1e-3 and drift[2] > 0.03, drift


def _links(num_envs: int, **values: Any) -> HingedLinksSceneCfg:
    cfg = HingedLinksSceneCfg(num_envs=num_envs)
    for name, value in values.items():
        if name in ("stiffness", "damping"):
            setattr(cfg.link.actuators["hinge"], name, value)
        else:
            setattr(cfg.link, name, value)
    return cfg


def _link_angle(scene) -> torch.Tensor:
    link = scene["link"]
    return torch.cat([link.data.joint_pos.torch, link.data.body_pos_w.torch[:, 0]], dim=-1)


def test_link_inertia_written_in_one_env_moves_as_a_build_and_falls_slower(recordings):  # noqa: F811
    inertia = (2.0e-2, 2.0e-2, 2.0e-3)  # about y: ten times the config's
    write = lambda scene: scene["link"].write_material_to_sim(  # noqa: E731
        inertia=torch.diag(torch.tensor(inertia)), env_ids=[1]
    )
    written = _run(_links(2), RIGID_SIM, write, _link_angle, recordings)
    notify = int(newton.ModelFlags.BODY_INERTIAL_PROPERTIES)
    built = _run(_links(2, inertia=inertia), RIGID_SIM, read=_link_angle, notify=notify)
    assert (written[:, 1] - built[:, 1]).abs().max() <= 1e-6
    fall = written[:8, :, 0].mean(dim=0)  # the mean hinge angle over the first 8 env steps [rad]
    assert 0.0 < fall[1] < 0.7 * fall[0], fall


@pytest.mark.slow  # kept out of the 5-minute default set
def test_link_com_per_env_matches_builds_and_a_longer_lever_sags_more(recordings):  # noqa: F811
    coms = [(0.05, 0.0, 0.0), (0.15, 0.0, 0.0), (0.3, 0.0, 0.0)]
    write = lambda scene: scene["link"].write_material_to_sim(com=torch.tensor(coms))  # noqa: E731
    written = _run(_links(3), RIGID_SIM, write, _link_angle, recordings)
    notify = int(newton.ModelFlags.BODY_INERTIAL_PROPERTIES)
    for env, com in enumerate(coms):
        built = _run(_links(3, com=com), RIGID_SIM, read=_link_angle, notify=notify)
        assert (written[:, env] - built[:, env]).abs().max() <= 1e-6, com
    sag = written[:, :, 0].mean(dim=0)
    assert 0.0 < sag[0] < sag[1] < sag[2], sag


# ---------------------------------------------------------------------- implicit drive gains
@pytest.mark.slow  # kept out of the 5-minute default set
def test_implicit_drive_gains_per_env_match_builds_and_a_stiffer_drive_sags_less(recordings):  # noqa: F811
    """The implicit drive's stiffness and damping written per env (MuJoCo-Warp's actuator gains come from the
    model's joint_target_ke / kd through the notification): each env moves as a build with those gains in its
    ImplicitActuatorCfg, and the stiffer drive holds the link nearer its target (horizontal)."""
    gains = [(3.0, 0.1), (6.0, 0.2), (24.0, 0.4)]

    def write(scene):
        link = scene["link"]
        link.write_joint_stiffness_to_sim(torch.tensor([[k] for k, _ in gains]))
        link.write_joint_damping_to_sim(torch.tensor([[d] for _, d in gains]))

    written = _run(_links(3), RIGID_SIM, write, _link_angle, recordings)
    for env, (k, d) in enumerate(gains):
        built = _run(_links(3, stiffness=k, damping=d), RIGID_SIM, read=_link_angle)
        assert (written[:, env] - built[:, env]).abs().max() <= 1e-6, (k, d)
    sag = written[:, :, 0].mean(dim=0)  # mean hinge angle below the horizontal target [rad]
    assert sag[0] > sag[1] > sag[2] > 0.0, sag


def test_inertial_and_gain_writes_refuse_by_name_and_write_nothing():
    cfg = _links(2)
    sim = launch(cfg, SimulationCfg(device="cpu", **RIGID_SIM))
    manager = sim.physics_manager
    try:
        scene = InteractiveScene(cfg, manager)
        link, arm = scene["link"], scene["arm"]
        model = manager.get_model()
        arrays = ("body_mass", "body_inertia", "body_inv_inertia", "body_com", "joint_target_ke", "joint_target_kd")
        arrays += ("joint_armature",)
        before = {name: getattr(model, name).numpy().copy() for name in arrays}
        skew = torch.tensor([[1.0e-3, 2.0e-4, 0.0], [0.0, 1.0e-3, 0.0], [0.0, 0.0, 1.0e-3]])
        with pytest.raises(
            ValueError, match=r"'link'\.write_material_to_sim: inertia: the inertia tensor must be symmetric"
        ):
            link.write_material_to_sim(inertia=skew)
        with pytest.raises(ValueError, match="positive definite"):
            link.write_material_to_sim(inertia=torch.diag(torch.tensor([1.0e-3, -1.0e-3, 1.0e-3])))
        with pytest.raises(ValueError, match="triangle inequality"):
            link.write_material_to_sim(inertia=torch.diag(torch.tensor([1.0e-3, 1.0e-3, 5.0e-3])))
        with pytest.raises(ValueError, match="com holds non-finite"):
            link.write_material_to_sim(com=torch.tensor([[0.1, 0.0, 0.0], [float("nan"), 0.0, 0.0]]))
        with pytest.raises(ValueError, match=r"com must have one of the shapes"):
            link.write_material_to_sim(com=torch.zeros(3, 3))
        with pytest.raises(ValueError, match="mass must be > 0"):
            link.write_material_to_sim(mass=0.0, com=(0.1, 0.0, 0.0))
        with pytest.raises(KeyError, match="unknown material field 'inertias'"):
            link.write_material_to_sim(inertias=torch.eye(3))
        with pytest.raises(ValueError, match=r"stiffness must be >= 0"):
            link.write_joint_stiffness_to_sim(torch.tensor([[5.0], [-1.0]]))
        with pytest.raises(ValueError, match="damping holds non-finite"):
            link.write_joint_damping_to_sim(torch.tensor([[float("inf")], [1.0]]))
        with pytest.raises(ValueError, match=r"stiffness must have shape \(1, 1\)"):
            link.write_joint_stiffness_to_sim(torch.ones(2, 1), env_ids=[0])
        with pytest.raises(ValueError, match="joint 'hinge' is driven by an explicit actuator"):
            arm.write_joint_stiffness_to_sim(5.0)
        with pytest.raises(IndexError, match=r"joint_ids must lie in \[0, 1\)"):  # before the bodies' mass is written
            link.write_material_to_sim(mass=2.0, armature=0.1, joint_ids=[5])
        with pytest.raises(IndexError, match="body_ids must lie in"):
            link.write_material_to_sim(com=(0.1, 0.0, 0.0), body_ids=[3])
        for name in arrays:
            assert np.array_equal(getattr(model, name).numpy(), before[name]), name

        # Accepted: a symmetric tensor with products of inertia (its inverse written with it), a center of mass
        # per env, and the explicit arm's zero (the solver adds no drive of its own).
        tensor = torch.tensor([[2.0e-3, 3.0e-4, 0.0], [3.0e-4, 3.0e-3, 1.0e-4], [0.0, 1.0e-4, 2.5e-3]])
        link.write_material_to_sim(inertia=tensor, com=torch.tensor([[0.1, 0.0, 0.0], [0.2, 0.0, 0.01]]))
        arm.write_joint_stiffness_to_sim(0.0)
        body = link._bodies.ids[:, 0]
        assert np.allclose(model.body_inertia.numpy()[body], tensor.numpy()[None], rtol=0, atol=1e-9)
        products = model.body_inertia.numpy()[body] @ model.body_inv_inertia.numpy()[body]
        assert np.allclose(products, np.eye(3)[None], atol=1e-5)
        assert np.allclose(model.body_com.numpy()[body], [[0.1, 0.0, 0.0], [0.2, 0.0, 0.01]], atol=1e-7)
        link.write_material_to_sim(mass=1.0, env_ids=[0])  # twice the mass: the inertia doubles, the COM stays
        assert np.allclose(model.body_inertia.numpy()[body[0]], 2.0 * tensor.numpy(), rtol=1e-6, atol=0)
        assert np.allclose(model.body_inv_inertia.numpy()[body[0]], np.linalg.inv(2.0 * tensor.numpy()), rtol=1e-5)
        assert np.allclose(model.body_com.numpy()[body[0]], [0.1, 0.0, 0.0], atol=1e-7)
        sim.step()  # the notification reached MuJoCo-Warp: its body positions of the COM follow
        mjw = manager._instance().part.bound.entries["links"].solver.mjw_model
        along_x = np.unique(np.round(mjw.body_ipos.numpy()[:, :, 0].astype(np.float64), 6))
        assert np.allclose(along_x, [0.0, 0.1, 0.15, 0.2])  # the world body, link env 0, the arms, link env 1
        assert manager.step_mode() == "captured"
    finally:
        sim.clear_instance()


def test_event_terms_randomize_com_and_route_gains_through_the_asset():
    """``randomize_rigid_body_com`` adds a draw to the start center of mass; ``randomize_actuator_gains`` writes
    the implicit drive's gains through the articulation (its explicit joints keep the model's 0)."""
    from isaaclab_contrib.envs.mdp import randomize_actuator_gains, randomize_rigid_body_com

    cfg = _links(2)
    sim = launch(cfg, SimulationCfg(device="cpu", **RIGID_SIM))
    manager = sim.physics_manager
    try:
        scene = InteractiveScene(cfg, manager)

        class Env:  # the event terms need the scene, the manager, the env count and the device only
            num_envs, device = 2, "cpu"

        env = Env()
        env.scene, env.manager = scene, manager
        model = manager.get_model()
        link = SceneEntityCfg("link")
        link.resolve(scene)
        body = scene["link"]._bodies.ids[:, 0]
        randomize_rigid_body_com(env, None, {"x": (0.05, 0.05), "z": (-0.01, -0.01)}, link)
        randomize_rigid_body_com(env, [1], {"x": (0.1, 0.1)}, link)  # from the start value: no drift
        assert np.allclose(model.body_com.numpy()[body], [[0.2, 0.0, -0.01], [0.25, 0.0, 0.0]], atol=1e-7)
        with pytest.raises(KeyError, match="com_range keys must be 'x', 'y' or 'z'"):
            randomize_rigid_body_com(env, None, {"w": (0.0, 1.0)}, link)
        randomize_actuator_gains(env, None, link, (2.0, 2.0), (0.5, 0.5), operation="scale")
        dofs = scene["link"]._dof_rows.index.reshape(-1).numpy()
        assert model.joint_target_ke.numpy()[dofs].tolist() == pytest.approx([12.0, 12.0])
        assert model.joint_target_kd.numpy()[dofs].tolist() == pytest.approx([0.1, 0.1])
        arm = SceneEntityCfg("arm")
        arm.resolve(scene)
        randomize_actuator_gains(env, None, arm, (2.0, 2.0), None, operation="scale")
        arm_dofs = scene["arm"]._dof_rows.index.reshape(-1).numpy()
        assert model.joint_target_ke.numpy()[arm_dofs].tolist() == [0.0, 0.0]  # the explicit law's gains moved
        for _ in range(2):
            sim.step()
        assert manager.step_mode() == "captured"
    finally:
        sim.clear_instance()
