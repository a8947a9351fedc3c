"""Field validation of config classes from their type annotations and declared ranges.

Every config class declares the allowed values of its numeric fields in one class-level
mapping, merged along the MRO (a subclass adds fields or overrides a base class's range)::

    @configclass
    class MySolverCfg(NewtonSolverCfg):
        _ranges: ClassVar[dict[str, str]] = {"iterations": ">= 1", "relaxation": "(0, 2)"}

        iterations: int = 10
        relaxation: float = 1.0

:func:`check_fields` (called by every config's ``validate()``) checks each field against its
annotation, resolved with :func:`typing.get_type_hints`:

* ``int``: an integer (NumPy integers too), never a ``bool``;
* ``float``: a real number (integers too), never a ``bool``; NaN is always rejected, infinity
  unless the range admits it;
* ``bool`` and ``str``: instances of that type (NumPy booleans count as ``bool``);
* ``Literal[...]``: one of the listed values;
* ``tuple[float, float, float]`` / ``tuple[int, ...]``: a sequence (tuple, list, array) of that
  length (any length for ``...``) whose entries follow the element rules; the range applies to
  every entry;
* ``X | None``: ``None`` or ``X``; unions combine their members.
* A union of a number (or vector) with other types, e.g. ``float | dict[str, float]`` or
  ``torch.Tensor | float``: numbers follow the rules above; a ``dict[str, float]`` (``int``) member
  takes a mapping of string keys to numbers, each in the range; a value of another member's class
  (a tensor) is accepted here and left to the config's own ``validate()``.

Fields of other types (configs, lists, dicts, classes, callables) are left to the config's own
``validate()``; a union of such types without a number member (``list[int] | slice``) too. A range
(a string) is one or more alternatives separated by ``|``:

* ``">= 1"``, ``"> 0"``, ``"<= 1"``, ``"< 2"``: a half-line;
* ``"[0, 1]"``, ``"(0, 1]"``, ``"(0, 2)"``: an interval; a closed infinite bound
  (``"(0, inf]"``) admits infinity, which is rejected otherwise;
* ``"-1"``: exactly that value;
* ``"any"``: every finite value.

Errors name the config class (or the path given as ``where``) and the field, and say what is
allowed, e.g. ``ValueError: VBDSolverCfg.iterations must be >= 1, got 0``. Validation only reads
the config; it never changes it.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import inspect
import math
import numbers
import re
import sys
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType, NoneType, UnionType
from typing import Any, Literal

__all__ = [
    "ROTATION_TOLERANCE",
    "FieldRule",
    "Interval",
    "Range",
    "check_device_alias",
    "check_fields",
    "check_rotation",
    "declared_ranges",
    "field_rules",
    "field_type_hints",
    "nested",
    "parse_range",
]

_MISSING = dataclasses.MISSING


# --------------------------------------------------------------------------------------- ranges
@dataclass(frozen=True)
class Interval:
    """One alternative of a :class:`Range`: the values between ``lo`` and ``hi``."""

    lo: float
    hi: float
    lo_closed: bool
    hi_closed: bool
    lo_text: str
    hi_text: str

    def contains(self, x: float) -> bool:
        """Whether *x* lies in the interval (infinity only at a closed infinite bound)."""
        if x < self.lo or (x == self.lo and not self.lo_closed):
            return False
        return not (x > self.hi or (x == self.hi and not self.hi_closed))

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi

    def describe(self) -> str:
        """The interval as a requirement, e.g. ``">= 1"``, ``"in (0, 1]"``, ``"-1"``."""
        if self.is_point:
            return self.lo_text
        lo_open_end = self.lo == -math.inf and not self.lo_closed
        hi_open_end = self.hi == math.inf and not self.hi_closed
        if lo_open_end and hi_open_end:
            return "a finite number"
        if self.hi == math.inf and math.isfinite(self.lo):
            return f"{'>=' if self.lo_closed else '>'} {self.lo_text}" + ("" if hi_open_end else " (inf allowed)")
        if self.lo == -math.inf and math.isfinite(self.hi):
            return f"{'<=' if self.hi_closed else '<'} {self.hi_text}" + ("" if lo_open_end else " (-inf allowed)")
        return f"in {self.bracket()}"

    def bracket(self) -> str:
        """Interval notation, e.g. ``"(0, 1]"``."""
        return f"{'[' if self.lo_closed else '('}{self.lo_text}, {self.hi_text}{']' if self.hi_closed else ')'}"

    def violated_bound(self, x: float) -> str:
        """The bound *x* violates, e.g. ``"<= 1.0"`` (*x* must lie outside the interval)."""
        if x < self.lo or (x == self.lo and not self.lo_closed):
            return f"{'>=' if self.lo_closed else '>'} {self.lo_text}"
        return f"{'<=' if self.hi_closed else '<'} {self.hi_text}"


@dataclass(frozen=True)
class Range:
    """Allowed values of a numeric field: a union of :class:`Interval` alternatives."""

    text: str
    intervals: tuple[Interval, ...]

    def contains(self, x: float) -> bool:
        return any(interval.contains(x) for interval in self.intervals)

    def describe(self) -> str:
        return " or ".join(interval.describe() for interval in self.intervals)

    def requirement(self, x: float) -> str:
        """What a value outside the range must satisfy, phrased for *x*."""
        if len(self.intervals) == 1:
            interval = self.intervals[0]
            both_finite = math.isfinite(interval.lo) and math.isfinite(interval.hi)
            if both_finite and not interval.is_point:
                return f"{interval.violated_bound(x)} (allowed range {interval.bracket()})"
        return self.describe()


_HALF_LINE = re.compile(r"(>=|<=|>|<)\s*(\S+)")
_INTERVAL = re.compile(r"([\[(])\s*([^,\s]+)\s*,\s*([^,\s]+)\s*([\])])")


def _parse_bound(token: str, spec: str) -> float:
    try:
        value = float(token)
    except ValueError:
        raise ValueError(f"range {spec!r}: {token!r} is not a number") from None
    if math.isnan(value):
        raise ValueError(f"range {spec!r}: NaN is not a bound")
    return value


@functools.cache
def parse_range(spec: str) -> Range:
    """Parse a range string (see the module documentation) into a :class:`Range`."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a range must be a non-empty string, got {spec!r}")
    intervals = []
    for part in (p.strip() for p in spec.split("|")):
        inf = math.inf
        if part == "any":
            intervals.append(Interval(-inf, inf, False, False, "-inf", "inf"))
        elif m := _HALF_LINE.fullmatch(part):
            op, token = m.groups()
            bound = _parse_bound(token, spec)
            if op.startswith(">"):
                intervals.append(Interval(bound, inf, op == ">=", False, token, "inf"))
            else:
                intervals.append(Interval(-inf, bound, False, op == "<=", "-inf", token))
        elif m := _INTERVAL.fullmatch(part):
            left, lo_token, hi_token, right = m.groups()
            lo, hi = _parse_bound(lo_token, spec), _parse_bound(hi_token, spec)
            if lo > hi:
                raise ValueError(f"range {spec!r}: empty interval {part!r}")
            intervals.append(Interval(lo, hi, left == "[", right == "]", lo_token, hi_token))
        else:
            value = _parse_bound(part, spec)
            intervals.append(Interval(value, value, True, True, part, part))
    return Range(spec, tuple(intervals))


