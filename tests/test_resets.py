"""Reset policy: resets clear solver-owned buffers and keep the joint, body and particle state that was written.

Per solver family (see ``SolverBinding.reset_policy``): a full reset puts every world back to its initial
state and rebuilds the solver; a masked reset (``write_initial_state(env_ids=...)``) puts only those worlds
back; an FK invalidation (``invalidate_fk``) keeps the joint coordinates the task wrote and recomputes the
bodies from them. In every case the solver is told to reset none of the state the task writes
(``StateFlags.NONE``; implicit MPM's particle history: ``StateFlags.PARTICLE``, see ``test_mpm_resets.py``).
"""

import newton
import newton.examples
import numpy as np
import pytest
from scenes import add_hinge_arm, add_small_cloth

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg, NewtonCouplerManager
from isaaclab_contrib.physics import (
    KaminoSolverCfg,
    MJWarpSolverCfg,
    NewtonCfg,
    NewtonManager,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
)
from isaaclab_contrib.scenes import replicate_envs
from isaaclab_coupling_configs.tool_in_sand import ToolInSandSceneCfg

DT = 1.0 / 240.0


def ant_builder(manager, num_envs: int, *, cloth: bool) -> newton.ModelBuilder:
    proto = newton.ModelBuilder()
    proto.add_mjcf(newton.examples.get_asset("nv_ant.xml"), ignore_names=["floor"])
    scene = newton.ModelBuilder()
    scene.add_builder(proto, label_prefix="Robot")
    if cloth:
        add_small_cloth(scene, cells=3, height=2.0)
    builder = manager.create_builder()
    replicate_envs(builder, scene, num_envs, spacing=3.0)
    return builder


def start(solver_cfg, device, *, coupled: bool):
    if coupled:
        solver_cfg = CouplerProxyCfg(
            entries=[
                CouplerEntryCfg(name="robot", solver_cfg=solver_cfg, bodies=["/World/envs/env_.*/Robot"]),
                CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=2), all_particles=True),
            ],
            proxies=[
                CouplerProxyMappingCfg(source="robot", destination="cloth", bodies=["/World/envs/env_.*/Robot/.*"])
            ],
        )
    sim = SimulationContext(SimulationCfg(dt=DT, device=device, physics=NewtonCfg(solver_cfg=solver_cfg)))
    NewtonManager.set_builder(ant_builder(NewtonManager, 2, cloth=coupled))
    sim.reset()
    return sim


SOLVERS = {
    "mujoco": lambda: MJWarpSolverCfg(),
    "steel": lambda: SteelSolverCfg(),
    "mujoco-entry": lambda: MJWarpSolverCfg(use_mujoco_contacts=False),
    "steel-entry": lambda: SteelSolverCfg(),
}


@pytest.mark.parametrize("which", sorted(SOLVERS))
def test_fk_invalidation_keeps_the_joint_state_the_task_wrote(which, device):
    start(SOLVERS[which](), device, coupled=which.endswith("-entry"))
    joint_q, joint_qd = NewtonManager.joint_view("joint_q"), NewtonManager.joint_view("joint_qd")
    hip = NewtonManager.joint_view_columns("joint_q").index("hip_1")
    hip_dof = NewtonManager.joint_view_columns("joint_qd").index("hip_1")
    untouched = joint_q[0].clone()
    body_before = NewtonManager.get_state_0().body_q.numpy().copy()
    joint_q[1, hip] = 0.4
    joint_qd[1, hip_dof] = 0.0
    NewtonManager.invalidate_fk(env_ids=[1])
    NewtonManager.forward()
    assert float(joint_q[1, hip]) == pytest.approx(0.4)  # MuJoCo's reset used to put the model default back
    assert bool((joint_q[0] == untouched).all())
    body_after = NewtonManager.get_state_0().body_q.numpy()
    bodies_per_env = body_after.shape[0] // 2
    np.testing.assert_array_equal(body_after[:bodies_per_env], body_before[:bodies_per_env])  # env 0 untouched
    assert not np.allclose(body_after[bodies_per_env:], body_before[bodies_per_env:])  # env 1's leg moved (FK)
    NewtonManager.step()
    assert abs(float(joint_q[1, hip]) - 0.4) < 0.05  # the step starts from the written pose, not the default


