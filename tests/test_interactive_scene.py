"""The runtime scene and its asset objects on real scenes: the arm over a cloth (an articulation and a deformable) and
the pusher over a cloth (a rigid object), two envs each.

Every data field is checked against an independent expectation: the manager's raw views and the model's arrays read
directly, the configs' initial state, the arm's planar kinematics written out here, free fall, a PD settle. One
simulation at a time: ``shared_sims`` holds the running one and switches scenes (the arm's tests come first).
"""

import math

import numpy as np
import pytest
import torch
import warp as wp

from isaaclab_contrib.assets import Articulation, DeformableObject, ProxyArray, RigidObject
from isaaclab_contrib.scenes import InteractiveScene, launch, scene_sim
from isaaclab_coupling_configs.arm_press_cloth_task import ArmPressClothSceneCfg
from isaaclab_coupling_configs.press_cloth_task import PressClothSceneCfg

N = 2
DT = 1.0 / 240.0
DECIMATION = 4
G = 9.81
SCENES = {"arm": ArmPressClothSceneCfg, "press": PressClothSceneCfg}


class _Sims:
    """The one running simulation of this module, launched on demand; switching scenes closes the previous one."""

    def __init__(self, device: str):
        self.device, self.name, self.context = device, None, None

    def get(self, name: str):
        if self.name != name:
            self.close()
            cfg = SCENES[name](num_envs=N)
            sim = scene_sim(DT, decimation=DECIMATION)
            sim.device = self.device
            self.context = launch(cfg, sim)
            self.name, self.cfg = name, cfg
            self.manager = self.context.physics_manager
            self.scene = InteractiveScene(cfg)
        else:  # every test starts from the initial state, default targets and zero efforts
            manager, model = self.manager, self.manager.get_model()
            manager.reset(soft=True)
            control = manager.get_control()
            wp.copy(control.joint_target_q, model.joint_target_q)
            control.joint_target_qd.zero_()
            control.joint_act.zero_()
            self.scene.update(0.0)
        return self

    def close(self):
        if self.context is not None:
            self.context.clear_instance()
        self.context, self.name = None, None


@pytest.fixture(scope="module")
def shared_sims(device):
    sims = _Sims(device)
    yield sims
    sims.close()


@pytest.fixture
def shared_arm(shared_sims):
    return shared_sims.get("arm")


@pytest.fixture
def shared_press(shared_sims):
    return shared_sims.get("press")


def _snapshot(manager) -> list[np.ndarray]:
    state, control = manager.get_state_0(), manager.get_control()
    arrays = [state.body_q, state.body_qd, state.joint_q, state.joint_qd, state.particle_q, state.particle_qd]
    arrays += [control.joint_target_q, control.joint_target_qd, control.joint_act]
    return [a.numpy().copy() for a in arrays]


def _unchanged(manager, before: list[np.ndarray]) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(before, _snapshot(manager), strict=True))


def _quat_x(angle: torch.Tensor) -> torch.Tensor:
    """Quaternions (x, y, z, w) of rotations by *angle* [rad] about +x."""
    return torch.stack([torch.sin(angle / 2), 0 * angle, 0 * angle, torch.cos(angle / 2)], dim=-1)


def _close(actual, expected, atol=1e-5):
    torch.testing.assert_close(
        torch.as_tensor(actual).cpu().float(), torch.as_tensor(expected).cpu().float(), atol=atol, rtol=0
    )


# ---------------------------------------------------------------------- the arm over a cloth
def test_scene_entities_and_properties(shared_arm):
    scene, cfg = shared_arm.scene, shared_arm.cfg
    assert scene.keys() == ["arm", "cloth"] and "arm" in scene and len(scene) == 2
    assert isinstance(scene["arm"], Articulation) and isinstance(scene["cloth"], DeformableObject)
    assert scene.articulations == {"arm": scene["arm"]} and scene.deformable_objects == {"cloth": scene["cloth"]}
    assert scene.rigid_objects == {} and scene.sensors == {} and scene.extras == {}
    assert scene.num_envs == N and scene.physics_dt == pytest.approx(DT)
    assert scene.device == str(wp.device_to_torch(shared_arm.device))
    # Newton's replication centers the envs along x, env_spacing apart.
    _close(scene.env_origins, [[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0]])
    with pytest.raises(KeyError, match=r"'robot'.*\['arm', 'cloth'\]"):
        scene["robot"]
    scene.write_data_to_sim()  # a no-op: writes reach the simulation at once
    # The scene keeps its own copy: editing the config afterwards changes nothing.
    cfg.num_envs = 7
    assert scene.num_envs == N
    cfg.num_envs = N


