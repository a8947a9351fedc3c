"""Helpers that run small box-on-cloth simulations through the manager and return host copies of the state."""

from __future__ import annotations

import numpy as np

from isaaclab_contrib.coupling import NewtonCouplerManager
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg
from isaaclab_contrib.scenes import launch
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg

STATE_FIELDS = ("body_q", "body_qd", "particle_q", "particle_qd", "joint_q", "joint_qd")
DT = 1.0 / 240.0


def cheap_coupler(kind: str):
    """The scene's coupler (``"admm"`` or ``"proxy"``) with few iterations: bitwise comparisons need no
    converged physics."""
    cfg = BoxOnClothSceneCfg(coupling=kind).coupler_cfg()
    cfg.iterations = 2
    cfg.entries[1].solver_cfg.iterations = 2
    return cfg


def small_scene(num_envs: int = 1) -> BoxOnClothSceneCfg:
    """The box-on-cloth scene with a 4 x 4-cell cloth of 10 cm cells."""
    scene = BoxOnClothSceneCfg(num_envs=num_envs)
    scene.cloth.cells, scene.cloth.cell_size = 4, 0.1
    return scene


def start(coupler, *, graph: bool, substeps: int, decimation: int, scene: BoxOnClothSceneCfg, device: str = "cpu"):
    """:func:`~isaaclab_contrib.scenes.launch` *scene* with *coupler*; returns the active context."""
    physics = NewtonCfg(num_substeps=substeps, use_cuda_graph=graph, solver_cfg=coupler, decimation=decimation)
    sim = launch(scene, SimulationCfg(dt=DT, device=device, physics=physics))
    assert NewtonCouplerManager.is_graph_captured() == graph, NewtonCouplerManager.eager_reason()
    return sim


def snapshot() -> dict[str, np.ndarray]:
    state = NewtonCouplerManager.get_state_0()
    return {name: getattr(state, name).numpy().copy() for name in STATE_FIELDS if getattr(state, name) is not None}


def run(
    kind: str,
    *,
    graph: bool,
    substeps: int,
    decimation: int,
    env_steps: int,
    num_envs: int = 1,
    reset_at: int | None = None,
    reset_ids: list[int] | None = None,
    device: str = "cpu",
) -> dict[str, np.ndarray]:
    sim = start(
        cheap_coupler(kind),
        graph=graph,
        substeps=substeps,
        decimation=decimation,
        scene=small_scene(num_envs),
        device=device,
    )
    try:
        for i in range(env_steps):
            if i == reset_at:
                NewtonCouplerManager.write_initial_state(env_ids=reset_ids)
            NewtonCouplerManager.step()
        return snapshot()
    finally:
        sim.clear_instance()
