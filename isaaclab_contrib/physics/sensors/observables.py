"""Solver observables for sensors: the kinds, their union's rules, the errors, and step-average ``body_qdd``.

Each sensor declares the solver observable kinds it consumes (``solver_observable_kinds``). The
manager unions them with legacy ``request_extended_*`` requests and the kinds asked for with
``request_observables()``, checks the union against what the solver can produce, allocates ONE
container before graph capture, and passes ``select()``
subsets to the solver: kinds sampled every substep (IMU acceleration, ``body_qdd``) on every
substep, everything else (contact forces) on the last substep only. Sensors update after the
decimation loop, inside the captured graph.
"""

from __future__ import annotations

import warnings
from typing import Any

import warp as wp

__all__ = [
    "BODY_PARENT_F",
    "BODY_QDD",
    "CONTACT_F",
    "COUPLED_MODEL_WIDE_KINDS",
    "PER_SUBSTEP_KINDS",
    "REQUESTED_OBSERVABLES",
    "ObservablesUnsupportedError",
    "StepAverageObservables",
    "known_observable_kinds",
    "legacy_contact_kind",
    "legacy_state_kind",
    "normalize_observable_kinds",
    "unsupported_observable",
    "unsupported_request",
]

BODY_QDD = "body_qdd"
BODY_PARENT_F = "body_parent_f"
CONTACT_F = "contact_f"
PER_SUBSTEP_KINDS = frozenset({BODY_QDD})
"""Kinds a consumer samples on every solver substep; all others are produced on the last substep only."""

COUPLED_MODEL_WIDE_KINDS = frozenset({BODY_QDD, BODY_PARENT_F})
"""The only kinds Newton's coupled solver can expose for the whole model (when every entry that owns
bodies produces them): contact-indexed and solver-specific kinds stay inside the entries."""

REQUESTED_OBSERVABLES = "request_observables()"
"""Consumer name of the kinds requested through ``request_observables()`` (in messages)."""

_LEGACY_STATE = {"body_qdd": BODY_QDD, "body_parent_f": BODY_PARENT_F, "mujoco:qfrc_actuator": "qfrc_actuator"}
"""Deprecated extended state attributes -> the solver observable kind that replaces them (Newton's migration table)."""
_LEGACY_CONTACT = {"force": CONTACT_F}


class ObservablesUnsupportedError(ValueError):
    """A sensor needs an observable kind the simulation's solver(s) cannot produce."""


def _legacy_kind(method: str, accepted: frozenset[str], table: dict[str, str], attr: str, replacement: str):
    if not isinstance(attr, str) or attr not in accepted:
        raise ValueError(f"{method}: unknown attribute {attr!r}; Newton accepts {sorted(accepted)}")
    kind = table.get(attr)
    what = f"the solver observable kind {kind!r}" if kind else "the solver's observables"
    warnings.warn(
        f"{method}({attr!r}) is deprecated: declare {what} {replacement}",
        DeprecationWarning,
        stacklevel=4,
    )
    return kind


def legacy_state_kind(attr: str) -> str | None:
    """Validate a deprecated extended state attribute and warn; returns the observable kind replacing it.

    Every name of ``newton.State.EXTENDED_ATTRIBUTES`` is accepted (``body_qdd``, ``body_parent_f``,
    ``mujoco:qfrc_actuator``); other names raise a ``ValueError`` listing them.
    """
    import newton

    return _legacy_kind(
        "request_extended_state_attribute",
        frozenset(newton.State.EXTENDED_ATTRIBUTES),
        _LEGACY_STATE,
        attr,
        "in the sensor's solver_observable_kinds (or request_observables()) instead (the manager allocates it once).",
    )


def legacy_contact_kind(attr: str) -> str | None:
    """Validate a deprecated extended contact attribute (``newton.Contacts.EXTENDED_ATTRIBUTES``) and warn;
    returns the observable kind replacing it."""
    import newton

    return _legacy_kind(
        "request_extended_contact_attribute",
        frozenset(newton.Contacts.EXTENDED_ATTRIBUTES),
        _LEGACY_CONTACT,
        attr,
        "(SolverBase.ObservableKind.CONTACT_F) instead.",
    )


def known_observable_kinds() -> dict[str, tuple[str, ...]]:
    """Every observable kind Newton's solvers declare -> the solver classes declaring it.

    Read from the ``ObservableKind`` namespace of each solver class in ``newton.solvers`` (the
    standard ``body_qdd``, ``body_parent_f``, ``contact_f`` and solver-specific kinds such as
    MuJoCo's ``qfrc_*`` and ``overflow`` or Steel's ``body_awake``). A declared kind is not
    necessarily supported by a configured solver: that is checked against ``supported_observables``.
    """
    import newton.solvers

    kinds: dict[str, set[str]] = {}
    for name in getattr(newton.solvers, "__all__", ()):
        solver_class = getattr(newton.solvers, name, None)
        if not (isinstance(solver_class, type) and issubclass(solver_class, newton.solvers.SolverBase)):
            continue
        for base in solver_class.ObservableKind.__mro__:
            for attr, value in vars(base).items():
                if not attr.startswith("_") and isinstance(value, str) and value:
                    kinds.setdefault(value, set()).add(name)
    return {kind: tuple(sorted(owners)) for kind, owners in sorted(kinds.items())}