def test_joint_fields_are_the_managers_views(shared_arm):
    manager, arm = shared_arm.manager, shared_arm.scene["arm"]
    model, data = manager.get_model(), arm.data
    assert arm.joint_names == data.joint_names == ["shoulder", "elbow"] and arm.num_joints == 2
    assert arm.body_names == data.body_names == ["upper_arm", "forearm"] and arm.num_bodies == 2
    assert arm.num_instances == N and arm.is_fixed_base
    columns = manager.joint_view_columns("joint_q")
    cols = [columns.index("shoulder"), columns.index("elbow")]
    for field_name, view in (
        ("joint_pos", "joint_q"),
        ("joint_vel", "joint_qd"),
        ("joint_pos_target", "joint_target_q"),
        ("joint_vel_target", "joint_target_qd"),
        ("joint_effort_target", "joint_act"),
        ("applied_torque", "joint_f"),
    ):
        proxy, raw = getattr(data, field_name), manager.joint_view(view)
        assert isinstance(proxy, ProxyArray) and proxy.shape == (N, 2) and len(proxy) == N
        assert proxy.torch is proxy.torch  # cached view
        assert proxy.torch.data_ptr() == raw[:, cols[0]].data_ptr()  # zero-copy: the same memory
        _close(proxy.torch, raw[:, cols])
    assert "ProxyArray(shape=(2, 2)" in repr(data.joint_pos)
    # Defaults: the config's default pose (the arm builds its joints there).
    default = torch.tensor(shared_arm.cfg.arm.default_joint_pos()).expand(N, 2)
    _close(data.default_joint_pos.torch, default)
    _close(data.joint_pos.torch, default)
    _close(data.default_joint_vel.torch, torch.zeros(N, 2))
    lower, upper = model.joint_limit_lower.numpy(), model.joint_limit_upper.numpy()
    limits = torch.tensor(np.stack([lower, upper], axis=-1)).view(N, 2, 2)
    _close(data.joint_pos_limits.torch, limits, atol=0)
    _close(data.soft_joint_pos_limits.torch, limits, atol=0)  # no soft limit factor in ArticulationCfg
    _close(data.joint_vel_limits.torch, torch.tensor(model.joint_velocity_limit.numpy()).view(N, 2), atol=0)


