"""Recorder terms (Isaac Lab's names): what a demonstration dataset holds per episode, and the recorder config
that records all of it (:class:`ActionStateRecorderManagerCfg`)."""

from __future__ import annotations

from collections.abc import Sequence

from isaaclab_contrib.managers import RecorderTerm, RecorderTermCfg
from isaaclab_contrib.managers.recorder_manager import RecorderManagerBaseCfg
from isaaclab_contrib.utils.configclass import configclass

__all__ = [
    "ActionStateRecorderManagerCfg",
    "InitialStateRecorder",
    "InitialStateRecorderCfg",
    "PostStepStatesRecorder",
    "PostStepStatesRecorderCfg",
    "PreStepActionsRecorder",
    "PreStepActionsRecorderCfg",
    "PreStepFlatPolicyObservationsRecorder",
    "PreStepFlatPolicyObservationsRecorderCfg",
]


class InitialStateRecorder(RecorderTerm):
    """``initial_state``: the scene's state (positions relative to the env origins) after each reset."""

    def record_post_reset(self, env_ids: Sequence[int] | None):
        state = self._env.scene.get_state(is_relative=True)
        ids = list(range(self._env.num_envs)) if env_ids is None else list(env_ids)
        return "initial_state", _rows(state, ids)


class PostStepStatesRecorder(RecorderTerm):
    """``states``: the scene's state (positions relative to the env origins) after each env step."""

    def record_post_step(self):
        return "states", self._env.scene.get_state(is_relative=True)


class PreStepActionsRecorder(RecorderTerm):
    """``actions``: the action of each env step, as the policy gave it."""

    def record_pre_step(self):
        return "actions", self._env.action_manager.action


class PreStepFlatPolicyObservationsRecorder(RecorderTerm):
    """``obs``: the ``policy`` observation the action of each env step was computed from."""

    def record_pre_step(self):
        return "obs", self._env.obs_buf["policy"]


def _rows(tree, ids):
    if isinstance(tree, dict):
        return {key: _rows(value, ids) for key, value in tree.items()}
    return tree[ids]


@configclass
class InitialStateRecorderCfg(RecorderTermCfg):
    """:class:`InitialStateRecorder`."""

    class_type: type = InitialStateRecorder


@configclass
class PostStepStatesRecorderCfg(RecorderTermCfg):
    """:class:`PostStepStatesRecorder`."""

    class_type: type = PostStepStatesRecorder


@configclass
class PreStepActionsRecorderCfg(RecorderTermCfg):
    """:class:`PreStepActionsRecorder`."""

    class_type: type = PreStepActionsRecorder


@configclass
class PreStepFlatPolicyObservationsRecorderCfg(RecorderTermCfg):
    """:class:`PreStepFlatPolicyObservationsRecorder`."""

    class_type: type = PreStepFlatPolicyObservationsRecorder


@configclass
class ActionStateRecorderManagerCfg(RecorderManagerBaseCfg):
    """Records what replaying a demonstration needs: each episode's initial state, its actions, the policy
    observations and the states after each step."""

    record_initial_state = InitialStateRecorderCfg()
    record_post_step_states = PostStepStatesRecorderCfg()
    record_pre_step_actions = PreStepActionsRecorderCfg()
    record_pre_step_flat_policy_observations = PreStepFlatPolicyObservationsRecorderCfg()
