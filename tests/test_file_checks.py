"""Files an asset config reads are checked before Newton's importer sees them: a wrong file is named (the config
class, the field, the file, and the importer's own message), never imported as nothing.

Covers every file-reading asset config (URDF, MJCF and USD articulations, cloth and soft-body meshes, USD
deformables) against the same hostile paths: missing, a folder, a remote URL, an empty file; and each format
against files of the wrong format and malformed files.
"""

from __future__ import annotations

import newton
import pytest

from isaaclab_contrib.scenes import (
    ArticulationCfg,
    ClothMeshCfg,
    MjcfFileCfg,
    SoftMeshCfg,
    UrdfFileCfg,
    UsdDeformablesCfg,
    UsdFileCfg,
)

STAGE = "configs/assets/usd_cloth_on_robot.usda"

URDF = """<robot name="arm">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
  </link>
  <link name="forearm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
  </link>
  <joint name="elbow_joint" type="revolute">
    <parent link="base"/><child link="forearm"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="3"/>
  </joint>
</robot>
"""

MJCF = """<mujoco model="arm">
  <worldbody>
    <body name="base" pos="0 0 1">
      <geom type="box" size="0.05 0.05 0.05"/>
      <body name="forearm" pos="0 0 0.2">
        <joint name="elbow_joint" type="hinge" axis="0 1 0"/>
        <geom type="box" size="0.05 0.05 0.05"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A valid URDF and MJCF arm, and malformed / empty variants."""
    root = tmp_path_factory.mktemp("files")
    paths = {
        "urdf": root / "arm.urdf",
        "mjcf": root / "arm.xml",
        "broken_urdf": root / "broken.urdf",
        "broken_mjcf": root / "broken.xml",
        "linkless_urdf": root / "linkless.urdf",
        "bodyless_mjcf": root / "bodyless.xml",
        "broken_usd": root / "broken.usda",
        "broken_obj": root / "broken.obj",
        "broken_npz": root / "broken.npz",
        "empty": root / "empty.urdf",
        "folder": root / "robot.urdf",
    }
    paths["urdf"].write_text(URDF)
    paths["mjcf"].write_text(MJCF)
    paths["broken_urdf"].write_text(URDF.replace("</robot>", ""))
    paths["broken_mjcf"].write_text(MJCF.replace("</worldbody>", "</world>"))
    paths["linkless_urdf"].write_text('<robot name="nothing"/>\n')
    paths["bodyless_mjcf"].write_text('<mujoco><worldbody><geom type="plane" size="1 1 1"/></worldbody></mujoco>\n')
    paths["broken_usd"].write_text("#usda 1.0\n(\n  def Xform broken {{{\n")
    paths["broken_obj"].write_text("v 0 0 0\nv one two three\nf 1 2 3\n")
    paths["broken_npz"].write_bytes(b"not a zip archive at all")
    paths["empty"].write_text("")
    paths["folder"].mkdir()
    return {name: str(path) for name, path in paths.items()}


def _robot(spawn) -> ArticulationCfg:
    return ArticulationCfg(spawn=spawn)


def _build(cfg) -> newton.ModelBuilder:
    builder = newton.ModelBuilder()
    cfg.validate()
    cfg.add_to(builder, "Asset")
    return builder


# ------------------------------------------------------------------------------------------- the wrong format
def test_a_urdf_config_given_an_mjcf_file_names_the_format(files):
    with pytest.raises(ValueError) as info:
        _build(_robot(UrdfFileCfg(asset_path=files["mjcf"])))
    message = str(info.value)
    assert "(UrdfFileCfg).asset_path" in message and files["mjcf"] in message
    assert "root element is <mujoco>" in message and "MjcfFileCfg" in message


def test_an_mjcf_config_given_a_urdf_file_names_the_format_instead_of_importing_nothing(files):
    with pytest.raises(ValueError) as info:
        _build(_robot(MjcfFileCfg(asset_path=files["urdf"])))
    message = str(info.value)
    assert "(MjcfFileCfg).asset_path" in message and files["urdf"] in message
    assert "root element is <robot>" in message and "UrdfFileCfg" in message


def test_a_usd_config_whose_root_path_names_no_prim_lists_the_prims_there():
    with pytest.raises(ValueError) as info:
        _build(_robot(UsdFileCfg(asset_path=STAGE, root_path="/World/Robott")))
    message = str(info.value)
    assert "(UsdFileCfg).root_path='/World/Robott' names no prim" in message and STAGE in message
    assert "/World/Robot" in message  # what is there instead
    with pytest.raises(ValueError, match=r"UsdDeformablesCfg\('\{ENV_REGEX_NS\}/Deformables'\)\.root_path="):
        UsdDeformablesCfg(asset_path=STAGE, root_path="/World/Clothh").particle_count()


def test_the_valid_files_import_their_bodies(files):
    """The checks do not get in the way: both arms import two bodies and the elbow joint."""
    for spawn in (UrdfFileCfg(asset_path=files["urdf"]), MjcfFileCfg(asset_path=files["mjcf"])):
        builder = _build(_robot(spawn))
        assert builder.body_count == 2
        assert any(label.endswith("elbow_joint") for label in builder.joint_label)


# ------------------------------------------------------------------------------------------- imports of nothing
@pytest.mark.parametrize(
    ("config", "name", "expected"),
    [
        (UrdfFileCfg, "linkless_urdf", "has no <link> element"),
        (MjcfFileCfg, "bodyless_mjcf", "added no bodies"),
    ],
)
def test_a_file_that_describes_no_body_is_refused(files, config, name, expected):
    with pytest.raises(ValueError, match=expected) as info:
        _build(_robot(config(asset_path=files[name])))
    assert files[name] in str(info.value)


