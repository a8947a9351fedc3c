"""The one label selector: Isaac Lab-style regexes over Newton's hierarchical labels.

Newton labels bodies, joints, shapes and sites with paths such as
``/World/envs/env_3/Robot/base``. Everything in this package that selects by label —
coupler entry ownership, proxy mappings, actuator groups, sites and contact sensors — goes
through :class:`LabelSelector`, which full-matches a regex under one of four scopes:

``"label"``
    the whole label (shape patterns, sensor expressions);
``"subtree"``
    the label or any ``/``-path above it, so a pattern selects that path and everything below it
    (the spec's "including all descendant labels": ``/World/envs/env_.*/Robot`` selects every link);
``"name"``
    the last path segment (Isaac Lab's ``joint_names_expr``: ``"shoulder"``, ``"panda_joint.*"``);
``"tail"``
    the whole label or any ``/``-suffix of it (prototype-local patterns such as ``"Robot/link.*"``).

A pattern that selects nothing raises one error, naming where the pattern came from, the rule
and what the labels look like.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = ["LabelSelector", "Scope", "check_regex", "check_regex_list", "compile_patterns", "label_matches"]

Scope = Literal["label", "subtree", "name", "tail"]

_RULES: dict[str, str] = {
    "label": "full match of a label",
    "subtree": "full match of a label or of a path above it",
    "name": "full match of the last path segment",
    "tail": "full match of a label or of a path ending it",
}


def check_regex(pattern: object, where: str) -> re.Pattern:
    """Compile *pattern*; raise ``TypeError`` / ``ValueError`` naming *where* when it is not a valid regex string."""
    if isinstance(pattern, re.Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise TypeError(f"{where} must be a regex string, got {type(pattern).__name__}")
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"{where}={pattern!r} is not a valid regular expression: {err}") from err


def check_regex_list(value: object, where: str) -> list[re.Pattern]:
    """Compile a list (or tuple) of regex strings (configs hold strings, not compiled patterns); raise naming
    *where* (and the item) when *value* is not one or an item is not a valid regex (:func:`check_regex`)."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{where} must be a list of regex strings, got {type(value).__name__}")
    compiled = []
    for i, pattern in enumerate(value):
        if not isinstance(pattern, str):
            raise TypeError(f"{where}[{i}] must be a regex string, got {type(pattern).__name__}")
        compiled.append(check_regex(pattern, f"{where}[{i}]"))
    return compiled


def compile_patterns(expr: str | Sequence[str] | None) -> re.Pattern | None:
    """One compiled regex for an Isaac Lab expression: a regex, or a non-empty list of regexes (an alternation).

    The regexes are used as they are (no glob translation); ``None`` stays ``None``.
    """
    if expr is None:
        return None
    patterns = [expr] if isinstance(expr, str) else list(expr)
    if not patterns or not all(isinstance(p, str) for p in patterns):
        raise TypeError(f"expected a regex string or a non-empty list of regex strings, got {expr!r}")
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def label_matches(pattern: str | re.Pattern, label: str, scope: Scope = "label") -> bool:
    """Whether *pattern* selects the one *label* under *scope* (the rule :class:`LabelSelector` applies to many)."""
    fullmatch = (re.compile(pattern) if isinstance(pattern, str) else pattern).fullmatch
    return any(fullmatch(key) for key in _candidates(label, scope))


class LabelSelector:
    """Select indices of *labels* by regex (see the module documentation).

    Args:
        labels: One label per element (``None`` or ``""`` for an unlabelled element, which only a
            pattern matching the empty string selects).
        kind: What the labels name (``"body"``, ``"joint"``, ``"shape"``...), used in messages.
    """

    def __init__(self, labels: Sequence[str | None], kind: str):
        self.labels = ["" if label is None else str(label) for label in labels]
        self.kind = kind
        self._keys: dict[str, dict[str, list[int]]] = {}

    def _index(self, scope: Scope) -> dict[str, list[int]]:
        """Every string a label is matched by under *scope* -> the labels it stands for (built once per scope)."""
        keys = self._keys.get(scope)
        if keys is not None:
            return keys
        if scope not in _RULES:
            raise ValueError(f"LabelSelector: scope must be one of {sorted(_RULES)}, got {scope!r}")
        keys = {}
        for index, label in enumerate(self.labels):
            for key in _candidates(label, scope):
                keys.setdefault(key, []).append(index)
        self._keys[scope] = keys
        return keys

    def select(self, pattern: str | re.Pattern, scope: Scope = "label") -> np.ndarray:
        """Sorted unique indices selected by *pattern* under *scope* (empty when none)."""
        fullmatch = (re.compile(pattern) if isinstance(pattern, str) else pattern).fullmatch
        hits = [ids for key, ids in self._index(scope).items() if fullmatch(key)]
        if not hits:
            return np.zeros(0, dtype=np.int64)
        return np.unique(np.concatenate([np.asarray(h, dtype=np.int64) for h in hits]))

    def require(self, pattern: str | re.Pattern, where: str, scope: Scope = "label") -> np.ndarray:
        """Like :meth:`select`, but a pattern that selects nothing raises a ``ValueError`` naming *where*."""
        hit = self.select(pattern, scope)
        if hit.size == 0:
            shown = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
            raise ValueError(
                f"{where}={shown!r} matches no {self.kind} label ({_RULES[scope]}). "
                f"{self.kind.capitalize()} labels look like {self.examples(scope)}."
            )
        return hit

    def examples(self, scope: Scope = "label", count: int = 3) -> str:
        """A few labels (names under the ``"name"`` scope) for error messages."""
        shown = [label.rsplit("/", 1)[-1] if scope == "name" else label for label in self.labels if label]
        shown = list(dict.fromkeys(shown))[:count]
        return ", ".join(repr(label) for label in shown) if shown else "'<no labels>'"


def _candidates(label: str, scope: Scope) -> list[str]:
    """The strings *label* is matched by under *scope*, once each."""
    if scope not in _RULES:
        raise ValueError(f"LabelSelector: scope must be one of {sorted(_RULES)}, got {scope!r}")
    if scope == "label":
        candidates = [label]
    elif scope == "name":
        candidates = [label.rsplit("/", 1)[-1]]
    elif scope == "subtree":
        candidates = [label[:pos] for pos in _slashes(label) if pos > 0] + [label]
    else:  # tail
        candidates = [label] + [label[pos + 1 :] for pos in _slashes(label)]
    return list(dict.fromkeys(candidates))


def _slashes(label: str) -> list[int]:
    return [pos for pos, char in enumerate(label) if char == "/"]
