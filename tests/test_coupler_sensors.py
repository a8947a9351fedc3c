"""The coupler's own sensors through the manager, captured, several envs: interface forces between entries,
coupling diagnostics and penetration, checked against independent expectations (m*g, a known overlap, a
particle fired through a plate) and captured == eager."""

from __future__ import annotations

import math

import newton
import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.coupling import (
    CouplerAdmmCfg,
    CouplerEntryCfg,
    CouplerProxyCfg,
    CouplerProxyMappingCfg,
    NewtonCouplerManager,
)
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, SimulationContext, SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.scenes import InitialStateCfg, PinnedClothCfg

M = NewtonCouplerManager
G = 9.81
DT = 1.0 / 240.0
CELLS, CELL = 8, 0.05  # an 8 x 8-cell cloth of 5 cm cells (81 particles per env)
RADIUS = 0.01  # particle contact radius [m]
HEIGHT = 0.1  # cloth plane [m]
BOX_HALF = 0.05  # box half extent [m]


# ----------------------------------------------------------------------------------------------- scenes
def cloth(builder: newton.ModelBuilder, *, mass: float = 0.01, height: float = HEIGHT) -> None:
    """A cloth pinned along two edges (``mass=0``: every particle pinned), of the default material."""
    pos = (0.0, 0.0, height)
    cfg = PinnedClothCfg(
        cells=CELLS, cell_size=CELL, particle_mass=mass, particle_radius=RADIUS, init_state=InitialStateCfg(pos=pos)
    )
    cfg.add_to(builder, "Cloth")  # mass 0 is outside the config's range, and add_to() does not validate


def box_on_cloth(box_mass: float) -> newton.ModelBuilder:
    """One env: a 10 cm box of *box_mass* [kg] 2 mm above a pinned cloth."""
    builder = newton.ModelBuilder()
    cloth(builder)
    z = HEIGHT + RADIUS + BOX_HALF + 0.002
    body = builder.add_body(xform=wp.transform((0.0, 0.0, z), wp.quat_identity()), label="Box/body")
    density = box_mass / (2.0 * BOX_HALF) ** 3
    shape = newton.ModelBuilder.ShapeConfig(density=density)
    builder.add_shape_box(body, hx=BOX_HALF, hy=BOX_HALF, hz=BOX_HALF, cfg=shape, label="Box/body/collision")
    return builder


def mass_under_cloth(mass: float) -> newton.ModelBuilder:
    """One env: a 6 cm box of *mass* [kg] hanging from the cloth's center particle by a particle-body attachment."""
    builder = newton.ModelBuilder()
    cloth(builder, height=0.5)
    center = (CELLS + 1) * (CELLS // 2) + CELLS // 2
    half = 0.03
    inertia = wp.mat33(*(np.eye(3) * mass * (2.0 * half) ** 2 / 6.0).reshape(-1))  # a solid cube's
    xform = wp.transform((0.0, 0.0, 0.5 - half), wp.quat_identity())
    body = builder.add_body(xform=xform, label="Mass/body", mass=mass, inertia=inertia)
    shape = newton.ModelBuilder.ShapeConfig(density=0.0)
    builder.add_shape_box(body, hx=half, hy=half, hz=half, cfg=shape, label="Mass/body/collision")
    builder.add_attachment_particle_body(center, body, body_point=wp.vec3(0.0, 0.0, half), stiffness=1.0e3, damping=1.0)
    return builder


def welded_box(builder: newton.ModelBuilder, z: float, half: tuple[float, float, float], label: str) -> None:
    """A box welded to the world at height *z* [m]."""
    body = builder.add_link(xform=wp.transform((0.0, 0.0, z), wp.quat_identity()), label=f"{label}/body")
    builder.add_shape_box(body, hx=half[0], hy=half[1], hz=half[2], label=f"{label}/body/collision")
    joint = builder.add_joint_fixed(-1, body, parent_xform=wp.transform((0.0, 0.0, z), wp.quat_identity()))
    builder.add_articulation([joint], label=label)


def box_pressed_into_cloth(depth: float) -> newton.ModelBuilder:
    """One env: a welded 12 x 12 x 10 cm box whose bottom is *depth* [m] into the particles' contact spheres of
    a fully pinned cloth; the 3 x 3 particles under it overlap it by exactly *depth*."""
    builder = newton.ModelBuilder(gravity=(0.0, 0.0, 0.0))
    cloth(builder, mass=0.0)
    welded_box(builder, HEIGHT + RADIUS - depth + BOX_HALF, (0.06, 0.06, BOX_HALF), "Box")
    return builder


def particle_fired_at_plate(speed: float) -> newton.ModelBuilder:
    """One env, no gravity: a particle 5 cm above a welded 1 cm plate moving down at *speed* [m/s], one at rest
    beside the plate."""
    builder = newton.ModelBuilder(gravity=(0.0, 0.0, 0.0))
    builder.add_particle(wp.vec3(0.0, 0.0, 0.55), wp.vec3(0.0, 0.0, -speed), 0.01, radius=0.002)
    builder.add_particle(wp.vec3(0.5, 0.0, 0.55), wp.vec3(0.0), 0.01, radius=0.002)
    welded_box(builder, 0.5, (0.1, 0.1, 0.005), "Box")
    return builder


def envs(prototypes: list[newton.ModelBuilder]) -> newton.ModelBuilder:
    """One Newton world per prototype, labelled ``/World/envs/env_{i}``, 2 m apart."""
    builder = M.create_builder()
    for i, prototype in enumerate(prototypes):
        xform = wp.transform((2.0 * i, 0.0, 0.0), wp.quat_identity())
        builder.add_world(prototype, xform=xform, label_prefix=f"/World/envs/env_{i}")
    return builder


def entries(rigid: str = ".*/Box") -> list[CouplerEntryCfg]:
    return [
        CouplerEntryCfg(name="box", solver_cfg=SteelSolverCfg(), bodies=[rigid]),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=10), all_particles=True),
    ]


