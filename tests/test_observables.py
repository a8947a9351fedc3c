"""Solver observables through the manager: request_observables(), legacy extended attributes, contact keys."""

import numpy as np
import pytest
import warp as wp
from scenes import replicated, sensor_prototype

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg, NewtonCouplerManager
from isaaclab_contrib.physics import (
    MJWarpSolverCfg,
    NewtonCfg,
    NewtonManager,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
    XPBDSolverCfg,
)
from isaaclab_contrib.physics.sensors.observables import ObservablesUnsupportedError

G = 9.81
ARM = 0.5  # distance of the link's centre of mass from the hinge [m]
M = NewtonManager


def pendulum(*, hanging: bool):
    """A 10 cm, 1 kg cube on a hinge (axis +y) 1 m up, its centre ARM from the hinge: straight below it
    (at rest) or level with it along +x (about to swing down)."""
    builder = M.create_builder()
    position = (0.0, 0.0, 1.0 - ARM) if hanging else (ARM, 0.0, 1.0)
    child = (0.0, 0.0, ARM) if hanging else (-ARM, 0.0, 0.0)
    link = builder.add_link(xform=wp.transform(position, wp.quat_identity()), label="/World/Arm/link")
    builder.add_shape_box(link, hx=0.05, hy=0.05, hz=0.05, label="/World/Arm/link/collision")
    hinge = builder.add_joint_revolute(
        -1,
        link,
        parent_xform=wp.transform((0.0, 0.0, 1.0), wp.quat_identity()),
        child_xform=wp.transform(child, wp.quat_identity()),
        axis=(0.0, 1.0, 0.0),
        label="/World/Arm/hinge",
    )
    builder.add_articulation([hinge], label="/World/Arm")
    return builder


def begin(solver_cfg, device, builder=None):
    sim = SimulationContext(SimulationCfg(dt=1.0 / 240.0, device=device, physics=NewtonCfg(solver_cfg=solver_cfg)))
    M.set_builder(builder if builder is not None else pendulum(hanging=True))
    return sim


def coupled(rigid_cfg) -> CouplerAdmmCfg:
    entries = [
        CouplerEntryCfg(
            name="rigid", solver_cfg=rigid_cfg, bodies=[".*/GroundBox", ".*/ClothBox"], include_static_shapes=True
        ),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=10), all_particles=True),
    ]
    return CouplerAdmmCfg(entries=entries, iterations=8, rho=45.0, gamma=1.0e-3, baumgarte=0.1)


# ---------------------------------------------------------------- legacy extended attributes
def test_legacy_state_attributes_are_allocated_on_the_states_and_filled_by_mujoco(device):
    sim = begin(MJWarpSolverCfg(), device)
    with pytest.raises(ValueError, match=r"'body_parent_f', 'body_qdd', 'mujoco:qfrc_actuator'"):
        M.request_extended_state_attribute("body_acc")
    for attr in ("body_parent_f", "body_qdd", "mujoco:qfrc_actuator"):  # every name Newton accepts
        with pytest.warns(DeprecationWarning, match=attr):
            M.request_extended_state_attribute(attr)
    sim.reset()
    model, state = M.get_model(), M.get_state_0()
    for source in (state, M.get_state_1(), model.state()):  # the states and every later model.state()
        assert source.body_parent_f.shape == (1,) and source.body_qdd.shape == (1,)
        assert source.mujoco.qfrc_actuator.shape == (model.joint_dof_count,)
    # The mapped kinds joined the union (one container, read through get_observables()).
    assert M.get_observables().kinds == {"body_parent_f", "body_qdd", "qfrc_actuator"}
    assert M.step_mode() == "captured"
    M.set_decimation(4)
    for _ in range(3):
        M.step()
    mass = float(model.body_mass.numpy()[0])
    # A body hanging at rest: zero acceleration, and its hinge carries its weight, m * g upwards.
    np.testing.assert_allclose(state.body_qdd.numpy(), 0.0, atol=1e-3)
    np.testing.assert_allclose(state.body_parent_f.numpy()[0], [0.0, 0.0, mass * G, 0.0, 0.0, 0.0], atol=1e-3)
    np.testing.assert_allclose(M.get_observables().body_parent_f.numpy(), state.body_parent_f.numpy(), atol=1e-6)


