"""Field validation of every config class: types and declared ranges, nested configs, device aliases.

The per-field cases are generated from the same ``_ranges`` declarations the configs validate
against; the hand-written tests below pin specific expectations independently of that machinery.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import math
import pkgutil
import re
import warnings
from typing import ClassVar

import numpy as np
import pytest
import torch

import isaaclab_contrib
import isaaclab_coupling_configs
from isaaclab_contrib.coupling import (
    CouplerAdmmCfg,
    CouplerEntryCfg,
    CouplerProxyCfg,
    CouplerProxyMappingCfg,
)
from isaaclab_contrib.coupling.coupler_cfg import CouplerCfg
from isaaclab_contrib.envs import CoupledDirectEnvCfg, ManagerBasedEnvCfg, ManagerBasedRLEnvCfg, mdp
from isaaclab_contrib.envs.env_cfg_base import CoupledEnvCfgBase
from isaaclab_contrib.envs.mdp.actions import JointActionCfg
from isaaclab_contrib.envs.mdp.commands import UniformPoseCommandRanges
from isaaclab_contrib.managers import (
    ActionTermCfg,
    CommandTermCfg,
    CurriculumTermCfg,
    EventTermCfg,
    ManagerTermBaseCfg,
    ObservationGroupCfg,
    ObservationTermCfg,
    RecorderTerm,
    RecorderTermCfg,
    RewardTermCfg,
    SceneEntityCfg,
    TerminationTermCfg,
)
from isaaclab_contrib.physics import (
    ActuatorBaseCfg,
    DCMotorCfg,
    DelayedPDActuatorCfg,
    FeatherstoneSolverCfg,
    IdealPDActuatorCfg,
    ImplicitActuatorCfg,
    KaminoSolverCfg,
    MJWarpSolverCfg,
    MPMDeformableColliderCfg,
    MPMSolverCfg,
    NewtonCfg,
    NewtonCollisionPipelineCfg,
    NewtonModelCfg,
    NewtonModelSolverCfg,
    NewtonShapeCfg,
    NewtonSolverCfg,
    SemiImplicitSolverCfg,
    SimulationCfg,
    SteelSolverCfg,
    VBDSolverCfg,
    XPBDSolverCfg,
)
from isaaclab_contrib.scenes import (
    ArticulationCfg,
    ArticulationFileCfg,
    AssetBaseCfg,
    ClothMeshCfg,
    MjcfFileCfg,
    RigidObjectCfg,
    SceneBaseCfg,
    SoftMeshCfg,
    UrdfFileCfg,
    UsdDeformablesCfg,
    UsdFileCfg,
)
from isaaclab_contrib.scenes.deformable_base import ClothMaterialCfg, MeshFileCfg, SoftMaterialCfg
from isaaclab_contrib.utils.configclass import configclass, is_configclass
from isaaclab_contrib.utils.noise import (
    ConstantNoiseCfg,
    GaussianNoiseCfg,
    NoiseCfg,
    NoiseModelCfg,
    NoiseModelWithAdditiveBiasCfg,
    UniformNoiseCfg,
    constant_noise,
)
from isaaclab_contrib.utils.validation import FieldRule, declared_ranges, field_rules, field_type_hints, parse_range
from isaaclab_coupling_configs.arm_press_cloth_manager_task import (
    ActionsCfg,
    ObservationsCfg,
    RewardsCfg,
    TerminationsCfg,
)
from isaaclab_coupling_configs.arm_press_cloth_task import ArmPressClothEnvCfg, ArmPressClothSceneCfg
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg
from isaaclab_coupling_configs.cloth_depth_task import ClothDepthTaskCfg
from isaaclab_coupling_configs.franka_lift_soft import FrankaLiftSoftSceneCfg
from isaaclab_coupling_configs.franka_lift_task import FrankaLiftEnvCfg
from isaaclab_coupling_configs.grains_on_cloth import GrainsOnClothSceneCfg
from isaaclab_coupling_configs.mujoco_vbd_admm import AttachedBallSceneCfg
from isaaclab_coupling_configs.press_cloth_task import PressClothEnvCfg, PressClothSceneCfg
from isaaclab_coupling_configs.proxy_joint_gripper import GripperSceneCfg, HarshGripperSceneCfg
from isaaclab_coupling_configs.softbody_dropping_to_cloth import SoftbodyOnClothSceneCfg
from isaaclab_coupling_configs.tool_in_sand import ToolInSandSceneCfg
from isaaclab_coupling_configs.xpbd_vbd_coupled import XpbdVbdCoupledSceneCfg

NAN = float("nan")
INF = float("inf")


class _Opaque:
    """A value of no accepted type (stable repr for test ids)."""

    def __repr__(self) -> str:
        return "<opaque>"


def _entries() -> list[CouplerEntryCfg]:
    return [
        CouplerEntryCfg(name="rigid", solver_cfg=SteelSolverCfg(), bodies=[".*/Box"]),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(), all_particles=True),
    ]


def _pd(cls, **kw):
    return cls(joint_names_expr=["hinge"], stiffness=1.0, damping=0.1, **kw)


def _term(env, env_ids=None):
    """A manager term function (any callable will do for the configs)."""
    return env


def _joints(cls, **kw):
    return cls(asset_name="robot", joint_names=["joint_.*"], **kw)


def _pose_ranges() -> UniformPoseCommandRanges:
    return UniformPoseCommandRanges(
        pos_x=(0.3, 0.5), pos_y=(-0.2, 0.2), pos_z=(0.1, 0.4), roll=(0.0, 0.0), pitch=(-0.5, 0.5), yaw=(-3.14, 3.14)
    )


def _manager_env(cls, **kw):
    return cls(scene=ArmPressClothSceneCfg(), observations=ObservationsCfg(), actions=ActionsCfg(), **kw)


# Every config class and how to build a valid instance of it (defaults plus the required fields).
FACTORIES = {
    NewtonSolverCfg: NewtonSolverCfg,
    NewtonModelSolverCfg: NewtonModelSolverCfg,
    SteelSolverCfg: SteelSolverCfg,
    FeatherstoneSolverCfg: FeatherstoneSolverCfg,
    XPBDSolverCfg: XPBDSolverCfg,
    SemiImplicitSolverCfg: SemiImplicitSolverCfg,
    MJWarpSolverCfg: MJWarpSolverCfg,
    VBDSolverCfg: VBDSolverCfg,
    MPMSolverCfg: MPMSolverCfg,
    MPMDeformableColliderCfg: lambda: MPMDeformableColliderCfg(particles=[0, 1, 2]),
    KaminoSolverCfg: KaminoSolverCfg,
    NewtonModelCfg: NewtonModelCfg,
    NewtonCollisionPipelineCfg: NewtonCollisionPipelineCfg,
    NewtonShapeCfg: NewtonShapeCfg,
    NewtonCfg: lambda: NewtonCfg(solver_cfg=SteelSolverCfg()),
    SimulationCfg: lambda: SimulationCfg(physics=NewtonCfg(solver_cfg=CouplerAdmmCfg(entries=_entries()))),
    CouplerEntryCfg: lambda: _entries()[0],
    CouplerCfg: lambda: CouplerCfg(entries=_entries()),
    CouplerAdmmCfg: lambda: CouplerAdmmCfg(entries=_entries()),
    CouplerProxyCfg: lambda: CouplerProxyCfg(
        entries=_entries(), proxies=[CouplerProxyMappingCfg(source="rigid", destination="cloth", bodies=[0])]
    ),
    CouplerProxyMappingCfg: lambda: CouplerProxyMappingCfg(source="rigid", destination="cloth", bodies=[0]),
    ActuatorBaseCfg: lambda: _pd(ActuatorBaseCfg),
    IdealPDActuatorCfg: lambda: _pd(IdealPDActuatorCfg),
    DCMotorCfg: lambda: _pd(DCMotorCfg, saturation_effort=2.0, velocity_limit=5.0),
    DelayedPDActuatorCfg: lambda: _pd(DelayedPDActuatorCfg),
    ImplicitActuatorCfg: lambda: _pd(ImplicitActuatorCfg),
    SceneBaseCfg: lambda: SceneBaseCfg(env_spacing=1.0),
    AssetBaseCfg: lambda: AssetBaseCfg(prim_path="/World/Thing"),
    RigidObjectCfg: lambda: RigidObjectCfg(prim_path="/World/Box"),
    ArticulationFileCfg: lambda: ArticulationFileCfg(asset_path="robot.xml"),
    MjcfFileCfg: lambda: MjcfFileCfg(asset_path="robot.xml"),
    UrdfFileCfg: lambda: UrdfFileCfg(asset_path="robot.urdf"),
    UsdFileCfg: lambda: UsdFileCfg(asset_path="robot.usda"),
    ClothMaterialCfg: lambda: ClothMaterialCfg(prim_path="/World/Cloth"),
    SoftMaterialCfg: lambda: SoftMaterialCfg(prim_path="/World/SoftBody"),
    MeshFileCfg: lambda: MeshFileCfg(prim_path="/World/Mesh", asset_path="mesh.obj"),
    ClothMeshCfg: lambda: ClothMeshCfg(asset_path="cloth.obj"),
    SoftMeshCfg: lambda: SoftMeshCfg(asset_path="body.npz"),
    UsdDeformablesCfg: lambda: UsdDeformablesCfg(asset_path="stage.usda"),
    ArticulationCfg: lambda: ArticulationCfg(spawn=MjcfFileCfg(asset_path="robot.xml")),
    CoupledDirectEnvCfg: lambda: CoupledDirectEnvCfg(scene=BoxOnClothSceneCfg()),
    ClothDepthTaskCfg: lambda: ClothDepthTaskCfg(scene=PressClothSceneCfg()),
    FrankaLiftEnvCfg: lambda: FrankaLiftEnvCfg(scene=FrankaLiftSoftSceneCfg()),
    # manager-based workflow
    CoupledEnvCfgBase: lambda: CoupledEnvCfgBase(scene=BoxOnClothSceneCfg()),
    ManagerBasedEnvCfg: lambda: _manager_env(ManagerBasedEnvCfg),
    ManagerBasedRLEnvCfg: lambda: _manager_env(
        ManagerBasedRLEnvCfg, episode_length_s=2.0, rewards=RewardsCfg(), terminations=TerminationsCfg()
    ),
    ManagerTermBaseCfg: lambda: ManagerTermBaseCfg(func=_term),
    ObservationTermCfg: lambda: ObservationTermCfg(func=_term),
    RewardTermCfg: lambda: RewardTermCfg(func=_term, weight=-0.5),
    TerminationTermCfg: lambda: TerminationTermCfg(func=_term),
    EventTermCfg: lambda: EventTermCfg(func=_term, mode="reset"),
    CurriculumTermCfg: lambda: CurriculumTermCfg(func=_term),
    CommandTermCfg: lambda: CommandTermCfg(class_type=mdp.NullCommand, resampling_time_range=(1.0, 2.0)),
    ActionTermCfg: lambda: ActionTermCfg(class_type=mdp.JointPositionAction, asset_name="robot"),
    RecorderTermCfg: lambda: RecorderTermCfg(class_type=RecorderTerm),
    SceneEntityCfg: lambda: SceneEntityCfg("robot"),
    NoiseCfg: lambda: NoiseCfg(func=constant_noise),
    NoiseModelCfg: lambda: NoiseModelCfg(noise_cfg=GaussianNoiseCfg(std=0.01)),
    NoiseModelWithAdditiveBiasCfg: lambda: NoiseModelWithAdditiveBiasCfg(
        noise_cfg=GaussianNoiseCfg(std=0.01), bias_noise_cfg=UniformNoiseCfg(n_min=-0.1, n_max=0.1)
    ),
    JointActionCfg: lambda: _joints(JointActionCfg, class_type=mdp.JointEffortAction),
    mdp.JointPositionActionCfg: lambda: _joints(mdp.JointPositionActionCfg),
    mdp.RelativeJointPositionActionCfg: lambda: _joints(mdp.RelativeJointPositionActionCfg),
    mdp.JointEffortActionCfg: lambda: _joints(mdp.JointEffortActionCfg),
    mdp.JointPositionToLimitsActionCfg: lambda: _joints(mdp.JointPositionToLimitsActionCfg),
    mdp.BinaryJointPositionActionCfg: lambda: _joints(
        mdp.BinaryJointPositionActionCfg, open_command_expr={"joint_.*": 0.04}, close_command_expr={"joint_.*": 0.0}
    ),
    UniformPoseCommandRanges: _pose_ranges,
    mdp.UniformPoseCommandCfg: lambda: mdp.UniformPoseCommandCfg(
        asset_name="robot", body_name="hand", resampling_time_range=(4.0, 4.0), ranges=_pose_ranges()
    ),
    mdp.DifferentialIKControllerCfg: lambda: mdp.DifferentialIKControllerCfg(command_type="pose", ik_method="dls"),
    mdp.DifferentialInverseKinematicsActionCfg: lambda: _joints(
        mdp.DifferentialInverseKinematicsActionCfg,
        body_name="hand",
        controller=mdp.DifferentialIKControllerCfg(command_type="position", ik_method="dls"),
    ),
}
"""Config classes that need arguments (required fields) and how to build a valid instance of each; every
other config class found in the package and the configs package is built with its defaults."""


def _config_modules():
    """Every module of ``isaaclab_contrib`` and ``isaaclab_coupling_configs`` (configs are found in all)."""
    names = []
    for package in (isaaclab_contrib, isaaclab_coupling_configs):
        names += [m.name for m in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}.")]
    return [importlib.import_module(name) for name in names]


def _config_classes() -> set[type]:
    found = set()
    for module in _config_modules():
        for obj in vars(module).values():
            if isinstance(obj, type) and is_configclass(obj) and obj.__module__ == module.__name__:
                found.add(obj)
    return found


for _cls in _config_classes():
    FACTORIES.setdefault(_cls, _cls)
CLASSES = sorted(FACTORIES, key=lambda c: c.__name__)


def _snapshot(cfg) -> str:
    return repr(cfg.to_dict())


# Config classes exempted from the coverage test below (none: every config class has a factory and ranges).
PENDING: set[str] = set()


def test_every_config_class_is_covered():
    found = _config_classes()
    assert {SteelSolverCfg, CouplerAdmmCfg, PressClothEnvCfg, RigidObjectCfg, ArmPressClothSceneCfg} <= found
    assert {cls.__name__ for cls in found - set(FACTORIES)} - PENDING == set()
    unbuildable = []
    for cls in sorted(found, key=lambda c: c.__name__):
        try:
            FACTORIES[cls]().validate()
        except Exception as err:  # a class with required fields needs an explicit factory above
            unbuildable.append(f"{cls.__name__}: {type(err).__name__}: {err}")
    assert not unbuildable, unbuildable


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_defaults_validate_without_mutation(cls):
    cfg = FACTORIES[cls]()
    assert type(cfg) is cls
    before = _snapshot(cfg)
    cfg.validate()
    cfg.validate()
    assert _snapshot(cfg) == before


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_numeric_field_declares_a_range(cls):
    rules = field_rules(cls)  # raises for a range naming an unknown or non-numeric field
    numeric = {name for name, rule in rules.items() if rule.numeric}
    assert numeric <= set(declared_ranges(cls)), f"{cls.__name__}: numeric fields without a declared range"
    names = {f.name for f in dataclasses.fields(cls)}
    assert "_ranges" not in names, "ClassVar metadata must not become a dataclass field"


# ------------------------------------------------------------------------------ generated cases
def _probes(rule: FieldRule) -> list[float]:
    """Values just outside the declared range (integers only for integer fields)."""
    integral = "float" not in rule.kinds and rule.vector_kind != "float"
    steps = (1,) if integral else (1, 0.5, 1e-3)
    candidates = []
    for interval in rule.range.intervals:
        for bound in (interval.lo, interval.hi):
            if math.isfinite(bound):
                candidates.append(bound)
                candidates.extend(bound + s * sign for s in steps for sign in (-1, 1))
    out = sorted({int(c) if integral else float(c) for c in candidates if not rule.range.contains(c)})
    if integral:
        out = [int(c) for c in out if float(c).is_integer()]
    return out


def _bad_scalar_values(rule: FieldRule) -> list[tuple[object, type[Exception]]]:
    cases: list[tuple[object, type[Exception]]] = []
    floats = "float" in rule.kinds
    cases.append((NAN, ValueError if floats else TypeError))
    for inf in (INF, -INF):
        if not floats:
            cases.append((inf, TypeError))
        elif not rule.range.contains(inf):
            cases.append((inf, ValueError))
    cases += [(value, ValueError) for value in _probes(rule)]
    if "str" not in rule.kinds:
        cases.append(("1", TypeError))
    cases.append((True, TypeError))
    if not floats:
        cases.append((1.5, TypeError))
    if not rule.optional:
        cases.append((None, TypeError))
    if rule.vector_kind is None:  # else a sequence is a vector (its cases: _bad_vector_values)
        cases.append(([1], TypeError))
    if rule.mapping_kind is not None:  # float | dict[str, float]: every value of the dict is checked
        cases += [({1: 1.0}, TypeError), ({"x": "1"}, TypeError), ({"x": True}, TypeError)]
        cases += [({"x": value}, exc) for value, exc in _bad_scalar_values(_scalar_only(rule)) if _is_number(value)]
    return cases


def _scalar_only(rule: FieldRule) -> FieldRule:
    """The rule of one value of a dict member (same kind and range, nothing else)."""
    return dataclasses.replace(rule, kinds=frozenset({rule.mapping_kind}), optional=False, mapping_kind=None)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bad_vector_values(rule: FieldRule, default) -> list[tuple[object, type[Exception]]]:
    n = rule.vector_length or 3
    good = list(default) if isinstance(default, (tuple, list, np.ndarray)) else [0.0] * n
    cases: list[tuple[object, type[Exception]]] = [("abc", TypeError), ({"x": 1}, TypeError)]
    if rule.kinds & {"int", "float"}:  # a number or a vector (float | tuple[float, ...]): the number's cases too
        cases += [(v, exc) for v, exc in _bad_scalar_values(rule) if not isinstance(v, str)]
    else:
        cases.append((5, TypeError))
    if rule.vector_length is not None:
        cases += [((*good, good[0]), ValueError), (tuple(good[:-1]), ValueError)]
    if not rule.optional:
        cases.append((None, TypeError))
    element_bad = [(True, TypeError), ("1", TypeError)]
    if rule.vector_kind == "float":
        element_bad += [(NAN, ValueError)] + [(inf, ValueError) for inf in (INF, -INF) if not rule.range.contains(inf)]
    else:
        element_bad += [(1.5, TypeError), (NAN, TypeError)]
    element_bad += [(value, ValueError) for value in _probes(rule)]
    for value, exc in element_bad:
        cases.append((tuple([value, *good[1:]]), exc))
    return cases


def _generated_cases():
    cases = []
    for cls in CLASSES:
        default_cfg = FACTORIES[cls]()
        for name, rule in field_rules(cls).items():
            if rule.vector_kind is not None:
                bad = _bad_vector_values(rule, getattr(default_cfg, name))
            elif rule.numeric:
                bad = _bad_scalar_values(rule)
            elif "bool" in rule.kinds:
                bad = [("yes", TypeError), (1, TypeError), (1.0, TypeError)]
            elif rule.literals:
                bad = [("not-a-choice", ValueError), (_Opaque(), TypeError)]
            else:
                bad = [(1, TypeError)] if "str" in rule.kinds else []
            for value, exc in bad:
                cases.append(pytest.param(cls, name, value, exc, id=f"{cls.__name__}.{name}={value!r}"))
    return cases


GENERATED = _generated_cases()


def test_generated_cases_cover_every_numeric_field():
    covered = {(case.values[0], case.values[1]) for case in GENERATED}
    for cls in CLASSES:
        for name, rule in field_rules(cls).items():
            assert (cls, name) in covered
            if rule.numeric and rule.range.text != "any":
                assert _probes(rule), f"{cls.__name__}.{name}: no out-of-range probe for {rule.range.text!r}"
    assert len(GENERATED) > 500


@pytest.mark.parametrize(("cls", "field", "value", "exc"), GENERATED)
def test_bad_field_value_is_rejected_naming_class_and_field(cls, field, value, exc):
    cfg = FACTORIES[cls]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # setting the deprecated solver_type warns
        setattr(cfg, field, value)
    before = _snapshot(cfg)
    # The class name, optionally an entry subscript (CouplerEntryCfg['rigid']), then the field.
    pattern = rf"{cls.__name__}(\[[^\]]*\])?\.{field}\b"
    with pytest.raises(exc, match=pattern):
        cfg.validate()
    assert _snapshot(cfg) == before


# ------------------------------------------------------------------------------ hand-written expectations
def test_vbd_iterations_zero_or_negative():
    with pytest.raises(ValueError, match=r"^VBDSolverCfg\.iterations must be >= 1, got 0$"):
        VBDSolverCfg(iterations=0).validate()
    with pytest.raises(ValueError, match=r"^VBDSolverCfg\.iterations must be >= 1, got -1$"):
        VBDSolverCfg(iterations=-1).validate()
    VBDSolverCfg(iterations=None).validate()
    VBDSolverCfg(iterations=np.int32(3)).validate()
    with pytest.raises(TypeError, match=r"VBDSolverCfg\.iterations must be an integer or None, got float 2\.0"):
        VBDSolverCfg(iterations=2.0).validate()


def test_simulation_dt_and_device():
    physics = NewtonCfg(solver_cfg=SteelSolverCfg())
    with pytest.raises(ValueError, match=r"^SimulationCfg\.dt must be finite"):
        SimulationCfg(dt=INF, physics=physics).validate()
    with pytest.raises(ValueError, match=r"^SimulationCfg\.dt must not be NaN"):
        SimulationCfg(dt=NAN, physics=physics).validate()
    with pytest.raises(ValueError, match=r"^SimulationCfg\.dt must be > 0, got 0\.0"):
        SimulationCfg(dt=0.0, physics=physics).validate()
    with pytest.raises(TypeError, match=r"SimulationCfg\.dt must be a real number, got bool"):
        SimulationCfg(dt=True, physics=physics).validate()
    SimulationCfg(dt=1, physics=physics).validate()  # an int is a real number
    for device in ("cpu", "cuda", "cuda:0", "cuda:3"):
        SimulationCfg(device=device, physics=physics).validate()
    for device in ("tpu", "CPU", "cuda:", "cuda:x", "cuda0", " cpu", "gpu:0"):
        with pytest.raises(ValueError, match=r"SimulationCfg\.device must be a Warp device alias"):
            SimulationCfg(device=device, physics=physics).validate()
    with pytest.raises(TypeError, match=r"SimulationCfg\.device must be a string, got int 0"):
        SimulationCfg(device=0, physics=physics).validate()


def test_unavailable_cuda_device_still_falls_back_to_cpu(caplog):
    from isaaclab_contrib.physics.simulation_context import _resolve_device

    SimulationCfg(device="cuda:99", physics=NewtonCfg(solver_cfg=SteelSolverCfg())).validate()
    with caplog.at_level(logging.WARNING):
        assert _resolve_device("cuda:99") == "cpu"
    assert "not available" in caplog.text


def test_gravity_is_a_vector_of_three_finite_numbers():
    with pytest.raises(TypeError, match=r"NewtonModelCfg\.gravity must be a sequence of 3 real numbers"):
        NewtonModelCfg(gravity=5).validate()
    with pytest.raises(ValueError, match=r"NewtonModelCfg\.gravity\[0\] must not be NaN"):
        NewtonModelCfg(gravity=(NAN, 0.0, 0.0)).validate()
    with pytest.raises(ValueError, match=r"NewtonModelCfg\.gravity must have 3 components, got 2"):
        NewtonModelCfg(gravity=(1.0, 2.0)).validate()
    with pytest.raises(ValueError, match=r"NewtonModelCfg\.gravity\[2\] must be finite"):
        NewtonModelCfg(gravity=(0.0, 0.0, -INF)).validate()
    with pytest.raises(TypeError, match=r"NewtonModelCfg\.gravity\[1\] must be a real number, got str"):
        NewtonModelCfg(gravity=(0.0, "0", -9.81)).validate()
    NewtonModelCfg(gravity=(0.0, 0.0, -9.81)).validate()
    NewtonModelCfg(gravity=[0, 0, -10]).validate()
    NewtonModelCfg(gravity=np.array([0.0, 0.0, -9.81], dtype=np.float32)).validate()


def test_coupler_rejects_extra_solver_args():
    for cls in (CouplerAdmmCfg, CouplerProxyCfg):
        with pytest.raises(
            ValueError, match=rf"{cls.__name__}\.extra_solver_args.*take no extra arguments.*solver_cfg"
        ):
            cls(entries=_entries(), extra_solver_args={"x": 1}).validate()
    # An entry's own solver config keeps its extra arguments.
    entries = _entries()
    entries[0].solver_cfg.extra_solver_args = {"row_watermark": True}
    CouplerAdmmCfg(entries=entries).validate()
    with pytest.raises(TypeError, match=r"SteelSolverCfg\.extra_solver_args must be a dict"):
        SteelSolverCfg(extra_solver_args=["x"]).validate()


def test_newton_cfg_ranges_and_nesting():
    with pytest.raises(ValueError, match=r"^NewtonCfg\.num_substeps must be >= 1, got 0$"):
        NewtonCfg(num_substeps=0, solver_cfg=SteelSolverCfg()).validate()
    with pytest.raises(ValueError, match=r"^NewtonCfg\.collision_interval must be >= 1, got -2$"):
        NewtonCfg(collision_interval=-2, solver_cfg=SteelSolverCfg()).validate()
    with pytest.raises(ValueError, match=r"^NewtonCfg\.solver_cfg: SteelSolverCfg\.cfm must be >= 0"):
        NewtonCfg(solver_cfg=SteelSolverCfg(cfm=-1.0)).validate()
    with pytest.raises(ValueError, match=r"^NewtonCfg\.model_cfg: NewtonModelCfg\.soft_contact_restitution"):
        NewtonCfg(solver_cfg=SteelSolverCfg(), model_cfg=NewtonModelCfg(soft_contact_restitution=1.5)).validate()
    with pytest.raises(ValueError, match=r"^NewtonCfg\.collision_cfg: NewtonCollisionPipelineCfg\.max_triangle_pairs"):
        NewtonCfg(
            solver_cfg=SteelSolverCfg(), collision_cfg=NewtonCollisionPipelineCfg(max_triangle_pairs=0)
        ).validate()
    with pytest.raises(ValueError, match=r"NewtonCfg\.body_qdd_source must be one of 'solver', 'step_average'"):
        NewtonCfg(solver_cfg=SteelSolverCfg(), body_qdd_source="imu").validate()


def test_entry_solver_cfg_is_validated_and_named():
    entries = _entries()
    entries[1].solver_cfg = VBDSolverCfg(iterations=0)
    expected = "CouplerAdmmCfg.entries['cloth'].solver_cfg: VBDSolverCfg.iterations must be >= 1, got 0"
    with pytest.raises(ValueError) as info:
        CouplerAdmmCfg(entries=entries).validate()
    assert str(info.value) == expected
    sim = SimulationCfg(device="cpu", physics=NewtonCfg(solver_cfg=CouplerAdmmCfg(entries=entries)))
    with pytest.raises(ValueError) as info:
        sim.validate()
    assert str(info.value) == f"SimulationCfg.physics: NewtonCfg.solver_cfg: {expected}"
    entries[1].solver_cfg = VBDSolverCfg()
    entries[0].solver_cfg = SteelSolverCfg(solve_mode="parallel")
    with pytest.raises(ValueError, match=r"entries\['rigid'\]\.solver_cfg: SteelSolverCfg\.solve_mode must be one of"):
        CouplerProxyCfg(entries=entries).validate()


def test_model_cfg_of_a_coupler_is_named():
    cfg = CouplerAdmmCfg(entries=_entries(), model_cfg=NewtonModelCfg(gravity=(0.0, 0.0)))
    with pytest.raises(ValueError, match=r"^CouplerAdmmCfg\.model_cfg: NewtonModelCfg\.gravity must have 3 components"):
        cfg.validate()


def test_proxy_mapping_ranges_keep_their_entry_path():
    mapping = CouplerProxyMappingCfg(source="rigid", destination="cloth", bodies=[0], mass_scale=-1.0)
    with pytest.raises(ValueError, match=r"^CouplerProxyCfg\.proxies\[0\]\.mass_scale must be > 0, got -1\.0$"):
        CouplerProxyCfg(entries=_entries(), proxies=[mapping]).validate()
    mapping = CouplerProxyMappingCfg(
        source="rigid",
        destination="cloth",
        bodies=[0],
        collision_pipeline=NewtonCollisionPipelineCfg(soft_contact_gap=NAN),
    )
    with pytest.raises(
        ValueError, match=r"proxies\[0\]\.collision_pipeline: NewtonCollisionPipelineCfg\.soft_contact_gap"
    ):
        CouplerProxyCfg(entries=_entries(), proxies=[mapping]).validate()
    entry = CouplerEntryCfg(name="rigid", solver_cfg=SteelSolverCfg(), bodies=[".*"], substeps=0)
    with pytest.raises(ValueError, match=r"^CouplerAdmmCfg\.entries\['rigid'\]\.substeps must be >= 1, got 0$"):
        CouplerAdmmCfg(entries=[entry]).validate()


def test_special_values_and_infinity():
    MPMSolverCfg(max_active_cell_count=-1).validate()
    MPMSolverCfg(max_active_cell_count=16).validate()
    with pytest.raises(ValueError, match=r"MPMSolverCfg\.max_active_cell_count must be -1 or >= 1, got 0"):
        MPMSolverCfg(max_active_cell_count=0).validate()
    with pytest.raises(ValueError, match=r"MPMSolverCfg\.critical_fraction must be <= 1 \(allowed range \[0, 1\]\)"):
        MPMSolverCfg(critical_fraction=1.5).validate()
    _pd(IdealPDActuatorCfg, effort_limit=INF).validate()
    _pd(ImplicitActuatorCfg, velocity_limit=INF).validate()
    NewtonModelCfg(particle_max_velocity=INF).validate()
    with pytest.raises(ValueError, match=r"IdealPDActuatorCfg\.stiffness must be finite"):
        IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=INF, damping=0.1).validate()
    with pytest.raises(ValueError, match=r"DCMotorCfg\.saturation_effort must be finite"):
        _pd(DCMotorCfg, saturation_effort=INF, velocity_limit=1.0).validate()
    with pytest.raises(ValueError, match=r"IdealPDActuatorCfg\.effort_limit must be > 0 \(inf allowed\), got 0\.0"):
        _pd(IdealPDActuatorCfg, effort_limit=0.0).validate()
    with pytest.raises(ValueError, match=r"XPBDSolverCfg\.soft_contact_relaxation must be < 2"):
        XPBDSolverCfg(soft_contact_relaxation=2.0).validate()
    with pytest.raises(ValueError, match=r"KaminoSolverCfg\.angular_velocity_damping must be <= 1"):
        KaminoSolverCfg(angular_velocity_damping=1.5).validate()


def test_union_of_int_and_str_fields():
    MJWarpSolverCfg(solver="newton", integrator=3, cone="elliptic").validate()
    with pytest.raises(ValueError, match=r"MJWarpSolverCfg\.solver must be >= 1 \(allowed range \[1, 2\]\), got 0"):
        MJWarpSolverCfg(solver=0).validate()
    with pytest.raises(TypeError, match=r"MJWarpSolverCfg\.cone must be an integer, a string or None, got bool"):
        MJWarpSolverCfg(cone=False).validate()


def test_scene_and_task_configs():
    scene = BoxOnClothSceneCfg()
    scene.cloth.cells = 0
    with pytest.raises(ValueError, match=r"BoxOnClothSceneCfg\.cloth\.cells must be >= 1, got 0"):
        scene.build(None)  # validated before anything is built
    with pytest.raises(ValueError, match=r"ToolInSandSceneCfg\.num_envs must be >= 1, got 0"):
        ToolInSandSceneCfg(num_envs=0).validate()
    with pytest.raises(ValueError, match=r"HarshGripperSceneCfg\.close_time must be > 0, got 0\.0"):
        HarshGripperSceneCfg(close_time=0.0).validate()
    assert HarshGripperSceneCfg().block.density > GripperSceneCfg().block.density  # the harsh values
    ball = AttachedBallSceneCfg()
    ball.cloth.cells = 1
    with pytest.raises(
        ValueError,
        match=r"AttachedBallSceneCfg\.cloth\.cells must be >= 2 \(the ball hangs under a center particle\), got 1",
    ):
        ball.validate()
    with pytest.raises(ValueError, match=r"PressClothEnvCfg\.target_depth_range must be \(low, high\)"):
        PressClothEnvCfg(target_depth_range=(0.07, 0.04)).validate()
    task = PressClothEnvCfg()
    task.sim.device = "gpu"
    with pytest.raises(ValueError, match=r"PressClothEnvCfg\.sim: SimulationCfg\.device must be a Warp device alias"):
        task.validate()
    with pytest.raises(ValueError, match=r"CoupledDirectEnvCfg\.decimation must be >= 1, got 0"):
        CoupledDirectEnvCfg(scene=BoxOnClothSceneCfg(), decimation=0).validate()
    twice = CoupledDirectEnvCfg(scene=BoxOnClothSceneCfg(), decimation=4)
    twice.sim.physics.decimation = 2  # a second home of the task's decimation
    with pytest.raises(
        ValueError, match=r"CoupledDirectEnvCfg\.sim\.physics\.decimation is 2 but CoupledDirectEnvCfg\.decimation is 4"
    ):
        twice.validate()
    twice.sim.physics.decimation = 4  # the same value twice is no conflict
    twice.validate()
    assert twice.simulation_cfg().physics.decimation == 4
    for cfg in (GrainsOnClothSceneCfg(), XpbdVbdCoupledSceneCfg(), SoftbodyOnClothSceneCfg(), ArmPressClothEnvCfg()):
        cfg.validate()


def test_ranges_merge_along_the_mro_and_typos_raise():
    @configclass
    class StrictVBDCfg(VBDSolverCfg):
        _ranges: ClassVar[dict[str, str]] = {"iterations": ">= 5"}

    with pytest.raises(ValueError, match=r"StrictVBDCfg\.iterations must be >= 5, got 3"):
        StrictVBDCfg(iterations=3).validate()
    with pytest.raises(ValueError, match=r"StrictVBDCfg\.friction_epsilon must be > 0"):
        StrictVBDCfg(friction_epsilon=0.0).validate()
    VBDSolverCfg(iterations=3).validate()  # the base class keeps its own range

    @configclass
    class TypoCfg:
        _ranges: ClassVar[dict[str, str]] = {"iteration": ">= 1"}
        iterations: int = 1

    with pytest.raises(TypeError, match=r"TypoCfg\._ranges names unknown field\(s\) \['iteration'\]"):
        TypoCfg().validate()

    @configclass
    class NotNumericCfg:
        _ranges: ClassVar[dict[str, str]] = {"name": ">= 1"}
        name: str = "x"

    with pytest.raises(TypeError, match=r"range for 'name', which is not a numeric field"):
        NotNumericCfg().validate()


def test_parse_range():
    r = parse_range("(0, 1]")
    assert not r.contains(0.0) and r.contains(1e-9) and r.contains(1.0) and not r.contains(1.0001)
    r = parse_range("-1 | >= 1")
    assert r.contains(-1) and not r.contains(0) and r.contains(1) and not r.contains(-2) and not r.contains(INF)
    assert parse_range("(0, inf]").contains(INF)
    assert not parse_range(">= 0").contains(INF)
    assert not parse_range("any").contains(INF) and parse_range("any").contains(-1e300)
    assert parse_range("[-1.0, 1.0]").describe() == "in [-1.0, 1.0]"
    for bad in ("", ">= x", "[1, 0]", "(0 1)", ">= nan"):
        with pytest.raises(ValueError):
            parse_range(bad)


def test_validation_never_mutates_nested_configs():
    cfg = SimulationCfg(
        device="cpu",
        physics=NewtonCfg(
            solver_cfg=CouplerProxyCfg(
                entries=_entries(),
                proxies=[
                    CouplerProxyMappingCfg(
                        source="rigid",
                        destination="cloth",
                        bodies=[".*/Box"],
                        collision_pipeline=NewtonCollisionPipelineCfg(),
                    )
                ],
                model_cfg=NewtonModelCfg(gravity=[0, 0, -9.81]),
            ),
            model_cfg=NewtonModelCfg(gravity=np.array([0.0, 0.0, -1.0])),
        ),
    )
    before = _snapshot(cfg)
    cfg.validate()
    assert _snapshot(cfg) == before
    assert isinstance(cfg.physics.solver_cfg.model_cfg.gravity, list)  # not converted to a tuple
    assert re.search(r"bodies': \['\.\*/Box'\]", before)  # regex selectors are left as written


def test_field_type_hints_resolve_a_class_and_refuse_anything_else():
    from isaaclab_coupling_configs.franka_lift_task import FrankaLiftSoftCoarseEnvCfg

    hints = field_type_hints(FrankaLiftSoftCoarseEnvCfg)
    assert hints["action_limit_penalty"] is float and hints["workspace_high"] == tuple[float, float, float]
    for bad in (5, None, "FrankaLiftEnvCfg", FrankaLiftSoftCoarseEnvCfg()):
        with pytest.raises(TypeError, match="field_type_hints: expected a class"):
            field_type_hints(bad)


# ------------------------------------------------------------------------------ manager-based workflow configs
def test_manager_term_configs():
    RewardTermCfg(func=_term, weight=-2.0).validate()  # a penalty
    RewardTermCfg(func=_term, weight=0.0).validate()  # logged, not computed
    with pytest.raises(ValueError, match=r"^RewardTermCfg\.weight must be finite"):
        RewardTermCfg(func=_term, weight=-INF).validate()
    with pytest.raises(TypeError, match=r"^RewardTermCfg\.func must be a function or a ManagerTermBase subclass"):
        RewardTermCfg(func=5, weight=1.0).validate()
    with pytest.raises(TypeError, match=r"^TerminationTermCfg\.params must be a dict"):
        TerminationTermCfg(func=_term, params=[1]).validate()
    EventTermCfg(func=_term, mode="interval", interval_range_s=(0.0, 2.0)).validate()
    EventTermCfg(func=_term, mode="reset", min_step_count_between_reset=3).validate()
    with pytest.raises(ValueError, match=r"^EventTermCfg\.interval_range_s must be set"):
        EventTermCfg(func=_term, mode="interval").validate()
    with pytest.raises(ValueError, match=r"^EventTermCfg\.interval_range_s must be \(min, max\) with min <= max"):
        EventTermCfg(func=_term, mode="interval", interval_range_s=(2.0, 1.0)).validate()
    with pytest.raises(ValueError, match=r"^EventTermCfg\.min_step_count_between_reset applies to mode 'reset'"):
        EventTermCfg(func=_term, mode="startup", min_step_count_between_reset=3).validate()
    ObservationTermCfg(func=_term, scale=(1.0, -2.0), clip=(-1.0, 1.0), history_length=3).validate()
    ObservationTermCfg(func=_term, scale=0.5).validate()
    with pytest.raises(ValueError, match=r"^ObservationTermCfg\.clip must be \(min, max\) with min <= max"):
        ObservationTermCfg(func=_term, clip=(1.0, -1.0)).validate()
    with pytest.raises(ValueError, match=r"^ObservationTermCfg\.scale\[1\] must be finite"):
        ObservationTermCfg(func=_term, scale=(1.0, INF)).validate()
    ObservationGroupCfg(concatenate_dim=0, history_length=0).validate()
    with pytest.raises(ValueError, match=r"^ObservationGroupCfg\.history_length must be >= 0, got -1$"):
        ObservationGroupCfg(history_length=-1).validate()
    with pytest.raises(TypeError, match=r"^ActionTermCfg\.class_type must be a class"):
        ActionTermCfg(class_type="JointPositionAction", asset_name="robot").validate()


def test_command_configs_and_infinite_resampling_time():
    from isaaclab_coupling_configs.arm_press_cloth_manager_task import ClothDepthCommandCfg

    NullCommandCfg = mdp.NullCommandCfg
    NullCommandCfg().validate()  # (inf, inf): never resampled, as Isaac Lab's
    assert NullCommandCfg().resampling_time_range == (INF, INF)
    CommandTermCfg(class_type=mdp.NullCommand, resampling_time_range=(INF, INF)).validate()  # any command term
    ClothDepthCommandCfg().validate()
    with pytest.raises(ValueError, match=r"^NullCommandCfg\.resampling_time_range\[0\] must be >= 0"):
        NullCommandCfg(resampling_time_range=(-1.0, INF)).validate()
    with pytest.raises(ValueError, match=r"^CommandTermCfg\.resampling_time_range must be finite, or \(inf, inf\)"):
        CommandTermCfg(class_type=mdp.NullCommand, resampling_time_range=(1.0, INF)).validate()
    with pytest.raises(
        ValueError, match=r"^CommandTermCfg\.resampling_time_range must be \(min, max\) with min <= max"
    ):
        CommandTermCfg(class_type=mdp.NullCommand, resampling_time_range=(2.0, 1.0)).validate()
    cfg = FACTORIES[mdp.UniformPoseCommandCfg]()
    cfg.ranges.yaw = (1.0, -1.0)
    with pytest.raises(ValueError, match=r"^UniformPoseCommandCfg\.ranges: UniformPoseCommandRanges\.yaw must be"):
        cfg.validate()
    cfg.ranges.yaw = (NAN, 0.0)
    with pytest.raises(
        ValueError, match=r"^UniformPoseCommandCfg\.ranges: UniformPoseCommandRanges\.yaw\[0\] must not"
    ):
        cfg.validate()
    ClothDepthCommandCfg().validate()
    with pytest.raises(ValueError, match=r"^ClothDepthCommandCfg\.depth_range must be \(low, high\)"):
        ClothDepthCommandCfg(depth_range=(0.05, 0.01)).validate()
    with pytest.raises(ValueError, match=r"^ClothDepthCommandCfg\.depth_range\[0\] must be >= 0"):
        ClothDepthCommandCfg(depth_range=(-0.01, 0.01)).validate()


def test_noise_configs_numbers_and_tensors():
    GaussianNoiseCfg(mean=-0.1, std=0.0).validate()
    GaussianNoiseCfg(std=torch.tensor([0.1, 0.2])).validate()  # a tensor: checked by the config's validate()
    assert field_rules(GaussianNoiseCfg)["std"].opaque_types == (torch.Tensor,)
    with pytest.raises(ValueError, match=r"^GaussianNoiseCfg\.std must be >= 0"):
        GaussianNoiseCfg(std=torch.tensor([0.1, -0.2])).validate()
    with pytest.raises(ValueError, match=r"^GaussianNoiseCfg\.mean must hold finite"):
        GaussianNoiseCfg(mean=torch.tensor([NAN])).validate()
    with pytest.raises(TypeError, match=r"^GaussianNoiseCfg\.mean must be a real number or a Tensor, got list"):
        GaussianNoiseCfg(mean=[0.0]).validate()
    ConstantNoiseCfg(bias=-3.0, operation="abs").validate()
    with pytest.raises(ValueError, match=r"^UniformNoiseCfg: n_min \(1\.0\) must not exceed n_max \(-1\.0\)"):
        UniformNoiseCfg(n_min=1.0, n_max=-1.0).validate()
    with pytest.raises(ValueError, match=r"^NoiseModelWithAdditiveBiasCfg\.bias_noise_cfg: GaussianNoiseCfg\.std"):
        NoiseModelWithAdditiveBiasCfg(
            noise_cfg=GaussianNoiseCfg(), bias_noise_cfg=GaussianNoiseCfg(std=-1.0)
        ).validate()
    with pytest.raises(TypeError, match=r"^NoiseModelCfg\.class_type must be a NoiseModel subclass"):
        NoiseModelCfg(class_type=dict, noise_cfg=GaussianNoiseCfg()).validate()
    with pytest.raises(ValueError, match=r"^ObservationTermCfg\.noise: UniformNoiseCfg\.n_max must be finite"):
        ObservationTermCfg(func=_term, noise=UniformNoiseCfg(n_max=INF)).validate()
    with pytest.raises(TypeError, match=r"^ObservationTermCfg\.noise must be a NoiseCfg, a NoiseModelCfg or None"):
        ObservationTermCfg(func=_term, noise=0.1).validate()


def test_joint_action_configs():
    _joints(mdp.JointPositionActionCfg, scale={"joint_1": -0.5, ".*": 2}, offset=0.1).validate()
    _joints(mdp.JointPositionActionCfg, clip={".*": (-INF, 1.0)}).validate()  # one side unclipped
    with pytest.raises(ValueError, match=r"^JointPositionActionCfg\.scale\['joint_1'\] must not be NaN$"):
        _joints(mdp.JointPositionActionCfg, scale={"joint_1": NAN}).validate()
    with pytest.raises(TypeError, match=r"^JointEffortActionCfg\.offset must be a real number or a dict of str to"):
        _joints(mdp.JointEffortActionCfg, offset="0").validate()
    with pytest.raises(ValueError, match=r"^JointPositionActionCfg\.clip\['\.\*'\] must be \(min, max\) with min <="):
        _joints(mdp.JointPositionActionCfg, clip={".*": (1.0, -1.0)}).validate()
    binary = FACTORIES[mdp.BinaryJointPositionActionCfg]()
    binary.open_command_expr = {"joint_.*": INF}
    with pytest.raises(ValueError, match=r"^BinaryJointPositionActionCfg\.open_command_expr\['joint_\.\*'\] must be"):
        binary.validate()


def test_scene_entity_cfg_ids_are_left_to_its_validate():
    assert "joint_ids" not in field_rules(SceneEntityCfg)  # list[int] | slice: no number member
    SceneEntityCfg("robot", joint_names=["a", "b"], body_ids=[0, np.int64(2)]).validate()
    with pytest.raises(ValueError, match=r"^SceneEntityCfg\.joint_ids must be indices >= 0, got -1$"):
        SceneEntityCfg("robot", joint_ids=[-1]).validate()
    with pytest.raises(TypeError, match=r"^SceneEntityCfg\.body_names must be a regex, a list of regexes or None"):
        SceneEntityCfg("robot", body_names=3).validate()
