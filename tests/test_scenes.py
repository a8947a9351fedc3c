"""The ready scenes run through the manager at small size with a physical check each; asset and scene configs."""

import math

import newton
import numpy as np
import pytest

from isaaclab_contrib.physics import IdealPDActuatorCfg
from isaaclab_contrib.scenes import (
    ArticulationCfg,
    ArticulationInitialStateCfg,
    CuboidCfg,
    GranularBedCfg,
    GroundPlaneCfg,
    InitialStateCfg,
    MjcfFileCfg,
    ParticleGridCfg,
    PinnedClothCfg,
    RigidObjectCfg,
    SceneBaseCfg,
    SoftBlockCfg,
    SphereCfg,
    build_model,
    env_particle_blocks,
    get_scene,
    launch,
    scene_names,
)
from isaaclab_contrib.utils.configclass import MissingFieldError, configclass
from isaaclab_coupling_configs.ant_on_hammock import AntOnHammockSceneCfg
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg
from isaaclab_coupling_configs.grains_on_cloth import GrainsOnClothSceneCfg
from isaaclab_coupling_configs.tool_in_sand import ToolInSandSceneCfg


def run_scene(name: str, scene_cfg, frames: int, device: str):
    spec = get_scene(name)
    sim = launch(scene_cfg, spec.simulation_cfg(device=device))
    manager = sim.physics_manager
    try:
        for _ in range(frames):
            manager.step()
        state = manager.get_state_0()
        body_q = state.body_q.numpy() if state.body_q is not None else np.zeros((0, 7))
        particle_q = state.particle_q.numpy() if state.particle_q is not None else np.zeros((0, 3))
    finally:
        sim.clear_instance()
    assert np.isfinite(body_q).all() and np.isfinite(particle_q).all()
    return body_q, particle_q


# ---------------------------------------------------------------------------------------- the ready scenes
@pytest.mark.slow  # ~22 s on a 2-core CPU with a warm kernel cache; `scripts/run.py`'s test steps the ant fast
def test_ant_lands_in_the_hammock(device):
    scene = AntOnHammockSceneCfg(num_envs=1)
    body_q, particle_q = run_scene("ant_on_hammock", scene, frames=40, device=device)
    lowest = particle_q[:, 2].min()
    torso = body_q[0, 2]
    height = scene.hammock.height
    assert lowest < height - 0.02  # the hammock carries the ant and sags
    assert lowest > height - 0.3  # ... within reason (no tearing or free fall)
    assert torso > lowest  # the ant is on top of the hammock, not through it
    assert np.all(body_q[:, 2] > lowest - 0.05)
    assert torso < height + 0.25  # it fell onto it (the torso starts 0.25 m above the hammock)


@pytest.mark.slow  # ~5 s; the proxy box on cloth (test_construction) stays in the default set
def test_box_presses_into_cloth_through_proxy(device):
    scene = BoxOnClothSceneCfg(num_envs=2)
    body_q, particle_q = run_scene("box_on_cloth", scene, frames=45, device=device)
    bottom = body_q[:, 2] - 0.5 * scene.box.spawn.size[2]
    lowest = particle_q.reshape(2, -1, 3)[:, :, 2].min(axis=1)
    height = scene.cloth.height
    assert np.all(lowest < height - 0.005)  # pressed in
    assert np.all(bottom > lowest - 0.02)  # on the cloth, not through it
    assert np.all(bottom > height - 0.08)


def test_grain_bed_rests_on_cloth(device):
    scene = GrainsOnClothSceneCfg(num_envs=1)
    _, particle_q = run_scene("grains_on_cloth", scene, frames=60, device=device)
    cloth_z = particle_q[scene.particle_ids("cloth"), 2]
    grains = scene.particle_ids("grains")
    grain_z = particle_q[grains, 2]
    height = scene.cloth.height
    assert cloth_z.min() < height - 0.01  # the cloth carries the bed
    assert cloth_z.min() > height - 0.25
    assert grain_z.min() > cloth_z.min()  # no grain fell through
    assert np.all(np.abs(particle_q[grains, :2]) < 0.3)  # the bed stayed on the cloth


def test_the_grain_solver_sees_the_cloth_contact_only():
    """The XPBD grain entry receives the cloth as proxy particles but not its triangles and edges: the
    cloth's elasticity is solved once, by VBD."""
    from isaaclab_contrib.coupling import build_coupled_solver

    model, cfg = build_model(GrainsOnClothSceneCfg(num_envs=1))
    solver = build_coupled_solver(model, cfg)
    assert model.tri_count > 0 and model.edge_count > 0
    grains, cloth = solver.view("grains"), solver.view("cloth")
    assert grains.tri_count == grains.edge_count == grains.spring_count == grains.tet_count == 0
    assert (cloth.tri_count, cloth.edge_count) == (model.tri_count, model.edge_count)


