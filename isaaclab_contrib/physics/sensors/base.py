"""The one small interface every sensor kind implements.

A sensor kind is a :class:`SensorRequest` subclass (what the user asked for, kept by the
session until a model exists) whose :meth:`SensorRequest.create` makes a :class:`SensorRuntime`
on one build (the Newton sensor, on the bound solver's model or an entry's view). The instance
unions every request's :attr:`SensorRequest.observable_kinds`, allocates the observables once,
hands every runtime what it reads (:meth:`SensorRuntime.connect`) and calls
:meth:`SensorRuntime.update` in the step program's ``sensors`` stage. A runtime that sets
:attr:`SensorRuntime.samples_substeps` is also called around every solver substep
(:meth:`SensorRuntime.begin_substep`, :meth:`SensorRuntime.end_substep`), e.g. to average over the env
step. It never branches on the kind.

Adding a kind is one module here (a request and a runtime class) plus one front method in
:mod:`isaaclab_contrib.physics.runtime.manager_sensors` that validates the arguments and
registers the request. The coupler's own kinds follow the same pattern one layer up: a module in
:mod:`isaaclab_contrib.coupling` beside the sampler that feeds it (created on the bound coupled solver,
:meth:`~isaaclab_contrib.physics.solvers.binding.BoundSolver.as_coupled`) plus one front method on
``NewtonCouplerManager``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = ["SensorBuild", "SensorRequest", "SensorRuntime", "SensorSources"]


@dataclass(frozen=True)
class SensorBuild:
    """What a sensor is created on: one build's model, bound solver and contacts."""

    model: Any
    """The finalized Newton model."""
    bound: Any
    """The build's :class:`~isaaclab_contrib.physics.solvers.binding.BoundSolver`."""
    contacts: Any
    """The collision pipeline's contacts (``None`` without a pipeline)."""


@dataclass(frozen=True)
class SensorSources:
    """What the sensors read from once the observables are allocated."""

    bound: Any
    """The build's bound solver (routes entry-level reads)."""
    state: Any
    """The current state (``state_0``; every physics step ends in it)."""
    contacts: Any
    """The collision pipeline's contacts, or ``None``."""
    observables: Any
    """The one solver observables container, or ``None`` when no kind is needed from the solver."""
    step_average: Any
    """The manager's step-average ``body_qdd`` (``NewtonCfg.body_qdd_source="step_average"``), or ``None``."""


class SensorRequest:
    """A sensor the user asked for (immutable once registered); see the module documentation."""

    kind: ClassVar[str] = "sensor"
    """Short name of the kind (``"imu"``, ``"contact"``...)."""

    def __init__(self, name: str, observable_kinds: frozenset[str] = frozenset()):
        self.name = name
        """Readable name used in messages (``"imu[0]"``...)."""
        self.observable_kinds = frozenset(observable_kinds)
        """Solver observable kinds the sensor consumes."""

    def create(self, build: SensorBuild) -> SensorRuntime:
        """Create the sensor on *build*; raise naming the sensor when it cannot be."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class SensorRuntime:
    """The sensor of one request on one build.

    Args:
        sensor: The Newton sensor (what ``get_*_sensor()`` returns).
        entry: The coupled entry whose solver produces what the sensor reads (``None``: the whole model).
    """

    def __init__(self, sensor: Any, entry: str | None = None):
        self.sensor = sensor
        self.entry = entry

    def connect(self, sources: SensorSources) -> None:
        """Fix what :meth:`update` reads, once the observables are allocated. Default: nothing."""
        del sources

    def update(self, state: Any) -> None:
        """Update the sensor from the current *state* (inside the step program)."""
        self.sensor.update(state)

    def graph_blocker(self, device: Any) -> str | None:
        """Why :meth:`update` cannot be recorded in a graph on *device* (it then runs in an eager stage of its
        own, named by ``eager_reason()``); ``None``: it can. Default: ``None``."""
        del device
        return None

    samples_substeps: ClassVar[bool] = False
    """Whether the program calls :meth:`begin_substep` and :meth:`end_substep` around every solver substep
    (sensors that average over the env step or observe the solver while it steps). Default: no."""

    def begin_substep(self, state_in: Any) -> None:
        """Before one solver substep from *state_in* (graph-safe launches only). Default: nothing."""
        del state_in

    def end_substep(self, state_out: Any, dt: float) -> None:
        """After one solver substep of *dt* [s] into *state_out* (graph-safe launches only). Default: nothing."""
        del state_out, dt
