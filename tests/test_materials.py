"""Materials written per env after the start: a cloth whose stiffness differs env by env moves as builds with
that stiffness in their config, the captured step is not recorded again, and softer cloth sags deeper."""

import pytest
import torch
from test_step_recording import recordings  # noqa: F401  (the fixture counting graph recordings)

from isaaclab_contrib.envs.mdp import randomize_deformable_material
from isaaclab_contrib.managers import SceneEntityCfg
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg
from isaaclab_contrib.scenes import InteractiveScene, launch
from isaaclab_coupling_configs.press_cloth_task import PressClothSceneCfg

STIFFNESS = [300.0, 1000.0, 3000.0]
STEPS = 30


def _run(configure, write=None, recorded=None, read=lambda scene: scene["cloth"].data.nodal_pos_w.torch):
    """The press-cloth scene (3 envs) configured by ``configure(cfg)``, written by ``write(scene)`` after the start,
    stepped STEPS env steps; returns ``read(scene)``. With *recorded* (the recordings fixture) it checks that the
    writes and the steps recorded nothing new."""
    cfg = PressClothSceneCfg(num_envs=3)
    configure(cfg)
    sim = launch(cfg, SimulationCfg(dt=1.0 / 240.0, device="cpu", physics=NewtonCfg(decimation=4)))
    try:
        scene = InteractiveScene(cfg, sim.physics_manager)
        before = None if recorded is None else len(recorded)
        if write is not None:
            write(scene)
        for _ in range(STEPS):
            sim.step()
        if recorded is not None:
            assert len(recorded) == before  # the writes and the steps recorded nothing new
            assert sim.physics_manager.step_mode() == "captured"
        return read(scene).clone()
    finally:
        sim.clear_instance()


def _cloth(field: str, value: float):
    return lambda cfg: setattr(cfg.cloth, field, value)


@pytest.mark.slow  # kept out of the 5-minute default set
def test_cloth_stiffness_per_env_matches_builds_and_orders_the_sag(recordings):  # noqa: F811
    write = lambda s: s["cloth"].write_material_to_sim(stiffness=torch.tensor(STIFFNESS))  # noqa: E731
    written = _run(_cloth("stiffness", 1000.0), write, recordings)
    lowest = []
    for env, stiffness in enumerate(STIFFNESS):
        built = _run(_cloth("stiffness", stiffness))
        assert (written[env] - built[env]).abs().max() <= 1e-6, stiffness
        lowest.append(float(written[env][:, 2].min()))
    assert lowest[0] < lowest[1] < lowest[2]  # the softer the cloth, the deeper it sags under its weight


def test_material_writes_refuse_by_name_and_write_nothing():
    cfg = PressClothSceneCfg(num_envs=2)
    sim = launch(cfg, SimulationCfg(dt=1.0 / 240.0, device="cpu", physics=NewtonCfg(decimation=4)))
    try:
        scene = InteractiveScene(cfg, sim.physics_manager)
        cloth = scene["cloth"]
        model = sim.physics_manager.get_model()
        before = model.tri_materials.numpy().copy()
        with pytest.raises(KeyError, match="unknown material field 'k_mu'"):
            cloth.write_material_to_sim(stiffness=500.0, k_mu=1.0)
        with pytest.raises(ValueError, match="finite and >= 0"):
            cloth.write_material_to_sim(stiffness=torch.tensor([500.0, float("nan")]))
        with pytest.raises(ValueError, match="finite and >= 0"):
            cloth.write_material_to_sim(damping=-1.0)
        with pytest.raises(ValueError, match=r"a tensor of \[1\]"):
            cloth.write_material_to_sim(stiffness=torch.tensor([1.0, 2.0]), env_ids=[0])
        with pytest.raises(TypeError, match="stiffness must be a number or a tensor"):
            cloth.write_material_to_sim(stiffness="soft")
        cloth.write_material_to_sim(stiffness=5.0, env_ids=[])  # no envs: nothing to write
        assert (model.tri_materials.numpy() == before).all()  # nothing written on a refusal
        masses = model.body_mass.numpy().copy()
        with pytest.raises(ValueError, match="mass must be > 0"):
            scene["pusher"].write_material_to_sim(mass=torch.tensor([0.2, 0.0]))
        with pytest.raises(KeyError, match="unknown material field 'stiffness'"):
            scene["pusher"].write_material_to_sim(stiffness=1.0)
        assert (model.body_mass.numpy() == masses).all()
        cloth.write_material_to_sim(bend_stiffness=0.5, env_ids=[1])
        bend = model.edge_bending_properties.numpy()[:, 0]
        assert set(bend.astype(float).round(6).tolist()) == {0.01, 0.5}  # env 0 kept the config's 1e-2

        class Env:  # the event term needs the scene, the env count and the device only
            num_envs, device = 2, "cpu"

        env = Env()
        env.scene = scene
        torch.manual_seed(0)
        randomize_deformable_material(env, None, SceneEntityCfg("cloth"), {"stiffness": (2.0, 2.0)}, operation="scale")
        ke = model.tri_materials.numpy()[:, 0]
        assert set(ke.astype(float).round(3).tolist()) == {2.0 * cfg.cloth.stiffness}
    finally:
        sim.clear_instance()


