"""USD without Kit: reading ``pxr`` stages into Newton builders (:mod:`.stage_io`), writing poses and
particles back, and authoring edits such as a fixed articulation root (:mod:`.authoring`)."""

from isaaclab_contrib.physics.usd.authoring import fix_articulation_root
from isaaclab_contrib.physics.usd.stage_io import author_body_prims, set_time_range, write_body_transforms, write_points

__all__ = ["author_body_prims", "fix_articulation_root", "set_time_range", "write_body_transforms", "write_points"]