@pytest.mark.slow  # an implicit-MPM scene run to rest
def test_tool_sinks_into_sand_and_is_held(device):
    scene = ToolInSandSceneCfg(num_envs=1)
    scene.sand.half_extent, scene.sand.height = 0.08, 0.06
    scene.tool.init_state.pos = (0.0, 0.0, 0.06 + 0.08 + 0.04)
    body_q, particle_q = run_scene("tool_in_sand", scene, frames=40, device=device)
    half = 0.5 * scene.tool.spawn.size[2]
    bottom = body_q[0, 2] - half
    assert body_q[0, 2] < scene.tool.init_state.pos[2] - 0.08  # it reached the sand
    assert bottom > 0.0  # held by the sand above the ground
    assert bottom < scene.sand.height  # and sank into it
    assert particle_q[:, 2].min() > -0.01


# ---------------------------------------------------------------------------------------- derived couplers
def test_particle_ids_and_entries_follow_the_assets():
    assert env_particle_blocks(2, 3, 2) == [[0, 1, 2, 5, 6, 7], [3, 4, 8, 9]]
    scene = GrainsOnClothSceneCfg(num_envs=3)
    grains, cloth = scene.particle_ids("grains"), scene.particle_ids("cloth")
    assert (grains, cloth) == tuple(env_particle_blocks(3, 32, 81))  # grains first in each env
    coupler = scene.coupler_cfg()
    assert [e.name for e in coupler.entries] == ["cloth", "grains"]
    assert coupler.entries[0].particles == cloth and coupler.entries[1].particles == grains
    assert coupler.proxies[0].particles == cloth
    # An entry owning every particle gets all_particles; one owning the ground sees static shapes.
    box = BoxOnClothSceneCfg().coupler_cfg()
    assert box.entries[0].bodies == ["/World/envs/env_.*/Box"] and not box.entries[0].particles
    assert box.entries[1].all_particles and box.entries[1].bodies == []
    tool = ToolInSandSceneCfg().coupler_cfg()
    assert tool.entries[0].include_static_shapes and not tool.entries[1].include_static_shapes
    with pytest.raises(ValueError, match=r"GrainsOnClothSceneCfg: no asset is owned by entry 'sand'"):
        scene.entry_cfg("sand", None)
    with pytest.raises(KeyError, match="has no asset 'box'"):
        scene.particle_ids("box")
    wrong = BoxOnClothSceneCfg()
    wrong.box.entry = "rigid"
    with pytest.raises(ValueError, match=r"BoxOnClothSceneCfg\.box\.entry='rigid' is not an entry of the coupler"):
        build_model(wrong, BoxOnClothSceneCfg().coupler_cfg())


def test_global_assets_keep_their_place_before_or_after_the_envs():
    for scene, first in ((ToolInSandSceneCfg(num_envs=2), False), (GrainsOnClothSceneCfg(num_envs=2), None)):
        model, _ = build_model(scene)
        if first is None:
            assert "/World/ground" not in model.shape_label
        else:
            assert model.shape_label[-1] == "/World/ground"  # declared after the envs: added after them
    from isaaclab_coupling_configs.xpbd_vbd_coupled import XpbdVbdCoupledSceneCfg

    scene = XpbdVbdCoupledSceneCfg(num_envs=2)
    model, _ = build_model(scene)
    assert model.shape_label[0] == "/World/ground"  # declared first: added before the envs
    scene.ground = None
    assert "/World/ground" not in build_model(scene)[0].shape_label


