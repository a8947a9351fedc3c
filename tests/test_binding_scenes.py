"""Solver bindings on small real scenes: VBD entries with rigid bodies only, MPM entries with convex-hull colliders."""

import newton
import numpy as np
import pytest
import warp as wp
from scenes import add_cloth_grid, run_coupled

from isaaclab_contrib.coupling import (
    CouplerAdmmCfg,
    CouplerEntryCfg,
    CouplerProxyCfg,
    CouplerProxyMappingCfg,
    build_coupled_solver,
    finalize_builder,
    prepare_builder,
)
from isaaclab_contrib.physics import (
    MPMSolverCfg,
    NewtonCfg,
    NewtonManager,
    NewtonModelCfg,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
)
from isaaclab_contrib.physics.solvers.binding import binding_for
from isaaclab_contrib.physics.solvers.mpm_colliders import hull_surface
from isaaclab_contrib.scenes import add_granular_bed

GRAVITY = 9.81  # [m/s^2], Newton's default (along -z)


def add_chain(builder: newton.ModelBuilder, prefix: str, links: int, height: float) -> list[int]:
    """A free-floating chain of *links* 0.1 m boxes along x joined by ball joints (a short body cable)."""
    bodies, joints = [], []
    for i in range(links):
        body = builder.add_link(
            xform=wp.transform((0.1 * i, 0.0, height), wp.quat_identity()), label=f"{prefix}/link{i}"
        )
        builder.add_shape_box(body, hx=0.05, hy=0.02, hz=0.02)
        if i == 0:
            joints.append(builder.add_joint_free(body, label=f"{prefix}/root"))
        else:
            joints.append(
                builder.add_joint_ball(
                    bodies[-1],
                    body,
                    parent_xform=wp.transform((0.05, 0.0, 0.0), wp.quat_identity()),
                    child_xform=wp.transform((-0.05, 0.0, 0.0), wp.quat_identity()),
                    label=f"{prefix}/ball{i}",
                )
            )
        bodies.append(body)
    builder.add_articulation(joints)
    return bodies


# ---------------------------------------------------------------------------------------------- VBD, bodies only


def test_vbd_entry_owning_only_rigid_bodies_builds_and_falls_freely(device):
    """A VBD entry with a jointed body chain and no particles, ADMM-coupled to a Steel block on the ground."""
    cfg = CouplerAdmmCfg(
        entries=[
            CouplerEntryCfg(
                name="block", solver_cfg=SteelSolverCfg(), bodies=["/World/Block"], include_static_shapes=True
            ),
            CouplerEntryCfg(name="chain", solver_cfg=VBDSolverCfg(iterations=4), bodies=["/World/Chain"]),
        ],
        iterations=2,
    )
    builder = newton.ModelBuilder()
    prepare_builder(builder, cfg)
    block = builder.add_body(xform=wp.transform((1.0, 0.0, 0.05), wp.quat_identity()), label="/World/Block")
    builder.add_shape_box(block, hx=0.05, hy=0.05, hz=0.05)
    chain = add_chain(builder, "/World/Chain", links=3, height=1.0)
    builder.add_ground_plane(label="/World/ground")
    assert builder.particle_count == 0

    steps, dt = 20, 1.0 / 240.0
    model, state = run_coupled(builder, cfg, steps, dt, device)
    assert len(model.body_color_groups) > 0
    body_q = state.body_q.numpy()
    assert np.isfinite(body_q).all() and np.isfinite(state.body_qd.numpy()).all()
    t = steps * dt
    # Free fall z0 - g t^2 / 2; implicit Euler lags it by at most g dt t / 2 (1.7 mm here).
    np.testing.assert_allclose(body_q[chain, 2], 1.0 - 0.5 * GRAVITY * t * t, atol=0.5 * GRAVITY * dt * t + 1e-4)
    np.testing.assert_allclose(body_q[chain, 0], [0.0, 0.1, 0.2], atol=1e-4)  # the chain keeps its shape
    np.testing.assert_allclose(body_q[chain, 3:], np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), atol=1e-4)
    assert abs(body_q[block, 2] - 0.05) < 2e-3  # the Steel block rests on the ground


def test_vbd_colours_bodies_of_a_builder_already_coloured_for_its_particles():
    builder = newton.ModelBuilder()
    add_cloth_grid(builder, 3)
    builder.color()  # the cloth is coloured; the chain below is added afterwards
    add_chain(builder, "/World/Chain", links=3, height=2.0)
    kept = [np.array(group) for group in builder.particle_color_groups]
    assert kept and not builder.body_color_groups

    binding_for(VBDSolverCfg()).prepare_builder(VBDSolverCfg(), builder)

    coloured = sorted(int(i) for group in builder.body_color_groups for i in group)
    assert coloured == list(range(builder.body_count))
    colour_of = {int(b): c for c, group in enumerate(builder.body_color_groups) for b in group}
    assert colour_of[0] != colour_of[1] and colour_of[1] != colour_of[2]  # jointed links never share a colour
    assert len(builder.particle_color_groups) == len(kept)  # the particle colouring was kept as it was
    for group, before in zip(builder.particle_color_groups, kept, strict=True):
        np.testing.assert_array_equal(group, before)


