"""USD authored for MuJoCo (``mjc:*`` attributes) reaches the model when a MuJoCo solver runs the scene."""

import numpy as np
import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg, NewtonCouplerManager
from isaaclab_contrib.physics import (
    MJWarpSolverCfg,
    NewtonCfg,
    NewtonManager,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
)

FRICTION_LOSS = 0.25  # [N*m]
ARMATURE = 0.125  # [kg*m^2]


def mujoco_stage() -> Usd.Stage:
    """/World/Arm: a 10 cm, 1 kg cube on a revolute joint to the world whose ``mjc:frictionloss`` and
    ``mjc:armature`` are authored (as MuJoCo's USD schema writes them), and nothing in ``newton:*``."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.Scene.Define(stage, "/World/physicsScene")
    arm = UsdGeom.Xform.Define(stage, "/World/Arm")
    UsdPhysics.ArticulationRootAPI.Apply(arm.GetPrim())
    link = UsdGeom.Cube.Define(stage, "/World/Arm/link")
    link.CreateSizeAttr(0.1)
    link.AddTranslateOp().Set(Gf.Vec3d(0.5, 0.0, 1.0))
    UsdPhysics.RigidBodyAPI.Apply(link.GetPrim())
    UsdPhysics.CollisionAPI.Apply(link.GetPrim())
    UsdPhysics.MassAPI.Apply(link.GetPrim()).CreateMassAttr(1.0)
    hinge = UsdPhysics.RevoluteJoint.Define(stage, "/World/Arm/hinge")
    hinge.CreateBody1Rel().SetTargets(["/World/Arm/link"])
    hinge.CreateAxisAttr("Y")
    hinge.CreateLocalPos0Attr(Gf.Vec3f(0.0, 0.0, 1.0))
    hinge.CreateLocalPos1Attr(Gf.Vec3f(-0.5, 0.0, 0.0))
    prim = hinge.GetPrim()
    prim.AddAppliedSchema("MjcJointAPI")
    prim.CreateAttribute("mjc:frictionloss", Sdf.ValueTypeNames.Float).Set(FRICTION_LOSS)
    prim.CreateAttribute("mjc:armature", Sdf.ValueTypeNames.Float).Set(ARMATURE)
    return stage


def coupler(arm_cfg) -> CouplerAdmmCfg:
    return CouplerAdmmCfg(
        entries=[
            CouplerEntryCfg(name="arm", solver_cfg=arm_cfg, bodies=["/World/Arm/link"]),
            CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(), all_particles=True),
        ]
    )


def joint_values(solver_cfg, device):
    SimulationContext(SimulationCfg(dt=1.0 / 240.0, device=device, physics=NewtonCfg(solver_cfg=solver_cfg)))
    NewtonCouplerManager.attach_stage(mujoco_stage())
    model = NewtonCouplerManager.instantiate_builder_from_stage().finalize(device=device)
    assert model.joint_label == ["/World/Arm/hinge"]
    return model.joint_friction.numpy(), model.joint_armature.numpy()


@pytest.mark.parametrize(
    "solver_cfg",
    [MJWarpSolverCfg(), coupler(MJWarpSolverCfg(use_mujoco_contacts=False))],
    ids=["mujoco", "coupled-mujoco-entry"],
)
def test_mjc_joint_attributes_reach_the_model_when_mujoco_runs_the_scene(solver_cfg, device):
    friction, armature = joint_values(solver_cfg, device)
    np.testing.assert_allclose(friction, [FRICTION_LOSS])
    np.testing.assert_allclose(armature, [ARMATURE])


def test_mjc_joint_attributes_are_ignored_without_a_mujoco_solver(device):
    friction, armature = joint_values(coupler(SteelSolverCfg()), device)
    np.testing.assert_allclose(friction, [0.0])  # Newton's defaults: mjc:* is MuJoCo's namespace
    np.testing.assert_allclose(armature, [0.0])


def test_a_mujoco_solver_simulates_the_imported_friction_loss(device):
    """The authored friction loss reaches MuJoCo: it reports it as the DOF's friction-loss force bound."""
    sim = SimulationContext(
        SimulationCfg(dt=1.0 / 240.0, device=device, physics=NewtonCfg(solver_cfg=MJWarpSolverCfg()))
    )
    NewtonManager.attach_stage(mujoco_stage())
    NewtonManager.instantiate_builder_from_stage()
    NewtonManager.request_observables("qfrc_frictionloss")
    sim.reset()
    NewtonManager.step()
    # The level arm swings down: the friction loss opposes the motion with at most FRICTION_LOSS [N*m].
    frictionloss = NewtonManager.get_observables().qfrc_frictionloss.numpy()
    assert 0.0 < abs(float(frictionloss[0])) <= FRICTION_LOSS * (1.0 + 1e-4)
