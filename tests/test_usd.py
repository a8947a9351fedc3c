"""Kitless USD: a stage with env Xforms becomes Newton worlds; results are written back to the stage."""

import numpy as np
import pytest
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg, NewtonCouplerManager, resolve_entries
from isaaclab_contrib.physics import (
    NewtonCfg,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
)

M = NewtonCouplerManager


def make_stage(num_envs: int = 4) -> Usd.Stage:
    """/World/envs/env_<i>/Crate (a 10 cm rigid cube, 1 m up) and a static /World/ground box."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.Scene.Define(stage, "/World/physicsScene")
    UsdGeom.Xform.Define(stage, "/World/envs")
    for i in range(num_envs):
        env = UsdGeom.Xform.Define(stage, f"/World/envs/env_{i}")
        env.AddTranslateOp().Set(Gf.Vec3d(2.0 * i, 0.0, 0.0))
        crate = UsdGeom.Cube.Define(stage, f"/World/envs/env_{i}/Crate")
        crate.CreateSizeAttr(0.1)
        crate.AddTranslateOp().Set(Gf.Vec3d(0.0, 0.0, 1.0))
        UsdPhysics.RigidBodyAPI.Apply(crate.GetPrim())
        UsdPhysics.CollisionAPI.Apply(crate.GetPrim())
        UsdPhysics.MassAPI.Apply(crate.GetPrim()).CreateMassAttr(0.5)
    ground = UsdGeom.Cube.Define(stage, "/World/ground")
    ground.CreateSizeAttr(1.0)
    ground.AddScaleOp().Set(Gf.Vec3f(20.0, 20.0, 0.1))
    ground.AddTranslateOp().Set(Gf.Vec3d(0.0, 0.0, -0.05))
    UsdPhysics.CollisionAPI.Apply(ground.GetPrim())
    return stage


def coupler():
    return CouplerAdmmCfg(
        entries=[
            CouplerEntryCfg(
                name="crates",
                solver_cfg=SteelSolverCfg(),
                bodies=["/World/envs/env_.*/Crate"],
                include_static_shapes=True,
            ),
            CouplerEntryCfg(name="odd", solver_cfg=VBDSolverCfg(), bodies=["/World/envs/env_[13]/Crate"]),
        ]
    )


def test_env_xforms_become_worlds_with_prim_path_labels(device):
    sim = SimulationContext(SimulationCfg(dt=1 / 240, device=device, physics=NewtonCfg(solver_cfg=coupler())))
    M.attach_stage(make_stage())
    builder = M.instantiate_builder_from_stage()
    assert builder is M.get_builder()
    model = builder.finalize(device=device)
    assert model.world_count == 4
    assert model.body_label == [f"/World/envs/env_{i}/Crate" for i in range(4)]
    assert model.body_world.numpy().tolist() == [0, 1, 2, 3]
    assert "/World/ground" in model.shape_label
    ground = model.shape_label.index("/World/ground")
    assert model.shape_body.numpy()[ground] == -1 and model.shape_world.numpy()[ground] == -1
    # The env offsets of the stage are applied to the bodies.
    np.testing.assert_allclose(model.body_q.numpy()[:, 0], [0.0, 2.0, 4.0, 6.0], atol=1e-6)
    cfg = coupler()
    cfg.entries[0].bodies = ["/World/envs/env_[02]/Crate"]
    owned = resolve_entries(model, cfg)
    assert owned["crates"].bodies == [0, 2] and owned["odd"].bodies == [1, 3]
    assert owned["crates"].shapes[-1] == ground
    sim.clear_instance()


def test_sync_writes_time_sampled_transforms_and_points_to_the_stage(device):
    cfg = coupler()
    cfg.entries = cfg.entries[:1]
    sim = SimulationContext(SimulationCfg(dt=1 / 240, device=device, physics=NewtonCfg(solver_cfg=cfg)))
    stage = make_stage(2)
    M.attach_stage(stage)
    builder = M.instantiate_builder_from_stage()
    builder.add_particle(pos=(0.0, 0.0, 3.0), vel=(0.0, 0.0, 0.0), mass=0.1)  # one free particle, owned by no entry
    UsdGeom.Points.Define(stage, "/World/dust")
    sim.reset()
    M.register_particle_visual_prim("/World/dust", 0, 1)
    M.set_decimation(8)
    for frame in range(3):
        M.step()
        assert M.sync_transforms_to_usd(time_code=frame) == 2
        assert M.sync_particles_to_usd(time_code=frame) == 1
    crate = UsdGeom.Xformable(stage.GetPrimAtPath("/World/envs/env_1/Crate"))
    op = crate.GetOrderedXformOps()[0]
    assert op.GetAttr().GetNumTimeSamples() == 3
    world = crate.ComputeLocalToWorldTransform(Usd.TimeCode(2)).ExtractTranslation()
    np.testing.assert_allclose(list(world), M.get_state_0().body_q.numpy()[1, :3], atol=1e-5)
    assert world[2] < 1.0  # it fell
    points = UsdGeom.Points(stage.GetPrimAtPath("/World/dust")).GetPointsAttr()
    assert points.GetNumTimeSamples() == 3
    with pytest.raises(ValueError, match=r"not a UsdGeom\.Points prim"):
        M.register_particle_visual_prim("/World/envs", 0, 1)
    sim.clear_instance()
