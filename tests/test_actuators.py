"""Actuators: Isaac Lab-style configs become Newton actuators stepped inside the captured step program."""

import math

import newton
import numpy as np
import pytest
from newton.actuators import DrivePD
from scenes import add_hinge_arm, add_small_cloth

from isaaclab_contrib.coupling import (
    CouplerAdmmCfg,
    CouplerEntryCfg,
    CouplerProxyCfg,
    CouplerProxyMappingCfg,
    NewtonCouplerManager,
)
from isaaclab_contrib.physics import (
    MJWarpSolverCfg,
    NewtonCfg,
    SimulationCfg,
    SimulationContext,
    SteelSolverCfg,
    VBDSolverCfg,
)
from isaaclab_contrib.physics.actuators.adapter import add_actuators
from isaaclab_contrib.physics.actuators.cfg import (
    DCMotorCfg,
    DelayedPDActuatorCfg,
    IdealPDActuatorCfg,
    ImplicitActuatorCfg,
)
from isaaclab_contrib.scenes import replicate_envs

M = NewtonCouplerManager
DT = 1.0 / 480.0
KP, KD, TARGET = 2.0, 0.3, 0.5  # [N*m/rad], [N*m*s/rad], [rad]


def hinge_prototype() -> newton.ModelBuilder:
    """A box on a vertical hinge (gravity does not act on the joint) beside a small pinned cloth."""
    proto = newton.ModelBuilder()
    add_hinge_arm(proto, "Arm", density=500.0)
    add_small_cloth(proto, cells=4, height=0.2)
    return proto


def coupler(arm_solver, kind: str = "proxy"):
    entries = [
        CouplerEntryCfg(name="arm", solver_cfg=arm_solver, bodies=["/World/envs/env_.*/Arm"]),
        CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=2), all_particles=True),
    ]
    if kind == "admm":
        return CouplerAdmmCfg(entries=entries, contact_pairs=[("arm", "cloth")], iterations=4, rho=45.0, gamma=0.0)
    return CouplerProxyCfg(
        entries=entries,
        proxies=[CouplerProxyMappingCfg(source="arm", destination="cloth", bodies=["/World/envs/env_.*/Arm/link"])],
    )


def start(device, actuators, *, arm_solver=None, num_envs=1, graph=True, decimation=1, kind="proxy"):
    sim = SimulationContext(
        SimulationCfg(
            dt=DT,
            device=device,
            physics=NewtonCfg(solver_cfg=coupler(arm_solver or SteelSolverCfg(), kind), use_cuda_graph=graph),
        )
    )
    proto = hinge_prototype()
    if actuators:
        add_actuators(proto, actuators)
    builder = M.create_builder()
    replicate_envs(builder, proto, num_envs, spacing=3.0)
    M.set_builder(builder)
    sim.reset()
    M.set_decimation(decimation)
    return sim


def pd_step_response(t: float, inertia: float) -> float:
    """Analytic angle [rad] of I*q'' = KP*(TARGET - q) - KD*q' from rest at q = 0 (underdamped)."""
    wn = math.sqrt(KP / inertia)
    zeta = KD / (2.0 * math.sqrt(KP * inertia))
    wd = wn * math.sqrt(1.0 - zeta * zeta)
    decay = math.exp(-zeta * wn * t)
    return TARGET * (1.0 - decay * (math.cos(wd * t) + zeta / math.sqrt(1.0 - zeta * zeta) * math.sin(wd * t)))


@pytest.mark.parametrize(
    ("arm_solver", "kind"),
    [
        (SteelSolverCfg(), "proxy"),
        # ~4 s; the two proxy runs stay in the default set
        pytest.param(SteelSolverCfg(), "admm", marks=pytest.mark.slow),
        (MJWarpSolverCfg(use_mujoco_contacts=False), "proxy"),
    ],
    ids=["steel-proxy", "steel-admm", "mujoco-proxy"],
)
def test_pd_hinge_follows_the_analytic_step_response_within_one_percent(device, arm_solver, kind):
    start(
        device,
        {"hinge": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=KP, damping=KD)},
        arm_solver=arm_solver,
        kind=kind,
    )
    assert M.step_mode() == "captured", M.eager_reason()
    model = M.get_model()
    inertia = float(model.body_inertia.numpy()[0][2][2] + model.joint_armature.numpy()[0])
    joint_q, target = M.joint_view("joint_q"), M.joint_view("joint_target_q")
    assert M.joint_view_columns("joint_target_q") == ["hinge"]
    target[:] = TARGET  # a torch write into the control: no re-capture
    worst = 0.0
    for k in range(1, 3 * 480 + 1):  # 3 s, about two damped periods and the settling
        M.step()
        worst = max(worst, abs(float(joint_q[0, 0]) - pd_step_response(k * DT, inertia)))
    assert worst < 0.01 * TARGET
    assert abs(float(joint_q[0, 0]) - TARGET) < 0.01 * TARGET  # settled at the target


