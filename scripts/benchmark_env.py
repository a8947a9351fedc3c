"""Benchmark: env steps per second of a coupled RL task, captured and eager, measured side by side.

For each ``--num_envs`` value, builds the task's env with and without graph capture, warms up, then
times ``--steps`` env steps with random actions (fewer for the slower eager path). Prints env steps/s,
samples/s (env steps x envs) and the captured/eager ratio, all measured in this one run.

    python scripts/benchmark_env.py [--task Isaac-Arm-Press-Cloth-Direct-v0] [--num_envs 1 16 64] [--steps 20]
"""

from __future__ import annotations

import argparse
import time

import torch
import warp as wp
from rl_common import DEFAULT_TASK, make_env, task_id

from isaaclab_contrib.envs import load_cfg_from_registry
from isaaclab_contrib.utils.cli import positive_int


def rate(task: str, num_envs: int, graph: bool, steps: int) -> float:
    """Env steps per second of *task* with *num_envs* envs over *steps* random-action steps."""
    cfg = load_cfg_from_registry(task, "env_cfg_entry_point")
    cfg.scene.num_envs, cfg.sim.physics.use_cuda_graph = num_envs, graph
    env = make_env(task, cfg).unwrapped
    try:
        generator = torch.Generator().manual_seed(0)
        env.reset()
        for _ in range(3):
            env.step(torch.zeros(num_envs, env.num_actions))
        start = time.perf_counter()
        for _ in range(steps):
            env.step(torch.rand(num_envs, env.num_actions, generator=generator) * 2 - 1)
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", type=task_id, default=DEFAULT_TASK)
    parser.add_argument("--num_envs", "--num-envs", type=positive_int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--steps", type=positive_int, default=20)
    args = parser.parse_args(argv)
    wp.config.quiet = True
    print(f"task {args.task}")
    print(
        f"{'envs':>5} {'captured steps/s':>17} {'eager steps/s':>14} {'captured samples/s':>19} {'eager samples/s':>16} {'ratio':>6}"
    )
    rows = []
    for n in args.num_envs:
        captured = rate(args.task, n, True, args.steps)
        eager = rate(args.task, n, False, max(5, args.steps // 4))
        rows.append({"num_envs": n, "captured": captured, "eager": eager})
        print(
            f"{n:>5} {captured:>17.1f} {eager:>14.1f} {captured * n:>19.0f} {eager * n:>16.0f} {captured / eager:>6.1f}",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
