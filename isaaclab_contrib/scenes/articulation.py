"""Articulation asset: a robot from an MJCF / URDF file or from code, with its initial joint state and actuators
(Isaac Lab's ``ArticulationCfg``).

A file-based articulation names its file in :attr:`ArticulationCfg.spawn` (:class:`MjcfFileCfg`,
:class:`UrdfFileCfg`); it is imported into a builder of its own, posed by ``init_state`` and added below the
asset's label. A code-built one subclasses :class:`ArticulationCfg` (``spawn=None``) and implements
:meth:`ArticulationCfg.create`, which adds bodies, shapes and joints with labels below the asset's label.
Either way ``init_state.joint_pos`` / ``joint_vel`` are applied by joint-name regex and the
:attr:`ArticulationCfg.actuators` groups are added with :func:`~isaaclab_contrib.physics.add_actuators`.
"""

from __future__ import annotations

import math
import numbers
import os
import re
from typing import Any, ClassVar

import newton
import warp as wp

from isaaclab_contrib.physics import ActuatorBaseCfg, add_actuators
from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.labels import LabelSelector, check_regex
from isaaclab_contrib.utils.validation import check_fields, nested

from .asset_base import ENV_REGEX_NS, AssetBaseCfg, InitialStateCfg
from .asset_paths import resolve_urdf_text
from .file_checks import check_file, check_usd_prim, importer_errors, open_usd_stage, read_xml_root

__all__ = [
    "COLLIDER_TYPES",
    "ArticulationCfg",
    "ArticulationFileCfg",
    "ArticulationInitialStateCfg",
    "MjcfFileCfg",
    "ShapeMaterialCfg",
    "UrdfFileCfg",
    "UsdFileCfg",
]


@configclass
class ArticulationInitialStateCfg(InitialStateCfg):
    """Start pose of the articulation's root and its joints (Isaac Lab's ``ArticulationCfg.InitialStateCfg``)."""

    joint_pos: dict[str, float] = {}
    """Joint positions by joint-name regex (matched in full against the last label segment) [rad or m]; they
    are also the joints' initial position targets (``joint_target_q``), so drives start by holding the pose.
    Joints no regex matches keep the position (and target) their file or :meth:`ArticulationCfg.create` gave
    them. When the articulation is built, a joint matched by two regexes and a value outside the joint's
    position limits are refused, naming the joint."""
    joint_vel: dict[str, float] = {}
    """Joint velocities by joint-name regex [rad/s or m/s]; a joint matched twice and a value above the joint's
    velocity limit are refused when the articulation is built."""

    def validate(self, where: str | None = None) -> None:
        """Check the pose and that every regex compiles and every value is a finite real number."""
        label = where or type(self).__name__
        super().validate(label)
        for name in ("joint_pos", "joint_vel"):
            values = getattr(self, name)
            if not isinstance(values, dict):
                raise TypeError(
                    f"{label}.{name} must be a dict of joint-name regex -> value, got {type(values).__name__}"
                )
            for expr, value in values.items():
                where_item = f"{label}.{name}[{expr!r}]"
                check_regex(expr, f"{label}.{name} key")
                if isinstance(value, bool) or not isinstance(value, numbers.Real):
                    raise TypeError(f"{where_item} must be a real number, got {type(value).__name__} {value!r}")
                if not math.isfinite(value):
                    raise ValueError(f"{where_item} must be finite, got {value!r}")


COLLIDER_TYPES = ("mesh", "convex_hull", "bounding_box", "bounding_sphere")
"""What :attr:`ArticulationFileCfg.collider_type` may be."""


@configclass
class ShapeMaterialCfg:
    """Contact material written into every collision shape of an imported articulation (Isaac Lab's
    ``RigidBodyMaterialCfg``); a field left ``None`` keeps what the file (or Newton's default) gave."""

    _ranges: ClassVar[dict[str, str]] = {"mu": ">= 0", "ke": ">= 0", "kd": ">= 0", "margin": ">= 0", "gap": ">= 0"}

    mu: float | None = None
    """Coulomb friction coefficient [dimensionless]."""
    ke: float | None = None
    """Contact stiffness [N/m]."""
    kd: float | None = None
    """Contact damping [N*s/m]."""
    margin: float | None = None
    """Collision margin around the surface [m]."""
    gap: float | None = None
    """Contact detection gap [m]."""

    def apply(self, builder: Any, shapes: Any) -> None:
        """Write the set fields into the shapes *shapes* of *builder*."""
        columns = {
            "mu": builder.shape_material_mu,
            "ke": builder.shape_material_ke,
            "kd": builder.shape_material_kd,
            "margin": builder.shape_margin,
            "gap": builder.shape_gap,
        }
        for name, column in columns.items():
            value = getattr(self, name)
            if value is not None:
                for s in shapes:
                    column[s] = float(value)

    def validate(self, where: str | None = None) -> None:
        check_missing(self)
        check_fields(self, where or type(self).__name__)


