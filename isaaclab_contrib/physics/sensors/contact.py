"""Contact sensors: Newton's ``SensorContact`` for bodies or shapes, fed by ``contact_f``.

On a coupled scene the forces come from the one entry solver that owns every sensed shape and
partner (the bound solver picks it, :meth:`~isaaclab_contrib.physics.solvers.binding.BoundSolver.contact_host`),
read from that entry's filtered contact buffer and ``ModelView``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from isaaclab_contrib.physics.sensors.base import SensorBuild, SensorRequest, SensorRuntime, SensorSources
from isaaclab_contrib.physics.sensors.observables import CONTACT_F
from isaaclab_contrib.utils.labels import LabelSelector

__all__ = ["ContactExpr", "ContactRequest", "ContactSensorKey", "contact_sensor_key"]

ContactExpr = str | tuple[str, ...] | None
"""One expression of a contact sensor key: a regex, a tuple of regexes, or ``None``."""
ContactSensorKey = tuple[ContactExpr, ContactExpr, ContactExpr, ContactExpr]
"""``(body_names_expr, shape_names_expr, contact_partners_body_expr, contact_partners_shape_expr)``."""


def contact_sensor_key(exprs: tuple) -> ContactSensorKey:
    """The key of a contact sensor: its four expressions as given, lists turned into tuples (hashable)."""
    return tuple(tuple(expr) if isinstance(expr, list) else expr for expr in exprs)


class ContactRequest(SensorRequest):
    """A contact sensor over the bodies or shapes of compiled full-match *patterns*.

    Args:
        name: Name in messages.
        patterns: ``(bodies, shapes, partner_bodies, partner_shapes)`` compiled regexes (or ``None``).
        verbose: Newton's ``SensorContact`` verbosity.
    """

    kind = "contact"

    def __init__(self, name: str, patterns: tuple[re.Pattern | None, ...], verbose: bool = False):
        super().__init__(name, frozenset({CONTACT_F}))
        self.patterns = tuple(patterns)
        self.verbose = bool(verbose)

    def _shapes(self, model: Any, body_pattern: re.Pattern | None, shape_pattern: re.Pattern | None) -> set[int]:
        ids: set[int] = set()
        if shape_pattern is not None:
            ids.update(LabelSelector(model.shape_label, "shape").select(shape_pattern).tolist())
        if body_pattern is not None:
            bodies = LabelSelector(model.body_label, "body").select(body_pattern)
            if bodies.size:
                ids.update(np.nonzero(np.isin(model.shape_body.numpy(), bodies))[0].tolist())
        return ids

    def create(self, build: SensorBuild) -> SensorRuntime:
        import newton

        bodies, shapes, partner_bodies, partner_shapes = self.patterns
        sensing = self._shapes(build.model, bodies, shapes)
        if not sensing:
            raise ValueError(f"{self.name}: the expressions match no body with shapes and no shape")
        involved = sensing | self._shapes(build.model, partner_bodies, partner_shapes)
        host, entry = build.bound.contact_host(sensing, involved, build.contacts, self.name)
        sensor = newton.sensors.SensorContact(
            host,
            sensing_bodies=bodies,
            sensing_shapes=shapes,
            counterpart_bodies=partner_bodies,
            counterpart_shapes=partner_shapes,
            verbose=self.verbose,
            request_contact_attributes=False,
        )
        return _ContactRuntime(sensor, entry)


class _ContactRuntime(SensorRuntime):
    source: tuple[Any, Any, Any] = (None, None, None)

    def connect(self, sources: SensorSources) -> None:
        self.source = sources.bound.contact_source(self.entry, sources.state, sources.contacts, sources.observables)

    def update(self, state: Any) -> None:
        del state  # an entry's contact forces are read against that entry's output state
        entry_state, contacts, observables = self.source
        self.sensor.update(entry_state, contacts, observables=observables)
