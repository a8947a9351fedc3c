"""Meshes read from files: elements Newton would drop are named before the build, the per-process mesh caches
follow the file's content, and the USD writers check the shapes they are given.

Expectations are independent of the project's code: masses are density x area (or volume) of the mesh as
written, and the particle count of a rewritten file is the one of the file on disk.
"""

from __future__ import annotations

import time
import warnings

import newton
import numpy as np
import pytest
from pxr import Usd, UsdGeom

from isaaclab_contrib.physics.usd import write_body_transforms, write_points
from isaaclab_contrib.scenes import ClothMeshCfg, SoftMeshCfg, UsdDeformablesCfg

STAGE = "configs/assets/usd_cloth_on_robot.usda"


def _obj(path, vertices, faces) -> str:
    lines = [f"v {x} {y} {z}" for x, y, z in vertices] + [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _grid(n: int, size: float):
    """An (n + 1) x (n + 1) vertex square of side *size* in the z = 0 plane, two triangles per cell."""
    vertices = [(size * i / n, size * j / n, 0.0) for j in range(n + 1) for i in range(n + 1)]
    faces = []
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i
            faces += [(a, a + 1, a + n + 2), (a, a + n + 2, a + n + 1)]
    return vertices, faces


def _build(cfg) -> newton.ModelBuilder:
    builder = newton.ModelBuilder()
    cfg.validate()
    cfg.add_to(builder, "Asset")
    return builder


def _tet_file(path, vertices, tets) -> str:
    newton.TetMesh(np.asarray(vertices, dtype=float), np.asarray(tets).reshape(-1)).save(str(path))
    return str(path)


UNIT_TET = [(0.0, 0.0, 0.0), (0.1, 0.0, 0.0), (0.0, 0.1, 0.0), (0.0, 0.0, 0.1)]


# ------------------------------------------------------------------------------------------- cloth triangles
def test_a_cloth_of_zero_area_triangles_is_refused_not_built_as_massless_particles(tmp_path):
    # Four collinear vertices: both triangles have zero area, Newton would drop both (4 massless particles).
    path = _obj(tmp_path / "line.obj", [(0, 0, 0), (0.1, 0, 0), (0.2, 0, 0), (0.3, 0, 0)], [(0, 1, 2), (1, 2, 3)])
    with pytest.raises(ValueError) as info:
        _build(ClothMeshCfg(asset_path=path))
    message = str(info.value)
    assert "ClothMeshCfg('{ENV_REGEX_NS}/Cloth').asset_path" in message and path in message
    assert "2 triangles of zero area" in message and "massless" in message


def test_one_degenerate_triangle_among_good_ones_is_a_warning_and_the_cloth_keeps_its_mass(tmp_path):
    vertices, faces = _grid(2, 0.2)
    faces.append((0, 1, 2))  # three vertices of the bottom row: collinear, zero area
    path = _obj(tmp_path / "grid.obj", vertices, faces)
    with pytest.warns(UserWarning, match=r"1 triangles of zero area \(triangles 8\); they are dropped"):
        builder = _build(ClothMeshCfg(asset_path=path, density=0.5))
    mass = np.asarray(builder.particle_mass)
    assert len(mass) == 9 and (mass > 0).all()
    assert mass.sum() == pytest.approx(0.5 * 0.2 * 0.2, rel=1e-5)  # density x area of the square
    assert builder.tri_count == 8


def test_a_vertex_in_no_element_is_refused(tmp_path):
    # trimesh drops a stray OBJ vertex on reading (4 particles); a tet-mesh file keeps it: refused as massless.
    vertices, faces = _grid(1, 0.1)
    assert (
        ClothMeshCfg(asset_path=_obj(tmp_path / "stray.obj", [*vertices, (5.0, 5.0, 5.0)], faces)).particle_count() == 4
    )
    path = _tet_file(tmp_path / "stray.npz", [*UNIT_TET, (1.0, 1.0, 1.0)], [(0, 1, 2, 3)])
    with pytest.raises(ValueError, match=r"1 vertices in no tetrahedron \(vertices 4\).*massless"):
        _build(SoftMeshCfg(asset_path=path))


def test_a_cloth_mesh_with_a_good_surface_falls_freely(tmp_path):
    """What the checks let through simulates: a 3 x 3 cloth in free fall drops g t^2 / 2 in every particle."""
    vertices, faces = _grid(2, 0.2)
    builder = _build(ClothMeshCfg(asset_path=_obj(tmp_path / "cloth.obj", vertices, faces)))
    model = builder.finalize(device="cpu")
    solver = newton.solvers.SolverXPBD(model)
    state_0, state_1, control = model.state(), model.state(), model.control()
    dt, steps = 1.0e-3, 100
    for _ in range(steps):
        state_0.clear_forces()
        solver.step(state_0, state_1, control, None, dt)
        state_0, state_1 = state_1, state_0
    drop = model.particle_q.numpy()[:, 2] - state_0.particle_q.numpy()[:, 2]
    t = steps * dt
    assert drop == pytest.approx(np.full(9, 0.5 * 9.81 * t * t), abs=9.81 * dt * t)


# ------------------------------------------------------------------------------------------- soft-body tetrahedra
def test_an_inverted_tetrahedron_is_refused_naming_it(tmp_path):
    inverted = [(0, 2, 1, 3)]  # two vertices swapped: negative volume, Newton would drop it (massless particles)
    path = _tet_file(tmp_path / "inverted.npz", UNIT_TET, inverted)
    with pytest.raises(ValueError) as info:
        _build(SoftMeshCfg(asset_path=path))
    message = str(info.value)
    assert "SoftMeshCfg('{ENV_REGEX_NS}/SoftBody').asset_path" in message and path in message
    assert "1 inverted tetrahedra" in message and "vertices [0, 2, 1, 3]" in message and "swap two vertices" in message


def test_a_flat_tetrahedron_that_would_leave_a_vertex_massless_is_refused(tmp_path):
    flat = [*UNIT_TET[:3], (0.05, 0.05, 0.0)]  # the fourth vertex in the plane of the others
    path = _tet_file(tmp_path / "flat.npz", flat, [(0, 1, 2, 3)])
    with pytest.raises(ValueError, match=r"1 tetrahedra of zero volume .* no tetrahedron is left"):
        _build(SoftMeshCfg(asset_path=path))


def test_a_good_tetrahedron_gets_density_times_volume(tmp_path):
    builder = _build(SoftMeshCfg(asset_path=_tet_file(tmp_path / "tet.npz", UNIT_TET, [(0, 1, 2, 3)]), density=600.0))
    assert builder.tet_count == 1
    assert sum(builder.particle_mass) == pytest.approx(600.0 * 0.1**3 / 6.0, rel=1e-5)


# ------------------------------------------------------------------------------------------- caches follow the file
def _rewrite(path, write) -> None:
    """Write the file again; its modification time moves on even on coarse-clock file systems."""
    before = path.stat().st_mtime_ns
    write()
    while path.stat().st_mtime_ns == before:
        time.sleep(0.01)
        write()


def test_a_rewritten_cloth_file_is_read_again(tmp_path):
    path = tmp_path / "cloth.obj"
    _obj(path, *_grid(2, 0.2))  # 9 particles
    cfg = ClothMeshCfg(asset_path=str(path))
    assert cfg.particle_count() == 9 and _build(cfg).particle_count == 9
    _rewrite(path, lambda: _obj(path, *_grid(4, 0.2)))  # 25 particles, same path
    assert cfg.particle_count() == 25 and _build(cfg).particle_count == 25
    assert ClothMeshCfg(asset_path=str(path)).particle_count() == 25


def test_a_rewritten_tet_file_is_read_again(tmp_path):
    path = tmp_path / "body.npz"
    _tet_file(path, UNIT_TET, [(0, 1, 2, 3)])
    cfg = SoftMeshCfg(asset_path=str(path))
    assert cfg.particle_count() == 4
    two = [*UNIT_TET, (0.1, 0.1, 0.1)]
    _rewrite(path, lambda: _tet_file(path, two, [(0, 1, 2, 3), _oriented(two, (1, 2, 3, 4))]))
    assert cfg.particle_count() == 5 and _build(cfg).tet_count == 2


def _oriented(vertices, tet):
    """*tet* with its last two vertices swapped when its signed volume is negative."""
    p = np.asarray(vertices)[list(tet)]
    volume = np.linalg.det(np.stack([p[1] - p[0], p[2] - p[0], p[3] - p[0]], axis=-1))
    return tet if volume > 0 else (tet[0], tet[1], tet[3], tet[2])


def test_a_rewritten_stage_is_imported_again(tmp_path):
    path = tmp_path / "stage.usda"
    original = open(STAGE).read()
    path.write_text(original)
    cfg = UsdDeformablesCfg(asset_path=str(path), root_path="/World/Cloth")
    assert cfg.particle_count() == 169
    # The same stage without its cloth's deformable schema: nothing left to import.
    _rewrite(path, lambda: path.write_text(original.replace("PhysicsSurfaceDeformableSimAPI", "NoSuchAPI")))
    with pytest.raises(ValueError, match=r"root_path='/World/Cloth': the stage .* has no cloth or volume deformable"):
        cfg.particle_count()


# ------------------------------------------------------------------------------------------- writers check shapes
def _written_stage():
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.Xform.Define(stage, "/World")
    return stage


def test_write_usd_refuses_positions_that_do_not_hold_the_cloth():
    cfg = UsdDeformablesCfg(asset_path=STAGE, root_path="/World/Cloth", entry="cloth")
    assert cfg.particle_count() == 169
    stage = _written_stage()
    layer_before = stage.GetRootLayer().ExportToString()
    with pytest.raises(
        ValueError, match=r"first_particle\[0\]=0 \+ the asset's 169 particles does not fit particle_q of 3"
    ):
        cfg.write_usd(stage, np.zeros((3, 3)), [0], 0.0)
    with pytest.raises(ValueError, match=r"particle_q must have shape \(particle_count, 3\), got \(169, 2\)"):
        cfg.write_usd(stage, np.zeros((169, 2)), [0], 0.0)
    with pytest.raises(ValueError, match=r"first_particle\[1\]=100 \+ the asset's 169 particles"):
        cfg.write_usd(stage, np.zeros((268, 3)), [0, 100], 0.0)  # the second env's block overruns the rows
    with pytest.raises(TypeError, match=r"first_particle\[0\] must be an integer particle id"):
        cfg.write_usd(stage, np.zeros((169, 3)), [0.5], 0.0)
    with pytest.raises(ValueError, match="time_code must be a finite number"):
        cfg.write_usd(stage, np.zeros((169, 3)), [0], float("nan"))
    assert stage.GetRootLayer().ExportToString() == layer_before  # nothing was written
    # The right shapes write one mesh of 169 points whose faces index them.
    points = np.random.default_rng(0).random((169, 3))
    cfg.write_usd(stage, points, [0], 1.0)
    (mesh,) = [p for p in stage.Traverse() if p.IsA(UsdGeom.Mesh)]
    written = np.asarray(UsdGeom.Mesh(mesh).GetPointsAttr().Get(Usd.TimeCode(1.0)))
    assert written.shape == (169, 3) and np.allclose(written, points, atol=1e-6)
    assert max(UsdGeom.Mesh(mesh).GetFaceVertexIndicesAttr().Get()) == 168


def test_stage_writers_refuse_rows_of_the_wrong_shape():
    stage = _written_stage()
    UsdGeom.Xform.Define(stage, "/World/a")
    UsdGeom.Points.Define(stage, "/World/points")
    pose = np.array([[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match=r"body_q must have shape \(2, 7\), got \(1, 7\)"):
        write_body_transforms(stage, ["/World/a", "/World/b"], pose)
    with pytest.raises(ValueError, match=r"body_q must have shape \(1, 7\), got \(1, 3\)"):
        write_body_transforms(stage, ["/World/a"], pose[:, :3])
    with pytest.raises(ValueError, match=r"points must have shape \(n, 3\), got \(4,\)"):
        write_points(stage, "/World/points", np.zeros(4))
    assert write_body_transforms(stage, ["/World/a"], pose) == 1
    write_points(stage, "/World/points", np.ones((2, 3)))
    assert len(UsdGeom.Points(stage.GetPrimAtPath("/World/points")).GetPointsAttr().Get()) == 2


def test_no_warning_for_clean_meshes(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cloth = _build(ClothMeshCfg(asset_path=_obj(tmp_path / "clean.obj", *_grid(3, 0.3))))
        soft = _build(SoftMeshCfg(asset_path=_tet_file(tmp_path / "clean.npz", UNIT_TET, [(0, 1, 2, 3)])))
    assert (cloth.particle_count, cloth.tri_count) == (16, 18) and (soft.particle_count, soft.tet_count) == (4, 1)
