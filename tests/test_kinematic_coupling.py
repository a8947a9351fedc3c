"""Kinematic (prescribed-pose) coupling: a two-link arm driven by prescribed joint velocities presses into a
pinned cloth, the way Newton's ``cloth_franka`` example drives its shirt.

The independent expectation is that scene written as the example steps it, with Newton's API directly: one
model, Featherstone stepping the arm with the model's gravity swapped to zero and its particles hidden, then
``SolverVBD(integrate_with_external_rigid_solver=True)`` stepping the cloth against the arm's start and end
poses, collision detection before every VBD step, the joint velocities written before every substep. The same
scene through the project's config (a robot entry with ``gravity=(0, 0, 0)``, a VBD entry with
``integrate_with_external_rigid_solver=True``, a ``kinematic=True`` proxy mapping), ``launch()`` and the
manager's captured step program must give the same bodies and particles, bitwise (CPU: Warp runs kernels
sequentially there).

The default set also tries the new fields as a hostile user would.
"""

from __future__ import annotations

import math
from typing import ClassVar

import newton
import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import (
    FeatherstoneSolverCfg,
    MJWarpSolverCfg,
    NewtonCfg,
    SimulationCfg,
    VBDSolverCfg,
)
from isaaclab_contrib.scenes import ArticulationCfg, InitialStateCfg, PinnedClothCfg, SceneBaseCfg, build_model, launch
from isaaclab_contrib.utils.configclass import configclass

FRAMES = 20
SUBSTEPS = 10
FRAME_DT = 1.0 / 60.0
VBD_ITERATIONS = 5
SHOULDER = (0.0, 0.0, 0.3)
LINK = 0.2  # link length [m]


@configclass
class TwoLinkArmCfg(ArticulationCfg):
    """Two box links on revolute joints about +y (shoulder at ``SHOULDER``, links along +x), a ball at the tip."""

    _ranges: ClassVar[dict[str, str]] = {}

    prim_path: str = "{ENV_REGEX_NS}/Arm"
    entry: str | None = "robot"

    def create(self, builder: newton.ModelBuilder, label: str) -> None:
        shape = newton.ModelBuilder.ShapeConfig(density=500.0)
        half = wp.transform(wp.vec3(0.5 * LINK, 0.0, 0.0), wp.quat_identity())
        shoulder = wp.vec3(*SHOULDER)
        upper = builder.add_link(xform=wp.transform(shoulder, wp.quat_identity()), label=f"{label}/upper")
        builder.add_shape_box(upper, xform=half, hx=0.5 * LINK, hy=0.02, hz=0.02, cfg=shape, label=f"{label}/upper/box")
        elbow = shoulder + wp.vec3(LINK, 0.0, 0.0)
        fore = builder.add_link(xform=wp.transform(elbow, wp.quat_identity()), label=f"{label}/fore")
        builder.add_shape_box(fore, xform=half, hx=0.5 * LINK, hy=0.02, hz=0.02, cfg=shape, label=f"{label}/fore/box")
        tip = wp.transform(wp.vec3(LINK, 0.0, 0.0), wp.quat_identity())
        builder.add_shape_sphere(fore, xform=tip, radius=0.03, cfg=shape, label=f"{label}/fore/ball")
        axis = wp.vec3(0.0, 1.0, 0.0)
        j0 = builder.add_joint_revolute(
            parent=-1,
            child=upper,
            axis=axis,
            parent_xform=wp.transform(shoulder, wp.quat_identity()),
            child_xform=wp.transform_identity(),
            label=f"{label}/shoulder",
        )
        j1 = builder.add_joint_revolute(
            parent=upper,
            child=fore,
            axis=axis,
            parent_xform=wp.transform(wp.vec3(LINK, 0.0, 0.0), wp.quat_identity()),
            child_xform=wp.transform_identity(),
            label=f"{label}/elbow",
        )
        builder.add_articulation([j0, j1], label=label)