def test_effort_limit_clips_joint_f_exactly(device):
    limit = 0.05  # [N*m], far below KP * TARGET
    start(
        device,
        {"hinge": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=KP, damping=KD, effort_limit=limit)},
        num_envs=2,
    )
    target, joint_f = M.joint_view("joint_target_q"), M.joint_view("joint_f")
    target[0] = TARGET
    target[1] = -TARGET
    M.step()
    np.testing.assert_array_equal(joint_f.cpu().numpy()[:, 0], np.array([limit, -limit], dtype=np.float32))


def test_delayed_actuator_acts_on_targets_delay_steps_old(device):
    delay = 3
    start(
        device,
        {"hinge": DelayedPDActuatorCfg(joint_names_expr=["hinge"], stiffness=KP, damping=0.0, delay_steps=delay)},
    )
    target, joint_f = M.joint_view("joint_target_q"), M.joint_view("joint_f")
    for _ in range(delay + 1):  # fill the delay buffer with the zero target
        M.step()
    assert float(joint_f[0, 0]) == 0.0
    target[:] = TARGET
    efforts = []
    for _ in range(delay + 1):
        M.step()
        efforts.append(float(joint_f[0, 0]))
    assert efforts[:delay] == [0.0] * delay  # the new target is not seen for `delay` physics steps
    assert efforts[delay] == pytest.approx(KP * TARGET, rel=1e-6)


def test_dc_motor_saturates_with_speed(device):
    start(
        device,
        {
            "hinge": DCMotorCfg(
                joint_names_expr=["hinge"], stiffness=50.0, damping=0.0, saturation_effort=1.0, velocity_limit=4.0
            )
        },
    )
    target, joint_f, joint_qd = M.joint_view("joint_target_q"), M.joint_view("joint_f"), M.joint_view("joint_qd")
    target[:] = 10.0  # far away: the motor runs at its torque-speed limit
    for _ in range(240):
        qd_before = float(joint_qd[0, 0])
        M.step()
        expected = 1.0 * (1.0 - qd_before / 4.0)  # saturation_effort * (1 - qd / velocity_limit)
        assert float(joint_f[0, 0]) == pytest.approx(min(expected, 1.0), rel=1e-5, abs=1e-6)
    assert 2.0 < float(joint_qd[0, 0]) < 4.0  # speeding up towards the no-load speed, never past it


class _HostDrivePD(DrivePD):
    """A PD drive that declares itself not graph-safe (as a drive doing host work would)."""

    def is_graphable(self) -> bool:
        return False


def _run_actuated(device, *, graph: bool, host_drive: bool):
    sim = SimulationContext(
        SimulationCfg(
            dt=DT, device=device, physics=NewtonCfg(solver_cfg=coupler(SteelSolverCfg()), use_cuda_graph=graph)
        )
    )
    proto = hinge_prototype()
    builder = M.create_builder()
    replicate_envs(builder, proto, 2, spacing=3.0)
    drive = _HostDrivePD if host_drive else DrivePD
    for dof in range(builder.joint_dof_count):
        builder.add_actuator(drive, index=dof, kp=KP, kd=KD)
    M.set_builder(builder)
    sim.reset()
    M.set_decimation(3)
    mode = M.step_mode()
    target = M.joint_view("joint_target_q")
    target[0] = TARGET
    target[1] = -0.3
    for _ in range(25):
        M.step()
    state = {name: getattr(M.get_state_0(), name).numpy().copy() for name in ("joint_q", "joint_qd", "body_q")}
    reason = M.eager_reason()
    sim.clear_instance()
    return mode, reason, state


def test_captured_partial_and_eager_actuated_stepping_are_bitwise_identical(device):
    mode_graph, _, graph = _run_actuated(device, graph=True, host_drive=False)
    mode_partial, reason, partial = _run_actuated(device, graph=True, host_drive=True)
    mode_eager, _, eager = _run_actuated(device, graph=False, host_drive=False)
    assert (mode_graph, mode_partial, mode_eager) == ("captured", "partial", "eager")
    assert "stage 'actuators' runs eagerly" in reason and "_HostDrivePD" in reason
    for name in graph:
        np.testing.assert_array_equal(partial[name], graph[name], err_msg=name)
        np.testing.assert_array_equal(eager[name], graph[name], err_msg=name)
    assert abs(graph["joint_q"][0] - TARGET) < abs(graph["joint_q"][1] - TARGET)  # the targets acted


def test_implicit_actuator_sets_the_solver_drive_and_adds_no_stage():
    builder = hinge_prototype()
    groups = add_actuators(
        builder,
        {"hinge": ImplicitActuatorCfg(joint_names_expr=["hinge"], stiffness=3.0, damping=0.2, effort_limit=1.5)},
    )
    assert not groups["hinge"].explicit and not builder.actuator_entries
    dof = groups["hinge"].dofs[0]
    assert (builder.joint_target_ke[dof], builder.joint_target_kd[dof], builder.joint_effort_limit[dof]) == (
        3.0,
        0.2,
        1.5,
    )
    assert builder.joint_target_mode[dof] == int(newton.JointTargetMode.POSITION_VELOCITY)


