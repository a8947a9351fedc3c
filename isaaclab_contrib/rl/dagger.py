"""DAgger (dataset aggregation; Ross, Gordon and Bagnell, 2011): an actor fitted to a scripted oracle's actions on
the states the actor itself reaches.

Behaviour cloning fits the oracle's own states only; an actor a few centimetres off them meets states no demo
covers and drifts further. DAgger runs rounds instead. In round *r* each env is driven for one episode by the oracle
with probability ``shares[r]`` (0 past the list) and by the actor otherwise; the oracle labels every step of every
env with its action for that state; after the round the actor is refitted to all the pairs gathered so far.

The pieces here are the round (:func:`collect_round`, on a manager-based env), the actor (:class:`DaggerActor`, an
MLP with the input standardization it was fitted with) and the fit (:func:`fit_actor`). ``scripts/train_dagger.py``
runs them on a task with an ``oracle_entry_point`` and logs every round.
"""

from __future__ import annotations

import inspect
import itertools
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

__all__ = [
    "DaggerActor",
    "RoundData",
    "collect_round",
    "expert_share",
    "fit_actor",
    "oracle_accepts_hold",
    "success_metrics",
]


def expert_share(round_index: int, shares: Sequence[float]) -> float:
    """The probability that an env is driven by the oracle in round *round_index* (from 0): ``shares[round]``,
    0 past the end of *shares*.

    Raises:
        ValueError: *round_index* is negative, or a share is not a finite number in [0, 1].
    """
    if isinstance(round_index, bool) or not isinstance(round_index, int) or round_index < 0:
        raise ValueError(f"expert_share: round_index must be an int >= 0, got {round_index!r}")
    for share in shares:
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0.0 <= share <= 1.0:
            raise ValueError(f"expert_share: every share must be a number in [0, 1], got {share!r} in {list(shares)}")
    return float(shares[round_index]) if round_index < len(shares) else 0.0


def success_metrics(env, command_name: str, where: str = "success_metrics") -> dict[str, torch.Tensor]:
    """The metrics of *env*'s command term *command_name*, which hold ``"success"`` (``[num_envs]``, 1 where the
    command is met); *where* opens the error message.

    Raises:
        ValueError: *env* has no such command term, or the term logs no ``success`` metric.
    """
    commands = env.command_manager
    metrics = commands.get_term(command_name).metrics if command_name in commands.active_terms else {}
    if "success" not in metrics:
        raise ValueError(
            f"{where}: the env has no command term {command_name!r} with a success metric (its command terms: "
            f"{commands.active_terms})"
        )
    return metrics


def oracle_accepts_hold(oracle: Callable) -> bool:
    """Whether *oracle* takes the ``hold`` mask of the lift tasks' oracles (``act(obs, hold=None)``)."""
    try:
        return "hold" in inspect.signature(oracle).parameters
    except (TypeError, ValueError):
        return False


