"""Base classes of the Newton solver configurations.

A solver config is pure data. It knows which Newton solver class it describes, turns its
fields into that solver's constructor arguments (checking every field against the installed
constructor, so an option Newton renamed or removed is an error and never silently dropped),
and leaves building the solver, builder preparation and capture rules to the family's
solver binding (:mod:`isaaclab_contrib.physics.solvers.binding`).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

from isaaclab_contrib.physics.model_cfg import NewtonModelCfg
from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.validation import check_fields, nested

__all__ = ["NewtonModelSolverCfg", "NewtonSolverCfg", "SolverConfigError", "resolve_class"]


class SolverConfigError(TypeError):
    """A solver config field does not map to the installed Newton solver."""


def resolve_class(value: type | str, *, owner: str, field: str) -> type:
    """Return the class named by *value* (a class or a ``"module:Class"`` string).

    Args:
        value: The class itself, or ``"package.module:ClassName"``.
        owner: Name of the config class holding the field (for error messages).
        field: Name of the field (for error messages).
    """
    if isinstance(value, type):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{owner}.{field} must be a class or a 'module:Class' string, got {type(value).__name__}")
    module_name, sep, attr = value.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"{owner}.{field}={value!r} is not of the form 'package.module:ClassName'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"{owner}.{field}={value!r}: cannot import module {module_name!r} ({err})") from err
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{owner}.{field}={value!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise TypeError(f"{owner}.{field}={value!r} does not name a class")
    return obj


@configclass
class NewtonSolverCfg:
    """Base configuration of one Newton solver.

    Subclasses describe one Newton solver each. Every dataclass field is forwarded to the
    solver (its constructor, or its ``Config`` dataclass for solvers configured that way)
    under the same name, except the fields listed in :attr:`_local_fields`, which configure
    this package only.
    """

    extra_solver_args: dict[str, Any] = {}
    """Additional keyword arguments forwarded verbatim to the solver. Each key must be an
    argument of the installed solver; unknown keys raise when the solver is built."""

    # ----------------------------------------------------------------- class-level metadata
    solver_class_path: ClassVar[str] = ""
    """``"module:Class"`` of the Newton solver this config describes."""

    _local_fields: ClassVar[frozenset[str]] = frozenset({"extra_solver_args"})
    """Fields consumed by this package and not forwarded to the solver."""

    coupled_entry_support: ClassVar[str | None] = None
    """``None`` when the solver can be a coupled entry, otherwise the reason it cannot."""

    requires_in_place: ClassVar[bool] = False
    """Whether a coupled entry of this solver must step in place (``in_place=True``)."""

    supports_in_place: ClassVar[bool] = False
    """Whether the solver's stepping contract allows identical input and output states."""

    _ranges: ClassVar[dict[str, str]] = {}
    """Allowed values of the numeric fields (see :mod:`isaaclab_contrib.utils.validation`);
    merged along the MRO, so each subclass declares only its own fields."""

    def validate(self) -> None:
        """Check unset fields, every field's type and range, and :attr:`extra_solver_args`;
        errors name the config class and the field."""
        check_missing(self)
        check_fields(self)
        if not isinstance(self.extra_solver_args, Mapping):
            raise TypeError(
                f"{type(self).__name__}.extra_solver_args must be a dict of solver keyword arguments, "
                f"got {type(self.extra_solver_args).__name__}"
            )
        bad = [key for key in self.extra_solver_args if not isinstance(key, str)]
        if bad:
            raise TypeError(f"{type(self).__name__}.extra_solver_args keys must be argument names, got {bad!r}")

    # ----------------------------------------------------------------- solver mapping
    def solver_class(self) -> type:
        """Return the Newton solver class this config builds."""
        return resolve_class(self.solver_class_path, owner=type(self).__name__, field="solver_class_path")

    def _accepted_arguments(self) -> set[str]:
        """Names the installed solver accepts from this config (constructor keywords)."""
        params = inspect.signature(self.solver_class().__init__).parameters
        return {
            name
            for name, p in params.items()
            if name not in ("self", "model") and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        }

    def _forwarded_values(self) -> dict[str, Any]:
        """Field values forwarded to the solver, before validation against its signature."""
        self.validate()
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in self._local_fields}
        extra = dict(self.extra_solver_args or {})
        clash = sorted(set(extra) & set(values))
        if clash:
            raise ValueError(
                f"{type(self).__name__}.extra_solver_args repeats config field(s) {clash}; set the field instead."
            )
        values.update(extra)
        return values

    def solver_kwargs(self) -> dict[str, Any]:
        """Return the solver arguments, raising :class:`SolverConfigError` for a field the
        installed solver does not accept."""
        values = self._forwarded_values()
        accepted = self._accepted_arguments()
        unknown = sorted(set(values) - accepted)
        if unknown:
            cls_name = self.solver_class_path.rpartition(":")[2]
            raise SolverConfigError(
                f"{type(self).__name__}: field(s) {unknown} do not map to an argument of the installed "
                f"{cls_name} (accepted: {sorted(accepted)}). The Newton API changed; update the config."
            )
        return values


@configclass
class NewtonModelSolverCfg(NewtonSolverCfg):
    """A solver configuration that owns the whole model: the top-level ``solver_cfg`` of a
    simulation. It names the manager class that runs it and the global model parameters."""

    class_type: type | str = "isaaclab_contrib.physics.runtime.newton_manager:NewtonManager"
    """Manager class that runs this solver, as a class or a ``"module:Class"`` string."""

    solver_type: str = "newton"
    """Solver type metadata (deprecated): dispatch uses :attr:`class_type`. Kept for logging only;
    setting it to anything but its default emits a :class:`DeprecationWarning`."""

    model_cfg: Any = None
    """Global Newton model parameters (:class:`~isaaclab_contrib.physics.NewtonModelCfg`) applied
    after builder finalization, or ``None`` to keep Newton's values."""

    _local_fields: ClassVar[frozenset[str]] = frozenset({"extra_solver_args", "class_type", "solver_type", "model_cfg"})

    def validate(self) -> None:
        """Check the fields and the nested :attr:`model_cfg`."""
        super().validate()
        if self.model_cfg is not None:
            if not isinstance(self.model_cfg, NewtonModelCfg):
                raise TypeError(
                    f"{type(self).__name__}.model_cfg must be a NewtonModelCfg or None, got {type(self.model_cfg).__name__}"
                )
            with nested(f"{type(self).__name__}.model_cfg"):
                self.model_cfg.validate()

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "solver_type" and value is not MISSING:
            default = type(self).__dataclass_fields__["solver_type"].default
            if value != default:
                warnings.warn(
                    f"{type(self).__name__}.solver_type is deprecated metadata and is ignored for dispatch; "
                    "the manager class comes from class_type.",
                    DeprecationWarning,
                    stacklevel=3,
                )
        object.__setattr__(self, name, value)

    def manager_class(self) -> type:
        """Return the manager class named by :attr:`class_type`."""
        return resolve_class(self.class_type, owner=type(self).__name__, field="class_type")