def test_implicit_drive_settles_a_steel_hinge_at_its_target(device):
    start(device, {"hinge": ImplicitActuatorCfg(joint_names_expr=["hinge"], stiffness=KP, damping=1.0)})
    assert M.get_actuator_adapter() is None or M.get_actuator_adapter().count == 0
    M.joint_view("joint_target_q")[:] = TARGET
    for _ in range(4 * 480):
        M.step()
    assert abs(float(M.joint_view("joint_q")[0, 0]) - TARGET) < 0.01 * TARGET


def test_activate_newton_actuator_path_is_idempotent(device):
    start(device, {"hinge": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=KP, damping=KD)})
    adapter = M.get_actuator_adapter()
    assert adapter is not None and adapter.count == 1 and "actuators [physics_step]" in M.describe_step_program()[0]
    M.activate_newton_actuator_path()
    M.activate_newton_actuator_path()
    assert M.get_actuator_adapter() is adapter and M.step_mode() == "captured"


def test_masked_reset_clears_the_delay_buffer_of_that_env_only(device):
    start(
        device,
        {"hinge": DelayedPDActuatorCfg(joint_names_expr=["hinge"], stiffness=KP, damping=0.0, delay_steps=2)},
        num_envs=2,
    )
    target, joint_f = M.joint_view("joint_target_q"), M.joint_view("joint_f")
    target[:] = TARGET
    for _ in range(5):
        M.step()
    M.write_initial_state(env_ids=[1])
    M.forward()
    target[1] = 0.0  # env 1 starts over with a zero target; env 0 keeps acting on TARGET
    M.step()
    effort = joint_f.cpu().numpy()[:, 0]
    assert effort[0] != 0.0
    assert effort[1] == 0.0  # an empty (reset) buffer acts on the current zero target, not on old TARGETs


def test_actuator_config_errors_name_the_group_and_field():
    builder = hinge_prototype()
    with pytest.raises(ValueError, match=r"actuators\['arm'\]\.joint_names_expr\[0\]='elbow' matches no joint"):
        add_actuators(builder, {"arm": IdealPDActuatorCfg(joint_names_expr=["elbow"], stiffness=1.0, damping=0.1)})
    with pytest.raises(ValueError, match=r"actuators\['arm'\]: IdealPDActuatorCfg\.stiffness must not be NaN"):
        add_actuators(
            builder, {"arm": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=float("nan"), damping=0.1)}
        )
    with pytest.raises(ValueError, match=r"IdealPDActuatorCfg\.damping must be >= 0"):
        add_actuators(builder, {"arm": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=1.0, damping=-1.0)})
    with pytest.raises(
        ValueError, match=r"IdealPDActuatorCfg\.joint_names_expr\[0\]='\(' is not a valid regular expression"
    ):
        add_actuators(builder, {"arm": IdealPDActuatorCfg(joint_names_expr=["("], stiffness=1.0, damping=0.1)})
    with pytest.raises(TypeError, match=r"IdealPDActuatorCfg\.joint_names_expr must be a list"):
        add_actuators(builder, {"arm": IdealPDActuatorCfg(joint_names_expr="hinge", stiffness=1.0, damping=0.1)})
    with pytest.raises(ValueError, match=r"DelayedPDActuatorCfg\.delay_steps must be >= 1"):
        add_actuators(
            builder,
            {"arm": DelayedPDActuatorCfg(joint_names_expr=["hinge"], stiffness=1.0, damping=0.1, delay_steps=0)},
        )
    with pytest.raises(ValueError, match=r"DCMotorCfg\.velocity_limit must be > 0"):
        add_actuators(
            builder,
            {
                "arm": DCMotorCfg(
                    joint_names_expr=["hinge"], stiffness=1.0, damping=0.1, saturation_effort=1.0, velocity_limit=0.0
                )
            },
        )
    with pytest.raises(ValueError, match=r"already actuated by group 'a'"):
        add_actuators(
            builder,
            {
                "a": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=1.0, damping=0.1),
                "b": IdealPDActuatorCfg(joint_names_expr=["hin.*"], stiffness=1.0, damping=0.1),
            },
        )
    with pytest.raises(ValueError, match="articulation='/World/Robot' matches no joint"):
        add_actuators(
            builder,
            {"a": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=1.0, damping=0.1)},
            articulation="/World/Robot",
        )
    free = newton.ModelBuilder()
    free.add_body(label="Ball")
    free.add_shape_sphere(0, radius=0.1)
    with pytest.raises(ValueError, match="FREE joint; only revolute and prismatic"):
        add_actuators(free, {"a": IdealPDActuatorCfg(joint_names_expr=[".*"], stiffness=1.0, damping=0.1)})
    assert not builder.actuator_entries  # nothing was added by the failed calls


def test_joint_views_are_zero_copy_and_checked(device):
    start(device, {"hinge": IdealPDActuatorCfg(joint_names_expr=["hinge"], stiffness=KP, damping=KD)}, num_envs=3)
    view = M.joint_view("joint_target_q")
    assert tuple(view.shape) == (3, 1) and view.data_ptr() == M.get_control().joint_target_q.ptr
    view[2] = 0.25
    assert M.get_control().joint_target_q.numpy()[2] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="is not one of"):
        M.joint_view("body_q")
