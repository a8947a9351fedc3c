"""What the re-expression of Newton's ``vbd_mpm_coupled_solver`` example needed: implicit-MPM deformable colliders
over proxied particles (``MPMSolverCfg.deformable_colliders``), a granular heap asset, and a few asset fields
(the soft block's initial velocity and surface bending, the ground's friction).

The surface and validation tests are pure logic; the heap is compared with the example's own heap builder; the
build tests read what the built ``SolverImplicitMPM`` holds.
"""

from __future__ import annotations

import newton
import numpy as np
import pytest

from isaaclab_contrib.coupling import build_coupled_solver
from isaaclab_contrib.physics import MPMDeformableColliderCfg, MPMSolverCfg
from isaaclab_contrib.physics.solvers.mpm import MPMBinding
from isaaclab_contrib.physics.solvers.mpm_colliders import deformable_collider_surface
from isaaclab_contrib.scenes import GranularHeapCfg, GroundPlaneCfg, InitialStateCfg, SoftBlockCfg, build_model
from isaaclab_coupling_configs.vbd_mpm_coupled import VbdMpmCoupledSceneCfg


# ------------------------------------------------------------------------------ pure logic
def test_the_collider_surface_keeps_the_triangles_over_its_particles_in_model_order():
    tris = np.array([[0, 1, 2], [2, 3, 4], [5, 6, 7], [7, 6, 5], [4, 3, 2]])
    vertex_ids, faces = deformable_collider_surface(tris, [7, 5, 6, 2, 3, 4])
    assert vertex_ids.tolist() == [7, 5, 6, 2, 3, 4]
    # [0, 1, 2] touches particles outside the collider and is left out; winding and order are the model's.
    assert faces.tolist() == [[3, 4, 5], [1, 2, 0], [0, 2, 1], [5, 4, 3]]
    with pytest.raises(ValueError, match="no triangle of the model has all three vertices"):
        deformable_collider_surface(tris, [0, 1])
    with pytest.raises(ValueError, match="no triangle"):
        deformable_collider_surface(None, [0, 1, 2])


@pytest.mark.parametrize(
    ("particles", "error", "match"),
    [
        ([], ValueError, "particles is empty"),
        ([0, 1, 1], ValueError, "more than once"),
        ([0, -2], ValueError, r"particles\[1\]=-2 must be >= 0"),
        ([0, True], TypeError, r"particles\[1\] must be an integer"),
        ((0.0, 1.0), TypeError, r"particles\[0\] must be an integer"),
        ("012", TypeError, "must be a list of particle ids"),
    ],
)
def test_a_deformable_collider_needs_distinct_particle_ids(particles, error, match):
    with pytest.raises(error, match=match):
        MPMDeformableColliderCfg(particles=particles).validate()
    with pytest.raises(error, match=r"MPMSolverCfg\.deformable_colliders\[0\]"):
        MPMSolverCfg(deformable_colliders=[MPMDeformableColliderCfg(particles=particles)]).validate()


def test_deformable_collider_fields_are_checked_and_stay_out_of_the_solver_arguments():
    collider = MPMDeformableColliderCfg(particles=[0, 1, 2], thickness=-0.01, friction=0.6)
    collider.validate()  # a negative thickness lets the material sink into the surface
    with pytest.raises(ValueError, match=r"friction must be >= 0"):
        MPMDeformableColliderCfg(particles=[0], friction=-0.1).validate()
    with pytest.raises(ValueError, match=r"adhesion must be >= 0"):
        MPMDeformableColliderCfg(particles=[0], adhesion=-1.0).validate()
    cfg = MPMSolverCfg(deformable_colliders=[collider])
    assert "deformable_colliders" not in cfg.solver_kwargs()
    assert cfg.solver_kwargs() == MPMSolverCfg().solver_kwargs()
    with pytest.raises(TypeError, match=r"deformable_colliders\[0\] must be an MPMDeformableColliderCfg"):
        MPMSolverCfg(deformable_colliders=[[0, 1, 2]]).validate()
    with pytest.raises(ValueError, match="separate_worlds=True"):
        MPMSolverCfg(deformable_colliders=[collider], separate_worlds=True).validate()
    # A stand-alone MPM solver has nobody simulating the collider's particles.
    with pytest.raises(ValueError, match="needs a coupled MPM entry"):
        MPMBinding().bind(cfg, None)