def normalize_observable_kinds(kinds: Any, where: str) -> frozenset[str]:
    """*kinds* (one kind string or an iterable of them) as a set of known kinds; raises naming the valid ones."""
    if isinstance(kinds, str):
        kinds = [kinds]
    try:
        values = list(kinds)
    except TypeError:
        raise TypeError(f"{where}: kinds must be a kind string or an iterable of them, got {kinds!r}") from None
    if not values or not all(isinstance(k, str) and k for k in values):
        raise TypeError(f"{where}: kinds must be non-empty kind strings, got {kinds!r}")
    known = known_observable_kinds()
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"{where}: unknown observable kind(s) {unknown}; Newton's solvers declare {sorted(known)}")
    return frozenset(values)


def unsupported_observable(
    manager: str, kind: str, sensors: list[str], detail: str, producers: list[str]
) -> ObservablesUnsupportedError:
    """The error for sensors that need an observable *kind* the solver(s) cannot produce, with a hint.

    Args:
        producers: The solver configs whose families can produce *kind* (from their bindings:
            :meth:`~isaaclab_contrib.physics.solvers.binding.SolverBinding.observable_kinds`).
    """
    hint = (
        f"Solver configs whose solvers produce it: {', '.join(producers)}"
        if producers
        else "Choose solvers that list it in supported_observables"
    )
    if kind == BODY_QDD:
        hint += "; or NewtonCfg.body_qdd_source='step_average' (accelerations measured from the step's velocities)"
    return ObservablesUnsupportedError(
        f"{manager}: sensor(s) {sensors} need the solver observable {kind!r}, but {detail}. {hint}."
    )


def unsupported_request(
    manager: str, kinds: frozenset[str], solver: Any, entries: dict[str, Any] | None = None
) -> ObservablesUnsupportedError:
    """The error for ``request_observables()`` kinds the running *solver* cannot produce.

    Names the kinds, the solver and what it supports, and for a coupled solver (*entries*: entry name -> entry
    solver) every entry and what its solver supports (Newton's coupled solver exposes only the body kinds every
    entry that owns bodies produces; contact and solver-specific kinds stay inside the entries).
    """
    supported = sorted(solver.supported_observables)
    detail = f"{type(solver).__name__} supports {supported}"
    if entries:
        listed = "; ".join(
            f"entry {name!r} runs {type(entry).__name__}, which supports {sorted(entry.supported_observables)}"
            for name, entry in entries.items()
        )
        detail += (
            f" (a coupled solver exposes only {sorted(COUPLED_MODEL_WIDE_KINDS)}, and only when every entry that "
            f"owns bodies produces them; contact and solver-specific kinds are not available model-wide): {listed}"
        )
    return ObservablesUnsupportedError(
        f"{manager}.request_observables: the solver cannot produce {sorted(kinds)}: {detail}. Nothing was requested."
    )


@wp.kernel
def _step_average_kernel(
    qd_in: wp.array(dtype=wp.spatial_vector),
    qd_out: wp.array(dtype=wp.spatial_vector),
    inv_dt: float,
    qdd: wp.array(dtype=wp.spatial_vector),
):
    i = wp.tid()
    qdd[i] = (qd_out[i] - qd_in[i]) * inv_dt


class StepAverageObservables:
    """Body accelerations measured at the simulation level: ``(body_qd_out - body_qd_in) / dt`` per solver step.

    The manager fills :attr:`body_qdd` after every solver substep from the parent-model states of
    the (coupled) step, so it contains every force the bodies felt, coupling forces and impulses
    included; across an impact it holds the impulse divided by ``dt``, as Kamino's own
    ``BODY_QDD`` does. It has the two attributes ``SensorIMU.update`` reads (``model`` and
    ``body_qdd``, world-frame center-of-mass spatial accelerations [m/s^2, rad/s^2]).
    """

    kinds = frozenset({BODY_QDD})

    def __init__(self, model: Any):
        self.model = model
        self.body_qdd = wp.zeros(model.body_count, dtype=wp.spatial_vector, device=model.device)

    def is_requested(self, kind: str) -> bool:
        return kind == BODY_QDD

    def update(self, state_in: Any, state_out: Any, dt: float) -> None:
        """Record the step-average acceleration of the solver step ``state_in -> state_out`` of length *dt* [s]."""
        if self.body_qdd.shape[0] == 0:
            return
        wp.launch(
            _step_average_kernel,
            dim=self.body_qdd.shape[0],
            inputs=[state_in.body_qd, state_out.body_qd, 1.0 / dt],
            outputs=[self.body_qdd],
            device=self.model.device,
        )
