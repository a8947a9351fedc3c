"""Benchmark: NewtonCouplerManager against a plain hand-written Newton loop on the same scene.

For 1 and 16 worlds of the box-on-cloth ADMM scene (Steel box, VBD cloth), measures the wall time
per env step (``--decimation`` physics steps) of these loops in one run:

* plain eager      -- collide + ``SolverCoupledADMM.step`` written out in Python,
* plain captured   -- the same loop captured once as a Warp graph and replayed,
* manager eager    -- ``NewtonCouplerManager.step()`` with ``use_cuda_graph=False``,
* manager captured -- ``NewtonCouplerManager.step()`` replaying its one captured graph,
* manager partial  -- a no-op post-actuator callback registered with ``graph_safe=False``: that
  stage runs eagerly every physics step while the physics replays from graphs (the physics-only
  fallback), compared with the whole loop stepping eagerly.

Each manager loop is timed interleaved with its plain counterpart (both exist at once), round by
round, so both see the same machine load; the median over ``--repeats`` rounds is reported. Ratios:
manager captured / plain captured and manager eager / plain eager (the manager's overhead; target
<= 1.02), and manager eager / manager partial, each first normalized by the plain eager loop timed
beside it (what the physics-only fallback saves over stepping everything eagerly).

Then the actuated ant-on-hammock scene (PD-driven legs trotting in place, Steel + VBD, ADMM):
env steps per second with the step program captured and stepped eagerly, and their ratio.

    python scripts/benchmark_manager.py [--worlds 1 16] [--env-steps 5] [--repeats 5] [--ant-steps 20]
"""

from __future__ import annotations

import argparse
import statistics
import time

import newton
import warp as wp

from isaaclab_contrib.coupling import NewtonCouplerManager, build_coupled_solver
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, SimulationContext
from isaaclab_contrib.scenes import build_model, launch
from isaaclab_contrib.utils.cli import positive_int
from isaaclab_coupling_configs.ant_on_hammock import AntOnHammockSceneCfg, trot_in_place
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothAdmmSceneCfg

DT = 1.0 / 240.0


def timed_pair(fn_a, fn_b, env_steps: int, repeats: int) -> tuple[float, float]:
    """Median seconds per env step of *fn_a* and *fn_b* (one env step per call), timed in alternating rounds."""
    samples: tuple[list[float], list[float]] = ([], [])
    for fn in (fn_a, fn_b):
        fn()  # warm-up
    wp.synchronize()
    for _ in range(repeats):
        for fn, out in ((fn_a, samples[0]), (fn_b, samples[1])):
            start = time.perf_counter()
            for _ in range(env_steps):
                fn()
            wp.synchronize()
            out.append((time.perf_counter() - start) / env_steps)
    return statistics.median(samples[0]), statistics.median(samples[1])


class PlainLoop:
    """The scene stepped by a hand-written Newton loop (eager, or captured once and replayed)."""

    def __init__(self, worlds: int, decimation: int):
        if decimation % 2:
            raise SystemExit("use an even --decimation: the plain captured loop swaps state references")
        model, cfg = build_model(BoxOnClothAdmmSceneCfg(num_envs=worlds), device="cpu")
        self.solver = build_coupled_solver(model, cfg)
        self.pipeline = newton.CollisionPipeline(model)
        self.contacts = self.pipeline.contacts()
        self.solver.prepare_contacts(self.contacts)
        self.state_0, self.state_1, self.control = model.state(), model.state(), model.control()
        self.decimation = decimation
        self.step()  # compile and fill lazy buffers before capture
        with wp.ScopedCapture(device="cpu") as capture:
            self.step()
        self.graph = capture.graph

    def step(self) -> None:
        for _ in range(self.decimation):
            self.pipeline.collide(self.state_0, self.contacts)
            self.state_0.clear_forces()
            self.solver.step(self.state_0, self.state_1, self.control, self.contacts, DT)
            self.state_0, self.state_1 = self.state_1, self.state_0

    def replay(self) -> None:
        wp.capture_launch(self.graph)


def start_manager(worlds: int, decimation: int, graph: bool, host_stage: bool = False) -> SimulationContext:
    physics = NewtonCfg(decimation=decimation, use_cuda_graph=graph)
    sim = launch(BoxOnClothAdmmSceneCfg(num_envs=worlds), SimulationCfg(dt=DT, device="cpu", physics=physics))
    if host_stage:

        def host_work() -> None:  # stands for a stage that reads device data on the host
            pass

        NewtonCouplerManager.register_post_actuator_callback(host_work, graph_safe=False)
    expected = "partial" if host_stage else ("captured" if graph else "eager")
    mode = NewtonCouplerManager.step_mode()
    if mode != expected:
        raise SystemExit(f"expected step mode {expected!r}, got {mode!r}: {NewtonCouplerManager.eager_reason()}")
    return sim


