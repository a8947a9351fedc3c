"""A small Isaac Lab-style ``@configclass`` decorator.

Config classes are plain dataclasses with a few conveniences that task configs rely on:

* Mutable defaults (lists, dicts, sets and nested config instances) are written directly
  in the class body; every instance receives its own deep copy, so no
  ``field(default_factory=...)`` boilerplate is needed.
* Fields may default to :data:`MISSING`; such a field must be filled before the config is
  used. :meth:`validate` (and every consumer in this package) reports the unset fields by
  their dotted path.
* ``validate()`` (unless the class defines its own): the unset fields, then every annotated
  field against its type and declared range (:func:`~isaaclab_contrib.utils.validation.check_fields`;
  ranges live in the class's ``_ranges`` mapping). A class that overrides ``validate()`` calls
  :func:`check_missing` and ``check_fields`` itself.
* ``to_dict()``, ``replace(**changes)`` and a deep ``copy()``.

``ClassVar`` annotations (class-level metadata such as ``_ranges``) are not fields.

All fields are keyword-only, so field order never matters.
"""

from __future__ import annotations

import copy as _copy
import dataclasses
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from .validation import check_fields

__all__ = ["MISSING", "MissingFieldError", "check_missing", "configclass", "is_configclass"]

MISSING = dataclasses.MISSING
"""Sentinel default for a field the user must set before the config is used."""

_T = TypeVar("_T")
_IMMUTABLE_DEFAULTS = (type(None), bool, int, float, complex, str, bytes, tuple, frozenset, type)


class MissingFieldError(ValueError):
    """Raised when a config is used while one of its :data:`MISSING` fields is unset."""


def is_configclass(obj: Any) -> bool:
    """Return whether *obj* is a configclass type or instance."""
    cls = obj if isinstance(obj, type) else type(obj)
    return bool(getattr(cls, "__configclass__", False))


def _missing_factory() -> Any:
    return MISSING


def _deepcopy(value: Any) -> Any:
    """``copy.deepcopy`` that keeps :data:`MISSING` itself (a plain deep copy makes a new sentinel object, which
    ``is MISSING`` no longer recognizes)."""
    return _copy.deepcopy(value, {id(MISSING): MISSING})


def _copy_factory(value: Any) -> Callable[[], Any]:
    def factory() -> Any:
        return _deepcopy(value)

    return factory


def _is_mutable_default(value: Any) -> bool:
    if isinstance(value, _IMMUTABLE_DEFAULTS) or (callable(value) and not is_configclass(value)):
        return False
    return True


def _collect_missing(obj: Any, prefix: str) -> list[str]:
    missing: list[str] = []
    if is_configclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            path = f"{prefix}.{f.name}" if prefix else f.name
            if value is MISSING:
                missing.append(path)
            else:
                missing.extend(_collect_missing(value, path))
    elif isinstance(obj, (list, tuple)):
        for index, item in enumerate(obj):
            missing.extend(_collect_missing(item, f"{prefix}[{index}]"))
    elif isinstance(obj, dict):
        for key, item in obj.items():
            missing.extend(_collect_missing(item, f"{prefix}[{key!r}]"))
    return missing


def _to_plain(value: Any) -> Any:
    if is_configclass(value) and not isinstance(value, type):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return type(value)(_to_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_plain(v) for k, v in value.items()}
    if isinstance(value, type):
        return f"{value.__module__}:{value.__qualname__}"
    return value


def check_missing(cfg: Any) -> None:
    """Raise :class:`MissingFieldError` naming every :data:`MISSING` field of *cfg*, nested ones included."""
    missing = _collect_missing(cfg, "")
    if missing:
        raise MissingFieldError(
            f"{type(cfg).__name__}: required field(s) not set: {', '.join(missing)}. Set them before using the config."
        )


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.replace(" ", "").startswith(("ClassVar", "typing.ClassVar"))
    return annotation is typing.ClassVar or typing.get_origin(annotation) is typing.ClassVar


