"""The start-up sequence of a simulation, written once: :func:`launch`; and :func:`build_model` for a model alone.

``launch(scene, sim)`` does what every script, env, benchmark and test would otherwise write out::

    SimulationContext(sim) -> manager.create_builder() -> scene.build(builder, manager.cl_world_sites())
    -> manager.set_builder(builder) -> sim.reset()  # finalize, resolve, build the solver, warm up, record once

with the decimation of ``sim.physics.decimation``, so ``sim.reset()`` records the step program once (no
``set_decimation`` afterwards).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import newton

from isaaclab_contrib.coupling import finalize_builder, prepare_builder
from isaaclab_contrib.physics import SimulationCfg, SimulationContext
from isaaclab_contrib.utils.configclass import MISSING, is_configclass

from .base_cfg import SceneBaseCfg
from .camera_cfg import CameraCfg, frame_env

__all__ = ["build_model", "copy_config", "launch"]

SceneLike = SceneBaseCfg | Callable[[newton.ModelBuilder], Any]
"""A scene config, or a function ``build(builder)`` that fills a builder."""


def copy_config(value: Any) -> Any:
    """A copy of the config *value* whose configs, lists, tuples and dicts are new objects and whose other
    values (callables such as hooks, classes, arrays) are the same objects.

    ``copy.deepcopy`` would also copy the object behind a bound-method hook, so the hook would no longer
    report to the caller's object.
    """
    if is_configclass(value) and not isinstance(value, type):
        new = copy.copy(value)
        for f in dataclasses.fields(value):
            object.__setattr__(new, f.name, copy_config(getattr(value, f.name)))
        return new
    if isinstance(value, list):
        return [copy_config(v) for v in value]
    if isinstance(value, tuple):
        return tuple(copy_config(v) for v in value)
    if isinstance(value, dict):
        return {k: copy_config(v) for k, v in value.items()}
    return value


def _solver_for(scene: SceneLike, sim: SimulationCfg) -> None:
    """Give *sim* (a copy) the scene's coupler when its solver is unset."""
    physics = sim.physics
    if physics is MISSING or physics.solver_cfg is not MISSING:
        return
    if not isinstance(scene, SceneBaseCfg):
        raise ValueError(
            "launch(): sim.physics.solver_cfg is unset and the scene is a build function; set the solver config "
            "or pass a scene config, whose coupler_cfg() is then used"
        )
    physics.solver_cfg = scene.coupler_cfg()


def _add_camera(manager: Any, camera: CameraCfg, builder: Any = None) -> int:
    """Register *camera* on *manager* (per-env cameras before the build, single-env ones after it)."""
    from isaaclab_contrib.physics.sensors.camera import look_at

    eye, target = camera.eye, camera.target
    if eye is None:
        eye, target = frame_env(builder, camera.env_index, camera)
    return manager.add_camera_sensor(
        camera.width,
        camera.height,
        xform=look_at(eye, target, camera.up),
        body_pattern=camera.body,
        fov=camera.fov,
        data_types=camera.data_types,
        env_index=camera.env_index,
    )


