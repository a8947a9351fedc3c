"""Registry of ready scenes: scene modules register a :class:`SceneSpec` under a name at import.

The package only holds the registry; the scenes live outside it (the repository's top-level ``configs/``
folder, installed as the package ``isaaclab_coupling_configs``) and register themselves, so
``import isaaclab_coupling_configs`` fills the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from isaaclab_contrib.physics import NewtonCfg, SimulationCfg
from isaaclab_contrib.utils.configclass import MISSING
from isaaclab_contrib.utils.validation import check_fields, nested

from .base_cfg import SceneBaseCfg
from .camera_cfg import CameraCfg

__all__ = ["SceneSpec", "get_scene", "register_scene", "registered_scenes", "scene_names", "scene_sim"]

DEFAULT_PHYSICS_DT = 1.0 / 240.0
"""Physics step of a scene that does not name its own [s]."""


def scene_sim(dt: float = DEFAULT_PHYSICS_DT, **physics: Any) -> SimulationCfg:
    """The simulation settings of a ready scene that differ from the default: physics step *dt* [s] and the
    :class:`NewtonCfg` fields in *physics*; by default decimation 4 and one substep (``scene_sim()``).

    ``SceneSpec(..., sim=scene_sim(1.0 / 600.0, decimation=10))`` states only what the scene changes.
    """
    return SimulationCfg(dt=dt, device="cpu", physics=NewtonCfg(**{"decimation": 4, **physics}))


@dataclass(frozen=True)
class SceneSpec:
    """A ready scene: its config class (which builds the scene and gives its coupler) and the timing it is tuned for."""

    scene_cfg: type[SceneBaseCfg]
    """Scene config class; ``scene_cfg(num_envs=...)`` is a scene to build."""
    description: str
    """One-line description of the scene."""
    sim: SimulationCfg = field(default_factory=scene_sim)
    """The simulation settings the scene is tuned for (e.g. the timing of the Newton example it reproduces):
    ``dt`` [s], ``physics.decimation``, ``physics.num_substeps`` and any other :class:`NewtonCfg` field, each
    stated once, here (default: :func:`scene_sim`). Its ``device`` is not used (the caller names the
    device) and its ``physics.solver_cfg`` stays unset: :func:`~isaaclab_contrib.scenes.launch` takes the
    scene's coupler."""
    controller: Callable[[Any, Any, float], None] | None = None
    """``controller(manager, scene_cfg, t)`` writes joint targets before the env step that starts at
    simulated time ``t`` [s] (e.g. an open-loop gait); ``None`` for a passive scene."""
    frames: int = 60
    """Env steps a run of the scene takes by default (``scripts/run.py`` without ``--frames``) [count]; long
    enough for the scene's checks (e.g. a whole scripted pick)."""
    viewpoint: CameraCfg | None = None
    """Where the scene's video and frames are seen from: a single-env :class:`CameraCfg` whose ``eye`` and
    ``target`` are in world coordinates [m], chosen so the ground, the deformable and the robot show whole
    (``scripts/run.py`` sets its size from ``--video_width`` / ``--video_height``). ``None``: framed
    automatically from env 0's bodies and particles at the start."""

    def simulation_cfg(
        self, *, device: str = "cpu", dt: float | None = None, use_cuda_graph: bool = True
    ) -> SimulationCfg:
        """A copy of :attr:`sim` for *device* (the solver is left unset: :func:`~isaaclab_contrib.scenes.launch`
        takes the scene's coupler).

        Args:
            device: Warp device alias.
            dt: Physics step [s]; ``None``: the scene's ``sim.dt``.
            use_cuda_graph: Capture the step program as graphs.
        """
        sim = self.sim.copy()
        sim.device = device
        if dt is not None:
            sim.dt = dt
        sim.physics.use_cuda_graph = use_cuda_graph
        return sim


_SCENES: dict[str, SceneSpec] = {}


def register_scene(name: str, spec: SceneSpec) -> SceneSpec:
    """Register *spec* under *name* and return it.

    Registering the same (or an equal) spec again is a no-op, so importing a scene module twice is
    harmless; a different spec under a taken name raises ``ValueError``.
    """
    if not isinstance(spec, SceneSpec):
        raise TypeError(f"register_scene({name!r}): expected a SceneSpec, got {type(spec).__name__}")
    if not (isinstance(spec.scene_cfg, type) and issubclass(spec.scene_cfg, SceneBaseCfg)):
        raise TypeError(
            f"register_scene({name!r}): SceneSpec.scene_cfg must be a SceneBaseCfg subclass, got {spec.scene_cfg!r}"
        )
    sim = spec.sim
    if not isinstance(sim, SimulationCfg) or not isinstance(sim.physics, NewtonCfg):
        raise TypeError(
            f"register_scene({name!r}): SceneSpec.sim must be a SimulationCfg with a NewtonCfg physics, got {sim!r}"
        )
    if sim.physics.solver_cfg is not MISSING:
        raise ValueError(
            f"register_scene({name!r}): SceneSpec.sim.physics.solver_cfg must stay unset: the scene config's "
            "coupler_cfg() is the solver"
        )
    with nested(f"register_scene({name!r}): SceneSpec.sim"):
        check_fields(sim)
        check_fields(sim.physics)
    viewpoint = spec.viewpoint
    if viewpoint is not None:
        if not isinstance(viewpoint, CameraCfg):
            raise TypeError(
                f"register_scene({name!r}): SceneSpec.viewpoint must be a CameraCfg or None, got {type(viewpoint).__name__}"
            )
        viewpoint.validate()
        if viewpoint.env_index is None or viewpoint.body is not None:
            raise ValueError(
                f"register_scene({name!r}): SceneSpec.viewpoint must be a fixed single-env camera (env_index set, no body)"
            )
    existing = _SCENES.get(name)
    if existing is not None and existing is not spec and existing != spec:
        raise ValueError(f"Scene {name!r} is already registered with a different spec ({existing.description!r})")
    _SCENES[name] = spec if existing is None else existing
    return _SCENES[name]


def get_scene(name: str) -> SceneSpec:
    """Return the spec registered under *name*; ``KeyError`` lists the known names."""
    try:
        return _SCENES[name]
    except KeyError:
        known = ", ".join(scene_names()) or "none (import the scene modules first: `import isaaclab_coupling_configs`)"
        raise KeyError(f"Unknown scene {name!r}; registered scenes: {known}") from None


def scene_names() -> list[str]:
    """Names of the registered scenes, sorted."""
    return sorted(_SCENES)


def registered_scenes() -> Mapping[str, SceneSpec]:
    """Read-only live view of the registry (name -> spec)."""
    return _VIEW


_VIEW: Mapping[str, SceneSpec] = MappingProxyType(_SCENES)
