"""Robots from files: ``package://`` resolution against installed robot packages, the URDF asset config's
collision options, and a second robot of ``example-robot-data`` (the UR5, which no ready scene uses) loaded
through the same asset config into a coupled scene and stepped.

Expectations are independent of the project's code: the joint state the regexes set is read back from the
model, the collision shapes' Newton types, and the held pose is compared with Newton's own forward kinematics
(``newton.eval_fk``) of the commanded joint positions on a separately built plain model.
"""

from __future__ import annotations

import os
from pathlib import Path

import newton
import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.coupling import CouplerProxyCfg, CouplerProxyMappingCfg
from isaaclab_contrib.physics import (
    ImplicitActuatorCfg,
    MJWarpSolverCfg,
    NewtonCfg,
    SimulationCfg,
    VBDSolverCfg,
)
from isaaclab_contrib.scenes import (
    ArticulationCfg,
    ArticulationInitialStateCfg,
    InitialStateCfg,
    PinnedClothCfg,
    SceneBaseCfg,
    UrdfFileCfg,
    launch,
)
from isaaclab_contrib.scenes.asset_paths import (
    example_robot_data_path,
    find_package,
    resolve_asset_uri,
    resolve_urdf_text,
)
from isaaclab_contrib.utils.configclass import configclass

UR5 = "robots/ur_description/urdf/ur5_robot.urdf"
UR5_JOINTS = [
    "shoulder_pan_joint",
    "shoulder_lift_joint",
    "elbow_joint",
    "wrist_1_joint",
    "wrist_2_joint",
    "wrist_3_joint",
]
POSE = {"shoulder_lift_joint": -1.2, "elbow_joint": 1.6, "wrist_1_joint": -1.97, "wrist_2_joint": -1.5708}


# ---------------------------------------------------------------------------------------------- URI resolution
def test_package_uri_resolves_to_the_installed_example_robot_data():
    root = find_package("example-robot-data")
    assert (root / "package.xml").is_file()
    uri = "package://example-robot-data/robots/panda_description/meshes/collision/link0.stl"
    path = resolve_asset_uri(uri, base_dir="/nonexistent")
    assert Path(path).is_file() and path.endswith("panda_description/meshes/collision/link0.stl")


def test_resolution_names_what_was_searched_and_refuses_downloads(tmp_path):
    with pytest.raises(FileNotFoundError, match="robot package 'no_such_robot' is not installed; searched"):
        resolve_asset_uri("package://no_such_robot/meshes/a.stl", base_dir=tmp_path)
    with pytest.raises(ValueError, match="nothing is downloaded"):
        resolve_asset_uri("https://example.com/a.stl", base_dir=tmp_path)
    # A package given by the caller (the folder itself or its parent) and a relative path.
    pkg = tmp_path / "my_robot"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "meshes" / "a.stl").write_text("solid a\nendsolid a\n")
    for root in (pkg, tmp_path):
        assert resolve_asset_uri("package://my_robot/meshes/a.stl", tmp_path, [str(root)]) == str(
            (pkg / "meshes" / "a.stl").resolve()
        )
    assert resolve_asset_uri("meshes/a.stl", pkg) == str((pkg / "meshes" / "a.stl").resolve())
    assert resolve_asset_uri(f"file://{pkg / 'meshes' / 'a.stl'}", tmp_path) == str(
        (pkg / "meshes" / "a.stl").resolve()
    )


def test_resolved_urdf_names_only_absolute_existing_meshes():
    text = resolve_urdf_text(example_robot_data_path(UR5))
    import xml.etree.ElementTree as ET

    meshes = [m.get("filename") for m in ET.fromstring(text).iter("mesh")]
    assert meshes and all(os.path.isabs(f) and os.path.isfile(f) for f in meshes)
    assert any(f.endswith(".dae") for f in meshes)  # visual meshes (COLLADA: pycollada)
    dropped = [
        m.get("filename")
        for m in ET.fromstring(resolve_urdf_text(example_robot_data_path(UR5), drop_visuals=True)).iter("mesh")
    ]
    assert dropped and all(f.endswith(".stl") for f in dropped)  # collision meshes only


# ---------------------------------------------------------------------------------------------- asset config
def _ur5(collider_type: str = "convex_hull", load_visuals: bool = False, **kwargs) -> ArticulationCfg:
    return ArticulationCfg(
        prim_path="{ENV_REGEX_NS}/Robot",
        entry="robot",
        spawn=UrdfFileCfg(
            asset_path=example_robot_data_path(UR5),
            collider_type=collider_type,
            load_visuals=load_visuals,
            self_collision=False,
        ),
        init_state=ArticulationInitialStateCfg(joint_pos=dict(POSE), **kwargs),
        actuators={
            "arm": ImplicitActuatorCfg(
                joint_names_expr=["shoulder_.*", "elbow_joint", "wrist_[1-3]_joint"], stiffness=4.0e3, damping=200.0
            )
        },
    )