def admm(iterations: int = 8, contact_pairs=(("box", "cloth"),), rigid: str = ".*/Box", **kw) -> CouplerAdmmCfg:
    """ADMM tuned for a 0.1 kg box on the light cloth (the box-on-cloth scene's settings)."""
    return CouplerAdmmCfg(
        entries=entries(rigid),
        contact_pairs=[tuple(p) for p in contact_pairs],
        iterations=iterations,
        rho=45.0,
        gamma=1.0e-3,
        baumgarte=0.1,
        convergence_tolerance=0.1,
        **kw,
    )


def proxy(iterations: int = 2) -> CouplerProxyCfg:
    """The box mirrored into the cloth solver; two under-relaxed passes keep the light box stable."""
    mapping = CouplerProxyMappingCfg(source="box", destination="cloth", bodies=[".*/Box/body"], proxy_relaxation=0.5)
    return CouplerProxyCfg(entries=entries(), iterations=iterations, proxies=[mapping], convergence_tolerance=0.1)


def begin(cfg, builder, device, *, graph=True, decimation=4) -> SimulationContext:
    physics = NewtonCfg(num_substeps=2, solver_cfg=cfg, use_cuda_graph=graph, decimation=decimation)
    sim = SimulationContext(SimulationCfg(dt=DT, device=device, physics=physics))
    M.set_builder(builder)
    return sim


MASSES = (0.1, 0.2)  # [kg] per env: different rows must read different forces


# ----------------------------------------------------------------------------------------------- recorded runs
def record_box_on_cloth(cfg, device, steps=90):
    """Run the two-env box-on-cloth scene with every coupler sensor; host copies of the readings per env step."""
    sim = begin(cfg, envs([box_on_cloth(m) for m in MASSES]), device)
    on_box = M.add_interface_force_sensor("box", "cloth")
    on_cloth = M.add_interface_force_sensor("cloth", "box") if isinstance(cfg, CouplerAdmmCfg) else None
    depth = M.add_penetration_sensor("cloth", "box")
    assert M.get_coupling_diagnostics() is None  # requested now; read after sim.reset()
    sim.reset()
    run = {"mode": M.step_mode(), "mass": M.get_model().body_mass.numpy().copy(), "wrench": [], "cloth": []}
    run["body_ids"] = M.get_interface_force_sensor(on_box).body_ids.copy()
    run["particle_ids"] = M.get_interface_force_sensor(on_box).particle_ids.copy()
    for key in ("residual", "residual_max", "converged"):
        run[key] = []
    run["depth"] = []
    for _ in range(steps):
        M.step()
        run["wrench"].append(M.get_interface_force_sensor(on_box).wrench.numpy().copy())
        if on_cloth is not None:
            run["cloth"].append(M.get_interface_force_sensor(on_cloth).particles.numpy().copy())
        diagnostics = M.get_coupling_diagnostics()
        for key in ("residual", "residual_max", "converged"):
            run[key].append(diagnostics[key].numpy().copy())
        run["depth"].append(M.get_penetration_sensor(depth).max_depth.numpy().copy())
    run["keys"] = sorted(M.get_coupling_diagnostics())
    run["box_z"] = M.get_state_0().body_q.numpy()[:, 2].copy()
    sim.clear_instance()
    return {k: np.asarray(v) if isinstance(v, list) else v for k, v in run.items()}