# ------------------------------------------------------------------------------------------- malformed files
@pytest.mark.parametrize(
    ("make", "name", "cause"),
    [
        (lambda p: _robot(UrdfFileCfg(asset_path=p)), "broken_urdf", "ParseError"),
        (lambda p: _robot(MjcfFileCfg(asset_path=p)), "broken_mjcf", "ParseError"),
        (lambda p: _robot(UsdFileCfg(asset_path=p, root_path="/")), "broken_usd", "ErrorException"),
        (lambda p: UsdDeformablesCfg(asset_path=p), "broken_usd", "ErrorException"),
        (lambda p: ClothMeshCfg(asset_path=p, mesh_prim="/Cloth"), "broken_usd", "ErrorException"),
        (lambda p: ClothMeshCfg(asset_path=p), "broken_obj", None),
        (lambda p: SoftMeshCfg(asset_path=p), "broken_npz", None),
    ],
    ids=["urdf", "mjcf", "usd-robot", "usd-deformables", "usd-cloth", "obj-cloth", "npz-soft"],
)
def test_a_malformed_file_is_named_with_the_parsers_message(files, make, name, cause):
    cfg = make(files[name])
    with pytest.raises(ValueError) as info:
        _build(cfg)
    message = str(info.value)
    assert files[name] in message and f"{type(getattr(cfg, 'spawn', None) or cfg).__name__}" in message
    assert ".asset_path" in message
    assert info.value.__cause__ is not None  # the importer's own exception is kept as the cause
    if cause is not None:
        assert type(info.value.__cause__).__name__ == cause


# ------------------------------------------------------------------------------------------- hostile paths
def _configs(path: str) -> dict:
    """Every file-reading asset config, pointed at *path*."""
    return {
        "UrdfFileCfg": _robot(UrdfFileCfg(asset_path=path)),
        "MjcfFileCfg": _robot(MjcfFileCfg(asset_path=path)),
        "UsdFileCfg": _robot(UsdFileCfg(asset_path=path)),
        "ClothMeshCfg": ClothMeshCfg(asset_path=path),
        "SoftMeshCfg": SoftMeshCfg(asset_path=path),
        "UsdDeformablesCfg": UsdDeformablesCfg(asset_path=path),
    }


CONFIG_NAMES = list(_configs("x"))


@pytest.mark.parametrize("name", CONFIG_NAMES)
def test_a_folder_is_called_a_folder(files, name):
    with pytest.raises(IsADirectoryError, match="is a folder, not") as info:
        _build(_configs(files["folder"])[name])
    assert name in str(info.value) and files["folder"] in str(info.value)


@pytest.mark.parametrize("name", CONFIG_NAMES)
@pytest.mark.parametrize("url", ["http://example.com/robots/arm.urdf", "https://example.com/a/b.usda"])
def test_a_remote_url_is_refused_as_remote_and_shown_as_given(name, url):
    with pytest.raises(ValueError, match="remote") as info:
        _build(_configs(url)[name])
    assert repr(url) in str(info.value) and name in str(info.value)  # not mangled into 'http:/example.com/...'


@pytest.mark.parametrize("name", CONFIG_NAMES)
def test_a_missing_file_is_named_with_the_config(tmp_path, name):
    missing = str(tmp_path / "nowhere" / "asset.file")
    with pytest.raises(FileNotFoundError, match="does not exist") as info:
        _build(_configs(missing)[name])
    assert name in str(info.value) and missing in str(info.value)


@pytest.mark.parametrize("name", CONFIG_NAMES)
def test_an_empty_file_is_named(files, name):
    with pytest.raises(ValueError, match=r"is empty \(0 bytes\)") as info:
        _build(_configs(files["empty"])[name])
    assert name in str(info.value)


def test_a_file_uri_is_read_as_the_local_file(files):
    builder = _build(_robot(UrdfFileCfg(asset_path="file://" + files["urdf"])))
    assert builder.body_count == 2


def test_a_mesh_of_an_unknown_format_lists_the_formats_read(tmp_path):
    path = tmp_path / "cloth.txt"
    path.write_text("0 0 0\n")
    with pytest.raises(ValueError, match=r"has the extension '\.txt'; a cloth mesh is read from \.obj"):
        ClothMeshCfg(asset_path=str(path)).particle_count()
    obj = tmp_path / "c.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert ClothMeshCfg(asset_path=str(obj)).particle_count() == 3
    with pytest.raises(ValueError, match=r"mesh_prim='/Cloth' is given, but .* is not a USD stage"):
        ClothMeshCfg(asset_path=str(obj), mesh_prim="/Cloth").particle_count()


def test_a_refused_import_leaves_the_builder_as_it_was(files):
    """The checks run before the importer: a refused file adds nothing to the builder it was built into."""
    builder = newton.ModelBuilder()
    _robot(UrdfFileCfg(asset_path=files["urdf"])).add_to(builder, "Good")
    counts = (builder.body_count, builder.joint_count, builder.shape_count, builder.particle_count)
    for cfg in (_robot(UrdfFileCfg(asset_path=files["mjcf"])), ClothMeshCfg(asset_path=files["broken_obj"])):
        with pytest.raises(ValueError):
            cfg.add_to(builder, "Bad")
        assert (builder.body_count, builder.joint_count, builder.shape_count, builder.particle_count) == counts