@pytest.mark.parametrize(
    ("collider_type", "shape_type"),
    [("convex_hull", newton.GeoType.CONVEX_MESH), ("bounding_box", newton.GeoType.BOX), ("mesh", newton.GeoType.MESH)],
)
def test_collision_options_and_initial_state_by_regex(collider_type, shape_type):
    cfg = _ur5(collider_type)
    cfg.init_state.pos = (0.1, -0.2, 0.3)
    cfg.validate()
    builder = newton.ModelBuilder()
    cfg.add_to(builder, "Robot")
    collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
    colliders = [s for s in range(builder.shape_count) if int(builder.shape_flags[s]) & collide]
    # Seven link meshes (base, shoulder, upper arm, forearm, three wrist links) and the end-effector's 1 cm box.
    assert [int(builder.shape_type[s]) for s in colliders] == [int(shape_type)] * 7 + [int(newton.GeoType.BOX)]
    if collider_type == "convex_hull":
        assert all(len(builder.shape_source[s].vertices) <= cfg.spawn.max_hull_vertices for s in colliders[:7])
    revolute = [j for j in range(builder.joint_count) if int(builder.joint_type[j]) == int(newton.JointType.REVOLUTE)]
    assert [builder.joint_label[j].rsplit("/", 1)[-1] for j in revolute] == UR5_JOINTS
    q = {builder.joint_label[j].rsplit("/", 1)[-1]: builder.joint_q[builder.joint_q_start[j]] for j in revolute}
    assert q == pytest.approx({"shoulder_pan_joint": 0.0, "wrist_3_joint": 0.0, **POSE})
    assert [builder.joint_target_ke[builder.joint_qd_start[j]] for j in revolute] == [4.0e3] * 6
    # Root pose: the base link sits at init_state.pos (the URDF's fixed base).
    model = builder.finalize(device="cpu")
    state = model.state()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state)
    base = next(i for i, label in enumerate(model.body_label) if label.endswith("/base_link"))
    assert state.body_q.numpy()[base, :3] == pytest.approx([0.1, -0.2, 0.3], abs=1e-6)


def test_visuals_load_through_pycollada_when_asked():
    def visual_shapes(load_visuals: bool) -> list[int]:
        builder = newton.ModelBuilder()
        _ur5(load_visuals=load_visuals).add_to(builder, "Robot")
        collide = int(newton.ShapeFlags.COLLIDE_SHAPES)
        return [
            int(builder.shape_type[s]) for s in range(builder.shape_count) if not int(builder.shape_flags[s]) & collide
        ]

    assert visual_shapes(False) == []
    visuals = visual_shapes(True)  # the links' COLLADA meshes (several sub-meshes per file)
    assert len(visuals) >= 7 and set(visuals) == {int(newton.GeoType.MESH)}


def test_bad_collider_type_is_named():
    cfg = _ur5("convex")
    with pytest.raises(ValueError, match=r"spawn.collider_type must be one of"):
        cfg.validate("UR5Cfg")


# ---------------------------------------------------------------------------------------------- coupled scene
@configclass
class UrOverClothSceneCfg(SceneBaseCfg):
    """A UR5 (MuJoCo-Warp, PD drives) holding its tool over a pinned cloth (VBD); the wrist links are mirrored
    into the cloth solver (proxy coupling)."""

    env_spacing: float = 2.0
    robot: ArticulationCfg = _ur5()
    cloth: PinnedClothCfg = PinnedClothCfg(
        entry="cloth", cells=6, cell_size=0.05, init_state=InitialStateCfg(pos=(0.6, 0.1, 0.25))
    )

    def coupler_cfg(self) -> CouplerProxyCfg:
        return CouplerProxyCfg(
            entries=[
                self.entry_cfg("robot", MJWarpSolverCfg(disable_contacts=True, use_mujoco_contacts=False)),
                self.entry_cfg("cloth", VBDSolverCfg(iterations=5)),
            ],
            proxies=[CouplerProxyMappingCfg(source="robot", destination="cloth", bodies=[".*/Robot/ur5/wrist_.*"])],
        )


def _tool_positions(model, joint_q) -> np.ndarray:
    state = model.state()
    newton.eval_fk(model, wp.array(joint_q, dtype=float, device=model.device), model.joint_qd, state)
    ids = [i for i, label in enumerate(model.body_label) if label.endswith("/tool0")]
    return state.body_q.numpy()[ids, :3]


def test_second_robot_in_a_coupled_scene_holds_its_pose(device):
    scene = UrOverClothSceneCfg(num_envs=2)
    sim_cfg = SimulationCfg(dt=1.0 / 60.0, device=device, physics=NewtonCfg(decimation=1, num_substeps=4))
    sim = launch(scene, sim_cfg)
    manager = sim.physics_manager
    try:
        assert manager.step_mode() == "captured"
        model = manager.get_model()
        plan = manager.get_coupling_plan()
        assert len(plan.entries["robot"].bodies) == 2 * 11 and len(plan.entries["cloth"].particles) == 2 * 49
        # Independent expectation: Newton's FK of the commanded pose on a plain model of the robot alone.
        plain = newton.ModelBuilder()
        _ur5().add_to(plain, "Robot")
        plain_model = plain.finalize(device="cpu")
        expected = _tool_positions(plain_model, plain_model.joint_q.numpy())[0]
        for _ in range(30):
            manager.step()
        state = manager.get_state_0()
        assert np.isfinite(state.body_q.numpy()).all() and np.isfinite(state.particle_q.numpy()).all()
        tool = [i for i, label in enumerate(model.body_label) if label.endswith("/tool0")]
        base = [i for i, label in enumerate(model.body_label) if label.endswith("/base_link")]
        held = state.body_q.numpy()[tool, :3] - state.body_q.numpy()[base, :3]  # the base is at the env origin
        # The PD drives hold the commanded pose against gravity within 1 cm (the gravity offset of the drives).
        assert np.abs(held - expected).max() < 0.01
        # The cloth moved under its own weight (the VBD entry stepped): its center sags below the pinned edges.
        q = state.particle_q.numpy().reshape(2, 49, 3)
        assert (q[:, 24, 2] < 0.25 - 0.005).all()
    finally:
        sim.clear_instance()