class _BoxRuns(dict):
    """The recorded box-on-cloth runs by coupling, each recorded when first asked for (the proxy one only runs
    in the slow tier)."""

    def __init__(self, device):
        super().__init__()
        self.device = device

    def __missing__(self, coupling):
        self[coupling] = record_box_on_cloth({"admm": admm, "proxy": proxy}[coupling](), self.device)
        return self[coupling]


COUPLINGS = [pytest.param("admm", marks=pytest.mark.slow), pytest.param("proxy", marks=pytest.mark.slow)]
"""The box-on-cloth runs' couplings: 90-step recordings each (about 50 s on a 2-core CPU), in the slow tier."""


@pytest.fixture(scope="module")
def box_runs(device):
    return _BoxRuns(device)


# ----------------------------------------------------------------------------------------------- interface force
@pytest.mark.parametrize("coupling", COUPLINGS)
def test_a_box_resting_on_the_cloth_reads_its_weight_per_env(box_runs, coupling):
    run = box_runs[coupling]
    assert run["mode"] == "captured"
    weight = run["mass"] * G  # one box per env, env 0 then env 1
    np.testing.assert_allclose(run["mass"], MASSES, rtol=1e-6)
    assert run["body_ids"].tolist() == [[0], [1]]  # bodies=None: the box of each env, which touches the cloth
    assert run["particle_ids"].shape == (2, 0)  # the box entry owns no particles
    wrench = run["wrench"][-30:, :, 0, :].mean(axis=0)  # the last 30 env steps (0.5 s) at rest, averaged
    np.testing.assert_allclose(wrench[:, 2], weight, rtol=0.02)  # the cloth holds each box up: +m g
    assert np.all(np.abs(wrench[:, :2]) < 0.02 * weight[:, None])
    assert np.all(np.abs(wrench[:, 3:]) < 0.02 * weight[:, None] * BOX_HALF)  # no torque about the box centers
    assert wrench[1, 2] > 1.9 * wrench[0, 2]  # the heavier box's row reads its own weight


@pytest.mark.slow  # kept out of the 5-minute default set
def test_the_force_on_the_cloth_particles_is_the_reaction_on_the_box(box_runs):
    # Newton's third law through the same ADMM rows: the force on the cloth particles from the box is minus the
    # force on the box, env by env and step by step (its particles default to every cloth particle).
    run = box_runs["admm"]
    total_on_cloth = run["cloth"].sum(axis=2)  # [step, env, xyz]
    on_box = run["wrench"][:, :, 0, :3]
    np.testing.assert_allclose(total_on_cloth, -on_box, atol=1e-5 * G)