@pytest.mark.slow  # four builds of the gripper scene: about 15 s
def test_soft_body_lame_parameters_per_env_match_builds_and_order_the_squeeze():
    """The gripper squeezes a soft block (its own VBD entry, a coupled copy of the element materials): k_mu and
    k_lambda written per env after the start move each block as a build with those values, and a softer block is
    squeezed narrower."""
    from isaaclab_contrib.scenes import get_scene

    spec = get_scene("proxy_joint_gripper")
    values = [2.0e4, 1.0e5, 5.0e5]

    def run(k: float, write: bool = False):
        cfg = spec.scene_cfg(num_envs=3)
        cfg.block.k_mu = cfg.block.k_lambda = k
        sim = launch(cfg, spec.simulation_cfg(device="cpu"))
        manager = sim.physics_manager
        try:
            scene = InteractiveScene(cfg, manager)
            if write:
                scene["block"].write_material_to_sim(k_mu=torch.tensor(values), k_lambda=torch.tensor(values))
            frame = manager.get_decimation() * sim.get_physics_dt()
            for f in range(40):
                spec.controller(manager, cfg, f * frame)
                sim.step()
            assert manager.step_mode() == "captured"
            return scene["block"].data.nodal_pos_w.torch.clone()
        finally:
            sim.clear_instance()

    written = run(1.0e5, write=True)
    widths = []
    for env, k in enumerate(values):
        assert (written[env] - run(k)[env]).abs().max() <= 1e-6, k
        widths.append(float(written[env][:, 1].max() - written[env][:, 1].min()))
    assert widths[0] < widths[1] < widths[2]  # the softer block is squeezed narrower [m]


def test_randomized_shape_friction_reaches_the_coupled_entries_copies():
    """A coupled solver's entries may keep their own copies of model arrays (the cloth entry sees the proxied
    pusher's shape): a randomized friction is written there too, at the entries' own rows."""
    from isaaclab_contrib.envs.mdp import randomize_rigid_body_material

    cfg = PressClothSceneCfg(num_envs=2)
    sim = launch(cfg, SimulationCfg(dt=1.0 / 240.0, device="cpu", physics=NewtonCfg(decimation=4)))
    try:
        manager = sim.physics_manager
        scene = InteractiveScene(cfg, manager)

        class Env:  # the event term needs the scene, the manager, the env count and the device only
            num_envs, device = 2, "cpu"

        env = Env()
        env.scene, env.manager = scene, manager
        pusher = SceneEntityCfg("pusher")
        pusher.resolve(scene)
        randomize_rigid_body_material(env, None, (0.9, 0.9), (0.37, 0.37), (0.2, 0.2), asset_cfg=pusher)
        model = manager.get_model()
        shapes = torch.nonzero(
            torch.isin(torch.as_tensor(model.shape_body.numpy()), scene["pusher"]._bodies.index.reshape(-1))
        )
        assert torch.allclose(torch.as_tensor(model.shape_material_mu.numpy())[shapes], torch.tensor(0.37))
        bound = manager._instance().part.bound
        copies = 0
        for name, entry in bound.solver._entries.items():
            view = bound.entries[name].model.shape_material_mu
            if view.ptr == model.shape_material_mu.ptr or view.shape[0] == 0:
                continue
            local_to_global = entry.attribute_local_to_global[type(model).AttributeFrequency.SHAPE].numpy()
            mine = [i for i, g in enumerate(local_to_global) if g in set(shapes.reshape(-1).tolist())]
            copies += len(mine)
            assert torch.allclose(torch.as_tensor(view.numpy())[mine], torch.tensor(0.37))
        assert copies > 0  # the cloth entry holds the proxied pusher's shapes
        for _ in range(3):
            sim.step()
        assert manager.step_mode() == "captured"
    finally:
        sim.clear_instance()


