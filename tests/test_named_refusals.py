"""Configurations Newton would refuse are refused first, naming the config, the entry and the field."""

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


def _entries():
    return [
        CouplerEntryCfg(name="box", solver_cfg=SteelSolverCfg(), bodies=["/World/envs/env_.*/Box"]),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=2), all_particles=True),
    ]


def test_admm_triangle_pair_capacity_is_checked_against_contact_matching():
    cfg = CouplerAdmmCfg(entries=_entries(), rigid_contact_matching="latest", contact_max_triangle_pairs=2**20)
    with pytest.raises(ValueError, match=r"CouplerAdmmCfg\.contact_max_triangle_pairs=1048576 must be below 2\*\*20"):
        cfg.validate()
    cfg.contact_max_triangle_pairs = 2**20 - 1
    cfg.validate()
    CouplerAdmmCfg(entries=_entries(), contact_max_triangle_pairs=2**20).validate()  # no matching: Newton accepts


def test_particles_proxied_into_a_steel_entry_are_refused_naming_entry_and_field():
    cfg = CouplerProxyCfg(
        entries=_entries(),
        proxies=[CouplerProxyMappingCfg(source="cloth", destination="box", particles=[0, 1, 2])],
    )
    sim = SimulationContext(SimulationCfg(dt=1 / 240, device="cpu", physics=NewtonCfg(solver_cfg=cfg)))
    builder = NewtonCouplerManager.create_builder()
    builder.begin_world()
    body = builder.add_body(xform=wp.transform((0.0, 0.0, 0.6), wp.quat_identity()), label="/World/envs/env_0/Box/body")
    builder.add_shape_box(body, hx=0.05, hy=0.05, hz=0.05)
    cloth = PinnedClothCfg(cells=2, cell_size=0.1, fix_right=False, init_state=InitialStateCfg(pos=(0.0, 0.0, 0.5)))
    cloth.add_to(builder, "/World/envs/env_0/Cloth")
    builder.end_world()
    NewtonCouplerManager.set_builder(builder)
    with pytest.raises(NotImplementedError) as info:
        sim.reset()
    message = str(info.value)
    assert "CouplerProxyCfg.entries['box']: SteelSolverCfg refuses this entry's view" in message
    assert "does not simulate particles" in message
    assert "3 proxied in by CouplerProxyCfg.proxies[0].particles" in message
    assert NewtonCouplerManager.step_mode() == "not started"  # nothing half-done
    assert np.isfinite(builder.particle_q).all()
    sim.clear_instance()
