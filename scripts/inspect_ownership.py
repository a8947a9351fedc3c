"""Ownership report of a ready scene: entries x owned bodies / joints / shapes / particles.

The first thing to run when a body falls through the floor: it shows which entry owns which
elements, which entries see static geometry, what no entry owns, and the proxy and contact-pair
interfaces. Builds and finalizes the model only (no solver is constructed).

    python scripts/inspect_ownership.py --scene ant_on_hammock --num-envs 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import newton
import warp as wp

from isaaclab_contrib.coupling import finalize_builder, prepare_builder
from isaaclab_contrib.coupling.report import ownership_report
from isaaclab_contrib.scenes import get_scene, scene_names
from isaaclab_contrib.utils.cli import nonnegative_int, positive_int

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds `configs/` (not installed)
import configs  # noqa: F401  (registers the ready scenes)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scene", choices=scene_names(), default="ant_on_hammock")
    parser.add_argument("--num-envs", type=positive_int, default=2)
    parser.add_argument("--examples", type=nonnegative_int, default=3, help="example labels shown per list")
    args = parser.parse_args(argv)
    wp.config.quiet = True

    spec = get_scene(args.scene)
    scene_cfg = spec.scene_cfg(num_envs=args.num_envs)
    coupler = spec.coupler(scene_cfg)
    builder = newton.ModelBuilder()
    prepare_builder(builder, coupler)
    spec.build(builder, scene_cfg)
    finalize_builder(builder, coupler)
    model = builder.finalize(device="cpu")
    report = ownership_report(model, coupler, examples=args.examples)
    print(report)
    return report


if __name__ == "__main__":
    main()
