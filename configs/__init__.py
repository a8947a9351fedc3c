"""Ready coupled scenes and tasks, one module each; every scene module registers itself on import.

This folder (``configs/`` in the repository) is installed as the package ``isaaclab_coupling_configs``.
``import isaaclab_coupling_configs`` imports the scene modules, which fills the registry of
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
* ``vbd_mpm_coupled`` — a soft cube (VBD) falling into a granular heap (implicit MPM, out of place), its
  surface the MPM entry's deformable collider over proxy particles.

Robots from files (the Franka Panda, MuJoCo-Warp, from ``example-robot-data``; a USD stage):

* ``franka_lift_soft`` — the Panda picks up a 4 cm soft block (VBD) through proxy bodies.
* ``franka_lift_cable`` — the Panda lifts one end of a 30 cm VBD cable, ADMM.
* ``franka_cloth`` — the Panda pinches a free cloth (VBD) near a corner and lifts it, proxy bodies.
* ``usd_cloth_on_robot`` — a USD-authored cloth drapes over a USD-authored robot, which turns, proxy bodies.

Every module in the folder is imported (a new scene or task is one new file). Tasks register gymnasium
ids on import (they register no scene): ``arm_press_cloth_task``
(``Isaac-Arm-Press-Cloth-Direct-v0``, ``Isaac-Arm-Press-Cloth-Coupler-Obs-Direct-v0``),
``press_cloth_task`` (``Isaac-Press-Cloth-Direct-v0``) and ``press_cloth_camera_task``
(``Isaac-Press-Cloth-Depth-Camera-Direct-v0``), which build on ``cloth_depth_task`` (the cloth, its
center depth and the targets), and ``franka_lift_task`` (``Isaac-Lift-Soft-Franka-Direct-v0``,
``Isaac-Lift-Soft-Franka-Coarse-Direct-v0``, ``Isaac-Lift-Cloth-Franka-Direct-v0``) on the Franka scenes.
Manager-based tasks (Isaac Lab's ``ManagerBasedRLEnvCfg``, terms from ``isaaclab_contrib.envs.mdp``):
``arm_press_cloth_manager_task`` (``Isaac-Arm-Press-Cloth-v0``, the arm task term for term), ``lift_franka``
(Isaac Lab's ``Isaac-Lift-{Soft,Cloth,Cable}-Franka-v0``), ``lift_franka_camera`` (their ``-Camera-v0``
variants) and ``lift_franka_ik`` (their ``-IK-Abs-v0`` variants, acting through the ``ik`` preset).
``scripts/train.py --task ID`` trains them with rsl-rl.

The package ``isaaclab_contrib`` never imports this package.
"""

from __future__ import annotations

if __name__ != "isaaclab_coupling_configs":  # one name only: a module imported twice registers twice
    raise ImportError(
        f"the repository's configs/ folder is the package 'isaaclab_coupling_configs' (imported here as {__name__!r}); "
        "install the repository (pip install -e .) and import isaaclab_coupling_configs"
    )

import importlib
import pkgutil

from isaaclab_contrib.scenes import SceneSpec, registered_scenes

MODULES = sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))
"""The scene and task modules of this package: every module in the folder, imported below (a new scene or
task is one new file)."""

for _name in MODULES:  # scenes register themselves, tasks their gymnasium ids
    globals()[_name] = importlib.import_module(f"{__name__}.{_name}")

__all__ = ["MODULES", "SCENES", "SceneSpec", *MODULES]

SCENES = registered_scenes()
"""Read-only live view of the scene registry (name -> :class:`~isaaclab_contrib.scenes.SceneSpec`)."""
