"""A small Isaac Lab direct-workflow env base over :class:`NewtonCouplerManager`.

``step(actions)`` clips the actions into a persistent device buffer, lets the task turn them into
control (:meth:`_pre_physics_step`: e.g. joint position targets written into the manager's
zero-copy ``joint_view("joint_target_q")``; or :meth:`_apply_action_launch`: a kernel run inside the
captured loop in every physics step, e.g. forces), runs ONE manager ``step()`` (``decimation``
physics steps), computes rewards and terminations as torch tensors of shape ``[num_envs, ...]``,
resets the finished envs through the manager's masked reset (other envs are not touched), and
returns ``(obs, reward, terminated, truncated, extras)`` like a gymnasium vector env with autoreset.
Episode statistics of the envs that finished are in ``extras["episode"]``.

Subclasses implement :meth:`_build_scene`, :meth:`_coupler_cfg`, :meth:`_pre_physics_step` and/or
:meth:`_apply_action_launch`, :meth:`_get_observations`, :meth:`_get_rewards`, :meth:`_get_dones`
and :meth:`_reset_idx`. Task buffers must be updated in place: rsl-rl collects rollouts under
``torch.inference_mode()``, and a buffer replaced there cannot be written outside it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import torch
import warp as wp

from isaaclab_contrib.coupling import NewtonCouplerManager
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, SimulationContext
from isaaclab_contrib.utils.configclass import check_missing, configclass
from isaaclab_contrib.utils.validation import check_device_alias, check_fields

__all__ = ["CoupledDirectEnv", "CoupledDirectEnvCfg"]


@configclass
class CoupledDirectEnvCfg:
    """Settings shared by coupled direct-workflow envs.

    ``validate()`` checks every field against its type and the range declared in ``_ranges``; a task
    config subclassing it declares the ranges of its own numeric fields there too.
    """

    _ranges: ClassVar[dict[str, str]] = {
        "num_envs": ">= 1",
        "dt": "> 0",
        "decimation": ">= 1",
        "num_substeps": ">= 1",
        "episode_length_s": "> 0",
        "seed": ">= 0",
    }

    num_envs: int = 16
    """Number of parallel envs (Newton worlds) [count]."""
    dt: float = 1.0 / 240.0
    """Physics step [s]."""
    decimation: int = 4
    """Physics steps per env step; one policy action per env step."""
    num_substeps: int = 1
    """Solver substeps per physics step [count]."""
    episode_length_s: float = 2.0
    """Episode length before truncation [s]."""
    device: str = "cpu"
    """Warp / torch device alias: ``"cpu"``, ``"cuda"`` or ``"cuda:N"``."""
    use_graph: bool = True
    """Capture the decimation loop as a graph (``NewtonCfg.use_cuda_graph``)."""
    seed: int = 0
    """Seed of the env's random reset draws (>= 0)."""

    def validate(self) -> None:
        """Check unset fields, every field's type and range, and the device alias."""
        check_missing(self)
        check_fields(self)
        check_device_alias(self.device, f"{type(self).__name__}.device")


