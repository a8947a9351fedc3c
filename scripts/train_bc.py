"""Behaviour cloning from a demonstration dataset: a few lines of torch fit an MLP from the recorded policy
observations to the recorded actions, then the policy is evaluated on the dataset's task beside its oracle.

    python scripts/train_bc.py --dataset_file datasets/dataset.hdf5 [--epochs 300] [--eval_episodes 2]

Writes ``bc_policy.pt`` (a TorchScript module ``obs["policy"] -> actions``) beside the dataset and prints the
training loss and the mean returns of the cloned policy and of the oracle over the same episodes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
import warp as wp
from rl_common import make_env, oracle_for

from isaaclab_contrib.envs import load_cfg_from_registry
from isaaclab_contrib.rl import evaluate_policy
from isaaclab_contrib.rl.demo_init import load_demo_pairs
from isaaclab_contrib.utils.cli import positive_int


def load_pairs(path: Path) -> tuple[torch.Tensor, torch.Tensor, dict]:
    """Every ``(obs, actions)`` step of the dataset *path*, stacked, and its ``env_args``."""
    try:
        return load_demo_pairs(path)
    except (FileNotFoundError, ValueError) as err:
        raise SystemExit(f"[train_bc] {err}") from None


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset_file", "--dataset-file", type=Path, required=True)
    parser.add_argument("--epochs", type=positive_int, default=300)
    parser.add_argument("--hidden", type=positive_int, default=128)
    parser.add_argument("--eval_episodes", "--eval-episodes", type=positive_int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    wp.config.quiet = True
    torch.manual_seed(args.seed)
    obs, actions, env_args = load_pairs(args.dataset_file)
    mean, std = obs.mean(0), obs.std(0).clamp(min=1e-6)
    net = torch.nn.Sequential(
        torch.nn.Linear(obs.shape[1], args.hidden),
        torch.nn.ELU(),
        torch.nn.Linear(args.hidden, args.hidden),
        torch.nn.ELU(),
        torch.nn.Linear(args.hidden, actions.shape[1]),
    )
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = (obs - mean) / std
    for epoch in range(args.epochs):
        for batch in torch.randperm(len(x)).split(256):
            loss = torch.nn.functional.mse_loss(net(x[batch]), actions[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if epoch == 0 or (epoch + 1) % max(1, args.epochs // 5) == 0:
            with torch.no_grad():
                full = torch.nn.functional.mse_loss(net(x), actions).item()
            print(f"[train_bc] epoch {epoch + 1}: mean squared action error {full:.5f}", flush=True)

    class Policy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net, self.mean, self.std = net, torch.nn.Parameter(mean, False), torch.nn.Parameter(std, False)

        def forward(self, policy_obs: torch.Tensor) -> torch.Tensor:
            return self.net((policy_obs - self.mean) / self.std).clamp(-1.0, 1.0)

    policy = torch.jit.script(Policy().eval())
    out = args.dataset_file.parent / "bc_policy.pt"
    policy.save(str(out))
    task = env_args["env_name"]
    cfg = load_cfg_from_registry(task, "env_cfg_entry_point")
    cfg.scene.num_envs = int(env_args.get("num_envs", 1))
    env = make_env(task, cfg).unwrapped
    try:
        seed = int(env_args.get("seed") or 0)
        with torch.no_grad():
            cloned = evaluate_policy(env, lambda o: policy(o["policy"]), args.eval_episodes, seed=seed)["mean"]
        oracle = evaluate_policy(env, oracle_for(task, env), args.eval_episodes, seed=seed)["mean"]
    finally:
        env.close()
    print(
        f"[train_bc] cloned policy: mean return {cloned:.2f}, oracle {oracle:.2f} ({cloned / oracle:.0%}); wrote {out}"
    )
    return {"loss": full, "cloned_return": cloned, "oracle_return": oracle, "policy": str(out)}


if __name__ == "__main__":
    main()
