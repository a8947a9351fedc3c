"""Ownership report of a ready scene: entries x owned bodies / joints / shapes / particles.

The first thing to run when a body falls through the floor: it shows which entry owns which
elements, which entries see static geometry, what no entry owns, and the proxy and contact-pair
interfaces. Builds and finalizes the model only (no solver is constructed).

    python scripts/inspect_ownership.py --scene ant_on_hammock --num-envs 2
"""

from __future__ import annotations

import argparse

import warp as wp

import isaaclab_coupling_configs  # noqa: F401  (registers the ready scenes)
from isaaclab_contrib.coupling.report import ownership_report
from isaaclab_contrib.scenes import build_model, get_scene, scene_names
from isaaclab_contrib.utils.cli import add_device_option, add_num_envs_option, add_scene_option, nonnegative_int


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_option(parser, scene_names())
    add_num_envs_option(parser, default=2)  # two envs show how the selections repeat per env
    add_device_option(parser)
    parser.add_argument("--examples", type=nonnegative_int, default=3, help="example labels shown per list")
    args = parser.parse_args(argv)
    wp.config.quiet = True

    scene_cfg = get_scene(args.scene).scene_cfg(num_envs=args.num_envs)
    model, coupler = build_model(scene_cfg, device=args.device)  # the model the manager would build; no solver
    report = ownership_report(model, coupler, examples=args.examples)
    print(report)
    return report


if __name__ == "__main__":
    main()
