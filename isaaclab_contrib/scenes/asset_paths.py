"""Find robot description files and resolve ``package://`` URIs against installed robot packages, offline.

URDF files written for ROS name their meshes ``package://<package>/<path>``. Newton's URDF importer resolves
such URIs only with the optional ``resolve-robotics-uri-py`` (or by guessing from the URDF's own folder). This
module resolves them itself, from what is installed, and never downloads anything:

* the roots given by the caller (``package_dirs``): each is a package folder itself (its name is the package
  name) or a folder holding package folders;
* the ``share`` folders of installed `cmeel <https://github.com/cmake-wheel/cmeel>`_ wheels
  (``<site-packages>/cmeel.prefix/share/<package>``), which is where the PyPI package ``example-robot-data``
  installs its robots (``package://example-robot-data/robots/panda_description/...``);
* ``ROS_PACKAGE_PATH`` (package folders or folders holding them) and ``AMENT_PREFIX_PATH`` (``<prefix>/share``).

:func:`resolve_urdf_text` returns a URDF's XML with every ``package://``, ``file://`` and relative mesh
filename replaced by an absolute path, which Newton's ``add_urdf`` loads as XML content.
"""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = [
    "EXAMPLE_ROBOT_DATA",
    "example_robot_data_path",
    "find_package",
    "package_search_roots",
    "resolve_asset_uri",
    "resolve_urdf_text",
]

EXAMPLE_ROBOT_DATA = "example-robot-data"
"""Package name the ``example-robot-data`` URDFs use in their ``package://`` URIs."""


def _cmeel_share_dirs() -> list[Path]:
    roots = []
    for entry in sys.path:
        share = Path(entry or ".") / "cmeel.prefix" / "share"
        if share.is_dir() and share not in roots:
            roots.append(share)
    return roots


def _env_dirs(name: str, suffix: str | None = None) -> list[Path]:
    dirs = []
    for part in os.environ.get(name, "").split(os.pathsep):
        if part:
            path = Path(part) / suffix if suffix else Path(part)
            if path.is_dir():
                dirs.append(path)
    return dirs


def package_search_roots(package_dirs: Iterable[str | os.PathLike[str]] = ()) -> list[Path]:
    """The folders searched for robot packages, in order: *package_dirs*, the installed cmeel ``share``
    folders, ``ROS_PACKAGE_PATH``, ``AMENT_PREFIX_PATH`` (``<prefix>/share``)."""
    roots = [Path(p) for p in package_dirs]
    roots += _cmeel_share_dirs()
    roots += _env_dirs("ROS_PACKAGE_PATH")
    roots += _env_dirs("AMENT_PREFIX_PATH", "share")
    return roots


def find_package(name: str, package_dirs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """The folder of the installed robot package *name* (e.g. ``"example-robot-data"``).

    Raises:
        FileNotFoundError: No search root holds it; the message lists the roots searched.
    """
    roots = package_search_roots(package_dirs)
    for root in roots:
        if root.name == name and root.is_dir():
            return root
        candidate = root / name
        if candidate.is_dir():
            return candidate
    searched = ", ".join(str(r) for r in roots) or "none"
    hint = " (pip install example-robot-data)" if name == EXAMPLE_ROBOT_DATA else ""
    raise FileNotFoundError(f"robot package {name!r} is not installed{hint}; searched: {searched}")


def example_robot_data_path(relative: str, package_dirs: Sequence[str | os.PathLike[str]] = ()) -> str:
    """Absolute path of *relative* inside the installed ``example-robot-data`` package, e.g.
    ``example_robot_data_path("robots/panda_description/urdf/panda.urdf")``.

    Raises:
        FileNotFoundError: The package is not installed, or it has no such file.
    """
    path = find_package(EXAMPLE_ROBOT_DATA, package_dirs) / relative
    if not path.exists():
        raise FileNotFoundError(f"example-robot-data has no file {relative!r} (looked for {path})")
    return str(path)


def resolve_asset_uri(uri: str, base_dir: str | os.PathLike[str], package_dirs: Sequence[str] = ()) -> str:
    """Absolute local path of an asset reference of a description file.

    ``package://name/rest`` is looked up with :func:`find_package`; ``file:///abs`` becomes ``/abs``; a relative
    path is taken relative to *base_dir*; an absolute path stays. Remote URIs (``http://``...) are refused:
    nothing is downloaded.

    Raises:
        FileNotFoundError: The package or the file does not exist.
        ValueError: A remote or malformed URI.
    """
    if uri.startswith("package://"):
        name, _, rest = uri[len("package://") :].partition("/")
        if not name or not rest:
            raise ValueError(f"malformed package URI {uri!r}: expected package://<package>/<path>")
        path = find_package(name, package_dirs) / unquote(rest)
    elif uri.lower().startswith("file:"):
        parts = urlsplit(uri)
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"remote file URI {uri!r} is not supported")
        path = Path(unquote(parts.path))
    elif "://" in uri:
        raise ValueError(f"asset URI {uri!r} is remote; nothing is downloaded at run time (install the asset)")
    else:
        path = Path(uri)
        if not path.is_absolute():
            path = Path(base_dir) / path
    if not path.exists():
        raise FileNotFoundError(f"asset {uri!r} resolves to {path}, which does not exist")
    return str(path.resolve())


def resolve_urdf_text(
    urdf_path: str | os.PathLike[str], package_dirs: Sequence[str] = (), *, drop_visuals: bool = False
) -> str:
    """The XML of the URDF file *urdf_path* with every ``<mesh filename=...>`` resolved to an absolute path
    (:func:`resolve_asset_uri`), and with the ``<visual>`` elements removed when *drop_visuals* is set (then the
    visual meshes, e.g. COLLADA ``.dae`` files, are never opened).

    Raises:
        FileNotFoundError: The URDF or a mesh it names cannot be found (the message names it).
        IsADirectoryError: *urdf_path* is a folder.
        ValueError: The URDF is not well-formed XML (the message names it and gives the parser's message).
    """
    urdf_path = Path(urdf_path)
    if urdf_path.is_dir():
        raise IsADirectoryError(f"URDF file {str(urdf_path)!r} is a folder, not a file")
    if not urdf_path.is_file():
        raise FileNotFoundError(f"URDF file {str(urdf_path)!r} does not exist")
    try:
        tree = ET.parse(urdf_path)
    except ET.ParseError as err:
        raise ValueError(f"URDF file {str(urdf_path)!r} is not well-formed XML: {err}") from err
    root = tree.getroot()
    if drop_visuals:
        for link in root.iter("link"):
            for visual in list(link.findall("visual")):
                link.remove(visual)
    base_dir = urdf_path.resolve().parent
    for mesh in root.iter("mesh"):
        filename = mesh.get("filename")
        if filename:
            try:
                mesh.set("filename", resolve_asset_uri(filename, base_dir, package_dirs))
            except FileNotFoundError as exc:
                raise FileNotFoundError(f"{urdf_path}: {exc}") from None
    return ET.tostring(root, encoding="unicode")