@configclass
class ArmOnClothSceneCfg(SceneBaseCfg):
    env_spacing: float = 2.0
    arm: TwoLinkArmCfg = TwoLinkArmCfg()
    cloth: PinnedClothCfg = PinnedClothCfg(
        entry="cloth", cells=8, cell_size=0.05, particle_radius=0.01, init_state=InitialStateCfg(pos=(0.3, 0.0, 0.2))
    )

    self_contact: bool = False
    """Cloth self-contact, detected once per VBD step before initialization (``cloth_franka``'s schedule)."""

    def vbd_self_contact(self) -> dict:
        """The VBD arguments of :attr:`self_contact`, shared by both sides (Newton's enum keys converted here)."""
        if not self.self_contact:
            return {}
        return {
            "particle_enable_self_contact": True,
            "particle_self_contact_margin": 0.005,
            "particle_self_contact_gap": 0.0,
        }

    def coupler_cfg(self) -> CouplerProxyCfg:
        cloth = VBDSolverCfg(
            iterations=VBD_ITERATIONS, integrate_with_external_rigid_solver=True, **self.vbd_self_contact()
        )
        if self.self_contact:
            cloth.collision_frequency_type = {"soft_self_contact": "pre_init"}
        return CouplerProxyCfg(
            entries=[
                self.entry_cfg("robot", FeatherstoneSolverCfg(), gravity=(0.0, 0.0, 0.0)),
                self.entry_cfg("cloth", cloth),
            ],
            proxies=[
                CouplerProxyMappingCfg(
                    source="robot", destination="cloth", bodies=self.entry_bodies("robot"), kinematic=True
                )
            ],
        )


def joint_velocities(frame: int) -> np.ndarray:
    """Prescribed joint velocities of *frame* [rad/s]: the arm swings down into the cloth, the elbow bends back."""
    s = math.sin(math.pi * frame / FRAMES)
    return np.array([3.0 * s, -0.5 * s], dtype=np.float32)


