"""Configs of the manager-based envs (Isaac Lab's ``ManagerBasedEnvCfg`` / ``ManagerBasedRLEnvCfg``)."""

from __future__ import annotations

from typing import Any, ClassVar

from isaaclab_contrib.managers import (
    CurriculumTermCfg,
    EventTermCfg,
    ManagerTermBaseCfg,
    ObservationGroupCfg,
)
from isaaclab_contrib.managers.manager_base import check_params, term_fields
from isaaclab_contrib.managers.manager_term_cfg import OBSERVATION_GROUP_SETTINGS
from isaaclab_contrib.utils.configclass import MISSING, configclass
from isaaclab_contrib.utils.validation import nested

from .direct_env import SEED_RANGE
from .env_cfg_base import CoupledEnvCfgBase
from .mdp.scene_reset import reset_scene_to_default

__all__ = ["DefaultEventManagerCfg", "ManagerBasedEnvCfg", "ManagerBasedRLEnvCfg"]


def _terms(cfg: Any, where: str) -> list[tuple[str, Any]]:
    """``(name, term config)`` of a manager config, observation groups opened (``group.term``)."""
    try:
        fields = term_fields(cfg)
    except TypeError as err:
        raise TypeError(f"{where}: {err}") from None
    out = []
    for name, value in fields:
        if isinstance(value, ObservationGroupCfg):
            out += [(f"{name}.{term}", v) for term, v in term_fields(value) if term not in OBSERVATION_GROUP_SETTINGS]
        else:
            out.append((name, value))
    return out


MANAGER_FIELDS = ("observations", "actions", "events", "recorders", "commands", "rewards", "terminations", "curriculum")
"""The manager configs of an env config: each a configclass whose fields are terms, a dict of terms, or ``None``."""


@configclass
class DefaultEventManagerCfg:
    """The events of an env config that names none (Isaac Lab's): every reset puts the envs' scene back to its
    start state."""

    reset_scene_to_default: EventTermCfg = EventTermCfg(func=reset_scene_to_default, mode="reset")
    """Restore the reset envs' bodies, joints and particles to the start state."""


@configclass
class ManagerBasedEnvCfg(CoupledEnvCfgBase):
    """A manager-based env: the scene and simulation of every env (``sim``, ``scene``, ``decimation``, ``viewer``,
    ``cameras``) and the managers' configs, with Isaac Lab's field names.

    Each manager config is a configclass whose fields are term configs (``None`` switches a term off), checked
    when the env builds its managers, before the first step.
    """

    _ranges: ClassVar[dict[str, str]] = {"seed": SEED_RANGE}

    seed: int | None = None
    """Seed of torch's, NumPy's and Python's random generators, set before the scene is built (``None``: not
    seeded). Event, command and noise terms draw from torch's global generator, as in Isaac Lab."""
    observations: Any = MISSING
    """Observation groups (an ``ObservationGroupCfg`` per field, e.g. ``policy``)."""
    actions: Any = MISSING
    """Action terms (an ``ActionTermCfg`` per field)."""
    events: Any = DefaultEventManagerCfg()
    """Event terms (an ``EventTermCfg`` per field); by default :class:`DefaultEventManagerCfg` (each reset restores
    the scene's start state). ``None``: no events at all, so a reset leaves the envs' state as it is."""
    recorders: Any = None
    """Recorder terms (a ``RecorderManagerBaseCfg``); ``None``: no recording."""
    rerender_on_reset: bool = False
    """Kept for configs that set it: cameras render after every step here, so a reset needs no re-render."""

    def validate(self) -> None:
        """Check the fields, the cameras, the scene and the simulation settings, then every term of every manager
        config that needs no running simulation (each term config's own checks, e.g. a finite reward weight, and a
        term function's parameters against its signature), so such errors come before anything is built."""
        super().validate()
        cls = type(self).__name__
        for field in MANAGER_FIELDS:
            if not hasattr(self, field):
                continue
            for name, term in _terms(getattr(self, field), f"{cls}.{field}"):
                where = f"{cls}.{field}.{name}"
                validate = getattr(term, "validate", None)
                if callable(validate):
                    with nested(where):
                        validate()
                func = getattr(term, "func", None)
                if isinstance(term, ManagerTermBaseCfg) and callable(func) and not isinstance(func, type):
                    min_argc = 2 if isinstance(term, (EventTermCfg, CurriculumTermCfg)) else 1
                    check_params(func, term.params, min_argc, where)


@configclass
class ManagerBasedRLEnvCfg(ManagerBasedEnvCfg):
    """A manager-based RL env: :class:`ManagerBasedEnvCfg` plus the episode, rewards, terminations, commands and
    curriculum (Isaac Lab's ``ManagerBasedRLEnvCfg``)."""

    _ranges: ClassVar[dict[str, str]] = {"episode_length_s": "> 0"}

    is_finite_horizon: bool = False
    """Whether the task's horizon is part of the MDP (time-outs then count as terminations for learning); passed
    to learners that read it (rsl-rl reads ``extras["time_outs"]`` either way)."""
    episode_length_s: float = MISSING
    """Episode length [s]; ``max_episode_length = ceil(episode_length_s / (decimation * sim.dt))`` env steps."""
    rewards: Any = MISSING
    """Reward terms (a ``RewardTermCfg`` per field)."""
    terminations: Any = MISSING
    """Termination terms (a ``TerminationTermCfg`` per field)."""
    curriculum: Any = None
    """Curriculum terms (a ``CurriculumTermCfg`` per field); ``None``: none."""
    commands: Any = None
    """Command terms (a ``CommandTermCfg`` per field); ``None``: none."""
