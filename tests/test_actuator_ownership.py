"""Explicit actuators are checked against the solver that owns their joint when the simulation is built.

Scene: one revolute link (hinged at its center, gravity on) with an explicit PD actuator, owned by a
Steel or a VBD coupler entry beside a small cloth (a second entry). Steel (reduced coordinates)
settles the joint at its target; VBD moves the body but never writes ``joint_q``, so the PD would push
open-loop unless the coupler recomputes joint coordinates from the bodies.
"""

import pytest
from scenes import add_hinge_arm

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg, NewtonCouplerManager
from isaaclab_contrib.physics import (
    IdealPDActuatorCfg,
    MJWarpSolverCfg,
    MPMSolverCfg,
    NewtonCfg,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
    XPBDSolverCfg,
    add_actuators,
    binding_for,
)
from isaaclab_contrib.physics.solvers.binding import joint_refusal
from isaaclab_contrib.scenes import InitialStateCfg, PinnedClothCfg

TARGET = 0.5  # [rad]


def _start(arm_solver, *, update_joint_coordinates: bool = False, own_arm: bool = True):
    entries = [CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=2), all_particles=True)]
    if own_arm:
        entries.insert(0, CouplerEntryCfg(name="arm", solver_cfg=arm_solver, bodies=["/World/envs/env_.*/arm"]))
    cfg = CouplerAdmmCfg(entries=entries, contact_pairs=[], update_joint_coordinates=update_joint_coordinates)
    sim = SimulationContext(SimulationCfg(dt=1 / 240, device="cpu", physics=NewtonCfg(solver_cfg=cfg, decimation=4)))
    builder = NewtonCouplerManager.create_builder()
    builder.begin_world()
    add_hinge_arm(builder, "/World/envs/env_0/arm", axis=(0.0, 1.0, 0.0), joint="shoulder", capsule=True, mass=1.0)
    cloth = PinnedClothCfg(cells=2, cell_size=0.1, fix_right=False, init_state=InitialStateCfg(pos=(2.1, 0.1, 0.5)))
    cloth.add_to(builder, "/World/envs/env_0/Cloth")  # 2 m beside the arm
    builder.end_world()
    add_actuators(builder, {"arm": IdealPDActuatorCfg(joint_names_expr=["shoulder"], stiffness=0.5, damping=0.01)})
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    return sim


def _settle() -> float:
    NewtonCouplerManager.joint_view("joint_target_q")[:] = TARGET
    for _ in range(60):
        NewtonCouplerManager.step()
    return float(NewtonCouplerManager.joint_view("joint_q")[0, 0])


def test_a_reduced_coordinate_entry_follows_its_pd_actuator():
    sim = _start(SteelSolverCfg())
    assert _settle() == pytest.approx(TARGET, abs=0.02)
    sim.clear_instance()


def test_an_actuator_on_a_vbd_entry_is_refused_unless_joint_coordinates_are_recomputed():
    with pytest.raises(
        ValueError,
        match=r"joint '/World/envs/env_0/arm/shoulder' of CouplerAdmmCfg\.entries\['arm'\]"
        r".*never writes joint_q.*update_joint_coordinates=True",
    ):
        _start(VBDSolverCfg(iterations=5))
    assert NewtonCouplerManager.step_mode() == "not started"
    SimulationContext.instance().clear_instance()
    sim = _start(VBDSolverCfg(iterations=5), update_joint_coordinates=True)
    vbd = _settle()
    sim.clear_instance()
    sim = _start(SteelSolverCfg())
    steel = _settle()
    sim.clear_instance()
    assert vbd == pytest.approx(steel, abs=0.01)  # the same PD settle as the reduced-coordinate solver


def test_an_actuator_on_a_joint_no_entry_owns_is_refused():
    with pytest.raises(
        ValueError, match=r"joint '/World/envs/env_0/arm/shoulder', which no entry of CouplerAdmmCfg owns"
    ):
        _start(None, own_arm=False)
    SimulationContext.instance().clear_instance()


def test_which_solver_families_follow_explicit_actuators():
    """Reduced-coordinate families follow them; maximal-coordinate ones need joint coordinates recomputed."""
    assert joint_refusal(binding_for(SteelSolverCfg()), "SolverSteel") is None
    assert joint_refusal(binding_for(MJWarpSolverCfg()), "SolverMuJoCo") is None
    assert "never writes joint_q" in joint_refusal(binding_for(VBDSolverCfg()), "SolverVBD")
    assert "never writes joint_q" in joint_refusal(binding_for(XPBDSolverCfg()), "SolverXPBD")
    assert joint_refusal(binding_for(MPMSolverCfg()), "SolverImplicitMPM") == "SolverImplicitMPM simulates no joints"
