"""What every coupled env config holds, direct or manager-based: the simulation, the scene, the decimation and
the cameras, validated together (each once per env start)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from isaaclab_contrib.physics import NewtonCfg, SimulationCfg
from isaaclab_contrib.scenes import CameraCfg, SceneBaseCfg, copy_config
from isaaclab_contrib.utils.configclass import MISSING, MissingFieldError, configclass
from isaaclab_contrib.utils.validation import check_fields, nested

__all__ = ["CoupledEnvCfgBase"]


@configclass
class CoupledEnvCfgBase:
    """The simulation, scene, decimation and cameras of an env (the fields Isaac Lab's env configs share)."""

    _ranges: ClassVar[dict[str, str]] = {"decimation": ">= 1"}

    sim: SimulationCfg = SimulationCfg(dt=1.0 / 240.0, device="cpu", physics=NewtonCfg())
    """Simulation settings: physics step ``dt`` [s], ``device``, ``physics.num_substeps``,
    ``physics.use_cuda_graph`` (capture the decimation loop as a graph). ``physics.solver_cfg`` left unset
    means the scene's ``coupler_cfg()``; ``physics.decimation`` is not stated here: the env sets it from
    :attr:`decimation` (a different value is refused)."""
    scene: SceneBaseCfg = MISSING
    """The scene the task runs on (any scene config; ``scene.num_envs`` parallel envs)."""
    decimation: int = 4
    """Physics steps per env step; one policy action per env step."""
    viewer: CameraCfg = CameraCfg()
    """The camera ``render()`` reads with ``render_mode="rgb_array"`` (Isaac Lab's ``ViewerCfg``): by default
    env 0, framed from its bodies and particles at the start; ``env_index=None`` renders every env (a grid,
    ``eye`` / ``target`` in each env's frame). It is a viewport, not a sensor: created only when the env
    renders, it renders when the env's ``render()`` is called, outside the captured step."""
    cameras: list[CameraCfg] = []
    """Cameras the task itself reads (e.g. image observations); camera ``i`` is
    ``manager.get_camera_sensor(i)``. List per-env cameras (``env_index=None``) first."""

    def simulation_cfg(self) -> SimulationCfg:
        """The simulation settings the env launches with: a copy of :attr:`sim` with ``physics.decimation`` set
        to :attr:`decimation` and, when unset, ``physics.solver_cfg`` to the scene's coupler."""
        sim = copy_config(self.sim)
        sim.physics.decimation = self.decimation
        if sim.physics.solver_cfg is MISSING:
            sim.physics.solver_cfg = self.scene.coupler_cfg()
        return sim

    def validate(self) -> None:
        """Check the fields, the cameras, the scene and the simulation settings (the env launches with them
        without checking again)."""
        cls = type(self).__name__
        check_fields(self)
        unset = [f.name for f in dataclasses.fields(self) if getattr(self, f.name) is MISSING]
        if unset:
            raise MissingFieldError(
                f"{cls}: required field(s) not set: {', '.join(unset)}. Set them before using the config."
            )
        for i, camera in enumerate([self.viewer, *self.cameras]):
            where = "viewer" if i == 0 else f"cameras[{i - 1}]"
            if not isinstance(camera, CameraCfg):
                raise TypeError(f"{cls}.{where} must be a CameraCfg, got {type(camera).__name__}")
            with nested(f"{cls}.{where}"):
                camera.validate()
        if not isinstance(self.scene, SceneBaseCfg):
            raise TypeError(f"{cls}.scene must be a scene config (SceneBaseCfg), got {type(self.scene).__name__}")
        self.scene.validate(f"{cls}.scene")
        if not isinstance(self.sim, SimulationCfg) or not isinstance(self.sim.physics, NewtonCfg):
            raise TypeError(f"{cls}.sim must be a SimulationCfg with a NewtonCfg physics, got {self.sim!r}")
        stated = self.sim.physics.decimation
        if stated not in (NewtonCfg.decimation, self.decimation):
            raise ValueError(
                f"{cls}.sim.physics.decimation is {stated} but {cls}.decimation is {self.decimation}: a task states "
                f"its decimation once, in {cls}.decimation (the env copies it into the simulation settings); leave "
                "sim.physics.decimation at its default"
            )
        with nested(f"{cls}.sim"):
            self.simulation_cfg().validate()