# --------------------------------------------------------------------------------------- field rules
_KIND_TEXT = {"int": "an integer", "float": "a real number", "bool": "a bool", "str": "a string"}


def _is_bool(value: Any) -> bool:
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))


def _type_name(value: Any) -> str:
    return type(value).__name__


@dataclass(frozen=True)
class FieldRule:
    """What one field accepts, compiled from its annotation and declared range."""

    name: str
    kinds: frozenset[str]
    """Scalar types accepted: a subset of ``{"int", "float", "bool", "str"}``."""
    literals: tuple[Any, ...]
    """Values of ``Literal[...]`` members."""
    optional: bool
    """Whether ``None`` is accepted."""
    vector_kind: str | None
    """``"int"`` or ``"float"`` for a ``tuple[...]`` member, else ``None``."""
    vector_length: int | None
    """Number of entries of the tuple member; ``None`` for ``tuple[X, ...]``."""
    range: Range | None
    """Declared range of the numeric values, or ``None`` (any finite value)."""
    mapping_kind: str | None = None
    """``"int"`` or ``"float"`` for a ``dict[str, ...]`` member of a union with a number, else ``None``."""
    opaque_types: tuple[type, ...] = ()
    """Classes of the other members of a union with a number (e.g. ``torch.Tensor``): their values are accepted
    here and left to the config's own ``validate()``."""

    @property
    def numeric(self) -> bool:
        """Whether the field holds numbers (scalars or vectors), i.e. needs a declared range."""
        return bool(self.kinds & {"int", "float"}) or self.vector_kind is not None

    def expected(self) -> str:
        """What the field accepts, in words."""
        parts = [_KIND_TEXT[k] for k in ("int", "float", "bool", "str") if k in self.kinds]
        if self.kinds >= {"int", "float"}:
            parts.remove(_KIND_TEXT["int"])
        if self.literals:
            parts.append("one of " + ", ".join(repr(v) for v in self.literals))
        if self.vector_kind is not None:
            count = "" if self.vector_length is None else f" of {self.vector_length}"
            noun = "integers" if self.vector_kind == "int" else "real numbers"
            parts.append(f"a sequence{count} {noun}")
        if self.mapping_kind is not None:
            parts.append(f"a dict of str to {'integers' if self.mapping_kind == 'int' else 'real numbers'}")
        parts.extend(f"a {t.__name__}" for t in self.opaque_types)
        if self.optional:
            parts.append("None")
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]

    # ----------------------------------------------------------------- checks
    def check(self, value: Any, label: str) -> None:
        """Raise ``TypeError`` / ``ValueError`` naming *label* unless *value* is acceptable."""
        if value is None:
            if self.optional:
                return
            raise TypeError(f"{label} must be {self.expected()}, got None")
        if self.literals and self._is_literal(value):
            return
        if _is_bool(value):
            if "bool" in self.kinds:
                return
        elif isinstance(value, numbers.Integral):
            if self.kinds & {"int", "float"}:
                self._check_number(value, label)
                return
        elif isinstance(value, numbers.Real):
            if "float" in self.kinds:
                self._check_number(value, label)
                return
        elif isinstance(value, str):
            if "str" in self.kinds:
                return
        elif self.opaque_types and isinstance(value, self.opaque_types):
            return  # left to the config's own validate()
        elif self.mapping_kind is not None and isinstance(value, Mapping):
            self._check_mapping(value, label)
            return
        elif self.vector_kind is not None and _is_sequence(value):
            self._check_vector(value, label)
            return
        if self.literals and any(isinstance(value, type(v)) for v in self.literals):
            raise ValueError(f"{label} must be {self.expected()}, got {value!r}")
        raise TypeError(f"{label} must be {self.expected()}, got {_type_name(value)} {value!r}")

    def _is_literal(self, value: Any) -> bool:
        for literal in self.literals:
            if _is_bool(literal) != _is_bool(value) or not isinstance(value, type(literal)):
                continue
            if value == literal:
                return True
        return False

    def _check_number(self, value: Any, label: str) -> None:
        number = int(value) if isinstance(value, numbers.Integral) else float(value)
        if number != number:
            raise ValueError(f"{label} must not be NaN")
        rng = self.range
        inside = rng.contains(number) if rng is not None else math.isfinite(number)
        if inside:
            return
        if isinstance(number, float) and math.isinf(number):
            allowed = "" if rng is None or rng.text == "any" else f" ({rng.describe()})"
            raise ValueError(f"{label} must be finite{allowed}, got {number!r}")
        raise ValueError(f"{label} must be {rng.requirement(number)}, got {number!r}")

    def _check_vector(self, value: Any, label: str) -> None:
        items = list(value)
        if self.vector_length is not None and len(items) != self.vector_length:
            raise ValueError(f"{label} must have {self.vector_length} components, got {len(items)}: {value!r}")
        for i, item in enumerate(items):
            self._check_item(item, self.vector_kind, f"{label}[{i}]")

    def _check_mapping(self, value: Mapping, label: str) -> None:
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{label} keys must be strings, got {_type_name(key)} {key!r}")
            self._check_item(item, self.mapping_kind, f"{label}[{key!r}]")

    def _check_item(self, item: Any, kind: str, where: str) -> None:
        integral = isinstance(item, numbers.Integral) and not _is_bool(item)
        real = isinstance(item, numbers.Real) and not _is_bool(item)
        if not (integral if kind == "int" else real):
            raise TypeError(f"{where} must be {_KIND_TEXT[kind]}, got {_type_name(item)} {item!r}")
        self._check_number(item, where)


