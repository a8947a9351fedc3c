"""Command-line overrides of nested config fields, in Isaac Lab's (Hydra's) ``<root>.<field path>=<value>`` form.

The training scripts take trailing arguments such as::

    env.scene.num_envs=16 agent.max_iterations=100 agent.algorithm.learning_rate=3e-4 env.sim.device=cpu

Each one names a *root* (``env`` or ``agent``: which config it edits), a dotted *field path* inside that
config and the *value* as text. The text is parsed by the declared type of the field (the same type
information :func:`~isaaclab_contrib.utils.validation.check_fields` validates with):

* ``bool``: ``true`` / ``false`` (also ``True``, ``1``, ``yes``, ``on`` and their opposites);
* ``int`` and ``float``: Python number syntax (``16``, ``3e-4``, ``inf``); a ``float`` field takes integers;
* ``str``: the text itself (surrounding quotes are removed);
* ``Literal[...]``: one of the listed values, written as the value (``schedule=fixed``);
* ``tuple[float, float, float]``, ``list[int]``, ``dict[str, float]`` and other containers: a Python literal
  (``(0.0, 1.0, 2.0)``, ``[64,64]``, ``{"a": 1.0}``);
* ``X | None``: also ``None`` (or ``null``).

A path step may also name a key of a dict field or an index of a list field
(``env.scene.arm.actuators.arm.stiffness=50``, ``env.cameras.0.width=64``). A whole nested config cannot be
replaced from the command line; its fields are set one by one.

Errors are :class:`OverrideError` (a ``ValueError``) naming the full path: an unknown field lists the valid
field names at that level; a value that does not parse names the expected type and the text given; a value
outside the field's declared range (``_ranges``) is refused with that range. :func:`apply_overrides` never
changes the configs it is given: it edits deep copies and returns them, so a failing override leaves nothing
half-applied. Cross-field checks are the configs' own ``validate()``, which the caller runs afterwards.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Any, Literal

from .configclass import MISSING, is_configclass
from .validation import FieldRule, field_rules, field_type_hints

__all__ = ["Override", "OverrideError", "apply_overrides", "overrides_record", "parse_override"]

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")
_NONE = ("none", "null", "~")


class OverrideError(ValueError):
    """An override that cannot be applied; the message names the override's full path."""


@dataclass(frozen=True)
class Override:
    """One ``<root>.<field path>=<value>`` argument, split but not yet interpreted.

    Attributes:
        root: Which config it edits (``"env"`` or ``"agent"`` in the training scripts).
        path: Field names (or dict keys / list indices) from the root config down to the field.
        text: The value as given on the command line.
    """

    root: str
    path: tuple[str, ...]
    text: str

    @property
    def dotted(self) -> str:
        """``root.field.path``, the name errors use."""
        return ".".join((self.root, *self.path))

    def __str__(self) -> str:
        return f"{self.dotted}={self.text}"


def parse_override(text: str, roots: Sequence[str] = ("env", "agent")) -> Override:
    """Split ``"<root>.<field path>=<value>"`` into an :class:`Override` (the value is parsed later, by type).

    Args:
        text: The command-line argument.
        roots: The accepted roots.

    Raises:
        OverrideError: No ``=``, an unknown root, no field path or an empty path step.
    """
    expected = " or ".join(f"{r}.<field path>=<value>" for r in roots)
    if not isinstance(text, str) or "=" not in text:
        raise OverrideError(f"expected an override {expected}, got {text!r}")
    key, value = text.split("=", 1)
    parts = tuple(part.strip() for part in key.strip().split("."))
    if parts[0] not in roots:
        raise OverrideError(f"override {text!r}: unknown config {parts[0]!r}; expected {expected}")
    if len(parts) < 2 or not all(parts):
        raise OverrideError(f"override {text!r}: expected {expected} with a non-empty dotted field path")
    return Override(parts[0], parts[1:], value.strip())


def apply_overrides(configs: Mapping[str, Any], overrides: Sequence[Override]) -> dict[str, Any]:
    """Deep copies of *configs* (root name -> config) with every override applied, in order.

    Each value is parsed by the declared type of its field and checked against the field's type and declared
    range (so ``agent.algorithm.learning_rate=-1`` is refused here, naming that path). The configs given are
    not changed. The caller runs the configs' ``validate()`` afterwards for the checks that span fields.

    Raises:
        OverrideError: An unknown root or field (the valid names at that level are listed), a value that does
            not parse as the field's type, or a value outside its declared range.
    """
    result = {name: copy.deepcopy(cfg, {id(MISSING): MISSING}) for name, cfg in configs.items()}
    for override in overrides:
        if override.root not in result:
            raise OverrideError(
                f"{override.dotted}: unknown config {override.root!r}; expected one of {sorted(result)}"
            )
        _apply(result[override.root], override)
    return result