@wp.kernel
def copy_floats(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
    i = wp.tid()
    dst[i] = src[i]


def host_state(state) -> dict[str, np.ndarray]:
    return {name: getattr(state, name).numpy().copy() for name in ("body_q", "body_qd", "particle_q", "particle_qd")}


def plain_newton(scene: ArmOnClothSceneCfg, *, rebuild_bvh: bool = False) -> dict[str, np.ndarray]:
    """The scene stepped as Newton's ``cloth_franka`` steps its shirt, with Newton's API only (*rebuild_bvh*:
    rebuild the self-contact BVH at the start of every frame, as the example does)."""
    model = build_model(scene, scene.coupler_cfg())[0]
    robot = newton.solvers.SolverFeatherstone(model)
    schedule = {}
    if scene.self_contact:
        slot, kind = newton.solvers.SolverBase.CollisionSlot, newton.solvers.SolverBase.CollisionFrequencyType
        schedule = {"collision_frequency_type": {slot.SOFT_SELF_CONTACT: kind.PRE_INIT}}
    cloth = newton.solvers.SolverVBD(
        model,
        iterations=VBD_ITERATIONS,
        integrate_with_external_rigid_solver=True,
        **scene.vbd_self_contact(),
        **schedule,
    )
    pipeline = newton.CollisionPipeline(model)
    contacts = pipeline.contacts()
    state_0, state_1, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
    no_gravity = wp.zeros_like(model.gravity)
    gravity = wp.clone(model.gravity)
    target_qd = wp.zeros(model.joint_dof_count, dtype=float)
    dt = FRAME_DT / SUBSTEPS
    for frame in range(FRAMES):
        target_qd.assign(joint_velocities(frame))
        if rebuild_bvh:
            cloth.rebuild_bvh(state_0)
        for _ in range(SUBSTEPS):
            state_0.clear_forces()
            state_1.clear_forces()
            particle_count = model.particle_count
            model.particle_count = 0
            model.gravity.assign(no_gravity)
            state_0.joint_qd.assign(target_qd)
            robot.step(state_0, state_1, control, None, dt)
            state_0.particle_f.zero_()
            model.particle_count = particle_count
            model.gravity.assign(gravity)
            pipeline.collide(state_0, contacts)
            cloth.step(state_0, state_1, control, contacts, dt)
            state_0, state_1 = state_1, state_0
    return host_state(state_0)


def through_the_manager(
    scene: ArmOnClothSceneCfg, coupler: CouplerProxyCfg | None = None, *, rebuild_bvh: bool = False
) -> dict[str, np.ndarray]:
    """One env step is one frame: ``decimation`` physics steps of one coupled solver step each, collision
    detection before each; a post-actuator callback writes the prescribed joint velocities before each.
    *rebuild_bvh*: a post-step callback rebuilds the cloth entry's self-contact BVH after every env step (the
    state the next frame starts from); it does host work on the CPU, so that stage runs eagerly."""
    coupler = scene.coupler_cfg() if coupler is None else coupler
    physics = NewtonCfg(decimation=SUBSTEPS, num_substeps=1, solver_cfg=coupler)
    sim = launch(scene, SimulationCfg(dt=FRAME_DT / SUBSTEPS, device="cpu", physics=physics))
    manager = sim.physics_manager
    try:
        target_qd = wp.zeros(manager.get_model().joint_dof_count, dtype=float, device="cpu")
        manager.register_post_actuator_callback(
            lambda: wp.launch(copy_floats, dim=target_qd.shape[0], inputs=[target_qd, manager.get_state_0().joint_qd])
        )
        if rebuild_bvh:
            manager.register_post_step_callback(
                lambda: manager.get_solver().solver("cloth").rebuild_bvh(manager.get_state_0()), graph_safe=False
            )
            assert manager.step_mode() == "partial", manager.eager_reason()
        else:
            assert manager.step_mode() == "captured", manager.eager_reason()
        for frame in range(FRAMES):
            target_qd.assign(joint_velocities(frame))
            manager.step()
        return host_state(manager.get_state_0())
    finally:
        sim.clear_instance()


def assert_bitwise_equal(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> None:
    for name, value in theirs.items():
        diff = float(np.abs(ours[name].astype(np.float64) - value).max())
        np.testing.assert_array_equal(ours[name], value, err_msg=f"{name}: max abs difference {diff}")


def test_kinematic_arm_on_cloth_matches_plain_newton_bitwise(device):  # ~8 s on a 2-core CPU
    if device != "cpu":
        pytest.skip("bitwise parity is a CPU property (sequential kernels)")
    scene = ArmOnClothSceneCfg()
    theirs = plain_newton(scene)
    assert_bitwise_equal(through_the_manager(scene), theirs)
    # The arm pressed the cloth: its middle went down by more than 8 cm.
    center = scene.cloth.center_particle()
    assert theirs["particle_q"][center, 2] < 0.2 - 0.08
    # The former one-way mapping (VBD integrating the proxies as 1e6-times heavier bodies) comes close here
    # (~2e-6 m) but is not the example.
    heavy = scene.coupler_cfg()
    heavy.entries[1].solver_cfg.integrate_with_external_rigid_solver = False
    heavy.proxies[0].kinematic, heavy.proxies[0].one_way = False, True
    assert np.abs(through_the_manager(scene, heavy)["particle_q"] - theirs["particle_q"]).max() > 0.0
    # The robot entry must step without gravity, as the example's robot does: with the model's, the arm sags
    # within each substep and drives the cloth elsewhere.
    falling = scene.coupler_cfg()
    falling.entries[0].gravity = None
    assert np.abs(through_the_manager(scene, falling)["body_q"] - theirs["body_q"]).max() > 1.0e-4


@pytest.mark.slow  # a second parity run (self-contact)
def test_kinematic_arm_on_self_contacting_cloth_matches_plain_newton_bitwise(device):
    """With cloth self-contact detected once per VBD step before initialization
    (``VBDSolverCfg.collision_frequency_type``), as ``cloth_franka`` schedules it."""
    if device != "cpu":
        pytest.skip("bitwise parity is a CPU property (sequential kernels)")
    scene = ArmOnClothSceneCfg(self_contact=True)
    theirs = plain_newton(scene)
    assert_bitwise_equal(through_the_manager(scene), theirs)
    # Self-contact is active: the cloth ends ~7 mm from where it ends without it.
    assert np.abs(plain_newton(ArmOnClothSceneCfg())["particle_q"] - theirs["particle_q"]).max() > 1.0e-3


@pytest.mark.slow  # a third parity run (BVH rebuilt every frame)
def test_rebuilding_the_self_contact_bvh_every_frame_matches_plain_newton_bitwise(device):
    """``cloth_franka`` rebuilds the self-contact BVH at the start of every frame; the same cadence through a
    post-step callback on the cloth entry's solver (the state after one env step is the next frame's start)."""
    if device != "cpu":
        pytest.skip("bitwise parity is a CPU property (sequential kernels)")
    scene = ArmOnClothSceneCfg(self_contact=True)
    assert_bitwise_equal(through_the_manager(scene, rebuild_bvh=True), plain_newton(scene, rebuild_bvh=True))


def test_mpm_kinematic_colliders_have_zero_mass():
    """``MPMSolverCfg.kinematic_colliders`` is ``mpm_anymal``'s ``setup_collider(body_mass=zeros)``."""
    from isaaclab_contrib.physics import MPMSolverCfg
    from isaaclab_contrib.physics.solvers.binding import binding_for

    builder = newton.ModelBuilder()
    newton.solvers.SolverImplicitMPM.register_custom_attributes(builder)
    body = builder.add_body(xform=wp.transform(wp.vec3(0.0, 0.0, 0.5), wp.quat_identity()))
    builder.add_shape_box(body, hx=0.1, hy=0.1, hz=0.1)
    for i in range(4):
        builder.add_particle(wp.vec3(0.01 * i, 0.0, 0.1), wp.vec3(0.0, 0.0, 0.0), mass=0.01, radius=0.01)
    model = builder.finalize(device="cpu")
    masses = {}
    for kinematic in (False, True):
        cfg = MPMSolverCfg(kinematic_colliders=kinematic)
        masses[kinematic] = binding_for(cfg).build(cfg, model)._mpm_model.collider_body_mass.numpy()
    assert masses[False][0] > 0.0
    assert masses[True][0] == 0.0
    np.testing.assert_array_equal(model.body_mass.numpy(), masses[False])  # the model keeps its masses
    with pytest.raises(TypeError, match=r"MPMSolverCfg\.kinematic_colliders must be a bool"):
        MPMSolverCfg(kinematic_colliders="yes").validate()
    from isaaclab_contrib.physics.solvers.mpm_colliders import MPMDeformableColliderCfg

    both = MPMSolverCfg(kinematic_colliders=True, deformable_colliders=[MPMDeformableColliderCfg(particles=[0, 1, 2])])
    with pytest.raises(ValueError, match=r"MPMSolverCfg\.kinematic_colliders=True with deformable_colliders"):
        both.validate()


# ------------------------------------------------------------------------------ hostile inputs
def _proxy(**mapping) -> CouplerProxyCfg:
    robot = CouplerEntryCfg(name="robot", solver_cfg=FeatherstoneSolverCfg(), bodies=["/World/arm"])
    cloth = CouplerEntryCfg(
        name="cloth", solver_cfg=VBDSolverCfg(integrate_with_external_rigid_solver=True), all_particles=True
    )
    fields = {"source": "robot", "destination": "cloth", "bodies": ["/World/arm"], "kinematic": True, **mapping}
    return CouplerProxyCfg(entries=[robot, cloth], proxies=[CouplerProxyMappingCfg(**fields)])


def test_the_kinematic_config_validates():
    cfg = _proxy()
    cfg.validate()
    assert cfg.proxies[0].newton_feedback() == (1.0, 0.0, "fixed")


@pytest.mark.parametrize(
    ("gravity", "error", "match"),
    [
        ((0.0, 0.0, float("nan")), ValueError, r"entries\['robot'\]\.gravity"),
        ((0.0, float("inf"), 0.0), ValueError, r"entries\['robot'\]\.gravity"),
        ((0.0, 0.0), (TypeError, ValueError), r"entries\['robot'\]\.gravity"),
        ("down", TypeError, r"entries\['robot'\]\.gravity"),
        ((0.0, True, 0.0), TypeError, r"entries\['robot'\]\.gravity"),
    ],
)
def test_entry_gravity_is_validated(gravity, error, match):
    cfg = _proxy()
    cfg.entries[0].gravity = gravity
    with pytest.raises(error, match=match):
        cfg.validate()


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("one_way", True, "kinematic=True prescribes .* one_way=True"),
        ("mode", "staggered", "kinematic=True prescribes .* mode='staggered'"),
        ("mass_scale", 2.0, "kinematic=True prescribes .* mass_scale=2.0"),
        ("proxy_relaxation", 0.5, "kinematic=True prescribes .* proxy_relaxation=0.5"),
        ("particles", [0], "kinematic=True drives bodies only"),
        ("joints", ["/World/arm/j"], "kinematic=True drives bodies only"),
        ("bodies", [], "a proxy mapping needs at least one body"),
    ],
)
def test_kinematic_mapping_refuses_what_it_overrides(field, value, match):
    with pytest.raises(ValueError, match=r"CouplerProxyCfg\.proxies\[0\].*" + match):
        _proxy(**{field: value}).validate()


