"""Sensors on coupled scenes through solver observables allocated once as a union."""

import numpy as np
import pytest
import warp as wp
from scenes import replicated, sensor_prototype

from isaaclab_contrib.coupling import (
    CouplerAdmmCfg,
    CouplerEntryCfg,
    NewtonCouplerManager,
)
from isaaclab_contrib.physics import (
    MJWarpSolverCfg,
    NewtonCfg,
    SemiImplicitSolverCfg,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
    XPBDSolverCfg,
)
from isaaclab_contrib.physics.sensors.observables import ObservablesUnsupportedError

G = 9.81
M = NewtonCouplerManager


def coupler(rigid_cfg, entries=None) -> CouplerAdmmCfg:
    """Rigid entry (both boxes and the ground) + VBD cloth entry, ADMM tuned for a 0.1 kg box on the cloth."""
    entries = entries or [
        CouplerEntryCfg(
            name="rigid", solver_cfg=rigid_cfg, bodies=[".*/GroundBox", ".*/ClothBox"], include_static_shapes=True
        ),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=10), all_particles=True),
    ]
    return CouplerAdmmCfg(entries=entries, iterations=8, rho=45.0, gamma=1.0e-3, baumgarte=0.1)


def begin(cfg, device, *, graph=True, source="solver", num_envs=2):
    sim = SimulationContext(
        SimulationCfg(
            dt=1.0 / 240.0,
            device=device,
            physics=NewtonCfg(solver_cfg=cfg, use_cuda_graph=graph, body_qdd_source=source),
        )
    )
    M.set_builder(replicated(sensor_prototype(), num_envs, ground=True))
    return sim


def settle(sim, env_steps=60, imu=None, window=20):
    """Run *env_steps* env steps (4 physics steps each); return the IMU's mean reading over the last *window*.

    A box on the cloth still rocks gently after a second; the mean specific force over a window
    is g + (change of velocity) / window time, i.e. g for a body at rest, as a low-passed IMU reads.
    """
    sim.reset()
    M.set_decimation(4)
    readings = []
    for i in range(env_steps):
        M.step()
        if imu is not None and i >= env_steps - window:
            readings.append(M.imu_accelerometer(imu).numpy().copy())
    return np.mean(readings, axis=0) if readings else None


def masses():
    mass = M.get_model().body_mass.numpy()
    return mass[0::2], mass[1::2]  # ground boxes, cloth boxes


@pytest.mark.slow  # two MuJoCo-Warp IMU scenes run to rest
def test_mujoco_imu_reads_specific_force_at_rest_on_ground_and_on_cloth(device):
    sim = begin(coupler(MJWarpSolverCfg(use_mujoco_contacts=False)), device)
    imu = M.add_imu_sensor(r".*/(GroundBox|ClothBox)/body/imu")
    acc = settle(sim, env_steps=80, imu=imu).reshape(2, 2, 3)  # [env, (ground box, cloth box), xyz]
    assert M.is_graph_captured()
    # Resting on the ground (MuJoCo's own contact) and on the cloth (held only through the ADMM coupling).
    np.testing.assert_allclose(acc[:, 0, 2], G, rtol=0.02)
    np.testing.assert_allclose(acc[:, 1, 2], G, rtol=0.02)
    assert np.all(np.abs(acc[:, :, :2]) < 0.2 * G)


@pytest.mark.slow  # the captured twin stays in the default set
def test_mujoco_imu_eager_reads_the_same_at_rest_on_the_ground(device):
    sim = begin(coupler(MJWarpSolverCfg(use_mujoco_contacts=False)), device, graph=False)
    imu = M.add_imu_sensor(r".*/GroundBox/body/imu")
    acc = settle(sim, env_steps=12, imu=imu, window=4)
    assert not M.is_graph_captured()
    np.testing.assert_allclose(acc[:, 2], G, rtol=0.02)


@pytest.mark.slow  # one run per solver family
def test_step_average_imu_works_for_any_entry_solver_and_sites_from_requests(device):
    sim = begin(coupler(SteelSolverCfg()), device, source="step_average")
    suffix = M.cl_register_site(r"(GroundBox|ClothBox)/body", wp.transform_identity())
    imu = M.add_imu_sensor(f".*/{suffix}")
    acc = settle(sim, env_steps=80, imu=imu)
    labels = [label for label in M.get_model().shape_label if label.endswith(suffix)]
    assert labels == [f"/World/envs/env_{e}/{b}/body/{suffix}" for e in (0, 1) for b in ("GroundBox", "ClothBox")]
    np.testing.assert_allclose(acc[:, 2], G, rtol=0.02)


@pytest.mark.parametrize(
    "rigid",
    [SteelSolverCfg(), pytest.param(XPBDSolverCfg(iterations=4), marks=pytest.mark.slow)],
    ids=["steel", "xpbd"],
)
def test_contact_sensor_reports_the_weight_of_a_box_on_the_ground(rigid, device):
    sim = begin(coupler(rigid), device)
    key = M.add_contact_sensor(body_names_expr=".*/GroundBox/body")
    assert key == (".*/GroundBox/body", None, None, None)  # the expressions as given
    origin_site = M.cl_register_site(None, wp.transform_identity())
    sim.reset()
    model = M.get_model()
    shapes = [i for i, label in enumerate(model.shape_label) if label.endswith("GroundBox/body/collision")]
    site = model.shape_label.index(origin_site)
    frame = M.add_frame_transform_sensor(shapes, [site] * len(shapes))
    M.set_decimation(4)
    for _ in range(30):
        M.step()
    ground_mass, _ = masses()
    force = M.contact_total_force(key).numpy()
    np.testing.assert_allclose(force[:, 2], ground_mass * G, rtol=0.02)
    # The frame sensor (updated inside the replayed graph) sees each box where the state has it.
    poses = M.get_frame_transform_sensor(frame).transforms.numpy()
    np.testing.assert_allclose(poses[:, :3], M.get_state_0().body_q.numpy()[0::2, :3], atol=1e-5)


