"""Benchmark: env steps per second of the press-the-cloth RL env, captured and eager.

For each ``--num-envs`` value, builds the env with and without graph capture, warms up, then
times ``--steps`` env steps with random actions. Prints env steps/s, samples/s (env steps x envs)
and the captured/eager ratio, all measured in this one run.

    python scripts/benchmark_env.py [--num-envs 1 16 64] [--steps 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch
import warp as wp

from isaaclab_contrib.utils.cli import positive_int

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds `configs/` (not installed)
from configs.press_cloth_task import PressClothEnv, PressClothEnvCfg


def rate(num_envs: int, graph: bool, steps: int) -> float:
    env = PressClothEnv(PressClothEnvCfg(num_envs=num_envs, use_graph=graph))
    try:
        generator = torch.Generator().manual_seed(0)
        env.reset()
        for _ in range(3):
            env.step(torch.zeros(num_envs, 1))
        start = time.perf_counter()
        for _ in range(steps):
            env.step(torch.rand(num_envs, 1, generator=generator) * 2 - 1)
        return steps / (time.perf_counter() - start)
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=positive_int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--steps", type=positive_int, default=20)
    args = parser.parse_args()
    wp.config.quiet = True
    print(
        f"{'envs':>5} {'captured steps/s':>17} {'eager steps/s':>14} {'captured samples/s':>19} {'eager samples/s':>16} {'ratio':>6}"
    )
    for n in args.num_envs:
        captured = rate(n, True, args.steps)
        eager = rate(n, False, max(5, args.steps // 4))
        print(
            f"{n:>5} {captured:>17.1f} {eager:>14.1f} {captured * n:>19.0f} {eager * n:>16.0f} {captured / eager:>6.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
