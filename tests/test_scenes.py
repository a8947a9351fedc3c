"""The ready scenes run through the manager at small size with a physical check each."""

import numpy as np
import pytest

from configs.ant_on_hammock import AntOnHammockSceneCfg
from configs.box_on_cloth import BoxOnClothSceneCfg
from configs.grains_on_cloth import GrainsOnClothSceneCfg, particle_ranges
from configs.tool_in_sand import ToolInSandSceneCfg
from isaaclab_contrib.coupling import NewtonCouplerManager as M
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, SimulationContext
from isaaclab_contrib.scenes import get_scene


def run_scene(name: str, scene_cfg, frames: int, device: str):
    spec = get_scene(name)
    sim = SimulationContext(
        SimulationCfg(
            dt=1.0 / 240.0,
            device=device,
            physics=NewtonCfg(solver_cfg=spec.coupler(scene_cfg), num_substeps=spec.num_substeps),
        )
    )
    builder = M.create_builder()
    spec.build(builder, scene_cfg)
    M.set_builder(builder)
    sim.reset()
    M.set_decimation(spec.decimation)
    for _ in range(frames):
        M.step()
    state = M.get_state_0()
    body_q = state.body_q.numpy() if state.body_q is not None else np.zeros((0, 7))
    particle_q = state.particle_q.numpy() if state.particle_q is not None else np.zeros((0, 3))
    assert np.isfinite(body_q).all() and np.isfinite(particle_q).all()
    return body_q, particle_q


@pytest.mark.slow  # ~22 s on a 2-core CPU with a warm kernel cache; `scripts/run.py`'s test steps the ant fast
def test_ant_lands_in_the_hammock(device):
    scene = AntOnHammockSceneCfg(num_envs=1)
    body_q, particle_q = run_scene("ant_on_hammock", scene, frames=40, device=device)
    lowest = particle_q[:, 2].min()
    torso = body_q[0, 2]
    assert lowest < scene.hammock_height - 0.02  # the hammock carries the ant and sags
    assert lowest > scene.hammock_height - 0.3  # ... within reason (no tearing or free fall)
    assert torso > lowest  # the ant is on top of the hammock, not through it
    assert np.all(body_q[:, 2] > lowest - 0.05)
    assert torso < scene.hammock_height + scene.drop_height  # it fell onto it


def test_box_presses_into_cloth_through_proxy(device):
    scene = BoxOnClothSceneCfg(num_envs=2)
    body_q, particle_q = run_scene("box_on_cloth", scene, frames=45, device=device)
    bottom = body_q[:, 2] - scene.box_half_extent
    lowest = particle_q.reshape(2, -1, 3)[:, :, 2].min(axis=1)
    assert np.all(lowest < scene.cloth_height - 0.005)  # pressed in
    assert np.all(bottom > lowest - 0.02)  # on the cloth, not through it
    assert np.all(bottom > scene.cloth_height - 0.08)


def test_grain_bed_rests_on_cloth(device):
    scene = GrainsOnClothSceneCfg(num_envs=1)
    _, particle_q = run_scene("grains_on_cloth", scene, frames=60, device=device)
    grains, cloth = particle_ranges(scene)
    cloth_z = particle_q[cloth, 2]
    grain_z = particle_q[grains, 2]
    assert cloth_z.min() < scene.cloth_height - 0.01  # the cloth carries the bed
    assert cloth_z.min() > scene.cloth_height - 0.25
    assert grain_z.min() > cloth_z.min()  # no grain fell through
    assert np.all(np.abs(particle_q[grains, :2]) < 0.3)  # the bed stayed on the cloth


def test_the_grain_solver_sees_the_cloth_contact_only():
    """The XPBD grain entry receives the cloth as proxy particles but not its triangles and edges: the
    cloth's elasticity is solved once, by VBD."""
    import newton

    from isaaclab_contrib.coupling import build_coupled_solver, finalize_builder, prepare_builder

    scene = GrainsOnClothSceneCfg(num_envs=1)
    spec = get_scene("grains_on_cloth")
    cfg = spec.coupler(scene)
    builder = newton.ModelBuilder()
    prepare_builder(builder, cfg)
    spec.build(builder, scene)
    finalize_builder(builder, cfg)
    model = builder.finalize(device="cpu")
    solver = build_coupled_solver(model, cfg)
    assert model.tri_count > 0 and model.edge_count > 0
    grains, cloth = solver.view("grains"), solver.view("cloth")
    assert grains.tri_count == grains.edge_count == grains.spring_count == grains.tet_count == 0
    assert (cloth.tri_count, cloth.edge_count) == (model.tri_count, model.edge_count)


def test_tool_sinks_into_sand_and_is_held(device):
    scene = ToolInSandSceneCfg(num_envs=1, bed_half_extent=0.08, bed_height=0.06, voxel_size=0.03)
    body_q, particle_q = run_scene("tool_in_sand", scene, frames=40, device=device)
    start = scene.bed_height + scene.tool_drop_height + scene.tool_half_extent
    bottom = body_q[0, 2] - scene.tool_half_extent
    assert body_q[0, 2] < start - scene.tool_drop_height  # it reached the sand
    assert bottom > 0.0  # held by the sand above the ground
    assert bottom < scene.bed_height  # and sank into it
    assert particle_q[:, 2].min() > -0.01


def test_env_particle_blocks_split_each_env_into_consecutive_blocks():
    from isaaclab_contrib.scenes import env_particle_blocks

    cloth, bed = env_particle_blocks(2, 3, 2)
    assert cloth == [0, 1, 2, 5, 6, 7] and bed == [3, 4, 8, 9]
    assert env_particle_blocks(1, 4) == [[0, 1, 2, 3]]
    grains, cloth = particle_ranges(GrainsOnClothSceneCfg(num_envs=3))
    assert sorted(grains + cloth) == list(range(3 * (32 + 81)))
