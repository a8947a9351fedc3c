"""Video clips of training and play (Isaac Lab's ``--video``, ``--video_length``, ``--video_interval``).

The env must be created with ``render_mode="rgb_array"`` (``gymnasium.make(task, cfg=cfg,
render_mode="rgb_array")``): ``env.render()`` then renders the last step's frame from the env's viewer, after
the step and outside its captured program, and only while a clip records. A clip is ``video_length`` consecutive env steps, one frame per step, written with
:class:`~isaaclab_contrib.utils.video.VideoWriter` as ``<folder>/rl-video-step-<N>.mp4``, where ``N`` is the
index of the clip's first env step (counted from 0, one per vectorized step of all envs). The frame rate is
the env's ``metadata["render_fps"]`` (``1 / (sim.dt * decimation)``: real time).

* :class:`ClipRecorder` — the clip logic: :meth:`ClipRecorder.after_step` after every env step starts a clip
  every ``video_interval`` steps (only one clip at a time), writes frames and closes the clip after
  ``video_length`` of them.
* :class:`VecEnvVideoRecorder` — rsl-rl's ``VecEnv`` around :class:`~isaaclab_contrib.rl.RslRlVecEnvWrapper`
  that records while ``OnPolicyRunner.learn`` steps it (``train.py --video``). That wrapper steps the
  unwrapped env directly, so a gymnasium wrapper around the env would never see those steps; this one sits
  where the runner's steps pass.
* :class:`RecordedPolicy` — an ``obs -> actions`` policy that records the env it acts on
  (``play.py --video``, with :func:`~isaaclab_contrib.rl.evaluate_policy`).

Recording only reads the rendered image: it never steps, resets or reseeds the env and draws no random
numbers, so a training run gives the same results with and without ``--video``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rsl_rl.env import VecEnv

from isaaclab_contrib.utils.video import VideoWriter

__all__ = ["ClipRecorder", "RecordedPolicy", "VecEnvVideoRecorder"]


def _count(value: Any, name: str, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1{' or None' if allow_none else ''}, got {value!r}")
    return value


class ClipRecorder:
    """Writes clips of ``env.render()`` frames, one frame per env step.

    Args:
        env: The env (or a wrapper of it) created with ``render_mode="rgb_array"``; only its ``render()`` and
            ``metadata["render_fps"]`` are used.
        folder: Where the clips go (created with the first clip).
        video_length: Env steps (frames) per clip [count].
        video_interval: A clip starts at every env step index that is a multiple of this [env steps];
            ``None``: one clip, from step 0.
        name_prefix: File names are ``<name_prefix>-step-<N>.mp4``.
        log: Called with a progress line when a clip is written (``print`` by default; ``None``: silent).

    Raises:
        ValueError: A count is not an integer >= 1, or the env does not render (``render_mode`` is not
            ``"rgb_array"``).
    """

    def __init__(
        self,
        env: Any,
        folder: str | Path,
        video_length: int,
        video_interval: int | None = None,
        name_prefix: str = "rl-video",
        log: Callable[[str], Any] | None = print,
    ):
        self.video_length = _count(video_length, "video_length")
        self.video_interval = _count(video_interval, "video_interval", allow_none=True)
        unwrapped = getattr(env, "unwrapped", env)
        if getattr(unwrapped, "render_mode", None) != "rgb_array":
            raise ValueError(
                f"ClipRecorder: the env must be created with render_mode='rgb_array' to record videos, got "
                f"render_mode={getattr(unwrapped, 'render_mode', None)!r}"
            )
        self.env = unwrapped
        self.folder = Path(folder)
        self.name_prefix = name_prefix
        self.fps = float(unwrapped.metadata.get("render_fps", 30))
        self.log = log
        self.steps = 0
        """Env steps seen so far [count]."""
        self.clips: list[Path] = []
        """The clips written so far."""
        self._writer: VideoWriter | None = None
        self._start = 0

    @property
    def recording(self) -> bool:
        """Whether a clip is open."""
        return self._writer is not None

    def _due(self, index: int) -> bool:
        if self.video_interval is None:
            return index == 0
        return index % self.video_interval == 0

    def after_step(self) -> None:
        """Call once after every env step: starts a clip when one is due, writes the step's frame into the open
        clip and closes it once it has ``video_length`` frames."""
        index = self.steps
        self.steps += 1
        if self._writer is None:
            if not self._due(index):
                return
            self._start = index
            self._writer = VideoWriter(self.folder / f"{self.name_prefix}-step-{index}.mp4", fps=self.fps)
        self._writer.write(self.env.render())
        if self._writer.frames >= self.video_length:
            self._finish()

    def _finish(self) -> None:
        writer, self._writer = self._writer, None
        frames = writer.frames
        path = writer.close()
        if path is None:
            return
        self.clips.append(path)
        if self.log is not None:
            last = self._start + frames - 1
            self.log(f"[video] wrote {path} ({frames} frames, env steps {self._start}..{last}, {self.fps:.1f} fps)")

    def close(self) -> None:
        """Write the open clip, if any (shorter than ``video_length`` when the run ended inside it)."""
        if self._writer is not None:
            self._finish()


class VecEnvVideoRecorder(VecEnv):
    """rsl-rl's ``VecEnv`` that forwards everything to *env* and records clips of its steps.

    Args:
        env: The rsl-rl env (:class:`~isaaclab_contrib.rl.RslRlVecEnvWrapper`) over an env created with
            ``render_mode="rgb_array"``.
        recorder: The clip recorder (its env is ``env.unwrapped``).
    """

    def __init__(self, env: Any, recorder: ClipRecorder):
        self.env = env
        self.recorder = recorder
        self.unwrapped = env.unwrapped
        self.num_envs = env.num_envs
        self.num_actions = env.num_actions
        self.max_episode_length = env.max_episode_length
        self.device = env.device
        self.cfg = env.cfg

    @property
    def episode_length_buf(self):
        """The wrapped env's ``episode_length_buf`` (reads and writes pass through)."""
        return self.env.episode_length_buf

    @episode_length_buf.setter
    def episode_length_buf(self, value) -> None:
        self.env.episode_length_buf = value

    def get_observations(self):
        """The wrapped env's current observations."""
        return self.env.get_observations()

    def reset(self):
        """Reset the wrapped env (an open clip continues across the reset)."""
        return self.env.reset()

    def step(self, actions):
        """Step the wrapped env, then hand the step's frame to the recorder."""
        result = self.env.step(actions)
        self.recorder.after_step()
        return result

    def close(self) -> None:
        """Write the open clip, then close the wrapped env."""
        self.recorder.close()
        self.env.close()

    def __getattr__(self, name: str) -> Any:
        # Anything else the runner or a script asks for (e.g. observation_groups) comes from the wrapped env.
        if name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)


class RecordedPolicy:
    """``obs -> actions`` that records the env it acts on: before each action it hands the previous step's frame
    to *recorder* (the first call after the policy is created sees the reset state, which has no frame yet).

    Call :meth:`close` after the last step: it records that step's frame and writes the clip.

    Args:
        policy: The policy that acts.
        recorder: The clip recorder of the env *policy* acts on.
    """

    def __init__(self, policy: Callable[[Any], Any], recorder: ClipRecorder):
        self.policy = policy
        self.recorder = recorder
        self._stepped = False

    def __call__(self, obs: Any) -> Any:
        if self._stepped:
            self.recorder.after_step()
        self._stepped = True
        return self.policy(obs)

    def close(self) -> None:
        """Record the last step's frame (if a clip is still open) and write the clip."""
        if self._stepped and self.recorder.recording:
            self.recorder.after_step()
        self.recorder.close()
