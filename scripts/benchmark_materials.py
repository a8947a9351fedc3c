"""Benchmark: the cost of randomizing every env's cloth material against the cost of an env step, side by side.

Builds ``Isaac-Arm-Press-Cloth-v0`` with ``--num_envs`` envs and times, alternately, ``--steps`` env steps and as
many calls of ``mdp.randomize_deformable_material`` over every env (stiffness, damping, bending stiffness and
damping drawn per env), in ``--rounds`` rounds; prints the fastest round of each and their ratio.

    python scripts/benchmark_materials.py [--num_envs 64] [--steps 40] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import torch
import warp as wp
from rl_common import make_env

from isaaclab_contrib.envs import load_cfg_from_registry, mdp
from isaaclab_contrib.managers import SceneEntityCfg
from isaaclab_contrib.utils.cli import positive_int

TASK = "Isaac-Arm-Press-Cloth-v0"
RANGES = {"stiffness": (0.5, 2.0), "damping": (0.5, 2.0), "bend_stiffness": (0.5, 2.0), "bend_damping": (0.5, 2.0)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num_envs", "--num-envs", type=positive_int, default=64)
    parser.add_argument("--steps", type=positive_int, default=40)
    parser.add_argument("--rounds", type=positive_int, default=3)
    args = parser.parse_args(argv)
    wp.config.quiet = True
    cfg = load_cfg_from_registry(TASK, "env_cfg_entry_point")
    cfg.scene.num_envs = args.num_envs
    env = make_env(TASK, cfg).unwrapped
    cloth = SceneEntityCfg("cloth")
    try:
        env.reset()
        zeros = torch.zeros(args.num_envs, env.num_actions)
        for _ in range(3):
            env.step(zeros)
            mdp.randomize_deformable_material(env, None, cloth, RANGES)
        step, randomize = float("inf"), float("inf")
        for _ in range(args.rounds):
            start = time.perf_counter()
            for _ in range(args.steps):
                env.step(zeros)
            step = min(step, (time.perf_counter() - start) / args.steps)
            start = time.perf_counter()
            for _ in range(args.steps):
                mdp.randomize_deformable_material(env, None, cloth, RANGES)
            randomize = min(randomize, (time.perf_counter() - start) / args.steps)
        assert env.manager.step_mode() == "captured"
    finally:
        env.close()
    ratio = randomize / step
    print(
        f"{args.num_envs} envs, fastest of {args.rounds} rounds of {args.steps}: env step {1e3 * step:.2f} ms, "
        f"randomizing every env's cloth material {1e3 * randomize:.3f} ms; ratio {ratio:.4f} ({100 * ratio:.2f} %)"
    )
    return {"step_ms": 1e3 * step, "randomize_ms": 1e3 * randomize, "ratio": ratio}


if __name__ == "__main__":
    main()
