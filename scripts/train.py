"""Train a coupled task with rsl-rl's PPO (``OnPolicyRunner``), Isaac Lab style.

The task is a gymnasium id registered by a module in ``configs/`` (an unknown id lists them); its
registration names the env config and the rsl-rl runner config. The run folder
``<log_root>/<experiment>/<time>_seed<N>[_<run_name>]`` (the time with microseconds; a run that finds
the name taken gets ``-1``, ``-2``... after the time, so runs never share a folder) receives rsl-rl's
tensorboard log and checkpoints (``model_<it>.pt``), the exported policy (``exported/policy.pt``
TorchScript and ``exported/policy.onnx``), the learning curve ``learning_curve.png`` and
``result.json``: the mean return of the random policy, of the task's scripted oracle (when it has one)
and of the trained policy (deterministic) on the same number of whole episodes, all three evaluated after
training from the same state of the env (a curriculum's progress included), and the training wall time.

Everything that can fail fast is checked before the env is built: the task id, every number, the
seed, ``--run_name`` and ``--experiment_name`` (one folder name each), the log root (a writable folder),
the configs with the overrides applied, the checkpoint to resume from; then the run folder is created and
the final configs are saved in it (``params/env.json``, ``params/agent.json``, and the overrides and command
line in ``params/overrides.json``).

Config overrides, Isaac Lab / Hydra form: trailing ``env.<field path>=<value>`` and
``agent.<field path>=<value>`` arguments, parsed by each field's declared type and checked against its
declared range (an unknown field lists the valid names). They apply after the flags ``--seed``,
``--num_envs``, ``--device``, ``--max_iterations``, ``--run_name`` and ``--experiment_name``, so an override
wins over a flag for the same field.

``--resume`` continues a run: it loads ``<log_root>/<experiment>/<--load_run>/<--checkpoint>`` (a name or a
regular expression each; by default the latest run and its latest ``model_<it>.pt``, by iteration number)
with rsl-rl's ``OnPolicyRunner.load`` (policy, value function, optimizer and normalizer state) into a NEW run
folder, and continues the iteration count: a checkpoint ``model_<it>.pt`` holds the state after iteration
``<it>``, so the resumed run's first iteration is ``<it> + 1`` (its tensorboard curve and ``model_*.pt``
numbering continue where the old run stopped) and it runs ``max_iterations`` more iterations. The
checkpoint resumed from is recorded in ``result.json`` (``resumed_from``).

``--init_from_demos DATASET`` seeds the actor with demonstrations before PPO starts (not part of Isaac Lab's
recipe; for CPU budgets where PPO from scratch does not find the reward): the dataset is one
``scripts/record_demos.py`` wrote on the same task; the actor's observation normalizer takes the demos'
statistics and its mean action is fitted to their actions (``--demo_epochs`` passes,
:func:`~isaaclab_contrib.rl.demo_init.fit_actor_to_demos`); the fit's errors are in ``result.json``
(``demo_init``). The action noise stays the runner config's ``actor.init_std``. ``--demo_keep_statistics``
makes the actor's normalizer keep the demos' statistics (rsl-rl's learns on from the rollouts).
``--demo_obs_noise TERM=SCALE`` noises a policy observation term during the fit (``actions=2``: the last action,
against a fit that copies it); ``--demo_critic_warmup N`` holds the fitted actor for the first N PPO iterations,
so that only the critic learns. Under ``--distributed`` every process fits its own copy and rsl-rl starts them
all from rank 0's actor (it broadcasts the models when it starts learning).

``--video`` records clips of the viewer camera (``env.render()``, the env made with
``render_mode="rgb_array"``) during training: ``--video_length`` env steps (default 200) every
``--video_interval`` env steps (default 2000), counted from the first training step, as
``<run folder>/videos/train/rl-video-step-<N>.mp4``. Recording only reads the rendered frames; the training
is the same with and without it. Without ``--video`` nothing renders.

``--distributed`` trains with one process per device under ``torchrun`` (Isaac Lab's multi-GPU
training): every process runs its own simulation with ``--num_envs`` envs and the seed plus its rank;
rsl-rl averages the gradients with ``torch.distributed`` (Gloo on CPUs, NCCL on GPUs: ``--device
cuda`` gives process k the GPU ``cuda:<local rank>``); only rank 0 writes the run folder. The
evaluations run on every process's envs and are averaged. More machines: ``torchrun``'s own
``--nnodes``, ``--node_rank`` and ``--rdzv_endpoint`` (or ``--master_addr`` / ``--master_port``).

    python scripts/train.py --task Isaac-Arm-Press-Cloth-Direct-v0
    python scripts/train.py --task Isaac-Arm-Press-Cloth-Direct-v0 --seed 1 --num_envs 32 --max_iterations 250
    python scripts/train.py --task Isaac-Press-Cloth-Direct-v0 env.scene.num_envs=16 agent.algorithm.learning_rate=3e-4
    python scripts/train.py --task Isaac-Press-Cloth-Direct-v0 --resume --load_run '.*_seed0' --checkpoint 'model_.*.pt'
    python scripts/train.py --task Isaac-Press-Cloth-Direct-v0 --video --video_interval 1000 --video_length 100
    torchrun --nproc_per_node=2 scripts/train.py --distributed --num_envs 16
    tensorboard --logdir logs/rsl_rl
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import time
from pathlib import Path

import torch
import warp as wp
from rl_common import (
    add_common_arguments,
    check_checkpoint_task,
    clipped_policy,
    export_policy,
    folder_name_arg,
    log_root_arg,
    make_env,
    parse_arguments,
    policy_function,
    reference_returns,
    task_configs,
    write_params,
)

from isaaclab_contrib.rl import RslRlVecEnvWrapper, create_run_dir, evaluate_policy
from isaaclab_contrib.rl.runs import CheckpointError, find_checkpoint, load_checkpoint
from isaaclab_contrib.utils.cli import key_and_number, nonnegative_int, positive_int

REFERENCE_STYLES = {"random": ("gray", "--"), "oracle": ("black", "-."), "trained": ("green", ":")}
"""Color and line style of each evaluated policy's horizontal line in the learning-curve plots."""


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
    for name, (color, style) in REFERENCE_STYLES.items():
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
    parser.add_argument(
        "--log_root", "--log-root", type=log_root_arg, default=Path("logs/rsl_rl"), help="root folder of the runs"
    )
    parser.add_argument("--run_name", "--run-name", type=folder_name_arg, default=None, help="suffix of the run folder")
    parser.add_argument(
        "--experiment_name",
        "--experiment-name",
        type=folder_name_arg,
        default=None,
        help="experiment folder below the log root (default: the task's agent_cfg.experiment_name)",
    )
    parser.add_argument(
        "--distributed", action="store_true", help="one process per device under torchrun (Gloo on CPUs, NCCL on GPUs)"
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue from a checkpoint of this experiment (into a new run folder)"
    )
    parser.add_argument(
        "--load_run",
        "--load-run",
        default=None,
        help="with --resume: run folder name or regex (default: the latest run holding a checkpoint)",
    )
    parser.add_argument(
        "--checkpoint",
        default=None,
        help="with --resume: checkpoint file name or regex, e.g. 'model_.*.pt' (default: the latest model_<it>.pt)",
    )
    parser.add_argument(
        "--video_interval",
        "--video-interval",
        type=positive_int,
        default=2000,
        help="with --video: env steps between the starts of two clips (default 2000)",
    )
    parser.add_argument(
        "--init_from_demos",
        "--init-from-demos",
        type=Path,
        default=None,
        help="HDF5 demos of this task (scripts/record_demos.py): fit the actor to them before PPO",
    )
    parser.add_argument(
        "--demo_epochs", "--demo-epochs", type=positive_int, default=200, help="with --init_from_demos: fit passes"
    )
    parser.add_argument(
        "--demo_obs_noise",
        "--demo-obs-noise",
        type=_term_scale,
        action="append",
        default=None,
        metavar="TERM=SCALE",
        help="with --init_from_demos: Gaussian noise on a policy observation term during the fit, SCALE times the "
        "demos' standard deviation of its columns (repeatable), e.g. actions=2 against copying the last action",
    )
    parser.add_argument(
        "--demo_keep_statistics",
        "--demo-keep-statistics",
        action="store_true",
        help="with --init_from_demos: the actor's observation normalizer keeps the demos' statistics",
    )
    parser.add_argument(
        "--demo_critic_warmup",
        "--demo-critic-warmup",
        type=nonnegative_int,
        default=0,
        help="with --init_from_demos: the first N PPO iterations update only the critic (the fitted actor held)",
    )
    args = parse_arguments(parser, argv)
    for flag in ("demo_obs_noise", "demo_critic_warmup", "demo_keep_statistics"):
        if getattr(args, flag) and args.init_from_demos is None:
            parser.error(f"--{flag} needs --init_from_demos")
    if args.init_from_demos is not None and args.resume:
        parser.error("--init_from_demos starts a new policy; it cannot be combined with --resume")
    args.demos = _read_demos(parser, args) if args.init_from_demos is not None else None
    for flag in ("load_run", "checkpoint"):
        if getattr(args, flag) is not None and not args.resume:
            parser.error(f"--{flag} needs --resume")
    wp.config.quiet = True
    from isaaclab_contrib.rl.distributed import DistributedOnPolicyRunner, init_distributed, torchrun_env

    try:
        launched = torchrun_env()
    except ValueError as err:
        parser.error(str(err))
    if launched is not None and launched[2] > 1 and not args.distributed:
        parser.error(f"started by torchrun with WORLD_SIZE={launched[2]}: add --distributed")
    if args.distributed and launched is None:
        parser.error("--distributed needs torchrun: torchrun --nproc_per_node=N scripts/train.py --distributed ...")
    rank = launched[0] if args.distributed else 0
    env_cfg, agent_cfg = task_configs(args, rank=rank)  # the flags, then the overrides
    train_cfg = agent_cfg.to_rsl_rl()  # validates
    # Before the run folder exists (so "the latest run" is never the new one) and before any process joins the
    # process group (so rank 0 cannot create it while another rank still looks).
    args.resume_path = _resume_checkpoint(args, env_cfg, agent_cfg) if args.resume else None
    context = None
    if args.distributed:
        try:
            context = init_distributed(env_cfg.sim.device)
        except (RuntimeError, ValueError) as err:
            parser.error(str(err))
        env_cfg.sim.device = context.device
    main_process = context is None or context.is_main
    world = 1 if context is None else context.world_size
    log_dir = None
    if main_process:
        try:
            log_dir = create_run_dir(args.log_root, agent_cfg.experiment_name, agent_cfg.seed, agent_cfg.run_name)
        except (OSError, TypeError, ValueError) as err:
            parser.error(f"cannot create the run folder: {err}")
    where = f"log dir {log_dir}" if log_dir is not None else f"rank {rank} of {world}"
    print(f"[train] task {args.task}: {env_cfg.scene.num_envs} envs, seed {agent_cfg.seed}, {where}", flush=True)
    if args.overrides:
        print(f"[train] overrides: {' '.join(map(str, args.overrides))}")
    try:
        if log_dir is not None:
            write_params(log_dir, env_cfg, agent_cfg, args)
        return _train(args, env_cfg, agent_cfg, train_cfg, log_dir, context, DistributedOnPolicyRunner)
    except BaseException:
        if log_dir is not None and log_dir.is_dir() and all(p.name == "params" for p in log_dir.iterdir()):
            # Nothing but the saved configs was written: leave no run folder behind.
            shutil.rmtree(log_dir)
        raise
    finally:
        if context is not None:
            import torch.distributed as dist

            if dist.is_initialized():
                dist.destroy_process_group()


