"""Benchmark: ownership resolution for many worlds of a 20-body robot on a pinned cloth.

Builds ``--worlds`` envs, each a 20-link robot (free base + 19 revolute links, one capsule per
link, Isaac Lab-style labels) above an 8x8 cloth, plus a ground plane, and times
``resolve_coupling`` for a two-entry ADMM config (robot links by one path regex, all cloth
particles). Prints the model build time, the best and median resolution time over ``--repeats``
runs, and the ratio to the one-second target.

    python scripts/benchmark_ownership.py --worlds 4096
"""

from __future__ import annotations

import argparse
import statistics
import time

import newton
import warp as wp

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg, resolve_coupling
from isaaclab_contrib.physics import SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.scenes import InitialStateCfg, PinnedClothCfg
from isaaclab_contrib.utils.cli import positive_int

LINKS = 20


def robot_prototype() -> newton.ModelBuilder:
    proto = newton.ModelBuilder()
    previous = -1
    joints = []
    for i in range(LINKS):
        name = "base" if i == 0 else f"link{i}"
        body = proto.add_link(xform=wp.transform((0.1 * i, 0.0, 1.0), wp.quat_identity()), label=f"Robot/{name}")
        proto.add_shape_capsule(body, radius=0.02, half_height=0.04, label=f"Robot/{name}/collision")
        if previous < 0:
            joints.append(proto.add_joint_free(body, label="Robot/root_joint"))
        else:
            joints.append(
                proto.add_joint_revolute(
                    previous,
                    body,
                    parent_xform=wp.transform((0.05, 0.0, 0.0), wp.quat_identity()),
                    child_xform=wp.transform((-0.05, 0.0, 0.0), wp.quat_identity()),
                    axis=(0.0, 1.0, 0.0),
                    label=f"Robot/joint{i}",
                )
            )
        previous = body
    proto.add_articulation(joints, label="Robot")
    PinnedClothCfg(fix_right=False, init_state=InitialStateCfg(pos=(0.0, 0.0, 0.2))).add_to(proto, "Cloth")
    return proto


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", type=positive_int, default=4096)
    parser.add_argument("--repeats", type=positive_int, default=5)
    args = parser.parse_args()
    wp.config.quiet = True

    start = time.perf_counter()
    builder = newton.ModelBuilder()
    builder.replicate(
        robot_prototype(),
        args.worlds,
        spacing=(2.0, 2.0, 0.0),
        label_prefixes=[f"/World/envs/env_{i}" for i in range(args.worlds)],
    )
    builder.add_ground_plane(label="/World/ground")
    model = builder.finalize(device="cpu", skip_all_validations=True)
    build = time.perf_counter() - start

    cfg = CouplerAdmmCfg(
        entries=[
            CouplerEntryCfg(
                name="robot",
                solver_cfg=SteelSolverCfg(),
                bodies=["/World/envs/env_.*/Robot"],
                include_static_shapes=True,
            ),
            CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(), all_particles=True),
        ]
    )
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        plan = resolve_coupling(model, cfg)
        times.append(time.perf_counter() - start)
    robot = plan.entries["robot"]
    assert len(robot.bodies) == LINKS * args.worlds and len(robot.joints) == LINKS * args.worlds

    best, median = min(times), statistics.median(times)
    print(
        f"model: {args.worlds} worlds x {LINKS} bodies = {model.body_count} bodies, {model.joint_count} joints, "
        f"{model.shape_count} shapes, {model.particle_count} particles (built in {build:.1f} s)"
    )
    print(f"resolve_coupling: best {best * 1e3:.0f} ms, median {median * 1e3:.0f} ms over {args.repeats} runs")
    print(f"ratio to the 1 s target: {median / 1.0:.2f} ({'within' if median < 1.0 else 'OVER'} target)")


if __name__ == "__main__":
    main()