def _is_sequence(value: Any) -> bool:
    if isinstance(value, (str, bytes, Mapping)):
        return False
    return hasattr(value, "__len__") and hasattr(value, "__getitem__")


def _union_members(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (typing.Union, UnionType):
        members: list[Any] = []
        for arg in typing.get_args(hint):
            members.extend(_union_members(arg))
        return tuple(members)
    return (hint,)


def _compile(name: str, hint: Any, range_text: str | None) -> FieldRule | None:
    """Compile a field's annotation; ``None`` when the field is left to the config's own ``validate()`` (a member
    that is not a checkable type, other than a class beside a number member)."""
    kinds: set[str] = set()
    literals: list[Any] = []
    optional = False
    vector_kind = None
    vector_length = None
    mapping_kind = None
    others: list[type] = []
    for member in _union_members(hint):
        origin = typing.get_origin(member)
        if member is None or member is NoneType:
            optional = True
        elif member in (int, float, bool, str):
            kinds.add(member.__name__)
        elif origin is Literal:
            for value in typing.get_args(member):
                if value is None:
                    optional = True
                else:
                    literals.append(value)
        elif origin is tuple and vector_kind is None:
            args = typing.get_args(member)
            if len(args) == 2 and args[1] is Ellipsis:
                element_types = {args[0]}
            else:
                element_types = set(args)
                vector_length = len(args)
            if len(element_types) != 1 or next(iter(element_types)) not in (int, float):
                return None
            vector_kind = next(iter(element_types)).__name__
        elif origin is dict and typing.get_args(member)[:1] == (str,) and mapping_kind is None:
            value_type = typing.get_args(member)[1:]
            if value_type not in ((int,), (float,)):
                return None
            mapping_kind = value_type[0].__name__
        elif isinstance(origin or member, type) and (origin or member) not in (object, Any):
            others.append(origin or member)
        else:
            return None  # Any, a type variable: nothing to check a value against
    if (others or mapping_kind is not None) and not (kinds & {"int", "float"} or vector_kind is not None):
        return None  # no number among the members: the config's own validate() checks the field
    return FieldRule(
        name=name,
        kinds=frozenset(kinds),
        literals=tuple(literals),
        optional=optional,
        vector_kind=vector_kind,
        vector_length=vector_length,
        range=parse_range(range_text) if range_text is not None else None,
        mapping_kind=mapping_kind,
        opaque_types=tuple(others),
    )


def declared_ranges(cls: type) -> dict[str, str]:
    """The ``_ranges`` declarations of *cls*, merged along its MRO (subclasses win)."""
    merged: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        merged.update(klass.__dict__.get("_ranges", {}) or {})
    return merged


def field_type_hints(cls: type) -> dict[str, Any]:
    """The evaluated type annotations of *cls* and its bases, by field name; an annotation that cannot be
    evaluated (a name not importable at run time) is left out instead of failing the whole class. Raises
    ``TypeError`` when *cls* is not a class."""
    if not isinstance(cls, type):
        raise TypeError(f"field_type_hints: expected a class, got {type(cls).__name__} {cls!r}")
    try:
        return typing.get_type_hints(cls)
    except Exception:  # an annotation that cannot be evaluated: resolve the others one by one
        hints: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            module = sys.modules.get(klass.__module__)
            namespace = dict(vars(module)) if module is not None else {}
            for name, annotation in inspect.get_annotations(klass).items():
                if isinstance(annotation, str):
                    try:
                        annotation = eval(annotation, namespace, dict(vars(klass)))
                    except Exception:
                        hints.pop(name, None)
                        continue
                hints[name] = annotation
        return hints


@functools.cache
def field_rules(cls: type) -> Mapping[str, FieldRule]:
    """Rules of the checkable fields of the dataclass *cls*, by field name.

    Raises ``TypeError`` when ``_ranges`` names a field that does not exist or is not numeric.
    """
    ranges = declared_ranges(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(ranges) - set(fields))
    if unknown:
        raise TypeError(f"{cls.__name__}._ranges names unknown field(s) {unknown}")
    hints = field_type_hints(cls)
    rules: dict[str, FieldRule] = {}
    for name in fields:
        hint = hints.get(name)
        rule = _compile(name, hint, ranges.get(name)) if hint is not None else None
        if name in ranges and (rule is None or not rule.numeric):
            raise TypeError(f"{cls.__name__}._ranges declares a range for {name!r}, which is not a numeric field")
        if rule is not None:
            rules[name] = rule
    return MappingProxyType(rules)


def check_fields(cfg: Any, where: str | None = None) -> None:
    """Check every annotated field of the config *cfg* (see the module documentation).

    Args:
        cfg: A dataclass (config) instance. Fields still :data:`~dataclasses.MISSING` are skipped
            (``check_missing`` reports them).
        where: Prefix of error messages; defaults to the class name.
    """
    label = where if where is not None else type(cfg).__name__
    for name, rule in field_rules(type(cfg)).items():
        value = getattr(cfg, name)
        if value is _MISSING:
            continue
        rule.check(value, f"{label}.{name}")


# --------------------------------------------------------------------------------------- helpers
_DEVICE_ALIAS = re.compile(r"cpu|cuda(:[0-9]+)?")


def check_device_alias(value: Any, label: str) -> None:
    """Check that *value* is a Warp device alias: ``"cpu"``, ``"cuda"`` or ``"cuda:N"``."""
    if not isinstance(value, str):
        raise TypeError(f"{label} must be a device string ('cpu', 'cuda' or 'cuda:N'), got {_type_name(value)}")
    if not _DEVICE_ALIAS.fullmatch(value):
        raise ValueError(
            f"{label} must be a Warp device alias 'cpu', 'cuda' or 'cuda:N' (N = 0, 1, ...), got {value!r}"
        )


ROTATION_TOLERANCE = 1.0e-6
"""How far from 1 the norm of a quaternion given as a unit quaternion may be (:func:`check_rotation`)."""

_ZERO_NORM = 1.0e-9


def check_rotation(
    quat: Any, where: str, *, tolerance: float = ROTATION_TOLERANCE, normalize: bool = False
) -> tuple[float, float, float, float]:
    """Check that *quat* is a rotation: a quaternion ``(x, y, z, w)`` (Warp's order) of four finite real numbers.

    The one quaternion check of the package (asset start poses, site and camera transforms, writers). Two
    policies, chosen by the caller and said in its error messages:

    * ``normalize=False`` (configs): the norm must lie within *tolerance* of 1; the quaternion is returned as
      given (floats).
    * ``normalize=True`` (poses built at run time, e.g. with ``wp.quat``): any quaternion whose norm is not zero
      is accepted and returned divided by its norm.

    A zero (or near-zero) quaternion is never a rotation: it renders nothing and turns every transformed point
    into the origin.

    Args:
        quat: Any sequence of four numbers (tuple, list, NumPy array, ``wp.quat``).
        where: What the quaternion is, for the messages (``"PressClothEnvCfg.scene.box.init_state.rot"``).
        tolerance: Allowed deviation of the norm from 1 with ``normalize=False``.
        normalize: Accept any non-zero norm and return the unit quaternion.

    Raises:
        TypeError: *quat* is not a sequence of four real numbers.
        ValueError: A component is not finite, the norm is zero, or (``normalize=False``) the norm is not 1.
    """
    if isinstance(quat, (str, bytes, Mapping)) or not (hasattr(quat, "__len__") and hasattr(quat, "__getitem__")):
        raise TypeError(f"{where} must be a quaternion (x, y, z, w) of 4 real numbers, got {_type_name(quat)} {quat!r}")
    items = [quat[i] for i in range(len(quat))]
    if len(items) != 4:
        raise ValueError(f"{where} must be a quaternion (x, y, z, w) of 4 real numbers, got {len(items)}: {quat!r}")
    values = []
    for i, item in enumerate(items):
        if _is_bool(item) or not isinstance(item, numbers.Real):
            raise TypeError(f"{where}[{i}] must be a real number, got {_type_name(item)} {item!r}")
        values.append(float(item))
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"{where} must be a rotation quaternion (x, y, z, w) of finite numbers, got {tuple(values)!r}")
    norm = math.sqrt(sum(v * v for v in values))
    if norm < _ZERO_NORM:
        raise ValueError(
            f"{where} is a zero quaternion {tuple(values)!r}, not a rotation; the identity is (0, 0, 0, 1) "
            "(Warp's order x, y, z, w)"
        )
    if normalize:
        return tuple(v / norm for v in values)  # type: ignore[return-value]
    if abs(norm - 1.0) > tolerance:
        raise ValueError(
            f"{where} must be a unit quaternion (x, y, z, w), got {tuple(values)!r} (norm {norm:.9g}, allowed "
            f"1 +- {tolerance:g}); divide it by its norm"
        )
    return tuple(values)  # type: ignore[return-value]


def _prefixed(err: BaseException, where: str) -> BaseException:
    message = f"{where}: {err}"
    try:
        new = copy.copy(err)
        new.args = (message,)
        return new
    except Exception:
        return type(err)(message)


@contextlib.contextmanager
def nested(where: str) -> Iterator[None]:
    """Prefix ``TypeError`` / ``ValueError`` raised inside the block with ``"{where}: "``.

    Used to validate a nested config: ``with nested("SimulationCfg.physics"): self.physics.validate()``.
    """
    try:
        yield
    except (TypeError, ValueError) as err:
        raise _prefixed(err, where) from err