class DaggerActor(torch.nn.Module):
    """``obs -> action``: an MLP (ELU between layers) on its inputs (the observation, and optionally points taken
    relative to an observed position) standardized by their mean and standard deviation over the observations it
    was last fitted to (buffers, saved with the weights), plus, optionally, some observation columns added to the
    first action columns.

    Args:
        num_obs: Width of the observation [dimensionless count].
        num_actions: Width of the action.
        hidden_dims: Widths of the hidden layers (default 256-128-64, the lift tasks' actor).
        offset_columns: Observation columns added, in order, to the first ``len(offset_columns)`` action columns
            (default none). With an absolute-pose action and the hand's position among the observations, the MLP
            then outputs the step from the hand to its target, centimetres where the target itself spans the
            workspace, so a fit of the same size places the hand more precisely.
        relative_columns: Observation columns, taken in groups of ``len(offset_columns)``, from each of which the
            *offset_columns* observation is subtracted; the differences are appended to the MLP's inputs (default
            none). With an object's points: where they are from the hand, which the MLP would otherwise have to
            compute from two absolute positions to the millimetre.
        action_min: Lowest value of each action column (``num_actions`` numbers, ``-inf`` for none; default: no
            bound). :meth:`forward` clamps its output to the bounds; the fit (:func:`fit_actor`) fits
            :meth:`unbounded`. A floor under an absolute target's height keeps an actor a few millimetres off its
            labels from driving the hand through the table the object lies on.
        action_max: Highest value of each action column (``inf`` for none; default: no bound).
    """

    def __init__(
        self,
        num_obs: int,
        num_actions: int,
        hidden_dims: Sequence[int] = (256, 128, 64),
        offset_columns: Sequence[int] = (),
        relative_columns: Sequence[int] = (),
        action_min: Sequence[float] | None = None,
        action_max: Sequence[float] | None = None,
    ):
        super().__init__()
        k, relative = len(offset_columns), list(relative_columns)
        if relative and (k == 0 or len(relative) % k != 0):
            raise ValueError(
                f"DaggerActor: relative_columns must come in groups of len(offset_columns) ({k}, which must be > 0), "
                f"got {len(relative)} columns"
            )
        dims = [num_obs + len(relative), *hidden_dims]
        for name, value in (("num_obs", num_obs), ("num_actions", num_actions), *(("hidden_dims", h) for h in dims)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"DaggerActor: {name} must be an int >= 1, got {value!r}")
        layers: list[torch.nn.Module] = []
        for a, b in itertools.pairwise(dims):
            layers += [torch.nn.Linear(a, b), torch.nn.ELU()]
        layers.append(torch.nn.Linear(dims[-1], num_actions))
        self.net = torch.nn.Sequential(*layers)
        columns = list(offset_columns)
        if len(columns) > num_actions:
            raise ValueError(
                f"DaggerActor: offset_columns must be at most num_actions ({num_actions}), got {columns!r}"
            )
        for name, given in (("offset_columns", columns), ("relative_columns", relative)):
            if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < num_obs for c in given):
                raise ValueError(f"DaggerActor: {name} must be observation columns in [0, {num_obs}), got {given!r}")
        low, high = (
            _bounds(name, given, num_actions, sign)
            for name, given, sign in (("action_min", action_min, -1.0), ("action_max", action_max, 1.0))
        )
        if bool((low > high).any()):
            raise ValueError(
                f"DaggerActor: action_min must not exceed action_max, got {low.tolist()} and {high.tolist()}"
            )
        self.num_obs, self.num_actions = num_obs, num_actions
        self.register_buffer("action_min", low)
        self.register_buffer("action_max", high)
        self.register_buffer("obs_mean", torch.zeros(dims[0]))
        self.register_buffer("obs_std", torch.ones(dims[0]))
        self.register_buffer("offset_columns", torch.tensor(columns, dtype=torch.long))
        self.register_buffer("relative_columns", torch.tensor(relative, dtype=torch.long))

    def inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """The MLP's inputs before standardization: *obs*, then the relative columns less the offset term."""
        if self.relative_columns.shape[0] == 0:
            return obs
        k = self.offset_columns.shape[0]
        rel = obs[:, self.relative_columns].view(obs.shape[0], -1, k) - obs[:, self.offset_columns].unsqueeze(1)
        return torch.cat([obs, rel.reshape(obs.shape[0], -1)], dim=-1)

    def unbounded(self, obs: torch.Tensor) -> torch.Tensor:
        """The action before the clamp to :attr:`action_min` / :attr:`action_max` (what :func:`fit_actor` fits)."""
        out = self.net((self.inputs(obs) - self.obs_mean) / self.obs_std)
        k = self.offset_columns.shape[0]
        if k == 0:
            return out
        return torch.cat([out[:, :k] + obs[:, self.offset_columns], out[:, k:]], dim=-1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """The action for *obs* (``[envs, num_obs]``), within the action bounds."""
        return torch.minimum(torch.maximum(self.unbounded(obs), self.action_min), self.action_max)


def _bounds(name: str, given: Sequence[float] | None, width: int, sign: float) -> torch.Tensor:
    """*given* as a float tensor of *width* values (``sign * inf`` everywhere when ``None``); refuses NaN, a wrong
    length and values that are not numbers."""
    if given is None:
        return torch.full((width,), sign * math.inf)
    values = given.detach().cpu().tolist() if isinstance(given, torch.Tensor) and given.ndim == 1 else list(given)
    if len(values) != width or any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in values):
        raise ValueError(f"DaggerActor: {name} must be {width} numbers (one per action column), got {given!r}")
    if any(math.isnan(v) for v in values):
        raise ValueError(f"DaggerActor: {name} must not hold NaN (use {sign * math.inf} for no bound), got {given!r}")
    return torch.tensor([float(v) for v in values], dtype=torch.float32)


