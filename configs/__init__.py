"""Ready coupled scenes and tasks, one module each; every scene module registers itself on import.

``import configs`` imports the scene modules, which fills the registry of
:mod:`isaaclab_contrib.scenes` (``get_scene(name)``, ``scene_names()``) used by the main job
(``scripts/run.py --scene NAME``). :data:`SCENES` is a read-only live view of that registry:

* ``ant_on_hammock`` — a legged robot (MuJoCo ant, Steel) falling onto a pinned cloth hammock (VBD), ADMM.
* ``box_on_cloth`` — a box (Steel) pressing into a pinned cloth (VBD) through proxy coupling.
* ``box_on_cloth_admm`` — the same box and cloth coupled by ADMM contacts.
* ``grains_on_cloth`` — a particle bed (XPBD) on a pinned cloth (VBD), proxy-particle coupling.
* ``tool_in_sand`` — a rigid tool (Steel) dropped into granular material (implicit MPM, in place).

Tasks (imported on demand, they register no scene): ``press_cloth_task`` (``PressClothEnv``).

The package ``isaaclab_contrib`` never imports this package.
"""

from __future__ import annotations

from isaaclab_contrib.scenes import SceneSpec, registered_scenes

from . import ant_on_hammock, box_on_cloth, grains_on_cloth, tool_in_sand

__all__ = ["SCENES", "SceneSpec", "ant_on_hammock", "box_on_cloth", "grains_on_cloth", "tool_in_sand"]

SCENES = registered_scenes()
"""Read-only live view of the scene registry (name -> :class:`~isaaclab_contrib.scenes.SceneSpec`)."""
