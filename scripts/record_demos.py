"""Record demonstrations of a manager-based task's scripted oracle into an HDF5 dataset (Isaac Lab's layout).

    python scripts/record_demos.py --task Isaac-Arm-Press-Cloth-v0 --num_demos 10 [--dataset_file demos/arm.hdf5]
        [--num_envs 4] [--seed 0] [--all]

Every env runs the task's oracle (its registration's ``oracle_entry_point``); each finished episode is written as
``demo_<n>`` with its initial state, actions, policy observations and the states after every step
(:class:`~isaaclab_contrib.envs.mdp.ActionStateRecorderManagerCfg`). By default only succeeded episodes are written
(the task's ``success`` termination term; without one, an episode that ran out its time without failing);
``--all`` writes every episode. Recording stops once ``--num_demos`` episodes are written: where more envs end in
that last step than are still wanted, the lowest env ids are written and the rest are left out (counted as
``episodes_not_written``). ``scripts/replay_demos.py`` replays them.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch
import warp as wp
from rl_common import make_env, oracle_for, seed_arg, task_id

from isaaclab_contrib.envs import ManagerBasedRLEnvCfg, load_cfg_from_registry, mdp
from isaaclab_contrib.managers.recorder_manager import DatasetExportMode
from isaaclab_contrib.utils.cli import add_device_option, add_num_envs_option, positive_int


def write_at_most(recorder, handler, limit: int) -> dict:
    """Make *recorder* write at most *limit* episodes into *handler*'s dataset; the episodes it drops past that are
    counted in the returned ``{"count": n}`` (the recorder's own episode counts still count them)."""
    left_out = {"count": 0}
    write = recorder.write_episode

    def write_up_to_limit(episode, failed_dataset: bool = False) -> None:
        if not failed_dataset and handler.demo_count >= limit:
            left_out["count"] += 1
            return
        write(episode, failed_dataset=failed_dataset)

    recorder.write_episode = write_up_to_limit
    return left_out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", type=task_id, default="Isaac-Arm-Press-Cloth-v0", help="a manager-based task id")
    parser.add_argument("--num_demos", "--num-demos", type=positive_int, default=10)
    parser.add_argument("--dataset_file", "--dataset-file", type=Path, default=Path("datasets/dataset.hdf5"))
    parser.add_argument("--seed", type=seed_arg, default=0)
    parser.add_argument("--all", action="store_true", help="write failed episodes too (default: succeeded only)")
    add_num_envs_option(parser, default=4)
    add_device_option(parser)
    args = parser.parse_args(argv)
    wp.config.quiet = True
    cfg = load_cfg_from_registry(args.task, "env_cfg_entry_point")
    if not isinstance(cfg, ManagerBasedRLEnvCfg):
        raise SystemExit(f"[record_demos] {args.task} is not a manager-based task (its config is {type(cfg).__name__})")
    path = args.dataset_file if args.dataset_file.suffix in (".hdf5", ".h5") else args.dataset_file.with_suffix(".hdf5")
    cfg.scene.num_envs = args.num_envs
    cfg.sim.device = args.device
    cfg.seed = args.seed
    mode = DatasetExportMode.EXPORT_ALL if args.all else DatasetExportMode.EXPORT_SUCCEEDED_ONLY
    cfg.recorders = mdp.ActionStateRecorderManagerCfg(
        dataset_export_dir_path=str(path.parent), dataset_filename=path.stem, dataset_export_mode=mode
    )
    env = make_env(args.task, cfg).unwrapped
    try:
        oracle = oracle_for(args.task, env)
        if oracle is None:
            raise SystemExit(f"[record_demos] {args.task} has no scripted oracle to record")
        recorder = env.recorder_manager
        handler = recorder.dataset_file_handlers[False]
        handler.add_env_args(
            {"env_name": args.task, "num_envs": args.num_envs, "seed": args.seed, "device": args.device}
        )
        left_out = write_at_most(recorder, handler, args.num_demos)
        start, steps = time.perf_counter(), 0
        obs, _ = env.reset()
        written = 0
        with torch.inference_mode():
            while written < args.num_demos:
                obs, *_ = env.step(oracle(obs))
                steps += 1
                if handler.demo_count != written:
                    written = handler.demo_count
                    failed = recorder.exported_failed_episode_count
                    print(
                        f"[record_demos] {written} / {args.num_demos} demos written ({failed} failed episodes)",
                        flush=True,
                    )
        result = {
            "dataset": str(path),
            "demos": handler.demo_count,
            "failed_episodes": recorder.exported_failed_episode_count,
            "episodes_not_written": left_out["count"],
            "env_steps": steps * args.num_envs,
            "seconds": time.perf_counter() - start,
        }
        extra = f" ({left_out['count']} more that ended in the last step left out)" if left_out["count"] else ""
        print(f"[record_demos] wrote {result['demos']} demos to {path} in {result['seconds']:.1f} s{extra}")
        return result
    finally:
        env.close()


if __name__ == "__main__":
    main()