@configclass
class ArticulationFileCfg:
    """Base of the articulation file configs: the file's path and how its collision geometry is imported.

    Robot files usually carry triangle meshes as collision geometry (the Franka Panda's links are STL meshes of
    thousands of triangles). Mesh-mesh and mesh-particle contacts are the most expensive on a CPU, so by
    default every collision mesh becomes its convex hull (:attr:`collider_type`); primitives (boxes, spheres,
    capsules) stay as they are.
    """

    _ranges: ClassVar[dict[str, str]] = {"max_hull_vertices": ">= 4", "scale": "> 0"}

    asset_path: str = MISSING
    """Path of the file."""
    collider_type: str = "convex_hull"
    """What each collision *mesh* becomes: ``"convex_hull"`` (a convex mesh of at most :attr:`max_hull_vertices`
    vertices), ``"bounding_box"`` / ``"bounding_sphere"`` (one primitive per mesh, cheapest), or ``"mesh"`` (the
    triangle mesh as authored, most expensive)."""
    max_hull_vertices: int = 32
    """Vertex budget of each convex hull [count]."""
    fix_base: bool | None = None
    """Weld the root to the world (``True``), give it a free joint (``False``), or keep the file format's
    default (``None``: URDF fixed, MJCF and USD as authored)."""
    merge_fixed_joints: bool = False
    """Merge bodies joined by fixed joints into their parents (fewer bodies; their labels disappear)."""
    self_collision: bool | None = None
    """Let the robot's links collide with each other; ``None``: the importer's default (on)."""
    load_visuals: bool = True
    """Import the visual-only shapes. ``False`` skips them (for a URDF: its ``<visual>`` elements are dropped
    before import, so visual meshes such as COLLADA files are never opened)."""
    scale: float = 1.0
    """Uniform scale of the imported robot [dimensionless]."""
    material: ShapeMaterialCfg = ShapeMaterialCfg()
    """Contact material of the robot's collision shapes."""

    def load(self, builder: Any, xform: Any, where: str | None = None) -> None:
        """Import the file into *builder*, its root placed at *xform*.

        The file is checked first (it exists, is a readable file of the config's format and parses) and the import
        must add bodies; errors name *where* (the path the config was reached by), the config class, the field and
        the file, and wrap the importer's own message.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement load()")

    def _label(self, where: str | None) -> str:
        """``"UrdfFileCfg"``, or ``"<where> (UrdfFileCfg)"`` when the config was reached by a path."""
        name = type(self).__name__
        return name if where is None else f"{where} ({name})"

    @staticmethod
    def _require_bodies(builder: Any, first_body: int, label: str, path: str, hint: str) -> None:
        """Raise unless the import added bodies (an import of nothing is refused, never a silent empty robot)."""
        if builder.body_count == first_body:
            raise ValueError(
                f"{label}.asset_path: importing {path!r} added no bodies{hint}; an articulation needs at least one "
                "body: check the file (and the config class for its format)"
            )

    def import_options(self) -> dict[str, Any]:
        """Keyword arguments shared by Newton's importers (only the options that are set)."""
        options: dict[str, Any] = {"mesh_maxhullvert": int(self.max_hull_vertices)}
        if self.fix_base is not None:
            options["floating"] = not self.fix_base
        if self.merge_fixed_joints:
            options["collapse_fixed_joints"] = True
        if self.self_collision is not None:
            options["enable_self_collisions"] = bool(self.self_collision)
        if self.scale != 1.0:
            options["scale"] = float(self.scale)
        return options

    def finish(self, builder: Any, first_shape: int) -> None:
        """Approximate the collision meshes and apply the material to the shapes from *first_shape* on."""
        shapes = list(range(first_shape, builder.shape_count))
        collide = int(newton.ShapeFlags.COLLIDE_SHAPES) | int(newton.ShapeFlags.COLLIDE_PARTICLES)
        colliders = [s for s in shapes if int(builder.shape_flags[s]) & collide]
        meshes = [s for s in colliders if int(builder.shape_type[s]) == int(newton.GeoType.MESH)]
        if meshes and self.collider_type != "mesh":
            builder.approximate_meshes(method=self.collider_type, shape_indices=meshes, raise_on_failure=True)
        self.material.apply(builder, colliders)

    def validate(self, where: str | None = None) -> None:
        """Check the fields (the file is opened when the scene is built)."""
        label = where or type(self).__name__
        check_missing(self)
        if not isinstance(self.asset_path, (str, os.PathLike)) or not os.fspath(self.asset_path):
            raise TypeError(f"{label}.asset_path must be a file path string, got {self.asset_path!r}")
        check_fields(self, label)
        if self.collider_type not in COLLIDER_TYPES:
            raise ValueError(f"{label}.collider_type must be one of {COLLIDER_TYPES}, got {self.collider_type!r}")
        if not isinstance(self.material, ShapeMaterialCfg):
            raise TypeError(f"{label}.material must be a ShapeMaterialCfg, got {type(self.material).__name__}")
        self.material.validate(f"{label}.material")