# ---------------------------------------------------------------------------------------- asset configs
@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: PinnedClothCfg(cells=-1), ValueError, r"PinnedClothCfg\.cells must be >= 1, got -1"),
        (lambda: PinnedClothCfg(cells=2.5), TypeError, r"PinnedClothCfg\.cells must be an integer, got float 2.5"),
        (lambda: PinnedClothCfg(cell_size=float("nan")), ValueError, r"PinnedClothCfg\.cell_size must not be NaN"),
        (lambda: PinnedClothCfg(particle_mass=-0.1), ValueError, r"PinnedClothCfg\.particle_mass must be > 0"),
        (lambda: PinnedClothCfg(stiffness="stiff"), TypeError, r"PinnedClothCfg\.stiffness must be a real number"),
        (lambda: PinnedClothCfg(spring_stiffness=-1.0), ValueError, r"PinnedClothCfg\.spring_stiffness must be >= 0"),
        (lambda: PinnedClothCfg(fix_left=1), TypeError, r"PinnedClothCfg\.fix_left must be a bool"),
        (
            lambda: PinnedClothCfg(init_state=InitialStateCfg(pos=(0.0, float("nan"), 0.0))),
            ValueError,
            r"PinnedClothCfg\.init_state\.pos\[1\] must not be NaN",
        ),
        (
            lambda: PinnedClothCfg(init_state=InitialStateCfg(rot=(0.0, 0.0, 0.7071068, 0.7071068))),
            ValueError,
            r"PinnedClothCfg\.init_state\.rot must be the identity",
        ),
        (
            lambda: RigidObjectCfg(prim_path="/World/Box", init_state=InitialStateCfg(rot=(0.0, 0.0, 1.0, 1.0))),
            ValueError,
            r"RigidObjectCfg\.init_state\.rot must be a unit quaternion",
        ),
        (
            lambda: RigidObjectCfg(prim_path="Box", spawn=CuboidCfg()),
            ValueError,
            r"RigidObjectCfg\.prim_path must be '\{ENV_REGEX_NS\}/Name'",
        ),
        (
            lambda: RigidObjectCfg(prim_path="{ENV_REGEX_NS}/Box.*"),
            ValueError,
            r"RigidObjectCfg\.prim_path=.*plain path",
        ),
        (lambda: RigidObjectCfg(prim_path="/World/Box", entry=""), ValueError, r"RigidObjectCfg\.entry must be"),
        (
            lambda: RigidObjectCfg(prim_path="/World/Box", spawn=CuboidCfg(size=(0.1, -0.1, 0.1))),
            ValueError,
            r"RigidObjectCfg\.spawn\.size\[1\] must be > 0, got -0.1",
        ),
        (
            lambda: RigidObjectCfg(prim_path="/World/Ball", spawn=SphereCfg(radius=0.0)),
            ValueError,
            r"RigidObjectCfg\.spawn\.radius must be > 0",
        ),
        (
            lambda: RigidObjectCfg(prim_path="/World/Box", spawn=PinnedClothCfg()),
            TypeError,
            r"RigidObjectCfg\.spawn must be a CuboidCfg or a SphereCfg",
        ),
        (
            lambda: RigidObjectCfg(prim_path="/World/Box", density=-1.0),
            ValueError,
            r"RigidObjectCfg\.density must be > 0",
        ),
        (lambda: RigidObjectCfg(prim_path="/World/Box", body_name="a/b"), ValueError, r"RigidObjectCfg\.body_name"),
        (lambda: RigidObjectCfg(), MissingFieldError, r"RigidObjectCfg: required field\(s\) not set: prim_path"),
        (lambda: GranularBedCfg(voxel_size="fine"), TypeError, r"GranularBedCfg\.voxel_size must be a real number"),
        (lambda: GranularBedCfg(height=-0.1), ValueError, r"GranularBedCfg\.height must be > 0"),
        (lambda: ParticleGridCfg(dims=(4, 0, 2)), ValueError, r"ParticleGridCfg\.dims\[1\] must be >= 1, got 0"),
        (lambda: ParticleGridCfg(dims=(4, 4)), ValueError, r"ParticleGridCfg\.dims must have 3 components"),
        (lambda: SoftBlockCfg(cell_size=(0.1, -0.1, 0.1)), ValueError, r"SoftBlockCfg\.cell_size\[1\] must be > 0"),
        (lambda: SoftBlockCfg(k_mu=float("inf")), ValueError, r"SoftBlockCfg\.k_mu must be finite"),
        (
            lambda: GroundPlaneCfg(prim_path="{ENV_REGEX_NS}/Ground"),
            ValueError,
            r"GroundPlaneCfg\.prim_path must be a global",
        ),
        (lambda: ArticulationCfg(), ValueError, r"ArticulationCfg\.spawn is None: give the articulation file"),
        (
            lambda: ArticulationCfg(spawn=MjcfFileCfg()),
            MissingFieldError,
            r"ArticulationCfg: required field\(s\) not set: spawn\.asset_path",
        ),
        (
            lambda: ArticulationCfg(
                spawn=MjcfFileCfg(asset_path="robot.xml"),
                init_state=ArticulationInitialStateCfg(joint_pos={"hip_.*": float("nan")}),
            ),
            ValueError,
            r"ArticulationCfg\.init_state\.joint_pos\['hip_\.\*'\] must be finite",
        ),
        (
            lambda: ArticulationCfg(
                spawn=MjcfFileCfg(asset_path="robot.xml"),
                actuators={"legs": IdealPDActuatorCfg(joint_names_expr=["hip_.*"], stiffness=-4.0, damping=0.1)},
            ),
            ValueError,
            r"ArticulationCfg\.actuators\['legs'\]: IdealPDActuatorCfg\.stiffness must be >= 0",
        ),
        (
            lambda: ArticulationCfg(spawn=MjcfFileCfg(asset_path="robot.xml"), actuators={"legs": 4.0}),
            TypeError,
            r"ArticulationCfg\.actuators\['legs'\] must be an actuator config",
        ),
    ],
)
def test_asset_configs_refuse_bad_values_naming_class_and_field(make, error, match):
    with pytest.raises(error, match=match):
        make().validate()


