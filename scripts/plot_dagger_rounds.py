"""Plot ``train_dagger.py`` runs in one figure: the actor's success rate and mean return per round, one line per
run, with each run's oracle (its envs in the first rounds) as a dashed line of the same colour.

    python scripts/plot_dagger_rounds.py logs/dagger/*/*_seed0 --output dagger.png [--title TEXT]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path


def dagger_run(text: str) -> Path:
    """argparse type: a ``train_dagger.py`` run folder (it holds ``rounds.json``)."""
    path = Path(text)
    if not (path / "rounds.json").is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a train_dagger.py run folder (no rounds.json in it)")
    return path


def _mean(values: list[float]) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return sum(finite) / len(finite) if finite else math.nan


def run_label(result: dict, with_seed: bool = False) -> str:
    """The legend's name of a run (``rounds.json`` contents): the task, then its settings other than the defaults
    (and its seed, with *with_seed*)."""
    settings = result.get("settings", {})
    extras = ["hold"] if settings.get("hold") else []
    if settings.get("offset_term"):
        extras.append(f"offset {settings['offset_term']}")
    if settings.get("relative_term"):
        extras.append(f"relative {', '.join(settings['relative_term'])}")
    for flag in ("action_min", "action_max"):
        extras += [f"{flag} {column}={value:g}" for column, value in settings.get(flag) or []]
    if settings.get("expert_shares", [1.0, 0.5, 0.25]) != [1.0, 0.5, 0.25]:
        extras.append(f"expert shares {','.join(f'{v:g}' for v in settings['expert_shares'])}")
    if settings.get("passes", 40) != 40:
        extras.append(f"{settings['passes']} passes")
    if settings.get("oracle"):
        extras.append(f"oracle {settings['oracle'].rpartition(':')[2]}")
    if with_seed and settings.get("seed") is not None:
        extras.append(f"seed {settings['seed']}")
    label = result["task"].replace("Isaac-Lift-", "").replace("-Franka-IK-Abs-v0", "")
    return label + (f" ({', '.join(extras)})" if extras else " (plain labels)")


def plot_runs(results: list[dict], output: Path, title: str) -> Path:
    """Draw *results* (``rounds.json`` contents) into *output* (PNG); returns *output*."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    legend_height = 0.45 + 0.2 * len(results)  # [inch] under the axes, one line per run
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6 + legend_height))
    seeds = {result.get("settings", {}).get("seed") for result in results}
    for i, result in enumerate(results):
        rows, color = result["rounds"], f"C{i}"
        rounds = [row["round"] for row in rows]
        label = run_label(result, with_seed=len(seeds) > 1)
        for ax, key, scale in ((axes[0], "success", 100.0), (axes[1], "return", 1.0)):
            ax.plot(rounds, [row[f"actor_{key}"] * scale for row in rows], "o-", ms=3, color=color, label=label)
            oracle = _mean([row[f"oracle_{key}"] for row in rows])
            if not math.isnan(oracle):
                ax.axhline(oracle * scale, color=color, linestyle="--", linewidth=0.8)
    axes[0].set(xlabel="DAgger round", ylabel="actor's episodes on the command [%]")
    axes[1].set(xlabel="DAgger round", ylabel="actor's mean episode return")
    for ax in axes:
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", fontsize=8, title="solid: actor; dashed: oracle", title_fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0.0, legend_height / fig.get_figheight(), 1.0, 1.0))
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=100)
    plt.close(fig)
    return output


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=dagger_run, help="run folders of train_dagger.py")
    parser.add_argument("--output", type=Path, required=True, help="PNG to write")
    parser.add_argument("--title", default="DAgger on the lift tasks' oracles (CPU)")
    args = parser.parse_args(argv)
    results = [json.loads((run / "rounds.json").read_text()) for run in args.runs]
    out = plot_runs(results, args.output, args.title)
    print(f"wrote {out}")
    return out


if __name__ == "__main__":
    main()
