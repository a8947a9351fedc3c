"""Interface-force sensors: the wrench a coupling applies on one entry's bodies (and particles) from another.

On a coupled scene (``NewtonCouplerManager``) the forces between entries are coupling forces, not Newton
contact rows; the coupled bound solver reads them from the coupler every coupled step
(:meth:`~isaaclab_contrib.coupling.binding.BoundCoupledSolver.interface_force_sampler`: ADMM contact and
attachment duals, proxy feedback wrenches) and this sensor averages them over the env step.
"""

from __future__ import annotations

from typing import Any

import warp as wp

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime

__all__ = ["InterfaceForceRequest", "InterfaceForceSensor", "coupled_factory"]


def coupled_factory(build: SensorBuild, method: str, sensor: str, what: str) -> Any:
    """The bound solver's *method* (a coupled simulation's), or a ``TypeError`` naming the sensor."""
    factory = getattr(build.bound, method, None)
    if factory is None:
        raise TypeError(
            f"{sensor}: {what} needs a coupled simulation (NewtonCfg.solver_cfg a CouplerAdmmCfg or CouplerProxyCfg, "
            f"run by NewtonCouplerManager); this simulation runs {type(build.bound.solver).__name__}"
        )
    return factory


class InterfaceForceSensor:
    """What :meth:`NewtonCouplerManager.get_interface_force_sensor` returns: per-env coupling forces.

    Attributes are zero-copy torch views, updated inside the (captured) step, each the average over the
    coupled steps (physics steps x substeps) of the last env step.
    """

    def __init__(self, sampler: Any, entry: str, partner: str):
        self.entry = entry
        """Entry the forces act on."""
        self.partner = partner
        """Entry they come from."""
        self.body_ids = sampler.body_layout
        """``(num_envs, num_bodies)`` model body ids of the columns of :attr:`wrench` (NumPy)."""
        self.particle_ids = sampler.particle_layout
        """``(num_envs, num_particles)`` model particle ids of the columns of :attr:`particles` (NumPy)."""
        envs, bodies = self.body_ids.shape
        particles = self.particle_ids.shape[1]
        self.wrench = wp.to_torch(sampler.wrench)[: envs * bodies].view(envs, bodies, 6)
        """``(num_envs, num_bodies, 6)``: world-frame force [N], then torque [N*m] about the body's origin, of the
        wrench on each body of :attr:`entry` from :attr:`partner`."""
        self.particles = wp.to_torch(sampler.particle_force)[: envs * particles].view(envs, particles, 3)
        """``(num_envs, num_particles, 3)``: world-frame force [N] on each particle of :attr:`entry` from
        :attr:`partner`."""
        self._sampler = sampler

    def __repr__(self) -> str:
        return (
            f"InterfaceForceSensor(entry={self.entry!r}, partner={self.partner!r}, "
            f"bodies={self.body_ids.shape[1]}, particles={self.particle_ids.shape[1]} per env)"
        )


class InterfaceForceRequest(SensorRequest):
    """An interface-force sensor on the bodies (regexes) and particles (ids) of *entry*, from *partner*."""

    kind = "interface_force"

    def __init__(
        self, index: int, entry: str, partner: str, bodies: tuple[str, ...] | None, particles: tuple[int, ...] | None
    ):
        super().__init__(f"interface_force[{index}]")
        self.entry, self.partner = entry, partner
        self.bodies = bodies
        self.particles = particles

    def same_as(self, entry: str, partner: str, bodies: Any, particles: Any) -> bool:
        """Whether this request senses the same thing."""
        return (self.entry, self.partner, self.bodies, self.particles) == (entry, partner, bodies, particles)

    def create(self, build: SensorBuild) -> SensorRuntime:
        factory = coupled_factory(build, "interface_force_sampler", self.name, "an interface-force sensor")
        sampler = factory(self.entry, self.partner, self.bodies, self.particles, self.name)
        return _InterfaceForceRuntime(InterfaceForceSensor(sampler, self.entry, self.partner))


class _InterfaceForceRuntime(SensorRuntime):
    samples_substeps = True

    def end_substep(self, state_out: Any, dt: float) -> None:
        self.sensor._sampler.sample(state_out, dt)

    def update(self, state: Any) -> None:
        del state
        self.sensor._sampler.finish()
