"""The runtime rigid object (Isaac Lab's ``RigidObject``): one free body per env, from a ``RigidObjectCfg``."""

from __future__ import annotations

from typing import Any

import newton
import numpy as np
import torch

from .body_asset import BodyAsset, BodyAssetData

__all__ = ["RigidObject", "RigidObjectData", "label_index"]


def label_index(labels: list[str], wanted: list[str], where: str, what: str) -> list[int]:
    """Index of each label of *wanted* in *labels* (model labels); a missing one raises ``KeyError`` naming it."""
    lookup = {label: i for i, label in enumerate(labels)}
    missing = [label for label in wanted if label not in lookup]
    if missing:
        raise KeyError(
            f"{where}: the running model has no {what} labelled {missing[0]!r}; was the scene config changed after "
            "launch()? Build the InteractiveScene from the config that was launched"
        )
    return [lookup[label] for label in wanted]


class RigidObjectData(BodyAssetData):
    """Data of a :class:`RigidObject` (``num_bodies == 1``): the ``body_*`` fields ``[num_envs, 1, ...]``, the
    ``root_*`` fields ``[num_envs, ...]``, ``default_root_state`` ``[num_envs, 13]``; see
    :class:`~isaaclab_contrib.assets.body_asset.BodyAssetData` for units and frames."""


class RigidObject(BodyAsset):
    """One rigid body per env (a global config: one instance), with Isaac Lab 3.0's data fields and root writes.

    Its body hangs on a FREE joint (Newton's ``add_body``), so root writes go into that joint's coordinates and
    the envs are invalidated; the next ``forward()`` / step runs FK and a masked solver reset.
    """

    kind = "RigidObject"
    data_class = RigidObjectData

    def __init__(
        self,
        cfg: Any,
        manager: type,
        name: str = "rigid_object",
        env_origins: torch.Tensor | None = None,
        initial: newton.State | None = None,
    ):
        """Args:
        cfg: The rigid object's config (``RigidObjectCfg``: ``body_label_in_env(i)`` names its body), a field of
            the launched scene config.
        manager: The running manager class.
        name: Its field name in the scene config (for errors).
        env_origins: Env origins ``[num_envs, 3]`` [m], for ``default_root_state``.
        initial: The state at simulation start (default: computed from the model).
        """
        model = manager.get_model()
        if model is None:
            raise RuntimeError(f"RigidObject {name!r}: no simulation is running; launch() the scene first")
        per_env = bool(cfg.is_per_env())
        count = int(model.world_count) if per_env else 1
        label_of = getattr(cfg, "body_label_in_env", cfg.label_in_env)
        labels = [label_of(i) for i in range(count)]
        ids = label_index(list(model.body_label), labels, f"RigidObject {name!r}", "body")
        body_name = labels[0].rsplit("/", 1)[-1]
        super().__init__(cfg, manager, name, np.asarray(ids)[:, None], [body_name], per_env, env_origins, initial)
