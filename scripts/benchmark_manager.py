"""Benchmark: NewtonCouplerManager against a plain hand-written Newton loop on the same scene.

For 1 and 16 worlds of the box-on-cloth ADMM scene (Steel box, VBD cloth), measures the wall time
per env step (``--decimation`` physics steps) of four loops in one run:

* plain eager    -- collide + ``SolverCoupledADMM.step`` written out in Python,
* plain captured -- the same loop captured once as a Warp graph and replayed,
* manager eager  -- ``NewtonCouplerManager.step()`` with ``use_cuda_graph=False``,
* manager captured -- ``NewtonCouplerManager.step()`` replaying its captured decimation loop,

and prints the ratios: manager eager / plain eager (overhead of the manager) and
plain eager / manager captured (speed-up of the captured loop). Each loop is warmed up, then
timed ``--repeats`` times over ``--env-steps`` env steps; the median is reported.

    python scripts/benchmark_manager.py [--worlds 1 16] [--env-steps 5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import newton
import warp as wp

from isaaclab_contrib.configs.box_on_cloth import BoxOnClothSceneCfg, admm_coupler_cfg, build_box_on_cloth
from isaaclab_contrib.coupling import NewtonCouplerManager, build_coupled_solver, finalize_builder, prepare_builder
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, SimulationContext

DT = 1.0 / 240.0


def timed(fn, env_steps: int, repeats: int) -> float:
    """Median seconds per env step of *fn* (one env step per call)."""
    fn()  # warm-up
    wp.synchronize()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(env_steps):
            fn()
        wp.synchronize()
        samples.append((time.perf_counter() - start) / env_steps)
    return statistics.median(samples)


def plain_loops(worlds: int, decimation: int, env_steps: int, repeats: int) -> tuple[float, float]:
    cfg = admm_coupler_cfg()
    builder = newton.ModelBuilder()
    prepare_builder(builder, cfg)
    build_box_on_cloth(builder, BoxOnClothSceneCfg(num_envs=worlds))
    finalize_builder(builder, cfg)
    model = builder.finalize(device="cpu")
    solver = build_coupled_solver(model, cfg)
    pipeline = newton.CollisionPipeline(model)
    contacts = pipeline.contacts()
    solver.prepare_contacts(contacts)
    state_0, state_1, control = model.state(), model.state(), model.control()

    def env_step():
        nonlocal state_0, state_1
        for _ in range(decimation):
            pipeline.collide(state_0, contacts)
            state_0.clear_forces()
            solver.step(state_0, state_1, control, contacts, DT)
            state_0, state_1 = state_1, state_0

    eager = timed(env_step, env_steps, repeats)
    if decimation % 2:
        raise SystemExit("use an even --decimation: the plain captured loop swaps state references")
    with wp.ScopedCapture(device="cpu") as capture:
        env_step()
    captured = timed(lambda: wp.capture_launch(capture.graph), env_steps, repeats)
    return eager, captured


def manager_loop(worlds: int, decimation: int, graph: bool, env_steps: int, repeats: int) -> float:
    sim = SimulationContext(
        SimulationCfg(dt=DT, device="cpu", physics=NewtonCfg(solver_cfg=admm_coupler_cfg(), use_cuda_graph=graph))
    )
    builder = NewtonCouplerManager.create_builder()
    build_box_on_cloth(builder, BoxOnClothSceneCfg(num_envs=worlds))
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    NewtonCouplerManager.set_decimation(decimation)
    assert NewtonCouplerManager.is_graph_captured() == graph, NewtonCouplerManager.eager_reason()
    try:
        return timed(NewtonCouplerManager.step, env_steps, repeats)
    finally:
        sim.clear_instance()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--decimation", type=int, default=4)
    parser.add_argument("--env-steps", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    wp.config.quiet = True

    print(f"box-on-cloth ADMM, CPU, decimation {args.decimation}, dt {DT:.5f} s; ms per env step (median)")
    print(
        f"{'worlds':>6} {'plain eager':>12} {'plain graph':>12} {'mgr eager':>10} {'mgr graph':>10}"
        f" {'mgr eager/plain eager':>22} {'plain eager/mgr graph':>22}"
    )
    for worlds in args.worlds:
        plain_eager, plain_graph = plain_loops(worlds, args.decimation, args.env_steps, args.repeats)
        mgr_eager = manager_loop(worlds, args.decimation, False, args.env_steps, args.repeats)
        mgr_graph = manager_loop(worlds, args.decimation, True, args.env_steps, args.repeats)
        print(
            f"{worlds:>6} {plain_eager * 1e3:>12.1f} {plain_graph * 1e3:>12.1f} {mgr_eager * 1e3:>10.1f} "
            f"{mgr_graph * 1e3:>10.1f} {mgr_eager / plain_eager:>22.3f} {plain_eager / mgr_graph:>22.2f}",
            flush=True,
        )
    print(
        "targets: manager eager within 5% of plain eager (ratio <= 1.05); "
        "manager captured >= 4x faster than plain eager at 1 world"
    )


if __name__ == "__main__":
    main()