@pytest.mark.slow  # a hanging mass run to rest
def test_a_mass_hanging_from_the_cloth_by_an_admm_attachment_reads_its_weight(device):
    sim = begin(admm(contact_pairs=(), rigid=".*/Mass"), envs([mass_under_cloth(m) for m in MASSES]), device)
    on_mass = M.add_interface_force_sensor("box", "cloth", bodies=".*/Mass")
    on_cloth = M.add_interface_force_sensor("cloth", "box")
    sim.reset()
    readings = []
    for _ in range(90):
        M.step()
        readings.append(M.get_interface_force_sensor(on_mass).wrench.numpy()[:, 0].copy())
    weight = np.asarray(MASSES) * G
    wrench = np.mean(readings[-30:], axis=0)
    np.testing.assert_allclose(wrench[:, 2], weight, rtol=0.02)  # the attachment carries the mass: +m g
    assert np.all(np.abs(wrench[:, :2]) < 0.01 * weight[:, None])
    # The attachment acts on the cloth's center particle only, with the opposite force.
    particles = M.get_interface_force_sensor(on_cloth)
    center = (CELLS + 1) * (CELLS // 2) + CELLS // 2
    assert particles.particle_ids.tolist() == [[center], [center + (CELLS + 1) ** 2]]
    np.testing.assert_allclose(particles.particles.numpy()[:, 0], -readings[-1][:, :3], atol=1e-6)


# ----------------------------------------------------------------------------------------------- diagnostics
@pytest.mark.parametrize("coupling", COUPLINGS)
def test_the_box_on_cloth_runs_report_convergence(box_runs, coupling):
    extra = {"admm": "primal_residual", "proxy": "feedback_change"}[coupling]
    run = box_runs[coupling]
    assert {"residual", "converged", "iterations", "residual_history", extra} <= set(run["keys"])
    assert np.all(run["converged"][-30:])  # the scenes' tuned settings converge at rest
    assert np.array_equal(run["converged"], run["residual_max"] <= 0.1)
    assert np.all(run["residual"] <= run["residual_max"])


@pytest.mark.slow  # three ADMM runs
def test_the_admm_residual_falls_as_iterations_grow_and_an_under_iterated_step_says_so(device):
    mean, converged, history = {}, {}, {}
    for iterations in (1, 3, 12):
        sim = begin(admm(iterations), envs([box_on_cloth(m) for m in MASSES]), device)
        M.request_coupling_diagnostics()
        sim.reset()
        residuals, flags = [], []
        for step in range(30):
            M.step()
            diagnostics = M.get_coupling_diagnostics()
            residuals.append(diagnostics["residual"].numpy().copy())
            flags.append(diagnostics["converged"].numpy().copy())
            if step == 6:  # landing on the cloth
                history[iterations] = diagnostics["residual_history"].numpy().copy()
        assert diagnostics["iterations"].tolist() == [iterations] * 2
        mean[iterations], converged[iterations] = np.mean(residuals, axis=0), np.asarray(flags)
        sim.clear_instance()
    assert np.all(mean[1] > mean[3]) and np.all(mean[3] > mean[12]), mean
    assert not converged[1].all(axis=0).any()  # one iteration: every env reports non-converged steps
    assert converged[12].all()
    assert history[12].shape == (2, 12)
    assert np.all(history[12][:, -1] < history[12][:, 0])  # within one coupled step the residual falls


# ----------------------------------------------------------------------------------------------- penetration
def test_a_box_pressed_into_the_cloth_reads_that_depth(device):
    depths = (0.003, 0.006)
    sim = begin(admm(contact_pairs=(), iterations=2), envs([box_pressed_into_cloth(d) for d in depths]), device)
    index = M.add_penetration_sensor("box", "cloth")  # either order: the entries' roles are unambiguous
    assert M.add_penetration_sensor("cloth", "box") == 1
    sim.reset()
    for _ in range(3):
        M.step()
        for i in (0, 1):
            sensor = M.get_penetration_sensor(i)
            np.testing.assert_allclose(sensor.max_depth.numpy(), depths, atol=1e-6)
            np.testing.assert_allclose(sensor.total_depth.numpy(), 9 * np.asarray(depths), atol=1e-5)
            assert sensor.penetrating.tolist() == [9, 9]  # the 3 x 3 particles under the box
            assert sensor.inside.tolist() == [0, 0] and sensor.tunnelled.tolist() == [0, 0]
    sensor = M.get_penetration_sensor(index)
    assert (sensor.particle_entry, sensor.rigid_entry) == ("cloth", "box")
    assert sensor.depth.shape == (2, (CELLS + 1) ** 2)


def test_the_shapes_on_an_entry_s_bodies_count_even_when_it_leaves_them_to_no_solver(device):
    # A proxied robot owns its bodies but not their shapes (include_body_shapes=False: the proxies' copies
    # collide); the sensor still measures against the shapes those bodies carry.
    depths = (0.003, 0.006)
    cfg = admm(contact_pairs=(), iterations=2)
    cfg.entries[0].include_body_shapes = False
    sim = begin(cfg, envs([box_pressed_into_cloth(d) for d in depths]), device)
    index = M.add_penetration_sensor("box", "cloth")
    sim.reset()
    assert M.get_coupling_plan().entries["box"].shapes == []
    M.step()
    sensor = M.get_penetration_sensor(index)
    assert (sensor.particle_entry, sensor.rigid_entry) == ("cloth", "box")
    np.testing.assert_allclose(sensor.max_depth.numpy(), depths, atol=1e-6)
    assert sensor.penetrating.tolist() == [9, 9]


def test_a_particle_fired_through_a_plate_counts_as_tunnelled(device):
    # 12 m/s crosses the 1 cm plate within one env step (20 cm); 3 m/s stops inside it (5 cm).
    sim = begin(admm(contact_pairs=(), iterations=2), envs([particle_fired_at_plate(v) for v in (12.0, 3.0)]), device)
    index = M.add_penetration_sensor("cloth", "box")
    sim.reset()
    M.step()
    sensor = M.get_penetration_sensor(index)
    assert sensor.tunnelled.tolist() == [1, 1]
    assert sensor.inside.tolist() == [0, 1]
    assert sensor.penetrating.tolist() == [0, 1]
    M.step()  # both particles are below the plate now and left it
    assert sensor.tunnelled.tolist() == [0, 0] and sensor.max_depth.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("coupling", COUPLINGS)
def test_a_box_resting_on_the_cloth_barely_penetrates(box_runs, coupling):
    assert np.all(box_runs[coupling]["depth"][-30:] < 0.5 * RADIUS), coupling


# ----------------------------------------------------------------------------------------------- capture
@pytest.mark.slow  # ~7 s each; test_manager (captured == eager) and test_sensors (captured, sensors on) stay in default
@pytest.mark.parametrize("make", [admm, proxy], ids=["admm", "proxy"])
def test_captured_equals_eager_bitwise_with_the_sensors_on(make, device):
    results = []
    for graph in (True, False):
        sim = begin(make(iterations=2), envs([box_on_cloth(m) for m in MASSES]), device, graph=graph)
        force = M.add_interface_force_sensor("box", "cloth")
        depth = M.add_penetration_sensor("cloth", "box")
        M.request_coupling_diagnostics()
        sim.reset()
        assert M.step_mode() == ("captured" if graph else "eager")
        for _ in range(8):
            M.step()
        state = M.get_state_0()
        out = {
            "body_q": state.body_q.numpy().copy(),
            "particle_q": state.particle_q.numpy().copy(),
            "wrench": M.get_interface_force_sensor(force).wrench.numpy().copy(),
            "depth": M.get_penetration_sensor(depth).depth.numpy().copy(),
        }
        out.update({k: v.numpy().copy() for k, v in M.get_coupling_diagnostics().items()})
        results.append(out)
        sim.clear_instance()
    captured, eager = results
    assert captured.keys() == eager.keys()
    for key in captured:
        assert np.array_equal(captured[key], eager[key]), key
    assert np.any(captured["wrench"] != 0.0)


@pytest.mark.slow  # kept out of the 5-minute default set
def test_the_sensors_leave_the_physics_bitwise_unchanged(device):
    states = []
    for sensors in (True, False):
        sim = begin(admm(iterations=2), envs([box_on_cloth(m) for m in MASSES]), device)
        if sensors:
            M.add_interface_force_sensor("box", "cloth")
            M.add_penetration_sensor("cloth", "box")
            M.request_coupling_diagnostics()
        sim.reset()
        for _ in range(8):
            M.step()
        states.append((M.get_state_0().body_q.numpy().copy(), M.get_state_0().particle_q.numpy().copy()))
        sim.clear_instance()
    assert all(np.array_equal(a, b) for a, b in zip(*states, strict=True))


# ----------------------------------------------------------------------------------------------- hostile inputs
def test_wrong_arguments_are_refused_before_anything_is_registered(device):
    sim = begin(admm(), envs([box_on_cloth(m) for m in MASSES]), device)
    with pytest.raises(TypeError, match="entry must be an entry name string"):
        M.add_interface_force_sensor(1, "cloth")
    with pytest.raises(
        ValueError, match=r"entry='boxx' is not an entry of CouplerAdmmCfg; entries: \['box', 'cloth'\]"
    ):
        M.add_interface_force_sensor("boxx", "cloth")
    with pytest.raises(ValueError, match="partner='sand' is not an entry"):
        M.add_penetration_sensor("cloth", "sand")
    with pytest.raises(ValueError, match="entry and partner are both 'box'"):
        M.add_interface_force_sensor("box", "box")
    with pytest.raises(TypeError, match="bodies must be None, a label regex"):
        M.add_interface_force_sensor("box", "cloth", bodies=3)
    with pytest.raises(ValueError, match="not a valid regular expression"):
        M.add_interface_force_sensor("box", "cloth", bodies="(")
    with pytest.raises(TypeError, match=r"particles\[0\] must be an integer index"):
        M.add_interface_force_sensor("cloth", "box", particles=["a"])
    with pytest.raises(ValueError, match=r"particles\[0\]=-1 must be >= 0"):
        M.add_interface_force_sensor("cloth", "box", particles=[-1])
    # The same sensor twice is one sensor; another selection is another.
    assert M.add_interface_force_sensor("box", "cloth") == 0
    assert M.add_interface_force_sensor("box", "cloth") == 0
    assert M.add_interface_force_sensor("box", "cloth", bodies=[".*/Box"]) == 1
    assert M.get_interface_force_sensor(0) is None  # before sim.reset()
    with pytest.raises(KeyError, match="no interface-force sensor 2"):
        M.get_interface_force_sensor(2)
    sim.clear_instance()


def test_a_nan_tolerance_is_refused_naming_the_field(device):
    cfg = admm()
    cfg.convergence_tolerance = math.nan
    with pytest.raises(ValueError, match=r"CouplerAdmmCfg\.convergence_tolerance must not be NaN"):
        begin(cfg, envs([box_on_cloth(0.1)]), device)


def test_entries_that_do_not_interact_and_foreign_bodies_are_named_at_reset(device):
    sim = begin(admm(contact_pairs=()), envs([box_on_cloth(m) for m in MASSES]), device)
    M.add_interface_force_sensor("box", "cloth")
    with pytest.raises(ValueError, match="entries 'box' and 'cloth' do not interact"):
        sim.reset()
    sim.clear_instance()
    sim = begin(admm(), envs([box_on_cloth(m) for m in MASSES]), device)
    M.add_interface_force_sensor("cloth", "box", bodies=".*/Box")
    with pytest.raises(ValueError, match="that entry 'cloth' does not own"):
        sim.reset()
    sim.clear_instance()
    sim = begin(proxy(), envs([box_on_cloth(m) for m in MASSES]), device)
    M.add_interface_force_sensor("cloth", "box")  # the proxy maps the box into the cloth, not the reverse
    with pytest.raises(ValueError, match="harvests feedback only on the source side"):
        sim.reset()
    sim.clear_instance()


@pytest.mark.slow  # kept out of the 5-minute default set
def test_sensors_added_after_reset_are_captured_and_a_failed_one_leaves_nothing(device):
    sim = begin(admm(iterations=2), envs([box_on_cloth(m) for m in MASSES]), device)
    depth = M.add_penetration_sensor("cloth", "box")
    sim.reset()
    M.step()
    force = M.add_interface_force_sensor("box", "cloth")  # re-created and re-captured
    diagnostics = M.get_coupling_diagnostics()  # requested now: re-captured again
    assert M.step_mode() == "captured"
    with pytest.raises(ValueError, match="matches no body label"):
        M.add_interface_force_sensor("box", "cloth", bodies=".*/Nothing")
    with pytest.raises(KeyError):
        M.get_interface_force_sensor(1)  # not registered
    assert M.get_solver()._coupling_probe is None  # nothing stays attached to the solver
    assert M.step_mode() == "captured"
    for _ in range(20):
        M.step()
    assert M.get_interface_force_sensor(force).wrench[:, 0, 2].min() > 0.0  # the new sensor reads, captured
    assert diagnostics["iterations"].tolist() == [2, 2]
    assert np.all(diagnostics["residual_history"].numpy() >= 0.0)
    assert M.get_penetration_sensor(depth).max_depth.shape == (2,)
    sim.clear_instance()
