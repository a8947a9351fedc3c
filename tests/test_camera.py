"""Camera sensors on a coupled scene, checked against the geometry they look at.

Scene (two envs, 2 m apart): a 0.8 m pinned cloth (VBD) at 0.5 m with a 0.1 m box (Steel) dropped
onto it, coupled by a virtual proxy. A camera fixed in each env's frame looks straight down from
1.5 m at the cloth's center; a second camera rides on the box.
"""

import math

import numpy as np
import pytest
import torch
import warp as wp

from isaaclab_contrib.coupling import CouplerEntryCfg, CouplerProxyCfg, CouplerProxyMappingCfg, NewtonCouplerManager
from isaaclab_contrib.physics import NewtonCfg, SimulationCfg, SimulationContext, SteelSolverCfg, VBDSolverCfg
from isaaclab_contrib.physics.sensors.camera import look_at
from isaaclab_contrib.scenes import CameraCfg, InitialStateCfg, PinnedClothCfg, get_scene, launch, replicate_envs
from isaaclab_coupling_configs.box_on_cloth import BoxOnClothSceneCfg

CLOTH_Z, CAMERA_Z, W, H = 0.5, 1.5, 32, 24
TRI_KE = 1.0e3  # membrane stiffness of the cloth [N/m]


def _coupler() -> CouplerProxyCfg:
    return CouplerProxyCfg(
        entries=[
            CouplerEntryCfg(name="box", solver_cfg=SteelSolverCfg(), bodies=["/World/envs/env_.*/Box"]),
            CouplerEntryCfg(name="cloth", solver_cfg=VBDSolverCfg(iterations=5), all_particles=True),
        ],
        iterations=2,
        proxies=[
            CouplerProxyMappingCfg(
                source="box", destination="cloth", bodies=["/World/envs/env_.*/Box"], proxy_relaxation=0.5
            )
        ],
    )


def _start(device: str, *, graph: bool = True, box_xy=(0.0, 0.0), eye=(0.0, 0.0, CAMERA_Z)):
    sim = SimulationContext(
        SimulationCfg(
            dt=1 / 240, device=device, physics=NewtonCfg(solver_cfg=_coupler(), decimation=4, use_cuda_graph=graph)
        )
    )
    top = NewtonCouplerManager.add_camera_sensor(
        W,
        H,
        xform=look_at((0.0, 0.0, CAMERA_Z), (0.0, 0.0, CLOTH_Z), up=(0.0, 1.0, 0.0)),
        fov=math.radians(50.0),
        data_types=("rgb", "depth", "segmentation"),
    )
    proto = NewtonCouplerManager.create_builder()
    body = proto.add_body(
        xform=wp.transform((box_xy[0], box_xy[1], CLOTH_Z + 0.08), wp.quat_identity()), label="Box/body"
    )
    proto.add_shape_box(
        body, hx=0.05, hy=0.05, hz=0.05, cfg=proto.ShapeConfig(density=100.0), label="Box/body/collision"
    )
    cloth = PinnedClothCfg(cell_size=0.1, stiffness=TRI_KE, init_state=InitialStateCfg(pos=(0.0, 0.0, CLOTH_Z)))
    cloth.add_to(proto, "Cloth")
    # Rides on the box, 0.1 m above its center, looking down.
    wrist = NewtonCouplerManager.add_camera_sensor(
        8,
        8,
        xform=look_at((0.0, 0.0, 0.1), (0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0)),
        body_pattern="Box/body",
        data_types=("depth",),
    )
    builder = NewtonCouplerManager.create_builder()
    replicate_envs(builder, proto, 2, spacing=2.0, sites=NewtonCouplerManager.cl_world_sites())
    NewtonCouplerManager.set_builder(builder)
    sim.reset()
    return sim, top, wrist


