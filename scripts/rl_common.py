"""Shared command-line handling of ``train.py``, ``play.py`` and ``benchmark_env.py``: task ids to envs.

Every argument that can be checked without building anything is checked by its ``argparse`` type (task
ids, counts, seeds, folder names, the log root, checkpoint files, the form of the config overrides), so a
bad command line fails at once with a usage message, before any simulation or evaluation starts.

Config overrides (Isaac Lab / Hydra form) are trailing arguments ``env.<field path>=<value>`` and
``agent.<field path>=<value>`` (see :mod:`isaaclab_contrib.utils.overrides`). Precedence, lowest first: the
task's registered configs, then the flags (``--seed``, ``--num_envs``, ``--device``, and ``train.py``'s
``--max_iterations``, ``--run_name``, ``--experiment_name``), then the overrides in the order given. The
linked fields ``env.scene.num_envs`` / ``agent.num_envs`` and ``env.seed`` / ``agent.seed`` follow each
other: overriding one sets both (overriding both to different values is an error).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import gymnasium as gym

import isaaclab_coupling_configs  # noqa: F401  (registers the scenes and the gymnasium task ids)
from isaaclab_contrib.envs import check_seed, check_task_cfg, load_cfg_from_registry, resolve_entry_point
from isaaclab_contrib.rl.runs import CheckpointError, check_log_root, check_path_component, load_checkpoint
from isaaclab_contrib.utils.cli import add_device_option, add_num_envs_option, positive_int
from isaaclab_contrib.utils.configclass import MISSING
from isaaclab_contrib.utils.overrides import Override, OverrideError, apply_overrides, overrides_record, parse_override

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


def override_arg(text: str) -> Override:
    """argparse type: an override ``env.<field path>=<value>`` or ``agent.<field path>=<value>`` (its form only;
    the field and the value are checked against the task's configs by :func:`task_configs`)."""
    try:
        return parse_override(text)
    except OverrideError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """--task, --num_envs, --seed, --device, --eval_episodes, --video, --video_length and the trailing config
    overrides (Isaac Lab spellings; dashes work too)."""
    parser.add_argument(
        "--task", type=task_id, default=DEFAULT_TASK, help=f"gymnasium task id (default {DEFAULT_TASK})"
    )
    add_num_envs_option(parser, default=None)
    parser.add_argument("--seed", type=seed_arg, default=None, help="seed, in [0, 2**64 - 1]")
    add_device_option(parser, default=None)
    parser.add_argument(
        "--eval_episodes", "--eval-episodes", type=positive_int, default=2, help="evaluation episodes per env"
    )
    parser.add_argument(
        "--video", action="store_true", help="record mp4 clips of the viewer camera (the env renders rgb_array)"
    )
    parser.add_argument(
        "--video_length",
        "--video-length",
        type=positive_int,
        default=200,
        help="env steps (frames) per recorded clip (default 200)",
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        type=override_arg,
        metavar="env.PATH=VALUE|agent.PATH=VALUE",
        help="config overrides, e.g. env.scene.num_envs=16 agent.algorithm.learning_rate=3e-4 (after the flags)",
    )


def parse_arguments(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parse *argv* (``sys.argv[1:]`` when ``None``); the overrides may come before, between or after the flags."""
    args = parser.parse_intermixed_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args


_LINKED = (("scene.num_envs", "num_envs"), ("seed", "seed"))
"""(env path, agent path) pairs that hold the same setting: the env gets the agent's value."""


def task_configs(args: argparse.Namespace, rank: int = 0):
    """The task's env and runner configs with the flags and then the overrides applied (and validated).

    The flags: ``--seed``, ``--num_envs``, ``--device`` and, where the parser has them, ``--max_iterations``,
    ``--run_name`` and ``--experiment_name``. Then ``args.overrides`` (``env.<path>=<value>`` /
    ``agent.<path>=<value>``, in order; see the module documentation for the linked fields). *rank* (a
    distributed run's process rank) is added to the seed last, so every process draws its own resets and
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
    for flag in ("max_iterations", "run_name", "experiment_name"):
        if getattr(args, flag, None) is not None:
            setattr(agent_cfg, flag, getattr(args, flag))
    overrides = list(getattr(args, "overrides", None) or [])
    if overrides:
        try:
            configs = apply_overrides({"env": env_cfg, "agent": agent_cfg}, overrides)
        except OverrideError as err:
            raise SystemExit(f"invalid override for task {args.task}: {err}") from None
        env_cfg, agent_cfg = configs["env"], configs["agent"]
        given = {o.dotted: o for o in overrides}
        for env_path, agent_path in _LINKED:
            env_value = _get_path(env_cfg, env_path)
            if (
                f"env.{env_path}" in given
                and f"agent.{agent_path}" in given
                and env_value != _get_path(agent_cfg, agent_path)
            ):
                raise SystemExit(
                    f"invalid overrides for task {args.task}: {given[f'env.{env_path}']} and {given[f'agent.{agent_path}']} "
                    f"disagree; they are the same setting (give one of them)"
                )
            if f"env.{env_path}" in given:
                _set_path(agent_cfg, agent_path, env_value)
    agent_cfg.seed += rank
    env_cfg.scene.num_envs = agent_cfg.num_envs
    env_cfg.seed = agent_cfg.seed
    try:
        env_cfg.validate()
        agent_cfg.validate()
    except (TypeError, ValueError) as err:
        after = f" after the overrides {' '.join(map(str, overrides))}" if overrides else ""
        raise SystemExit(f"invalid settings for task {args.task}{after}: {err}") from None
    return env_cfg, agent_cfg


def _get_path(cfg, path: str):
    for name in path.split("."):
        cfg = getattr(cfg, name)
    return cfg


def _set_path(cfg, path: str, value) -> None:
    *parents, name = path.split(".")
    for parent in parents:
        cfg = getattr(cfg, parent)
    setattr(cfg, name, value)


def _jsonable(value):
    """*value* (from ``to_dict()``) as JSON data: tuples become lists, an unset field ``"MISSING"`` (the scene's
    default, e.g. ``sim.physics.solver_cfg``), a non-finite number and anything else JSON cannot hold its ``repr``."""
    if value is MISSING:
        return "MISSING"
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    return repr(value)


def write_params(folder: Path, env_cfg, agent_cfg, args: argparse.Namespace) -> Path:
    """The final configs (after flags and overrides) as ``<folder>/params/env.json`` and ``agent.json``, and the
    overrides and command line as ``params/overrides.json`` (Isaac Lab's ``params/*.yaml``; JSON here, since
    PyYAML is not a dependency). Returns the ``params`` folder."""
    params = folder / "params"
    params.mkdir(parents=True, exist_ok=True)
    for name, cfg in (("env", env_cfg), ("agent", agent_cfg)):
        data = {"class": f"{type(cfg).__module__}:{type(cfg).__qualname__}", **_jsonable(cfg.to_dict())}
        (params / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    record = {
        "task": args.task,
        "overrides": overrides_record(getattr(args, "overrides", None) or []),
        "command_line": list(getattr(args, "argv", [])),
    }
    (params / "overrides.json").write_text(json.dumps(record, indent=2) + "\n")
    return params


def make_env(task: str, env_cfg, render_mode: str | None = None):
    """``gymnasium.make(task, cfg=env_cfg, render_mode=render_mode)``; ``"rgb_array"`` gives the env a viewer that
    renders a frame when ``env.render()`` is called (for ``--video``), ``None`` renders nothing. Another task's
    config is refused by name before anything is built (``check_task_cfg``)."""
    check_task_cfg(task, env_cfg)
    return gym.make(task, cfg=env_cfg, render_mode=render_mode)


def _related(recorded: str, own: type) -> bool:
    """Whether the config class *recorded* (``"module:Class"``) and *own* are one a subclass of the other; a
    recorded class that cannot be imported any more counts as related (the check refuses only what it knows)."""
    try:
        trained = resolve_entry_point(recorded, "params/env.json class")
    except Exception:
        return True
    return not isinstance(trained, type) or issubclass(own, trained) or issubclass(trained, own)


def checkpoint_task(checkpoint: Path) -> tuple[str | None, str | None]:
    """The task id and env config class (``"module:Class"``) a ``train.py`` checkpoint was trained with, read from
    its run folder's ``params/overrides.json`` and ``params/env.json`` (``None`` for what is not recorded)."""
    params = Path(checkpoint).parent / "params"
    found: list[str | None] = []
    for name, key in (("overrides.json", "task"), ("env.json", "class")):
        try:
            value = json.loads((params / name).read_text()).get(key)
        except (OSError, ValueError, AttributeError):
            value = None
        found.append(value if isinstance(value, str) else None)
    return found[0], found[1]


def check_checkpoint_task(checkpoint: Path, task: str, env_cfg, what: str) -> None:
    """Refuse a checkpoint trained on another task (or another env config class), before the env is built.

    Raises:
        SystemExit: The checkpoint's run folder records another task id or env config class; the message names
            both and says where it was read.
    """
    trained_task, trained_class = checkpoint_task(checkpoint)
    params = Path(checkpoint).parent / "params"
    if trained_task is not None and trained_task != task:
        raise SystemExit(
            f"[{what}] {checkpoint} was trained on task {trained_task!r} (recorded in {params / 'overrides.json'}), "
            f"not {task!r}: its policy takes that task's observations and actions. Pick a checkpoint of {task!r}."
        )
    own_class = f"{type(env_cfg).__module__}:{type(env_cfg).__qualname__}"
    if trained_class is not None and trained_class != own_class and not _related(trained_class, type(env_cfg)):
        raise SystemExit(
            f"[{what}] {checkpoint} was trained with the env config {trained_class} (recorded in "
            f"{params / 'env.json'}), not {own_class} of task {task!r}. Pick a checkpoint of this task."
        )


def oracle_for(task: str, env):
    """The task's scripted oracle (``obs -> actions``) from its ``oracle_entry_point``, or ``None``."""
    entry = (gym.registry[task].kwargs or {}).get("oracle_entry_point")
    return None if entry is None else resolve_entry_point(entry, "oracle_entry_point")(env)


def reference_returns(task: str, env, episodes: int, seed: int) -> dict:
    """Mean returns of the random policy and of the task's oracle (``None`` without one) on the same episodes.

    Each is evaluated from the same checkpoint of the env (``save_state`` / ``restore_state`` where the env has
    them, as the manager-based envs do), and the env is put back afterwards: the evaluations advance no
    curriculum (their step counter is the env's), so both meet the env in the state it was in when called and
    leave it so (``train.py`` calls this after training, where the trained policy is evaluated next).
    """
    from isaaclab_contrib.rl import evaluate_policy, random_policy

    unwrapped = env.unwrapped
    checkpoint = unwrapped.save_state() if hasattr(unwrapped, "save_state") else None

    def evaluate(policy) -> float:
        try:
            return evaluate_policy(unwrapped, policy, episodes, seed=seed)["mean"]
        finally:
            if checkpoint is not None:
                unwrapped.restore_state(checkpoint)

    returns = {"random_return": evaluate(random_policy(unwrapped, seed))}
    oracle = oracle_for(task, unwrapped)
    returns["oracle_return"] = None if oracle is None else evaluate(oracle)
    return returns


def export_policy(runner, folder: Path) -> None:
    """Export the runner's policy into *folder* as ``policy.pt`` (TorchScript) and ``policy.onnx``."""
    runner.export_policy_to_jit(str(folder), "policy.pt")
    runner.export_policy_to_onnx(str(folder), "policy.onnx")


def policy_function(policy, num_envs: int):
    """Turn rsl-rl's inference policy (it takes a TensorDict of groups) into ``obs -> actions``: a tensor
    observation is the group ``"policy"``, a dict of groups keeps its names (``policy_callable``)."""
    from isaaclab_contrib.rl import policy_callable

    return policy_callable(policy, num_envs)


def clipped_policy(policy, bound: float | None):
    """*policy* with its actions clipped to ``[-bound, bound]``, as the training's wrapper clipped them (the runner
    config's ``clip_actions``); ``None``: *policy* itself."""
    if bound is None:
        return policy

    def act(obs):
        return policy(obs).clamp(-bound, bound)

    return act