def test_kinematic_mapping_is_a_bool():
    with pytest.raises(TypeError, match="kinematic must be a bool"):
        _proxy(kinematic="yes").validate()


def test_kinematic_needs_an_external_rigid_vbd_destination():
    cfg = _proxy()
    cfg.entries[1].solver_cfg = VBDSolverCfg()  # integrates its bodies itself
    with pytest.raises(ValueError, match=r"proxies\[0\]\.kinematic=True, but the destination entry 'cloth'"):
        cfg.validate()
    cfg.entries[1].solver_cfg = MJWarpSolverCfg()
    with pytest.raises(ValueError, match=r"needs? a VBDSolverCfg"):
        cfg.validate()


def test_an_external_rigid_destination_takes_only_kinematic_body_proxies():
    with pytest.raises(ValueError, match=r"proxies\[0\] proxies bodies into 'cloth'.*set kinematic=True"):
        _proxy(kinematic=False).validate()


def test_kinematic_destination_steps_once_per_coupled_step():
    cfg = _proxy()
    cfg.entries[1].substeps = 2
    with pytest.raises(ValueError, match="substeps=1, in_place=False"):
        cfg.validate()


def test_an_external_rigid_entry_owns_no_bodies():
    cfg = _proxy()
    cfg.entries[1].body_ids = [3]
    with pytest.raises(ValueError, match=r"entries\['cloth'\]: solver_cfg\.integrate_with_external_rigid_solver"):
        cfg.validate()