def test_body_fields_follow_newtons_layout(shared_arm):
    manager, scene, arm = shared_arm.manager, shared_arm.scene, shared_arm.scene["arm"]
    cfg, data, model = shared_arm.cfg.arm, arm.data, manager.get_model()
    labels = list(model.body_label)
    ids = torch.tensor(
        [[labels.index(f"/World/envs/env_{e}/Arm/{b}") for b in ("upper_arm", "forearm")] for e in range(N)]
    )
    body_q = torch.tensor(manager.get_state_0().body_q.numpy())[ids]
    _close(data.body_pos_w.torch, body_q[..., :3])
    _close(data.body_quat_w.torch, body_q[..., 3:])
    # Independent: the shoulder sits shoulder_offset behind and shoulder_height above init_state.pos; the links
    # are rotated about +x by the joint angles, quaternions in (x, y, z, w) order.
    x, y, z = cfg.init_state.pos
    shoulder = scene.env_origins + torch.tensor([x, y - cfg.shoulder_offset, z + cfg.shoulder_height])
    q0 = torch.tensor(cfg.default_joint_pos())
    _close(data.root_pos_w.torch, shoulder)
    _close(data.root_quat_w.torch, _quat_x(q0[0]).expand(N, 4))
    _close(data.body_quat_w.torch[:, 1], _quat_x(q0.sum()).expand(N, 4))
    elbow = shoulder + cfg.link_length * torch.tensor([0.0, math.cos(q0[0]), math.sin(q0[0])])
    _close(data.body_pos_w.torch[:, 1], elbow)
    default = torch.cat([shoulder - scene.env_origins, _quat_x(q0[0]).expand(N, 4), torch.zeros(N, 6)], dim=-1)
    _close(data.default_root_state.torch, default)
    # Drive the shoulder up and step: the upper arm turns about its fixed origin, so body_qd's linear part is the
    # velocity of its center of mass (omega x R com), not of its frame origin (zero), and its angular part omega.
    arm.set_joint_position_target(data.default_joint_pos.torch + torch.tensor([0.4, 0.0], device=scene.device))
    for _ in range(3):
        manager.step()
    body_qd = torch.tensor(manager.get_state_0().body_qd.numpy())[ids]
    _close(data.body_lin_vel_w.torch, body_qd[..., :3])
    _close(data.body_ang_vel_w.torch, body_qd[..., 3:])
    omega = data.root_ang_vel_w.torch.cpu()
    assert float(omega[:, 0].abs().min()) > 0.1 and float(omega[:, 1:].abs().max()) < 1e-4  # about +x only
    _close(omega[:, 0], data.joint_vel.torch[:, 0], atol=1e-4)
    _close(data.root_pos_w.torch, shoulder, atol=1e-5)  # the hinge holds the origin
    com = torch.tensor(model.body_com.numpy())[ids[:, 0]]  # in the body frame [m]
    a = data.joint_pos.torch[:, 0].cpu()  # the upper arm is rotated about +x by the shoulder angle
    com_w = torch.stack(
        [com[:, 0], com[:, 1] * a.cos() - com[:, 2] * a.sin(), com[:, 1] * a.sin() + com[:, 2] * a.cos()], -1
    )
    expected = torch.cross(omega, com_w, dim=-1)
    _close(data.root_lin_vel_w.torch, expected, atol=1e-4)
    assert float(expected.norm(dim=-1).min()) > 0.01
    root_q = torch.tensor(manager.get_state_0().body_q.numpy())[ids[:, 0]]
    _close(data.root_state_w.torch, torch.cat([root_q, body_qd[:, 0]], -1))


def test_computed_fields_refresh_once_per_env_step(shared_arm):
    manager, scene = shared_arm.manager, shared_arm.scene
    cloth, arm = scene["cloth"], scene["arm"]
    ids = torch.tensor(shared_arm.cfg.particle_ids("cloth")).view(N, -1)
    particle_q = wp.to_torch(manager.get_state_0().particle_q)
    # Zero-copy node views; the nodes are the config's particles, env after env.
    assert cloth.num_nodes == ids.shape[1] == shared_arm.cfg.cloth.particle_count()
    assert cloth.data.nodal_pos_w.shape == (N, cloth.num_nodes, 3)
    assert cloth.data.nodal_pos_w.torch.data_ptr() == particle_q[ids[0, 0]].data_ptr()
    _close(cloth.data.nodal_pos_w.torch, particle_q[ids])
    count = cloth.data.refresh_count
    first = cloth.data.root_pos_w.torch.clone()
    _ = cloth.data.root_pos_w.torch
    assert cloth.data.refresh_count == count + 1  # two reads in one env step: one computation
    _close(first, particle_q[ids].mean(dim=1))
    manager.step()
    moved = cloth.data.root_pos_w.torch.clone()
    _ = cloth.data.root_vel_w.torch, cloth.data.root_vel_w.torch, cloth.data.root_pos_w.torch
    assert cloth.data.refresh_count == count + 3  # root_pos_w again and root_vel_w, once each
    _close(moved, particle_q[ids].mean(dim=1))
    assert not torch.equal(moved, first)  # the cloth sags under gravity
    state = cloth.data.nodal_state_w.torch
    _close(state, torch.cat([particle_q[ids], wp.to_torch(manager.get_state_0().particle_qd)[ids]], -1))
    scene.update(1.0 / 60.0)  # invalidates: the next read computes again
    _ = cloth.data.root_pos_w.torch
    assert cloth.data.refresh_count == count + 5
    before = arm.data.refresh_count
    _ = arm.data.root_state_w.torch, arm.data.root_state_w.torch
    assert arm.data.refresh_count == before + 1
    _ = arm.data.joint_pos.torch, arm.data.body_pos_w.torch, cloth.data.nodal_pos_w.torch  # views: never gathered
    assert arm.data.refresh_count == before + 1 and cloth.data.refresh_count == count + 5


