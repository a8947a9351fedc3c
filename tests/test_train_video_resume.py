"""train.py / play.py end to end on tiny settings: config overrides recorded in the run folder, --resume
continuing the iteration count and the learning curve, --video clips from training and play, and the same
training results with and without --video."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # as `python scripts/NAME.py` does

pytestmark = pytest.mark.slow  # training runs

TASK = "Isaac-Press-Cloth-Direct-v0"  # the smallest task: a sphere and a cloth
COMMON = ["--task", TASK, "--num_envs", "2", "--eval_episodes", "1", "--seed", "3"]
TINY = ["--max_iterations", "2", "agent.num_steps_per_env=6", "agent.algorithm.learning_rate=2e-4"]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """A 2-iteration training with --video (a 4-step clip every 5 env steps) and two overrides."""
    import train

    root = tmp_path_factory.mktemp("logs")
    result = train.main(
        [*COMMON, *TINY, "--log_root", str(root), "--video", "--video_interval", "5", "--video_length", "4"]
    )
    (run,) = (root / "press_cloth").iterdir()
    return root, run, result


def test_overrides_change_the_training_and_are_recorded_in_the_run_folder(first_run):
    _, run, result = first_run
    assert result["env_steps"] == 2 * 6 * 2  # agent.num_steps_per_env=6 took effect
    agent = json.loads((run / "params" / "agent.json").read_text())
    env = json.loads((run / "params" / "env.json").read_text())
    assert agent["num_steps_per_env"] == 6 and agent["algorithm"]["learning_rate"] == 2e-4
    assert agent["seed"] == env["seed"] == 3 and env["scene"]["num_envs"] == 2
    record = json.loads((run / "params" / "overrides.json").read_text())
    assert record["overrides"] == ["agent.num_steps_per_env=6", "agent.algorithm.learning_rate=2e-4"]


def test_training_video_clips_decode_and_move(first_run):
    from isaaclab_contrib.utils.video import read_video

    _, run, result = first_run
    clips = sorted((run / "videos" / "train").glob("rl-video-step-*.mp4"))
    # 12 env steps: clips start at steps 0, 5 and 10 (the last one cut short by the end of training).
    assert [p.name for p in clips] == ["rl-video-step-0.mp4", "rl-video-step-10.mp4", "rl-video-step-5.mp4"]
    assert sorted(result["videos"]) == [str(p) for p in clips]
    frames = read_video(run / "videos" / "train" / "rl-video-step-0.mp4")
    assert frames.shape[0] == 4 and frames.shape[3] == 3
    assert frames[0].std() > 1.0  # the scene is in view
    assert np.abs(frames[-1].astype(int) - frames[0].astype(int)).sum() > 0  # the frames change over time
    assert read_video(run / "videos" / "train" / "rl-video-step-10.mp4").shape[0] == 2


def test_training_without_video_gives_the_same_results(first_run, tmp_path):
    import train

    _, run, with_video = first_run
    without = train.main([*COMMON, *TINY, "--log_root", str(tmp_path)])
    (plain,) = (tmp_path / "press_cloth").iterdir()
    assert not (plain / "videos").exists() and "videos" not in without
    for key in ("random_return", "oracle_return", "trained_return", "env_steps"):
        assert without[key] == with_video[key], key
    assert train.read_curve(plain) == train.read_curve(run)  # Train/mean_reward (once episodes finished)
    for tag in ("Loss/value", "Loss/surrogate", "Loss/learning_rate", "Policy/mean_std"):
        steps, values = train.read_curve(run, tag)
        assert steps == [0, 1] and train.read_curve(plain, tag) == (steps, values), tag


def test_resume_continues_the_iteration_count_and_the_learning_curve(first_run):
    import train

    root, run, _ = first_run
    # rsl-rl saved model_0.pt (save_interval) and model_1.pt (the last iteration); the latest is taken.
    assert sorted(p.name for p in run.glob("model_*.pt")) == ["model_0.pt", "model_1.pt"]
    result = train.main([*COMMON, *TINY, "--log_root", str(root), "--resume", "--load_run", run.name])
    (resumed,) = (p for p in (root / "press_cloth").iterdir() if p != run)  # a new run folder
    assert result["resumed_from"] == {"checkpoint": str(run / "model_1.pt"), "iteration": 1}
    assert result["start_iteration"] == 2
    assert json.loads((resumed / "result.json").read_text())["resumed_from"]["iteration"] == 1
    # The tensorboard curves continue after the old run's iterations 0 and 1.
    for tag in ("Loss/value", "Loss/learning_rate"):
        assert train.read_curve(run, tag)[0] == [0, 1] and train.read_curve(resumed, tag)[0] == [2, 3], tag
    assert sorted(p.name for p in resumed.glob("model_*.pt")) == ["model_3.pt"]  # continued numbering
    assert not (resumed / "videos").exists()  # no --video this time


def test_play_records_the_policy(first_run):
    import play

    from isaaclab_contrib.utils.video import read_video

    _, run, result = first_run
    played = play.main(
        [*COMMON, "--checkpoint", str(run / "model_1.pt"), "--no_export", "--video", "--video_length", "5"]
    )
    (clip,) = (run / "videos" / "play").iterdir()
    assert clip.name == "rl-video-step-0.mp4" and played["videos"] == [str(clip)]
    frames = read_video(clip)
    assert frames.shape[0] == 5 and np.abs(frames[-1].astype(int) - frames[0].astype(int)).sum() > 0
    # Recording does not change what the policy does.
    assert played["policy_return"] == pytest.approx(result["trained_return"], abs=1e-4)
