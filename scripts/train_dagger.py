"""Train an actor by DAgger on a manager-based task's scripted oracle, logging the actor's return and success rate
per round (:mod:`isaaclab_contrib.rl.dagger`).

    python scripts/train_dagger.py --task Isaac-Lift-Soft-Franka-IK-Abs-v0 --num_envs 32 --rounds 24 --hold \\
        [--seed 0] [--expert_shares 1,0.5,0.25] [--log_root logs/dagger]

Round 0 is the oracle's (share 1 by default), rounds 1 and 2 mix it with the actor (about half, then a quarter of
the envs), later rounds are the actor's alone: the success rate of those rounds is the actor's own. Each round is one
episode per env from a reset; every step is labelled with the oracle's action and the actor (the lift tasks' MLP,
256-128-64 ELU) is refitted to all pairs so far (Adam, ``--lr``; ``--first_passes`` passes after round 0,
``--passes`` after the others, continuing from the previous weights). ``--hold`` keeps the lift oracle's plan
within 2 cm of the hand in the envs the actor drives (see ``lift_oracle``). ``--offset_term tcp_position`` (the
``-IK-Abs-v0`` tasks) adds the hand's position to the actor's position target, so the MLP fits the step from the
hand to the target, and ``--relative_term object_points`` gives it the object's points less the hand's position
as inputs too (see ``DaggerActor``). ``--action_min 2=0.001`` keeps the actor's target at least 1 mm over the table
(its output is clamped there; the fit is of the unclamped output). ``--oracle MODULE:FUNCTION`` names another
teacher than the task's ``oracle_entry_point`` (``FUNCTION(env)`` returning ``act(obs, hold=None)``).

Writes into a new folder ``<log_root>/<task>/<time>_seed<seed>/``: the tensorboard log (``Dagger/actor_return``,
``Dagger/actor_success``, ``Dagger/oracle_return``, ``Dagger/oracle_success``, ``Dagger/fit_rmse``,
``Dagger/pairs``, ``Dagger/actor_ended_on_<termination term>``: the share of the actor's episodes each
termination term ended), ``rounds.json`` (every round's figures and the settings), ``actor.pt`` (the actor's
weights and input standardization, ``DaggerActor`` state dict; both rewritten after every round), and at the end
``dagger.png`` (the curves) and ``policy.pt`` (a TorchScript module ``obs["policy"] -> actions``).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import torch
import warp as wp
from plot_dagger_rounds import plot_runs
from rl_common import log_root_arg, make_env, oracle_for, seed_arg, task_id

from isaaclab_contrib.envs import ManagerBasedRLEnvCfg, load_cfg_from_registry, resolve_entry_point
from isaaclab_contrib.rl import create_run_dir
from isaaclab_contrib.rl.dagger import (
    DaggerActor,
    collect_round,
    expert_share,
    fit_actor,
    oracle_accepts_hold,
    success_metrics,
)
from isaaclab_contrib.utils.cli import (
    add_device_option,
    add_num_envs_option,
    key_and_number,
    positive_float,
    positive_int,
)

SERIES = ("actor_return", "actor_success", "oracle_return", "oracle_success", "fit_rmse", "pairs")


def shares_arg(text: str) -> list[float]:
    """argparse type: comma-separated expert shares in [0, 1]."""
    try:
        shares = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of numbers") from None
    if any(not 0.0 <= s <= 1.0 for s in shares):  # also refuses NaN
        raise argparse.ArgumentTypeError(f"every expert share must be in [0, 1], got {text!r}")
    return shares


def term_columns(env, group: str, term: str) -> list[int]:
    """The columns of the observation term *term* in the concatenated group *group*; ``NAME[START:STOP]`` takes a
    slice of the term's own columns (``actions[0:3]``: the position part of the last action).

    Raises:
        SystemExit: No such group (or not one row of columns), no such term, or the slice is malformed or empty.
    """
    name, _, rest = term.partition("[")
    try:
        spans = env.observation_manager.term_columns(group)
    except ValueError as err:
        raise SystemExit(f"[train_dagger] {err}") from None
    if name not in spans:
        raise SystemExit(f"[train_dagger] the {group!r} observation group has no term {name!r} (it has {list(spans)})")
    columns = list(spans[name])
    if not rest:
        return columns
    bounds = rest[:-1].split(":") if rest.endswith("]") else []
    try:
        if len(bounds) != 2:
            raise ValueError
        chosen = columns[slice(*(int(b) if b.strip() else None for b in bounds))]
    except ValueError:
        raise SystemExit(f"[train_dagger] {term!r}: a term's slice is written NAME[START:STOP]") from None
    if not chosen:
        raise SystemExit(f"[train_dagger] {term!r} selects no column of the term ({len(columns)} wide)")
    return chosen


def bounds_arg(text: str) -> tuple[int, float]:
    """argparse type: ``COLUMN=VALUE``, an action column and a bound on it."""
    key, value = key_and_number(text) or ("", math.nan)
    try:
        column = int(key)
    except ValueError:
        column = -1
    if column < 0 or math.isnan(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not COLUMN=VALUE (a column >= 0 and a number)")
    return column, value


def action_bounds(pairs: list[tuple[int, float]], num_actions: int, flag: str, default: float) -> list[float] | None:
    """The per-column bounds for ``DaggerActor`` from ``--action_min`` / ``--action_max`` pairs (*default*
    elsewhere; ``None`` for none given).

    Raises:
        SystemExit: A column outside the action or given twice.
    """
    if not pairs:
        return None
    bounds = [default] * num_actions
    seen: set[int] = set()
    for column, value in pairs:
        if column >= num_actions or column in seen:
            raise SystemExit(
                f"[train_dagger] {flag} {column}={value}: the action has columns 0-{num_actions - 1}, each bounded once"
            )
        seen.add(column)
        bounds[column] = value
    return bounds


def oracle_from(entry: str, env):
    """The oracle ``--oracle MODULE:FUNCTION`` names, made for *env* (``FUNCTION(env) -> act``).

    Raises:
        SystemExit: The entry point does not resolve to a callable, or the function refuses the env.
    """
    try:
        factory = resolve_entry_point(entry, "--oracle")
        if not callable(factory):
            raise ValueError(f"{entry!r} is a {type(factory).__name__}, not a function of the env")
        return factory(env)
    except (ImportError, TypeError, ValueError) as err:
        raise SystemExit(f"[train_dagger] --oracle {entry}: {err}") from None


def save_progress(folder: Path, actor: torch.nn.Module, result: dict) -> None:
    """Write ``rounds.json`` and ``actor.pt`` as they stand after a round (each through a temporary file, so that
    a run stopped at any point leaves the last complete round's)."""
    for name, write in (
        ("rounds.json", lambda path: path.write_text(json.dumps(result, indent=2, allow_nan=True))),
        ("actor.pt", lambda path: torch.save(actor.state_dict(), path)),
    ):
        partial = folder / f".{name}.partial"
        write(partial)
        partial.replace(folder / name)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", type=task_id, required=True, help="a manager-based task with an oracle")
    parser.add_argument("--rounds", type=positive_int, default=12)
    parser.add_argument("--seed", type=seed_arg, default=0)
    parser.add_argument("--expert_shares", "--expert-shares", type=shares_arg, default=[1.0, 0.5, 0.25])
    parser.add_argument(
        "--oracle",
        default=None,
        metavar="MODULE:FUNCTION",
        help="the teacher, FUNCTION(env) -> act, instead of the task's oracle_entry_point",
    )
    parser.add_argument("--hold", action="store_true", help="keep the oracle's plan near the hand (lift tasks)")
    parser.add_argument(
        "--offset_term",
        "--offset-term",
        default=None,
        help="a policy observation term (e.g. tcp_position) added to the first action columns: the MLP outputs the "
        "action less it",
    )
    parser.add_argument(
        "--relative_term",
        "--relative-term",
        action="append",
        default=[],
        help="with --offset_term: a policy observation term of 3-vectors (e.g. object_points, or a slice such as "
        "actions[0:3]) whose differences from the offset term are added to the actor's inputs (repeatable)",
    )
    for flag, side in (("min", "lowest"), ("max", "highest")):
        parser.add_argument(
            f"--action_{flag}",
            f"--action-{flag}",
            type=bounds_arg,
            action="append",
            default=[],
            metavar="COLUMN=VALUE",
            help=f"the {side} value the actor sends in an action column (repeatable; e.g. 2=0.001 with the "
            "-IK-Abs-v0 tasks: the target's height over the table, at least 1 mm)",
        )
    parser.add_argument("--first_passes", "--first-passes", type=positive_int, default=100)
    parser.add_argument("--passes", type=positive_int, default=40)
    parser.add_argument("--lr", type=positive_float, default=1.0e-3)
    parser.add_argument(
        "--command_name", "--command-name", default="object_pose", help="the command term whose success is logged"
    )
    parser.add_argument("--max_steps", "--max-steps", type=positive_int, default=None, help="cut each round short")
    parser.add_argument("--log_root", "--log-root", type=log_root_arg, default=Path("logs/dagger"))
    add_num_envs_option(parser, default=32)
    add_device_option(parser)
    args = parser.parse_args(argv)
    if args.relative_term and args.offset_term is None:
        parser.error("--relative_term needs --offset_term (the term it is taken relative to)")
    wp.config.quiet = True
    cfg = load_cfg_from_registry(args.task, "env_cfg_entry_point")
    if not isinstance(cfg, ManagerBasedRLEnvCfg):
        raise SystemExit(f"[train_dagger] {args.task} is not a manager-based task (its config is {type(cfg).__name__})")
    cfg.scene.num_envs = args.num_envs
    cfg.seed = args.seed
    if args.device is not None:
        cfg.sim.device = args.device
    torch.manual_seed(args.seed)
    draw = torch.Generator().manual_seed(args.seed)
    env = make_env(args.task, cfg).unwrapped
    try:
        oracle = oracle_for(args.task, env) if args.oracle is None else oracle_from(args.oracle, env)
        if oracle is None:
            raise SystemExit(f"[train_dagger] {args.task} has no oracle_entry_point: DAgger needs its scripted oracle")
        if args.hold and not oracle_accepts_hold(oracle):
            raise SystemExit(f"[train_dagger] --hold: the oracle of {args.task} takes no hold (only lift_oracle does)")
        try:
            success_metrics(env, args.command_name, f"[train_dagger] {args.task}")
        except ValueError as err:
            raise SystemExit(f"{err}; name one with --command_name") from None
        obs, _ = env.reset()
        offset = [] if args.offset_term is None else term_columns(env, "policy", args.offset_term)
        num_actions = env.action_manager.total_action_dim
        if len(offset) > num_actions:
            raise SystemExit(
                f"[train_dagger] --offset_term {args.offset_term} is wider than the action ({num_actions})"
            )
        relative = [c for term in args.relative_term for c in term_columns(env, "policy", term)]
        if len(relative) % max(1, len(offset)):
            raise SystemExit(
                f"[train_dagger] --relative_term {args.relative_term} is not made of {len(offset)}-vectors like "
                f"--offset_term {args.offset_term}"
            )
        low = action_bounds(args.action_min, num_actions, "--action_min", -math.inf)
        high = action_bounds(args.action_max, num_actions, "--action_max", math.inf)
        try:
            actor = DaggerActor(
                obs["policy"].shape[1],
                num_actions,
                offset_columns=offset,
                relative_columns=relative,
                action_min=low,
                action_max=high,
            )
        except ValueError as err:
            raise SystemExit(f"[train_dagger] {err}") from None
        actor = actor.to(env.device).eval()
        optimizer = torch.optim.Adam(actor.parameters(), lr=args.lr)
        folder = create_run_dir(args.log_root, args.task, args.seed)
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(folder))
        settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
        rows: list[dict] = []
        all_obs, all_labels = [], []
        for r in range(args.rounds):
            started = time.perf_counter()
            expert = torch.rand(args.num_envs, generator=draw) < expert_share(r, args.expert_shares)
            data = collect_round(
                env, oracle, actor, expert, hold=args.hold, command_name=args.command_name, max_steps=args.max_steps
            )
            all_obs.append(data.obs)
            all_labels.append(data.labels)
            obs_cat, labels_cat = torch.cat(all_obs), torch.cat(all_labels)
            passes = args.first_passes if r == 0 else args.passes
            rmse = fit_actor(actor, optimizer, obs_cat, labels_cat, passes, generator=draw)
            row = {"round": r, "expert_share": expert_share(r, args.expert_shares), "actor_envs": int((~expert).sum())}
            for who, is_expert in (("actor", False), ("oracle", True)):
                row[f"{who}_return"] = data.mean_over(data.returns, is_expert)
                row[f"{who}_success"] = data.mean_over(data.success, is_expert)
            row["actor_episode_steps"] = data.mean_over(data.steps, False)
            row["actor_endings"] = {name: data.mean_over(on, False) for name, on in data.endings.items()}
            row.update(fit_rmse=rmse, pairs=len(obs_cat), seconds=time.perf_counter() - started)
            rows.append(row)
            for key in SERIES:
                if not math.isnan(row[key]):
                    writer.add_scalar(f"Dagger/{key}", row[key], r)
            for name, share in row["actor_endings"].items():
                if not math.isnan(share):
                    writer.add_scalar(f"Dagger/actor_ended_on_{name}", share, r)
            writer.flush()
            save_progress(
                folder, actor, {"task": args.task, "folder": str(folder), "settings": settings, "rounds": rows}
            )
            ends = ", ".join(f"{k} {v:.0%}" for k, v in row["actor_endings"].items() if v > 0) or "-"
            print(
                f"[train_dagger] round {r + 1}/{args.rounds}: actor envs {row['actor_envs']}, actor return "
                f"{row['actor_return']:.2f}, success {row['actor_success']:.0%} (ended on: {ends}); oracle return "
                f"{row['oracle_return']:.2f}, success {row['oracle_success']:.0%}; fit rmse {rmse:.4f} over "
                f"{row['pairs']} pairs ({row['seconds']:.0f} s)",
                flush=True,
            )
        writer.close()
    finally:
        env.close()
    result = {"task": args.task, "folder": str(folder), "settings": settings, "rounds": rows}
    torch.jit.script(actor.cpu().eval()).save(str(folder / "policy.pt"))
    title = f"{args.task}: DAgger, {args.num_envs} envs, seed {args.seed} (CPU)"
    result["figure"] = str(plot_runs([result], folder / "dagger.png", title))
    print(f"[train_dagger] wrote {folder}", flush=True)
    return result


if __name__ == "__main__":
    main()