def test_union_is_allocated_once_before_capture_and_subsets_share_arrays(device):
    sim = begin(coupler(MJWarpSolverCfg(use_mujoco_contacts=False)), device)
    imu = M.add_imu_sensor(r".*/GroundBox/body/imu")
    key = M.add_contact_sensor(body_names_expr=".*/GroundBox/body", contact_partners_shape_expr="/World/ground")
    assert key == (".*/GroundBox/body", None, None, "/World/ground")
    with pytest.warns(DeprecationWarning, match="declare the solver observable kind 'body_qdd'"):
        M.request_extended_state_attribute("body_qdd")
    settle(sim, env_steps=10)
    assert M.observables_allocations() == 1
    full, per_substep = M.get_observables(), M.get_substep_observables()
    assert full.kinds == {"body_qdd"} and per_substep.kinds == {"body_qdd"}
    assert per_substep.body_qdd is full.body_qdd  # select() shares, never copies
    rigid = full.entry_observables["rigid"]
    assert rigid.kinds == {"body_qdd", "contact_f"}
    assert per_substep.entry_observables["rigid"].kinds == {"body_qdd"}
    assert per_substep.entry_observables["rigid"].body_qdd is rigid.body_qdd
    ground_mass, _ = masses()
    np.testing.assert_allclose(M.contact_total_force(key).numpy()[:, 2], ground_mass * G, rtol=0.02)
    np.testing.assert_allclose(M.imu_accelerometer(imu).numpy()[:, 2], G, rtol=0.02)


@pytest.mark.slow  # kept out of the 5-minute default set
def test_imu_on_entries_without_body_qdd_fails_early_naming_sensor_kind_and_entries(device):
    sim = begin(coupler(SteelSolverCfg()), device)
    M.add_imu_sensor(r".*/GroundBox/body/imu")
    with pytest.raises(
        ObservablesUnsupportedError,
        match=r"imu\[0\].*'body_qdd'.*entries \['rigid'\].*SolverSteel.*KaminoSolverCfg, MJWarpSolverCfg.*step_average",
    ):
        sim.reset()
    assert M.get_solver() is None and M.get_model() is None
    # The sensor created on the failed build was dropped with it; the request stays and works once valid.
    assert M.get_imu_sensor(0) is None
    sim.cfg.physics.body_qdd_source = "step_average"
    acc = settle(sim, env_steps=3, imu=0, window=1)
    assert acc.shape == (2, 3) and np.isfinite(acc).all()


@pytest.mark.slow  # two coupled scenes
def test_legacy_contact_request_on_coupled_scenes_allocates_force_and_sensors_still_work(device):
    sim = begin(coupler(SteelSolverCfg()), device)
    key = M.add_contact_sensor(body_names_expr=".*/GroundBox/body")
    with pytest.warns(DeprecationWarning, match="contact_f"):
        M.request_extended_contact_attribute("force")
    settle(sim, env_steps=30)  # a coupled solver has no model-wide contact_f: not required, no failure
    contacts = M.get_contacts()
    assert contacts.force.shape == (contacts.rigid_contact_max + contacts.soft_contact_max,)
    assert M.get_observables().kinds == set() and M.get_observables().entry_observables["rigid"].kinds == {"contact_f"}
    ground_mass, _ = masses()
    np.testing.assert_allclose(M.contact_total_force(key).numpy()[:, 2], ground_mass * G, rtol=0.02)


def test_contact_sensor_spanning_entries_raises_with_reason(device):
    entries = [
        CouplerEntryCfg(
            name="ground_box", solver_cfg=SteelSolverCfg(), bodies=[".*/GroundBox"], include_static_shapes=True
        ),
        CouplerEntryCfg(name="cloth_box", solver_cfg=SteelSolverCfg(), bodies=[".*/ClothBox"]),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=2), all_particles=True),
    ]
    sim = begin(coupler(None, entries), device)
    M.add_contact_sensor(body_names_expr=".*/GroundBox/body", contact_partners_body_expr=".*/ClothBox/body")
    with pytest.raises(
        ValueError,
        match=r"entries \['cloth_box', 'ground_box'\].*cross-entry coupling forces are not Newton contact rows",
    ):
        sim.reset()


def test_contact_sensor_on_an_entry_solver_without_contact_forces_raises(device):
    sim = begin(coupler(SemiImplicitSolverCfg()), device)
    M.add_contact_sensor(body_names_expr=".*/GroundBox/body")
    with pytest.raises(
        ObservablesUnsupportedError, match=r"contact\[.*'contact_f'.*entry 'rigid' runs SolverSemiImplicit"
    ):
        sim.reset()
