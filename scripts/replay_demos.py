"""Replay the demonstrations of an HDF5 dataset and check that the replayed states equal the recorded ones.

    python scripts/replay_demos.py --dataset_file datasets/dataset.hdf5 [--select demo_0 demo_3]

Each demo is replayed in the env slot it was recorded in, in an env of the dataset's task with as many envs as
the recording had: the env is reset into the demo's initial state (``env.reset_to``), the recorded actions are
applied step by step (the other envs get zero actions), and the states after every step are compared with the
recorded ones, bitwise. Prints one line per demo; exits with status 1 when a demo does not replay exactly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import warp as wp
from rl_common import make_env

from isaaclab_contrib.envs import load_cfg_from_registry, mdp
from isaaclab_contrib.utils.datasets import HDF5DatasetFileHandler


def _leaves(tree: dict, prefix: str = "") -> dict[str, torch.Tensor]:
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(_leaves(value, f"{prefix}{key}/"))
        else:
            out[f"{prefix}{key}"] = value
    return out


def replay(env, demo: dict, env_id: int) -> tuple[bool, str]:
    """Replay *demo* in env *env_id*; ``(equal, detail)``."""
    ids = torch.tensor([env_id], device=env.device)
    initial = {
        group: {name: {k: v[:1] for k, v in values.items()} for name, values in assets.items()}
        for group, assets in demo["initial_state"].items()
    }
    env.reset_to(initial, ids, is_relative=True)
    actions = demo["actions"].to(env.device)
    for step in range(actions.shape[0]):
        action = torch.zeros(env.num_envs, actions.shape[1], device=env.device)
        action[env_id] = actions[step]
        env.step(action)
    episode = next(
        (e for e in reversed(env.recorder_manager.completed_episodes) if e.env_id == env_id), None
    ) or env.recorder_manager.get_episode(env_id)
    recorded, replayed = _leaves(demo["states"]), _leaves(episode.get("states"))
    for key, value in recorded.items():
        got = replayed.get(key)
        if got is None or got.shape != value.shape or not torch.equal(got.cpu(), value.cpu()):
            diff = (
                "missing" if got is None or got.shape != value.shape else f"{(got.cpu() - value.cpu()).abs().max():.3g}"
            )
            return False, f"{key} differs (max {diff})"
    return True, f"{actions.shape[0]} steps, {len(recorded)} state arrays equal"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset_file", "--dataset-file", type=Path, required=True)
    parser.add_argument("--select", nargs="*", default=None, help="demo names to replay (default: every demo)")
    args = parser.parse_args(argv)
    wp.config.quiet = True
    handler = HDF5DatasetFileHandler()
    try:
        handler.open(str(args.dataset_file))
    except (FileNotFoundError, ValueError) as err:
        raise SystemExit(f"[replay_demos] {err}") from None
    env_args = handler.get_env_args()
    task = env_args.get("env_name")
    if not task:
        raise SystemExit(f"[replay_demos] {args.dataset_file} names no task (env_args.env_name)")
    names = handler.get_episode_names() if args.select is None else list(args.select)
    cfg = load_cfg_from_registry(task, "env_cfg_entry_point")
    cfg.scene.num_envs = int(env_args.get("num_envs", 1))
    cfg.sim.device = env_args.get("device", "cpu")
    cfg.seed = env_args.get("seed")
    cfg.recorders = mdp.ActionStateRecorderManagerCfg(dataset_file_handler_class_type=None)  # the replay's own
    env = make_env(task, cfg).unwrapped
    results = {}
    try:
        env.reset()
        for name in names:
            demo = handler.load_episode(name, device=env.device)
            equal, detail = replay(env, demo, int(demo["attrs"].get("env_id", 0)))
            results[name] = equal
            print(f"[replay_demos] {name}: {'equal' if equal else 'DIFFERENT'} ({detail})", flush=True)
    finally:
        env.close()
        handler.close()
    print(f"[replay_demos] {sum(results.values())} of {len(results)} demos replayed bitwise")
    if not all(results.values()):
        sys.exit(1)
    return results


if __name__ == "__main__":
    main()
