"""Newton actuators from Isaac Lab-style actuator configs, and the manager's actuator stage.

:func:`add_actuators` authors actuators on a model builder (before ``finalize()``): explicit
groups become Newton actuators (``ModelBuilder.add_actuator`` with ``DrivePD`` and its clamping and
delay components), implicit groups set the solver's joint drive. After ``sim.reset()`` the manager
builds one :class:`NewtonActuatorAdapter` over every actuator of the model (the flat DOF layout)
and runs it at the start of every physics step: zero the actuated DOFs of ``control.joint_f``,
step each actuator (it reads ``state.joint_q`` / ``joint_qd`` and ``control.joint_target_q`` /
``joint_target_qd`` / ``joint_act`` and adds its effort into ``control.joint_f``), then the
post-actuator callbacks and the solver substeps read that effort.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import warp as wp

from isaaclab_contrib.physics.actuators.cfg import (
    ActuatorBaseCfg,
    DCMotorCfg,
    DelayedPDActuatorCfg,
    ImplicitActuatorCfg,
)
from isaaclab_contrib.utils.labels import LabelSelector, check_regex

if TYPE_CHECKING:
    import newton

__all__ = ["ActuatorGroup", "NewtonActuatorAdapter", "add_actuators"]


@dataclass(frozen=True)
class ActuatorGroup:
    """What :func:`add_actuators` did for one config key."""

    name: str
    """The key of the actuator config."""
    joints: tuple[int, ...]
    """Builder joint indices."""
    dofs: tuple[int, ...]
    """Joint DOF indices (rows of ``joint_qd``, ``joint_f``, ``joint_target_qd``)."""
    coords: tuple[int, ...]
    """Joint coordinate indices (rows of ``joint_q``, ``joint_target_q``)."""
    explicit: bool
    """Whether the group is a Newton actuator stepped by the manager (``False``: the solver's drive)."""


def add_actuators(
    builder: newton.ModelBuilder,
    actuators: dict[str, ActuatorBaseCfg],
    *,
    articulation: str | None = None,
) -> dict[str, ActuatorGroup]:
    """Add the actuator groups *actuators* to the joints of *builder* (call before ``finalize()``).

    Args:
        builder: The model builder; call after the robot (and its env copies) were added, or on a
            prototype builder before it is replicated (Newton copies actuators with ``add_builder``).
        actuators: Actuator configs by group name, as in Isaac Lab's ``ArticulationCfg.actuators``.
        articulation: Regex matched in full against a path prefix of the joint labels (e.g.
            ``"/World/envs/env_.*/Robot"``); only joints below it are considered. ``None``: every joint.

    Returns:
        What was done per group (joint, DOF and coordinate indices).

    Raises:
        TypeError / ValueError: A bad config (naming the group and field), a regex that matches no
            joint, a joint claimed by two groups, or a joint that is not revolute or prismatic.
    """
    import newton
    from newton.actuators import ClampingDCMotor, ClampingMaxEffort, DrivePD

    if not isinstance(builder, newton.ModelBuilder):
        raise TypeError(f"add_actuators expects a newton.ModelBuilder, got {type(builder).__name__}")
    if not isinstance(actuators, dict) or not actuators:
        raise TypeError("add_actuators: actuators must be a non-empty dict of group name -> actuator config")
    joints_by_label = LabelSelector(builder.joint_label, "joint")
    candidates = list(range(builder.joint_count))
    if articulation is not None:
        try:
            check_regex(articulation, "add_actuators: articulation")
        except TypeError as err:
            raise ValueError(str(err)) from err
        candidates = joints_by_label.require(articulation, "add_actuators: articulation", scope="subtree").tolist()
    in_articulation = set(candidates)
    actuated = (int(newton.JointType.REVOLUTE), int(newton.JointType.PRISMATIC))
    # DOFs a Newton actuator already drives (an earlier add_actuators call, or a replicated prototype's).
    driven = {int(i) for entry in builder.actuator_entries.values() for i in entry.indices}
    owner: dict[int, str] = {}
    plans: list[tuple[str, ActuatorBaseCfg, list[int]]] = []
    for key, cfg in actuators.items():
        where = f"add_actuators: actuators[{key!r}]"
        if not isinstance(cfg, ActuatorBaseCfg):
            raise TypeError(f"{where} must be an actuator config (e.g. IdealPDActuatorCfg), got {type(cfg).__name__}")
        try:
            cfg.validate()
        except (TypeError, ValueError) as err:
            raise type(err)(f"{where}: {err}") from err
        joints: list[int] = []
        for i, expr in enumerate(cfg.joint_names_expr):
            named = joints_by_label.select(expr, scope="name").tolist()
            hit = [j for j in named if j in in_articulation]
            if not hit:
                names = LabelSelector([builder.joint_label[j] for j in candidates], "joint")
                raise ValueError(
                    f"{where}.joint_names_expr[{i}]={expr!r} matches no joint name (full match of the last path "
                    f"segment); names: {names.examples('name', count=6)}"
                )
            joints.extend(j for j in hit if j not in joints)
        for j in joints:
            if int(builder.joint_type[j]) not in actuated:
                raise ValueError(
                    f"{where}: joint {builder.joint_label[j]!r} is a {newton.JointType(int(builder.joint_type[j])).name} "
                    "joint; only revolute and prismatic joints can be actuated"
                )
            if j in owner:
                raise ValueError(f"{where}: joint {builder.joint_label[j]!r} is already actuated by group {owner[j]!r}")
            if int(builder.joint_qd_start[j]) in driven:
                raise ValueError(
                    f"{where}: joint {builder.joint_label[j]!r} is already driven by a Newton actuator (an earlier "
                    "add_actuators call on this builder, or on the prototype it was replicated from); a second "
                    "actuator would add its effort to the first. Give each joint one actuator group."
                )
            owner[j] = key
        plans.append((key, cfg, sorted(joints)))

    groups: dict[str, ActuatorGroup] = {}
    for key, cfg, joints in plans:
        dofs = [int(builder.joint_qd_start[j]) for j in joints]
        coords = [int(builder.joint_q_start[j]) for j in joints]
        explicit = not isinstance(cfg, ImplicitActuatorCfg)
        for dof, coord in zip(dofs, coords, strict=True):
            if explicit:
                clamping = []
                if isinstance(cfg, DCMotorCfg):
                    limit = math.inf if cfg.effort_limit is None else float(cfg.effort_limit)
                    clamping.append(
                        (
                            ClampingDCMotor,
                            {
                                "saturation_effort": float(cfg.saturation_effort),
                                "velocity_limit": float(cfg.velocity_limit),
                                "max_motor_effort": limit,
                            },
                        )
                    )
                elif cfg.effort_limit is not None:
                    clamping.append((ClampingMaxEffort, {"max_effort": float(cfg.effort_limit)}))
                delay = int(cfg.delay_steps) if isinstance(cfg, DelayedPDActuatorCfg) else None
                builder.add_actuator(
                    DrivePD,
                    index=dof,
                    pos_index=coord,
                    clamping=clamping,
                    delay_steps=delay,
                    kp=float(cfg.stiffness),
                    kd=float(cfg.damping),
                )
                # The explicit law is the only drive: the solver must not add its own PD on top.
                builder.joint_target_ke[dof] = 0.0
                builder.joint_target_kd[dof] = 0.0
                builder.joint_target_mode[dof] = int(newton.JointTargetMode.NONE)
            else:
                builder.joint_target_ke[dof] = float(cfg.stiffness)
                builder.joint_target_kd[dof] = float(cfg.damping)
                builder.joint_target_mode[dof] = int(newton.JointTargetMode.POSITION_VELOCITY)
                if cfg.effort_limit is not None:
                    builder.joint_effort_limit[dof] = float(cfg.effort_limit)
                if cfg.velocity_limit is not None:
                    builder.joint_velocity_limit[dof] = float(cfg.velocity_limit)
        groups[key] = ActuatorGroup(key, tuple(joints), tuple(dofs), tuple(coords), explicit)
    return groups


@wp.kernel
def _zero_rows_kernel(rows: wp.array(dtype=wp.int32), values: wp.array(dtype=float)):
    i = wp.tid()
    values[rows[i]] = 0.0


class NewtonActuatorAdapter:
    """Steps every Newton actuator of a model over its flat DOF layout (the manager's actuator stage).

    Stateful actuators (delays) keep two state buffers; after each step the next state is copied into
    the current one, so a captured graph replays on fixed buffers.
    """

    def __init__(self, model: newton.Model):
        self.model = model
        self.actuators = list(model.actuators)
        self.states = [(a.state(), a.state()) if a.is_stateful() else (None, None) for a in self.actuators]
        rows = sorted({int(i) for a in self.actuators for i in a.effort_indices.numpy()})
        self.actuated_dofs = wp.array(np.asarray(rows, dtype=np.int32), dtype=wp.int32, device=model.device)
        dof_world = np.full(model.joint_dof_count, -1, dtype=np.int64)
        starts = model.joint_dof_world_start.numpy()
        for world in range(model.world_count):
            dof_world[int(starts[world]) : int(starts[world + 1])] = world
        self._actuator_dof_world = [dof_world[a.indices.numpy().astype(np.int64)] for a in self.actuators]

    def actuated_joints(self) -> list[int]:
        """Model joint indices whose DOFs a Newton actuator drives (sorted)."""
        dof_starts = self.model.joint_qd_start.numpy()
        joints = np.searchsorted(dof_starts, self.actuated_dofs.numpy(), side="right") - 1
        return sorted({int(j) for j in joints})

    @property
    def count(self) -> int:
        """Number of actuated DOFs."""
        return int(self.actuated_dofs.shape[0])

    def is_graph_safe(self) -> bool:
        """Whether every actuator may be recorded in a graph."""
        return all(a.is_graphable() for a in self.actuators)

    def not_graph_safe(self) -> list[str]:
        """Descriptions of the actuators that are not graph-safe."""
        return [
            f"actuator {i} ({type(a.drive).__name__}, {a.num_actuators} DOFs)"
            for i, a in enumerate(self.actuators)
            if not a.is_graphable()
        ]

    def step(self, state: newton.State, control: newton.Control, dt: float) -> None:
        """Zero the actuated DOFs of ``control.joint_f``, then add every actuator's effort for a step of *dt* [s]."""
        if self.count:
            wp.launch(
                _zero_rows_kernel,
                dim=self.count,
                inputs=[self.actuated_dofs, control.joint_f],
                device=self.model.device,
            )
        for actuator, (current, following) in zip(self.actuators, self.states, strict=True):
            actuator.step(state, control, current, following, dt)
            if current is not None:
                current.assign(following)

    def reset(self, world_mask: np.ndarray | None = None) -> None:
        """Clear the actuator states (delay buffers) of the worlds in *world_mask* (``(world_count + 1,)``,
        last entry: global DOFs); ``None`` clears every state."""
        for (current, following), worlds in zip(self.states, self._actuator_dof_world, strict=True):
            if current is None:
                continue
            if world_mask is None:
                current.reset()
                following.reset()
                continue
            rows = np.where(worlds < 0, world_mask.shape[0] - 1, worlds)
            mask = wp.array(world_mask[rows], dtype=wp.bool, device=self.model.device)
            current.reset(mask)
            following.reset(mask)

    def save(self) -> list[tuple[Any, Any]]:
        """Copies of every actuator state (delay buffers), for :meth:`restore`."""
        saved = []
        for actuator, (current, following) in zip(self.actuators, self.states, strict=True):
            if current is None:
                saved.append((None, None))
                continue
            copies = actuator.state(), actuator.state()
            copies[0].assign(current)
            copies[1].assign(following)
            saved.append(copies)
        return saved

    def restore(self, saved: list[tuple[Any, Any]]) -> None:
        """Put back the actuator states copied by :meth:`save` (into the same buffers)."""
        for (current, following), (old_current, old_following) in zip(self.states, saved, strict=True):
            if current is not None:
                current.assign(old_current)
                following.assign(old_following)

    def describe(self) -> dict[str, Any]:
        """Counts for reports: actuators, actuated DOFs, stateful actuators."""
        return {
            "actuators": len(self.actuators),
            "dofs": self.count,
            "stateful": sum(1 for s in self.states if s[0] is not None),
        }