def box_on_ground():
    """A 10 cm, 1 kg box resting on the ground plane."""
    builder = M.create_builder()
    builder.add_ground_plane(label="/World/ground")
    box = builder.add_body(xform=wp.transform((0.0, 0.0, 0.05), wp.quat_identity()), label="/World/Box/body")
    builder.add_shape_box(box, hx=0.05, hy=0.05, hz=0.05, label="/World/Box/body/collision")
    return builder


def test_legacy_contact_force_is_allocated_and_filled_by_a_standalone_solver(device):
    sim = begin(XPBDSolverCfg(iterations=4), device, box_on_ground())
    with pytest.raises(ValueError, match=r"\['force'\]"):
        M.request_extended_contact_attribute("impulse")
    with pytest.warns(DeprecationWarning, match="contact_f"):
        M.request_extended_contact_attribute("force")
    sim.reset()
    contacts = M.get_contacts()
    assert contacts.force.shape == (contacts.rigid_contact_max + contacts.soft_contact_max,)
    assert M.get_observables().kinds == {"contact_f"}
    M.set_decimation(4)
    for _ in range(30):
        M.step()
    count = int(contacts.rigid_contact_count.numpy()[0])
    model = M.get_model()
    box_shape = model.shape_label.index("/World/Box/body/collision")
    rows = contacts.force.numpy()[:count]
    # Rows hold the force on shape 0's body by shape 1's: the box's side pushes up with its weight.
    sign = np.where(contacts.rigid_contact_shape0.numpy()[:count] == box_shape, 1.0, -1.0)
    weight = float(model.body_mass.numpy()[0]) * G
    np.testing.assert_allclose((sign[:, None] * rows[:, :3]).sum(axis=0), [0.0, 0.0, weight], atol=0.02 * weight)


def test_a_legacy_request_after_reset_is_refused_and_changes_nothing(device):
    sim = begin(XPBDSolverCfg(iterations=4), device, box_on_ground())
    sim.reset()
    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError, match=r"must be called before sim\.reset\(\)"):
        M.request_extended_state_attribute("body_parent_f")
    assert M.get_state_0().body_parent_f is None and M.get_model().state().body_parent_f is None
    assert not NewtonManager._session.legacy_state_attributes and not NewtonManager._session.legacy_kinds
    M.step()
    assert M.step_mode() == "captured"


def test_a_legacy_request_the_solver_cannot_serve_fails_the_reset_naming_the_solver(device):
    sim = begin(XPBDSolverCfg(iterations=4), device, box_on_ground())
    with pytest.warns(DeprecationWarning):
        M.request_extended_state_attribute("body_qdd")  # XPBD has no body accelerations
    with pytest.raises(ObservablesUnsupportedError, match=r"'body_qdd'.*SolverXPBD"):
        sim.reset()
    assert M.get_model() is None


def test_legacy_contact_force_on_a_coupled_scene_is_allocated_without_requiring_contact_f(device):
    sim = SimulationContext(
        SimulationCfg(dt=1.0 / 240.0, device=device, physics=NewtonCfg(solver_cfg=coupled(SteelSolverCfg())))
    )
    NewtonCouplerManager.set_builder(replicated(sensor_prototype(), 1, ground=True))
    with pytest.warns(DeprecationWarning, match="contact_f"):
        NewtonCouplerManager.request_extended_contact_attribute("force")
    sim.reset()  # used to fail: a coupled solver has no model-wide contact_f
    contacts = NewtonCouplerManager.get_contacts()
    assert contacts.force.shape == (contacts.rigid_contact_max + contacts.soft_contact_max,)
    assert NewtonCouplerManager.get_model().get_requested_contact_attributes() == {"force"}
    assert NewtonCouplerManager.get_observables() is None  # nothing requires an observable
    solver = NewtonCouplerManager.get_solver()
    assert solver.entry_contacts("rigid", contacts).force is not None  # entries' filtered buffers follow
    NewtonCouplerManager.step()
    assert NewtonCouplerManager.is_graph_captured()


