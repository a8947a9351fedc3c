"""Play a trained policy on a coupled task and report its mean return (Isaac Lab's ``play.py``).

``--checkpoint`` is an rsl-rl checkpoint written by ``train.py`` (``model_<it>.pt``) or the
exported TorchScript policy (``exported/policy.pt``). The policy acts deterministically on
``--eval_episodes`` whole episodes of every env; ``--reference`` also evaluates the random policy and
the task's scripted oracle on the same episodes. A checkpoint is exported (TorchScript and ONNX)
next to it, into ``exported/``, unless ``--no_export`` is given. The checkpoint is read and checked
(readable, not empty, a TorchScript module or an rsl-rl checkpoint) while the command line is parsed,
before the env is built.

The same config overrides as ``train.py`` follow the flags (``env.<field path>=<value>``,
``agent.<field path>=<value>``; applied after ``--seed``, ``--num_envs`` and ``--device``). ``--video``
records the first ``--video_length`` env steps (default 200) of the evaluation, from the viewer camera (the
env made with ``render_mode="rgb_array"``), as ``<checkpoint folder>/videos/play/rl-video-step-0.mp4``.

    python scripts/play.py --task Isaac-Arm-Press-Cloth-Direct-v0 --checkpoint logs/rsl_rl/arm_press_cloth/<run>/model_249.pt
    python scripts/play.py --task Isaac-Press-Cloth-Direct-v0 --checkpoint <run>/model_199.pt --video env.scene.num_envs=4
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
import warp as wp
from rl_common import (
    add_common_arguments,
    check_checkpoint_task,
    checkpoint_arg,
    clipped_policy,
    export_policy,
    make_env,
    parse_arguments,
    policy_function,
    reference_returns,
    task_configs,
)

from isaaclab_contrib.rl import RslRlVecEnvWrapper, evaluate_policy


def torchscript_policy(module, device, actor_groups: list[str] | None):
    """``obs -> actions`` from an exported TorchScript policy. A tensor observation is its input; for a dict of
    observation groups, the actor's groups (*actor_groups*, the runner config's ``obs_groups["actor"]``, in
    order) are split as rsl-rl's exports take them: the flat groups concatenated, then (a CNN policy) the list
    of image groups."""

    def act(obs):
        if isinstance(obs, torch.Tensor):
            return module(obs.cpu()).to(device)
        names = list(actor_groups or obs.keys())
        flat = [obs[name].cpu() for name in names if obs[name].dim() == 2]
        images = [obs[name].cpu() for name in names if obs[name].dim() > 2]
        inputs = torch.cat(flat, dim=-1) if flat else torch.zeros(len(next(iter(obs.values()))), 0)
        return (module(inputs, images) if images else module(inputs)).to(device)

    return act


def load_policy(checkpoint: tuple[Path, str, object], env, train_cfg: dict, export: bool):
    """``obs -> actions`` from a checked checkpoint (``checkpoint_arg``): a TorchScript export or an rsl-rl
    checkpoint (exported beside it if asked).

    Raises:
        SystemExit: Its policy does not fit the task's observations and actions.
    """
    path, kind, content = checkpoint
    unwrapped = env.unwrapped
    if kind == "torchscript":
        content.eval()
        policy = torchscript_policy(content, unwrapped.torch_device, train_cfg.get("obs_groups", {}).get("actor"))
    else:
        from rsl_rl.runners import OnPolicyRunner

        runner = OnPolicyRunner(RslRlVecEnvWrapper(env), train_cfg, log_dir=None, device=str(unwrapped.torch_device))
        try:
            runner.alg.load(content, None, strict=True)
        except (RuntimeError, KeyError, ValueError) as err:
            raise SystemExit(f"[play] {path} is not an rsl-rl checkpoint of this task's policy: {err}") from None
        if export:
            exported = path.parent / "exported"
            export_policy(runner, exported)
            print(f"[play] exported {exported}/policy.pt and policy.onnx")
        policy = policy_function(runner.get_inference_policy(device=str(unwrapped.torch_device)), unwrapped.num_envs)
    obs, _ = unwrapped.reset()
    try:
        with torch.inference_mode():
            actions = policy(obs)
    except RuntimeError as err:
        raise SystemExit(f"[play] the policy in {path} does not take this task's observations: {err}") from None
    if tuple(actions.shape) != (unwrapped.num_envs, unwrapped.num_actions):
        raise SystemExit(
            f"[play] the policy in {path} returns actions of shape {tuple(actions.shape)}, "
            f"the task needs {(unwrapped.num_envs, unwrapped.num_actions)}"
        )
    return policy


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(parser)
    parser.add_argument(
        "--checkpoint", type=checkpoint_arg, required=True, help="model_<it>.pt or exported policy.pt (read first)"
    )
    parser.add_argument("--reference", action="store_true", help="also evaluate the random policy and the oracle")
    parser.add_argument("--no_export", "--no-export", action="store_true", help="do not export a checkpoint")
    args = parse_arguments(parser, argv)
    wp.config.quiet = True
    env_cfg, agent_cfg = task_configs(args)  # the flags, then the overrides
    train_cfg = agent_cfg.to_rsl_rl()
    check_checkpoint_task(args.checkpoint[0], args.task, env_cfg, "play")  # before the env is built
    torch.manual_seed(agent_cfg.seed)
    env = make_env(args.task, env_cfg, render_mode="rgb_array" if args.video else None)
    recorded = None
    try:
        policy = load_policy(args.checkpoint, env, train_cfg, export=not args.no_export)
        policy = clipped_policy(policy, agent_cfg.clip_actions)  # as the training's wrapper clipped them
        if args.video:
            from isaaclab_contrib.rl.video_recorder import ClipRecorder, RecordedPolicy

            folder = args.checkpoint[0].parent / "videos" / "play"
            recorded = policy = RecordedPolicy(policy, ClipRecorder(env, folder, args.video_length, log=print))
        episodes, seed = args.eval_episodes, agent_cfg.seed
        result = {"policy_return": evaluate_policy(env, policy, episodes, seed=seed)["mean"]}
        if recorded is not None:
            recorded.close()
        if args.reference:
            references = reference_returns(args.task, env, episodes, seed)
            result.update((name, value) for name, value in references.items() if value is not None)
        count = episodes * env_cfg.scene.num_envs
        print(
            f"[play] {args.checkpoint[0]}: "
            + ", ".join(f"{k} {v:.2f}" for k, v in result.items())
            + f" over {count} episodes"
        )
        if recorded is not None:
            result["videos"] = [str(p) for p in recorded.recorder.clips]
        return result
    finally:
        if recorded is not None:
            recorded.recorder.close()
        env.close()


if __name__ == "__main__":
    main()
