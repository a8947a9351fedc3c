"""Checkpoints of the whole simulation and of an env: save, step, restore, step again repeats bitwise; through a
file; one env restored alone leaves the others untouched; a snapshot of another simulation is refused."""

import numpy as np
import pytest
import torch
import warp as wp
from scenes import add_grain_grid

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg, NewtonCouplerManager
from isaaclab_contrib.envs import ManagerBasedRLEnv, mdp
from isaaclab_contrib.managers import EventTermCfg
from isaaclab_contrib.physics import (
    MPMSolverCfg,
    NewtonCfg,
    SimulationCfg,
    SimulationContext,
    SimulationSnapshot,
    SteelSolverCfg,
)
from isaaclab_contrib.scenes import get_scene, launch, scene_names
from isaaclab_coupling_configs.arm_press_cloth_manager_task import ArmPressClothManagerEnvCfg
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothAdmmSceneCfg
from isaaclab_coupling_configs.press_cloth_task import PressClothSceneCfg

SIM = SimulationCfg(dt=1.0 / 240.0, device="cpu", physics=NewtonCfg(decimation=4))


def _states(manager, steps: int, sim) -> np.ndarray:
    rows = []
    for _ in range(steps):
        sim.step()
        s = manager.get_state_0()
        arrays = (s.body_q, s.body_qd, s.particle_q, s.particle_qd, s.joint_q, s.joint_qd)
        rows.append(np.concatenate([a.numpy().astype(np.float64).ravel() for a in arrays if a is not None]))
    return np.stack(rows)


@pytest.mark.parametrize(
    "scene", [PressClothSceneCfg, pytest.param(BoxOnClothAdmmSceneCfg, marks=pytest.mark.slow)], ids=["proxy", "admm"]
)
def test_save_step_restore_step_repeats_bitwise_and_through_a_file(scene, tmp_path):
    sim = launch(scene(num_envs=2), SIM)
    manager = sim.physics_manager
    try:
        for _ in range(3):
            sim.step()
        snapshot = manager.save_state()
        first = _states(manager, 5, sim)
        manager.restore_state(snapshot)
        assert np.array_equal(_states(manager, 5, sim), first)
        loaded = SimulationSnapshot.load(snapshot.save(tmp_path / "sim.snapshot"))
        manager.restore_state(loaded)
        assert np.array_equal(_states(manager, 5, sim), first)
        assert manager.step_mode() == "captured"  # restoring writes the same arrays: the graph stays
    finally:
        sim.clear_instance()


def test_one_env_restored_alone_leaves_the_others_untouched():
    sim = launch(PressClothSceneCfg(num_envs=3), SIM)
    manager = sim.physics_manager
    try:
        for _ in range(2):
            sim.step()
        snapshot = manager.save_state()
        for _ in range(4):
            sim.step()
        before = manager.get_state_0().particle_q.numpy().reshape(3, -1, 3).copy()
        saved = snapshot.arrays["state_0.particle_q"].reshape(3, -1, 3)
        manager.restore_state(snapshot, env_ids=[1])
        manager.forward()
        after = manager.get_state_0().particle_q.numpy().reshape(3, -1, 3)
        assert np.array_equal(after[1], saved[1])  # env 1 is back
        assert np.array_equal(after[[0, 2]], before[[0, 2]])  # the others are bitwise untouched
    finally:
        sim.clear_instance()


@pytest.mark.slow  # ~5 s: builds two simulations
def test_a_snapshot_of_another_simulation_is_refused_by_name(tmp_path):
    sim = launch(PressClothSceneCfg(num_envs=2), SIM)
    snapshot = sim.physics_manager.save_state()
    sim.clear_instance()
    sim = launch(PressClothSceneCfg(num_envs=3), SIM)
    try:
        with pytest.raises(ValueError, match=r"another simulation \(.*world_count: snapshot 2, simulation 3"):
            sim.physics_manager.restore_state(snapshot)
        with pytest.raises(TypeError, match="expected a SimulationSnapshot"):
            sim.physics_manager.restore_state({"state": 1})
    finally:
        sim.clear_instance()
    (tmp_path / "notes.txt").write_text("not a snapshot")
    with pytest.raises(ValueError, match="not a simulation snapshot"):
        SimulationSnapshot.load(tmp_path / "notes.txt")
    with pytest.raises(FileNotFoundError):
        SimulationSnapshot.load(tmp_path / "missing")
    sim = launch(BoxOnClothAdmmSceneCfg(num_envs=2), SIM)  # another scene
    try:
        with pytest.raises(ValueError, match="another simulation"):
            sim.physics_manager.restore_state(snapshot)
    finally:
        sim.clear_instance()


