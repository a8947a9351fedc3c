"""Curriculum terms (Isaac Lab's names and signatures): ``func(env, env_ids, **params)`` at the resets."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedRLEnv

__all__ = ["modify_env_param", "modify_reward_weight"]


def modify_reward_weight(env: ManagerBasedRLEnv, env_ids, term_name: str, weight: float, num_steps: int) -> float:
    """Set the weight of the reward term *term_name* to *weight* once the env has taken *num_steps* env steps
    (``env.common_step_counter``); returns the term's weight now."""
    term_cfg = env.reward_manager.get_term_cfg(term_name)
    if env.common_step_counter > num_steps and term_cfg.weight != weight:
        term_cfg.weight = weight
        env.reward_manager.set_term_cfg(term_name, term_cfg)
    return term_cfg.weight


def _resolve(root: Any, address: str) -> tuple[Any, str | int]:
    parts = address.split(".")
    obj = root
    for i, part in enumerate(parts[:-1]):
        obj = (
            obj[int(part)]
            if isinstance(obj, (list, tuple)) and part.isdigit()
            else (obj[part] if isinstance(obj, dict) else getattr(obj, part, _Missing))
        )
        if obj is _Missing:
            raise AttributeError(f"modify_env_param: {'.'.join(parts[: i + 1])!r} does not exist on the env")
    last = parts[-1]
    key: str | int = int(last) if isinstance(obj, list) and last.isdigit() else last
    return obj, key


class _Missing:
    pass


def modify_env_param(
    env: ManagerBasedRLEnv,
    env_ids,
    address: str,
    modify_fn: Callable[..., Any],
    modify_params: dict | None = None,
) -> Any:
    """Set the env attribute at the dotted *address* (``"cfg.rewards.action_rate.weight"``, ``"event_manager.cfg
    .push.params.velocity_range"``) to ``modify_fn(env, env_ids, old_value, **modify_params)``; returns the value
    now. A return of :data:`NO_CHANGE` leaves it."""
    obj, key = _resolve(env, address)
    if isinstance(obj, (dict, list)):
        old = obj[key]
    elif hasattr(obj, key):
        old = getattr(obj, key)
    else:
        raise AttributeError(f"modify_env_param: {address!r} does not exist on the env")
    new = modify_fn(env, env_ids, old, **(modify_params or {}))
    if new is NO_CHANGE:
        return old
    if isinstance(obj, (dict, list)):
        obj[key] = new
    else:
        setattr(obj, key, new)
    return new


NO_CHANGE = object()
"""What a ``modify_fn`` returns to leave the value as it is."""