def test_targets_are_zero_copy_and_per_env(shared_arm):
    manager, arm = shared_arm.manager, shared_arm.scene["arm"]
    target = manager.joint_view("joint_target_q")
    initial = target.clone()  # the model's initial targets
    arm.data.joint_pos_target.torch[:, 0] = 0.25  # writing the view writes the control
    _close(target[:, 0], [0.25, 0.25])
    arm.set_joint_position_target(torch.tensor([[-0.5]]), joint_ids=[1], env_ids=[1])
    _close(target[:, 1], [initial[0, 1].item(), -0.5])
    arm.set_joint_velocity_target(torch.ones(N, 2))
    _close(manager.joint_view("joint_target_qd"), torch.ones(N, 2))
    arm.set_joint_effort_target(torch.tensor([[0.1, 0.2]]), env_ids=torch.tensor([0]))
    _close(manager.joint_view("joint_act"), [[0.1, 0.2], [0.0, 0.0]])


def test_pd_settle_reaches_the_target_and_applied_torque_is_the_pd_law(shared_arm):
    manager, arm = shared_arm.manager, shared_arm.scene["arm"]
    pd = shared_arm.cfg.arm.actuators["arm"]
    target = arm.data.default_joint_pos.torch + torch.tensor([0.3, -0.2], device=shared_arm.scene.device)
    arm.set_joint_position_target(target)
    for _ in range(40):  # 0.67 s; the fingertip rises away from the cloth
        manager.step()
    error = (arm.data.joint_pos.torch - target).abs()
    # The arm's weight on 40 N*m/rad gains leaves a small offset; the start was 0.3 rad away.
    assert float(error.max()) < 0.03 and float(arm.data.joint_vel.torch.abs().max()) < 0.05
    pd_law = pd.stiffness * (target - arm.data.joint_pos.torch) - pd.damping * arm.data.joint_vel.torch
    _close(arm.data.applied_torque.torch, pd_law, atol=0.02)
    assert float(arm.data.applied_torque.torch.abs().max()) > 0.05  # holding the arm against gravity


def test_joint_state_writes_run_fk_at_the_next_forward(shared_arm):
    manager, scene, arm = shared_arm.manager, shared_arm.scene, shared_arm.scene["arm"]
    cfg, data = shared_arm.cfg.arm, arm.data
    before = data.body_pos_w.torch.clone()
    new = torch.tensor([[0.9, -1.2]])
    arm.write_joint_state_to_sim(new, torch.tensor([[0.5, 0.0]]), env_ids=[1])
    _close(data.joint_pos.torch[1], new[0])
    _close(manager.joint_view("joint_qd")[1], [0.5, 0.0])
    _close(data.body_pos_w.torch, before)  # FK runs at forward() / the next step
    manager.forward()
    elbow = scene.env_origins[1].cpu() + torch.tensor(
        [
            cfg.init_state.pos[0],
            -cfg.shoulder_offset + cfg.link_length * math.cos(0.9),
            0.3 + cfg.shoulder_height + cfg.link_length * math.sin(0.9),
        ]
    )
    _close(data.body_pos_w.torch[1, 1], elbow)
    _close(data.body_quat_w.torch[1], torch.stack([_quat_x(torch.tensor(0.9)), _quat_x(torch.tensor(-0.3))]))
    _close(data.root_ang_vel_w.torch[1], [0.5, 0.0, 0.0])
    _close(data.body_pos_w.torch[0], before[0], atol=0)  # the other env is untouched
    arm.write_joint_position_to_sim(torch.tensor([[0.7]]), joint_ids=[0], env_ids=[0])
    arm.write_joint_velocity_to_sim(torch.zeros(1, 1), joint_ids=[0], env_ids=[0])
    manager.forward()
    _close(data.root_quat_w.torch[0], _quat_x(torch.tensor(0.7)))
    _close(data.joint_vel.torch[0, 0], 0.0)


