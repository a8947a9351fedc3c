"""A new solver family is one module plus its registration line (``tests/wrapped_solver_family.py``): its config
runs as a coupled entry, the runtime asks its binding (and nothing else) what the family can do, and the
package's exports list every family module's names without a line of their own."""

from __future__ import annotations

import importlib

import numpy as np
from manager_helpers import cheap_coupler, small_scene, snapshot
from wrapped_solver_family import CountingSteelBinding, CountingSteelSolverCfg, SolverCountingSteel

import isaaclab_contrib.physics as physics
from isaaclab_contrib.coupling import NewtonCouplerManager as M
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, SteelSolverCfg, binding_for, registered_bindings
from isaaclab_contrib.physics.solvers import FAMILY_MODULES, observable_producers
from isaaclab_contrib.scenes import launch

STEPS = 4


def run(box_solver_cfg, device: str, *, graph: bool = True):
    """Two envs of the small box-on-cloth scene (ADMM), the box entry on *box_solver_cfg*; the state after
    :data:`STEPS` env steps, the step mode, the eager reason and the box entry's solver."""
    coupler = cheap_coupler("admm")
    coupler.entries[0].solver_cfg = box_solver_cfg
    physics_cfg = NewtonCfg(num_substeps=2, use_cuda_graph=graph, solver_cfg=coupler, decimation=2)
    sim = launch(small_scene(2), SimulationCfg(dt=1.0 / 240.0, device=device, physics=physics_cfg))
    try:
        for _ in range(STEPS):
            M.step()
        return snapshot(), M.step_mode(), M.eager_reason(), M.get_solver().solver("box")
    finally:
        sim.clear_instance()


def test_the_family_is_registered_by_its_module():
    cfg = CountingSteelSolverCfg(iterations=4)
    assert isinstance(binding_for(cfg), CountingSteelBinding)
    assert isinstance(registered_bindings()[CountingSteelSolverCfg], CountingSteelBinding)
    assert cfg.solver_class() is SolverCountingSteel
    assert "capture" not in cfg.solver_kwargs() and cfg.solver_kwargs()["iterations"] == 4
    # What the family's solver can produce comes from its binding: error hints name it beside the others.
    assert "CountingSteelSolverCfg" in observable_producers("contact_f")
    assert "CountingSteelSolverCfg" not in observable_producers("body_qdd")


def test_the_wrapped_family_runs_a_coupled_scene_like_the_solver_it_wraps(device):
    plain, plain_mode, _, plain_solver = run(SteelSolverCfg(), device)
    wrapped, mode, reason, solver = run(CountingSteelSolverCfg(), device)
    assert type(plain_solver) is newton_steel() and isinstance(solver, SolverCountingSteel)
    assert plain_mode == mode == "captured" and reason is None
    assert solver.steps > 0  # its step ran (recorded once, replayed since)
    assert plain.keys() == wrapped.keys()
    for name in plain:
        assert np.array_equal(plain[name], wrapped[name]), name
    assert not np.array_equal(wrapped["body_q"], run_start_body_q(device))  # the box moved


def test_the_family_s_own_capture_rule_reaches_the_runtime(device):
    captured, *_ = run(SteelSolverCfg(), device)
    eager, mode, reason, solver = run(CountingSteelSolverCfg(capture=False), device)
    assert mode != "captured"
    assert "entry 'box'" in reason and "CountingSteelSolverCfg.capture=False" in reason
    assert solver.steps >= STEPS * 2 * 2  # eager: every solver step of every env step, on the host
    for name in captured:
        assert np.array_equal(captured[name], eager[name]), name


def test_every_family_module_s_names_are_exported_without_a_line_of_their_own():
    assert {"featherstone", "kamino", "mpm", "mujoco", "semi_implicit", "steel", "vbd", "xpbd"} <= set(FAMILY_MODULES)
    for name in FAMILY_MODULES:
        module = importlib.import_module(f"isaaclab_contrib.physics.solvers.{name}")
        for export in module.__all__:
            assert export in physics.__all__, (name, export)
            assert getattr(physics, export) is getattr(module, export)


def newton_steel() -> type:
    import newton

    return newton.solvers.SolverSteel


def run_start_body_q(device: str) -> np.ndarray:
    """The box's pose before any step (the scene as built)."""
    coupler = cheap_coupler("admm")
    sim = launch(small_scene(2), SimulationCfg(dt=1.0 / 240.0, device=device, physics=NewtonCfg(solver_cfg=coupler)))
    try:
        return M.get_state_0().body_q.numpy().copy()
    finally:
        sim.clear_instance()
