"""Name matching in Isaac Lab's manner: regular expressions full-matched against a list of names.

Joint and body selection (:meth:`Articulation.find_joints`, :class:`~isaaclab_contrib.managers.SceneEntityCfg`),
action terms and event terms all resolve their ``*_names`` fields here, so one rule serves them all: every
pattern must match at least one name, a name may match one pattern only, and the result is in the order of the
names (or of the patterns with ``preserve_order``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["resolve_matching_names", "resolve_matching_names_values"]


def _patterns(keys: str | Sequence[str], where: str) -> list[str]:
    if isinstance(keys, str):
        keys = [keys]
    if not isinstance(keys, (list, tuple)) or not all(isinstance(k, str) for k in keys):
        raise TypeError(f"{where}: expected a regex string or a list of them, got {keys!r}")
    for key in keys:
        try:
            re.compile(key)
        except re.error as err:
            raise ValueError(f"{where}: {key!r} is not a valid regular expression: {err}") from err
    return list(keys)


def resolve_matching_names(
    keys: str | Sequence[str], list_of_strings: Sequence[str], preserve_order: bool = False, where: str = "names"
) -> tuple[list[int], list[str]]:
    """Indices and names of the entries of *list_of_strings* that full-match one of the regexes *keys*.

    Args:
        keys: A regex or a list of regexes (``"panda_joint.*"``, ``["shoulder", "elbow"]``).
        list_of_strings: The names to match (e.g. an articulation's joint names).
        preserve_order: Order the result as the patterns are listed (names matched by one pattern in their own
            order); ``False``: in the order of *list_of_strings*.
        where: What is being resolved, for the error messages (``"Articulation 'robot' joints"``).

    Returns:
        ``(indices, names)``.

    Raises:
        ValueError: A pattern matches no name, or a name matches more than one pattern; the message lists the
            available names.
    """
    patterns = _patterns(keys, where)
    names = list(list_of_strings)
    matched: dict[int, int] = {}  # name index -> pattern index
    for p, pattern in enumerate(patterns):
        compiled = re.compile(pattern)
        hits = [i for i, name in enumerate(names) if compiled.fullmatch(name)]
        if not hits:
            raise ValueError(f"{where}: the pattern {pattern!r} matches none of the available names {names}")
        for i in hits:
            if i in matched:
                raise ValueError(
                    f"{where}: the name {names[i]!r} matches both {patterns[matched[i]]!r} and {pattern!r}; "
                    "make the patterns disjoint"
                )
            matched[i] = p
    if preserve_order:
        order = sorted(matched, key=lambda i: (matched[i], i))
    else:
        order = sorted(matched)
    return order, [names[i] for i in order]


def resolve_matching_names_values(
    data: Mapping[str, Any], list_of_strings: Sequence[str], preserve_order: bool = False, where: str = "names"
) -> tuple[list[int], list[str], list[Any]]:
    """Like :func:`resolve_matching_names` for a dict of ``regex -> value``: ``(indices, names, values)``, each
    matched name with the value of its pattern (e.g. per-joint ``scale={".*": 0.5, "finger.*": 1.0}``)."""
    if not isinstance(data, Mapping):
        raise TypeError(f"{where}: expected a dict of regex to value, got {type(data).__name__}")
    keys = list(data)
    indices, names = resolve_matching_names(keys, list_of_strings, preserve_order, where)
    values = []
    for name in names:
        values.append(next(data[k] for k in keys if re.fullmatch(k, name)))
    return indices, names, values
