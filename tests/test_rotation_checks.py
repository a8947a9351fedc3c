"""Quaternions are checked as rotations wherever they come in, by one helper
(:func:`~isaaclab_contrib.utils.validation.check_rotation`): asset start poses, site and camera transforms, and the
camera's ``look_at`` (a NaN or zero ``up`` would give a NaN pose and a blank view)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import warp as wp

from isaaclab_contrib.physics import NewtonCfg, NewtonManager, SimulationCfg, SimulationContext, SteelSolverCfg
from isaaclab_contrib.physics.sensors.camera import look_at
from isaaclab_contrib.scenes import InitialStateCfg, RigidObjectCfg
from isaaclab_contrib.utils.validation import check_rotation


# ------------------------------------------------------------------------------------------- the helper
def test_a_unit_quaternion_is_returned_as_given():
    assert check_rotation((0, 0, 0, 1), "q") == (0.0, 0.0, 0.0, 1.0)
    half = math.sqrt(0.5)
    assert check_rotation(np.array([half, 0.0, 0.0, half]), "q") == pytest.approx((half, 0.0, 0.0, half))
    assert check_rotation(wp.quat_identity(), "q") == (0.0, 0.0, 0.0, 1.0)


@pytest.mark.parametrize(
    ("quat", "error", "expected"),
    [
        ((0.0, 0.0, 0.0, 0.0), ValueError, r"q is a zero quaternion .* not a rotation"),
        ((0.0, 0.0, 0.0, 1e-12), ValueError, "zero quaternion"),
        ((math.nan, 0.0, 0.0, 1.0), ValueError, "finite numbers"),
        ((0.0, 0.0, math.inf, 1.0), ValueError, "finite numbers"),
        ((0.0, 0.0, 1.0), ValueError, r"4 real numbers, got 3"),
        (
            (0.0, 0.0, 0.0, 2.0),
            ValueError,
            r"unit quaternion .* \(norm 2, allowed 1 \+- 1e-06\); divide it by its norm",
        ),
        ((0, 0, "0", 1), TypeError, r"q\[2\] must be a real number, got str"),
        ((0, 0, True, 1), TypeError, r"q\[2\] must be a real number, got bool"),
        ("0001", TypeError, "must be a quaternion"),
        (None, TypeError, "must be a quaternion"),
    ],
)
def test_what_is_not_a_rotation_is_refused_by_name(quat, error, expected):
    with pytest.raises(error, match=expected):
        check_rotation(quat, "q")


def test_normalize_accepts_any_nonzero_quaternion_and_returns_it_unit():
    assert check_rotation((0, 0, 0, 2), "q", normalize=True) == (0.0, 0.0, 0.0, 1.0)
    assert np.linalg.norm(check_rotation((1, 2, 3, 4), "q", normalize=True)) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="zero quaternion"):
        check_rotation((0, 0, 0, 0), "q", normalize=True)


def test_an_asset_start_pose_with_a_zero_quaternion_is_refused():
    cfg = RigidObjectCfg(prim_path="/World/Box", init_state=InitialStateCfg(rot=(0.0, 0.0, 0.0, 0.0)))
    with pytest.raises(ValueError, match=r"Box\.init_state\.rot is a zero quaternion"):
        cfg.validate("Box")


# ------------------------------------------------------------------------------------------- sites and cameras
@pytest.fixture
def sim():
    context = SimulationContext(SimulationCfg(dt=1 / 60, device="cpu", physics=NewtonCfg(solver_cfg=SteelSolverCfg())))
    yield context
    context.clear_instance()


@pytest.mark.parametrize(
    ("rotation", "expected"),
    [
        ((0.0, 0.0, 0.0, 0.0), "is a zero quaternion"),
        ((0.0, 0.0, 0.0, 3.0), r"must be a unit quaternion .* \(norm 3"),
        ((math.nan, 0.0, 0.0, 1.0), "must be 7 finite numbers"),
    ],
)
def test_a_camera_whose_pose_is_not_a_rotation_is_refused_and_nothing_is_registered(sim, rotation, expected):
    xform = (0.0, -1.0, 1.0, *rotation)
    with pytest.raises(ValueError, match=rf"NewtonManager\.add_camera_sensor: xform.*{expected}"):
        NewtonManager.add_camera_sensor(32, 32, xform=xform)
    with pytest.raises(ValueError, match=rf"NewtonManager\.cl_register_site: xform.*{expected}"):
        NewtonManager.cl_register_site(None, xform)
    session = NewtonManager._current_session()
    assert session.sensors == {} and session.site_requests == {}
    # A pose that is a rotation goes through (a float32 wp.transform of a unit quaternion).
    xform = look_at((0.0, -1.0, 1.0), (0.0, 0.0, 0.0))
    assert NewtonManager.add_camera_sensor(32, 32, xform=xform) == 0


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"up": (math.nan, 0.0, 1.0)}, r"up must be 3 finite numbers \[m\], got \[nan, 0.0, 1.0\]"),
        ({"up": (0.0, 0.0, 0.0)}, "up must be a non-zero direction"),
        ({"up": (0.0, 0.0, math.inf)}, "up must be 3 finite numbers"),
        ({"up": (0.0, 1.0)}, r"up must be 3 finite numbers \[m\], got \(0.0, 1.0\)"),
        ({"eye": (math.nan, 0.0, 1.0)}, "eye must be 3 finite numbers"),
        ({"target": (0.0, 0.0, math.inf)}, "target must be 3 finite numbers"),
        ({"eye": (0.0, 0.0, 0.0)}, "must differ"),
        ({"up": (2.0, 0.0, 2.0)}, "parallel to the viewing direction"),
    ],
)
def test_look_at_refuses_what_gives_no_camera_pose(kwargs, expected):
    args = {"eye": (1.0, 0.0, 1.0), "target": (0.0, 0.0, 0.0), **kwargs}
    with pytest.raises(ValueError, match=expected):
        look_at(**args)


def test_look_at_points_minus_z_at_the_target_and_is_a_rotation():
    pose = look_at((1.0, 0.0, 1.0), (0.0, 0.0, 0.0), up=(0.0, 0.0, 5.0))  # |up| does not matter
    assert np.linalg.norm(np.asarray(pose)[3:]) == pytest.approx(1.0, abs=1e-6)
    forward = wp.quat_rotate(wp.transform_get_rotation(pose), wp.vec3(0.0, 0.0, -1.0))
    assert np.asarray(forward) == pytest.approx(np.array([-1.0, 0.0, -1.0]) / math.sqrt(2.0), abs=1e-6)