@dataclass
class RoundData:
    """What one round gathered: every step's pair and each env's first episode's outcome."""

    obs: torch.Tensor
    """Policy observations of the steps recorded, ``[pairs, num_obs]``."""
    labels: torch.Tensor
    """The oracle's action at each of them, ``[pairs, num_actions]``."""
    expert_envs: torch.Tensor
    """``[num_envs]`` bool: the envs the oracle drove."""
    returns: torch.Tensor
    """``[num_envs]``: each env's episode return (the reward manager's rewards, which include the step length)."""
    success: torch.Tensor
    """``[num_envs]`` bool: the command term's ``success`` metric as the episode ended."""
    steps: torch.Tensor
    """``[num_envs]``: each env's first episode's length [env steps]."""
    endings: dict[str, torch.Tensor]
    """Termination term name -> ``[num_envs]`` bool: the term was among those that ended the first episode."""

    def mean_over(self, values: torch.Tensor, expert: bool) -> float:
        """The mean of *values* ``[num_envs]`` over the envs the oracle (*expert*) or the actor drove; NaN where
        there were none."""
        chosen = self.expert_envs if expert else ~self.expert_envs
        return float(values[chosen].float().mean()) if bool(chosen.any()) else math.nan


@torch.no_grad()
def collect_round(
    env,
    oracle: Callable,
    actor: torch.nn.Module,
    expert_envs: torch.Tensor,
    hold: bool = False,
    command_name: str = "object_pose",
    max_steps: int | None = None,
) -> RoundData:
    """Reset *env* and run it for one episode length: the envs marked in *expert_envs* act on the oracle's action,
    the others on the *actor*'s (its output, no noise). Every step of every env is recorded with the oracle's action
    as the label, also after an env's first episode ended early and it went on from its reset (those are states the
    same policy reaches); the outcome of each env (return, success, length) is that of its first episode.

    Args:
        env: A manager-based RL env (``ManagerBasedRLEnv``, unwrapped) with the command term *command_name*, whose
            ``metrics["success"]`` says whether an episode succeeded (the lift tasks' pose command).
        oracle: ``oracle(obs) -> actions`` (``obs`` the env's observation dict), built on *env*.
        actor: ``actor(obs["policy"]) -> actions``.
        expert_envs: ``[num_envs]`` bool.
        hold: Pass ``hold=~expert_envs`` to the oracle (see ``lift_oracle``): its plan is kept near the hand in
            the envs the actor drives.
        max_steps: Run this many steps instead (``None``: the episode length); an episode still running then counts
            as ended there.

    Raises:
        ValueError: *expert_envs* is not a ``[num_envs]`` bool tensor; *env* has no command term *command_name*
            with a ``success`` metric; *hold* with an oracle that takes no ``hold``; *max_steps* below 1.
    """
    n = env.num_envs
    if not isinstance(expert_envs, torch.Tensor) or expert_envs.dtype != torch.bool or expert_envs.shape != (n,):
        raise ValueError(f"collect_round: expert_envs must be a bool tensor of shape ({n},), got {expert_envs!r}")
    if hold and not oracle_accepts_hold(oracle):
        raise ValueError("collect_round: hold=True needs an oracle that takes hold (the lift tasks' lift_oracle)")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise ValueError(f"collect_round: max_steps must be an int >= 1 or None, got {max_steps!r}")
    metrics = success_metrics(env, command_name, "collect_round")
    device = env.device
    expert_envs = expert_envs.to(device)
    obs, _ = env.reset()
    active = torch.ones(n, dtype=torch.bool, device=device)
    returns = torch.zeros(n, device=device)
    success = torch.zeros(n, dtype=torch.bool, device=device)
    steps = torch.zeros(n, dtype=torch.long, device=device)
    kept_obs, kept_labels = [], []
    terms = env.termination_manager
    endings = {name: torch.zeros(n, dtype=torch.bool, device=device) for name in terms.active_terms}
    hold_mask = ~expert_envs if hold else None
    limit = int(env.max_episode_length) if max_steps is None else int(max_steps)
    for _ in range(limit):
        labels = oracle(obs) if hold_mask is None else oracle(obs, hold=hold_mask)
        policy_obs = obs["policy"]
        actions = torch.where(expert_envs.unsqueeze(-1), labels, actor(policy_obs))
        kept_obs.append(policy_obs.clone())
        kept_labels.append(labels.clone())
        before = metrics["success"].clone() > 0.5
        obs, reward, terminated, truncated, _ = env.step(actions)
        returns += torch.where(active, reward, torch.zeros_like(reward))
        steps += active.long()
        ended = active & (terminated | truncated)
        success |= ended & before
        for name, ended_on in endings.items():
            ended_on |= ended & terms.get_term(name)
        active &= ~ended
    success |= active & (metrics["success"] > 0.5)  # cut short by max_steps: the state it reached
    return RoundData(
        obs=torch.cat(kept_obs).cpu(),
        labels=torch.cat(kept_labels).cpu(),
        expert_envs=expert_envs.cpu(),
        returns=returns.cpu(),
        success=success.cpu(),
        steps=steps.cpu(),
        endings={name: value.cpu() for name, value in endings.items()},
    )


