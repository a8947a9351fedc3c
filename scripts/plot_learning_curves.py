"""Plot the learning curves of several ``train.py`` runs in one figure, with their evaluated references.

Each run folder holds rsl-rl's tensorboard log and ``result.json`` (written by ``train.py``). The figure shows
every run's training-episode return (``Train/mean_reward``) against env steps (all envs), and as horizontal
lines the mean over the runs of the random, oracle and trained returns from their ``result.json``.

    python scripts/plot_learning_curves.py logs/rsl_rl/franka_lift_soft_coarse/*_seed* --output curves.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from train import REFERENCE_STYLES, read_curve


def run_folder(text: str) -> Path:
    """argparse type: a folder holding a ``result.json``."""
    path = Path(text)
    if not (path / "result.json").is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a train.py run folder (no result.json in it)")
    return path


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=run_folder, help="run folders of train.py")
    parser.add_argument("--output", type=Path, required=True, help="PNG to write")
    parser.add_argument("--title", default=None, help="figure title (default: the task id of the first run)")
    parser.add_argument(
        "--hide_reference",
        "--hide-reference",
        action="append",
        default=[],
        choices=sorted(REFERENCE_STYLES),
        help="leave out this reference line (repeatable), e.g. the oracle when its return dwarfs the curve",
    )
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = [json.loads((run / "result.json").read_text()) for run in args.runs]
    fig, ax = plt.subplots(figsize=(7, 4))
    for run, result in zip(args.runs, results, strict=True):
        steps, values = read_curve(run)
        per_iteration = result["env_steps"] / max(1, len(steps))
        ax.plot([s * per_iteration for s in steps], values, linewidth=1.2, label=f"seed {result['seed']} (training)")
    for name, (color, style) in REFERENCE_STYLES.items():
        if name in args.hide_reference:
            continue
        values = [r[f"{name}_return"] for r in results if r.get(f"{name}_return") is not None]
        if values:
            mean = sum(values) / len(values)
            ax.axhline(mean, color=color, linestyle=style, label=f"{name} policy, evaluated (mean {mean:.1f})")
    ax.set(
        xlabel="env steps (all envs)", ylabel="episode return", title=args.title or f"{results[0]['task']}: rsl-rl PPO"
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.output, dpi=100)
    plt.close(fig)
    print(f"wrote {args.output}")
    return args.output


if __name__ == "__main__":
    main()
