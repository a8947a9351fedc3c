"""Solver bindings: per-family knowledge in one place, found by config class (no solver is stepped here)."""

import newton
import pytest
from scenes import add_cloth_grid

from isaaclab_contrib.coupling import CouplerAdmmCfg, CouplerEntryCfg
from isaaclab_contrib.coupling.binding import CoupledBinding
from isaaclab_contrib.physics import (
    FeatherstoneSolverCfg,
    KaminoSolverCfg,
    MJWarpSolverCfg,
    MPMSolverCfg,
    NewtonSolverCfg,
    SemiImplicitSolverCfg,
    SteelSolverCfg,
    VBDSolverCfg,
    XPBDSolverCfg,
)
from isaaclab_contrib.physics.solvers.binding import SolverBinding, binding_for, register_binding, registered_bindings
from isaaclab_contrib.utils.configclass import configclass

ALL_SOLVER_CFGS = [
    SteelSolverCfg,
    FeatherstoneSolverCfg,
    XPBDSolverCfg,
    SemiImplicitSolverCfg,
    MJWarpSolverCfg,
    VBDSolverCfg,
    MPMSolverCfg,
    KaminoSolverCfg,
]


@pytest.mark.parametrize("cfg_class", ALL_SOLVER_CFGS)
def test_every_solver_config_has_its_own_family_binding(cfg_class):
    binding = binding_for(cfg_class())
    assert type(binding) is not SolverBinding and cfg_class in registered_bindings()
    assert binding.family and binding.reset_policy


def test_collision_pipeline_needs_come_from_the_binding():
    def needs(cfg):
        return binding_for(cfg).needs_collision_pipeline(cfg)

    assert needs(SteelSolverCfg()) and needs(VBDSolverCfg())
    assert not needs(MJWarpSolverCfg()) and needs(MJWarpSolverCfg(use_mujoco_contacts=False))
    assert not needs(MPMSolverCfg())
    assert not needs(KaminoSolverCfg(use_collision_detector=True)) and needs(KaminoSolverCfg())


def test_graph_blockers_name_the_configuration():
    def blockers(cfg):
        return binding_for(cfg).graph_blockers(cfg, "cpu")

    assert "unbounded sparse grid" in blockers(MPMSolverCfg())[0]
    # Newton documents outer capture of implicit MPM for CUDA only (memory pool, conditional graphs).
    assert blockers(MPMSolverCfg(max_active_cell_count=4096)) == [
        "SolverImplicitMPM supports outer graph capture only on CUDA devices, not 'cpu'"
    ]
    assert "grid_type='dense'" in blockers(MPMSolverCfg(grid_type="dense"))[0]
    # Newton's capture rule needs a positive active-cell capacity for a fixed grid too.
    assert "unbounded fixed grid" in blockers(MPMSolverCfg(grid_type="fixed"))[0]
    assert not any("unbounded" in b for b in blockers(MPMSolverCfg(grid_type="fixed", max_active_cell_count=64)))
    assert "use_mujoco_cpu" in blockers(MJWarpSolverCfg(use_mujoco_cpu=True))[0]
    assert blockers(MJWarpSolverCfg()) == [] and blockers(SteelSolverCfg()) == []


def test_coupled_binding_aggregates_its_entries():
    cfg = CouplerAdmmCfg(
        entries=[
            CouplerEntryCfg(name="tool", solver_cfg=SteelSolverCfg(), bodies=["/World/Tool"]),
            CouplerEntryCfg(name="sand", solver_cfg=MPMSolverCfg(), all_particles=True, in_place=True),
        ]
    )
    binding = binding_for(cfg)
    assert isinstance(binding, CoupledBinding)
    assert binding.solver_cfgs(cfg) == [cfg.entries[0].solver_cfg, cfg.entries[1].solver_cfg]
    assert binding.needs_collision_pipeline(cfg)  # the Steel entry consumes pipeline contacts
    assert binding.graph_blockers(cfg, "cpu") == [
        "entry 'sand': MPMSolverCfg has an unbounded sparse grid (grid_type='sparse', max_active_cell_count=-1): "
        "Newton captures only a positive active-cell capacity",
        "entry 'sand': SolverImplicitMPM supports outer graph capture only on CUDA devices, not 'cpu'",
    ]
    builder = newton.ModelBuilder()
    binding.register_builder_attributes(cfg, builder)
    assert builder.has_custom_attribute("steel:rigid_body_angular_damping")


def test_vbd_binding_colours_builder_before_finalize():
    builder = newton.ModelBuilder()
    add_cloth_grid(builder, 2)
    assert not builder.particle_color_groups
    binding_for(VBDSolverCfg()).prepare_builder(VBDSolverCfg(), builder)
    coloured = sorted(int(i) for group in builder.particle_color_groups for i in group)
    assert coloured == list(range(builder.particle_count))


def test_mujoco_binding_registers_custom_attributes():
    builder = newton.ModelBuilder()
    before = set(builder.custom_attributes)
    binding_for(MJWarpSolverCfg()).register_builder_attributes(MJWarpSolverCfg(), builder)
    added = set(builder.custom_attributes) - before
    assert added and all(key.startswith("mujoco:") for key in added)


def test_a_new_solver_is_one_config_plus_its_binding():
    @configclass
    class MySteelCfg(NewtonSolverCfg):
        solver_class_path = "newton.solvers:SolverSteel"
        iterations: int = 3
        """Solver iterations [count]."""

    assert type(binding_for(MySteelCfg())) is SolverBinding  # generic default for a named solver

    class MyBinding(SolverBinding):
        family = "my_steel"

        def graph_blockers(self, cfg, device):
            return ["my reason"]

    register_binding(MySteelCfg, MyBinding())
    assert binding_for(MySteelCfg()).graph_blockers(MySteelCfg(), "cpu") == ["my reason"]


def test_bad_binding_lookups_and_registrations_raise():
    with pytest.raises(TypeError, match="names no Newton solver"):
        binding_for(NewtonSolverCfg())
    with pytest.raises(TypeError, match="expected a NewtonSolverCfg"):
        binding_for("steel")
    with pytest.raises(TypeError, match="not a NewtonSolverCfg subclass"):
        register_binding(int, SolverBinding())
    with pytest.raises(TypeError, match="not a SolverBinding"):
        register_binding(SteelSolverCfg, object())
