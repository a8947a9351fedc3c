"""The parity remainder found when Newton's examples were re-expressed: solver options that scenes passed through
``extra_solver_args`` are config fields now (VBD's ``particle_self_contact_gap``, ``rigid_joint_linear_ke`` /
``rigid_joint_angular_ke``; MPM's ``strain_basis``), ``NewtonModelCfg.rigid_contact_max`` sizes the contact
buffers, and an implicit-MPM entry may step out of place (as in Newton's ``vbd_mpm_coupled_solver``).

Expectations are Newton's own objects: the solver's attributes, the model's capacity and the coupled solver's
entry states.
"""

from __future__ import annotations

import newton
import pytest

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, build_coupled_solver
from isaaclab_contrib.physics import MPMSolverCfg, NewtonCfg, NewtonModelCfg, SimulationCfg, VBDSolverCfg
from isaaclab_contrib.physics.solvers.base import SolverConfigError
from isaaclab_contrib.scenes import build_model, launch
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg
from isaaclab_coupling_configs.proxy_joint_gripper import GripperSceneCfg
from isaaclab_coupling_configs.softbody_dropping_to_cloth import SoftbodyOnClothSceneCfg
from isaaclab_coupling_configs.tool_in_sand import ToolInSandSceneCfg


def _entry_solver_cfg(coupler, name):
    return next(e.solver_cfg for e in coupler.entries if e.name == name)


def test_vbd_fields_reach_the_solver_and_clash_with_extra_args():
    cfg = VBDSolverCfg(particle_self_contact_gap=0.004, rigid_joint_linear_ke=3.0e5, rigid_joint_angular_ke=4.0e4)
    kwargs = cfg.solver_kwargs()
    assert (kwargs["particle_self_contact_gap"], kwargs["rigid_joint_linear_ke"], kwargs["rigid_joint_angular_ke"]) == (
        0.004,
        3.0e5,
        4.0e4,
    )
    with pytest.raises((ValueError, SolverConfigError), match="repeats config field"):
        VBDSolverCfg(
            particle_self_contact_gap=0.004, extra_solver_args={"particle_self_contact_gap": 0.01}
        ).solver_kwargs()
    # The scenes that used extra_solver_args now set the fields, with the values of Newton's examples.
    gripper = _entry_solver_cfg(GripperSceneCfg().coupler_cfg(), "block")
    assert not gripper.extra_solver_args and gripper.solver_kwargs()["rigid_joint_linear_ke"] == 2.0e7
    assert gripper.solver_kwargs()["rigid_joint_angular_ke"] == 2.0e6
    soft = _entry_solver_cfg(SoftbodyOnClothSceneCfg().coupler_cfg(), "cloth")
    assert not soft.extra_solver_args and soft.solver_kwargs()["particle_self_contact_gap"] == 0.01


def test_vbd_joint_stiffness_reaches_newton():
    scene = GripperSceneCfg()
    model, coupler = build_model(scene)
    solver = build_coupled_solver(model, coupler)
    vbd = solver.solver("block")
    assert isinstance(vbd, newton.solvers.SolverVBD)
    found = {name: getattr(vbd, name) for name in dir(vbd) if "joint_linear_k" in name or "joint_angular_k" in name}
    assert any(v == pytest.approx(2.0e7) for v in found.values() if isinstance(v, float)), found


def test_rigid_contact_max_sizes_the_contact_buffers(device):
    scene = BoxOnClothSceneCfg()
    coupler = scene.coupler_cfg()
    coupler.model_cfg = NewtonModelCfg(rigid_contact_max=77)
    sim = launch(scene, SimulationCfg(dt=1.0 / 240.0, device=device, physics=NewtonCfg(solver_cfg=coupler)))
    try:
        model = sim.physics_manager.get_model()
        assert model.rigid_contact_max == 77
        sim.physics_manager.step()
    finally:
        sim.clear_instance()
    with pytest.raises(ValueError, match=r"rigid_contact_max must be >= 0"):
        NewtonModelCfg(rigid_contact_max=-1).validate()


def test_mpm_strain_basis_and_an_entry_that_is_not_in_place():
    assert MPMSolverCfg().solver_kwargs()["strain_basis"] == newton.solvers.SolverImplicitMPM.Config().strain_basis
    assert MPMSolverCfg(strain_basis="Q1").solver_kwargs()["strain_basis"] == "Q1"
    for in_place in (True, False):
        scene = ToolInSandSceneCfg()
        coupler: CouplerProxyCfg = scene.coupler_cfg()
        sand: CouplerEntryCfg = next(e for e in coupler.entries if e.name == "sand")
        sand.in_place = in_place
        model, coupler = build_model(scene, coupler)
        solver = build_coupled_solver(model, coupler)
        entry = solver._entries["sand"]
        assert entry.in_place is in_place
        assert (entry.state_1 is entry.state_0) is in_place  # Newton steps into a second state when not in place
