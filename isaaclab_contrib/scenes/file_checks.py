"""Checks of the files asset configs read: the path, the format, the parse, and cache keys that follow the content.

Every file-reading asset config (robots from URDF / MJCF / USD, cloth and soft-body meshes, USD-authored
deformables) goes through these helpers before Newton's importer sees the file, so a wrong file is named
instead of surfacing as the importer's bare exception (a ``StopIteration`` from the URDF parser, an XML
``ParseError``, a ``pxr`` ``ErrorException``, a trimesh or NumPy error) or, worse, importing nothing. Every
message starts with *where*: the config class (or the path it was reached by) and its field, e.g.
``"ArticulationCfg('{ENV_REGEX_NS}/Robot').spawn (UrdfFileCfg).asset_path"``, then names the file and says
what to do.

* :func:`check_file`: the path is a non-empty string, not a remote URL (nothing is downloaded), exists, is a
  regular file (not a folder), is readable and not empty; ``file://`` URIs become local paths.
* :func:`check_suffix`: the file's extension is one the config reads.
* :func:`read_xml_root`: the file parses as XML and its root element is the one the format has (``<robot>``
  for URDF, ``<mujoco>`` for MJCF), naming the format it looks like otherwise.
* :func:`open_usd_stage` / :func:`check_usd_prim`: the stage opens (the ``pxr`` error is condensed into the
  message) and a prim path names a prim of it.
* :func:`importer_errors`: wraps whatever an importer raises into a ``ValueError`` naming the file, with the
  importer's own message (and the original exception as its cause).
* :func:`file_key`: the cache key of a file's content (path, size, modification and change times, inode), so a
  file rewritten in place is read again.
"""

from __future__ import annotations

import contextlib
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = [
    "USD_SUFFIXES",
    "check_file",
    "check_suffix",
    "check_usd_prim",
    "file_key",
    "importer_errors",
    "open_usd_stage",
    "read_xml_root",
]

USD_SUFFIXES = (".usd", ".usda", ".usdc", ".usdz")
"""Extensions of USD stages."""

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_XML_FORMATS = {"robot": "a URDF file (use UrdfFileCfg)", "mujoco": "an MJCF file (use MjcfFileCfg)"}
"""What an XML file with this root element is, for the messages."""