# ---------------------------------------------------------------- request_observables()
def test_request_observables_reads_mujoco_qfrc_bias_and_refuses_what_the_solver_lacks(device):
    sim = begin(MJWarpSolverCfg(), device, pendulum(hanging=False))
    with pytest.raises(ValueError, match=r"unknown observable kind\(s\) \['qfrc_gravity'\].*'qfrc_bias'"):
        M.request_observables({"qfrc_bias", "qfrc_gravity"})
    assert M.get_requested_observables() == frozenset()
    M.request_observables("qfrc_bias")
    sim.reset()
    observables = M.get_observables()
    assert observables.kinds == {"qfrc_bias"} and M.observables_allocations() == 1
    M.step()
    # MuJoCo's bias force at the start of the step: minus the gravity torque on the level arm about
    # the hinge, -(r x m g) . y = -m g ARM (the arm starts at rest, so there is no velocity term).
    mass = float(M.get_model().body_mass.numpy()[0])
    np.testing.assert_allclose(observables.qfrc_bias.numpy(), [-mass * G * ARM], rtol=1e-3)
    # A kind this solver cannot produce: raises naming it, the solver and what it supports; nothing changes.
    with pytest.raises(
        ObservablesUnsupportedError,
        match=r"\['body_awake'\].*SolverMuJoCo supports \['body_parent_f', 'body_qdd', 'contact_f', 'overflow'",
    ):
        M.request_observables(["qfrc_frictionloss", "body_awake"])
    assert M.get_requested_observables() == {"qfrc_bias"}
    assert M.get_observables() is observables and M.observables_allocations() == 1
    # After reset a supported kind is allocated again (one container) and the step re-captured.
    M.request_observables("qfrc_frictionloss")
    assert M.get_observables().kinds == {"qfrc_bias", "qfrc_frictionloss"} and M.observables_allocations() == 2
    assert M.step_mode() == "captured"
    M.step()
    assert np.isfinite(M.get_observables().qfrc_frictionloss.numpy()).all()


def test_request_observables_on_a_coupled_scene_names_the_entries_and_leaves_nothing_registered(device):
    sim = SimulationContext(
        SimulationCfg(dt=1.0 / 240.0, device=device, physics=NewtonCfg(solver_cfg=coupled(SteelSolverCfg())))
    )
    NewtonCouplerManager.set_builder(replicated(sensor_prototype(), 1, ground=True))
    # Every entry that owns bodies (Steel) produces body_parent_f: the coupled solver gathers it.
    NewtonCouplerManager.request_observables("body_parent_f")
    sim.reset()
    observables = NewtonCouplerManager.get_observables()
    assert observables.kinds == {"body_parent_f"}
    # Contact forces stay inside the entries: refused, naming the kind, the solver, every entry and its support.
    with pytest.raises(
        ObservablesUnsupportedError,
        match=r"cannot produce \['contact_f'\]: \w+ supports \['body_parent_f'\].*"
        r"entry 'rigid' runs SolverSteel, which supports \['body_parent_f', 'contact_f'\].*"
        r"entry 'cloth' runs SolverVBD, which supports \['contact_f'\]",
    ):
        NewtonCouplerManager.request_observables(["contact_f"])
    assert NewtonCouplerManager.get_requested_observables() == {"body_parent_f"}
    assert NewtonCouplerManager.get_observables() is observables
    NewtonCouplerManager.step()
    assert NewtonCouplerManager.is_graph_captured()


# ---------------------------------------------------------------- contact sensor keys
def test_contact_sensor_key_is_the_expressions_as_given():
    SimulationContext(
        SimulationCfg(dt=1.0 / 240.0, device="cpu", physics=NewtonCfg(solver_cfg=coupled(SteelSolverCfg())))
    )
    key = NewtonCouplerManager.add_contact_sensor(
        body_names_expr=[".*/GroundBox/body", ".*/ClothBox/body"], contact_partners_shape_expr="/World/ground"
    )
    assert key == ((".*/GroundBox/body", ".*/ClothBox/body"), None, None, "/World/ground")
    hash(key)
    same = NewtonCouplerManager.add_contact_sensor(
        body_names_expr=[".*/GroundBox/body", ".*/ClothBox/body"], contact_partners_shape_expr="/World/ground"
    )
    assert same == key and len(NewtonManager._session.sensors_of("contact")) == 1
    other = NewtonCouplerManager.add_contact_sensor(shape_names_expr=".*/GroundBox/body/collision")
    assert other == (None, ".*/GroundBox/body/collision", None, None)
    # The key (lists may be given as lists) finds the sensor; it exists once sim.reset() created it.
    assert NewtonCouplerManager.get_contact_sensor(key) is None
    assert NewtonCouplerManager.get_contact_sensor([list(key[0]), None, None, "/World/ground"]) is None
    with pytest.raises(KeyError, match="no contact sensor"):
        NewtonCouplerManager.get_contact_sensor((".*/GroundBox/body", None, None, None))
