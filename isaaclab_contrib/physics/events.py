"""Physics events and callback handles."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["CallbackHandle", "PhysicsEvent"]


class PhysicsEvent(enum.Enum):
    """Events a physics manager dispatches to registered callbacks."""

    MODEL_INIT = "model_init"
    """Before finalization: fill the builder (payload: the manager class)."""
    PHYSICS_READY = "physics_ready"
    """After the solver, contacts and graph are ready (payload: the manager class)."""
    STOP = "stop"
    """The simulation stops (``stop()`` or ``close()``)."""


@dataclass(frozen=True)
class CallbackHandle:
    """Handle of a registered callback; pass it (or its ``id``) to ``deregister_callback``."""

    id: int
    event: PhysicsEvent
    name: str | None = None
