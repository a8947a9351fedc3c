"""Train a coupled task with rsl-rl's PPO (``OnPolicyRunner``), Isaac Lab style.

The task is a gymnasium id registered by a module in ``configs/`` (an unknown id lists them); its
registration names the env config and the rsl-rl runner config. The run folder
``<log_root>/<experiment>/<time>_seed<N>`` receives rsl-rl's tensorboard log and checkpoints
(``model_<it>.pt``), the exported policy (``exported/policy.pt`` TorchScript and
``exported/policy.onnx``), the learning curve ``learning_curve.png`` and ``result.json``: the
mean return of the random policy, of the task's scripted oracle (when it has one) and of the
trained policy (deterministic) on the same number of whole episodes, and the training wall time.

    python scripts/train.py --task Isaac-Arm-Press-Cloth-Direct-v0
    python scripts/train.py --task Isaac-Arm-Press-Cloth-Direct-v0 --seed 1 --num_envs 32 --max_iterations 250
    tensorboard --logdir logs/rsl_rl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime
from pathlib import Path

import torch
import warp as wp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds `configs/` (not installed)
from rl_common import add_common_arguments, export_policy, make_env, policy_function, reference_returns, task_configs

from isaaclab_contrib.rl import RslRlVecEnvWrapper, evaluate_policy
from isaaclab_contrib.utils.cli import positive_int


def read_curve(log_dir: Path, tag: str = "Train/mean_reward") -> tuple[list[int], list[float]]:
    """Iterations and values of the scalar *tag* from the run's tensorboard event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(log_dir), size_guidance={"scalars": 0})
    events.Reload()
    if tag not in events.Tags().get("scalars", []):
        return [], []
    scalars = events.Scalars(tag)
    return [s.step for s in scalars], [s.value for s in scalars]


def plot_curve(path: Path, log_dir: Path, samples_per_iteration: int, result: dict, title: str) -> None:
    """Training-episode return per iteration (from the tensorboard log) against the evaluated references."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps, values = read_curve(log_dir)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot([s * samples_per_iteration for s in steps], values, label="training episodes (rsl-rl mean return)")
    styles = {"random": ("gray", "--"), "oracle": ("black", "-."), "trained": ("green", ":")}
    for name, (color, style) in styles.items():
        if result.get(f"{name}_return") is not None:
            value = result[f"{name}_return"]
            ax.axhline(value, color=color, linestyle=style, label=f"{name} policy ({value:.1f})")
    ax.set(xlabel="env steps (all envs)", ylabel="episode return", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(parser)
    parser.add_argument("--max_iterations", "--max-iterations", type=positive_int, default=None, help="PPO updates")
    parser.add_argument("--log_root", "--log-root", default="logs/rsl_rl", help="root folder of the runs")
    parser.add_argument("--run_name", "--run-name", default=None, help="suffix of the run folder")
    args = parser.parse_args(argv)
    wp.config.quiet = True
    from rsl_rl.runners import OnPolicyRunner

    env_cfg, agent_cfg = task_configs(args)
    if args.max_iterations is not None:
        agent_cfg.max_iterations = args.max_iterations
    if args.run_name is not None:
        agent_cfg.run_name = args.run_name
    train_cfg = agent_cfg.to_rsl_rl()  # validates
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    suffix = f"_{agent_cfg.run_name}" if agent_cfg.run_name else ""
    log_dir = Path(args.log_root) / agent_cfg.experiment_name / f"{stamp}_seed{agent_cfg.seed}{suffix}"
    print(f"[train] task {args.task}: {env_cfg.num_envs} envs, seed {agent_cfg.seed}, log dir {log_dir}")

    torch.manual_seed(agent_cfg.seed)
    env = make_env(args.task, env_cfg)
    try:
        unwrapped = env.unwrapped
        episodes = args.eval_episodes
        result: dict = {"task": args.task, "seed": agent_cfg.seed, "num_envs": env_cfg.num_envs}
        result.update(reference_returns(args.task, env, episodes, agent_cfg.seed))
        count = episodes * env_cfg.num_envs
        print(f"[train] random policy: mean return {result['random_return']:.2f} over {count} episodes")
        if result["oracle_return"] is not None:
            print(f"[train] scripted oracle: mean return {result['oracle_return']:.2f} over {count} episodes")

        unwrapped.reset(seed=agent_cfg.seed)
        vec_env = RslRlVecEnvWrapper(env)
        runner = OnPolicyRunner(vec_env, train_cfg, log_dir=str(log_dir), device=str(unwrapped.torch_device))
        start = time.perf_counter()
        runner.learn(num_learning_iterations=agent_cfg.max_iterations, init_at_random_ep_len=True)
        train_seconds = time.perf_counter() - start
        samples_per_iteration = agent_cfg.num_steps_per_env * env_cfg.num_envs
        result["train_seconds"] = train_seconds
        result["env_steps"] = agent_cfg.max_iterations * samples_per_iteration

        policy = runner.get_inference_policy(device=str(unwrapped.torch_device))
        trained = evaluate_policy(unwrapped, policy_function(policy, env_cfg.num_envs), episodes, seed=agent_cfg.seed)
        result["trained_return"] = trained["mean"]
        if result["oracle_return"]:
            result["trained_over_oracle"] = trained["mean"] / result["oracle_return"]
        exported = log_dir / "exported"
        export_policy(runner, exported)
        title = f"{args.task}: rsl-rl PPO, seed {agent_cfg.seed}"
        plot_curve(log_dir / "learning_curve.png", log_dir, samples_per_iteration, result, title)
        (log_dir / "result.json").write_text(json.dumps(result, indent=2))
        ratio = (
            f" = {100 * result['trained_over_oracle']:.0f} % of the oracle" if "trained_over_oracle" in result else ""
        )
        print(
            f"[train] trained policy: mean return {trained['mean']:.2f}{ratio} (random {result['random_return']:.2f}) after "
            f"{result['env_steps']} env steps in {train_seconds:.0f} s"
        )
        print(
            f"[train] wrote {log_dir}/model_*.pt, exported/policy.pt, exported/policy.onnx, learning_curve.png, result.json"
        )
        return result
    finally:
        env.close()


if __name__ == "__main__":
    main()
