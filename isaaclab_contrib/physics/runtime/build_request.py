"""The frozen request a simulation instance is built (or re-compiled) from.

The session (:mod:`.session`) collects what the user registers; :meth:`ManagerSession.snapshot`
freezes it into a :class:`BuildRequest`, the only thing the instance (:mod:`.simulation_instance`)
reads. So data flows one way, requests to instance, and neither module imports the other's class
at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from isaaclab_contrib.physics.model_cfg import NewtonModelCfg
    from isaaclab_contrib.physics.sensors.base import SensorRequest
    from isaaclab_contrib.physics.solvers.base import NewtonSolverCfg
    from isaaclab_contrib.physics.solvers.binding import SolverBinding

__all__ = ["BuildRequest", "Callback"]

Callback = tuple[Callable[[], None], bool]
"""A step-program callback and whether it is graph-safe."""


@dataclass(frozen=True)
class BuildRequest:
    """Everything a build or re-compilation of the simulation needs, frozen (see the module documentation)."""

    manager_name: str
    """Name of the manager class in messages."""
    device: str
    dt: float
    """Physics step [s]."""
    num_substeps: int
    collision_interval: int
    decimation: int
    use_cuda_graph: bool
    body_qdd_source: str
    solver_cfg: NewtonSolverCfg
    binding: SolverBinding
    model_cfg: NewtonModelCfg | None
    collision_cfg: Any
    site_requests: tuple[tuple[tuple, str], ...]
    """``((body_pattern, per_world, xform), suffix)`` per site request."""
    sensors: tuple[SensorRequest, ...]
    observable_requests: frozenset[str]
    legacy_kinds: frozenset[str]
    legacy_state_attributes: frozenset[str]
    legacy_contact_attributes: frozenset[str]
    post_actuator_callbacks: tuple[Callback, ...]
    post_step_callbacks: tuple[Callback, ...]
    actuators_active: bool

    def sensor_kinds(self) -> dict[str, frozenset[str]]:
        """Observable kinds per consumer name (sensors and legacy requests)."""
        kinds = {r.name: r.observable_kinds for r in self.sensors if r.observable_kinds}
        if self.legacy_kinds:
            kinds["legacy request_extended_* attributes"] = self.legacy_kinds
        return kinds