def test_scene_errors_name_the_scene_and_the_field_path_before_anything_is_built():
    scene = BoxOnClothSceneCfg()
    scene.cloth.cells = 0
    with pytest.raises(ValueError, match=r"^BoxOnClothSceneCfg\.cloth\.cells must be >= 1, got 0$"):
        scene.build(None)  # validated before anything is built
    scene = BoxOnClothSceneCfg(num_envs=0)
    with pytest.raises(ValueError, match=r"BoxOnClothSceneCfg\.num_envs must be >= 1, got 0"):
        scene.validate()
    scene = BoxOnClothSceneCfg()
    scene.box.prim_path = "{ENV_REGEX_NS}/Cloth"
    with pytest.raises(
        ValueError, match=r"BoxOnClothSceneCfg\.cloth\.prim_path=.*also the prim_path of BoxOnClothSceneCfg\.box"
    ):
        scene.validate()
    with pytest.raises(ValueError, match=r"BoxOnClothSceneCfg\.coupling must be one of 'proxy', 'admm'"):
        BoxOnClothSceneCfg(coupling="fem").validate()


# ---------------------------------------------------------------------------------------- building
def model_arrays(model: newton.Model) -> dict:
    """The model's arrays that the build defines (Newton leaves a few allocated but unwritten, e.g. particle colours)."""
    names = [
        "body_q", "body_mass", "body_inertia", "body_com", "body_world", "joint_q", "joint_qd", "joint_type",
        "joint_parent", "joint_child", "joint_X_p", "joint_X_c", "joint_target_ke", "joint_target_kd", "shape_body",
        "shape_transform", "shape_scale", "shape_type", "shape_world", "particle_q", "particle_qd", "particle_mass",
        "particle_radius", "particle_flags", "particle_world", "tri_indices", "tri_materials", "edge_indices",
        "edge_bending_properties", "spring_indices", "spring_stiffness", "tet_indices", "tet_materials",
    ]  # fmt: skip
    arrays = {name: getattr(model, name).numpy().copy() for name in names if getattr(model, name) is not None}
    arrays.update(body_label=list(model.body_label), joint_label=list(model.joint_label))
    arrays.update(shape_label=list(model.shape_label))
    return arrays


@pytest.mark.parametrize("name", ["box_on_cloth", "mujoco_vbd_admm", "proxy_joint_gripper_harsh", "ant_on_hammock"])
def test_building_a_scene_twice_gives_the_same_model_and_leaves_the_config_as_it_was(name):
    scene = get_scene(name).scene_cfg(num_envs=2)
    before = repr(scene.to_dict())
    first, coupler = build_model(scene)
    second, again = build_model(scene)
    assert repr(scene.to_dict()) == before  # nothing the build does changes the config
    assert repr(coupler.to_dict()) == repr(again.to_dict())
    a, b = model_arrays(first), model_arrays(second)
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        else:
            assert a[key] == b[key], key


def test_every_registered_scene_builds_with_its_labels_and_particle_counts():
    for name in scene_names():
        scene = get_scene(name).scene_cfg(num_envs=2)
        model, coupler = build_model(scene)
        assert model.world_count == 2, name
        assert model.particle_count == sum(len(scene.particle_ids(n)) for n in scene.assets()), name
        for asset_name, asset in scene.assets().items():
            if asset.owns_bodies():
                own = [label for label in model.body_label if label.startswith(asset.label_in_env(1))]
                assert own, (name, asset_name)
        assert set(coupler.entry_names()) == {a.entry for a in scene.assets().values() if a.entry}, name