def launch(
    scene: SceneLike,
    sim: SimulationCfg,
    cameras: Sequence[CameraCfg] = (),
    setup: Callable[[type], None] | None = None,
    *,
    validated: bool = False,
) -> SimulationContext:
    """Create the simulation context, build *scene* into the manager's builder and start the simulation.

    ``SimulationContext(sim) -> create_builder() -> scene.build(builder, sites) -> set_builder(builder) ->
    sim.reset()``, where *sites* are the per-env sites the cameras requested (``manager.cl_world_sites()``), which
    the scene's env replication gives every env. Each config is validated once: the scene here, the simulation
    settings (and the solver) by ``SimulationContext`` (neither, when the caller says it has: *validated*). Nothing passed in is modified: *scene* and *sim* are
    copied first (configs, lists and dicts; hooks are shared), so the runtime's write-back of resolved proxy
    body ids lands in the copy (``context.cfg.physics.solver_cfg``).

    Args:
        scene: A scene config (:class:`SceneBaseCfg`: validated, then added with its ``add_to_builder(builder,
            sites)``), or a function ``build(builder)`` (it replicates its envs itself: with per-env cameras, it
            passes ``manager.cl_world_sites()`` to :func:`~isaaclab_contrib.scenes.replicate_envs`).
        sim: The simulation settings. ``sim.physics.decimation`` is the decimation ``sim.reset()`` records the
            step program with. When ``sim.physics.solver_cfg`` is unset (``MISSING``), the scene's
            ``coupler_cfg()`` is the solver.
        cameras: Cameras to add (:class:`~isaaclab_contrib.scenes.CameraCfg`); camera ``i`` of the list is
            ``NewtonCouplerManager.get_camera_sensor(i)``. Per-env ones are added before the scene is built,
            single-env ones after it (framed from the built env when their ``eye`` is ``None``).
        setup: Called with the manager class once the builder is set, right before ``sim.reset()``: add
            sensors there (``add_interface_force_sensor(...)``...) so the step program is recorded once.
        validated: The caller has just validated *scene* and *sim* (with the solver set, as an env config's
            ``validate()`` does), so neither is checked again; the coupler is still checked against the scene.

    Returns:
        The active :class:`~isaaclab_contrib.physics.SimulationContext`, reset; its ``physics_manager`` is the
        manager class (e.g. :class:`~isaaclab_contrib.coupling.NewtonCouplerManager`). Close it with
        ``clear_instance()``.

    Raises:
        RuntimeError: A simulation context is already active (the message names it; it keeps working).
        TypeError / ValueError: A bad config, before anything is created.
        Exception: Whatever building or ``sim.reset()`` raised; the context created here was cleared first,
            so the manager is back to pristine.
    """
    if not isinstance(sim, SimulationCfg):
        raise TypeError(f"launch(): sim must be a SimulationCfg, got {type(sim).__name__}")
    if not isinstance(scene, SceneBaseCfg) and not callable(scene):
        raise TypeError(
            f"launch(): scene must be a SceneBaseCfg or a build(builder) function, got {type(scene).__name__}"
        )
    active = SimulationContext.instance()
    if active is not None:
        raise RuntimeError(
            f"launch(): a simulation context is already active: {active!r}. Only one simulation runs at a time; "
            "call its clear_instance() first."
        )
    if setup is not None and not callable(setup):
        raise TypeError(f"launch(): setup must be callable or None, got {type(setup).__name__}")
    cameras = list(cameras)
    for i, camera in enumerate(cameras):
        if not isinstance(camera, CameraCfg):
            raise TypeError(f"launch(): cameras[{i}] must be a CameraCfg, got {type(camera).__name__}")
        camera.validate()
    kinds = [camera.env_index is None for camera in cameras]
    if kinds != sorted(kinds, reverse=True):
        raise ValueError(
            "launch(): list the per-env cameras (env_index=None) before the single-env ones, so that camera i of "
            "the list is get_camera_sensor(i) (per-env cameras are added before the scene is built)"
        )
    scene = copy_config(scene)
    sim = copy_config(sim)
    if isinstance(scene, SceneBaseCfg) and not validated:
        scene.validate()
    _solver_for(scene, sim)
    if isinstance(scene, SceneBaseCfg):
        scene.check_coupler(sim.physics.solver_cfg)
    context = SimulationContext(sim, validated=validated)
    try:
        manager = context.physics_manager
        indices = {i: _add_camera(manager, c) for i, c in enumerate(cameras) if c.env_index is None}
        builder = manager.create_builder()
        if isinstance(scene, SceneBaseCfg):
            scene.add_to_builder(builder, manager.cl_world_sites())  # validated above
        else:
            scene(builder)
        indices.update({i: _add_camera(manager, c, builder) for i, c in enumerate(cameras) if c.env_index is not None})
        assert all(indices[i] == i for i in indices)  # checked above: per-env cameras come first
        manager.set_builder(builder)
        if setup is not None:
            setup(manager)
        context.reset()
    except BaseException:
        context.clear_instance()
        raise
    return context


def build_model(scene: SceneBaseCfg, coupler: Any = None, *, device: str = "cpu") -> tuple[newton.Model, Any]:
    """Finalize *scene* into a ``newton.Model`` for a coupler, without a simulation (no solver is built).

    ``prepare_builder -> scene.build -> finalize_builder -> builder.finalize``: the model the manager would
    build for the same scene, for ownership reports and plain Newton loops.

    Args:
        scene: The scene config.
        coupler: The coupler config; ``None``: ``scene.coupler_cfg()``.
        device: Warp device of the model.

    Returns:
        ``(model, coupler)``.
    """
    if not isinstance(scene, SceneBaseCfg):
        raise TypeError(f"build_model(): scene must be a SceneBaseCfg, got {type(scene).__name__}")
    coupler = scene.coupler_cfg() if coupler is None else coupler
    scene.check_coupler(coupler)
    builder = newton.ModelBuilder()
    prepare_builder(builder, coupler)
    scene.build(builder)
    finalize_builder(builder, coupler)
    return builder.finalize(device=device), coupler
