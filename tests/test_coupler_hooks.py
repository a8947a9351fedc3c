"""Entry view settings, build hooks and index selection at runtime: plain Newton loop and manager.

The scene is the small box-on-cloth world of the manager tests (Steel box, VBD cloth, proxy
coupling, few iterations). What the settings do to the physics is checked against Newton's own
examples in ``test_newton_parity.py``; here: that every hook runs when and with what it should, that
a failing hook names its entry, and that configs are reusable and never modified.
"""

from __future__ import annotations

import newton
import numpy as np
import pytest
from manager_helpers import DT, cheap_coupler, small_scene, snapshot, start
from scenes import run_coupled

from isaaclab_contrib.coupling import (
    CouplerHookError,
    NewtonCouplerManager,
    build_coupled_solver,
    finalize_builder,
    prepare_builder,
)
from isaaclab_contrib.physics import NewtonManager, SimulationContext


def scene_builder(cfg) -> newton.ModelBuilder:
    builder = newton.ModelBuilder()
    prepare_builder(builder, cfg)
    small_scene(1).build(builder)
    return builder


def plain_model(cfg, device: str):
    builder = scene_builder(cfg)
    finalize_builder(builder, cfg)
    return builder.finalize(device=device)


def plain_run(cfg, device: str, steps: int = 6) -> dict[str, np.ndarray]:
    _, state = run_coupled(scene_builder(cfg), cfg, steps, DT, device)
    return {name: getattr(state, name).numpy().copy() for name in ("body_q", "body_qd", "particle_q", "particle_qd")}


class Recorder:
    """Hooks that record their calls (and what the view held when ``configure_view`` ran)."""

    def __init__(self):
        self.calls: list[tuple] = []

    def view(self, view):
        self.calls.append(("view", view.name, view.tri_count, view.edge_count, view.spring_count))

    def entry_built(self, solver, view):
        self.calls.append(("entry", view.name, solver, view))

    def coupler_built(self, solver, model):
        self.calls.append(("coupler", solver, model))


def test_hidden_elements_then_configure_view_reach_the_entry_view(device):
    rec = Recorder()
    cfg = cheap_coupler("proxy")
    cfg.entries[0].hide_elements = ["triangles", "edges"]
    cfg.entries[0].configure_view = rec.view
    model = plain_model(cfg, device)
    assert model.tri_count > 0 and model.edge_count > 0
    solver = build_coupled_solver(model, cfg)
    # configure_view ran once, on the box entry's view, after the declarative hiding.
    assert rec.calls == [("view", "box", 0, 0, model.spring_count)]
    assert solver.view("box").tri_count == 0 and solver.view("box").edge_count == 0
    assert solver.view("cloth").tri_count == model.tri_count  # the cloth solver keeps its elements
    assert solver.view("cloth").edge_count == model.edge_count


def test_post_build_hooks_run_once_after_the_coupled_solver_exists(device):
    rec = Recorder()
    cfg = cheap_coupler("proxy")
    cfg.entries[0].post_build = rec.entry_built
    cfg.entries[1].post_build = rec.entry_built
    cfg.post_build = rec.coupler_built
    model = plain_model(cfg, device)
    solver = build_coupled_solver(model, cfg)
    assert [c[:2] for c in rec.calls] == [("entry", "box"), ("entry", "cloth"), ("coupler", solver)]
    for _, name, entry_solver, view in rec.calls[:2]:
        assert entry_solver is solver.solver(name) and view is solver.view(name)
    assert rec.calls[2][2] is model


@pytest.mark.parametrize("where", ["configure_view", "entry_post_build", "coupler_post_build"])
def test_a_raising_hook_is_reported_naming_the_entry_and_the_config_is_untouched(where, device):
    def broken(*args):
        raise ZeroDivisionError("the hook divided by zero")

    cfg = cheap_coupler("proxy")
    if where == "configure_view":
        cfg.entries[1].configure_view = broken
        match = r"CouplerProxyCfg\.entries\['cloth'\]\.configure_view=.*broken raised ZeroDivisionError: the hook"
    elif where == "entry_post_build":
        cfg.entries[0].post_build = broken
        match = r"CouplerProxyCfg\.entries\['box'\]\.post_build=.*broken raised ZeroDivisionError: the hook"
    else:
        cfg.post_build = broken
        match = r"CouplerProxyCfg\.post_build=.*broken raised ZeroDivisionError"
    before = repr(cfg.to_dict())
    model = plain_model(cfg, device)
    with pytest.raises(CouplerHookError, match=match) as caught:
        build_coupled_solver(model, cfg)
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
    assert repr(cfg.to_dict()) == before  # nothing written back after a failed build

    # Through the manager: sim.reset() fails the same way, and launch() clears the context it created.
    with pytest.raises(CouplerHookError, match=match):
        start(cfg, graph=True, substeps=1, decimation=1, scene=small_scene(1), device=device)
    assert NewtonManager._session is None and SimulationContext.instance() is None
    assert NewtonCouplerManager.get_solver() is None
    assert repr(cfg.to_dict()) == before


def test_the_manager_runs_post_build_on_every_build_and_captures_after_it(device):
    built: list = []
    cfg = cheap_coupler("proxy")
    cfg.entries[1].post_build = lambda solver, view: built.append(solver)
    start(cfg, graph=True, substeps=1, decimation=2, scene=small_scene(1), device=device)
    first = NewtonCouplerManager.get_solver()
    assert built == [first.solver("cloth")]
    assert NewtonCouplerManager.step_mode() == "captured"
    NewtonCouplerManager.step()
    NewtonCouplerManager.reset(soft=True)  # keeps the solver: no new build
    assert len(built) == 1
    NewtonCouplerManager.reset(soft=False)  # rebuilds the solver part: the hook runs on the new solver
    second = NewtonCouplerManager.get_solver()
    assert second is not first and built == [first.solver("cloth"), second.solver("cloth")]
    assert NewtonCouplerManager.step_mode() == "captured"
    NewtonCouplerManager.step()
    assert np.isfinite(snapshot()["particle_q"]).all()


def test_a_config_with_every_new_field_is_reusable_and_never_modified(device):
    rec = Recorder()
    cfg = cheap_coupler("proxy")
    cfg.entries[0].bodies = []
    cfg.entries[0].body_ids = [0]  # the box, by index
    cfg.entries[0].hide_elements = ["springs", "triangles", "edges", "tetrahedra"]
    cfg.entries[0].configure_view = rec.view
    cfg.entries[1].post_build = rec.entry_built
    cfg.post_build = rec.coupler_built

    def entries_snapshot():
        return repr([entry.to_dict() for entry in cfg.entries]), cfg.post_build

    before = entries_snapshot()
    first = plain_run(cfg, device)
    second = plain_run(cfg, device)
    for name in first:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)
    # The entries (and hooks) are as written; only the spec's write-back of resolved proxy body ids happened.
    assert entries_snapshot() == before
    assert cfg.proxies[0].bodies == [0]
    assert [c[0] for c in rec.calls] == ["view", "entry", "coupler"] * 2
    # Selecting the box by index is the same as selecting it by label.
    by_label = plain_run(cheap_coupler("proxy"), device)
    np.testing.assert_array_equal(first["body_q"], by_label["body_q"])
    np.testing.assert_array_equal(first["particle_q"], by_label["particle_q"])