def test_articulation_initial_joint_positions_apply_by_regex():
    scene = AntOnHammockSceneCfg(num_envs=2)
    scene.robot.init_state.joint_pos = {"hip_[12]": 0.3, "ankle_4": 1.0}  # within the ankle's [30, 100] degrees
    model, _ = build_model(scene)
    q, starts = model.joint_q.numpy(), model.joint_q_start.numpy()
    values = {label: float(q[starts[j]]) for j, label in enumerate(model.joint_label)}
    for env in range(2):
        prefix = f"/World/envs/env_{env}/Robot/"
        hip = next(label for label in values if label.startswith(prefix) and label.endswith("/hip_1"))
        ankle = next(label for label in values if label.startswith(prefix) and label.endswith("/ankle_4"))
        assert math.isclose(values[hip], 0.3, abs_tol=1e-7) and math.isclose(values[ankle], 1.0, abs_tol=1e-7)
    scene.robot.init_state.joint_pos = {"knee_.*": 0.1}
    with pytest.raises(ValueError, match=r"init_state\.joint_pos='knee_\.\*' matches no joint label"):
        build_model(scene)


def test_a_scene_of_asset_configs_builds_itself():
    """A new scene is a config class: assets as fields, a coupler from entry_cfg()."""
    from isaaclab_contrib.coupling import CouplerAdmmCfg
    from isaaclab_contrib.physics import SteelSolverCfg, VBDSolverCfg

    @configclass
    class BallsOnClothSceneCfg(SceneBaseCfg):
        env_spacing: float = 1.5
        ground: GroundPlaneCfg = GroundPlaneCfg()
        ball: RigidObjectCfg = RigidObjectCfg(
            prim_path="{ENV_REGEX_NS}/Ball", entry="balls", spawn=SphereCfg(radius=0.03), density=500.0
        )
        cloth: PinnedClothCfg = PinnedClothCfg(entry="cloth", cells=4, init_state=InitialStateCfg(pos=(0, 0, 0.2)))
        bed: ParticleGridCfg = ParticleGridCfg(
            entry="cloth", dims=(2, 2, 1), init_state=InitialStateCfg(pos=(0, 0, 0.5))
        )

        def coupler_cfg(self):
            entries = [self.entry_cfg("balls", SteelSolverCfg()), self.entry_cfg("cloth", VBDSolverCfg())]
            return CouplerAdmmCfg(entries=entries, contact_pairs=[("balls", "cloth")])

    scene = BallsOnClothSceneCfg(num_envs=3)
    scene.ball.init_state.pos = (0.0, 0.0, 0.3)
    model, coupler = build_model(scene)
    assert model.body_label == [f"/World/envs/env_{i}/Ball/body" for i in range(3)]
    assert model.shape_label[0] == "/World/ground"
    assert model.particle_count == 3 * (25 + 4)
    assert coupler.entries[1].all_particles  # the cloth entry owns the cloth and the grains
    np.testing.assert_allclose(model.body_q.numpy()[:, 2], 0.3)


def test_code_built_articulations_get_their_own_actuators():
    """Two arms in one env: each arm's actuator group takes only its own joints."""
    from isaaclab_contrib.coupling import CouplerAdmmCfg
    from isaaclab_contrib.physics import SteelSolverCfg
    from isaaclab_coupling_configs.arm_press_cloth_task import TwoLinkArmCfg

    @configclass
    class TwoArmsSceneCfg(SceneBaseCfg):
        env_spacing: float = 1.0
        left: TwoLinkArmCfg = TwoLinkArmCfg(prim_path="{ENV_REGEX_NS}/Left", entry="arms")
        right: TwoLinkArmCfg = TwoLinkArmCfg(
            prim_path="{ENV_REGEX_NS}/Right", entry="arms", init_state=ArticulationInitialStateCfg(pos=(0.5, 0, 0))
        )

        def coupler_cfg(self):
            return CouplerAdmmCfg(entries=[self.entry_cfg("arms", SteelSolverCfg())])

    model, coupler = build_model(TwoArmsSceneCfg(num_envs=2))
    assert coupler.entries[0].bodies == ["/World/envs/env_.*/Left", "/World/envs/env_.*/Right"]
    dofs = [i for actuator in model.actuators for i in actuator.indices.numpy().tolist()]
    starts = model.joint_qd_start.numpy()
    arm_dofs = [int(starts[j]) for j, label in enumerate(model.joint_label) if label.endswith(("/shoulder", "/elbow"))]
    assert len(arm_dofs) == 8  # shoulder and elbow of each arm, in 2 envs
    assert sorted(dofs) == sorted(arm_dofs)  # every arm joint actuated once: no group took the other arm's joints