def test_names_follow_isaac_labs_matching(shared_arm):
    arm = shared_arm.scene["arm"]
    assert arm.find_joints("sh.*") == ([0], ["shoulder"])
    assert arm.find_joints(["elbow", "shoulder"]) == ([0, 1], ["shoulder", "elbow"])
    assert arm.find_joints(["elbow", "shoulder"], preserve_order=True) == ([1, 0], ["elbow", "shoulder"])
    assert arm.find_joints("elbow", joint_subset=["elbow"]) == ([0], ["elbow"])
    assert arm.find_bodies(".*arm") == ([0, 1], ["upper_arm", "forearm"])
    assert arm.find_bodies(["forearm", "upper_arm"], preserve_order=True) == ([1, 0], ["forearm", "upper_arm"])
    with pytest.raises(ValueError, match=r"Articulation 'arm'.*'should'.*\['shoulder', 'elbow'\]"):
        arm.find_joints("should")  # a full match only
    with pytest.raises(ValueError, match=r"Articulation 'arm'.*'hand'.*\['upper_arm', 'forearm'\]"):
        arm.find_bodies(["forearm", "hand"])
    with pytest.raises(ValueError, match=r"matched by both"):
        arm.find_joints([".*", "elbow"])


def test_hostile_inputs_are_refused_with_nothing_written(shared_arm):
    manager, arm, cloth = shared_arm.manager, shared_arm.scene["arm"], shared_arm.scene["cloth"]
    before = _snapshot(manager)
    nodes = cloth.num_nodes
    cases = [
        (
            ValueError,
            r"'arm'.*shape \(2, 2\)",
            lambda: arm.write_joint_state_to_sim(torch.zeros(2, 3), torch.zeros(2, 2)),
        ),
        (
            ValueError,
            r"'arm'.*non-finite",
            lambda: arm.write_joint_state_to_sim(torch.zeros(2, 2), torch.full((2, 2), math.nan)),
        ),
        (
            ValueError,
            r"non-finite",
            lambda: arm.set_joint_position_target(torch.tensor([[math.inf, 0.0]]), env_ids=[0]),
        ),
        (
            IndexError,
            r"'arm': env_ids must lie in \[0, 2\)",
            lambda: arm.write_joint_position_to_sim(torch.zeros(1, 2), env_ids=[2]),
        ),
        (IndexError, r"env_ids", lambda: arm.set_joint_velocity_target(torch.zeros(1, 2), env_ids=[-1])),
        (
            IndexError,
            r"joint_ids must lie in \[0, 2\)",
            lambda: arm.set_joint_effort_target(torch.zeros(2, 1), joint_ids=[5]),
        ),
        (
            TypeError,
            r"env_ids must hold integer",
            lambda: arm.write_joint_velocity_to_sim(torch.zeros(2, 2), env_ids=torch.ones(2, dtype=torch.bool)),
        ),
        (
            TypeError,
            r"env_ids must hold integer",
            lambda: arm.write_joint_velocity_to_sim(torch.zeros(1, 2), env_ids=[0.5]),
        ),
        (ValueError, r"repeats an index", lambda: arm.write_joint_position_to_sim(torch.zeros(2, 2), env_ids=[1, 1])),
        (
            ValueError,
            r"'arm'.*attached to the world",
            lambda: arm.write_root_pose_to_sim(torch.tensor([[0, 0, 1, 0, 0, 0, 1.0]] * 2)),
        ),
        (ValueError, r"attached to the world", lambda: arm.write_root_velocity_to_sim(torch.zeros(2, 6))),
        (ValueError, r"'cloth'.*shape", lambda: cloth.write_nodal_pos_to_sim(torch.zeros(2, nodes - 1, 3))),
        (
            ValueError,
            r"'cloth'.*non-finite",
            lambda: cloth.write_nodal_state_to_sim(torch.full((2, nodes, 6), math.nan)),
        ),
        (
            IndexError,
            r"'cloth'.*env_ids",
            lambda: cloth.write_nodal_velocity_to_sim(torch.zeros(1, nodes, 3), env_ids=[3]),
        ),
        (TypeError, r"'cloth'.*nodal_pos", lambda: cloth.write_nodal_pos_to_sim("up")),
    ]
    for error, pattern, call in cases:
        with pytest.raises(error, match=pattern):
            call()
        assert _unchanged(manager, before), pattern
    manager.forward()  # nothing was marked for FK either: the state stays bitwise as it was
    assert _unchanged(manager, before)


