"""Distributed training: rsl-rl's multi-process path on CPUs (Gloo) through ``DistributedOnPolicyRunner``,
and ``train.py --distributed`` under ``torchrun``."""

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.multiprocessing as mp

pytestmark = pytest.mark.slow  # multi-process training runs

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


class _CountingEnv:
    """A tiny rsl-rl VecEnv without a simulation; its observations and rewards depend on the rank, so the
    ranks' gradients differ unless they are all-reduced."""

    def __init__(self, rank: int, num_envs: int = 4):
        from tensordict import TensorDict

        self._td = TensorDict
        self.num_envs, self.num_actions, self.max_episode_length = num_envs, 2, 5
        self.device, self.cfg = "cpu", {}
        self.episode_length_buf = torch.zeros(num_envs, dtype=torch.long)
        self.generator = torch.Generator().manual_seed(100 + rank)
        self.rank = rank

    def get_observations(self):
        obs = torch.rand(self.num_envs, 3, generator=self.generator) + self.rank
        return self._td({"policy": obs}, batch_size=[self.num_envs])

    def step(self, actions):
        self.episode_length_buf += 1
        dones = self.episode_length_buf >= self.max_episode_length
        self.episode_length_buf[dones] = 0
        reward = -(actions - self.rank).square().sum(-1)
        return self.get_observations(), reward, dones, {"time_outs": dones.clone()}


def _worker(rank: int, world: int, port: int, log_dir: str, out: str) -> None:
    os.environ.update(
        {"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1"}
    )
    os.environ["MASTER_PORT"] = str(port)
    torch.manual_seed(rank)  # different initial weights: the runner must broadcast rank 0's
    from isaaclab_contrib.rl import RslRlOnPolicyRunnerCfg
    from isaaclab_contrib.rl.distributed import DistributedOnPolicyRunner

    cfg = RslRlOnPolicyRunnerCfg(num_steps_per_env=5, max_iterations=2, save_interval=1, experiment_name="t")
    cfg.actor.hidden_dims = cfg.critic.hidden_dims = [8]
    runner = DistributedOnPolicyRunner(
        _CountingEnv(rank), cfg.to_rsl_rl(), log_dir=log_dir if rank == 0 else None, device="cpu"
    )
    assert torch.distributed.get_backend() == "gloo" and runner.is_distributed and runner.gpu_world_size == world
    runner.learn(num_learning_iterations=2)
    params = torch.cat([p.detach().flatten() for p in runner.alg.get_policy().parameters()])
    torch.save(params, Path(out) / f"params_{rank}.pt")
    torch.distributed.destroy_process_group()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rsl_rl_multi_process_training_runs_on_cpus_with_gloo(tmp_path):
    log_dir, out = tmp_path / "run", tmp_path / "out"
    out.mkdir()
    mp.start_processes(_worker, args=(2, _free_port(), str(log_dir), str(out)), nprocs=2, start_method="spawn")
    first, second = (torch.load(out / f"params_{r}.pt") for r in (0, 1))
    # Same initial weights (broadcast) and the same averaged gradients: the ranks end bitwise equal although
    # each saw its own observations and rewards.
    assert torch.equal(first, second)
    assert sorted(p.name for p in log_dir.glob("model_*.pt")) == ["model_0.pt", "model_1.pt"]  # rank 0 only


def test_the_adapter_is_plain_rsl_rl_in_one_process_and_checks_the_device(monkeypatch):
    from isaaclab_contrib.rl.distributed import DistributedOnPolicyRunner, distributed_device, torchrun_env

    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert torchrun_env() is None
    runner = DistributedOnPolicyRunner.__new__(DistributedOnPolicyRunner)
    runner.cfg, runner.device = {}, "cpu"
    runner._configure_multi_gpu()
    assert not runner.is_distributed and runner.cfg["multi_gpu"] is None
    assert distributed_device("cpu", 1) == "cpu" and distributed_device("cuda:0", 1) == "cuda:1"
    with pytest.raises(ValueError, match="'cpu' or 'cuda"):
        distributed_device("mps", 0)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "2")
    monkeypatch.setenv("LOCAL_RANK", "0")
    with pytest.raises(ValueError, match=r"RANK=2 and LOCAL_RANK=0 must be in \[0, WORLD_SIZE=2\)"):
        torchrun_env()
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("LOCAL_RANK", "1")
    runner.device = "cuda:0"
    with pytest.raises(ValueError, match="does not match local rank 1"):
        runner._configure_multi_gpu()


@pytest.mark.slow
def test_torchrun_trains_the_arm_task_with_two_processes(tmp_path):
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).with_name("torchrun"))
    env = dict(os.environ)
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    launcher = [torchrun, "--nproc_per_node=2", "--master_port", str(_free_port())]
    args = ["--distributed", "--num_envs", "2", "--max_iterations", "2", "--eval_episodes", "1", "--seed", "5"]
    result = subprocess.run(
        [*launcher, str(SCRIPTS / "train.py"), *args, "--log_root", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = (tmp_path / "arm_press_cloth").iterdir()  # exactly one run folder
    assert run.name.endswith("_seed5")
    assert sorted(p.name for p in run.rglob("policy.pt")) == ["policy.pt"]  # exactly one exported policy
    assert (run / "exported" / "policy.onnx").exists() and (run / "model_1.pt").exists()
    saved = json.loads((run / "result.json").read_text())
    assert saved["processes"] == 2 and saved["total_envs"] == 4 and saved["env_steps"] == 2 * 24 * 2 * 2
    assert saved["oracle_return"] > saved["random_return"]
    assert "Total steps: 192" in result.stdout  # rsl-rl counts the samples of both processes