def test_an_env_checkpoint_repeats_observations_rewards_and_dones_across_a_reset():
    cfg = ArmPressClothManagerEnvCfg(episode_length_s=0.2, seed=2)  # 12 env steps: the replay crosses a reset
    cfg.scene.num_envs = 2
    env = ManagerBasedRLEnv(cfg)
    try:
        env.reset()
        g = torch.Generator().manual_seed(1)
        actions = [torch.rand(2, 2, generator=g) * 2 - 1 for _ in range(16)]
        for a in actions[:6]:
            env.step(a)
        checkpoint = env.save_state()

        def rollout():
            rows = []
            for a in actions[6:]:
                obs, reward, terminated, truncated, _ = env.step(a)
                rows.append(torch.cat([obs["policy"], reward[:, None], (terminated | truncated)[:, None]], -1))
            return torch.stack(rows)

        first = rollout()
        assert first[:, :, -1].any()  # an episode ended (and the envs reset, drawing new targets) in the replay
        env.restore_state(checkpoint)
        assert torch.equal(rollout(), first)
    finally:
        env.close()


def test_reset_to_snapshot_draws_each_env_from_a_bank():
    sim_snapshots = []
    cfg = ArmPressClothManagerEnvCfg(seed=0)
    cfg.scene.num_envs = 2
    env = ManagerBasedRLEnv(cfg)
    try:
        env.reset()
        for k in range(2):
            for _ in range(10):
                env.step(torch.full((2, 2), -0.5 + k))
            sim_snapshots.append(env.manager.save_state())
        mdp.reset_to_snapshot(env, torch.tensor([0, 1]), sim_snapshots)
        env.manager.forward()
        q = env.manager.get_state_0().particle_q.numpy().reshape(2, -1, 3)
        for e in range(2):
            banked = [s.arrays["state_0.particle_q"].reshape(2, -1, 3)[e] for s in sim_snapshots]
            assert any(np.array_equal(q[e], b) for b in banked)
        with pytest.raises(ValueError, match="bank of snapshots is empty"):
            mdp.reset_to_snapshot(env, torch.tensor([0]), [])
        assert EventTermCfg(func=mdp.reset_to_snapshot, mode="reset", params={"snapshots": sim_snapshots})
    finally:
        env.close()


@pytest.mark.slow  # every ready scene: about 2 minutes
@pytest.mark.parametrize("name", scene_names())
def test_every_ready_scene_restores(name):
    spec = get_scene(name)
    sim = launch(spec.scene_cfg(num_envs=1), spec.simulation_cfg(device="cpu"))
    manager = sim.physics_manager
    try:
        sim.step()
        snapshot = manager.save_state()
        first = _states(manager, 2, sim)
        manager.restore_state(snapshot)
        assert np.array_equal(_states(manager, 2, sim), first)
    finally:
        sim.clear_instance()


def _box_scene(solver_cfg, grains: bool):
    """An 8 cm Steel box on the ground, optionally beside a bed of grains (implicit MPM, fixed grid) it can fall
    into; one env."""
    sim = SimulationContext(
        SimulationCfg(dt=1 / 120, device="cpu", physics=NewtonCfg(solver_cfg=solver_cfg, decimation=2))
    )
    builder = NewtonCouplerManager.create_builder()
    builder.add_ground_plane()
    builder.begin_world()
    if grains:
        add_grain_grid(builder)
    body = builder.add_body(
        xform=wp.transform((0.0, 0.0, 0.3 if grains else 0.0395), wp.quat_identity()),
        label="/World/envs/env_0/Tool/body",
    )
    builder.add_shape_box(body, hx=0.04, hy=0.04, hz=0.04)
    builder.end_world()
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    return sim