@pytest.mark.slow  # a multi-env implicit-MPM scene
def test_masked_and_full_resets_of_a_multi_env_mpm_scene(device):
    scene = ToolInSandSceneCfg(num_envs=2)
    sim = SimulationContext(SimulationCfg(dt=DT, device=device, physics=NewtonCfg(solver_cfg=scene.coupler_cfg())))
    builder = NewtonCouplerManager.create_builder()
    scene.build(builder)
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    initial = NewtonCouplerManager.get_state_0().particle_q.numpy().copy()
    worlds = NewtonCouplerManager.get_model().particle_world.numpy()
    for _ in range(3):
        NewtonCouplerManager.step()
    moved = NewtonCouplerManager.get_state_0().particle_q.numpy().copy()
    NewtonCouplerManager.write_initial_state(env_ids=[1])  # one grid per world: a masked reset works
    NewtonCouplerManager.forward()
    after = NewtonCouplerManager.get_state_0().particle_q.numpy()
    np.testing.assert_array_equal(after[worlds == 1], initial[worlds == 1])
    np.testing.assert_array_equal(after[worlds == 0], moved[worlds == 0])
    NewtonCouplerManager.step()
    NewtonCouplerManager.reset(soft=True)
    np.testing.assert_array_equal(NewtonCouplerManager.get_state_0().particle_q.numpy(), initial)
    NewtonCouplerManager.reset()  # full reset: solver rebuilt
    NewtonCouplerManager.step()
    assert np.isfinite(NewtonCouplerManager.get_state_0().particle_q.numpy()).all()


@pytest.mark.slow  # ~3 s; test_mpm_resets keeps an MPM reset in the default set
def test_a_shared_mpm_grid_refuses_a_masked_reset_before_writing_anything(device):
    scene = ToolInSandSceneCfg(num_envs=2)
    coupler = scene.coupler_cfg()
    coupler.entries[1].solver_cfg.separate_worlds = False  # both envs on one grid
    sim = SimulationContext(SimulationCfg(dt=DT, device=device, physics=NewtonCfg(solver_cfg=coupler)))
    builder = NewtonCouplerManager.create_builder()
    scene.build(builder)
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    NewtonCouplerManager.step()
    before = NewtonCouplerManager.get_state_0().particle_q.numpy().copy()
    with pytest.raises(ValueError, match=r"cannot reset worlds \[1\] without the others: entry 'sand': "):
        NewtonCouplerManager.write_initial_state(env_ids=[1])
    with pytest.raises(ValueError, match="separate_worlds=True or reset every world"):
        NewtonCouplerManager.invalidate_fk(env_ids=[0])
    np.testing.assert_array_equal(NewtonCouplerManager.get_state_0().particle_q.numpy(), before)
    NewtonCouplerManager.step()  # nothing is left pending: stepping goes on
    NewtonCouplerManager.write_initial_state()  # every world: allowed
    NewtonCouplerManager.reset(soft=True)
    NewtonCouplerManager.step()
    assert np.isfinite(NewtonCouplerManager.get_state_0().particle_q.numpy()).all()


def hinge_builder(manager, *, cloth: bool) -> newton.ModelBuilder:
    proto = newton.ModelBuilder()
    add_hinge_arm(proto, "Arm")
    if cloth:
        add_small_cloth(proto, cells=3, height=0.2)
    builder = manager.create_builder()
    replicate_envs(builder, proto, 2, spacing=3.0)
    return builder


@pytest.mark.slow
@pytest.mark.parametrize("coupled", [False, True], ids=["standalone", "entry"])
def test_kamino_starts_and_its_resets_keep_the_written_pose(coupled, device):
    solver_cfg = KaminoSolverCfg()
    if coupled:
        solver_cfg = CouplerProxyCfg(
            entries=[
                CouplerEntryCfg(name="arm", solver_cfg=solver_cfg, bodies=["/World/envs/env_.*/Arm"]),
                CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=2), all_particles=True),
            ],
            proxies=[CouplerProxyMappingCfg(source="arm", destination="cloth", bodies=["/World/envs/env_.*/Arm/link"])],
        )
    sim = SimulationContext(SimulationCfg(dt=DT, device=device, physics=NewtonCfg(solver_cfg=solver_cfg)))
    NewtonManager.set_builder(hinge_builder(NewtonManager, cloth=coupled))
    sim.reset()  # Kamino attaches arrays to the states on its first step; the warm-up used to fail on them
    joint_q = NewtonManager.joint_view("joint_q")
    joint_q[1, 0] = 0.7
    NewtonManager.invalidate_fk(env_ids=[1])
    NewtonManager.forward()
    assert float(joint_q[1, 0]) == pytest.approx(0.7) and float(joint_q[0, 0]) == 0.0
    body_q = NewtonManager.get_state_0().body_q.numpy()
    yaw = 2.0 * np.arctan2(body_q[1, 5], body_q[1, 6])  # rotation about z of env 1's link
    assert yaw == pytest.approx(0.7, abs=1e-5)
    for _ in range(5):
        NewtonManager.step()
    assert abs(float(joint_q[1, 0]) - 0.7) < 1e-3 and abs(float(joint_q[0, 0])) < 1e-3  # nothing drives them
    assert np.isfinite(NewtonManager.get_state_0().body_q.numpy()).all()
