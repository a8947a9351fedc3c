"""Registry of ready scenes: scene modules register a :class:`SceneSpec` under a name at import.

The package only holds the registry; the scenes live outside it (the repository's top-level
``configs/`` package) and register themselves, so ``import configs`` fills the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["SceneSpec", "get_scene", "register_scene", "registered_scenes", "scene_names"]


@dataclass(frozen=True)
class SceneSpec:
    """How to build and couple one ready scene."""

    description: str
    """One-line description of the scene."""
    scene_cfg: Callable[..., Any]
    """Scene config class; called with ``num_envs=...``."""
    build: Callable[[Any, Any], None]
    """``build(builder, scene_cfg)`` adds every env to the builder."""
    coupler: Callable[[Any], Any]
    """``coupler(scene_cfg)`` returns the coupler config."""
    decimation: int = 4
    """Physics steps per env step [count]."""
    num_substeps: int = 1
    """Solver substeps per physics step [count]."""
    physics_dt: float | None = None
    """Physics step the scene is tuned for [s] (e.g. the timing of the Newton example it reproduces);
    ``None`` leaves it to the caller (``scripts/run.py --dt``)."""
    controller: Callable[[Any, Any, float], None] | None = None
    """``controller(manager, scene_cfg, t)`` writes joint targets before the env step that starts at
    simulated time ``t`` [s] (e.g. an open-loop gait); ``None`` for a passive scene."""


_SCENES: dict[str, SceneSpec] = {}


def register_scene(name: str, spec: SceneSpec) -> SceneSpec:
    """Register *spec* under *name* and return it.

    Registering the same (or an equal) spec again is a no-op, so importing a scene module twice
    is harmless; a different spec under a taken name raises ``ValueError``.
    """
    if not isinstance(spec, SceneSpec):
        raise TypeError(f"register_scene({name!r}): expected a SceneSpec, got {type(spec).__name__}")
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
        known = ", ".join(scene_names()) or "none (import the scene modules first, e.g. `import configs`)"
        raise KeyError(f"Unknown scene {name!r}; registered scenes: {known}") from None


def scene_names() -> list[str]:
    """Names of the registered scenes, sorted."""
    return sorted(_SCENES)


def registered_scenes() -> Mapping[str, SceneSpec]:
    """Read-only live view of the registry (name -> spec)."""
    return _VIEW


_VIEW: Mapping[str, SceneSpec] = MappingProxyType(_SCENES)
