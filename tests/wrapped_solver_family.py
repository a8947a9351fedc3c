"""A solver family added the way ``isaaclab_contrib.physics.solvers`` says: one module (the solver, its config and
its binding) plus the line registering the binding.

``SolverCountingSteel`` is Newton's Steel solver that also counts the steps it is asked for (on the host: a
captured step counts when it is recorded, not when it is replayed). ``CountingSteelSolverCfg`` configures it
with Steel's fields plus one of its own, ``capture``; ``CountingSteelBinding`` keeps the base binding's answers
(build ``SolverClass(model, **kwargs)``, consume pipeline contacts) and adds the family's own rule: with
``capture=False`` its step must not be recorded in a graph.
"""

from __future__ import annotations

from typing import ClassVar

import newton

from isaaclab_contrib.physics.solvers import SolverBinding, SteelSolverCfg, register_binding
from isaaclab_contrib.utils.configclass import configclass


class SolverCountingSteel(newton.solvers.SolverSteel):
    """Newton's Steel solver, counting its steps (its constructor is Steel's, so the config's fields map to it)."""

    steps = 0
    """Steps asked for so far (an instance attribute from the first one on)."""

    def step(self, state_in, state_out, control, contacts, dt, **kwargs):
        self.steps += 1
        return super().step(state_in, state_out, control, contacts, dt, **kwargs)


@configclass
class CountingSteelSolverCfg(SteelSolverCfg):
    """:class:`SolverCountingSteel` with Steel's settings."""

    solver_class_path: ClassVar[str] = "wrapped_solver_family:SolverCountingSteel"
    _local_fields: ClassVar[frozenset[str]] = SteelSolverCfg._local_fields | {"capture"}

    capture: bool = True
    """Whether the step may be recorded in a graph (``False``: it runs eagerly, every step counted)."""


class CountingSteelBinding(SolverBinding):
    """The base binding, plus the family's capture rule."""

    family = "counting_steel"

    def graph_blockers(self, cfg: CountingSteelSolverCfg, device: str) -> list[str]:
        del device
        return [] if cfg.capture else ["CountingSteelSolverCfg.capture=False counts every step on the host"]


register_binding(CountingSteelSolverCfg, CountingSteelBinding())
