"""Where an env step's time goes: a per-stage speed profile of a ready scene (MuJoCo Warp ``testspeed`` style).

For captured and for eager stepping the script launches the scene (``--num_envs`` envs), warms up, then

1. times ``--steps`` env steps the normal way (``manager.step()``): env steps/s;
2. times ``--steps`` more with the step program's stage timer (``StepProgram.set_stage_timer``): every
   operation of the env step runs on its own, the device synchronized around it; captured operations
   replay from a graph of their own. Each stage's time per env step: ``actuators``, ``post_actuator``
   callbacks, ``collide``, ``substeps`` (the solver), ``post_step`` callbacks, ``sensors``.
   Times are medians over the timed env steps (other load on the machine shows up as outliers);
3. in the eager run: splits ``substeps`` into each entry's solver (its ``step()`` calls) and the coupling
   (the rest of the coupled step: contact exchange, ADMM forces and dual updates, proxy transfers), counts
   the coupling iterations (ADMM dual updates or proxy passes) and the Warp kernel launches per env step (a
   captured step replays the same launches from its graph). The first call of each entry's solver is also
   recorded as a graph; replayed alone, times its calls per env step, it gives the entry's captured cost
   (the captured column of the entry rows; the coupling's is the captured ``substeps`` minus those).

A scene's open-loop controller (the ant's gait) runs before every env step and is timed separately.
``--json PATH`` writes everything measured. Eager times include Python's launch overhead on the host
(on the CPU a kernel launch costs microseconds of Python besides its compute); captured times do not.

    python scripts/profile_step.py --scene box_on_cloth_admm
    python scripts/profile_step.py --scene ant_on_hammock --num_envs 4 --steps 10 --json profile.json
    python scripts/profile_step.py --all --steps 5      # every ready scene
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

import warp as wp

import isaaclab_coupling_configs  # noqa: F401  (registers the ready scenes)
from isaaclab_contrib.physics import NewtonManager
from isaaclab_contrib.scenes import get_scene, launch, scene_names
from isaaclab_contrib.utils.cli import add_device_option, add_num_envs_option, add_scene_option, positive_int

STAGE_ORDER = ("actuators", "post_actuator", "collide", "substeps", "post_step", "sensors")


class _LaunchCounter:
    """Counts Warp kernel launches (``wp.launch``, ``wp.launch_tiled``, recorded ``wp.Launch`` objects) while active."""

    def __init__(self):
        self.count = 0
        self._saved = []

    def __enter__(self):
        import warp._src.context as context

        def counting(original):
            def wrapper(*args, **kwargs):
                self.count += 1
                return original(*args, **kwargs)

            return wrapper

        # wp.launch and context.launch are the same function; launch_tiled calls context.launch.
        targets = [(wp, "launch"), (context, "launch"), (context.Launch, "launch")]
        originals = {id(getattr(holder, name)): getattr(holder, name) for holder, name in targets}
        wrapped = {key: counting(fn) for key, fn in originals.items()}
        for holder, name in targets:
            self._saved.append((holder, name, getattr(holder, name)))
            setattr(holder, name, wrapped[id(getattr(holder, name))])
        return self

    def __exit__(self, *exc):
        for holder, name, original in reversed(self._saved):
            setattr(holder, name, original)
        self._saved.clear()


def _stage_group(name: str) -> str:
    return name.split(":", 1)[0]


def _running_program():
    """The step program and solver part of the running simulation (the profiler's look inside the runtime)."""
    instance = NewtonManager._running("profile_step")
    return instance.part.program, instance.part


def _wrap_entries(solver, seconds: dict, graphs: dict | None, device) -> list:
    """Time each coupled entry's solver ``step()`` and count its calls and the coupling iterations; the first call
    of each entry is also recorded as a graph (recording launches nothing) to time its captured cost later,
    unless *graphs* is ``None`` (the solver stage does not capture). Returns what to undo."""
    undo = []
    for name, entry in getattr(solver, "_entries", {}).items():
        original = entry.solver.step

        def timed(*args, _original=original, _name=name, **kwargs):
            if graphs is not None and _name not in graphs:
                with wp.ScopedCapture(device=device) as capture:
                    _original(*args, **kwargs)
                graphs[_name] = capture.graph
            wp.synchronize_device(device)
            start = time.perf_counter()
            result = _original(*args, **kwargs)
            wp.synchronize_device(device)
            seconds[f"entry:{_name}"] += time.perf_counter() - start
            seconds[f"calls:{_name}"] += 1
            return result

        entry.solver.step = timed
        undo.append((entry.solver, "step"))
    for method in ("_update_admm_dual", "_step_proxy"):
        if hasattr(solver, method) and hasattr(type(solver), method):
            original = getattr(solver, method)

            def counted(*args, _original=original, **kwargs):
                seconds["iterations"] += 1
                return _original(*args, **kwargs)

            setattr(solver, method, counted)
            undo.append((solver, method))
            break
    return undo


def _replay_seconds(graph, device, repeats: int = 5) -> float:
    """Shortest wall time of replaying *graph* [s] (the same work each time: other load only adds to it)."""
    times = []
    for _ in range(repeats):
        wp.synchronize_device(device)
        start = time.perf_counter()
        wp.capture_launch(graph)
        wp.synchronize_device(device)
        times.append(time.perf_counter() - start)
    return min(times)


def profile_mode(
    name: str, num_envs: int, steps: int, warmup: int, captured: bool, device: str, record_entries: bool = True
) -> dict:
    """One scene, one stepping mode: env steps/s, stage times [s per env step] and (eager) launches.
    *record_entries*: in the eager run, also time each entry's solver call replayed from a graph."""
    spec = get_scene(name)
    scene_cfg = spec.scene_cfg(num_envs=num_envs)
    sim = launch(scene_cfg, spec.simulation_cfg(device=device, use_cuda_graph=captured))
    manager = sim.physics_manager
    try:
        frame_time = manager.get_decimation() * sim.get_physics_dt()
        controller = spec.controller
        frame = [0]

        def step() -> float:
            """One env step; returns the controller's host time."""
            t0 = time.perf_counter()
            if controller is not None:
                controller(manager, scene_cfg, frame[0] * frame_time)
            t1 = time.perf_counter()
            manager.step()
            frame[0] += 1
            return t1 - t0

        for _ in range(warmup):
            step()
        step_seconds, control_seconds = [], []
        for _ in range(steps):
            wp.synchronize_device(sim.device)
            start = time.perf_counter()
            control_seconds.append(step())
            wp.synchronize_device(sim.device)
            step_seconds.append(time.perf_counter() - start - control_seconds[-1])

        program, part = _running_program()
        stage_seconds: dict[str, float] = defaultdict(float)  # of the current env step
        per_step: list[dict[str, float]] = []  # stage and entry seconds of each timed env step
        launches_by_stage: dict[str, int] = defaultdict(int)
        extra: dict[str, float] = defaultdict(float)
        counter = _LaunchCounter()
        mark = [0]

        def timer(stage, _i, seconds) -> None:
            group = _stage_group(stage.name)
            stage_seconds[group] += seconds
            launches_by_stage[group] += counter.count - mark[0]
            mark[0] = counter.count

        saved = part.bound.save_host_state()
        program.set_stage_timer(timer)  # records one graph per captured operation (runs host code once)
        part.bound.restore_host_state(saved)
        entry_graphs: dict | None = {} if record_entries else None
        undo = [] if captured else _wrap_entries(manager.get_solver(), extra, entry_graphs, sim.device)
        try:
            if undo:
                step()  # records each entry's first call as a graph, outside the timed steps
                extra.clear()
            with counter:
                mark[0] = counter.count
                for _ in range(steps):
                    stage_seconds.clear()
                    entries_before = {k: v for k, v in extra.items() if k.startswith("entry:")}
                    step()
                    record = dict(stage_seconds)
                    record.update(
                        {k: v - entries_before.get(k, 0.0) for k, v in extra.items() if k.startswith("entry:")}
                    )
                    per_step.append(record)
        finally:
            program.set_stage_timer(None)
            for holder, attribute in undo:
                delattr(holder, attribute)
        keys = sorted({k for record in per_step for k in record})
        medians = {k: 1e3 * statistics.median(record.get(k, 0.0) for record in per_step) for k in keys}
        result = {
            "env_steps_per_s": 1.0 / statistics.median(step_seconds),
            "ms_per_env_step": 1e3 * statistics.median(step_seconds),
            "controller_ms": 1e3 * statistics.median(control_seconds),
            "stages_ms": {k: v for k, v in medians.items() if not k.startswith("entry:")},
            "step_mode": manager.step_mode(),
            "captured_stages": program.captured_stage_names(),
        }
        if not captured:
            entries = {k.split(":", 1)[1]: v for k, v in medians.items() if k.startswith("entry:")}
            result["entries_ms"] = entries
            if entries and "substeps" in result["stages_ms"]:
                result["coupling_ms"] = result["stages_ms"]["substeps"] - sum(entries.values())
            # Captured cost of each entry: its recorded call replayed alone, times its calls per env step. The
            # replays run on this (eager) simulation's buffers after the measurements above; it is closed next.
            result["entries_captured_ms"] = {
                name: 1e3 * _replay_seconds(graph, sim.device) * extra[f"calls:{name}"] / steps
                for name, graph in (entry_graphs or {}).items()
                if graph is not None
            }
            result["coupling_iterations"] = extra["iterations"] / steps
            result["kernel_launches"] = counter.count / steps
            result["launches_by_stage"] = {k: v / steps for k, v in launches_by_stage.items()}
        info = {
            "controller": controller is not None,
            "decimation": manager.get_decimation(),
            "num_substeps": manager.get_num_substeps(),
            "physics_dt": sim.get_physics_dt(),
            "entries": {e.name: type(e.solver_cfg).__name__ for e in sim.cfg.physics.solver_cfg.entries},
            "coupling": type(sim.cfg.physics.solver_cfg).__name__,
        }
        return {"info": info, **result}
    finally:
        sim.clear_instance()


def profile_scene(name: str, num_envs: int, steps: int, warmup: int, device: str) -> dict:
    captured = profile_mode(name, num_envs, steps, warmup, True, device)
    # An entry's captured cost is measured only where the solver stage really replays from a graph.
    solver_captured = "substeps" in captured["captured_stages"]
    eager = profile_mode(name, num_envs, max(1, steps // 2), min(warmup, 1), False, device, solver_captured)
    return {"scene": name, "num_envs": num_envs, **captured.pop("info"), "captured": captured, "eager": eager}


def print_profile(p: dict) -> None:
    cap, eag = p["captured"], p["eager"]
    entries = ", ".join(f"{k} ({v})" for k, v in p["entries"].items())
    print(
        f"\nScene {p['scene']}: {p['num_envs']} env(s); {p['coupling']} over {entries}; decimation {p['decimation']}, "
        f"{p['num_substeps']} substep(s) of physics dt {p['physics_dt']:.5f} s"
    )
    print(f"  step mode: captured run '{cap['step_mode']}', eager run '{eag['step_mode']}'")
    print(f"  {'':<44}{'captured':>12}{'eager':>12}")
    print(f"  {'env steps/s':<44}{cap['env_steps_per_s']:>12.2f}{eag['env_steps_per_s']:>12.2f}")
    print(f"  {'ms per env step':<44}{cap['ms_per_env_step']:>12.3f}{eag['ms_per_env_step']:>12.3f}")
    print("  stage [ms per env step, timed one operation at a time]")
    for stage in STAGE_ORDER:
        if stage in cap["stages_ms"] or stage in eag["stages_ms"]:
            c, e = cap["stages_ms"].get(stage, 0.0), eag["stages_ms"].get(stage, 0.0)
            print(f"    {stage:<42}{c:>12.3f}{e:>12.3f}")
            if stage == "substeps":
                alone = eag.get("entries_captured_ms", {})
                for entry, ms in eag.get("entries_ms", {}).items():
                    text = f"{alone[entry]:>12.3f}" if entry in alone else f"{'-':>12}"
                    print(f"      {'entry ' + entry + ' solver':<40}{text}{ms:>12.3f}")
                if "coupling_ms" in eag:
                    rest = c - sum(alone.values()) if alone else None
                    text = f"{rest:>12.3f}" if rest is not None else f"{'-':>12}"
                    print(f"      {'coupling (rest of the coupled step)':<40}{text}{eag['coupling_ms']:>12.3f}")
    c_sum, e_sum = sum(cap["stages_ms"].values()), sum(eag["stages_ms"].values())
    print(f"    {'sum of stages':<42}{c_sum:>12.3f}{e_sum:>12.3f}")
    if p["controller"]:
        print(
            f"  {'controller (host, before each step) [ms]':<44}{cap['controller_ms']:>12.3f}{eag['controller_ms']:>12.3f}"
        )
    print(f"  {'coupling iterations per env step':<44}{'':>12}{eag.get('coupling_iterations', 0):>12.0f}")
    print(f"  {'kernel launches per env step':<44}{'':>12}{eag.get('kernel_launches', 0):>12.0f}")
    by_stage = ", ".join(f"{k} {v:.0f}" for k, v in eag.get("launches_by_stage", {}).items())
    print(f"    by stage: {by_stage}", flush=True)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    add_scene_option(group, scene_names(), default="box_on_cloth_admm", what="ready scene to profile")
    group.add_argument("--all", action="store_true", help="profile every ready scene")
    add_num_envs_option(parser)
    parser.add_argument("--steps", type=positive_int, default=10, help="timed env steps (captured; eager: half)")
    parser.add_argument("--warmup", type=positive_int, default=2, help="env steps before timing")
    add_device_option(parser)
    parser.add_argument("--json", type=Path, default=None, help="also write the measurements to this JSON file")
    args = parser.parse_args(argv)
    wp.config.quiet = True
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"profile_step: device {args.device}, {os.cpu_count()} CPUs, load average {load:.2f}")
    results = []
    for name in scene_names() if args.all else [args.scene]:
        profile = profile_scene(name, args.num_envs, args.steps, args.warmup, args.device)
        print_profile(profile)
        results.append(profile)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    main()
