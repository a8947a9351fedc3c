"""Shared command-line handling of ``train.py``, ``play.py`` and ``benchmark_env.py``: task ids to envs.

Every argument that can be checked without building anything is checked by its ``argparse`` type (task
ids, counts, seeds, folder names, the log root, checkpoint files), so a bad command line fails at once
with a usage message, before any simulation or evaluation starts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium as gym

import isaaclab_coupling_configs  # noqa: F401  (registers the scenes and the gymnasium task ids)
from isaaclab_contrib.envs import check_seed, load_cfg_from_registry, resolve_entry_point
from isaaclab_contrib.rl.runs import CheckpointError, check_log_root, check_path_component, load_checkpoint
from isaaclab_contrib.utils.cli import positive_int

DEFAULT_TASK = "Isaac-Arm-Press-Cloth-Direct-v0"


def coupled_task_ids() -> list[str]:
    """Registered gymnasium ids whose registration names a coupled env config."""
    return sorted(name for name, spec in gym.registry.items() if "env_cfg_entry_point" in (spec.kwargs or {}))


def task_id(text: str) -> str:
    """argparse type: a registered coupled task id."""
    known = coupled_task_ids()
    if text not in known:
        raise argparse.ArgumentTypeError(f"unknown task {text!r}; registered coupled tasks: {', '.join(known)}")
    return text


def seed_arg(text: str) -> int:
    """argparse type: a seed, an integer in [0, 2**64 - 1] (what torch generators and the configs take)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text!r}") from None
    try:
        return check_seed(value, "--seed")
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def folder_name_arg(text: str) -> str:
    """argparse type: one folder name (no path separators, no '..'; see ``check_path_component``)."""
    try:
        return check_path_component(text, "the name")
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def log_root_arg(text: str) -> Path:
    """argparse type: a folder that exists and is writable, or can be created below a writable folder."""
    try:
        return check_log_root(text)
    except OSError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def checkpoint_arg(text: str) -> tuple[Path, str, object]:
    """argparse type: ``(path, kind, content)`` of a readable TorchScript policy or rsl-rl checkpoint."""
    try:
        kind, content = load_checkpoint(text)
    except CheckpointError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return Path(text), kind, content


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """--task, --num_envs, --seed, --device and --eval_episodes (Isaac Lab spellings; dashes work too)."""
    parser.add_argument(
        "--task", type=task_id, default=DEFAULT_TASK, help=f"gymnasium task id (default {DEFAULT_TASK})"
    )
    parser.add_argument("--num_envs", "--num-envs", type=positive_int, default=None, help="parallel envs")
    parser.add_argument("--seed", type=seed_arg, default=None, help="seed, in [0, 2**64 - 1]")
    parser.add_argument("--device", default=None, help="'cpu', 'cuda' or 'cuda:N'")
    parser.add_argument(
        "--eval_episodes", "--eval-episodes", type=positive_int, default=2, help="evaluation episodes per env"
    )


def task_configs(args: argparse.Namespace, rank: int = 0):
    """The task's env and runner configs with the command-line overrides applied (and validated).

    *rank* (a distributed run's process rank) is added to the seed, so every process draws its own resets and
    actions; rank 0 keeps the seed given.

    Raises:
        SystemExit: An override or the resulting configs are invalid (the message names the field).
    """
    env_cfg = load_cfg_from_registry(args.task, "env_cfg_entry_point")
    agent_cfg = load_cfg_from_registry(args.task, "rsl_rl_cfg_entry_point")
    if args.seed is not None:
        agent_cfg.seed = args.seed
    if args.num_envs is not None:
        agent_cfg.num_envs = args.num_envs
    if args.device is not None:
        env_cfg.sim.device = args.device
    agent_cfg.seed += rank
    env_cfg.scene.num_envs = agent_cfg.num_envs
    env_cfg.seed = agent_cfg.seed
    try:
        env_cfg.validate()
        agent_cfg.validate()
    except (TypeError, ValueError) as err:
        raise SystemExit(f"invalid settings for task {args.task}: {err}") from None
    return env_cfg, agent_cfg


def make_env(task: str, env_cfg):
    """``gymnasium.make(task, cfg=env_cfg)``."""
    return gym.make(task, cfg=env_cfg)


def oracle_for(task: str, env):
    """The task's scripted oracle (``obs -> actions``) from its ``oracle_entry_point``, or ``None``."""
    entry = (gym.registry[task].kwargs or {}).get("oracle_entry_point")
    return None if entry is None else resolve_entry_point(entry, "oracle_entry_point")(env)


def reference_returns(task: str, env, episodes: int, seed: int) -> dict:
    """Mean returns of the random policy and of the task's oracle (``None`` without one) on the same episodes."""
    from isaaclab_contrib.rl import evaluate_policy, random_policy

    unwrapped = env.unwrapped
    returns = {"random_return": evaluate_policy(unwrapped, random_policy(unwrapped, seed), episodes, seed=seed)["mean"]}
    oracle = oracle_for(task, unwrapped)
    returns["oracle_return"] = (
        None if oracle is None else evaluate_policy(unwrapped, oracle, episodes, seed=seed)["mean"]
    )
    return returns


def export_policy(runner, folder: Path) -> None:
    """Export the runner's policy into *folder* as ``policy.pt`` (TorchScript) and ``policy.onnx``."""
    runner.export_policy_to_jit(str(folder), "policy.pt")
    runner.export_policy_to_onnx(str(folder), "policy.onnx")


def policy_function(policy, num_envs: int):
    """Turn rsl-rl's inference policy (it takes a TensorDict of groups) into ``obs -> actions``."""
    from tensordict import TensorDict

    return lambda obs: policy(TensorDict({"policy": obs}, batch_size=[num_envs], device=obs.device))
