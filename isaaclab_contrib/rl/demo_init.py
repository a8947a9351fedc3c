"""Seeding an rsl-rl actor with demonstrations before PPO: the actor's observation normalizer takes the statistics
of the demonstrations' policy observations, and its mean action is fitted to their actions by least squares.

This is not part of Isaac Lab's recipe (its PPO starts from a random actor); it is for budgets far below Isaac
Lab's, where PPO from scratch does not find the task's reward, and a run seeded this way must say so. The
demonstrations are the HDF5 datasets ``scripts/record_demos.py`` writes (Isaac Lab's layout: ``data/demo_<n>``
with ``obs`` the policy observations and ``actions``, one row per env step).

    obs, actions, env_args = load_demo_pairs("datasets/soft.hdf5")
    report = fit_actor_to_demos(runner.alg.actor, obs, actions, epochs=200)
"""

from __future__ import annotations

import math
from pathlib import Path

import torch

from isaaclab_contrib.managers.observation_manager import flat_term_columns

__all__ = ["fit_actor_to_demos", "load_demo_pairs", "term_noise", "warm_up_critic"]


def load_demo_pairs(path: str | Path) -> tuple[torch.Tensor, torch.Tensor, dict]:
    """Every ``(policy observation, action)`` step of the dataset *path*, stacked over its demos (float32
    ``[steps, obs_dim]`` and ``[steps, action_dim]``), and the dataset's ``env_args`` (``env_name``: the task id).

    Raises:
        FileNotFoundError: No such file.
        ValueError: The file is not a demonstration dataset, holds no demos, a demo lacks ``obs`` or ``actions``
            (or holds a dict of observation groups there), their step counts differ, or a value is not finite.
    """
    from isaaclab_contrib.utils.datasets import HDF5DatasetFileHandler

    handler = HDF5DatasetFileHandler()
    handler.open(str(path))
    try:
        names = handler.get_episode_names()
        env_args = handler.get_env_args()
        obs, actions = [], []
        for name in names:
            demo = handler.load_episode(name)
            for key in ("obs", "actions"):
                if not isinstance(demo.get(key), torch.Tensor):
                    raise ValueError(
                        f"load_demo_pairs: {name} of {path} has no {key!r} tensor (found {sorted(demo)}); record it "
                        "with scripts/record_demos.py"
                    )
            if len(demo["obs"]) != len(demo["actions"]):
                raise ValueError(
                    f"load_demo_pairs: {name} of {path} holds {len(demo['obs'])} observations for "
                    f"{len(demo['actions'])} actions"
                )
            obs.append(demo["obs"].float().flatten(1))
            actions.append(demo["actions"].float().flatten(1))
    finally:
        handler.close()
    if not names:
        raise ValueError(f"load_demo_pairs: {path} holds no demos")
    obs, actions = torch.cat(obs), torch.cat(actions)
    for what, values in (("observations", obs), ("actions", actions)):
        if not torch.isfinite(values).all():
            raise ValueError(f"load_demo_pairs: {path} holds non-finite {what}")
    return obs, actions, env_args