def test_nodal_writes_and_defaults(shared_arm):
    manager, scene, cloth = shared_arm.manager, shared_arm.scene, shared_arm.scene["cloth"]
    model, data = manager.get_model(), cloth.data
    ids = torch.tensor(shared_arm.cfg.particle_ids("cloth")).view(N, -1)
    start = torch.tensor(model.particle_q.numpy())[ids]
    _close(data.default_nodal_state_w.torch[..., :3], start)
    _close(data.default_nodal_state_w.torch[..., 3:], torch.zeros_like(start))
    # The cloth is 0.3 m up, centered on each env origin.
    _close(data.root_pos_w.torch, scene.env_origins.cpu() + torch.tensor([0.0, 0.0, 0.3]), atol=1e-5)
    lifted = data.default_nodal_state_w.torch[:1].clone()
    lifted[..., 2] += 0.01
    lifted[..., 5] = 0.2
    cloth.write_nodal_state_to_sim(lifted, env_ids=[0])
    _close(data.nodal_pos_w.torch[0], lifted[0, :, :3])
    _close(data.nodal_vel_w.torch[0], lifted[0, :, 3:])
    _close(data.nodal_pos_w.torch[1], start[1])
    _close(
        data.root_pos_w.torch[0], scene.env_origins[0].cpu() + torch.tensor([0.0, 0.0, 0.31])
    )  # the write invalidated the cache
    cloth.write_nodal_velocity_to_sim(torch.zeros(1, cloth.num_nodes, 3), env_ids=[0])
    cloth.write_nodal_pos_to_sim(start[1:].to(scene.device), env_ids=torch.tensor([1]))
    _close(data.nodal_vel_w.torch[0], torch.zeros(cloth.num_nodes, 3))
    manager.step()
    assert bool(torch.isfinite(data.nodal_pos_w.torch).all())
    scene.reset([0])  # clears the asset buffers; the state is not restored
    assert float(data.nodal_pos_w.torch[0, :, 2].max()) > 0.305


# ---------------------------------------------------------------------- the pusher over a cloth
def test_rigid_object_fields_and_free_fall(shared_press):
    manager, scene, cfg = shared_press.manager, shared_press.scene, shared_press.cfg
    pusher = scene["pusher"]
    assert isinstance(pusher, RigidObject) and scene.keys() == ["pusher", "cloth"]
    assert pusher.body_names == ["body"] and pusher.num_bodies == 1 and pusher.num_instances == N
    data = pusher.data
    start = scene.env_origins.cpu() + torch.tensor(cfg.pusher.init_state.pos)
    _close(data.root_pos_w.torch, start)
    _close(data.body_pos_w.torch[:, 0], start)
    _close(data.root_quat_w.torch, torch.tensor([[0.0, 0.0, 0.0, 1.0]] * N))
    _close(data.default_root_state.torch[:, :3], torch.tensor([cfg.pusher.init_state.pos] * N))
    _close(data.default_root_state.torch[:, 3:7], torch.tensor([[0.0, 0.0, 0.0, 1.0]] * N))
    # One env step: 1/60 s of free fall (it starts 2 cm above the cloth and falls 1.4 mm).
    manager.step()
    t = DT * DECIMATION
    _close(data.root_lin_vel_w.torch, torch.tensor([[0.0, 0.0, -G * t]] * N), atol=2e-3)
    # Semi-implicit Euler over DECIMATION physics steps: the drop is g dt^2 n (n + 1) / 2.
    drop = G * DT * DT * DECIMATION * (DECIMATION + 1) / 2
    _close(data.root_pos_w.torch[:, 2], start[:, 2] - drop, atol=2e-5)
    _close(data.root_ang_vel_w.torch, torch.zeros(N, 3), atol=1e-3)
    body_qd = torch.tensor(manager.get_state_0().body_qd.numpy())
    _close(data.body_lin_vel_w.torch[:, 0], body_qd[:, :3], atol=0)


