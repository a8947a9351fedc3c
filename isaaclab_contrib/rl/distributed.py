"""Multi-process training with rsl-rl under ``torchrun``: Gloo on CPUs, NCCL on GPUs.

Isaac Lab scales training with one process per device, each with its own simulation and ``num_envs``
envs, gradients averaged by ``torch.distributed`` (``train.py --distributed`` under
``torchrun --nproc_per_node=N``). rsl-rl 5 implements the learning side (parameter broadcast at the
start of ``learn()``, gradient all-reduce after every backward pass, the KL-adaptive learning rate
taken from rank 0, observation normalizers with global statistics, logging and checkpoints only on
rank 0), but its ``OnPolicyRunner._configure_multi_gpu`` hard-codes CUDA: it requires the device
``cuda:<LOCAL_RANK>``, initializes the process group with NCCL and calls ``torch.cuda.set_device``.
So on CPUs it cannot run at all.

:class:`DistributedOnPolicyRunner` is that runner with only this method replaced: it accepts the
device ``"cpu"`` (backend Gloo) as well as ``"cuda:<LOCAL_RANK>"`` (NCCL), and reuses a process
group that is already initialized (:func:`init_distributed`, which the training script calls before
it builds anything, so that a failing check on one rank ends the job before the expensive work).
Everything else is rsl-rl's own code path. Multi-node runs use ``torchrun``'s own arguments
(``--nnodes``, ``--node_rank``, ``--rdzv_endpoint`` / ``--master_addr``); nothing here depends on
the node count.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
from rsl_rl.runners import OnPolicyRunner

__all__ = ["DistributedContext", "DistributedOnPolicyRunner", "distributed_device", "init_distributed", "torchrun_env"]


@dataclass(frozen=True)
class DistributedContext:
    """Where this process stands in a ``torchrun`` job."""

    rank: int
    """Global rank (``RANK``): 0 is the main process (logs, checkpoints, exports)."""
    local_rank: int
    """Rank on this node (``LOCAL_RANK``): selects the GPU ``cuda:<local_rank>``."""
    world_size: int
    """Processes in the job (``WORLD_SIZE``)."""
    backend: str
    """``"gloo"`` (CPU) or ``"nccl"`` (CUDA)."""
    device: str
    """Torch / Warp device of this process."""

    @property
    def is_main(self) -> bool:
        """Whether this is rank 0."""
        return self.rank == 0


def torchrun_env() -> tuple[int, int, int] | None:
    """``(rank, local_rank, world_size)`` from ``torchrun``'s environment, or ``None`` outside ``torchrun``.

    Raises:
        ValueError: The variables are present but not integers, or inconsistent (a rank >= the world size).
    """
    if "WORLD_SIZE" not in os.environ:
        return None
    values = {}
    for name, default in (("RANK", None), ("LOCAL_RANK", None), ("WORLD_SIZE", None)):
        text = os.environ.get(name, default)
        try:
            values[name] = int(text) if text is not None else -1
        except ValueError:
            raise ValueError(f"torchrun environment: {name}={text!r} is not an integer") from None
    rank, local_rank, world = values["RANK"], values["LOCAL_RANK"], values["WORLD_SIZE"]
    if world < 1:
        raise ValueError(f"torchrun environment: WORLD_SIZE must be >= 1, got {world}")
    if not 0 <= rank < world or not 0 <= local_rank < world:
        raise ValueError(
            f"torchrun environment: RANK={rank} and LOCAL_RANK={local_rank} must be in [0, WORLD_SIZE={world})"
        )
    return rank, local_rank, world


def distributed_device(device: str, local_rank: int) -> str:
    """The device of the process with *local_rank*: ``"cpu"`` stays, ``"cuda"`` / ``"cuda:N"`` become
    ``"cuda:<local_rank>"`` (one GPU per process, as Isaac Lab assigns them)."""
    if device == "cpu":
        return "cpu"
    if device == "cuda" or device.startswith("cuda:"):
        return f"cuda:{local_rank}"
    raise ValueError(f"distributed training runs on 'cpu' or 'cuda[:N]' devices, got {device!r}")


def init_distributed(device: str) -> DistributedContext:
    """Join the ``torchrun`` job: initialize the default process group (Gloo on ``"cpu"``, NCCL on CUDA).

    *device* is the requested device; the returned context holds this process's (see
    :func:`distributed_device`). A process group that is already initialized is kept.

    Raises:
        RuntimeError: Not started by ``torchrun`` (no ``WORLD_SIZE``), or CUDA requested but not available /
            fewer GPUs than local ranks.
        ValueError: Inconsistent ``torchrun`` variables or an unsupported device.
    """
    found = torchrun_env()
    if found is None:
        raise RuntimeError(
            "distributed training needs torchrun's environment (WORLD_SIZE, RANK, LOCAL_RANK): start it with "
            "`torchrun --nproc_per_node=N scripts/train.py --distributed ...`"
        )
    rank, local_rank, world = found
    process_device = distributed_device(device, local_rank)
    backend = "gloo" if process_device == "cpu" else "nccl"
    if backend == "nccl":
        if not torch.cuda.is_available() or torch.cuda.device_count() <= local_rank:
            raise RuntimeError(
                f"distributed training on {device!r}: local rank {local_rank} needs cuda:{local_rank}, but torch sees "
                f"{torch.cuda.device_count() if torch.cuda.is_available() else 0} CUDA device(s)"
            )
        torch.cuda.set_device(local_rank)
    if not dist.is_initialized():
        dist.init_process_group(backend=backend, rank=rank, world_size=world)
    return DistributedContext(rank, local_rank, world, dist.get_backend(), process_device)


class DistributedOnPolicyRunner(OnPolicyRunner):
    """rsl-rl's ``OnPolicyRunner`` whose multi-process setup also runs on CPUs (see the module docs).

    Outside a multi-process job (``WORLD_SIZE`` unset or 1) it is exactly ``OnPolicyRunner``, except that
    ``train_cfg["obs_groups"]`` is checked against the env's observation groups first
    (:func:`~isaaclab_contrib.rl.rsl_rl_cfg.check_obs_groups`): a group the env does not produce is a
    ``ValueError`` naming the set and the group, before rsl-rl builds any model.
    """

    def __init__(self, env, train_cfg: dict, log_dir: str | None = None, device: str = "cpu") -> None:
        from .rsl_rl_cfg import check_obs_groups

        if isinstance(train_cfg.get("obs_groups"), dict):
            check_obs_groups(train_cfg["obs_groups"], env.get_observations(), "train_cfg['obs_groups']")
        super().__init__(env, train_cfg, log_dir=log_dir, device=device)

    def _configure_multi_gpu(self) -> None:
        found = torchrun_env()
        world = 1 if found is None else found[2]
        self.gpu_world_size = world
        self.is_distributed = world > 1
        if not self.is_distributed:
            self.gpu_local_rank = 0
            self.gpu_global_rank = 0
            self.cfg["multi_gpu"] = None
            return
        rank, local_rank, _ = found
        self.gpu_local_rank = local_rank
        self.gpu_global_rank = rank
        self.cfg["multi_gpu"] = {"global_rank": rank, "local_rank": local_rank, "world_size": world}
        expected = distributed_device(self.device, local_rank)
        if self.device != expected:
            raise ValueError(
                f"DistributedOnPolicyRunner: device {self.device!r} does not match local rank {local_rank} "
                f"(expected {expected!r})"
            )
        if not dist.is_initialized():
            init_distributed(self.device)
