"""Benchmark: samples per second of 1 process against N processes with the same envs per process.

Scaling out the Isaac Lab way (``train.py --distributed`` under ``torchrun``) gives every process its
own simulation; on a CPU each Warp kernel runs on one core, so one process uses one core. This script
measures what N processes gain, side by side in one run: rounds alternate between 1 process and N
processes started together (``multiprocessing`` spawn; no ``torchrun`` needed), each process builds
the task's env with ``--num_envs`` envs (seed + rank), warms up, waits for the others at a barrier and
then times its work. The median over ``--rounds`` rounds is reported, and the best round (other load on
the machine only ever slows a round down, so the best is the closest to an idle machine).

``--mode env`` (default): ``--steps`` env steps with uniform random actions in [-1, 1] (no policy, no
learning). ``--mode train``: ``--iterations`` rsl-rl PPO iterations (rollout with the policy + update,
gradients all-reduced over Gloo between the N processes, as ``train.py --distributed`` does).
samples/s = env steps x envs of all processes / wall time from their common start (the barrier) to the
last one's end (each process's own rate is printed too, and its CPU share: its CPU time over its wall
time, 1.0 being a whole core, so a round that other load slowed down shows). Each process uses one torch
thread (what ``torchrun`` sets with ``OMP_NUM_THREADS=1``), in both configurations.

    python scripts/benchmark_train.py --task Isaac-Arm-Press-Cloth-Direct-v0 --num_envs 16 --processes 2
    python scripts/benchmark_train.py --mode train --iterations 3
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import socket
import statistics
import time

import torch
import torch.multiprocessing as mp
from rl_common import DEFAULT_TASK, make_env, task_id

from isaaclab_contrib.utils.cli import positive_int


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, world: int, port: int, args: argparse.Namespace, barrier, queue) -> None:
    torch.set_num_threads(1)
    import warp as wp

    wp.config.quiet = True
    from isaaclab_contrib.envs import load_cfg_from_registry

    cfg = load_cfg_from_registry(args.task, "env_cfg_entry_point")
    cfg.scene.num_envs = args.num_envs
    cfg.seed += rank
    env = make_env(args.task, cfg)
    try:
        unwrapped = env.unwrapped
        if args.mode == "env":
            generator = torch.Generator().manual_seed(rank)
            unwrapped.reset()
            for _ in range(3):
                unwrapped.step(torch.zeros(args.num_envs, unwrapped.num_actions))
            barrier.wait()
            start, cpu = time.monotonic(), time.process_time()
            for _ in range(args.steps):
                unwrapped.step(torch.rand(args.num_envs, unwrapped.num_actions, generator=generator) * 2 - 1)
            end, cpu = time.monotonic(), time.process_time() - cpu
            steps = args.steps
        else:
            from isaaclab_contrib.rl import RslRlVecEnvWrapper
            from isaaclab_contrib.rl.distributed import DistributedOnPolicyRunner, init_distributed

            agent = load_cfg_from_registry(args.task, "rsl_rl_cfg_entry_point")
            agent.num_envs, agent.seed = args.num_envs, agent.seed + rank
            if world > 1:
                os.environ.update(
                    {"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world), "MASTER_PORT": str(port)}
                )
                os.environ["MASTER_ADDR"] = "127.0.0.1"
                init_distributed("cpu")
            torch.manual_seed(agent.seed)
            with contextlib.redirect_stdout(io.StringIO()):  # rsl-rl prints the models and the parameter sync
                runner = DistributedOnPolicyRunner(
                    RslRlVecEnvWrapper(env), agent.to_rsl_rl(), log_dir=None, device="cpu"
                )
                runner.learn(num_learning_iterations=1)  # warm-up: first rollout and update
            barrier.wait()
            start, cpu = time.monotonic(), time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):
                runner.learn(num_learning_iterations=args.iterations)
            end, cpu = time.monotonic(), time.process_time() - cpu
            steps = args.iterations * agent.num_steps_per_env
            if world > 1:
                torch.distributed.destroy_process_group()
        queue.put((rank, steps * args.num_envs, start, end, cpu))
    finally:
        env.close()


def measure(args: argparse.Namespace, processes: int) -> tuple[float, list[float], list[float]]:
    """One round of *processes* processes started together: samples/s of all of them together (all samples over
    the wall time from the common start to the last one's end), of each on its own, and the CPU share each got
    (its CPU time over its wall time: 1.0 is a whole core; less means other load took the core)."""
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(processes), ctx.SimpleQueue()
    port = _free_port()
    workers = [ctx.Process(target=_worker, args=(r, processes, port, args, barrier, queue)) for r in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    failed = [w.exitcode for w in workers if w.exitcode != 0]
    if failed:
        raise RuntimeError(f"benchmark worker(s) failed with exit code(s) {failed}")
    reports = sorted(queue.get() for _ in range(processes))
    together = sum(r[1] for r in reports) / (max(r[3] for r in reports) - min(r[2] for r in reports))
    rates = [samples / (end - start) for _, samples, start, end, _ in reports]
    return together, rates, [cpu / (end - start) for _, _, start, end, cpu in reports]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", type=task_id, default=DEFAULT_TASK)
    parser.add_argument("--num_envs", "--num-envs", type=positive_int, default=16, help="envs per process")
    parser.add_argument("--processes", type=positive_int, default=2, help="N, compared with 1 process")
    parser.add_argument("--mode", choices=("env", "train"), default="env")
    parser.add_argument("--steps", type=positive_int, default=150, help="timed env steps per process (--mode env)")
    parser.add_argument("--iterations", type=positive_int, default=3, help="timed PPO iterations (--mode train)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="alternating rounds of 1 and N processes")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    what = "random-action env steps" if args.mode == "env" else "rsl-rl PPO iterations (rollout + update)"
    print(
        f"task {args.task}: {args.num_envs} envs per process, {what}, {args.rounds} rounds; "
        f"{os.cpu_count()} CPUs, load average {load:.2f} at the start",
        flush=True,
    )
    single, multi = [], []
    for k in range(args.rounds):
        alone, _, alone_cpu = measure(args, 1)
        together, per_process, cpu = measure(args, args.processes)
        single.append(alone)
        multi.append(together)
        print(
            f"round {k + 1}: 1 process {alone:.0f} samples/s (CPU share {alone_cpu[0]:.2f}); {args.processes} processes "
            f"{together:.0f} samples/s ({', '.join(f'{r:.0f}' for r in per_process)}; CPU shares "
            f"{', '.join(f'{c:.2f}' for c in cpu)})",
            flush=True,
        )
    one, many = statistics.median(single), statistics.median(multi)
    best_one, best_many = max(single), max(multi)
    end_load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    # Other load on the machine only slows a round down: the best round is the closest to an idle machine.
    print(
        f"{'processes':>9} {'envs/process':>12} {'median samples/s':>17} {'ratio':>6} {'best samples/s':>15} {'ratio':>6}"
    )
    print(f"{1:>9} {args.num_envs:>12} {one:>17.0f} {1.0:>6.2f} {best_one:>15.0f} {1.0:>6.2f}")
    print(
        f"{args.processes:>9} {args.num_envs:>12} {many:>17.0f} {many / one:>6.2f} {best_many:>15.0f} "
        f"{best_many / best_one:>6.2f}"
    )
    print(f"load average {end_load:.2f} at the end", flush=True)
    return {
        "mode": args.mode,
        "num_envs": args.num_envs,
        "processes": args.processes,
        "single": one,
        "multi": many,
        "ratio": many / one,
        "best_ratio": best_many / best_one,
        "rounds": {"single": single, "multi": multi},
        "load": (load, end_load),
    }


if __name__ == "__main__":
    main()
