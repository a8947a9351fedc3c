"""Shared command-line handling of ``train.py``, ``play.py`` and ``benchmark_env.py``: task ids to envs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import gymnasium as gym

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds `configs/` (not installed)
import configs  # noqa: F401  (registers the scenes and the gymnasium task ids)
from isaaclab_contrib.envs import load_cfg_from_registry, resolve_entry_point
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


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """--task, --num_envs, --seed, --device and --eval_episodes (Isaac Lab spellings; dashes work too)."""
    parser.add_argument(
        "--task", type=task_id, default=DEFAULT_TASK, help=f"gymnasium task id (default {DEFAULT_TASK})"
    )
    parser.add_argument("--num_envs", "--num-envs", type=positive_int, default=None, help="parallel envs")
    parser.add_argument("--seed", type=int, default=None, help="seed (>= 0)")
    parser.add_argument("--device", default=None, help="'cpu', 'cuda' or 'cuda:N'")
    parser.add_argument(
        "--eval_episodes", "--eval-episodes", type=positive_int, default=2, help="evaluation episodes per env"
    )


def task_configs(args: argparse.Namespace):
    """The task's env and runner configs with the command-line overrides applied (and validated)."""
    env_cfg = load_cfg_from_registry(args.task, "env_cfg_entry_point")
    agent_cfg = load_cfg_from_registry(args.task, "rsl_rl_cfg_entry_point")
    if args.seed is not None:
        if args.seed < 0:
            raise SystemExit(f"--seed must be >= 0, got {args.seed}")
        agent_cfg.seed = args.seed
    if args.num_envs is not None:
        agent_cfg.num_envs = args.num_envs
    if args.device is not None:
        env_cfg.device = args.device
    env_cfg.num_envs = agent_cfg.num_envs
    env_cfg.seed = agent_cfg.seed
    env_cfg.validate()
    agent_cfg.validate()
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
