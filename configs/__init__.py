"""Ready coupled scenes and tasks, one module each; every scene module registers itself on import.

``import configs`` imports the scene modules, which fills the registry of
:mod:`isaaclab_contrib.scenes` (``get_scene(name)``, ``scene_names()``) used by the main job
(``scripts/run.py --scene NAME``). :data:`SCENES` is a read-only live view of that registry:

* ``ant_on_hammock`` — a legged robot (MuJoCo ant, Steel) falling onto a pinned cloth hammock (VBD), ADMM.
* ``box_on_cloth`` — a box (Steel) pressing into a pinned cloth (VBD) through proxy coupling.
* ``box_on_cloth_admm`` — the same box and cloth coupled by ADMM contacts.
* ``grains_on_cloth`` — a particle bed (XPBD) on a pinned cloth (VBD), proxy-particle coupling.
* ``tool_in_sand`` — a rigid tool (Steel) dropped into granular material (implicit MPM, in place).

Scenes of Newton's coupled examples (same geometry and parameters; ``tests/test_newton_parity.py``
checks them against the examples, bitwise):

* ``proxy_joint_gripper`` / ``proxy_joint_gripper_harsh`` — a gripper (MuJoCo-Warp) squeezing a soft
  block (VBD) through proxy bodies and proxy joints.
* ``xpbd_vbd_coupled`` — a grain bed (XPBD) on a pinned cloth (VBD), the grain solver sees the cloth
  contact-only (hidden springs, triangles, edges).
* ``softbody_dropping_to_cloth`` — a soft block (VBD) dropped on a cloth (VBD), proxy particles.
* ``mujoco_vbd_admm`` — a ball (MuJoCo-Warp) attached under a cloth (VBD) and a pendulum with a VBD
  payload, ADMM attachment and joint constraints.

Tasks register gymnasium ids on import (they register no scene): ``arm_press_cloth_task``
(``Isaac-Arm-Press-Cloth-Direct-v0``) and ``press_cloth_task`` (``Isaac-Press-Cloth-Direct-v0``);
``scripts/train.py --task ID`` trains them with rsl-rl. Both build on ``cloth_depth_task`` (the
cloth, its center depth and the targets).

The package ``isaaclab_contrib`` never imports this package.
"""

from __future__ import annotations

from isaaclab_contrib.scenes import SceneSpec, registered_scenes

from . import (  # scenes register themselves, tasks their gymnasium ids
    ant_on_hammock,
    arm_press_cloth_task,
    box_on_cloth,
    grains_on_cloth,
    mujoco_vbd_admm,
    press_cloth_task,
    proxy_joint_gripper,
    softbody_dropping_to_cloth,
    tool_in_sand,
    xpbd_vbd_coupled,
)

__all__ = [
    "SCENES",
    "SceneSpec",
    "ant_on_hammock",
    "arm_press_cloth_task",
    "box_on_cloth",
    "grains_on_cloth",
    "mujoco_vbd_admm",
    "press_cloth_task",
    "proxy_joint_gripper",
    "softbody_dropping_to_cloth",
    "tool_in_sand",
    "xpbd_vbd_coupled",
]

SCENES = registered_scenes()
"""Read-only live view of the scene registry (name -> :class:`~isaaclab_contrib.scenes.SceneSpec`)."""
