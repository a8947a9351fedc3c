"""A small Isaac Lab direct-workflow env base over :class:`NewtonCouplerManager`.

``step(actions)`` clips the actions into a persistent device buffer, lets the task turn them into
control (:meth:`_pre_physics_step`: e.g. joint position targets written into the manager's
zero-copy ``joint_view("joint_target_q")``; or :meth:`_apply_action_launch`: a kernel run inside the
captured loop in every physics step, e.g. forces), runs ONE manager ``step()`` (``decimation``
physics steps), computes rewards and terminations as torch tensors of shape ``[num_envs, ...]``,
resets the finished envs through the manager's masked reset (other envs are not touched), and
returns ``(obs, reward, terminated, truncated, extras)`` like a gymnasium vector env with autoreset.
Episode statistics of the envs that finished are in ``extras["episode"]``.

The env config nests the simulation settings and the scene, as Isaac Lab's ``DirectRLEnvCfg`` does:
``cfg.sim`` (a :class:`~isaaclab_contrib.physics.SimulationCfg`: dt, device, substeps, graph capture; its
solver is the scene's coupler), ``cfg.scene`` (any :class:`~isaaclab_contrib.scenes.SceneBaseCfg`, with
``num_envs``), ``cfg.decimation``, ``cfg.episode_length_s`` and ``cfg.seed``. The env starts the simulation
with :func:`~isaaclab_contrib.scenes.launch`, so any registered scene can become a task.

Observations are one tensor ``[num_envs, num_observations]`` (the spaces are ``Box``) or, for a task
that declares its groups in :meth:`_observation_group_shapes`, a dict of groups (e.g. ``{"policy":
[num_envs, D], "camera": [num_envs, C, H, W]}``; the spaces are a gymnasium ``Dict`` of ``Box``).

Subclasses implement :meth:`_pre_physics_step` and/or :meth:`_apply_action_launch`,
:meth:`_get_observations`, :meth:`_get_rewards`, :meth:`_get_dones` and :meth:`_reset_idx`. Task buffers
must be updated in place: rsl-rl collects rollouts under ``torch.inference_mode()``, and a buffer replaced
there cannot be written outside it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import torch
import warp as wp

from isaaclab_contrib.scenes import launch, make_viewport
from isaaclab_contrib.utils.configclass import configclass

from .env_cfg_base import CoupledEnvCfgBase

__all__ = ["SEED_MAX", "SEED_RANGE", "CoupledDirectEnv", "CoupledDirectEnvCfg", "as_actions", "check_seed"]

SEED_MAX = 2**64 - 1
"""Largest seed: torch generators take 64-bit unsigned seeds."""
SEED_RANGE = "[0, 18446744073709551616)"
"""The declared range of every ``seed`` field (``0 .. 2**64 - 1``; :mod:`isaaclab_contrib.utils.validation` syntax)."""


def check_seed(seed: Any, where: str) -> int | None:
    """*seed* as a Python ``int`` (or ``None``), gymnasium's convention: ``None`` or an integer in ``[0, 2**64 - 1]``.

    Integers of any kind (NumPy's too) are accepted, never a ``bool``; *where* names the caller in the errors.

    Raises:
        TypeError: *seed* is not ``None`` or an integer (a string, a float, a bool, a tensor...).
        ValueError: *seed* is negative or above ``2**64 - 1``.
    """
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{where}: seed must be None or a non-negative integer, got {type(seed).__name__} {seed!r}")
    value = int(seed)
    if not 0 <= value <= SEED_MAX:
        raise ValueError(f"{where}: seed must be in [0, 2**64 - 1], got {value}")
    return value


def as_actions(actions: Any, expected: tuple[int, int], device: Any, where: str) -> torch.Tensor:
    """*actions* as a float32 tensor of shape *expected* on *device*: a ``torch.Tensor`` or ``numpy.ndarray`` of a
    real floating dtype, converted explicitly; anything else (lists, integer, bool or complex dtypes, a wrong
    shape) raises naming *where* and what was given.
    """
    if isinstance(actions, np.ndarray):
        if actions.dtype.kind != "f" or actions.dtype.itemsize > 8:
            raise TypeError(
                f"{where}: actions must have a real floating dtype (float16, float32 or float64), got a numpy "
                f"array of {actions.dtype}"
            )
        if actions.shape != expected:
            raise ValueError(f"{where}: actions must have shape {expected}, got {actions.shape}")
        actions = torch.from_numpy(np.array(actions, dtype=np.float32, copy=True))
    elif isinstance(actions, torch.Tensor):
        if not actions.dtype.is_floating_point:
            raise TypeError(f"{where}: actions must have a real floating dtype, got a tensor of {actions.dtype}")
        if tuple(actions.shape) != expected:
            raise ValueError(f"{where}: actions must have shape {expected}, got {tuple(actions.shape)}")
    else:
        raise TypeError(
            f"{where}: actions must be a torch.Tensor or a numpy.ndarray of shape {expected} and a real "
            f"floating dtype, got {type(actions).__name__} (convert it, e.g. torch.as_tensor(actions, "
            "dtype=torch.float32))"
        )
    return actions.detach().to(device=device, dtype=torch.float32)


@configclass
class CoupledDirectEnvCfg(CoupledEnvCfgBase):
    """Settings shared by coupled direct-workflow envs (Isaac Lab's ``DirectRLEnvCfg``): those of every env
    (:class:`CoupledEnvCfgBase`: ``sim``, ``scene``, ``decimation``, ``viewer``, ``cameras``), the episode length
    and the seed.

    ``validate()`` checks every field against its type and the range declared in ``_ranges`` (a task config
    subclassing it declares the ranges of its own numeric fields there too), the scene and the simulation
    settings the env launches with; errors name the class and the field path.
    """

    _ranges: ClassVar[dict[str, str]] = {"episode_length_s": "> 0", "seed": SEED_RANGE}

    episode_length_s: float = 2.0
    """Episode length before truncation [s]."""
    seed: int = 0
    """Seed of the env's random reset draws (``0 .. 2**64 - 1``, as ``reset(seed=...)`` takes)."""


def _select_envs(obs: torch.Tensor | dict[str, torch.Tensor], ids: torch.Tensor):
    """The rows *ids* of an observation tensor, or of every group of a dict of groups."""
    if isinstance(obs, dict):
        return {name: value[ids] for name, value in obs.items()}
    return obs[ids]


class CoupledDirectEnv(gym.Env):
    """Vectorized env base: all envs step together; finished envs reset themselves.

    A ``gymnasium.Env`` (as Isaac Lab's ``DirectRLEnv``), so a task registered with
    ``gymnasium.register`` is created by ``gymnasium.make(task_id, cfg=cfg)``; the spaces describe
    one env (``single_observation_space``, ``single_action_space``) and the batch of all envs
    (``observation_space``, ``action_space``). Only one env (one simulation) exists at a time.

    Args:
        cfg: The task config; ``None`` loads it from the ``env_cfg_entry_point`` of the task's
            registration (given by ``gymnasium.make``).
        render_mode: ``None`` (no rendering) or ``"rgb_array"``: :meth:`render` returns an RGB ``uint8``
            frame ``(height, width, 3)`` from :attr:`CoupledDirectEnvCfg.viewer` (env 0 by default; a grid
            of every env with ``viewer.env_index=None``), rendered when asked, after the step and outside the
            captured program (a video is not an observation; the physics stays one captured graph).
        **kwargs: The ``*_entry_point`` keys of a gymnasium registration (ignored otherwise).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [None, "rgb_array"], "render_fps": 30}
    num_observations: int = 0
    num_actions: int = 0

    def __init__(self, cfg: CoupledDirectEnvCfg | None = None, render_mode: str | None = None, **kwargs: Any):
        from .registry import env_cfg_from_arguments

        cfg = env_cfg_from_arguments(type(self).__name__, cfg, render_mode, self.metadata["render_modes"], kwargs)
        if not isinstance(cfg, CoupledDirectEnvCfg):
            raise TypeError(f"{type(self).__name__}: cfg must be a CoupledDirectEnvCfg, got {type(cfg).__name__}")
        cfg.validate()
        self.cfg = cfg
        self.render_mode = render_mode
        self.num_envs = cfg.scene.num_envs
        if render_mode == "rgb_array" and cfg.viewer.body is not None:
            raise ValueError(f"{type(cfg).__name__}.viewer.body: the viewer is fixed; a camera on a body is a sensor")
        self._viewport = None
        # 1 / (dt * decimation), for video writers (gymnasium's convention).
        self.metadata = {**self.metadata, "render_fps": 1.0 / (cfg.sim.dt * cfg.decimation)}
        # One simulation at a time (Isaac Lab): launch() raises while another env or context is open, and
        # clears what it created when building or the reset fails.
        self.sim = launch(
            cfg.scene, cfg.simulation_cfg(), list(cfg.cameras), setup=self._register_sensors, validated=True
        )
        self.manager = self.sim.physics_manager
        try:
            self.device = self.manager.get_device()
            self.torch_device = wp.device_to_torch(self.device)
            self.generator = torch.Generator(device=self.torch_device).manual_seed(cfg.seed)
            self.max_episode_length = max(1, round(cfg.episode_length_s / (cfg.sim.dt * cfg.decimation)))
            self.actions_wp = wp.zeros((self.num_envs, self.num_actions), dtype=float, device=self.device)
            self.actions = wp.to_torch(self.actions_wp)  # zero-copy: writing it feeds the captured loop
            self.action_excess = torch.zeros(self.num_envs, self.num_actions, device=self.torch_device)
            """How far each of the last actions lay outside [-1, 1] before clipping, ``[num_envs, num_actions]``
            (0 inside): the clip hides a policy's mean drifting past the range, a task can penalize it."""
            self.episode_length = torch.zeros(self.num_envs, dtype=torch.long, device=self.torch_device)
            self.episode_return = torch.zeros(self.num_envs, dtype=torch.float32, device=self.torch_device)
            self._setup_buffers()
            self._define_spaces()
            if type(self)._apply_action_launch is not CoupledDirectEnv._apply_action_launch:
                self.manager.register_post_actuator_callback(self._apply_action_launch)
            if render_mode == "rgb_array":  # framed on the state at the start
                self._viewport = make_viewport(self.manager, cfg.viewer, cfg.scene)
        except BaseException:
            self.sim.clear_instance()
            raise

    def render(self) -> np.ndarray | None:
        """The viewer's RGB ``uint8`` frame ``(height, width, 3)`` of the last step (a copy); ``None`` without
        ``render_mode="rgb_array"``. A per-env viewer gives a grid of every env, row by row."""
        self._require_open("render()")
        if self._viewport is None:
            return None
        return self._viewport.render(self.manager.get_state_0())

    def _define_spaces(self) -> None:
        groups = self._observation_group_shapes()
        if groups is None:
            self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (self.num_observations,), np.float32)
        else:
            if not isinstance(groups, dict) or not groups:
                raise TypeError(
                    f"{type(self).__name__}._observation_group_shapes() must return None or a non-empty dict of group "
                    f"name to shape, got {groups!r}"
                )
            self.single_observation_space = gym.spaces.Dict(
                {name: gym.spaces.Box(-np.inf, np.inf, tuple(shape), np.float32) for name, shape in groups.items()}
            )
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (self.num_actions,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)

    # ------------------------------------------------------------------ gym-like API
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[torch.Tensor | dict, dict]:
        """Reset every env; returns ``(obs, extras)`` (*obs* a tensor, or a dict of groups).

        Args:
            seed: ``None`` keeps the env's generator running; an integer in ``[0, 2**64 - 1]`` reseeds the
                env's reset draws (gymnasium's convention, the range of :attr:`CoupledDirectEnvCfg.seed`).
            options: Unused.

        Raises:
            TypeError: *seed* is not ``None`` or an integer (a string, float or bool).
            ValueError: *seed* is negative or above ``2**64 - 1``.
        """
        self._require_open("reset()")
        seed = check_seed(seed, f"{type(self).__name__}.reset")
        if seed is not None:
            self.generator.manual_seed(seed)
        all_envs = torch.arange(self.num_envs, device=self.torch_device)
        self._reset_envs(all_envs)
        return self._get_observations(), {}

    def step(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, dict]:
        """Apply *actions* (``[num_envs, num_actions]``, clipped to [-1, 1]) for one env step.

        *actions* is a ``torch.Tensor`` or a ``numpy.ndarray`` of a real floating dtype (16, 32 or 64 bit; on
        any device), converted explicitly to ``float32`` on the env's device. Anything else is refused before
        anything is written, naming what was given: lists and other sequences, bool, integer, complex and
        object dtypes, a wrong shape, NaN or infinity.
        """
        self._require_open("step()")
        actions = self._as_actions(actions)
        finite = torch.isfinite(actions).all(dim=-1)
        if not bool(finite.all()):
            bad = torch.nonzero(~finite).squeeze(-1).tolist()
            raise ValueError(f"{type(self).__name__}.step: actions of envs {bad} are not finite (NaN or inf)")
        self.actions.copy_(actions.clamp(-1.0, 1.0))
        self.action_excess.copy_((actions.abs() - 1.0).clamp(min=0.0))
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
            extras["final_observation"] = _select_envs(self._get_observations(), ids)
            self._reset_envs(ids)
        return self._get_observations(), reward, terminated, truncated, extras

    def close(self) -> None:
        """Close the simulation and clear the manager (a no-op when already closed)."""
        self.sim.clear_instance()

    @property
    def episode_length_buf(self) -> torch.Tensor:
        """Env steps of each env's current episode (``[num_envs]``, ``torch.long``; Isaac Lab's name).

        Writable, e.g. by rsl-rl to spread the first time-outs: the value must be an integer tensor or array of
        shape ``[num_envs]`` with every entry in ``[0, max_episode_length - 1]`` (an episode that reached its
        length has been reset), else a ``TypeError`` / ``ValueError`` names the problem and nothing is written.
        """
        return self.episode_length

    @episode_length_buf.setter
    def episode_length_buf(self, value: Any) -> None:
        self.episode_length.copy_(self._as_episode_lengths(value))

    def _as_actions(self, actions: Any) -> torch.Tensor:
        """*actions* as a float32 tensor on the env's device, or a named error (nothing written)."""
        return as_actions(actions, (self.num_envs, self.num_actions), self.torch_device, f"{type(self).__name__}.step")

    def _as_episode_lengths(self, value: Any) -> torch.Tensor:
        """*value* checked as episode lengths (see :attr:`episode_length_buf`), as a long tensor on the env's device."""
        where = f"{type(self).__name__}.episode_length_buf"
        if isinstance(value, np.ndarray):
            if value.dtype.kind not in "iu":
                raise TypeError(f"{where}: must have an integer dtype, got a numpy array of {value.dtype}")
            value = torch.from_numpy(np.array(value, dtype=np.int64, copy=True))
        elif isinstance(value, torch.Tensor):
            if value.dtype.is_floating_point or value.dtype.is_complex or value.dtype == torch.bool:
                raise TypeError(f"{where}: must have an integer dtype, got a tensor of {value.dtype}")
        else:
            raise TypeError(f"{where}: must be an integer torch.Tensor or numpy.ndarray, got {type(value).__name__}")
        if tuple(value.shape) != (self.num_envs,):
            raise ValueError(f"{where}: must have shape ({self.num_envs},), got {tuple(value.shape)}")
        value = value.detach().to(device=self.torch_device, dtype=torch.long)
        bad = torch.nonzero((value < 0) | (value >= self.max_episode_length)).squeeze(-1)
        if bad.numel():
            env_ids = bad.tolist()
            raise ValueError(
                f"{where}: every entry must be in [0, {self.max_episode_length - 1}] (max_episode_length - 1), got "
                f"{value[bad].tolist()} for envs {env_ids}"
            )
        return value

    def _require_open(self, what: str) -> None:
        if not self.sim.is_active():
            raise RuntimeError(f"{type(self).__name__}.{what}: the env was closed")

    # ------------------------------------------------------------------ resets
    def _reset_envs(self, env_ids: torch.Tensor) -> None:
        """Put *env_ids* back to their initial state (masked manager reset) and redraw task randomness."""
        ids = env_ids.detach().cpu().numpy()
        self.manager.write_initial_state(env_ids=ids)
        self.actions[env_ids] = 0.0
        self.action_excess[env_ids] = 0.0
        self.episode_length[env_ids] = 0
        self.episode_return[env_ids] = 0.0
        self._reset_idx(env_ids)
        self.manager.forward()  # FK and a masked solver reset now, so observations see the reset state

    # ------------------------------------------------------------------ task hooks
    def _register_sensors(self, manager: type) -> None:
        """Add the task's sensors on *manager* before ``sim.reset()`` (e.g. ``add_interface_force_sensor``), so
        the step program is recorded once with them. Called before :meth:`_setup_buffers`. Default: nothing."""

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

    def _observation_group_shapes(self) -> dict[str, tuple[int, ...]] | None:
        """Shapes of one env's observation groups (e.g. ``{"policy": (4,), "camera": (1, 16, 16)}``) when
        :meth:`_get_observations` returns a dict of groups; ``None`` (default): one tensor of
        ``num_observations`` values. Called once the buffers exist (after :meth:`_setup_buffers`)."""
        return None

    def _get_observations(self) -> torch.Tensor | dict[str, torch.Tensor]:
        """The observations of every env: ``[num_envs, num_observations]``, or a dict of groups ``[num_envs, ...]``
        (see :meth:`_observation_group_shapes`)."""
        raise NotImplementedError

    def _get_rewards(self) -> torch.Tensor:
        raise NotImplementedError

    def _get_dones(self) -> torch.Tensor:
        raise NotImplementedError

    def _reset_idx(self, env_ids: torch.Tensor) -> None:
        """Task-specific reset of *env_ids* (e.g. new targets)."""