def overrides_record(overrides: Sequence[Override]) -> list[str]:
    """The overrides as the ``"<root>.<path>=<value>"`` strings given (for a run's saved parameters)."""
    return [str(o) for o in overrides]


# --------------------------------------------------------------------------------------------- internals
def _field_names(obj: Any) -> list[str]:
    return [f.name for f in dataclasses.fields(obj)]


def _step(parent: Any, key: str, where: str) -> tuple[Any, Any]:
    """``(container, key)`` to read / write the path step *key* of *parent* (a config, dict or list)."""
    if is_configclass(parent) and not isinstance(parent, type):
        names = _field_names(parent)
        if key not in names:
            raise OverrideError(
                f"{where}.{key}: {type(parent).__name__} has no field {key!r}; valid fields at {where}: "
                f"{', '.join(sorted(names))}"
            )
        return parent, key
    if isinstance(parent, dict):
        keys = {str(k): k for k in parent}
        if key not in keys:
            raise OverrideError(f"{where}.{key}: no key {key!r}; valid keys at {where}: {', '.join(sorted(keys))}")
        return parent, keys[key]
    if isinstance(parent, list):
        if not key.isdigit() or int(key) >= len(parent):
            raise OverrideError(
                f"{where}.{key}: {where} is a list of {len(parent)} entries; use an index 0..{len(parent) - 1}"
            )
        return parent, int(key)
    if parent is MISSING:
        raise OverrideError(f"{where}.{key}: {where} is not set (MISSING), so it has no fields to override")
    raise OverrideError(
        f"{where}.{key}: {where} is not a config with fields (it holds the {type(parent).__name__} {parent!r}); "
        f"set {where} itself instead"
    )


def _get(container: Any, key: Any) -> Any:
    return getattr(container, key) if isinstance(key, str) and not isinstance(container, dict) else container[key]


def _apply(root: Any, override: Override) -> None:
    where = override.root
    node = root
    for key in override.path[:-1]:
        container, resolved = _step(node, key, where)
        node = _get(container, resolved)
        where = f"{where}.{key}"
    container, key = _step(node, override.path[-1], where)
    path = override.dotted
    current = _get(container, key)
    if is_configclass(container) and not isinstance(container, dict):
        cls = type(container)
        rule = field_rules(cls).get(key)
        hint = field_type_hints(cls).get(key)
        if rule is not None:
            value = _parse_rule(rule, override.text, path)
            try:
                rule.check(value, path)  # type and declared range, named by the override's path
            except (TypeError, ValueError) as err:
                raise OverrideError(f"{err} (from {override})") from None
        else:
            value = _parse_hint(hint, current, override.text, path)
        setattr(container, key, value)
    else:  # a dict entry or list item: parsed like the value it replaces
        value = _parse_like(current, override.text, path)
        container[key] = value


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOTHING


_NOTHING = object()


def _type_error(path: str, expected: str, text: str) -> OverrideError:
    return OverrideError(f"{path}: expected {expected}, got {text!r}")


def _parse_number(text: str, integer: bool) -> Any:
    """The number in *text* (an ``int`` when *integer*, else a ``float``), or ``_NOTHING``."""
    try:
        return int(text.strip(), 10) if integer else float(text.strip())
    except ValueError:
        return _NOTHING


def _parse_rule(rule: FieldRule, text: str, path: str) -> Any:
    """*text* as a value of a scalar / literal / vector field (see :class:`FieldRule`)."""
    raw = text.strip()
    if rule.optional and raw.lower() in _NONE:
        return None
    for literal in rule.literals:
        if isinstance(literal, str) and _unquote(raw) == literal:
            return literal
        if isinstance(literal, bool) and raw.lower() in (_TRUE if literal else _FALSE):
            return literal
        if not isinstance(literal, (str, bool)) and _literal(raw) == literal and not isinstance(_literal(raw), bool):
            return literal
    if "bool" in rule.kinds:
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
    if "int" in rule.kinds and (value := _parse_number(raw, integer=True)) is not _NOTHING:
        return value
    if "float" in rule.kinds and (value := _parse_number(raw, integer=False)) is not _NOTHING:
        return value
    if rule.vector_kind is not None:
        value = _literal(raw)
        if isinstance(value, (tuple, list)):
            return tuple(float(v) if rule.vector_kind == "float" and _is_number(v) else v for v in value)
    if "str" in rule.kinds:
        return _unquote(raw)
    raise _type_error(path, rule.expected(), text)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _describe(hint: Any) -> str:
    if hint is None:
        return "a value"
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).replace("typing.", "")


