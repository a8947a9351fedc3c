"""launch(): the start-up sequence in one call — decimation from the config, nothing mutated, nothing half-done."""

import numpy as np
import pytest
from manager_helpers import DT, cheap_coupler, small_scene

from isaaclab_contrib.coupling import NewtonCouplerManager as M
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, SimulationContext
from isaaclab_contrib.scenes import copy_config, get_scene, launch
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg


def sim_cfg(device: str, coupler=None, **physics) -> SimulationCfg:
    physics = NewtonCfg(**physics) if coupler is None else NewtonCfg(solver_cfg=coupler, **physics)
    return SimulationCfg(dt=DT, device=device, physics=physics)


def test_launch_starts_the_scene_with_its_coupler_and_the_configured_decimation(device):
    scene = small_scene(2)
    sim = launch(scene, sim_cfg(device, decimation=3))
    try:
        assert SimulationContext.instance() is sim and sim.physics_manager is M
        assert M.get_decimation() == 3 and M.step_mode() == "captured"
        assert M.get_model().body_label == ["/World/envs/env_0/Box/body", "/World/envs/env_1/Box/body"]
        assert sim.cfg.physics.solver_cfg.entry_names() == ["box", "cloth"]  # the scene's coupler_cfg()
        z0 = M.get_state_0().body_q.numpy()[:, 2].copy()
        M.step()
        assert M.get_simulation_time() == pytest.approx(3 * DT)
        assert np.all(M.get_state_0().body_q.numpy()[:, 2] < z0)  # the boxes fall
    finally:
        sim.clear_instance()


def test_launch_never_mutates_the_configs_passed_in(device):
    scene = small_scene(1)
    coupler = cheap_coupler("proxy")
    sim = sim_cfg(device, coupler, decimation=2)
    scene_before, sim_before = repr(scene.to_dict()), repr(sim.to_dict())
    context = launch(scene, sim)
    try:
        # The runtime's in-place write-back of resolved proxy body ids lands in launch's copy.
        assert context.cfg.physics.solver_cfg.proxies[0].bodies == [0]
        assert context.cfg is not sim and context.cfg.physics.solver_cfg is not coupler
    finally:
        context.clear_instance()
    assert coupler.proxies[0].bodies == ["/World/envs/env_.*/Box"]
    assert repr(scene.to_dict()) == scene_before and repr(sim.to_dict()) == sim_before


def test_copies_share_hooks_so_they_still_report_to_their_owner():
    class Recorder:
        def __init__(self):
            self.calls = 0

        def built(self, solver, view) -> None:
            self.calls += 1

    recorder = Recorder()
    coupler = cheap_coupler("proxy")
    coupler.entries[1].post_build = recorder.built
    copied = copy_config(coupler)
    assert copied is not coupler and copied.entries[1] is not coupler.entries[1]
    assert copied.entries[1].post_build == recorder.built  # the same bound method, the same recorder
    copied.entries[1].post_build(None, None)
    assert recorder.calls == 1


def test_a_second_launch_while_one_is_active_raises_naming_it(device):
    first = launch(small_scene(1), sim_cfg(device, cheap_coupler("admm")))
    try:
        with pytest.raises(
            RuntimeError, match=r"launch\(\): a simulation context is already active: SimulationContext\("
        ):
            launch(small_scene(1), sim_cfg(device, cheap_coupler("admm")))
        assert SimulationContext.instance() is first
        M.step()  # the first keeps working
        assert M.get_simulation_time() == pytest.approx(DT)
    finally:
        first.clear_instance()


def test_a_failed_build_or_reset_clears_the_context_launch_created(device):
    class Broken(RuntimeError):
        pass

    def broken_build(builder):
        small_scene(1).build(builder)
        raise Broken("the scene could not be built")

    with pytest.raises(Broken):
        launch(broken_build, sim_cfg(device, cheap_coupler("admm")))
    assert SimulationContext.instance() is None and M.get_model() is None

    unresolvable = cheap_coupler("admm")
    unresolvable.entries[0].bodies = ["/World/envs/env_.*/NoSuchBody"]  # fails when sim.reset() resolves it
    with pytest.raises(ValueError, match="NoSuchBody"):
        launch(small_scene(1), sim_cfg(device, unresolvable))
    assert SimulationContext.instance() is None and M.get_model() is None

    sim = launch(small_scene(1), sim_cfg(device, cheap_coupler("admm")))  # nothing half-done is left over
    try:
        M.step()
        assert np.isfinite(M.get_state_0().body_q.numpy()).all()
    finally:
        sim.clear_instance()


def test_bad_inputs_are_refused_before_anything_is_created():
    with pytest.raises(TypeError, match="sim must be a SimulationCfg"):
        launch(small_scene(1), NewtonCfg())
    with pytest.raises(TypeError, match="scene must be a SceneBaseCfg or a build"):
        launch(3, sim_cfg("cpu"))
    with pytest.raises(ValueError, match="solver_cfg is unset and the scene is a build function"):
        launch(small_scene(1).build, sim_cfg("cpu"))
    bad = small_scene(1)
    bad.cloth.cell_size = -0.1
    with pytest.raises(ValueError, match=r"BoxOnClothSceneCfg\.cloth\.cell_size must be > 0"):
        launch(bad, sim_cfg("cpu"))
    renamed = BoxOnClothSceneCfg()
    renamed.cloth.entry = "fabric"
    with pytest.raises(ValueError, match=r"BoxOnClothSceneCfg\.cloth\.entry='fabric' is not an entry of the coupler"):
        launch(renamed, sim_cfg("cpu", cheap_coupler("admm")))
    assert SimulationContext.instance() is None


def test_a_registered_scene_gives_its_timing():
    spec = get_scene("proxy_joint_gripper")
    sim = spec.simulation_cfg(device="cpu")
    assert (sim.dt, sim.physics.decimation, sim.physics.num_substeps) == (1.0 / 60.0, 1, 6)
    assert get_scene("box_on_cloth").simulation_cfg(dt=0.01, use_cuda_graph=False).dt == 0.01
    assert get_scene("box_on_cloth").simulation_cfg().dt == 1.0 / 240.0