@configclass
class MjcfFileCfg(ArticulationFileCfg):
    """An articulation imported from an MJCF file (``.xml``, Newton's ``add_mjcf``)."""

    ignore_names: list[str] = []
    """Names of MJCF elements to leave out (e.g. a ``floor`` geom shipped with the robot)."""

    def load(self, builder: Any, xform: Any, where: str | None = None) -> None:
        label = self._label(where)
        path = check_file(self.asset_path, f"{label}.asset_path", "MJCF file")
        read_xml_root(path, f"{label}.asset_path", "MJCF file", "mujoco")
        options = self.import_options()
        if not self.load_visuals:
            options["parse_visuals"] = False
        first_shape, first_body = builder.shape_count, builder.body_count
        with importer_errors(f"{label}.asset_path", path, "MJCF file"):
            builder.add_mjcf(path, xform=xform, ignore_names=list(self.ignore_names), **options)
        self._require_bodies(builder, first_body, label, path, " (no <body> in its <worldbody>?)")
        self.finish(builder, first_shape)

    def validate(self, where: str | None = None) -> None:
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.ignore_names, (list, tuple)) or not all(isinstance(n, str) for n in self.ignore_names):
            raise TypeError(f"{label}.ignore_names must be a list of element names, got {self.ignore_names!r}")


@configclass
class UrdfFileCfg(ArticulationFileCfg):
    """An articulation imported from a URDF file (``.urdf``, Newton's ``add_urdf``).

    Mesh references (``package://name/...``, ``file://``, relative paths) are resolved before import by
    :func:`~isaaclab_contrib.scenes.asset_paths.resolve_urdf_text` against :attr:`package_dirs` and the
    installed robot packages (e.g. the PyPI package ``example-robot-data``); nothing is downloaded.
    """

    package_dirs: list[str] = []
    """Extra folders searched for ``package://`` packages (a package folder, or a folder holding them)."""
    joint_damping_mode: str = "passive"
    """How the URDF's ``<dynamics damping>`` is read: ``"passive"`` (joint damping) or ``"drive"`` (drive
    damping), as Newton's ``add_urdf``."""

    def load(self, builder: Any, xform: Any, where: str | None = None) -> None:
        label = self._label(where)
        path = check_file(self.asset_path, f"{label}.asset_path", "URDF file")
        root = read_xml_root(path, f"{label}.asset_path", "URDF file", "robot")
        if root.find("link") is None:
            raise ValueError(f"{label}.asset_path: the URDF file {path!r} has no <link> element: it describes no body")
        try:
            text = resolve_urdf_text(path, list(self.package_dirs), drop_visuals=not self.load_visuals)
        except (FileNotFoundError, ValueError) as err:  # a mesh it names; the message names the mesh and the URDF
            raise type(err)(f"{label}.asset_path: {err}") from err
        first_shape, first_body = builder.shape_count, builder.body_count
        with importer_errors(f"{label}.asset_path", path, "URDF file"):
            builder.add_urdf(text, xform=xform, joint_damping_mode=self.joint_damping_mode, **self.import_options())
        self._require_bodies(builder, first_body, label, path, " (no <link> elements?)")
        self.finish(builder, first_shape)

    def validate(self, where: str | None = None) -> None:
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.package_dirs, (list, tuple)) or not all(
            isinstance(d, (str, os.PathLike)) for d in self.package_dirs
        ):
            raise TypeError(f"{label}.package_dirs must be a list of folder paths, got {self.package_dirs!r}")
        if self.joint_damping_mode not in ("passive", "drive"):
            raise ValueError(
                f"{label}.joint_damping_mode must be 'passive' or 'drive', got {self.joint_damping_mode!r}"
            )


