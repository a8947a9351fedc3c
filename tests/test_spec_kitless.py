"""Spec methods that need Kit elsewhere, in their kitless meaning: per-world sites, USD articulation roots, hooks."""

import newton
import numpy as np
import pytest
import warp as wp
from pxr import Usd, UsdGeom, UsdPhysics

from isaaclab_contrib.physics import (
    NewtonCfg,
    NewtonManager,
    NewtonShapeCfg,
    NewtonVBDManager,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
)
from isaaclab_contrib.scenes import replicate_envs

DT = 1.0 / 240.0


def box_prototype() -> newton.ModelBuilder:
    proto = newton.ModelBuilder()
    body = proto.add_body(xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()), label="Box/body")
    proto.add_shape_box(body, hx=0.1, hy=0.1, hz=0.1, label="Box/body/collision")
    return proto


def new_sim(device, **physics):
    return SimulationContext(
        SimulationCfg(dt=DT, device=device, physics=NewtonCfg(solver_cfg=SteelSolverCfg(), **physics))
    )


def test_per_world_sites_sit_in_each_env_frame(device):
    sim = new_sim(device)
    suffix = NewtonManager.cl_register_site(None, wp.transform((0.0, 0.0, 0.5), wp.quat_identity()), per_world=True)
    assert (
        NewtonManager.cl_register_site(None, wp.transform((0.0, 0.0, 0.5), wp.quat_identity()), per_world=True)
        == suffix
    )
    builder = NewtonManager.create_builder()
    # The kitless replication step adds them to every env (launch() passes them the same way).
    replicate_envs(builder, box_prototype(), 3, spacing=2.0, sites=NewtonManager.cl_world_sites())
    NewtonManager.set_builder(builder)
    sim.reset()
    model = NewtonManager.get_model()
    labels = list(model.shape_label)
    sites = [labels.index(f"/World/envs/env_{i}/{suffix}") for i in range(3)]
    assert model.shape_world.numpy()[sites].tolist() == [0, 1, 2]
    assert (model.shape_body.numpy()[sites] == -1).all()
    origins = model.shape_transform.numpy()[sites][:, :3]
    # Each env's frame: its box sits at the prototype origin + (0, 0, 1), the site at + (0, 0, 0.5).
    boxes = NewtonManager.get_state_0().body_q.numpy()[:, :3]
    np.testing.assert_allclose(origins, boxes - np.array([0.0, 0.0, 0.5]), atol=1e-6)
    assert np.ptp(origins[:, 0]) == pytest.approx(4.0)  # the envs are 2 m apart


def test_a_per_world_site_registered_after_replication_is_refused_at_reset(device):
    sim = new_sim(device)
    builder = NewtonManager.create_builder()
    replicate_envs(builder, box_prototype(), 2)
    NewtonManager.cl_register_site(None, wp.transform_identity(), per_world=True)
    NewtonManager.set_builder(builder)
    with pytest.raises(ValueError, match=r"reached 0 of 2 worlds: register it before the envs are replicated"):
        sim.reset()
    with pytest.raises(ValueError, match="per_world=True needs body_pattern=None"):
        NewtonManager.cl_register_site("Box/body", wp.transform_identity(), per_world=True)
    with pytest.raises(ValueError, match="7 finite numbers"):
        NewtonManager.cl_register_site(None, (0.0, 0.0, float("nan"), 0.0, 0.0, 0.0, 1.0))


def make_stage_with_robot(*, rigid_root: bool) -> tuple[Usd.Stage, Usd.Prim]:
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.Xform.Define(stage, "/World")
    root = UsdGeom.Xform.Define(stage, "/World/Robot/base").GetPrim()
    if rigid_root:
        UsdPhysics.RigidBodyAPI.Apply(root)
    UsdPhysics.ArticulationRootAPI.Apply(root)
    return stage, root


def world_fixed_joints(stage, root):
    joints = []
    for prim in stage.Traverse():
        if prim.IsA(UsdPhysics.FixedJoint):
            joint = UsdPhysics.FixedJoint(prim)
            if not joint.GetBody0Rel().GetTargets() and list(joint.GetBody1Rel().GetTargets()) == [root.GetPath()]:
                if joint.GetJointEnabledAttr().Get() is not False:
                    joints.append(prim)
    return joints


def test_fix_articulation_root_authors_exactly_one_enabled_world_fixed_joint():
    stage, root = make_stage_with_robot(rigid_root=True)
    assert NewtonManager.fix_articulation_root(root) == root
    assert [p.GetName() for p in world_fixed_joints(stage, root)] == ["RootFixedJoint"]
    NewtonManager.fix_articulation_root(root)  # idempotent
    assert len(world_fixed_joints(stage, root)) == 1
    extra = UsdPhysics.FixedJoint.Define(stage, "/World/ExtraFix")  # a second world joint gets disabled
    extra.CreateBody1Rel().SetTargets([root.GetPath()])
    NewtonManager.fix_articulation_root("/World/Robot/base", stage=stage)
    assert len(world_fixed_joints(stage, root)) == 1
    stage2, not_rigid = make_stage_with_robot(rigid_root=False)
    with pytest.raises(NotImplementedError, match="not a rigid body"):
        NewtonManager.fix_articulation_root(not_rigid)
    with pytest.raises(ValueError, match="no prim at"):
        NewtonManager.fix_articulation_root("/World/Nothing", stage=stage2)


def test_hooks_without_kit_are_documented_no_ops(device):
    sim = new_sim(device)
    builder = NewtonManager.create_builder()
    replicate_envs(builder, box_prototype(), 1)
    NewtonManager.set_builder(builder)
    sim.reset()
    before = NewtonManager.get_state_0().body_q.numpy().copy()
    NewtonManager.update_visualization_state()
    NewtonManager.after_visualizers_render()
    np.testing.assert_array_equal(NewtonManager.get_state_0().body_q.numpy(), before)
    assert issubclass(NewtonVBDManager, NewtonManager)


def test_create_builder_applies_the_shape_defaults():
    SimulationContext(
        SimulationCfg(
            dt=DT,
            device="cpu",
            physics=NewtonCfg(solver_cfg=SteelSolverCfg(), shape_cfg=NewtonShapeCfg(margin=0.004, gap=0.02, mu=0.7)),
        )
    )
    builder = NewtonManager.create_builder()
    shape = builder.default_shape_cfg
    assert (shape.margin, shape.gap, shape.mu) == (0.004, 0.02, 0.7)
    body = builder.add_body(label="b")
    index = builder.add_shape_sphere(body, radius=0.1)
    assert builder.shape_margin[index] == pytest.approx(0.004) and builder.shape_material_mu[index] == pytest.approx(
        0.7
    )


def test_steel_colored_sweeps_need_the_propagation_response_before_newton_says_so():
    with pytest.raises(ValueError, match=r"solve_mode='colored' requires SteelSolverCfg\.articulated_contact_response"):
        SteelSolverCfg(solve_mode="colored").validate()
    cfg = SteelSolverCfg(solve_mode="colored", articulated_contact_response="propagation")
    cfg.validate()
    assert cfg.solver_kwargs()["articulated_contact_response"] == "propagation"
    with pytest.raises(ValueError, match="articulated_contact_response"):
        SteelSolverCfg(articulated_contact_response="sometimes").validate()