@pytest.mark.slow  # four builds: the cloth stiffness test in the default set covers the mechanism
def test_rigid_body_mass_per_env_matches_builds_and_orders_the_press():
    """The pusher's mass written per env after the start moves each pusher as a build of that mass (its density
    set to mass / volume in the config), and a heavier pusher presses the cloth deeper."""
    import math

    masses = [0.1, 0.27, 0.8]
    volume = 4.0 / 3.0 * math.pi * PressClothSceneCfg().pusher.spawn.radius ** 3  # [m^3]

    def density(mass: float):
        return lambda cfg: setattr(cfg.pusher, "density", mass / volume)

    pusher = lambda scene: scene["pusher"].data.root_pos_w.torch  # noqa: E731
    write = lambda scene: scene["pusher"].write_material_to_sim(mass=torch.tensor(masses))  # noqa: E731
    written = _run(density(1000.0 * volume), write, read=pusher)
    for env, mass in enumerate(masses):
        # the inertia is scaled with the mass, not computed again from the shape: equal to the last bits only
        assert (written[env] - _run(density(mass), read=pusher)[env]).abs().max() <= 1e-4, mass
    heights = written[:, 2].tolist()
    assert heights[0] > heights[1] > heights[2]  # the heavier, the deeper


@pytest.mark.slow  # four builds: the cloth stiffness test in the default set covers the mechanism
def test_cloth_particle_mass_per_env_matches_builds_and_orders_the_sag():
    masses = [0.01, 0.02, 0.04]

    write = lambda scene: scene["cloth"].write_material_to_sim(particle_mass=torch.tensor(masses))  # noqa: E731
    written = _run(_cloth("particle_mass", 0.02), write)
    lowest = []
    for env, mass in enumerate(masses):
        assert (written[env] - _run(_cloth("particle_mass", mass))[env]).abs().max() <= 1e-6, mass
        lowest.append(float(written[env][:, 2].min()))
    assert lowest[0] > lowest[1] > lowest[2]  # the heavier cloth sags deeper


def test_joint_armature_per_env_slows_the_arm():
    """Armature written per env after the start: the joint with more armature (more effective inertia) moves less
    in the first env steps toward the same target; envs written alike move alike."""
    from isaaclab_coupling_configs.arm_press_cloth_task import ArmPressClothSceneCfg

    cfg = ArmPressClothSceneCfg(num_envs=4)
    sim = launch(cfg, SimulationCfg(dt=1.0 / 240.0, device="cpu", physics=NewtonCfg(decimation=4)))
    try:
        arm = InteractiveScene(cfg, sim.physics_manager)["arm"]
        arm.write_material_to_sim(armature=torch.tensor([0.0, 0.02, 0.2, 0.2]))
        with pytest.raises(KeyError, match="unknown material field 'stiffness'"):
            arm.write_material_to_sim(stiffness=1.0)
        arm.set_joint_position_target(arm.data.default_joint_pos.torch + 0.5)
        for _ in range(2):
            sim.step()
        moved = (arm.data.joint_pos.torch - arm.data.default_joint_pos.torch)[:, 0]
        assert moved[0] > moved[1] > moved[2] > 0.0 and torch.equal(moved[2], moved[3])
        assert sim.physics_manager.step_mode() == "captured"
    finally:
        sim.clear_instance()


@pytest.mark.slow  # four builds of the ant scene: about 40 s
def test_shape_friction_per_env_matches_builds_with_the_same_notification():
    """The ant's shape friction written per env after the start (ADMM contacts with the hammock) moves each ant
    as a build with that friction in its config that got the same notification: a shape notification discards
    the solvers' warm starts in every world (Newton's rule), so the build is notified alike. Friction changes the
    gait's drift by metres, so the match is no accident."""
    import newton

    from isaaclab_contrib.scenes import get_scene

    spec = get_scene("ant_on_hammock")
    mus = [0.1, 0.5, 1.5]

    def run(mu: float, write: bool = False):
        cfg = spec.scene_cfg(num_envs=3)
        cfg.robot.spawn.material.mu = mu
        sim = launch(cfg, spec.simulation_cfg(device="cpu"))
        manager = sim.physics_manager
        try:
            scene = InteractiveScene(cfg, manager)
            if write:
                scene["robot"].write_material_to_sim(mu=torch.tensor(mus))
            else:
                manager.add_model_change(int(newton.ModelFlags.SHAPE_PROPERTIES))
            frame = manager.get_decimation() * sim.get_physics_dt()
            for f in range(40):
                spec.controller(manager, cfg, f * frame)
                sim.step()
            return scene["robot"].data.root_pos_w.torch.clone()
        finally:
            sim.clear_instance()

    written = run(0.5, write=True)
    for env, mu in enumerate(mus):
        assert (written[env] - run(mu)[env]).abs().max() <= 1e-6, mu
    assert (written[0] - written[2]).norm() > 0.5  # friction changes where the ant goes [m]
