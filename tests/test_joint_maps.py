"""``init_state.joint_pos`` / ``joint_vel`` regex maps: a joint matched by two regexes and a value outside the
joint's limits are refused by name (Isaac Lab refuses a joint matched twice too), and a refused map changes
nothing in the builder the articulation was going to be added to.

The limits compared against are the ones the robot files declare (UR5: [-pi, pi] rad at the elbow in
``example-robot-data``; the small URDF below: [-2, 2] rad and a [0, 0.3] m slider).
"""

from __future__ import annotations

import math

import newton
import pytest

from isaaclab_contrib.scenes import ArticulationCfg, ArticulationInitialStateCfg, UrdfFileCfg
from isaaclab_contrib.scenes.asset_paths import example_robot_data_path

UR5 = "robots/ur_description/urdf/ur5_robot.urdf"

_INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
ARM = f"""<robot name="arm">
  <link name="base">{_INERTIAL}</link>
  <link name="upper">{_INERTIAL}</link>
  <link name="lower">{_INERTIAL}</link>
  <link name="slide">{_INERTIAL}</link>
  <joint name="shoulder_joint" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/></joint>
  <joint name="elbow_joint" type="revolute"><parent link="upper"/><child link="lower"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="3"/></joint>
  <joint name="slider" type="prismatic"><parent link="lower"/><child link="slide"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.3" effort="10" velocity="0.5"/></joint>
</robot>
"""


@pytest.fixture(scope="module")
def arm(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("arm") / "arm.urdf"
    path.write_text(ARM)
    return str(path)


def _cfg(path: str, joint_pos=None, joint_vel=None) -> ArticulationCfg:
    return ArticulationCfg(
        spawn=UrdfFileCfg(asset_path=path, collider_type="bounding_box", load_visuals=False),
        init_state=ArticulationInitialStateCfg(joint_pos=dict(joint_pos or {}), joint_vel=dict(joint_vel or {})),
    )


def _joint_values(builder: newton.ModelBuilder) -> dict[str, tuple[float, float, float]]:
    """(q, qd, target q) of every one-coordinate joint, by its name."""
    values = {}
    for j, label in enumerate(builder.joint_label):
        if int(builder.joint_type[j]) in (int(newton.JointType.REVOLUTE), int(newton.JointType.PRISMATIC)):
            q, d = builder.joint_q_start[j], builder.joint_qd_start[j]
            values[label.rsplit("/", 1)[-1]] = (builder.joint_q[q], builder.joint_qd[d], builder.joint_target_q[d])
    return values


def test_the_issues_example_a_ur5_elbow_matched_twice_is_refused():
    cfg = _cfg(example_robot_data_path(UR5), {"elbow_joint": 1.6, "(shoulder|elbow).*": 0.1})
    cfg.validate()
    with pytest.raises(ValueError) as info:
        cfg.add_to(newton.ModelBuilder(), "Robot")
    message = str(info.value)
    assert "ArticulationCfg('{ENV_REGEX_NS}/Robot').init_state.joint_pos" in message
    assert "elbow_joint" in message and "'elbow_joint' and '(shoulder|elbow).*'" in message


def test_a_ur5_elbow_at_100_rad_is_refused_naming_its_limits():
    cfg = _cfg(example_robot_data_path(UR5), {"elbow_joint": 100.0})
    with pytest.raises(
        ValueError, match=r"joint_pos\['elbow_joint'\]=100.0 rad is outside the limits \[-3.14159, 3.14159\]"
    ):
        cfg.add_to(newton.ModelBuilder(), "Robot")


def test_maps_over_distinct_joints_apply_values_and_targets(arm):
    builder = newton.ModelBuilder()
    _cfg(arm, {"shoulder_joint": 0.5, "elbow_joint": -2.0, "slider": 0.3}, {"elbow_joint": 3.0}).add_to(builder, "A")
    values = _joint_values(builder)
    # Values on the limits are inside them; the velocity limit is a bound on |qd|.
    expected = {"shoulder_joint": (0.5, 0.0, 0.5), "elbow_joint": (-2.0, 3.0, -2.0), "slider": (0.3, 0.0, 0.3)}
    assert {name: pytest.approx(v) for name, v in values.items()} == expected


@pytest.mark.parametrize(
    ("joint_pos", "joint_vel", "expected"),
    [
        (
            {"shoulder_joint": 0.2, ".*_joint": 0.1},
            {},
            r"joint 'arm/shoulder_joint' is matched by both 'shoulder_joint' and '\.\*_joint'",
        ),
        ({}, {"elbow.*": 1.0, "(elbow_joint|slider)": 0.1}, r"joint_vel: joint 'arm/elbow_joint' is matched by both"),
        ({"shoulder_joint": -1.5}, {}, r"joint_pos\['shoulder_joint'\]=-1.5 rad is outside the limits \[-1, 1\] rad"),
        (
            {"slider": 0.31},
            {},
            r"joint_pos\['slider'\]=0.31 m is outside the limits \[0, 0.3\] m of joint 'arm/slider'",
        ),
        ({}, {"elbow_joint": -3.5}, r"joint_vel\['elbow_joint'\]=-3.5 rad/s exceeds the velocity limit 3 rad/s"),
        ({}, {"slider": 0.6}, r"joint_vel\['slider'\]=0.6 m/s exceeds the velocity limit 0.5 m/s"),
    ],
    ids=["pos-twice", "vel-twice", "below-lower", "above-upper-prismatic", "too-fast", "too-fast-prismatic"],
)
def test_a_refused_map_names_the_joint_and_changes_nothing(arm, joint_pos, joint_vel, expected):
    builder = newton.ModelBuilder()
    _cfg(arm, {"shoulder_joint": 0.25}).add_to(builder, "First")
    before = (builder.body_count, builder.joint_count, list(builder.joint_q), list(builder.joint_target_q))
    cfg = _cfg(arm, joint_pos, joint_vel)
    cfg.validate()  # the regexes and numbers are fine on their own: the joints decide
    with pytest.raises(ValueError, match=expected):
        cfg.add_to(builder, "Second")
    assert (builder.body_count, builder.joint_count, list(builder.joint_q), list(builder.joint_target_q)) == before


def test_a_value_that_is_not_finite_is_refused_by_the_config():
    cfg = _cfg("unused.urdf", {"elbow_joint": math.inf})
    with pytest.raises(ValueError, match=r"joint_pos\['elbow_joint'\] must be finite"):
        cfg.validate()
