"""USD-authored deformables: the stage of ``usd_cloth_on_robot`` (a robot and a cloth authored with the USD physics
schemas) builds a coupled scene whose entries own the cloth by prim path; the model holds what the stage
authors, and the USD written back reopens with the deformed points.

The expectations are read from the stage with ``pxr`` directly (points, triangles, the bound material's density
and the mesh's thickness), independently of Newton's importer and of the asset config.
"""

from __future__ import annotations

import numpy as np
import pytest
from pxr import Usd, UsdGeom

from isaaclab_contrib.physics import NewtonCfg, SimulationCfg
from isaaclab_contrib.scenes import build_model, launch
from isaaclab_contrib.scenes.usd_deformables import UsdDeformablesCfg
from isaaclab_coupling_configs.usd_cloth_on_robot import STAGE, UsdClothOnRobotSceneCfg

CLOTH = "/World/Cloth/sim"


def _authored():
    """Points, triangles and per-point lumped masses of the stage's cloth, from pxr alone."""
    stage = Usd.Stage.Open(STAGE)
    mesh = UsdGeom.Mesh(stage.GetPrimAtPath(CLOTH))
    world = np.array(UsdGeom.Xformable(mesh).ComputeLocalToWorldTransform(Usd.TimeCode.Default()))
    points = np.array(mesh.GetPointsAttr().Get(), dtype=np.float64)
    points = points @ world[:3, :3] + world[3, :3]
    tris = np.array(mesh.GetFaceVertexIndicesAttr().Get()).reshape(-1, 3)
    material = stage.GetPrimAtPath(mesh.GetPrim().GetRelationship("material:binding:physics").GetTargets()[0])
    density = material.GetAttribute("physics:density").Get()
    thickness = mesh.GetPrim().GetAttribute("physics:thicknesses").Get()[0]
    a, b, c = points[tris[:, 0]], points[tris[:, 1]], points[tris[:, 2]]
    areas = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
    masses = np.zeros(len(points))
    for k in range(3):
        np.add.at(masses, tris[:, k], density * thickness * areas / 3.0)
    return points, tris, masses


def test_the_model_holds_what_the_stage_authors():
    scene = UsdClothOnRobotSceneCfg(num_envs=2)
    model, coupler = build_model(scene)
    points, tris, masses = _authored()
    n = len(points)
    assert model.particle_count == 2 * n and model.tri_count == 2 * len(tris)
    q = model.particle_q.numpy().reshape(2, n, 3)
    m = model.particle_mass.numpy().reshape(2, n)
    bodies = {label: i for i, label in enumerate(model.body_label)}
    for env in range(2):
        origin = model.body_q.numpy()[bodies[f"/World/envs/env_{env}/Robot/World/Robot/post"], :3] - [0.0, 0.0, 0.25]
        assert q[env] == pytest.approx(points + origin, abs=1e-6)  # rest shape, in each env
        assert m[env] == pytest.approx(masses, rel=1e-5)  # density x thickness x area, lumped
    assert m[0].sum() == pytest.approx(200.0 * 0.001 * 0.6 * 0.6, rel=1e-5)
    assert model.particle_radius.numpy() == pytest.approx(0.01)  # the asset's contact radius, not thickness / 2
    # Ownership by prim path: the VBD entry owns every cloth particle, the robot entry the two bodies per env.
    entries = {e.name: e for e in coupler.entries}
    assert entries["cloth"].all_particles and entries["robot"].bodies == ["/World/envs/env_.*/Robot"]
    assert sorted(b for b in bodies if "/Robot/" in b) == sorted(
        f"/World/envs/env_{e}/Robot/World/Robot/{name}" for e in range(2) for name in ("bar", "post")
    )


def test_deformables_are_owned_by_prim_path_regex():
    cfg = UsdDeformablesCfg(asset_path=STAGE, root_path="/World/Cloth", entry="other", entries={"/World/Cl.*": "cloth"})
    assert cfg.entry_names() == {"cloth"}
    assert cfg.entry_particle_indices("cloth") == list(range(169)) and cfg.entry_particle_indices("other") == []
    cfg.entries = {"/World/Robot/.*": "cloth"}  # no match: the prim falls back to ``entry``
    assert cfg.entry_names() == {"other"}
    scene = UsdClothOnRobotSceneCfg()
    scene.cloth.entries = {"/World/Cloth/.*": "fabric"}
    with pytest.raises(ValueError, match=r"UsdClothOnRobotSceneCfg\.cloth\.entries \(value 'fabric'\) is not an entry"):
        scene.check_coupler(UsdClothOnRobotSceneCfg().coupler_cfg())
    with pytest.raises(ValueError, match="has rigid bodies below '/'"):
        UsdDeformablesCfg(asset_path=STAGE, root_path="/").particle_count()


@pytest.mark.slow  # ~3 s; test_usd keeps a stage write-back in the default set
def test_written_back_stage_reopens_with_the_deformed_points(tmp_path, device):
    scene = UsdClothOnRobotSceneCfg(num_envs=1)
    sim = launch(scene, SimulationCfg(dt=1.0 / 60.0, device=device, physics=NewtonCfg(decimation=1, num_substeps=8)))
    manager = sim.physics_manager
    path = tmp_path / "out.usda"
    out = Usd.Stage.CreateNew(str(path))
    try:
        assert manager.step_mode() == "captured"
        scene.write_usd(out, manager.get_state_0().particle_q.numpy(), 0)
        for _ in range(40):
            manager.step()
        final = manager.get_state_0().particle_q.numpy()
        scene.write_usd(out, final, 40)
        out.GetRootLayer().Save()
    finally:
        sim.clear_instance()
    points, tris, _ = _authored()
    reopened = Usd.Stage.Open(str(path))
    mesh = UsdGeom.Mesh(reopened.GetPrimAtPath(f"/World/envs/env_0/Deformables{CLOTH}"))
    attr = mesh.GetPointsAttr()
    assert attr.GetTimeSamples() == [0.0, 40.0]
    assert np.array(mesh.GetFaceVertexIndicesAttr().Get()).reshape(-1, 3).tolist() == tris.tolist()
    assert np.array(attr.Get(0.0)) == pytest.approx(points, abs=1e-6)
    written = np.array(attr.Get(40.0))
    assert written == pytest.approx(final, abs=1e-6)
    assert np.abs(written - points).max() > 0.05  # the cloth fell onto the bar and deformed
    assert written[:, 2].min() > 0.1  # held above the ground by the bar