class CoupledDirectEnv(gym.Env):
    """Vectorized env base: all envs step together; finished envs reset themselves.

    A ``gymnasium.Env`` (as Isaac Lab's ``DirectRLEnv``), so a task registered with
    ``gymnasium.register`` is created by ``gymnasium.make(task_id, cfg=cfg)``; the spaces describe
    one env (``single_observation_space``, ``single_action_space``) and the batch of all envs
    (``observation_space``, ``action_space``). Only one env (one simulation) exists at a time.

    Args:
        cfg: The task config; ``None`` loads it from the ``env_cfg_entry_point`` of the task's
            registration (given by ``gymnasium.make``).
        render_mode: Must be ``None``: this env does not render (the scene scripts write USD).
        **kwargs: The ``*_entry_point`` keys of a gymnasium registration (ignored otherwise).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [None]}
    num_observations: int = 0
    num_actions: int = 0

    def __init__(self, cfg: CoupledDirectEnvCfg | None = None, render_mode: str | None = None, **kwargs: Any):
        unknown = sorted(key for key in kwargs if not key.endswith("_entry_point"))
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments {unknown}")
        if render_mode is not None:
            raise ValueError(
                f"{type(self).__name__}: render_mode must be None (this env does not render), got {render_mode!r}"
            )
        if cfg is None:
            entry = kwargs.get("env_cfg_entry_point")
            if entry is None:
                raise TypeError(f"{type(self).__name__}() needs a cfg (or a registration with env_cfg_entry_point)")
            from .registry import resolve_entry_point

            cfg = resolve_entry_point(entry, "env_cfg_entry_point")()
        if not isinstance(cfg, CoupledDirectEnvCfg):
            raise TypeError(f"{type(self).__name__}: cfg must be a CoupledDirectEnvCfg, got {type(cfg).__name__}")
        cfg.validate()
        self.cfg = cfg
        self.render_mode = None
        self.num_envs = cfg.num_envs
        self.manager = NewtonCouplerManager
        # One simulation at a time (Isaac Lab): this raises while another env or context is open.
        self.sim = SimulationContext(
            SimulationCfg(
                dt=cfg.dt,
                device=cfg.device,
                physics=NewtonCfg(
                    solver_cfg=self._coupler_cfg(), num_substeps=cfg.num_substeps, use_cuda_graph=cfg.use_graph
                ),
            )
        )
        try:
            builder = self.manager.create_builder()
            self._build_scene(builder)
            self.manager.set_builder(builder)
            self.sim.reset()
            self.device = self.manager.get_device()
            self.torch_device = wp.device_to_torch(self.device)
            self.generator = torch.Generator(device=self.torch_device).manual_seed(cfg.seed)
            self.max_episode_length = max(1, round(cfg.episode_length_s / (cfg.dt * cfg.decimation)))
            self.actions_wp = wp.zeros((self.num_envs, self.num_actions), dtype=float, device=self.device)
            self.actions = wp.to_torch(self.actions_wp)  # zero-copy: writing it feeds the captured loop
            self.episode_length = torch.zeros(self.num_envs, dtype=torch.long, device=self.torch_device)
            self.episode_return = torch.zeros(self.num_envs, dtype=torch.float32, device=self.torch_device)
            self._setup_buffers()
            self._define_spaces()
            if type(self)._apply_action_launch is not CoupledDirectEnv._apply_action_launch:
                self.manager.register_post_actuator_callback(self._apply_action_launch)
            self.manager.set_decimation(cfg.decimation)
        except BaseException:
            self.sim.clear_instance()
            raise

    def _define_spaces(self) -> None:
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (self.num_observations,), np.float32)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (self.num_actions,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)

    # ------------------------------------------------------------------ gym-like API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[torch.Tensor, dict]:
        """Reset every env; returns ``(obs, extras)``. *seed* reseeds the env's reset draws; *options* is unused."""
        self._require_open("reset()")
        if seed is not None:
            self.generator.manual_seed(seed)
        all_envs = torch.arange(self.num_envs, device=self.torch_device)
        self._reset_envs(all_envs)
        return self._get_observations(), {}

    def step(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, dict]:
        """Apply *actions* (``[num_envs, num_actions]``, clipped to [-1, 1]) for one env step."""
        self._require_open("step()")
        if actions.shape != (self.num_envs, self.num_actions):
            raise ValueError(f"actions must have shape {(self.num_envs, self.num_actions)}, got {tuple(actions.shape)}")
        actions = actions.to(self.torch_device)
        finite = torch.isfinite(actions).all(dim=-1)
        if not bool(finite.all()):
            bad = torch.nonzero(~finite).squeeze(-1).tolist()
            raise ValueError(f"{type(self).__name__}.step: actions of envs {bad} are not finite (NaN or inf)")
        self.actions.copy_(actions.clamp(-1.0, 1.0))
        self._pre_physics_step(self.actions)
        self.sim.step()
        self.episode_length += 1
        reward = self._get_rewards()
        terminated = self._get_dones()
        truncated = (self.episode_length >= self.max_episode_length) & ~terminated
        self.episode_return += reward
        extras: dict[str, Any] = {}
        done = terminated | truncated
        if bool(done.any()):
            ids = torch.nonzero(done).squeeze(-1)
            extras["episode"] = {
                "return": self.episode_return[ids].clone(),
                "length": self.episode_length[ids].clone(),
                "env_ids": ids.clone(),
            }
            extras["final_observation"] = self._get_observations()[ids]
            self._reset_envs(ids)
        return self._get_observations(), reward, terminated, truncated, extras

    def close(self) -> None:
        """Close the simulation and clear the manager (a no-op when already closed)."""
        self.sim.clear_instance()

    def _require_open(self, what: str) -> None:
        if not self.sim.is_active():
            raise RuntimeError(f"{type(self).__name__}.{what}: the env was closed")

    # ------------------------------------------------------------------ resets
    def _reset_envs(self, env_ids: torch.Tensor) -> None:
        """Put *env_ids* back to their initial state (masked manager reset) and redraw task randomness."""
        ids = env_ids.detach().cpu().numpy()
        self.manager.write_initial_state(env_ids=ids)
        self.actions[env_ids] = 0.0
        self.episode_length[env_ids] = 0
        self.episode_return[env_ids] = 0.0
        self._reset_idx(env_ids)
        self.manager.forward()  # FK and a masked solver reset now, so observations see the reset state

    # ------------------------------------------------------------------ task hooks
    def _coupler_cfg(self):
        raise NotImplementedError

    def _build_scene(self, builder) -> None:
        raise NotImplementedError

    def _setup_buffers(self) -> None:
        """Allocate task buffers (called once the model exists)."""

    def _pre_physics_step(self, actions: torch.Tensor) -> None:
        """Turn the clipped *actions* into joint targets or other control before the env step (host side).

        Writes into the manager's zero-copy views (e.g. ``joint_view("joint_target_q")``) reach the
        captured loop without re-capture. Default: nothing.
        """

    def _apply_action_launch(self) -> None:
        """Launch a kernel that turns ``self.actions_wp`` into forces or targets in every physics step.

        Registered as a post-actuator callback (inside the captured loop) only when a task overrides it.
        """

    def _get_observations(self) -> torch.Tensor:
        raise NotImplementedError

    def _get_rewards(self) -> torch.Tensor:
        raise NotImplementedError

    def _get_dones(self) -> torch.Tensor:
        raise NotImplementedError

    def _reset_idx(self, env_ids: torch.Tensor) -> None:
        """Task-specific reset of *env_ids* (e.g. new targets)."""