def _pushed_steps(steps: int) -> np.ndarray:
    rows = []
    for k in range(steps):
        state = NewtonCouplerManager.get_state_0()
        qd = state.body_qd.numpy()
        qd[0, 0] = 0.3 * (1 + k % 2)  # pushed along x every step: the box slides, or stirs the grains
        state.body_qd.assign(qd)
        NewtonCouplerManager.step()
        arrays = (state.body_q, state.body_qd, state.particle_q, state.particle_qd)
        rows.append(np.concatenate([a.numpy().ravel() for a in arrays if a is not None]))
    return np.stack(rows)


@pytest.mark.parametrize("grains", [False, True], ids=["steel_friction_patches", "mpm_warm_start"])
def test_history_kept_in_warp_structs_and_fem_fields_comes_back(grains):
    """Steel keeps its friction patches in Warp structs and implicit MPM the warm start of its solve (the previous
    step's grid impulses and stresses) in Warp FEM fields; without them the steps after a restore differ."""
    mpm = MPMSolverCfg(
        voxel_size=0.05, grid_type="fixed", grid_padding=4, max_active_cell_count=1 << 12, max_iterations=20
    )
    solver_cfg = SteelSolverCfg()
    if grains:
        bodies = ["/World/envs/env_.*/Tool"]
        tool = CouplerEntryCfg(name="tool", solver_cfg=solver_cfg, bodies=bodies, include_static_shapes=True)
        sand = CouplerEntryCfg(name="sand", solver_cfg=mpm, all_particles=True, in_place=True)
        proxy = CouplerProxyMappingCfg(source="tool", destination="sand", bodies=bodies)
        solver_cfg = CouplerProxyCfg(entries=[tool, sand], proxies=[proxy])
    sim = _box_scene(solver_cfg, grains)
    try:
        _pushed_steps(3)
        snapshot = NewtonCouplerManager.save_state()
        if grains:
            assert any(p.endswith("_last_step_data.ws_stress_field.dof_values") for p in snapshot.arrays)
        else:
            assert any("_friction_patches.previous." in p for p in snapshot.arrays)
        first = _pushed_steps(4)
        NewtonCouplerManager.restore_state(snapshot)
        assert np.array_equal(_pushed_steps(4), first)
    finally:
        sim.clear_instance()


_PROCESS = """
import sys, numpy as np
import isaaclab_coupling_configs
from isaaclab_coupling_configs.press_cloth_task import PressClothSceneCfg
from isaaclab_contrib.physics import (
    MPMSolverCfg,
    NewtonCfg,
    SimulationCfg,
    SimulationContext,
    SimulationSnapshot,
    SteelSolverCfg,
)
from isaaclab_contrib.scenes import launch
sim = launch(PressClothSceneCfg(num_envs=2), SimulationCfg(dt=1 / 240, device="cpu", physics=NewtonCfg(decimation=4)))
m = sim.physics_manager
mode, folder = sys.argv[1], sys.argv[2]
if mode == "save":
    for _ in range(3):
        sim.step()
    m.save_state().save(folder + "/sim.snapshot")
else:
    m.restore_state(SimulationSnapshot.load(folder + "/sim.snapshot"))
rows = []
for _ in range(5):
    sim.step()
    rows.append(m.get_state_0().particle_q.numpy().copy())
np.save(folder + "/" + mode + ".npy", np.stack(rows))
sim.clear_instance()
"""


@pytest.mark.slow  # two fresh interpreters
def test_a_snapshot_saved_in_one_process_restores_in_another(tmp_path):
    import subprocess
    import sys

    for mode in ("save", "load"):
        subprocess.run([sys.executable, "-c", _PROCESS, mode, str(tmp_path)], check=True, capture_output=True)
    assert np.array_equal(np.load(tmp_path / "save.npy"), np.load(tmp_path / "load.npy"))


def test_checkpoint_calls_refuse_what_they_cannot_do():
    sim = launch(PressClothSceneCfg(num_envs=2), SIM)
    manager = sim.physics_manager
    try:
        snapshot = manager.save_state()
        with pytest.raises((ValueError, IndexError)):
            manager.restore_state(snapshot, env_ids=[5])
        manager.restore_state(snapshot)
        manager.restore_state(snapshot)  # twice is fine
    finally:
        sim.clear_instance()
    with pytest.raises(RuntimeError):
        manager.save_state()  # no simulation any more
