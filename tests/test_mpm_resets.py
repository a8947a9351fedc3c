"""Resets clear implicit MPM's particle history, and selecting every world is a full reset.

Scene: a small bed of grains (implicit MPM, fixed grid, one world) on a ground plane, standalone and
coupled to a Steel box by a virtual proxy (the tool-in-sand layout, shrunk). The reference is a
pristine start: ``sim.reset()`` then three env steps.
"""

import numpy as np
import pytest
import warp as wp
from scenes import add_grain_grid

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg, NewtonCouplerManager
from isaaclab_contrib.physics import MPMSolverCfg, NewtonCfg, SimulationCfg, SimulationContext, SteelSolverCfg

DT = 1.0 / 120.0


def _mpm_cfg() -> MPMSolverCfg:
    return MPMSolverCfg(
        voxel_size=0.05,
        grid_type="fixed",
        grid_padding=4,
        max_active_cell_count=1 << 12,
        max_iterations=20,
        separate_worlds=True,
    )


def _solver_cfg(coupled: bool):
    if not coupled:
        return _mpm_cfg()
    return CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(
                name="tool", solver_cfg=SteelSolverCfg(), bodies=["/World/envs/env_.*/Tool"], include_static_shapes=True
            ),
            CouplerEntryCfg(name="sand", solver_cfg=_mpm_cfg(), all_particles=True, in_place=True),
        ],
        proxies=[CouplerProxyMappingCfg(source="tool", destination="sand", bodies=["/World/envs/env_.*/Tool"])],
    )


def _start(coupled: bool) -> SimulationContext:
    sim = SimulationContext(
        SimulationCfg(dt=DT, device="cpu", physics=NewtonCfg(solver_cfg=_solver_cfg(coupled), decimation=2))
    )
    builder = NewtonCouplerManager.create_builder()
    builder.add_ground_plane()
    builder.begin_world()
    add_grain_grid(builder)
    body = builder.add_body(
        xform=wp.transform((0.0, 0.0, 0.4), wp.quat_identity()), label="/World/envs/env_0/Tool/body"
    )
    builder.add_shape_box(body, hx=0.04, hy=0.04, hz=0.04)
    builder.end_world()
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    return sim


def _grains() -> np.ndarray:
    return NewtonCouplerManager.get_state_0().particle_q.numpy().copy()


@pytest.mark.parametrize(
    "coupled", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["mpm", "tool_in_sand"]
)  # tool_in_sand ~3 s
def test_a_reset_of_the_only_env_is_a_full_reset_and_clears_the_grain_history(coupled):
    sim = _start(coupled)
    for _ in range(3):
        NewtonCouplerManager.step()
    pristine = _grains()
    assert np.abs(pristine - NewtonCouplerManager.get_model().particle_q.numpy()).max() > 1e-4  # they moved
    for _ in range(3):
        NewtonCouplerManager.step()
    # The only env of the scene: a full reset (Newton refuses a masked one on a one-world MPM grid).
    NewtonCouplerManager.write_initial_state(env_ids=[0])
    for _ in range(3):
        NewtonCouplerManager.step()
    np.testing.assert_array_equal(_grains(), pristine)
    NewtonCouplerManager.invalidate_fk(env_ids=[0])
    NewtonCouplerManager.step()  # and the next step runs
    sim.clear_instance()
