"""Benchmark: wall time of ``scripts/run.py`` with its video (the default) against ``--no-video``.

Both configurations run side by side in one benchmark: each round starts ``python scripts/run.py --scene
<scene> --frames <N>`` once with the video and once with ``--no-video`` (the order alternates from round to
round, so a slow phase of other load on the machine does not fall on one configuration only), each in its own
process writing into its own temporary folder, and times the whole command (start-up, scene build, stepping,
recording, writing the files) [s]. It prints every round, the median of each configuration and the ratio
video / no video of the medians (and of the best rounds: other load only ever slows a round down). From the
runs' own summaries it also prints the stepping time per env step of both configurations (the video must
not slow the captured physics) and the render time per frame. Nothing is asserted; the numbers depend on
the machine.

    python scripts/benchmark_video.py --scene ant_on_hammock --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import isaaclab_coupling_configs  # noqa: F401  (registers the ready scenes)
from isaaclab_contrib.scenes import scene_names
from isaaclab_contrib.utils.cli import add_scene_option, positive_int

RUN = Path(__file__).resolve().parent / "run.py"


def time_run(scene: str, frames: int | None, video: bool, extra: list[str]) -> tuple[float, dict]:
    """Wall time of one ``run.py`` command [s] (it must succeed) and the run's JSON summary."""
    with tempfile.TemporaryDirectory() as output:
        command = [sys.executable, str(RUN), "--scene", scene, "--output", output, *extra]
        if frames is not None:
            command += ["--frames", str(frames)]
        if not video:
            command.append("--no-video")
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"[benchmark_video] {' '.join(command)} failed:\n{done.stderr[-2000:]}")
        summary = json.loads((Path(output) / f"{scene}.json").read_text())
    return seconds, summary


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_option(parser, scene_names(), what="ready scene of run.py")
    parser.add_argument("--frames", type=positive_int, default=None, help="frames (run.py's default if not given)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds of both configurations")
    parser.add_argument("extra", nargs="*", help="more run.py arguments (after --), e.g. -- --device cuda:0")
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {"video": [], "no_video": []}
    step_ms: dict[str, list[float]] = {"video": [], "no_video": []}
    render_ms: list[float] = []
    modes = set()
    for r in range(args.rounds):
        order = [True, False] if r % 2 == 0 else [False, True]
        for video in order:
            seconds, summary = time_run(args.scene, args.frames, video, args.extra)
            key = "video" if video else "no_video"
            times[key].append(seconds)
            step_ms[key].append(1e3 / summary["env_steps_per_s"])
            modes.add(summary["step_mode"])
            if video:
                render_ms.append(1e3 * summary["video"]["render_s_per_frame"])
        print(
            f"[benchmark_video] round {r + 1}/{args.rounds}: video {times['video'][-1]:.1f} s, "
            f"--no-video {times['no_video'][-1]:.1f} s",
            flush=True,
        )
    result = {
        "scene": args.scene,
        "rounds": args.rounds,
        "video_s": times["video"],
        "no_video_s": times["no_video"],
        "median_ratio": statistics.median(times["video"]) / statistics.median(times["no_video"]),
        "best_ratio": min(times["video"]) / min(times["no_video"]),
        "step_ms_video": statistics.median(step_ms["video"]),
        "step_ms_no_video": statistics.median(step_ms["no_video"]),
        "render_ms_per_frame": statistics.median(render_ms),
        "step_modes": sorted(modes),
    }
    print(
        f"[benchmark_video] {args.scene}: median video {statistics.median(times['video']):.1f} s, --no-video "
        f"{statistics.median(times['no_video']):.1f} s: ratio {result['median_ratio']:.2f} "
        f"(best rounds {result['best_ratio']:.2f})"
    )
    print(
        f"[benchmark_video] stepping per env step: video {result['step_ms_video']:.1f} ms, --no-video "
        f"{result['step_ms_no_video']:.1f} ms (ratio {result['step_ms_video'] / result['step_ms_no_video']:.2f}; "
        f"step modes {result['step_modes']}); rendering {result['render_ms_per_frame']:.1f} ms a frame "
        f"({result['render_ms_per_frame'] / result['step_ms_video']:.2f} x a step)"
    )
    return result


if __name__ == "__main__":
    main()
