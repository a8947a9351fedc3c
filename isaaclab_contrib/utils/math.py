"""Small torch helpers for poses: quaternions ``(x, y, z, w)`` (Warp's and Isaac Lab 3.0's order), uniform draws."""

from __future__ import annotations

import torch

__all__ = [
    "quat_apply",
    "quat_conjugate",
    "quat_from_euler_xyz",
    "quat_mul",
    "sample_uniform",
    "subtract_frame_transforms",
]


def sample_uniform(lower, upper, size: tuple[int, ...], device: str) -> torch.Tensor:
    """Uniform draws in ``[lower, upper)`` of shape *size* from torch's global generator."""
    return torch.rand(*size, device=device) * (upper - lower) + lower


def quat_mul(q1: torch.Tensor, q2: torch.Tensor) -> torch.Tensor:
    """Hamilton product ``q1 * q2`` of ``(x, y, z, w)`` quaternions, ``[..., 4]``."""
    x1, y1, z1, w1 = q1.unbind(-1)
    x2, y2, z2, w2 = q2.unbind(-1)
    return torch.stack(
        [
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        ],
        dim=-1,
    )


def quat_conjugate(q: torch.Tensor) -> torch.Tensor:
    """Conjugate (the inverse of a unit quaternion) of ``(x, y, z, w)``, ``[..., 4]``."""
    return torch.cat([-q[..., :3], q[..., 3:]], dim=-1)


def quat_apply(q: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Rotate the vectors *v* ``[..., 3]`` by the unit quaternions *q* ``[..., 4]`` ``(x, y, z, w)``."""
    xyz, w = q[..., :3], q[..., 3:]
    t = 2.0 * torch.cross(xyz, v, dim=-1)
    return v + w * t + torch.cross(xyz, t, dim=-1)


def quat_from_euler_xyz(roll: torch.Tensor, pitch: torch.Tensor, yaw: torch.Tensor) -> torch.Tensor:
    """``(x, y, z, w)`` of the rotation ``Rz(yaw) Ry(pitch) Rx(roll)`` (angles [rad])."""
    cr, sr = torch.cos(roll * 0.5), torch.sin(roll * 0.5)
    cp, sp = torch.cos(pitch * 0.5), torch.sin(pitch * 0.5)
    cy, sy = torch.cos(yaw * 0.5), torch.sin(yaw * 0.5)
    return torch.stack(
        [
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
            cr * cp * cy + sr * sp * sy,
        ],
        dim=-1,
    )


def subtract_frame_transforms(
    pos_a: torch.Tensor, quat_a: torch.Tensor, pos_b: torch.Tensor, quat_b: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Pose of frame B in frame A, both given in the world: ``(position [m], (x, y, z, w) or None)``."""
    inv = quat_conjugate(quat_a)
    pos = quat_apply(inv, pos_b - pos_a)
    return pos, (quat_mul(inv, quat_b) if quat_b is not None else None)