def _parse_hint(hint: Any, current: Any, text: str, path: str) -> Any:
    """*text* for a field without a scalar rule: containers (``list[int]``, ``dict[str, float]``...) as Python
    literals, checked against the annotation; nested configs and other objects are refused."""
    members = _union_members(hint) if hint is not None else ()
    if is_configclass(current) or any(is_configclass(m) for m in members if isinstance(m, type)):
        fields = ", ".join(sorted(_field_names(current))) if is_configclass(current) else ""
        listing = f"; its fields: {fields}" if fields else ""
        raise OverrideError(
            f"{path} is a nested config ({type(current).__name__}); set its fields one by one, "
            f"e.g. {path}.<field>=<value>{listing}"
        )
    raw = text.strip()
    if any(m is NoneType or m is None for m in members) and raw.lower() in _NONE:
        return None
    containers = [
        m
        for m in members
        if typing.get_origin(m) in (list, tuple, dict, set, frozenset) or m in (list, tuple, dict, set, frozenset)
    ]
    if not containers:
        if hint is None and current is not MISSING and current is not None:
            return _parse_like(current, text, path)
        raise OverrideError(f"{path}: a field of type {_describe(hint)} cannot be set from the command line")
    value = _literal(raw)
    for container in containers:
        converted = _check_container(container, value)
        if converted is not _NOTHING:
            return converted
    raise _type_error(path, f"{_describe(hint)} (a Python literal such as [1, 2] or {{'key': 1.0}})", text)


def _union_members(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (typing.Union, UnionType):
        return tuple(m for arg in typing.get_args(hint) for m in _union_members(arg))
    return (hint,)


def _matches(element_hint: Any, value: Any) -> Any:
    """*value* converted to *element_hint* (ints to floats for ``float``), or ``_NOTHING``."""
    if element_hint is Any or element_hint is None:
        return value
    for member in _union_members(element_hint):
        if member is NoneType and value is None:
            return None
        if member is bool and isinstance(value, bool):
            return value
        if member is int and isinstance(value, int) and not isinstance(value, bool):
            return value
        if member is float and _is_number(value):
            return float(value)
        if member is str and isinstance(value, str):
            return value
        if typing.get_origin(member) is Literal and value in typing.get_args(member):
            return value
        if typing.get_origin(member) in (list, tuple, dict, set, frozenset):
            converted = _check_container(member, value)
            if converted is not _NOTHING:
                return converted
    return _NOTHING


def _check_container(hint: Any, value: Any) -> Any:
    """*value* (a parsed literal) as the container *hint* describes, or ``_NOTHING``."""
    origin = typing.get_origin(hint) or hint
    args = typing.get_args(hint)
    if origin in (list, set, frozenset) and isinstance(value, (list, tuple, set, frozenset)):
        element = args[0] if args else Any
        items = [_matches(element, v) for v in value]
        return _NOTHING if any(i is _NOTHING for i in items) else origin(items)
    if origin is tuple and isinstance(value, (list, tuple)):
        if len(args) == 2 and args[1] is Ellipsis:
            items = [_matches(args[0], v) for v in value]
        elif args:
            if len(args) != len(value):
                return _NOTHING
            items = [_matches(a, v) for a, v in zip(args, value, strict=True)]
        else:
            items = list(value)
        return _NOTHING if any(i is _NOTHING for i in items) else tuple(items)
    if origin is dict and isinstance(value, dict):
        key_hint, value_hint = args if len(args) == 2 else (Any, Any)
        out = {}
        for k, v in value.items():
            key, item = _matches(key_hint, k), _matches(value_hint, v)
            if key is _NOTHING or item is _NOTHING:
                return _NOTHING
            out[key] = item
        return out
    return _NOTHING


def _parse_like(current: Any, text: str, path: str) -> Any:
    """*text* as a value of the same kind as *current* (dict entries and list items, which have no annotation
    of their own here)."""
    if is_configclass(current):
        raise OverrideError(
            f"{path} is a nested config ({type(current).__name__}); set its fields one by one, e.g. "
            f"{path}.<field>=<value>; its fields: {', '.join(sorted(_field_names(current)))}"
        )
    raw = text.strip()
    if isinstance(current, bool):
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise _type_error(path, "a bool (true or false)", text)
    if isinstance(current, int):
        value = _parse_number(raw, integer=True)
        if value is _NOTHING:
            raise _type_error(path, "an integer", text)
        return value
    if isinstance(current, float):
        value = _parse_number(raw, integer=False)
        if value is _NOTHING:
            raise _type_error(path, "a real number", text)
        return value
    if isinstance(current, str):
        return _unquote(raw)
    if current is None and raw.lower() in _NONE:
        return None
    value = _literal(raw)
    if isinstance(current, (list, tuple, dict)) and isinstance(
        value, type(current) if not isinstance(current, tuple) else (list, tuple)
    ):
        return tuple(value) if isinstance(current, tuple) else value
    raise _type_error(path, f"a {type(current).__name__} (as a Python literal)", text)