# ------------------------------------------------------------------------------ assets
@pytest.mark.parametrize("voxel_size", [0.08, 0.16])
def test_the_heap_is_the_example_heap_point_for_point(voxel_size):
    from newton.examples.multiphysics import example_vbd_mpm_coupled_solver as example

    def with_cube(builder):
        newton.solvers.SolverImplicitMPM.register_custom_attributes(builder)
        builder.add_particles(pos=[[0.0, 0.0, 0.0]] * 125, vel=[[0.0, 0.0, 0.0]] * 125, mass=[1.0] * 125)
        return builder

    theirs = with_cube(newton.ModelBuilder())
    example.Example._emit_mpm_heap(None, theirs, voxel_size)  # uses no state of the example
    heap = GranularHeapCfg(voxel_size=voxel_size)
    ours = with_cube(newton.ModelBuilder())
    heap.prepare_builder(ours)
    heap.add_to(ours, "Heap")
    assert ours.particle_count == theirs.particle_count == 125 + heap.particle_count()
    a, b = ours.finalize(device="cpu"), theirs.finalize(device="cpu")
    for name in ("particle_q", "particle_qd", "particle_mass", "particle_radius"):
        np.testing.assert_array_equal(getattr(a, name).numpy(), getattr(b, name).numpy(), err_msg=name)
    np.testing.assert_array_equal(a.mpm.friction.numpy(), b.mpm.friction.numpy())
    # Moving the heap moves every point by the offset (added last).
    moved = GranularHeapCfg(voxel_size=voxel_size, init_state=InitialStateCfg(pos=(1.0, 0.0, 0.0)))
    shifted = np.asarray(moved.positions(125)) - np.asarray(heap.positions(125))
    np.testing.assert_allclose(shifted, np.tile([1.0, 0.0, 0.0], (heap.particle_count(), 1)), atol=1e-12)


def test_soft_block_velocity_and_bending_and_ground_friction_reach_the_model():
    builder = newton.ModelBuilder()
    GroundPlaneCfg(friction=0.8).add_to(builder, "/World/ground")
    GroundPlaneCfg(prim_path="/World/ground2", init_state=InitialStateCfg(pos=(0.0, 0.0, -1.0))).add_to(builder, "g2")
    block = SoftBlockCfg(velocity=(0.0, 0.0, -0.4), bend_stiffness=0.01, bend_damping=1.0e-5)
    block.add_to(builder, "Block")
    model = builder.finalize(device="cpu")
    assert model.shape_material_mu.numpy().tolist() == pytest.approx([0.8, builder.default_shape_cfg.mu])
    np.testing.assert_allclose(model.particle_qd.numpy(), np.tile([0.0, 0.0, -0.4], (block.particle_count(), 1)))
    assert model.edge_count and np.allclose(model.edge_bending_properties.numpy(), [0.01, 1.0e-5])
    with pytest.raises(ValueError, match=r"friction must be >= 0"):
        GroundPlaneCfg(friction=-1.0).validate()


# ------------------------------------------------------------------------------ built solver
def small_scene() -> VbdMpmCoupledSceneCfg:
    return VbdMpmCoupledSceneCfg(heap=GranularHeapCfg(prim_path="{ENV_REGEX_NS}/Heap", entry="heap", voxel_size=0.2))


def test_the_cube_surface_becomes_the_mpm_collider_before_the_ground():
    scene = small_scene()
    model, coupler = build_model(scene)
    solver = build_coupled_solver(model, coupler)
    mpm = solver.solver("heap")
    collider = mpm._mpm_model.collider
    cube = scene.particle_ids("cube")
    assert collider.collider_particle_ids.numpy().tolist() == cube
    assert collider.collider_body_index.numpy().tolist() == [-1, -1]  # the mesh, then the static ground
    mesh = mpm._mpm_model._collider_meshes[0]
    assert mesh.indices.shape[0] // 3 == 6 * 4 * 4 * 2  # the 4 x 4 x 4 grid's surface triangles
    np.testing.assert_array_equal(mesh.points.numpy(), model.particle_q.numpy()[cube])
    assert collider.material_friction.numpy()[1:].tolist() == pytest.approx([0.6, 0.8])
    assert collider.material_thickness.numpy()[1] == pytest.approx(0.025)


def test_a_deformable_collider_over_particles_that_are_not_proxied_is_refused_naming_the_entry():
    scene = small_scene()
    coupler = scene.coupler_cfg()
    coupler.proxies = []
    model, coupler = build_model(scene, coupler)
    with pytest.raises(ValueError, match=r"entries\['heap'\].*deformable_colliders\[0\]\.particles.*not proxied"):
        build_coupled_solver(model, coupler)
