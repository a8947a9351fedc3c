"""Deformable asset configs: a VBD cable (Newton's rod), a cloth from a triangle-mesh file and a soft body from a
tetrahedral-mesh file, each owned by the VBD entry its ``entry`` names.

Independent expectations: masses from density and geometry (the cable's capsules, the cloth's area, the soft
body's volume), the rest shape from the file's vertices under the asset's pose, and a cable dropped on the
ground coming to rest lying on it (its capsules' centers one radius up, its length kept).
"""

from __future__ import annotations

import math

import newton
import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.coupling import CouplerAdmmCfg
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, VBDSolverCfg
from isaaclab_contrib.scenes import (
    CableCfg,
    ClothMeshCfg,
    GroundPlaneCfg,
    InitialStateCfg,
    SceneBaseCfg,
    SoftMeshCfg,
    build_model,
    launch,
)
from isaaclab_contrib.utils.configclass import configclass


@configclass
class CableOnGroundSceneCfg(SceneBaseCfg):
    """A cable 5 cm above the ground; the VBD entry ``cable`` owns both."""

    env_spacing: float = 1.0
    ground: GroundPlaneCfg = GroundPlaneCfg(entry="cable")
    cable: CableCfg = CableCfg(
        entry="cable", length=0.4, segments=8, radius=0.01, init_state=InitialStateCfg(pos=(-0.2, 0.0, 0.06))
    )

    def coupler_cfg(self) -> CouplerAdmmCfg:
        # One entry: ADMM (Newton 1.8's proxy coupler does not step a lone entry without proxy mappings).
        return CouplerAdmmCfg(entries=[self.entry_cfg("cable", VBDSolverCfg(iterations=10))], contact_pairs=[])


def test_cable_asset_mass_labels_and_ownership():
    scene = CableOnGroundSceneCfg(num_envs=2)
    model, coupler = build_model(scene)
    entry = coupler.entries[0]
    assert entry.bodies == ["/World/envs/env_.*/Cable"] and entry.include_static_shapes
    labels = [label for label in model.body_label if label.startswith("/World/envs/env_1/Cable/")]
    assert labels == [f"/World/envs/env_1/Cable/rod_edge_body_{k}" for k in range(8)]
    # Mass of each capsule: density x (cylinder of the segment length + one sphere of the radius).
    seg = 0.4 / 8
    capsule = math.pi * 0.01**2 * seg + 4.0 / 3.0 * math.pi * 0.01**3
    assert model.body_mass.numpy()[:8] == pytest.approx([1400.0 * capsule] * 8, rel=1e-4)


@pytest.mark.slow  # ~4 s of cable settling; CI's slow tier runs it (no cheaper twin in the default set)
def test_cable_dropped_on_the_ground_comes_to_rest_lying_on_it(device):
    scene = CableOnGroundSceneCfg(num_envs=1)
    sim = launch(scene, SimulationCfg(dt=1.0 / 60.0, device=device, physics=NewtonCfg(decimation=1, num_substeps=8)))
    manager = sim.physics_manager
    try:
        assert manager.step_mode() == "captured"
        for _ in range(60):
            manager.step()
        body_q = manager.get_state_0().body_q.numpy()
        body_qd = manager.get_state_0().body_qd.numpy()
        assert body_q[:, 2] == pytest.approx([0.01] * 8, abs=2.0e-3)  # resting on the ground, one radius up
        centers = body_q[:, :3]
        assert np.linalg.norm(centers[-1] - centers[0]) == pytest.approx(0.4 - 0.4 / 8, rel=0.01)  # length kept
        assert np.abs(body_qd).max() < 0.05
    finally:
        sim.clear_instance()


def _grid_obj(path, n: int, size: float) -> np.ndarray:
    """An OBJ of a flat square of n x n cells (side *size*); returns its vertices."""
    xs = np.linspace(0.0, size, n + 1)
    vertices = np.array([(x, y, 0.0) for y in xs for x in xs])
    lines = [f"v {x} {y} {z}" for x, y, z in vertices]
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i + 1
            lines += [f"f {a} {a + 1} {a + n + 2}", f"f {a} {a + n + 2} {a + n + 1}"]
    path.write_text("\n".join(lines) + "\n")
    return vertices


def test_cloth_from_a_mesh_file(tmp_path):
    path = tmp_path / "square.obj"
    vertices = _grid_obj(path, 4, 0.2)
    rot = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 0.5)
    cfg = ClothMeshCfg(
        asset_path=str(path),
        entry="cloth",
        density=0.5,
        init_state=InitialStateCfg(pos=(0.1, 0.2, 0.3), rot=tuple(rot)),
    )
    cfg.validate()
    assert cfg.particle_count() == 25
    builder = newton.ModelBuilder()
    cfg.add_to(builder, "Cloth")
    model = builder.finalize(device="cpu")
    assert model.particle_count == 25 and model.tri_count == 32
    assert model.particle_mass.numpy().sum() == pytest.approx(0.5 * 0.2 * 0.2, rel=1e-5)  # density x area
    expected = np.array([wp.transform_point(wp.transform((0.1, 0.2, 0.3), rot), wp.vec3(*v)) for v in vertices])
    assert model.particle_q.numpy() == pytest.approx(expected, abs=1e-6)


def test_soft_body_from_a_tet_mesh_file(tmp_path):
    # A 2 x 1 x 1-cell block (0.1 m cells) written to a file with Newton's TetMesh.save.
    grid = newton.ModelBuilder()
    grid.add_soft_grid(
        pos=wp.vec3(0.0),
        rot=wp.quat_identity(),
        vel=wp.vec3(0.0),
        dim_x=2,
        dim_y=1,
        dim_z=1,
        cell_x=0.1,
        cell_y=0.1,
        cell_z=0.1,
        density=1.0,
        k_mu=1.0,
        k_lambda=1.0,
        k_damp=0.0,
    )
    vertices = np.array(grid.particle_q)
    mesh = newton.TetMesh(vertices, np.array(grid.tet_indices).reshape(-1))
    path = tmp_path / "block.npz"
    mesh.save(str(path))
    cfg = SoftMeshCfg(
        asset_path=str(path), entry="soft", density=500.0, init_state=InitialStateCfg(pos=(0.0, 0.0, 1.0))
    )
    cfg.validate()
    assert cfg.particle_count() == 12
    builder = newton.ModelBuilder()
    cfg.add_to(builder, "Soft")
    model = builder.finalize(device="cpu")
    assert model.particle_count == 12 and model.tet_count == mesh.tet_count
    assert model.particle_mass.numpy().sum() == pytest.approx(500.0 * 0.2 * 0.1 * 0.1, rel=1e-5)  # density x volume
    assert model.particle_q.numpy() == pytest.approx(vertices + np.array([0.0, 0.0, 1.0]), abs=1e-6)


def test_mesh_assets_name_a_missing_file():
    with pytest.raises(ValueError, match=r"Soft\.asset_path must name a tetrahedral-mesh file"):
        SoftMeshCfg().validate("Soft")
    with pytest.raises(ValueError, match=r"Cloth\.asset_path must name a mesh file"):
        ClothMeshCfg().validate("Cloth")