def check_file(path: Any, where: str, kind: str) -> str:
    """The local path of the file *path* names, checked: a readable, non-empty regular file.

    Args:
        path: A path string or ``os.PathLike``; a ``file://`` URI is accepted and turned into a local path.
        where: The config and field, first in every message (``"ClothMeshCfg('{ENV_REGEX_NS}/Cloth').asset_path"``).
        kind: What the file should be, for the messages (``"URDF file"``).

    Raises:
        TypeError: *path* is not a path.
        ValueError: *path* is empty, a remote URL (``http://``...: nothing is downloaded), or the file is empty.
        FileNotFoundError: No such file (the message gives the absolute path looked at).
        IsADirectoryError: *path* is a folder.
        PermissionError: The file cannot be read.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{where} must be the path of {_a(kind)}, got {type(path).__name__} {path!r}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where} must be the path of {_a(kind)}, got {text!r}")
    scheme = _SCHEME.match(text)
    if scheme:
        if scheme[1].lower() != "file":
            raise ValueError(
                f"{where}={text!r} is a remote {scheme[1]}:// address; nothing is downloaded at run time: download "
                f"the {kind} and give its local path"
            )
        parts = urlsplit(text)
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"{where}={text!r} names a file on host {parts.netloc!r}; give a local path")
        text = unquote(parts.path)
    file = Path(text).expanduser()
    if not file.exists():
        shown = f" (looked for {file.resolve()})" if not file.is_absolute() else ""
        raise FileNotFoundError(f"{where}: the {kind} {text!r} does not exist{shown}")
    if file.is_dir():
        raise IsADirectoryError(f"{where}: {text!r} is a folder, not {_a(kind)}; give the file inside it")
    if not file.is_file():
        raise ValueError(f"{where}: {text!r} is not a regular file (a device or a pipe?); give {_a(kind)}")
    if not os.access(file, os.R_OK):
        raise PermissionError(f"{where}: the {kind} {text!r} cannot be read (permission denied)")
    if file.stat().st_size == 0:
        raise ValueError(f"{where}: the {kind} {text!r} is empty (0 bytes)")
    return str(file)


def check_suffix(path: str, where: str, kind: str, suffixes: Sequence[str]) -> str:
    """The lower-case extension of *path*, checked against *suffixes*.

    Raises:
        ValueError: Another extension (the message lists those read).
    """
    suffix = Path(path).suffix.lower()
    if suffix not in suffixes:
        raise ValueError(
            f"{where}: {path!r} has the extension {suffix or '(none)'!r}; {_a(kind)} is read from "
            f"{', '.join(suffixes)} files"
        )
    return suffix


def read_xml_root(path: str, where: str, kind: str, root_tag: str) -> ET.Element:
    """The root element of the XML file *path*, which must be ``<root_tag>``.

    Raises:
        ValueError: The file is not well-formed XML (with the parser's message and position), or its root
            element is another one (naming the format it looks like).
    """
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise ValueError(f"{where}: {path!r} is not {_a('well-formed ' + kind)} (XML parse error: {err})") from err
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{where}: {path!r} cannot be read as {_a(kind)} ({type(err).__name__}: {err})") from err
    tag = root.tag.rsplit("}", 1)[-1]
    if tag != root_tag:
        looks = _XML_FORMATS.get(tag)
        hint = f": it looks like {looks}" if looks else ""
        raise ValueError(
            f"{where}: {path!r} is not {_a(kind)}: its root element is <{tag}>, {_a(kind)} has <{root_tag}>{hint}"
        )
    return root


def _pxr_message(err: BaseException) -> str:
    """The useful part of a ``pxr`` error: the messages of its ``Error in '<function>' at line N in file F :
    '<message>'`` entries, joined."""
    text = str(err)
    parts = re.split(r"\s*Error in '[^']*' at line \d+ in file [^\n]*? : ", text)
    messages = []
    for part in parts:
        part = part.strip()
        if part.startswith("'") and part.endswith("'"):
            part = part[1:-1]
        if part:
            messages.append(" ".join(part.split()))
    message = "; ".join(messages) or " ".join(text.split())
    return message[:600] or type(err).__name__


def _a(kind: str) -> str:
    """*kind* with its indefinite article (``"a URDF file"``, ``"an MJCF file"``)."""
    return ("an " if kind[:1] in "AEIOMaeio" else "a ") + kind


def open_usd_stage(path: str, where: str, kind: str = "USD stage") -> Any:
    """Open the USD stage *path* (a ``pxr.Usd.Stage``), read from disk again if it changed since ``pxr`` loaded it.

    Raises:
        ValueError: ``pxr`` cannot open it (not a USD file, a parse error): the message names the file and gives
            ``pxr``'s own message.
    """
    from pxr import Sdf, Usd

    check_suffix(path, where, kind, USD_SUFFIXES)
    try:
        # pxr keeps a layer it opened while anything refers to it: read a file written since from disk again
        # (a layer edited in memory and not saved is left as it is).
        layer = Sdf.Layer.Find(path)
        if layer is not None and not layer.dirty:
            layer.Reload()
        stage = Usd.Stage.Open(path)
    except Exception as err:  # pxr raises Tf.ErrorException
        raise ValueError(f"{where}: {path!r} cannot be opened as {_a(kind)}: {_pxr_message(err)}") from err
    if stage is None:
        raise ValueError(f"{where}: {path!r} cannot be opened as {_a(kind)} (pxr returned no stage)")
    return stage


def check_usd_prim(stage: Any, prim_path: str, where: str, path: str) -> Any:
    """The prim at *prim_path* of *stage* (opened from *path*).

    Raises:
        ValueError: No such prim; the message lists the children of the nearest existing ancestor.
    """
    from pxr import Sdf

    if not Sdf.Path.IsValidPathString(prim_path):
        raise ValueError(f"{where}={prim_path!r} is not a valid prim path")
    prim = stage.GetPrimAtPath(prim_path)
    if prim and prim.IsValid():
        return prim
    ancestor = Sdf.Path(prim_path).GetParentPath()
    while not stage.GetPrimAtPath(ancestor) and ancestor != Sdf.Path.absoluteRootPath:
        ancestor = ancestor.GetParentPath()
    children = [str(child.GetPath()) for child in stage.GetPrimAtPath(ancestor).GetChildren()][:12]
    raise ValueError(
        f"{where}={prim_path!r} names no prim of the stage {path!r}; prims below {str(ancestor)!r}: "
        f"{', '.join(children) or 'none'}"
    )


@contextlib.contextmanager
def importer_errors(where: str, path: str, kind: str) -> Iterator[None]:
    """Turn an exception an importer raises inside the block into a ``ValueError`` that names the config, the
    field and the file, with the importer's own message; the original exception is the cause."""
    try:
        yield
    except Exception as err:
        own = _pxr_message(err) if type(err).__module__.startswith("pxr") else (str(err).strip() or "no message")
        raise ValueError(
            f"{where}: importing the {kind} {path!r} failed: {type(err).__name__}: {own}; check that the file is "
            f"{_a('valid ' + kind)}"
        ) from err


def file_key(path: str) -> tuple:
    """Cache key of the content of the file *path*: its absolute path, size, modification and change times
    [ns] and inode. Writing the file changes the key, so a cache keyed by it reads the new content."""
    stat = os.stat(path)
    return (os.path.abspath(path), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)