def test_rigid_root_writes_go_through_the_free_joint(shared_press):
    manager, scene, pusher = shared_press.manager, shared_press.scene, shared_press.scene["pusher"]
    data = pusher.data
    before = data.root_state_w.torch.clone()
    angle = torch.tensor(0.6)
    quat = torch.tensor([0.0, math.sin(angle / 2), 0.0, math.cos(angle / 2)])  # about +y
    pos = scene.env_origins[1].cpu() + torch.tensor([0.1, 0.05, 0.8])
    pusher.write_root_pose_to_sim(torch.cat([pos, quat])[None], env_ids=[1])
    pusher.write_root_velocity_to_sim(torch.tensor([[0.3, 0.0, 1.0, 0.0, 0.0, 2.0]]), env_ids=[1])
    manager.forward()
    _close(data.root_pos_w.torch[1], pos)
    _close(data.root_quat_w.torch[1], quat)
    _close(data.root_lin_vel_w.torch[1], [0.3, 0.0, 1.0])
    _close(data.root_ang_vel_w.torch[1], [0.0, 0.0, 2.0])
    _close(data.root_state_w.torch[0], before[0], atol=0)  # the other env is untouched
    manager.step()  # free flight from the written state, far above the cloth
    t = DT * DECIMATION
    _close(data.root_lin_vel_w.torch[1], [0.3, 0.0, 1.0 - G * t], atol=2e-3)
    drop = G * DT * DT * DECIMATION * (DECIMATION + 1) / 2  # semi-implicit Euler
    _close(data.root_pos_w.torch[1], pos + torch.tensor([0.3 * t, 0.0, 1.0 * t - drop]), atol=2e-5)
    # Spinning at 2 rad/s about world z (a sphere: no gyroscopic torque) turned the tilted pose: q_z(2 t) * q_y(0.6).
    sz, cz, sy, cy = math.sin(t), math.cos(t), math.sin(angle / 2), math.cos(angle / 2)
    _close(data.root_quat_w.torch[1], [-sz * sy, cz * sy, cy * sz, cz * cy], atol=1e-4)
    state = data.default_root_state.torch.clone()
    state[:, :3] += scene.env_origins
    pusher.write_root_state_to_sim(state)
    manager.forward()
    _close(data.root_state_w.torch, state)
    with pytest.raises(ValueError, match=r"RigidObject 'pusher'.*not unit length"):
        pusher.write_root_pose_to_sim(torch.tensor([[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0]]), env_ids=[0])
    with pytest.raises(ValueError, match=r"'pusher'.*shape \(2, 13\)"):
        pusher.write_root_state_to_sim(torch.zeros(2, 7))


def test_a_closed_simulation_is_named(shared_sims):
    stale = shared_sims.get("press").scene["pusher"]
    shared_sims.close()
    with pytest.raises(RuntimeError, match=r"RigidObject 'pusher'.*closed"):
        _ = stale.data.root_pos_w
    with pytest.raises(RuntimeError, match=r"no simulation is running"):
        InteractiveScene(PressClothSceneCfg(num_envs=N))


# ---------------------------------------------------------------------- without a simulation
def test_row_blocks_view_regular_layouts_and_gather_the_others():
    from isaaclab_contrib.assets.asset_base import RowBlock

    flat = torch.arange(60, dtype=torch.float32).view(20, 3)
    regular = RowBlock(np.array([[2, 3], [7, 8], [12, 13]]), "cpu")  # base 2, 5 rows per env
    assert regular.regular
    view = regular.view(flat, 1, 3)
    assert view.shape == (3, 2, 2) and view.data_ptr() == flat[2, 1].data_ptr()
    torch.testing.assert_close(view, flat[torch.tensor(regular.ids)][..., 1:3])
    irregular = RowBlock(np.array([[4, 1], [9, 0]]), "cpu")
    assert not irregular.regular
    out = torch.zeros(2, 2, 3)
    irregular.gather(flat, out)
    torch.testing.assert_close(out, flat[torch.tensor([[4, 1], [9, 0]])])
    irregular.scatter(flat, torch.tensor([1]), torch.full((1, 2, 3), -1.0))
    assert bool((flat[[9, 0]] == -1).all()) and bool((flat[4] != -1).all())
    with pytest.raises(TypeError, match=r"wraps a wp\.array"):
        ProxyArray(torch.zeros(3))