@configclass
class UsdFileCfg(ArticulationFileCfg):
    """An articulation (rigid bodies, shapes, joints) imported from a USD file (Newton's ``add_usd``).

    Deformables authored in the same stage are left to :class:`~isaaclab_contrib.scenes.UsdDeformablesCfg`.
    """

    root_path: str = "/"
    """Prim path below which the stage is imported."""
    ignore_paths: list[str] = []
    """Prim-path regexes to leave out."""

    def load(self, builder: Any, xform: Any, where: str | None = None) -> None:
        label = self._label(where)
        path = check_file(self.asset_path, f"{label}.asset_path", "USD file")
        stage = open_usd_stage(path, f"{label}.asset_path", "USD file")
        check_usd_prim(stage, self.root_path, f"{label}.root_path", path)
        options = self.import_options()
        options.pop("scale", None)
        first_shape, first_body = builder.shape_count, builder.body_count
        firsts = {name: len(getattr(builder, name)) for name in _LABEL_LISTS}
        with importer_errors(f"{label}.asset_path", path, "USD file"):
            builder.add_usd(
                path,
                xform=xform,
                root_path=self.root_path,
                ignore_paths=list(self.ignore_paths) or None,
                load_visual_shapes=self.load_visuals,
                load_static_visual_shapes=self.load_visuals,
                skip_mesh_approximation=True,
                **options,
            )
        self._require_bodies(builder, first_body, label, path, f" below root_path {self.root_path!r}")
        # USD labels are absolute prim paths; below the asset's label they continue it ("Robot/World/Robot/bar").
        for name, first in firsts.items():
            labels = getattr(builder, name)
            labels[first:] = [label.lstrip("/") for label in labels[first:]]
        self.finish(builder, first_shape)

    def validate(self, where: str | None = None) -> None:
        label = where or type(self).__name__
        super().validate(label)
        if self.scale != 1.0:
            raise ValueError(f"{label}.scale must be 1 for a USD file (the stage's metersPerUnit applies)")
        if not isinstance(self.root_path, str) or not self.root_path.startswith("/"):
            raise ValueError(f"{label}.root_path must be an absolute prim path, got {self.root_path!r}")