def fit_actor(
    actor: DaggerActor,
    optimizer: torch.optim.Optimizer,
    obs: torch.Tensor,
    labels: torch.Tensor,
    passes: int,
    batch_size: int = 256,
    generator: torch.Generator | None = None,
) -> float:
    """Fit *actor* to ``labels`` from ``obs`` (mean squared error) with *passes* shuffled passes over the pairs,
    from its current weights; first set its input standardization to the mean and standard deviation of its inputs
    over *obs* (floored at 1e-6; :meth:`DaggerActor.inputs`). The fit is of :meth:`DaggerActor.unbounded`, so a
    label beyond the actor's action bounds still pulls its output toward it. Returns the root-mean-square error of
    :meth:`DaggerActor.unbounded` over all pairs after the fit [the actions' units].

    Raises:
        ValueError: No pairs, mismatched shapes (with each other or with the actor), non-finite values, or
            *passes* / *batch_size* below 1.
    """
    if obs.ndim != 2 or labels.ndim != 2 or len(obs) != len(labels) or len(obs) == 0:
        raise ValueError(
            f"fit_actor: obs and labels must be [pairs, width] with the same pairs (> 0), got {tuple(obs.shape)} "
            f"and {tuple(labels.shape)}"
        )
    if obs.shape[1] != actor.num_obs or labels.shape[1] != actor.num_actions:
        raise ValueError(
            f"fit_actor: the actor maps {actor.num_obs} observations to {actor.num_actions} actions, the pairs are "
            f"{obs.shape[1]} and {labels.shape[1]} wide"
        )
    if not (torch.isfinite(obs).all() and torch.isfinite(labels).all()):
        raise ValueError("fit_actor: obs and labels must be finite (a NaN or inf in the pairs)")
    for name, value in (("passes", passes), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"fit_actor: {name} must be an int >= 1, got {value!r}")
    device = actor.obs_mean.device
    obs, labels = obs.to(device), labels.to(device)
    with torch.no_grad():
        inputs = actor.inputs(obs)
    actor.obs_mean.copy_(inputs.mean(0))
    actor.obs_std.copy_(inputs.std(0, unbiased=False).clamp(min=1e-6))
    actor.train()
    for _ in range(passes):
        for batch in torch.randperm(len(obs), generator=generator).to(device).split(batch_size):
            loss = torch.nn.functional.mse_loss(actor.unbounded(obs[batch]), labels[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    actor.eval()
    with torch.no_grad():
        squared = [(actor.unbounded(o) - a).square() for o, a in zip(obs.split(8192), labels.split(8192), strict=True)]
        return math.sqrt(float(torch.cat(squared).mean()))