def fit_actor_to_demos(
    actor: torch.nn.Module,
    obs: torch.Tensor,
    actions: torch.Tensor,
    epochs: int = 200,
    learning_rate: float = 1.0e-3,
    batch_size: int = 256,
    generator: torch.Generator | None = None,
    log=None,
    obs_noise: torch.Tensor | None = None,
    keep_statistics: bool = False,
) -> dict:
    """Fit the mean action of rsl-rl's *actor* (an ``MLPModel`` over one observation group) to the demonstrations:
    its observation normalizer (if it has one) first takes the statistics of *obs*, then Adam minimizes the mean
    squared error of ``actor.mlp(normalizer(obs))`` against *actions* for *epochs* passes over shuffled
    mini-batches. The action distribution's standard deviation is left as it is (the runner config's
    ``init_std``).

    Args:
        actor: The actor (``runner.alg.actor``): an rsl-rl ``MLPModel`` with a Gaussian output distribution.
        obs: Policy observations ``[steps, obs_dim]``.
        actions: The demos' actions ``[steps, action_dim]`` [action units].
        epochs: Passes over the data.
        learning_rate: Adam's step size.
        batch_size: Steps per mini-batch.
        generator: Random generator of the shuffling and the noise, on the CPU (default: torch's global one).
        log: ``log(line)`` for progress (default: none).
        obs_noise: Standard deviation of the Gaussian noise added to each observation of every mini-batch, in the
            observations' units (``[obs_dim]``, finite, >= 0; default: none), drawn afresh at each pass: noise on
            the ``last_action`` columns (see :func:`term_noise`) keeps the fit from copying the previous action,
            which the demos repeat step after step, in place of reading the state. The errors reported are
            without noise.
        keep_statistics: The normalizer keeps the demos' statistics from then on (rsl-rl's ``until``; default:
            it goes on learning from the rollouts, as rsl-rl's does). The fitted function is relative to them,
            and PPO's rollouts shift them, and the policy with them, without any update: on the beam lift that
            undid the fitted grasp. On the arm task, though, the policy after one PPO iteration returned 53
            with the demos' statistics kept against 82 with them learned on (oracle 116).

    Returns:
        ``pairs`` (steps fitted), ``epochs``, ``mse_before`` and ``mse_after`` (mean squared error of the actor's
        mean action against the demos' [action units^2]).

    Raises:
        TypeError: *actor* is not an MLP model (no ``mlp`` or ``obs_dim``) or reads more than one observation
            group.
        ValueError: The shapes do not match the actor, there are no steps, a value is not finite, or a number
            is out of range.
    """
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"fit_actor_to_demos: {name} must be a positive int, got {value!r}")
    if (
        isinstance(learning_rate, bool)
        or not isinstance(learning_rate, (int, float))
        or not math.isfinite(learning_rate)
        or learning_rate <= 0.0
    ):
        raise ValueError(f"fit_actor_to_demos: learning_rate must be a finite number > 0, got {learning_rate!r}")
    if not isinstance(keep_statistics, bool):
        raise ValueError(f"fit_actor_to_demos: keep_statistics must be a bool, got {keep_statistics!r}")
    if not hasattr(actor, "mlp") or not hasattr(actor, "obs_dim"):
        raise TypeError(f"fit_actor_to_demos: {type(actor).__name__} is not an rsl-rl MLPModel (no mlp / obs_dim)")
    groups = list(getattr(actor, "obs_groups", []))
    if len(groups) != 1:
        raise TypeError(
            f"fit_actor_to_demos: the actor reads the observation groups {groups}; demonstrations hold one group "
            "(the policy's), so only an actor over one group can be fitted"
        )
    out_dim = actor.mlp[-1].out_features if isinstance(actor.mlp[-1], torch.nn.Linear) else None
    if obs.ndim != 2 or actions.ndim != 2 or len(obs) != len(actions) or len(obs) == 0:
        raise ValueError(
            f"fit_actor_to_demos: obs and actions must be [steps, dim] with the same number of steps (> 0), got "
            f"{tuple(obs.shape)} and {tuple(actions.shape)}"
        )
    if obs.shape[1] != actor.obs_dim or (out_dim is not None and actions.shape[1] != out_dim):
        raise ValueError(
            f"fit_actor_to_demos: the demos have {obs.shape[1]} observations and {actions.shape[1]} actions per "
            f"step, the actor reads {actor.obs_dim} (group {groups[0]!r}) and writes {out_dim}: demos of another "
            "task or preset?"
        )
    if not (torch.isfinite(obs).all() and torch.isfinite(actions).all()):
        raise ValueError("fit_actor_to_demos: the observations or actions hold NaN or inf")
    device = next(actor.parameters()).device
    obs, actions = obs.to(device).float(), actions.to(device).float()
    if obs_noise is not None:
        obs_noise = torch.as_tensor(obs_noise, dtype=torch.float32).to(device)
        if obs_noise.shape != (obs.shape[1],) or not torch.isfinite(obs_noise).all() or (obs_noise < 0).any():
            raise ValueError(
                f"fit_actor_to_demos: obs_noise must be [{obs.shape[1]}] finite standard deviations >= 0 (one per "
                f"observation), got shape {tuple(obs_noise.shape)}"
            )
    was_training = actor.training
    actor.train()
    if getattr(actor, "obs_normalization", False):
        actor.obs_normalizer.update(obs)
        if keep_statistics:
            actor.obs_normalizer.until = int(actor.obs_normalizer.count)
    optimizer = torch.optim.Adam(actor.mlp.parameters(), lr=learning_rate)

    def full_error() -> float:
        with torch.no_grad():
            return float(torch.nn.functional.mse_loss(actor.mlp(actor.obs_normalizer(obs)), actions))

    before = full_error()
    report_every = max(1, epochs // 5)
    for epoch in range(epochs):
        order = torch.randperm(len(obs), generator=generator).to(device)
        for batch in order.split(batch_size):
            inputs = obs[batch]
            if obs_noise is not None:
                inputs = inputs + obs_noise * torch.randn(inputs.shape, generator=generator).to(device)
            loss = torch.nn.functional.mse_loss(actor.mlp(actor.obs_normalizer(inputs)), actions[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if log is not None and ((epoch + 1) % report_every == 0 or epoch + 1 == epochs):
            log(f"[demo_init] epoch {epoch + 1} / {epochs}: mean squared action error {full_error():.5f}")
    actor.train(was_training)
    return {"pairs": len(obs), "epochs": epochs, "mse_before": before, "mse_after": full_error()}


def term_noise(
    obs: torch.Tensor, term_names: list[str], term_dims: list[tuple[int, ...]], scales: dict
) -> torch.Tensor:
    """Per-observation noise for :func:`fit_actor_to_demos`: the columns of each term named in *scales* get
    ``scales[term]`` times the demos' standard deviation of that column, the others 0.

    Args:
        obs: The demos' policy observations ``[steps, obs_dim]``.
        term_names: The policy group's terms in order (``env.observation_manager.active_terms["policy"]``).
        term_dims: Their shapes without the env axis (``env.observation_manager.group_obs_term_dim["policy"]``).
        scales: Term name to a finite scale >= 0 [dimensionless, in standard deviations].

    Raises:
        KeyError: A term of *scales* is not in the group (the message lists the group's terms).
        ValueError: A scale is not a finite number >= 0, or the terms' columns do not add up to ``obs_dim``.
    """
    try:
        columns = flat_term_columns(term_names, term_dims)
    except ValueError as err:
        raise ValueError(f"term_noise: {err}: demos of another task?") from None
    width = sum(len(c) for c in columns.values())
    if width != obs.shape[-1]:
        raise ValueError(
            f"term_noise: the terms {term_names} of shapes {term_dims} hold {width} observations, the demos "
            f"{obs.shape[-1]}: demos of another task?"
        )
    unknown = sorted(set(scales) - set(term_names))
    if unknown:
        raise KeyError(f"term_noise: no observation term {unknown} in the policy group; its terms are {term_names}")
    noise = torch.zeros(obs.shape[-1])
    spread = obs.float().std(dim=0) if len(obs) > 1 else torch.zeros(obs.shape[-1])
    for name, scale in scales.items():
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale < 0:
            raise ValueError(f"term_noise: the scale of {name!r} must be a finite number >= 0, got {scale!r}")
        span = slice(columns[name].start, columns[name].stop)
        noise[span] = float(scale) * spread[span].cpu()
    return noise


def warm_up_critic(alg, iterations: int) -> None:
    """Hold rsl-rl PPO's actor (*alg*: ``runner.alg``) fixed for its next *iterations* updates, so that only the
    critic learns, from the rollouts of the fitted actor, before PPO changes that actor.

    A critic that starts untrained gives the first updates advantages that are noise, and they move a fitted
    actor away from the demonstrations before any return has been measured. While held, the actor's parameters
    take no gradient and the learning rate is put back to its starting value after each update (the adaptive
    schedule would raise it at every mini-batch, the actor's KL being 0). The update after the last held one is
    ordinary PPO.

    Raises:
        ValueError: *iterations* is not an int >= 0.
        RuntimeError: *alg*'s actor is still held by an earlier call (its hold would cut the new one short).
        TypeError: *alg* has no ``actor``, ``update`` and ``learning_rate`` (not an rsl-rl PPO).
    """
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise ValueError(f"warm_up_critic: iterations must be an int >= 0, got {iterations!r}")
    if not all(hasattr(alg, name) for name in ("actor", "update", "learning_rate", "optimizer")):
        raise TypeError(f"warm_up_critic: {type(alg).__name__} is not an rsl-rl PPO (actor, update, learning_rate)")
    if getattr(alg, "_critic_warmup_left", 0) > 0:
        raise RuntimeError(
            f"warm_up_critic: the actor is already held for {alg._critic_warmup_left} more update(s); a second hold "
            "would end with the first"
        )
    if iterations == 0:
        return
    held = [p for p in alg.actor.parameters() if p.requires_grad]
    rate = alg.learning_rate
    update = alg.update
    done = 0

    def held_update():
        nonlocal done
        for p in held:
            p.requires_grad_(False)
        try:
            losses = update()
        finally:
            for p in held:
                p.requires_grad_(True)
        alg.learning_rate = rate
        for group in alg.optimizer.param_groups:
            group["lr"] = rate
        done += 1
        alg._critic_warmup_left = iterations - done
        if done == iterations:
            alg.update = update
        return losses

    alg._critic_warmup_left = iterations
    alg.update = held_update