def test_vbd_recolours_particles_a_partial_colouring_left_out():
    builder = newton.ModelBuilder()
    add_cloth_grid(builder, 2)
    builder.set_coloring([[0, 1]])  # VBD would never move the other particles
    binding_for(VBDSolverCfg()).prepare_builder(VBDSolverCfg(), builder)
    coloured = sorted(int(i) for group in builder.particle_color_groups for i in group)
    assert coloured == list(range(builder.particle_count))


def test_standalone_vbd_simulation_with_rigid_bodies_only(device):
    sim = SimulationContext(
        SimulationCfg(dt=1.0 / 240.0, device=device, physics=NewtonCfg(solver_cfg=VBDSolverCfg(iterations=4)))
    )
    builder = NewtonManager.create_builder()
    chain = add_chain(builder, "/World/Chain", links=2, height=1.0)
    NewtonManager.set_builder(builder)
    sim.reset()
    steps = 8
    for _ in range(steps):
        NewtonManager.step()
    body_q = NewtonManager.get_state_0().body_q.numpy()
    t = NewtonManager.get_simulation_time()
    assert t == pytest.approx(steps / 240.0)
    assert np.isfinite(body_q).all()
    np.testing.assert_allclose(body_q[chain, 2], 1.0 - 0.5 * GRAVITY * t * t, atol=0.5 * GRAVITY * t / 240.0 + 1e-4)
    sim.clear_instance()


# ---------------------------------------------------------------------------------------------- MPM, convex hulls


def frustum_mesh(bottom: float, top: float, height: float, wind_inwards: tuple[int, ...] = ()) -> newton.Mesh:
    """A closed square frustum centred at the origin [m]; faces listed in *wind_inwards* are wound inwards."""
    z0, z1 = -0.5 * height, 0.5 * height
    vertices = np.array(
        [
            [-bottom, -bottom, z0],
            [bottom, -bottom, z0],
            [bottom, bottom, z0],
            [-bottom, bottom, z0],
            [-top, -top, z1],
            [top, -top, z1],
            [top, top, z1],
            [-top, top, z1],
        ],
        dtype=np.float32,
    )
    quads = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]  # outward
    faces = [tri for a, b, c, d in quads for tri in ((a, b, c), (a, c, d))]
    faces = [(a, c, b) if i in wind_inwards else (a, b, c) for i, (a, b, c) in enumerate(faces)]
    return newton.Mesh(vertices, np.array(faces, dtype=np.int32).ravel())


def sand_bed(builder: newton.ModelBuilder, half: float, height: float, voxel: float, base: float = 0.0) -> None:
    add_granular_bed(
        builder, half_extent=half, height=height, voxel_size=voxel, density=1500.0, friction=0.6, base=base
    )


def mpm_cfg(voxel: float) -> MPMSolverCfg:
    return MPMSolverCfg(
        voxel_size=voxel, grid_type="fixed", grid_padding=4, max_active_cell_count=1 << 14, max_iterations=50
    )


def tool_in_sand_cfg(voxel: float) -> CouplerProxyCfg:
    return CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(
                name="tool", solver_cfg=SteelSolverCfg(), bodies=["/World/Tool"], include_static_shapes=True
            ),
            CouplerEntryCfg(name="sand", solver_cfg=mpm_cfg(voxel), all_particles=True, in_place=True),
        ],
        proxies=[CouplerProxyMappingCfg(source="tool", destination="sand", bodies=["/World/Tool"])],
        model_cfg=NewtonModelCfg(particle_max_velocity=10.0),
    )


BED_HALF, BED_HEIGHT, VOXEL = 0.06, 0.06, 0.03  # [m]
TOOL_HALF_HEIGHT = 0.03  # [m]


def tool_in_sand_builder(cfg: CouplerProxyCfg, add_tool_shape) -> newton.ModelBuilder:
    builder = newton.ModelBuilder()
    prepare_builder(builder, cfg)
    newton.solvers.SolverImplicitMPM.register_custom_attributes(builder)
    z = BED_HEIGHT + 0.01 + TOOL_HALF_HEIGHT  # 1 cm above the sand
    tool = builder.add_body(xform=wp.transform((0.0, 0.0, z), wp.quat_identity()), label="/World/Tool")
    add_tool_shape(builder, tool)
    sand_bed(builder, BED_HALF, BED_HEIGHT, VOXEL)
    builder.add_ground_plane(label="/World/ground")
    return builder


