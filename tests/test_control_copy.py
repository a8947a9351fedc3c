"""The coupled solvers copy control custom attributes to entries in a graph-safe way.

Newton 1.8 copies them with an indexed ``wp.copy`` that Warp cannot record in a CPU graph, so a coupled
scene with an MJCF-imported robot (its ``mujoco:ctrl`` control attribute) could not be captured.
"""

import newton
import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.coupling import build_coupled_solver, finalize_builder, prepare_builder, resolve_coupling
from isaaclab_contrib.coupling.construction import build_entries
from isaaclab_coupling_configs.ant_on_hammock import AntOnHammockSceneCfg

DT = 1.0 / 240.0


def ant_model(device):
    scene = AntOnHammockSceneCfg(num_envs=1)
    scene.robot.actuators = {}
    cfg = scene.coupler_cfg()
    builder = newton.ModelBuilder()
    prepare_builder(builder, cfg)
    scene.build(builder)
    finalize_builder(builder, cfg)
    return builder.finalize(device=device), cfg


class Loop:
    """A plain Newton loop over *solver*; ``ctrl`` changes every step so the copy matters."""

    def __init__(self, model, solver):
        self.model, self.solver = model, solver
        self.pipeline = newton.CollisionPipeline(model)
        self.contacts = self.pipeline.contacts()
        solver.prepare_contacts(self.contacts)
        self.state_0, self.state_1, self.control = model.state(), model.state(), model.control()
        self.ctrl = self.control.mujoco.ctrl

    def step(self):
        self.pipeline.collide(self.state_0, self.contacts)
        self.solver.step(self.state_0, self.state_1, self.control, self.contacts, DT)
        self.state_0.assign(self.state_1)


def test_ant_scene_has_a_control_attribute_on_its_steel_entry(device):
    model, _ = ant_model(device)
    assert model.control().mujoco.ctrl.shape[0] == 8  # nv_ant.xml's eight <motor> elements


def test_newtons_indexed_copy_cannot_be_recorded_on_the_cpu():
    """The defect in the installed Newton and Warp, reproduced with Newton's own class."""
    from newton.solvers.experimental.coupled import SolverCoupledADMM

    model, cfg = ant_model("cpu")
    plan = resolve_coupling(model, cfg)
    plain = SolverCoupledADMM(model, build_entries(cfg, plan), SolverCoupledADMM.Config(iterations=2))
    loop = Loop(model, plain)
    loop.step()  # eager warm-up
    with pytest.raises(Exception, match="non-contiguous"):
        with wp.ScopedCapture(device="cpu"):
            loop.step()


@pytest.mark.slow  # kept out of the 5-minute default set
def test_gathered_control_copy_captures_and_replays_bitwise_like_eager_stepping(device):
    eager_model, cfg = ant_model(device)
    graph_model, _ = ant_model(device)
    eager = Loop(eager_model, build_coupled_solver(eager_model, cfg))
    graph = Loop(graph_model, build_coupled_solver(graph_model, cfg))
    rng = np.random.default_rng(0)
    ctrl_steps = rng.uniform(-1.0, 1.0, size=(21, 8)).astype(np.float32)
    joint_f_steps = rng.uniform(-0.5, 0.5, size=(21, eager_model.joint_dof_count)).astype(np.float32)
    for loop in (eager, graph):
        loop.ctrl.assign(ctrl_steps[0])
        loop.control.joint_f.assign(joint_f_steps[0])
        loop.step()  # eager warm-up
    with wp.ScopedCapture(device=device) as capture:
        graph.step()
    for k in range(1, 21):
        for loop in (eager, graph):
            loop.ctrl.assign(ctrl_steps[k])
            loop.control.joint_f.assign(joint_f_steps[k])
        eager.step()
        wp.capture_launch(capture.graph)
    # The entry saw the latest values, in the rows Newton's own indexed copy would have taken.
    entry = graph.solver._entries["robot"]
    mapping = next(m for m in entry.attribute_local_to_global.values() if m.shape[0] == 8)
    np.testing.assert_array_equal(entry.control.mujoco.ctrl.numpy(), ctrl_steps[20][mapping.numpy()])
    for name in ("body_q", "body_qd", "joint_q", "particle_q", "particle_qd"):
        np.testing.assert_array_equal(
            getattr(graph.state_0, name).numpy(), getattr(eager.state_0, name).numpy(), err_msg=name
        )
    assert np.isfinite(graph.state_0.body_q.numpy()).all()
