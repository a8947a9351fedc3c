"""Main job: run a ready coupled scene through NewtonCouplerManager, report, and record it.

Writes into ``--output``: ``<scene>.usda`` (time-sampled body transforms and particle points;
open it with ``usdview``), ``<scene>.png`` (body heights and lowest particle per env over time) and
``<scene>.mp4`` (env 0 through a ray-traced camera from the scene's declared viewpoint, 640 x 480, rendered
after each env step outside the captured physics; ``--no-video`` to skip).

Usage::

    python scripts/run.py [--scene ant_on_hammock] [--num_envs 1] [--frames 60] [--dt SECONDS]
                          [--device cpu] [--output output] [--eager]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import warp as wp
from tqdm import tqdm

import isaaclab_coupling_configs  # noqa: F401  (registers the ready scenes)
from isaaclab_contrib.physics.usd.stage_io import author_body_prims, set_time_range
from isaaclab_contrib.scenes import CameraCfg, copy_config, get_scene, launch, make_viewport, scene_names
from isaaclab_contrib.utils.cli import (
    add_device_option,
    add_num_envs_option,
    add_scene_option,
    even_pixels,
    positive_float,
    positive_int,
    writable_dir,
)
from isaaclab_contrib.utils.video import VideoWriter


def print_summary(name: str, spec, coupler, manager, num_envs: int, device: str) -> None:
    plan = manager.get_coupling_plan()
    solver = manager.get_solver()
    newton_cls = next(c for c in type(solver).__mro__ if c.__module__.startswith("newton"))
    print(f"Scene {name!r}: {spec.description}; {num_envs} env(s), device {device}")
    print(
        f"Coupling: {type(coupler).__name__} -> newton {newton_cls.__name__}; decimation {manager.get_decimation()}, "
        f"{manager.get_num_substeps()} solver substep(s) per physics step of {manager.get_physics_dt():.5f} s"
    )
    print(
        f"{'entry':<9}{'solver':<16}{'substeps':>9}{'bodies':>7}{'joints':>7}{'shapes':>7}{'particles':>10}  sees static"
    )
    for entry in coupler.entries:
        own = plan.entries[entry.name]
        print(
            f"{entry.name:<9}{type(entry.solver_cfg).__name__:<16}{entry.substeps:>9}{len(own.bodies):>7}"
            f"{len(own.joints):>7}{len(own.shapes):>7}{len(own.particles):>10}  {own.sees_static_shapes}"
        )
    for proxy in plan.proxies:
        print(
            f"proxy: {proxy.source} -> {proxy.destination}: {len(proxy.bodies)} bodies, {len(proxy.particles)} particles"
        )
    if plan.contact_pairs:
        print(f"ADMM contact pairs: {plan.contact_pairs}")
    mode = manager.step_mode()
    if mode == "captured":
        print("Stepping: captured -- the decimation loop is one graph replayed every env step")
    elif mode == "partial":
        print(f"Stepping: partly captured -- graphs replayed, some stages eager: {manager.eager_reason()}")
    else:
        print(f"Stepping: eager -- {manager.eager_reason()}")


def particle_ranges_by_world(model) -> list[tuple[int, int, int]]:
    """(world, offset, count) of each contiguous run of particles of one world."""
    worlds = model.particle_world.numpy() if model.particle_count else np.zeros(0, dtype=int)
    runs = []
    start = 0
    for i in range(1, len(worlds) + 1):
        if i == len(worlds) or worlds[i] != worlds[start]:
            runs.append((int(worlds[start]), start, i - start))
            start = i
    return runs


def prepare_stage(path: Path, manager):
    from pxr import Usd, UsdGeom, Vt

    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    model = manager.get_model()
    author_body_prims(stage, model)
    manager.attach_stage(stage)
    radii = model.particle_radius.numpy() if model.particle_count else np.zeros(0)
    for world, offset, count in particle_ranges_by_world(model):
        prim_path = f"/World/envs/env_{world}/Particles" if world >= 0 else f"/World/Particles_{offset}"
        points = UsdGeom.Points.Define(stage, prim_path)
        points.CreateWidthsAttr(Vt.FloatArray([float(2.0 * r) for r in radii[offset : offset + count]]))
        manager.register_particle_visual_prim(prim_path, offset, count)
    return stage


def plot(path: Path, times, heights, lowest, title: str, joints: dict | None = None) -> None:
    """Heights and lowest particles per env; with *joints* (name -> (targets, positions) of env 0 [rad])
    a third panel shows joint position targets against the joint positions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3 if joints else 2, figsize=(16 if joints else 11, 4))
    if joints:
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for k, (name, (target, position)) in enumerate(joints.items()):
            color = colors[k % len(colors)]
            axes[2].plot(times, target, "--", color=color, linewidth=1.0)
            axes[2].plot(times, position, "-", color=color, linewidth=1.2, label=name)
        axes[2].set(title="env 0 joints: target (dashed) vs position", xlabel="time [s]", ylabel="angle [rad]")
    for env in range(heights.shape[1]):
        if heights.shape[2]:
            axes[0].plot(times, heights[:, env, :].mean(axis=1), label=f"env {env}")
        if lowest.shape[1]:
            axes[1].plot(times, lowest[:, env], label=f"env {env}")
    axes[0].set(title="mean body height", xlabel="time [s]", ylabel="z [m]")
    axes[1].set(title="lowest particle (cloth sag / bed)", xlabel="time [s]", ylabel="z [m]")
    for ax in axes[:2]:
        ax.grid(alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "none in this scene", ha="center", va="center", transform=ax.transAxes)
    if joints:
        axes[2].grid(alpha=0.3)
        axes[2].legend(fontsize=7, ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_summary(
    path: Path, args, spec, manager, step_time: float, render_time: float | None, results: dict, passed: bool
) -> dict:
    """Write the run's JSON summary beside the USD and PNG: stepping mode (and the eager stage, if any), speed,
    the video's size and render cost, the scene's checks (value, bound, pass) and whether all passed; returns it."""
    summary = {
        "scene": args.scene,
        "description": spec.description,
        "num_envs": args.num_envs,
        "frames": args.frames,
        "physics_dt": args.dt,
        "decimation": manager.get_decimation(),
        "num_substeps": manager.get_num_substeps(),
        "simulated_s": manager.get_simulation_time(),
        "device": args.device,
        "step_mode": manager.step_mode(),
        "eager_reason": manager.eager_reason(),
        "env_steps_per_s": args.frames / step_time,
        "video": None
        if render_time is None
        else {"width": args.video_width, "height": args.video_height, "render_s_per_frame": render_time / args.frames},
        "checks": {name: r.to_dict() for name, r in results.items()},
        "passed": passed,
    }
    path.write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_option(parser, scene_names(), what="ready scene to run")
    add_num_envs_option(parser)
    parser.add_argument(
        "--frames", type=positive_int, default=None, help="env steps to run and record; default: the scene's own"
    )
    parser.add_argument(
        "--dt", type=positive_float, default=None, help="physics step [s]; default: the scene's own (SceneSpec.sim.dt)"
    )
    add_device_option(parser)
    parser.add_argument(
        "--output", type=writable_dir, default="output", help="folder for the .usda animation, the .png plot, the video"
    )
    parser.add_argument("--eager", action="store_true", help="do not capture the decimation loop as a graph")
    parser.add_argument(
        "--video",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="write <scene>.mp4: env 0 from the scene's viewpoint, one frame per env step, rendered after the step "
        "outside the captured physics (default on)",
    )
    parser.add_argument("--video_width", type=even_pixels, default=640, help="video width [pixels], even, <= 4096")
    parser.add_argument("--video_height", type=even_pixels, default=480, help="video height [pixels], even, <= 4096")
    args = parser.parse_args(argv)

    wp.config.quiet = True
    spec = get_scene(args.scene)
    args.frames = args.frames or spec.frames
    scene_cfg = spec.scene_cfg(num_envs=args.num_envs)
    sim_cfg = spec.simulation_cfg(device=args.device, dt=args.dt, use_cuda_graph=not args.eager)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    viewpoint = copy_config(spec.viewpoint) if spec.viewpoint is not None else CameraCfg()
    viewpoint.width, viewpoint.height = args.video_width, args.video_height
    viewpoint.validate()  # refuses a size outside [1, 4096] before anything is built
    start = time.perf_counter()
    sim = launch(scene_cfg, sim_cfg)
    manager = sim.physics_manager
    video = viewport = None
    try:
        if args.video:
            viewport = make_viewport(manager, viewpoint, scene_cfg)
            video = VideoWriter(out / f"{args.scene}.mp4", fps=1.0 / (manager.get_decimation() * sim.get_physics_dt()))
        args.dt = sim.get_physics_dt()
        coupler = sim.cfg.physics.solver_cfg
        print(
            f"Initialized in {time.perf_counter() - start:.1f} s (build, finalize, ownership, solver, warm-up, capture)"
        )
        print_summary(args.scene, spec, coupler, manager, args.num_envs, sim.device)

        model = manager.get_model()
        body_world = model.body_world.numpy() if model.body_count else np.zeros(0, dtype=int)
        particle_world = model.particle_world.numpy() if model.particle_count else np.zeros(0, dtype=int)
        stage = prepare_stage(out / f"{args.scene}.usda", manager)
        frame_time = manager.get_decimation() * args.dt
        set_time_range(stage, 0, args.frames, 1.0 / frame_time)
        bodies_per_env = max(1, int(np.sum(body_world == 0))) if model.body_count else 0
        times, heights, lowest = [], [], []
        controller = spec.controller
        joint_names = manager.joint_view_columns("joint_target_q") if controller else []
        targets, positions = [], []
        if controller:
            joint_q = manager.joint_view("joint_q")
            joint_target_q = manager.joint_view("joint_target_q")

        def record(frame: int) -> None:
            state = manager.get_state_0()
            manager.sync_transforms_to_usd(time_code=frame)
            manager.sync_particles_to_usd(time_code=frame)
            if model.particle_count:  # assets that write themselves back (USD-authored deformables)
                scene_cfg.write_usd(stage, state.particle_q.numpy(), frame)
            z = state.body_q.numpy()[:, 2] if model.body_count else np.zeros(0)
            heights.append(np.stack([z[body_world == e][:bodies_per_env] for e in range(args.num_envs)]))
            pz = state.particle_q.numpy()[:, 2] if model.particle_count else np.zeros(0)
            lowest.append([pz[particle_world == e].min() for e in range(args.num_envs)] if pz.size else [])
            times.append(frame * frame_time)
            if controller:
                targets.append(joint_target_q[0].cpu().numpy().copy())
                positions.append(joint_q[0].cpu().numpy().copy())

        record(0)
        checks = scene_cfg.checks()  # the scene's success checks, recorded after every env step
        for check in checks:
            check.start(manager)
        step_time, render_time = 0.0, 0.0
        for frame in tqdm(range(1, args.frames + 1), desc="env steps", unit="step"):
            t0 = time.perf_counter()
            if controller:
                controller(manager, scene_cfg, (frame - 1) * frame_time)
            manager.step()
            wp.synchronize()
            step_time += time.perf_counter() - t0
            record(frame)
            for check in checks:
                check.record(manager, frame * frame_time)
            if video is not None:  # after the step, outside the captured program: a video is not an observation
                t0 = time.perf_counter()
                video.write(viewport.render(manager.get_state_0()))
                render_time += time.perf_counter() - t0
        stage.GetRootLayer().Save()
        video_path = video.close() if video is not None else None
        heights_arr, lowest_arr = np.array(heights), np.array(lowest).reshape(len(times), -1)
        joints = None
        if controller:
            # Targets are written before each step, so each record holds the targets its step ran with.
            tgt, pos = np.array(targets), np.array(positions)
            driven = [i for i, name in enumerate(joint_names) if np.ptp(tgt[:, i]) > 0.0]
            joints = {joint_names[i]: (tgt[:, i], pos[:, i]) for i in driven}
        plot(
            out / f"{args.scene}.png",
            np.array(times),
            heights_arr,
            lowest_arr,
            f"{args.scene}: {spec.description}",
            joints,
        )

        state = manager.get_state_0()
        finite = all(
            np.isfinite(array.numpy()).all() for array in (state.body_q, state.particle_q) if array is not None
        )
        print(
            f"\nSimulated {manager.get_simulation_time():.2f} s: {args.frames / step_time:.1f} env steps/s "
            f"({args.frames * args.num_envs / step_time:.1f} across envs), stepping only"
        )
        if video is not None:
            print(
                f"Video: {args.video_width} x {args.video_height}, {render_time / args.frames * 1e3:.1f} ms a frame "
                f"(rendered after each step; {render_time / step_time:.2f} x the stepping time)"
            )
        for env in range(args.num_envs):
            body = f"mean body height {heights_arr[-1, env].mean():.3f} m" if heights_arr.shape[2] else "no bodies"
            part = f", lowest particle {lowest_arr[-1, env]:.3f} m" if lowest_arr.shape[1] else ""
            print(f"env {env}: {body}{part}")
        print(f"All values finite: {finite}")
        results = {r.name: r for r in (check.result(manager) for check in checks)}
        for r in results.values():
            print(f"check {r.name}: {r.value:.4g} {r.unit} (expected {r.expected}) {'PASS' if r.passed else 'FAIL'}")
        passed = finite and all(r.passed for r in results.values())
        summary = write_summary(
            out / f"{args.scene}.json", args, spec, manager, step_time, render_time if video else None, results, passed
        )
        written = [out / f"{args.scene}.usda", out / f"{args.scene}.png", *([video_path] if video_path else [])]
        written.append(out / f"{args.scene}.json")
        print("Wrote " + ", ".join(str(path) for path in written))
        return {
            "finite": finite,
            "usda": out / f"{args.scene}.usda",
            "png": out / f"{args.scene}.png",
            "mp4": video_path,
            "heights": heights_arr,
            "lowest": lowest_arr,
            "captured": manager.is_graph_captured(),
            "step_mode": manager.step_mode(),
            "env_steps_per_s": args.frames / step_time,
            "render_s": render_time if video is not None else None,
            "joints": joints,
            "checks": results,
            "passed": passed,
            "summary": summary,
        }
    finally:
        sim.clear_instance()


if __name__ == "__main__":
    # A simulation that ended with non-finite values or failed one of the scene's checks is a failed run.
    sys.exit(0 if main()["passed"] else 1)