def measure(worlds: int, decimation: int, env_steps: int, repeats: int) -> dict[str, float]:
    plain = PlainLoop(worlds, decimation)
    sim = start_manager(worlds, decimation, graph=True)
    plain_graph, mgr_graph = timed_pair(plain.replay, NewtonCouplerManager.step, env_steps, repeats)
    sim.clear_instance()
    sim = start_manager(worlds, decimation, graph=False)
    plain_eager, mgr_eager = timed_pair(plain.step, NewtonCouplerManager.step, env_steps, repeats)
    sim.clear_instance()
    sim = start_manager(worlds, decimation, graph=True, host_stage=True)
    mgr_partial, plain_eager_again = timed_pair(NewtonCouplerManager.step, plain.step, env_steps, repeats)
    sim.clear_instance()
    return {
        "plain_eager": plain_eager,
        "plain_graph": plain_graph,
        "mgr_eager": mgr_eager,
        "mgr_graph": mgr_graph,
        "mgr_partial": mgr_partial,
        "plain_eager_again": plain_eager_again,
    }


def ant_rate(graph: bool, env_steps: int, repeats: int) -> tuple[float, str]:
    """Median env steps/s of the actuated ant scene (targets written before every step, as the main job does)."""
    cfg = AntOnHammockSceneCfg(num_envs=1)
    sim = launch(cfg, SimulationCfg(dt=DT, device="cpu", physics=NewtonCfg(decimation=4, use_cuda_graph=graph)))
    try:
        clock = [0.0]

        def env_step() -> None:
            trot_in_place(NewtonCouplerManager, cfg, clock[0])
            NewtonCouplerManager.step()
            clock[0] += 4 * DT

        seconds, _ = timed_pair(env_step, lambda: None, env_steps, repeats)
        return 1.0 / seconds, NewtonCouplerManager.step_mode()
    finally:
        sim.clear_instance()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", type=positive_int, nargs="+", default=[1, 16])
    parser.add_argument("--decimation", type=positive_int, default=4)
    parser.add_argument("--env-steps", type=positive_int, default=5)
    parser.add_argument("--repeats", type=positive_int, default=5)
    parser.add_argument(
        "--ant-steps", type=positive_int, default=20, help="env steps per timing round of the ant scene"
    )
    args = parser.parse_args()
    wp.config.quiet = True

    print(f"box-on-cloth ADMM, CPU, decimation {args.decimation}, dt {DT:.5f} s; ms per env step (median)")
    print(
        f"{'worlds':>6} {'plain eager':>12} {'plain graph':>12} {'mgr eager':>10} {'mgr graph':>10} {'mgr partial':>12}"
        f" {'mgr/plain graph':>16} {'mgr/plain eager':>16} {'eager/partial':>14}"
    )
    for worlds in args.worlds:
        t = measure(worlds, args.decimation, args.env_steps, args.repeats)
        print(
            f"{worlds:>6} {t['plain_eager'] * 1e3:>12.1f} {t['plain_graph'] * 1e3:>12.1f} {t['mgr_eager'] * 1e3:>10.1f}"
            f" {t['mgr_graph'] * 1e3:>10.1f} {t['mgr_partial'] * 1e3:>12.1f}"
            f" {t['mgr_graph'] / t['plain_graph']:>16.3f} {t['mgr_eager'] / t['plain_eager']:>16.3f}"
            f" {(t['mgr_eager'] / t['plain_eager']) / (t['mgr_partial'] / t['plain_eager_again']):>14.2f}",
            flush=True,
        )
    print(
        "targets: mgr/plain graph <= 1.02 and mgr/plain eager <= 1.02; eager/partial > 1 means the physics-only "
        "fallback (one eager stage, physics replayed from graphs) beats stepping the whole loop eagerly"
    )
    captured, mode = ant_rate(True, args.ant_steps, 3)
    eager, _ = ant_rate(False, max(3, args.ant_steps // 4), 3)
    print(
        f"\nactuated ant on hammock (1 env, decimation 4, CPU): captured ({mode}) {captured:.1f} env steps/s, "
        f"eager {eager:.1f} env steps/s, captured/eager {captured / eager:.1f}x (target >= 5x)",
        flush=True,
    )


if __name__ == "__main__":
    main()
