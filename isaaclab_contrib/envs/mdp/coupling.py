"""Terms no other framework has: what the coupler measures between two solver entries.

Each is a class term (a :class:`~isaaclab_contrib.managers.ManagerTermBase`): built with the manager, it adds its
coupler sensor to the running simulation (the step program is recorded again once, before the first step; the
same sensor serves every term that asks for the same entries and bodies), then reads the sensor's zero-copy
tensors at each call. They need a coupled simulation (a :class:`~isaaclab_contrib.coupling.CouplerAdmmCfg` or
:class:`~isaaclab_contrib.coupling.CouplerProxyCfg` solver).

- :class:`coupling_interface_force` (observation) and :class:`coupling_interface_force_l2` (reward): the force
  [N] (and torque [N*m]) the coupling exerts on bodies of one entry from another, averaged over the env step.
- :class:`coupling_penetration_depth` (observation) and :class:`coupling_penetration_l1` (reward): the deepest
  overlap of one entry's particles with the other's rigid shapes [m].
- :class:`coupling_residual` (observation) and :class:`coupling_not_converged` (termination): the relative
  residual of the coupling iterations in the env step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from isaaclab_contrib.managers import ManagerTermBase

if TYPE_CHECKING:
    from isaaclab_contrib.envs import ManagerBasedEnv

__all__ = [
    "coupling_interface_force",
    "coupling_interface_force_l2",
    "coupling_not_converged",
    "coupling_penetration_depth",
    "coupling_penetration_l1",
    "coupling_residual",
]


class _CouplerTerm(ManagerTermBase):
    """Checks that the simulation is coupled; subclasses add their sensor in :meth:`_add`."""

    def __init__(self, cfg: Any, env: ManagerBasedEnv):
        super().__init__(cfg, env)
        manager = env.manager
        if not hasattr(manager, "add_interface_force_sensor"):
            raise TypeError(
                f"{type(self).__name__}: the simulation is not coupled ({manager.__name__}); coupler terms need a "
                "CouplerAdmmCfg or CouplerProxyCfg solver"
            )
        self._add(manager, dict(cfg.params))

    def _add(self, manager: Any, params: dict[str, Any]) -> None:
        raise NotImplementedError


class coupling_interface_force(_CouplerTerm):
    """The coupling force [N] on the selected bodies of *entry* from *partner*, world frame, averaged over the env
    step: ``[num_envs, bodies * 3]`` (with ``torque=True`` each body's force then torque [N*m] about its origin:
    ``[num_envs, bodies * 6]``).

    Params: ``entry``, ``partner`` (solver entry names), ``bodies`` (label regexes of *entry*'s bodies; ``None``:
    every body the coupling with *partner* acts on), ``torque`` (default ``False``).
    """

    def _add(self, manager: Any, params: dict[str, Any]) -> None:
        self._index = manager.add_interface_force_sensor(
            params["entry"], params["partner"], bodies=params.get("bodies")
        )

    def __call__(self, env: ManagerBasedEnv, entry: str, partner: str, bodies: Any = None, torque: bool = False):
        wrench = env.manager.get_interface_force_sensor(self._index).wrench
        return (wrench if torque else wrench[..., :3]).reshape(env.num_envs, -1)


class coupling_interface_force_l2(_CouplerTerm):
    """Squared norm of the coupling forces on the selected bodies of *entry* from *partner* [N^2], ``[num_envs]``
    (params as :class:`coupling_interface_force`, without ``torque``)."""

    def _add(self, manager: Any, params: dict[str, Any]) -> None:
        self._index = manager.add_interface_force_sensor(
            params["entry"], params["partner"], bodies=params.get("bodies")
        )

    def __call__(self, env: ManagerBasedEnv, entry: str, partner: str, bodies: Any = None):
        force = env.manager.get_interface_force_sensor(self._index).wrench[..., :3]
        return torch.sum(torch.square(force), dim=(1, 2))


class coupling_penetration_depth(_CouplerTerm):
    """The deepest overlap of a particle of one entry with a rigid shape of the other, measured at the end of the
    env step [m], ``[num_envs, 1]``.

    Params: ``entry`` (the particle side), ``partner`` (the rigid side), ``bodies`` (label regexes of the rigid
    side's bodies whose shapes count; ``None``: all that collide with particles).
    """

    def _add(self, manager: Any, params: dict[str, Any]) -> None:
        self._index = manager.add_penetration_sensor(params["entry"], params["partner"], bodies=params.get("bodies"))

    def __call__(self, env: ManagerBasedEnv, entry: str, partner: str, bodies: Any = None):
        return env.manager.get_penetration_sensor(self._index).max_depth.unsqueeze(-1)


class coupling_penetration_l1(coupling_penetration_depth):
    """The deepest overlap of one entry's particles with the other's shapes [m], ``[num_envs]`` (a reward term;
    params as :class:`coupling_penetration_depth`)."""

    def __call__(self, env: ManagerBasedEnv, entry: str, partner: str, bodies: Any = None):
        return env.manager.get_penetration_sensor(self._index).max_depth.clone()


class coupling_residual(_CouplerTerm):
    """The largest relative residual of the coupling iterations over the env step's coupled steps,
    ``[num_envs, 1]`` (see ``NewtonCouplerManager.get_coupling_diagnostics``)."""

    def _add(self, manager: Any, params: dict[str, Any]) -> None:
        manager.request_coupling_diagnostics()

    def __call__(self, env: ManagerBasedEnv):
        return env.manager.get_coupling_diagnostics()["residual_max"].unsqueeze(-1)


class coupling_not_converged(_CouplerTerm):
    """The coupling did not converge in the env step: its largest relative residual exceeds *threshold*
    (``None``: the coupler config's ``convergence_tolerance``), ``[num_envs]`` bool (a termination term)."""

    def _add(self, manager: Any, params: dict[str, Any]) -> None:
        manager.request_coupling_diagnostics()

    def __call__(self, env: ManagerBasedEnv, threshold: float | None = None):
        diagnostics = env.manager.get_coupling_diagnostics()
        if threshold is None:
            return ~diagnostics["converged"]
        return diagnostics["residual_max"] > threshold
