"""Solver configs: Newton's defaults, the field-to-constructor mapping and builder preparation."""

import dataclasses
import inspect

import newton
import pytest

from isaaclab_contrib.physics import (
    FeatherstoneSolverCfg,
    KaminoSolverCfg,
    MJWarpSolverCfg,
    MPMSolverCfg,
    NewtonCollisionPipelineCfg,
    NewtonModelCfg,
    SemiImplicitSolverCfg,
    SolverConfigError,
    SteelSolverCfg,
    VBDSolverCfg,
    XPBDSolverCfg,
)
from isaaclab_contrib.utils.configclass import configclass

CTOR_CFGS = [
    SteelSolverCfg,
    FeatherstoneSolverCfg,
    XPBDSolverCfg,
    MJWarpSolverCfg,
    VBDSolverCfg,
    SemiImplicitSolverCfg,
]
CONFIG_CFGS = [MPMSolverCfg, KaminoSolverCfg]


@pytest.mark.parametrize("cfg_cls", CTOR_CFGS)
def test_constructor_configs_carry_newton_defaults(cfg_cls):
    cfg = cfg_cls()
    params = inspect.signature(cfg.solver_class().__init__).parameters
    kwargs = cfg.solver_kwargs()
    assert kwargs, "a solver config forwards at least one field"
    for name, value in kwargs.items():
        assert params[name].default == value, f"{cfg_cls.__name__}.{name}: {value!r} != Newton {params[name].default!r}"


@pytest.mark.parametrize("cfg_cls", CONFIG_CFGS)
def test_config_dataclass_configs_carry_newton_defaults(cfg_cls):
    cfg = cfg_cls()
    defaults = {f.name: f.default for f in dataclasses.fields(cfg.solver_class().Config)}
    for name, value in cfg.solver_kwargs().items():
        assert defaults[name] == value, f"{cfg_cls.__name__}.{name}"


@pytest.mark.parametrize("cfg_cls", CTOR_CFGS + CONFIG_CFGS)
def test_stale_field_raises_naming_it(cfg_cls):
    @configclass
    class StaleCfg(cfg_cls):
        renamed_in_newton_2: float = 1.0

    with pytest.raises(SolverConfigError, match="renamed_in_newton_2"):
        StaleCfg().solver_kwargs()


def test_extra_solver_args_are_checked():
    assert SteelSolverCfg(extra_solver_args={"row_watermark": True}).solver_kwargs()["row_watermark"] is True
    with pytest.raises(SolverConfigError, match="not_an_option"):
        SteelSolverCfg(extra_solver_args={"not_an_option": 1}).solver_kwargs()
    with pytest.raises(ValueError, match="repeats config field"):
        SteelSolverCfg(extra_solver_args={"iterations": 3}).solver_kwargs()


@pytest.mark.slow  # builds a Kamino solver
def test_kamino_nested_overrides():
    config = KaminoSolverCfg(padmm_overrides={"max_iterations": 120}).make_config()
    assert config.padmm.max_iterations == 120
    with pytest.raises(SolverConfigError, match="padmm_overrides"):
        KaminoSolverCfg(padmm_overrides={"no_such": 1}).make_config()


def test_collision_and_model_cfgs():
    assert NewtonCollisionPipelineCfg(rigid_contact_max=64).pipeline_kwargs()["rigid_contact_max"] == 64
    with pytest.raises(SolverConfigError, match="bogus"):
        NewtonCollisionPipelineCfg(extra_args={"bogus": 1}).pipeline_kwargs()
    builder = newton.ModelBuilder()
    builder.add_particle(pos=(0.0, 0.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0)
    model = builder.finalize(device="cpu")
    NewtonModelCfg(soft_contact_ke=123.0, gravity=(0.0, 0.0, -1.0)).apply(model)
    assert model.soft_contact_ke == 123.0
    assert model.gravity.numpy()[0][2] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match=r"NewtonModelCfg\.particle_mu"):
        NewtonModelCfg(particle_mu=-1.0).validate()
    with pytest.raises(TypeError, match=r"NewtonModelCfg\.soft_contact_kd"):
        NewtonModelCfg(soft_contact_kd="stiff").validate()