def test_a_camera_sees_the_cloth_at_its_distance_and_its_deflection(device):
    sim, top, _ = _start(device, box_xy=(0.25, 0.25))  # the box lands off the image center
    if device == "cpu":  # Warp refits BVHs on the host there: the camera stages run eagerly, the physics replays
        assert NewtonCouplerManager.step_mode() == "partial"
        assert "stage 'sensor:camera[0]' runs eagerly: Warp refits" in NewtonCouplerManager.eager_reason()
    else:
        assert NewtonCouplerManager.step_mode() == "captured", NewtonCouplerManager.eager_reason()
    NewtonCouplerManager.step()
    cam = NewtonCouplerManager.get_camera_sensor(top)
    assert cam.depth.shape == (2, H, W, 1) and cam.rgb.shape == (2, H, W, 3) and cam.rgb.dtype == torch.uint8
    center = cam.depth[:, H // 2, W // 2, 0]
    cloth_z = NewtonCouplerManager.get_state_0().particle_q.numpy()[:, 2]
    # The rays at the image center hit the cloth's middle: depth = camera height - cloth height there.
    expected = CAMERA_Z - float(np.median(cloth_z))
    np.testing.assert_allclose(center.cpu().numpy(), expected, atol=0.005)
    before_rgb, before_depth = cam.rgb.clone(), cam.depth.clone()
    for _ in range(30):  # the box presses the cloth down
        NewtonCouplerManager.step()
    assert (cam.depth - before_depth).abs().max() > 0.01  # the deflection shows in depth
    assert (cam.rgb.int() - before_rgb.int()).abs().sum() > 0  # and in color
    assert set(torch.unique(cam.segmentation).tolist()) >= {-1}  # background around the cloth
    sim.clear_instance()


def test_a_wrist_camera_moves_with_its_body(device):
    sim, _, wrist = _start(device)
    cam = NewtonCouplerManager.get_camera_sensor(wrist)
    body_q = NewtonCouplerManager.get_state_0().body_q
    heights = []
    for _ in range(10):
        NewtonCouplerManager.step()
        pose = cam.camera_transforms.cpu().numpy()
        for env, box in enumerate(body_q.numpy()):  # rides 0.1 m above the box center, in the box frame
            offset = wp.quat_rotate(wp.quat(*box[3:].tolist()), wp.vec3(0.0, 0.0, 0.1))
            np.testing.assert_allclose(pose[env, :3], box[:3] + np.array(offset), atol=1e-5)
        heights.append(pose[0, 2])
    assert heights[-1] < heights[0] - 1e-3  # the box fell onto the cloth, and the camera with it
    assert cam.depth.shape == (2, 8, 8, 1)
    sim.clear_instance()


@pytest.mark.slow  # two camera runs
def test_captured_and_eager_cameras_render_the_same(device):
    """The registered box-on-cloth scene after its cloth sagged, seen at a slant: a replayed render that traced
    stale bounds (BVHs not refitted in the graph) shows gaps in the cloth, an eager one does not."""
    spec = get_scene("box_on_cloth")
    camera = CameraCfg(width=60, height=45, env_index=None, eye=(-0.6, -0.6, 0.6), target=(0.0, 0.0, 0.1))
    images = {}
    for graph in (True, False):
        sim = launch(BoxOnClothSceneCfg(), spec.simulation_cfg(device=device, use_cuda_graph=graph), cameras=[camera])
        for _ in range(30):
            NewtonCouplerManager.step()
        images[graph] = NewtonCouplerManager.get_camera_sensor(0).rgb.clone()
        sim.clear_instance()
    if device == "cpu":
        assert torch.equal(images[True], images[False])
    else:  # CUDA atomics may reorder the physics: the same picture, not the same bits
        assert (images[True].float() - images[False].float()).abs().mean() < 2.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"width": 0}, "width must be in"),
        ({"width": 2.5}, "width must be an integer"),
        ({"fov": float("nan")}, "fov must be"),
        ({"fov": 4.0}, "fov must be"),
        ({"data_types": ("rgb", "lidar")}, "data_types must be"),
        ({"data_types": ()}, "data_types must be"),
        ({"xform": (0.0, 0.0, float("nan"), 0.0, 0.0, 0.0, 1.0)}, "finite"),
    ],
)
def test_bad_camera_arguments_are_refused_by_name(kwargs, error):
    sim = SimulationContext(SimulationCfg(dt=1 / 240, device="cpu", physics=NewtonCfg(solver_cfg=_coupler())))
    args = {"width": 16, "height": 16, "xform": wp.transform_identity(), **kwargs}
    width, height = args.pop("width"), args.pop("height")
    with pytest.raises((TypeError, ValueError), match=error):
        NewtonCouplerManager.add_camera_sensor(width, height, **args)
    assert NewtonCouplerManager._session.sensors_of("camera") == []
    sim.clear_instance()


def test_look_at_points_the_camera_minus_z_at_the_target():
    xf = look_at((1.0, 2.0, 3.0), (1.0, 2.0, 0.0), up=(0.0, 1.0, 0.0))
    forward = wp.quat_rotate(wp.transform_get_rotation(xf), wp.vec3(0.0, 0.0, -1.0))
    np.testing.assert_allclose(np.array(forward), [0.0, 0.0, -1.0], atol=1e-6)
    with pytest.raises(ValueError, match="must differ"):
        look_at((0, 0, 0), (0, 0, 0))
    with pytest.raises(ValueError, match="parallel"):
        look_at((0, 0, 1), (0, 0, 0), up=(0, 0, 1))
