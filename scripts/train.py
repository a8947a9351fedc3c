"""Train (or play) a PPO policy on the press-the-cloth task: a pusher coupled to a pinned cloth.

Training prints progress, evaluates the random policy and the trained policy on the same
number of episodes, saves a checkpoint and a PNG learning curve into ``--output``.

    python scripts/train.py                         # train with the defaults (a few minutes on a CPU)
    python scripts/train.py --play output/press_cloth_seed0.pt
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch
import warp as wp
from tqdm import tqdm

from isaaclab_contrib.rl import PPO, PPOCfg
from isaaclab_contrib.rl.ppo import ActorCritic
from isaaclab_contrib.utils.cli import positive_int

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds `configs/` (not installed)
from configs.press_cloth_task import PressClothEnv, PressClothEnvCfg


def evaluate(env: PressClothEnv, policy, rounds: int = 1) -> float:
    """Mean return of *policy* (``obs -> actions``) over ``rounds`` episodes of every env.

    Each env contributes exactly its first ``rounds`` episodes, so early failures do not bias the mean.
    """
    obs, _ = env.reset()
    returns: list[list[float]] = [[] for _ in range(env.num_envs)]
    while min(len(r) for r in returns) < rounds:
        obs, _, _, _, extras = env.step(policy(obs))
        if "episode" in extras:
            for env_id, value in zip(
                extras["episode"]["env_ids"].tolist(), extras["episode"]["return"].tolist(), strict=True
            ):
                returns[env_id].append(value)
    values = [v for r in returns for v in r[:rounds]]
    return float(sum(values) / len(values))


def random_policy(env: PressClothEnv, seed: int):
    generator = torch.Generator().manual_seed(seed)
    return lambda obs: torch.rand(env.num_envs, env.num_actions, generator=generator) * 2.0 - 1.0


def plot_curve(path: Path, steps, returns, random_return: float, trained_return: float, seed: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, returns, label="training episodes (mean return per update)")
    ax.axhline(random_return, color="gray", linestyle="--", label=f"random policy ({random_return:.1f})")
    ax.axhline(trained_return, color="green", linestyle=":", label=f"trained, deterministic ({trained_return:.1f})")
    ax.set(xlabel="env steps (all envs)", ylabel="episode return", title=f"press the cloth: PPO, seed {seed}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def train(args) -> dict:
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    env = PressClothEnv(PressClothEnvCfg(num_envs=args.num_envs, seed=args.seed, device=args.device))
    try:
        rounds = args.eval_rounds
        random_return = evaluate(env, random_policy(env, args.seed), rounds)
        print(f"random policy: mean return {random_return:.2f} over {rounds * env.num_envs} episodes")
        ppo = PPO(env, PPOCfg(), seed=args.seed)
        steps, curve, total, recent = [], [], 0, []
        start = time.perf_counter()
        bar = tqdm(range(args.iterations), desc="PPO updates", unit="update")
        for _ in bar:
            buf, finished = ppo.collect()
            stats = ppo.update(buf)
            total += ppo.cfg.num_steps * env.num_envs
            recent = (recent + finished)[-2 * env.num_envs :]
            if recent:
                steps.append(total)
                curve.append(sum(recent) / len(recent))
                bar.set_postfix(ret=f"{curve[-1]:.1f}", value_loss=f"{stats['value']:.3f}")
        elapsed = time.perf_counter() - start
        trained_return = evaluate(env, lambda obs: ppo.model.act(obs.cpu(), deterministic=True), rounds)
        ckpt = out / f"press_cloth_seed{args.seed}.pt"
        ppo.save(str(ckpt), {"num_envs": args.num_envs, "seed": args.seed})
        png = out / f"press_cloth_seed{args.seed}.png"
        plot_curve(png, steps, curve, random_return, trained_return, args.seed)
        result = {
            "seed": args.seed,
            "random_return": random_return,
            "trained_return": trained_return,
            "env_steps": total,
            "train_seconds": elapsed,
            "samples_per_second": total / elapsed,
        }
        print(
            f"trained policy: mean return {trained_return:.2f} (random {random_return:.2f}, "
            f"+{trained_return - random_return:.2f}) after {total} env steps in {elapsed:.0f} s"
        )
        print(f"saved {ckpt} and {png}")
        (out / f"press_cloth_seed{args.seed}.json").write_text(json.dumps(result, indent=2))
        return result
    finally:
        env.close()


def play(args) -> float:
    ckpt = torch.load(args.play, weights_only=False)
    env = PressClothEnv(PressClothEnvCfg(num_envs=args.num_envs, seed=args.seed, device=args.device))
    try:
        model = ActorCritic(env.num_observations, env.num_actions, PPOCfg(**ckpt["cfg"]))
        model.load_state_dict(ckpt["model"])
        mean_return = evaluate(env, lambda obs: model.act(obs.cpu(), deterministic=True), args.eval_rounds)
        print(f"{args.play}: mean return {mean_return:.2f} over {args.eval_rounds * env.num_envs} episodes")
        return mean_return
    finally:
        env.close()


def main(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=positive_int, default=16)
    parser.add_argument(
        "--iterations", type=positive_int, default=120, help="PPO updates (each 32 env steps x num_envs)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-rounds", type=positive_int, default=2, help="evaluation episodes per env")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--output", default="output")
    parser.add_argument("--play", default=None, help="evaluate this checkpoint instead of training")
    args = parser.parse_args(argv)
    wp.config.quiet = True
    return play(args) if args.play else train(args)


if __name__ == "__main__":
    main()