def test_admm_rejects_an_external_rigid_entry_with_bodies():
    cloth = CouplerEntryCfg(
        name="cloth", solver_cfg=VBDSolverCfg(integrate_with_external_rigid_solver=True), bodies=["/World/x"]
    )
    robot = CouplerEntryCfg(name="robot", solver_cfg=FeatherstoneSolverCfg(), bodies=["/World/arm"])
    with pytest.raises(ValueError, match="integrate_with_external_rigid_solver=True, but the entry owns bodies"):
        CouplerAdmmCfg(entries=[robot, cloth]).validate()
    cloth.bodies = []
    with pytest.raises(ValueError, match=r"CouplerAdmmCfg\.entries\['cloth'\].*use CouplerProxyCfg with kinematic"):
        CouplerAdmmCfg(entries=[robot, cloth]).validate()


def test_hostile_gravity_values_and_no_mutation():
    cfg = _proxy()
    cfg.entries[0].gravity = np.array([0.0, 0.0, -9.81])  # any sequence of three finite numbers
    cfg.validate()
    for bad in (np.array([0.0, np.nan, 0.0]), [0.0, 0.0, 0.0, 0.0], None.__class__, {"z": -9.81}):
        cfg.entries[0].gravity = bad
        with pytest.raises((TypeError, ValueError), match=r"entries\['robot'\]\.gravity"):
            cfg.validate()
    cfg.entries[0].gravity = (0.0, 0.0, 0.0)
    before = repr(cfg)
    cfg.validate()
    assert repr(cfg) == before