def _validate(self) -> None:
    """Check the config: unset :data:`MISSING` fields, then field types and declared ranges."""
    check_missing(self)
    check_fields(self)


def _to_dict(self) -> dict[str, Any]:
    """Return the config as nested plain dictionaries (classes become ``"module:Class"`` strings)."""
    return {f.name: _to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _replace(self, **changes: Any):
    """Return a deep copy of the config with *changes* applied; unknown names raise ``TypeError``."""
    names = {f.name for f in dataclasses.fields(self)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise TypeError(f"{type(self).__name__}.replace(): unknown field(s) {unknown}; valid fields: {sorted(names)}")
    new = _deepcopy(self)
    for name, value in changes.items():
        setattr(new, name, value)
    return new


def _copy_method(self):
    """Return a deep copy of the config."""
    return _deepcopy(self)


def _deepcopy_method(self, memo: dict) -> Any:
    """``copy.deepcopy(cfg)``: the fields deep-copied, :data:`MISSING` kept itself (as :meth:`copy` does), so a
    field left unset is still recognized as unset in the copy."""
    memo.setdefault(id(MISSING), MISSING)
    new = object.__new__(type(self))
    memo[id(self)] = new
    for name, value in vars(self).items():
        object.__setattr__(new, name, _copy.deepcopy(value, memo))
    return new


def _annotate_plain_attributes(klass: type) -> None:
    """Make the class attributes written without an annotation fields, as Isaac Lab's ``configclass`` does
    (``joint_pos = ObsTerm(...)`` in an observation group is a field). Functions, properties, class and static
    methods, nested classes and private or dunder names stay plain class attributes."""
    own = dict(inspect.get_annotations(klass))
    inherited: dict[str, Any] = {}
    for base in reversed(klass.__mro__[1:]):
        inherited.update(inspect.get_annotations(base))
    added = False
    for name, value in list(vars(klass).items()):
        if name.startswith("_") or name in own:
            continue
        if inspect.isroutine(value) or isinstance(value, (property, classmethod, staticmethod, type)):
            continue
        own[name] = inherited.get(name, Any)  # a field redeclared by value keeps its base's annotation
        added = True
    if added:
        klass.__annotations__ = own


def configclass(cls: type[_T] | None = None, **dataclass_kwargs: Any):
    """Turn *cls* into a keyword-only dataclass with Isaac Lab config conveniences.

    Example::

        @configclass
        class MyCfg:
            name: str = MISSING
            gains: list[float] = [1.0, 2.0]   # each instance gets its own list
    """

    def wrap(klass: type[_T]) -> type[_T]:
        _annotate_plain_attributes(klass)
        annotations = inspect.get_annotations(klass)
        annotations = {name: a for name, a in annotations.items() if not _is_classvar(a)}
        for name in annotations:
            if name.startswith("__") or name not in klass.__dict__:
                continue
            default = klass.__dict__[name]
            if isinstance(default, dataclasses.Field):
                continue
            if default is MISSING:
                setattr(klass, name, dataclasses.field(default_factory=_missing_factory))
            elif _is_mutable_default(default):
                setattr(klass, name, dataclasses.field(default_factory=_copy_factory(default)))
        # Fields without any default become MISSING rather than required constructor arguments.
        for name in annotations:
            if name.startswith("__") or name in klass.__dict__:
                continue
            setattr(klass, name, dataclasses.field(default_factory=_missing_factory))
        kwargs = {"kw_only": True}
        kwargs.update(dataclass_kwargs)
        klass = dataclasses.dataclass(klass, **kwargs)
        klass.__configclass__ = True
        for method_name, method in (
            ("validate", _validate),
            ("to_dict", _to_dict),
            ("replace", _replace),
            ("copy", _copy_method),
            ("__deepcopy__", _deepcopy_method),
        ):
            if not hasattr(klass, method_name):
                setattr(klass, method_name, method)
        return klass

    if cls is None:
        return wrap
    return wrap(cls)
