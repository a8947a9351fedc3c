"""The scene entity a term reads: an asset of the runtime scene by name, and the joints and bodies it selects."""

from __future__ import annotations

import numbers
from typing import Any

from isaaclab_contrib.utils.configclass import MISSING, check_missing, configclass
from isaaclab_contrib.utils.string import resolve_matching_names
from isaaclab_contrib.utils.validation import check_fields

__all__ = ["SceneEntityCfg"]


@configclass(kw_only=False)  # SceneEntityCfg("robot", joint_names=[...]), as Isaac Lab configs write it
class SceneEntityCfg:
    """An entity of the runtime scene (``env.scene[name]``) and the joints / bodies a term uses (Isaac Lab's).

    Term parameters of this type are resolved once, when the manager that holds the term is built (the
    simulation is running by then): :meth:`resolve` checks the name against the scene and turns the
    ``*_names`` regexes into ``*_ids``. Ids cover every joint (body) when no names are given, as the slice
    ``slice(None)``, so ``asset.data.joint_pos.torch[:, cfg.joint_ids]`` selects without a gather.
    """

    name: str = MISSING
    """Name of the entity: the scene config field of the asset (``"robot"``, ``"cloth"``)."""
    joint_names: str | list[str] | None = None
    """Regexes over the asset's joint names (full match), or ``None`` for every joint."""
    joint_ids: list[int] | slice = slice(None)
    """Joint indices; filled from :attr:`joint_names` by :meth:`resolve` (set them directly instead of names
    to skip the matching)."""
    body_names: str | list[str] | None = None
    """Regexes over the asset's body names (full match), or ``None`` for every body."""
    body_ids: list[int] | slice = slice(None)
    """Body indices; filled from :attr:`body_names` by :meth:`resolve`."""
    preserve_order: bool = False
    """Order the ids as the patterns are listed (``False``: as the asset lists its joints / bodies)."""

    def validate(self) -> None:
        """Check the fields: names a regex, a list of regexes or ``None``; ids a slice or a list of indices ``>= 0``
        (checked against the asset by :meth:`resolve`)."""
        check_missing(self)
        check_fields(self)
        cls = type(self).__name__
        for kind in ("joint", "body"):
            names, ids = getattr(self, f"{kind}_names"), getattr(self, f"{kind}_ids")
            listed = isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names)
            if not (names is None or isinstance(names, str) or listed):
                raise TypeError(f"{cls}.{kind}_names must be a regex, a list of regexes or None, got {names!r}")
            if isinstance(ids, slice):
                continue
            if not isinstance(ids, (list, tuple)):
                raise TypeError(f"{cls}.{kind}_ids must be a list of indices or a slice, got {type(ids).__name__}")
            for i in ids:
                if isinstance(i, bool) or not isinstance(i, numbers.Integral):
                    raise TypeError(f"{cls}.{kind}_ids must hold integers, got {type(i).__name__} {i!r}")
                if i < 0:
                    raise ValueError(f"{cls}.{kind}_ids must be indices >= 0, got {i}")

    def resolve(self, scene: Any, where: str = "SceneEntityCfg") -> None:
        """Check :attr:`name` against *scene* and fill :attr:`joint_ids` / :attr:`body_ids` from the names.

        Args:
            scene: The runtime scene (``name in scene.keys()``; ``scene[name]`` has ``joint_names`` /
                ``body_names`` when names are given).
            where: What holds this config, for the messages (``"RewardManager term 'action_rate'"``).

        Raises:
            KeyError: The scene has no entity :attr:`name` (the message lists the names it has).
            ValueError: A pattern matches nothing, names and ids disagree, or ids are out of range.
        """
        if not isinstance(self.name, str) or self.name is MISSING:
            raise TypeError(f"{where}: SceneEntityCfg.name must be the name of a scene entity, got {self.name!r}")
        keys = list(scene.keys())
        if self.name not in keys:
            raise KeyError(f"{where}: the scene has no entity {self.name!r}; it has {sorted(keys)}")
        entity = scene[self.name]
        self.joint_ids = self._resolve(entity, "joint", self.joint_names, self.joint_ids, where)
        self.body_ids = self._resolve(entity, "body", self.body_names, self.body_ids, where)

    def _resolve(self, entity: Any, kind: str, names: Any, ids: Any, where: str) -> list[int] | slice:
        attr = "joint_names" if kind == "joint" else "body_names"
        available = getattr(entity, attr, None)
        if names is None:
            if isinstance(ids, slice):
                return ids
            if available is None:
                raise ValueError(f"{where}: {type(entity).__name__} {self.name!r} has no {kind}s to select by id")
            ids = [int(i) for i in ids]
            bad = [i for i in ids if not 0 <= i < len(available)]
            if bad:
                raise ValueError(
                    f"{where}: SceneEntityCfg({self.name!r}).{kind}_ids {bad} are out of range [0, {len(available)})"
                )
            return ids
        if available is None:
            raise ValueError(
                f"{where}: SceneEntityCfg({self.name!r}).{attr} is set, but {type(entity).__name__} {self.name!r} "
                f"has no {kind}s"
            )
        found, _ = resolve_matching_names(
            names, available, self.preserve_order, where=f"{where}: SceneEntityCfg({self.name!r}).{attr}"
        )
        if not isinstance(ids, slice) and list(ids) != found:
            raise ValueError(
                f"{where}: SceneEntityCfg({self.name!r}).{kind}_ids {list(ids)} disagree with {attr} {names!r} "
                f"(which select {found}); give one of them"
            )
        if found == list(range(len(available))):
            return slice(None)  # every one, in order: no gather
        return found