@pytest.mark.parametrize(
    ("fields", "error", "match"),
    [
        ({"collision_frequency_type": {"rigid": "pre_init"}}, ValueError, r"\['rigid'\]='pre_init'"),
        ({"collision_frequency_type": {"self": "none"}}, ValueError, "has the key 'self'"),
        ({"collision_frequency_type": {"soft_self_contact": "sometimes"}}, ValueError, "is not a frequency type"),
        ({"collision_frequency_type": {"soft_self_contact": 1}}, ValueError, "is not a frequency type"),
        ({"collision_frequency_type": [("rigid", "none")]}, TypeError, "must be a dict"),
        (
            {"particle_enable_self_contact": True, "collision_frequency_type": {"soft_self_contact": "none"}},
            ValueError,
            "particle_enable_self_contact=True",
        ),
        (
            {"particle_collision_detection_interval": 2, "collision_frequency_type": {"soft_self_contact": "pre_init"}},
            ValueError,
            "not both",
        ),
        ({"integrate_with_external_rigid_solver": 1}, TypeError, "must be a bool"),
        ({"rigid_contact_history": "yes"}, TypeError, "must be a bool or None"),
        (
            {"integrate_with_external_rigid_solver": True, "rigid_contact_history": True},
            ValueError,
            "Newton ignores it",
        ),
    ],
)
def test_vbd_collision_and_external_rigid_fields_are_validated(fields, error, match):
    with pytest.raises(error, match=r"VBDSolverCfg.*" + match):
        VBDSolverCfg(**fields).validate()


def test_vbd_fields_map_to_newton():
    from newton.solvers import SolverBase

    cfg = VBDSolverCfg(
        integrate_with_external_rigid_solver=True,
        rigid_contact_history=False,
        collision_frequency_type={"soft_self_contact": "pre_init", "rigid": "auto"},
    )
    before = repr(cfg)
    kwargs = cfg.solver_kwargs()
    assert repr(cfg) == before  # nothing the user passed is changed
    assert kwargs["integrate_with_external_rigid_solver"] is True
    assert kwargs["rigid_contact_history"] is False
    assert kwargs["collision_frequency_type"] == {
        SolverBase.CollisionSlot.SOFT_SELF_CONTACT: SolverBase.CollisionFrequencyType.PRE_INIT,
        SolverBase.CollisionSlot.RIGID: SolverBase.CollisionFrequencyType.AUTO,
    }
    assert "collision_frequency_type" not in VBDSolverCfg().solver_kwargs()  # empty: Newton's default schedule


def test_a_whole_model_vbd_with_external_rigid_bodies_is_refused():
    from isaaclab_contrib.physics.solvers.binding import binding_for

    builder = newton.ModelBuilder()
    builder.add_body(mass=1.0)
    model = builder.finalize(device="cpu")
    cfg = VBDSolverCfg(integrate_with_external_rigid_solver=True)
    with pytest.raises(ValueError, match="no other solver would move them"):
        binding_for(cfg).bind(cfg, model)
