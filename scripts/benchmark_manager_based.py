"""Benchmark: the cost of an env step of a manager-based task against the direct task of the same physics, side
by side in one run.

Both tasks (by default ``Isaac-Arm-Press-Cloth-v0`` and ``Isaac-Arm-Press-Cloth-Direct-v0``, which step the same
captured physics and compute the same observations, rewards and dones) are built in turn with ``--num_envs``
envs, warmed up, and timed over ``--steps`` env steps of random actions, in ``--rounds`` alternating rounds (one
simulation exists at a time). The fastest round of each is kept; the script prints ms per env step and the
ratio manager-based / direct.

    python scripts/benchmark_manager_based.py [--num_envs 64] [--steps 40] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import torch
import warp as wp
from rl_common import make_env, task_id

from isaaclab_contrib.envs import load_cfg_from_registry
from isaaclab_contrib.utils.cli import positive_int


def time_steps(task: str, num_envs: int, steps: int) -> float:
    """Seconds per env step of *task* with *num_envs* envs over *steps* random-action steps (after a warm-up)."""
    cfg = load_cfg_from_registry(task, "env_cfg_entry_point")
    cfg.scene.num_envs = num_envs
    env = make_env(task, cfg).unwrapped
    try:
        generator = torch.Generator().manual_seed(0)
        width = env.num_actions
        env.reset()
        for _ in range(3):
            env.step(torch.zeros(num_envs, width))
        actions = [torch.rand(num_envs, width, generator=generator) * 2 - 1 for _ in range(steps)]
        start = time.perf_counter()
        for action in actions:
            env.step(action)
        return (time.perf_counter() - start) / steps
    finally:
        env.close()


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", type=task_id, default="Isaac-Arm-Press-Cloth-v0", help="the manager-based task")
    parser.add_argument(
        "--direct_task", type=task_id, default="Isaac-Arm-Press-Cloth-Direct-v0", help="the direct task compared"
    )
    parser.add_argument("--num_envs", "--num-envs", type=positive_int, default=64)
    parser.add_argument("--steps", type=positive_int, default=40)
    parser.add_argument("--rounds", type=positive_int, default=3)
    args = parser.parse_args(argv)
    wp.config.quiet = True
    best = {"manager": float("inf"), "direct": float("inf")}
    for r in range(args.rounds):
        for name, task in (("direct", args.direct_task), ("manager", args.task)):
            seconds = time_steps(task, args.num_envs, args.steps)
            best[name] = min(best[name], seconds)
            print(f"round {r + 1}: {task:<34} {1e3 * seconds:8.2f} ms per env step", flush=True)
    ratio = best["manager"] / best["direct"]
    print(
        f"\n{args.num_envs} envs, fastest of {args.rounds} rounds of {args.steps} env steps: manager-based "
        f"{1e3 * best['manager']:.2f} ms, direct {1e3 * best['direct']:.2f} ms per env step; ratio {ratio:.3f}"
    )
    return {
        "num_envs": args.num_envs,
        "manager_ms": 1e3 * best["manager"],
        "direct_ms": 1e3 * best["direct"],
        "ratio": ratio,
    }


if __name__ == "__main__":
    main()