@pytest.mark.slow  # kept out of the 5-minute default set
def test_mpm_entry_collides_with_a_convex_hull_tool(device):
    """A Steel frustum (convex hull shape) dropped into an in-place MPM sand bed is held by the sand."""
    cfg = tool_in_sand_cfg(VOXEL)

    def hull_tool(builder, body):
        builder.add_shape_convex_hull(
            body,
            mesh=frustum_mesh(0.04, 0.03, 2 * TOOL_HALF_HEIGHT),
            cfg=newton.ModelBuilder.ShapeConfig(density=2000.0),
            label="/World/Tool/hull",
        )

    builder = tool_in_sand_builder(cfg, hull_tool)
    assert 200 <= builder.particle_count <= 600
    model, state = run_coupled(builder, cfg, steps=40, dt=1.0 / 240.0, device=device)
    body_q, particle_q = state.body_q.numpy(), state.particle_q.numpy()
    assert np.isfinite(body_q).all() and np.isfinite(particle_q).all()
    bottom = body_q[0, 2] - TOOL_HALF_HEIGHT
    # In free fall the tool would reach the ground after 32 of the 40 steps; without its hull as an
    # MPM collider it sinks through the sand onto the ground (bottom at 0).
    assert 0.02 < bottom < BED_HEIGHT  # it reached the sand, sank in and is held above the ground
    assert particle_q[:, 2].min() > -0.01
    # The model still holds the convex hull: the binding presented it as a mesh only while MPM was built.
    hull = model.shape_label.index("/World/Tool/hull")
    assert model.shape_type.numpy()[hull] == int(newton.GeoType.CONVEX_MESH)


def test_mpm_entry_rejects_a_collider_shape_it_cannot_use_when_the_solver_is_built(device):
    cfg = tool_in_sand_cfg(VOXEL)

    def ellipsoid_tool(builder, body):
        builder.add_shape_ellipsoid(body, rx=0.04, ry=0.04, rz=TOOL_HALF_HEIGHT, label="/World/Tool/egg")

    builder = tool_in_sand_builder(cfg, ellipsoid_tool)
    finalize_builder(builder, cfg)
    model = builder.finalize(device=device)
    with pytest.raises(ValueError) as err:
        build_coupled_solver(model, cfg)
    message = str(err.value)
    for part in ("CouplerProxyCfg.entries['sand']", "'/World/Tool/egg'", "ELLIPSOID", "BOX", "MESH", "CONVEX_MESH"):
        assert part in message


def test_standalone_mpm_rests_grains_on_a_static_convex_hull(device):
    """MPM built on a Model (not an entry view): grains land on a static hull table; there is no ground."""
    builder = newton.ModelBuilder()
    newton.solvers.SolverImplicitMPM.register_custom_attributes(builder)
    table_top = 0.1  # [m]
    builder.add_shape_convex_hull(
        -1,
        xform=wp.transform((0.0, 0.0, table_top - 0.02), wp.quat_identity()),
        mesh=frustum_mesh(0.2, 0.2, 0.04),
        label="/World/table",
    )
    sand_bed(builder, 0.05, 0.04, VOXEL, base=table_top + 0.02)  # 2 cm above the table
    model = builder.finalize(device=device)
    cfg = mpm_cfg(VOXEL)
    sources = list(model.shape_source)
    solver = binding_for(cfg).build(cfg, model)
    assert model.shape_type.numpy()[0] == int(newton.GeoType.CONVEX_MESH) and model.shape_source == sources
    state_0, state_1, control = model.state(), model.state(), model.control()
    for _ in range(30):
        solver.step(state_0, state_1, control, None, 1.0 / 120.0)
        state_0, state_1 = state_1, state_0
    z = state_0.particle_q.numpy()[:, 2]
    assert np.isfinite(z).all()
    assert z.min() > table_top - 0.01  # on the table (falling freely they would be 0.5 m lower)
    assert z.max() < table_top + 0.07  # and they did land


def test_convex_hull_surface_for_the_mpm_collider_is_wound_outwards():
    source = frustum_mesh(0.04, 0.03, 0.06, wind_inwards=(0, 5, 7))
    surface = hull_surface(source, "test")
    vertices = np.asarray(surface.vertices, dtype=np.float64)
    faces = np.asarray(surface.indices).reshape(-1, 3)
    assert len(faces) == 12
    centre = vertices.mean(axis=0)
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    outward = np.einsum("fk,fk->f", np.cross(b - a, c - a), (a + b + c) / 3.0 - centre)
    assert np.all(outward > 0.0)


def test_a_non_convex_mesh_given_as_a_convex_hull_becomes_the_hull_of_its_vertices():
    pytest.importorskip("scipy")
    source = frustum_mesh(0.04, 0.03, 0.06)
    vertices = np.vstack([source.vertices, [[0.0, 0.0, 0.0]]]).astype(np.float32)  # an interior vertex ...
    faces = np.asarray(source.indices).reshape(-1, 3)
    dent = [(4, 5, 8), (5, 6, 8), (6, 7, 8), (7, 4, 8)]  # ... to which the top face is pushed in
    faces = np.vstack([faces[:2], faces[4:], dent])  # still closed, no longer convex
    surface = hull_surface(newton.Mesh(vertices, faces.ravel()), "test")
    hull_vertices = np.asarray(surface.vertices)
    assert len(hull_vertices) == 8 and not np.any(np.all(hull_vertices == 0.0, axis=1))