@configclass
class ArticulationCfg(AssetBaseCfg):
    """A jointed robot: bodies, shapes and joints from a file (:attr:`spawn`) or from code (:meth:`create`),
    its initial joint state and its actuator groups.

    For a file, ``init_state.pos`` / ``rot`` place the file's root frame; the file's labels go below the
    asset's label (``/World/envs/env_{i}/Robot/torso``). A code-built articulation uses the pose as it documents.
    """

    prim_path: str = f"{ENV_REGEX_NS}/Robot"
    """Label path of the articulation."""
    spawn: ArticulationFileCfg | None = None
    """File the articulation is imported from; ``None``: a subclass builds it in :meth:`create`."""
    init_state: ArticulationInitialStateCfg = ArticulationInitialStateCfg()
    """Root pose and initial joint positions and velocities."""
    actuators: dict[str, ActuatorBaseCfg] = {}
    """Actuator groups by name, each over joint-name regexes (Isaac Lab's ``ArticulationCfg.actuators``);
    empty: the joints are passive (or driven by the solver's own joint drives)."""

    def owns_bodies(self) -> bool:
        return True

    def create(self, builder: Any, label: str) -> None:
        """Add the articulation's bodies, shapes and joints to *builder* with labels below *label*
        (code-built articulations override it; ``spawn`` must then be ``None``)."""
        raise NotImplementedError(f"{type(self).__name__}: set spawn to an articulation file or override create()")

    def add_to(self, builder: Any, label: str) -> None:
        if self.spawn is not None:
            robot = newton.ModelBuilder()
            pos, rot = self.init_state.pos, self.init_state.rot
            self.spawn.load(robot, wp.transform(pos, wp.quat(*rot)), f"{type(self).__name__}({self.prim_path!r}).spawn")
            self._finish(robot, 0)
            builder.add_builder(robot, label_prefix=label)
        else:
            first_joint = builder.joint_count
            self.create(builder, label)
            self._finish(builder, first_joint, label)

    def _finish(self, builder: Any, first_joint: int, label: str | None = None) -> None:
        """Apply the initial joint state and add the actuators to the joints from *first_joint* on."""
        joints = list(range(first_joint, builder.joint_count))
        selector = LabelSelector([builder.joint_label[j] for j in joints], "joint")
        where = f"{type(self).__name__}({self.prim_path!r}).init_state"
        writes = []  # every value is checked before the builder is written (a refusal changes nothing)
        for name, starts in (("joint_pos", builder.joint_q_start), ("joint_vel", builder.joint_qd_start)):
            claimed: dict[int, str] = {}
            for expr, value in getattr(self.init_state, name).items():
                for j in (joints[i] for i in selector.require(expr, f"{where}.{name}", scope="name")):
                    joint = builder.joint_label[j]
                    if j in claimed:
                        raise ValueError(
                            f"{where}.{name}: joint {joint!r} is matched by both {claimed[j]!r} and {expr!r}; each "
                            "joint may be matched by one regex only (which value wins would depend on the order): "
                            "narrow one of them"
                        )
                    claimed[j] = expr
                    if int(builder.joint_type[j]) not in _one_coordinate_joint_types():
                        raise ValueError(
                            f"{where}.{name}[{expr!r}] matches joint {joint!r}, which is not revolute "
                            "or prismatic (one coordinate)"
                        )
                    _check_joint_limits(builder, j, name, float(value), f"{where}.{name}[{expr!r}]")
                    writes.append((name, int(starts[j]), float(value)))
        for name, index, value in writes:
            (builder.joint_q if name == "joint_pos" else builder.joint_qd)[index] = value
            if name == "joint_pos":  # the drives start holding the initial pose (Isaac Lab's default)
                builder.joint_target_q[index] = value
        if self.actuators:
            # Restrict the groups to this articulation's joints when the builder holds others.
            own_only = first_joint == 0
            add_actuators(builder, dict(self.actuators), articulation=None if own_only else re.escape(label))

    def validate(self, where: str | None = None) -> None:
        """Check the fields, the file (or that :meth:`create` is implemented) and every actuator group."""
        label = where or type(self).__name__
        super().validate(label)
        if not isinstance(self.init_state, ArticulationInitialStateCfg):
            raise TypeError(
                f"{label}.init_state must be an ArticulationInitialStateCfg, got {type(self.init_state).__name__}"
            )
        if self.spawn is None:
            if type(self).create is ArticulationCfg.create:
                raise ValueError(
                    f"{label}.spawn is None: give the articulation file (MjcfFileCfg / UrdfFileCfg) or subclass "
                    "ArticulationCfg and override create()"
                )
        elif isinstance(self.spawn, ArticulationFileCfg):
            self.spawn.validate(f"{label}.spawn")
        else:
            raise TypeError(
                f"{label}.spawn must be an MjcfFileCfg, a UrdfFileCfg, a UsdFileCfg or None, "
                f"got {type(self.spawn).__name__}"
            )
        if not isinstance(self.actuators, dict):
            raise TypeError(f"{label}.actuators must be a dict of group name -> actuator config")
        for key, actuator in self.actuators.items():
            if not isinstance(actuator, ActuatorBaseCfg):
                raise TypeError(
                    f"{label}.actuators[{key!r}] must be an actuator config (e.g. IdealPDActuatorCfg), "
                    f"got {type(actuator).__name__}"
                )
            with nested(f"{label}.actuators[{key!r}]"):
                actuator.validate()


_LABEL_LISTS = ("body_label", "joint_label", "shape_label", "articulation_label")
"""Label lists of a ``newton.ModelBuilder`` that an import appends to."""


def _check_joint_limits(builder: Any, joint: int, name: str, value: float, where: str) -> None:
    """Raise unless *value* lies within the position limits (``joint_pos``) or the velocity limit (``joint_vel``)
    of the one-coordinate joint *joint* of *builder* (its file's limits, or Newton's defaults)."""
    dof = int(builder.joint_qd_start[joint])
    label = builder.joint_label[joint]
    unit = "m" if int(builder.joint_type[joint]) == int(newton.JointType.PRISMATIC) else "rad"
    if name == "joint_pos":
        lower, upper = float(builder.joint_limit_lower[dof]), float(builder.joint_limit_upper[dof])
        if not lower <= value <= upper:
            raise ValueError(
                f"{where}={value!r} {unit} is outside the limits [{lower:.6g}, {upper:.6g}] {unit} of joint {label!r}; "
                "give a position within them"
            )
    else:
        limit = float(builder.joint_velocity_limit[dof])
        if abs(value) > limit:
            raise ValueError(
                f"{where}={value!r} {unit}/s exceeds the velocity limit {limit:.6g} {unit}/s of joint {label!r}"
            )


def _one_coordinate_joint_types() -> tuple[int, int]:
    return (int(newton.JointType.REVOLUTE), int(newton.JointType.PRISMATIC))
