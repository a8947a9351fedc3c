"""Helpers shared by the task contract tests (arm, depth camera, Franka): small configs, unchecked field writes,
and rollouts as one row of numbers per env step."""

from __future__ import annotations

from collections.abc import Callable

import torch


def task_config(cfg_class: type, num_envs: int, device: str = "cpu", use_graph: bool = True, **kw):
    """``cfg_class(**kw)`` with *num_envs* envs on *device*, captured or eager."""
    cfg = cfg_class(**kw)
    cfg.scene.num_envs = num_envs
    cfg.sim.device = device
    cfg.sim.physics.use_cuda_graph = use_graph
    return cfg


def set_field(cfg, path: str, value) -> None:
    """Write *value* to the dotted field *path* of *cfg* (dict keys on the way too) without any check, so a test
    can see what validation then says."""
    *parents, name = path.split(".")
    target = cfg
    for parent in parents:
        target = target[parent] if isinstance(target, dict) else getattr(target, parent)
    setattr(target, name, value)


def tensor_row(obs, reward, terminated, truncated) -> torch.Tensor:
    """One row per env of a tensor-observation task: observations, reward, terminated, truncated."""
    return torch.cat([obs, reward[:, None], terminated[:, None], truncated[:, None]], dim=-1)


def rollout(env, actions: torch.Tensor, before_step=None, row: Callable = tensor_row) -> torch.Tensor:
    """Reset *env*, step it with ``actions[k]`` (calling ``before_step(env, k)`` first) and stack ``row(obs,
    reward, terminated, truncated)`` of every step: ``(steps, num_envs, row width)``."""
    env.reset()
    history = []
    for k, a in enumerate(actions):
        if before_step is not None:
            before_step(env, k)
        history.append(row(*env.step(a)[:4]).clone())
    return torch.stack(history)


def rollouts_with_an_aged_env(
    make: Callable[[], object], actions: torch.Tensor, env_id: int, steps_left: int, row: Callable = tensor_row
) -> tuple[torch.Tensor, torch.Tensor]:
    """Two rollouts of the same actions on fresh envs from ``make()``: in the first, env *env_id* starts
    *steps_left* steps from its time limit (so it truncates and restarts mid-rollout); the second is plain."""

    def age(env, k):
        if k == 0:
            env.episode_length[env_id] = env.max_episode_length - steps_left

    runs = []
    for before_step in (age, None):
        env = make()
        try:
            runs.append(rollout(env, actions, before_step, row))
        finally:
            env.close()
    return runs[0], runs[1]