def _term_scale(text: str) -> tuple[str, float]:
    """``TERM=SCALE`` of ``--demo_obs_noise``: an observation term's name and a finite scale >= 0."""
    name, scale = key_and_number(text) or ("", math.nan)
    if not name or not math.isfinite(scale) or scale < 0.0:
        raise argparse.ArgumentTypeError(f"expected TERM=SCALE with a finite SCALE >= 0, got {text!r}")
    return name, scale


def _read_demos(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """``(obs, actions)`` of ``--init_from_demos``, read and checked (a dataset of this task) before
    anything is built."""
    from isaaclab_contrib.rl.demo_init import load_demo_pairs

    try:
        obs, actions, env_args = load_demo_pairs(args.init_from_demos)
    except (FileNotFoundError, ValueError) as err:
        parser.error(f"--init_from_demos: {err}")
    recorded = env_args.get("env_name")
    if recorded != args.task:
        parser.error(f"--init_from_demos: {args.init_from_demos} was recorded on {recorded!r}, not on {args.task!r}")
    return obs, actions


def _resume_checkpoint(args: argparse.Namespace, env_cfg, agent_cfg) -> Path:
    """The rsl-rl checkpoint ``--resume`` loads (see :func:`~isaaclab_contrib.rl.runs.find_checkpoint`), read and
    checked before anything is built.

    Raises:
        SystemExit: No experiment folder, run or checkpoint matches (the message lists what exists), the file
            is not an rsl-rl checkpoint, or its run folder records another task (or env config class).
    """
    try:
        path = find_checkpoint(args.log_root, agent_cfg.experiment_name, args.load_run, args.checkpoint)
        kind, _ = load_checkpoint(path)
    except (CheckpointError, ValueError, TypeError) as err:
        raise SystemExit(f"[train] cannot resume: {err}") from None
    if kind != "rsl_rl":
        raise SystemExit(
            f"[train] cannot resume from {path}: a TorchScript export holds no training state; pick a model_<it>.pt"
        )
    check_checkpoint_task(path, args.task, env_cfg, "train")
    return path


def _mean_over_processes(values: dict, context) -> dict:
    """*values* (numbers or ``None``) averaged over the processes (every process evaluates the same number of
    episodes, so the mean of the means is the mean over all episodes)."""
    if context is None or context.world_size == 1:
        return values
    import torch.distributed as dist

    keys = [k for k, v in values.items() if v is not None]
    local = torch.tensor([float(values[k]) for k in keys], dtype=torch.float64)
    if context.backend == "nccl":
        local = local.to(context.device)
    dist.all_reduce(local, op=dist.ReduceOp.SUM)
    averaged = dict(values)
    averaged.update({k: float(v) / context.world_size for k, v in zip(keys, local.cpu().tolist(), strict=True)})
    return averaged


def _train(args, env_cfg, agent_cfg, train_cfg, log_dir, context, runner_class) -> dict:
    torch.manual_seed(agent_cfg.seed)
    world = 1 if context is None else context.world_size
    main_process = context is None or context.is_main
    record = bool(getattr(args, "video", False)) and main_process and log_dir is not None
    env = make_env(args.task, env_cfg, render_mode="rgb_array" if record else None)
    recorder = None
    try:
        unwrapped = env.unwrapped
        episodes = args.eval_episodes
        num_envs = env_cfg.scene.num_envs
        result: dict = {
            "task": args.task,
            "seed": agent_cfg.seed,
            "num_envs": num_envs,
            "processes": world,
            "total_envs": num_envs * world,
        }
        unwrapped.reset(seed=agent_cfg.seed)
        vec_env = RslRlVecEnvWrapper(env, clip_actions=agent_cfg.clip_actions)
        if record:
            from isaaclab_contrib.rl.video_recorder import ClipRecorder, VecEnvVideoRecorder

            recorder = ClipRecorder(
                unwrapped, log_dir / "videos" / "train", args.video_length, args.video_interval, log=_log
            )
            vec_env = VecEnvVideoRecorder(vec_env, recorder)
            print(
                f"[train] recording {args.video_length}-step clips every {args.video_interval} env steps into "
                f"{recorder.folder}"
            )
        device = str(unwrapped.torch_device)
        runner = runner_class(vec_env, train_cfg, log_dir=None if log_dir is None else str(log_dir), device=device)
        resume_path = getattr(args, "resume_path", None)
        if resume_path is not None:
            try:
                runner.load(str(resume_path), map_location=device)
            except (RuntimeError, KeyError, ValueError) as err:  # a checkpoint of another policy's sizes
                raise SystemExit(
                    f"[train] cannot resume from {resume_path}: it is not an rsl-rl checkpoint of this task's policy "
                    f"(task {args.task}): {err}"
                ) from None
            # model_<it>.pt holds the state after iteration <it> (rsl-rl saves current_learning_iteration = it);
            # the next iteration is <it> + 1, so the learning curve and the checkpoint numbering continue.
            finished = int(runner.current_learning_iteration)
            runner.current_learning_iteration = finished + 1
            result["resumed_from"] = {"checkpoint": str(resume_path), "iteration": finished}
            if main_process:
                print(
                    f"[train] resumed {resume_path} (after iteration {finished}): continuing at iteration {finished + 1}"
                )
        if getattr(args, "demos", None) is not None:
            from isaaclab_contrib.rl.demo_init import fit_actor_to_demos, term_noise, warm_up_critic

            obs, actions = args.demos
            try:
                noise = None
                if args.demo_obs_noise:
                    manager = getattr(env.unwrapped, "observation_manager", None)
                    if manager is None:
                        raise ValueError(
                            f"--demo_obs_noise names observation terms, and {args.task} is a direct task without "
                            "an observation manager"
                        )
                    names, dims = manager.active_terms["policy"], manager.group_obs_term_dim["policy"]
                    noise = term_noise(obs, names, dims, dict(args.demo_obs_noise))
                fit = fit_actor_to_demos(
                    runner.alg.actor,
                    obs,
                    actions,
                    epochs=args.demo_epochs,
                    log=_log if main_process else None,
                    obs_noise=noise,
                    keep_statistics=args.demo_keep_statistics,
                )
            except (TypeError, ValueError, KeyError) as err:
                message = err.args[0] if isinstance(err, KeyError) and err.args else err
                raise SystemExit(f"[train] --init_from_demos {args.init_from_demos}: {message}") from None
            result["demo_init"] = {"dataset": str(args.init_from_demos), **fit}
            if args.demo_obs_noise:
                result["demo_init"]["obs_noise"] = dict(args.demo_obs_noise)
            result["demo_init"]["keep_statistics"] = args.demo_keep_statistics
            if args.demo_critic_warmup:
                warm_up_critic(runner.alg, args.demo_critic_warmup)
                result["demo_init"]["critic_warmup"] = args.demo_critic_warmup
            if main_process:
                print(
                    f"[train] actor fitted to {fit['pairs']} demo steps of {args.init_from_demos}: mean squared action "
                    f"error {fit['mse_before']:.4f} -> {fit['mse_after']:.4f}"
                )
        result["start_iteration"] = int(runner.current_learning_iteration)
        start = time.perf_counter()
        runner.learn(num_learning_iterations=agent_cfg.max_iterations, init_at_random_ep_len=True)
        train_seconds = time.perf_counter() - start
        if recorder is not None:
            recorder.close()
            result["videos"] = [str(p) for p in recorder.clips]
        samples_per_iteration = agent_cfg.num_steps_per_env * num_envs * world
        result["train_seconds"] = train_seconds
        result["env_steps"] = agent_cfg.max_iterations * samples_per_iteration

        # The references and the trained policy meet the env in the same state (the one training left: a
        # curriculum's progress included); reference_returns puts the env back after each of its evaluations.
        result.update(_mean_over_processes(reference_returns(args.task, env, episodes, agent_cfg.seed), context))
        count = episodes * num_envs * world
        if main_process:
            print(f"[train] random policy: mean return {result['random_return']:.2f} over {count} episodes")
            if result["oracle_return"] is not None:
                print(f"[train] scripted oracle: mean return {result['oracle_return']:.2f} over {count} episodes")
        policy = runner.get_inference_policy(device=device)
        policy = clipped_policy(policy_function(policy, num_envs), agent_cfg.clip_actions)  # as in training
        trained = evaluate_policy(unwrapped, policy, episodes, seed=agent_cfg.seed)
        result["trained_return"] = _mean_over_processes({"mean": trained["mean"]}, context)["mean"]
        if result["oracle_return"]:
            result["trained_over_oracle"] = result["trained_return"] / result["oracle_return"]
        if not main_process:
            return result
        export_policy(runner, log_dir / "exported")
        title = f"{args.task}: rsl-rl PPO, seed {agent_cfg.seed}" + (f", {world} processes" if world > 1 else "")
        title += ", actor fitted to demos first" if "demo_init" in result else ""
        plot_curve(log_dir / "learning_curve.png", log_dir, samples_per_iteration, result, title)
        (log_dir / "result.json").write_text(json.dumps(result, indent=2))
        ratio = (
            f" = {100 * result['trained_over_oracle']:.0f} % of the oracle" if "trained_over_oracle" in result else ""
        )
        print(
            f"[train] trained policy: mean return {result['trained_return']:.2f}{ratio} (random "
            f"{result['random_return']:.2f}) after {result['env_steps']} env steps in {train_seconds:.0f} s"
        )
        print(
            f"[train] wrote {log_dir}/model_*.pt, exported/policy.pt, exported/policy.onnx, learning_curve.png, result.json, "
            f"params/" + (", videos/train/" if recorder is not None and recorder.clips else "")
        )
        return result
    finally:
        if recorder is not None:
            recorder.close()
        env.close()


def _log(line: str) -> None:
    print(line, flush=True)


if __name__ == "__main__":
    main()
