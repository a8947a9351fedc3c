"""Benchmark: the cost of the coupler's sensors, as a ratio to the same captured step without them.

A 10 cm box (Steel) resting on a pinned 8 x 8-cell cloth (VBD), ``--envs`` copies, coupled by ADMM (8
iterations) and by a virtual proxy (2 passes). For each coupling and each variant -- each of the three
sensors alone (interface force box <- cloth, penetration cloth / box, coupling diagnostics) and all three --
the scene is built without sensors and settled, the env step (decimation 4 x 2 substeps, captured) is timed
in ``--blocks`` blocks of ``--block-steps`` env steps, then the variant's sensors are added (the manager
re-captures the step) and the same blocks are timed again: both sides of a ratio are measured back to back on
the same state. On the CPU the blocks are timed in this process's CPU time (Warp runs CPU kernels in the
calling thread), which other processes on a shared machine do not inflate; on CUDA in wall time. Each side is
its fastest block; the median over ``--rounds`` builds is reported. Only the public API is used.

    python scripts/benchmark_coupler_sensors.py [--envs 2] [--blocks 5] [--block-steps 3] [--rounds 3] [--eager]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time

import newton
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
from isaaclab_contrib.utils.cli import add_device_option, positive_int

M = NewtonCouplerManager
DT = 1.0 / 240.0
VARIANTS = ("interface force", "penetration", "diagnostics", "all three")


def box_on_cloth() -> newton.ModelBuilder:
    """One env: a 0.1 kg, 10 cm box 2 mm above an 8 x 8-cell cloth (5 cm cells) pinned along two edges."""
    builder = newton.ModelBuilder()
    PinnedClothCfg(init_state=InitialStateCfg(pos=(0.0, 0.0, 0.1))).add_to(builder, "Cloth")  # the default cloth
    body = builder.add_body(xform=wp.transform((0.0, 0.0, 0.162), wp.quat_identity()), label="Box/body")
    shape = newton.ModelBuilder.ShapeConfig(density=100.0)
    builder.add_shape_box(body, hx=0.05, hy=0.05, hz=0.05, cfg=shape, label="Box/body/collision")
    return builder


def coupler(kind: str):
    entries = [
        CouplerEntryCfg(name="box", solver_cfg=SteelSolverCfg(), bodies=[".*/Box"]),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=10), all_particles=True),
    ]
    if kind == "admm":
        return CouplerAdmmCfg(
            entries=entries, contact_pairs=[("box", "cloth")], iterations=8, rho=45.0, gamma=1.0e-3, baumgarte=0.1
        )
    mapping = CouplerProxyMappingCfg(source="box", destination="cloth", bodies=[".*/Box/body"], proxy_relaxation=0.5)
    return CouplerProxyCfg(entries=entries, iterations=2, proxies=[mapping])


def add_sensors(variant: str) -> None:
    if variant in ("interface force", "all three"):
        M.add_interface_force_sensor("box", "cloth")
    if variant in ("penetration", "all three"):
        M.add_penetration_sensor("cloth", "box")
    if variant in ("diagnostics", "all three"):
        M.request_coupling_diagnostics()


def fastest_block(blocks: int, block_steps: int, device: str) -> float:
    """Seconds per env step of the fastest of *blocks* blocks of *block_steps* env steps (CPU time on the CPU)."""
    clock = time.process_time if wp.get_device(device).is_cpu else time.perf_counter
    times = []
    for _ in range(blocks):
        wp.synchronize_device(device)
        start = clock()
        for _ in range(block_steps):
            M.step()
        wp.synchronize_device(device)
        times.append((clock() - start) / block_steps)
    return min(times)


def measure(kind: str, variant: str, args) -> tuple[float, float]:
    """``(without, with)`` *variant*'s sensors: seconds per env step on one build, timed back to back."""
    physics = NewtonCfg(num_substeps=2, decimation=4, solver_cfg=coupler(kind), use_cuda_graph=not args.eager)
    sim = SimulationContext(SimulationCfg(dt=DT, device=args.device, physics=physics))
    try:
        builder = M.create_builder()
        for i in range(args.envs):
            xform = wp.transform((2.0 * i, 0.0, 0.0), wp.quat_identity())
            builder.add_world(box_on_cloth(), xform=xform, label_prefix=f"/World/envs/env_{i}")
        M.set_builder(builder)
        sim.reset()
        for _ in range(10):  # the box lands on the cloth
            M.step()
        without = fastest_block(args.blocks, args.block_steps, args.device)
        add_sensors(variant)  # re-captures the step with the sensors
        M.step()
        return without, fastest_block(args.blocks, args.block_steps, args.device)
    finally:
        sim.clear_instance()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=positive_int, default=2, help="copies of the scene (Newton worlds)")
    parser.add_argument("--blocks", type=positive_int, default=5, help="timed blocks on each side of a ratio")
    parser.add_argument("--block-steps", type=positive_int, default=3, help="env steps per timed block")
    parser.add_argument("--rounds", type=positive_int, default=3, help="builds per variant; the median is reported")
    parser.add_argument("--couplings", nargs="+", choices=("admm", "proxy"), default=["admm", "proxy"])
    parser.add_argument("--eager", action="store_true", help="step eagerly (use_cuda_graph=False) instead of captured")
    add_device_option(parser)
    args = parser.parse_args()
    logging.getLogger("isaaclab_contrib").setLevel(logging.ERROR)  # no "added after sim.reset()" warnings
    wp.config.quiet = True

    rows = []
    for kind in args.couplings:
        for variant in VARIANTS:
            pairs = [measure(kind, variant, args) for _ in range(args.rounds)]
            without = statistics.median(p[0] for p in pairs)
            with_sensors = statistics.median(p[1] for p in pairs)
            ratio = statistics.median(p[1] / p[0] for p in pairs)
            rows.append((kind, variant, 1e3 * without, 1e3 * with_sensors, ratio))
    mode = "eager" if args.eager else "captured"
    print(
        f"\n{args.envs} envs, {mode}, decimation 4 x 2 substeps; fastest of {args.blocks} blocks of "
        f"{args.block_steps} env steps per side, median of {args.rounds} builds"
    )
    print("| coupling | sensors | ms / env step without | with | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for kind, variant, without, with_sensors, ratio in rows:
        print(f"| {kind} | {variant} | {without:.1f} | {with_sensors:.1f} | {ratio:.3f} |")


if __name__ == "__main__":
    main()
