"""Run folders, folder names, log roots and checkpoint files of the training scripts (no simulation)."""

import threading
from datetime import datetime

import pytest
import torch

from isaaclab_contrib.rl import (
    CheckpointError,
    RslRlOnPolicyRunnerCfg,
    check_log_root,
    check_path_component,
    create_run_dir,
    load_checkpoint,
)

FROZEN = datetime(2026, 1, 2, 3, 4, 5, 678901)


@pytest.mark.parametrize(
    "name",
    ["..", ".", "../..", "a/b", "/abs", "a\\b", ".hidden", "a b", "tab\there", "nul\x00", "x" * 129, "\u00fc"],
)
def test_folder_names_are_single_safe_components(name):
    with pytest.raises(ValueError, match="run_name must be a single folder name"):
        check_path_component(name, "run_name")
    # The runner config holds the names the run folder is made of: it refuses the same ones.
    with pytest.raises(ValueError, match=r"RslRlOnPolicyRunnerCfg\.run_name must be a single folder name"):
        RslRlOnPolicyRunnerCfg(run_name=name).validate()
    with pytest.raises(ValueError, match=r"RslRlOnPolicyRunnerCfg\.experiment_name must be a single folder name"):
        RslRlOnPolicyRunnerCfg(experiment_name=name).validate()


def test_empty_names():
    with pytest.raises(ValueError, match="must be a single folder name"):
        check_path_component("", "experiment_name")
    RslRlOnPolicyRunnerCfg(run_name="").validate()  # an empty run name is "no suffix"
    with pytest.raises(ValueError, match="experiment_name must be a single folder name"):
        RslRlOnPolicyRunnerCfg(experiment_name="").validate()


def test_good_folder_names_pass_and_non_strings_are_type_errors():
    for name in ("arm_press_cloth", "run-1", "lr=1e-3,bs=64", "a.b", "v2+x@host"):
        assert check_path_component(name, "n") == name
    with pytest.raises(TypeError, match="n must be a string, got int"):
        check_path_component(3, "n")


def test_run_folders_are_unique_even_with_a_frozen_clock(tmp_path):
    # The clock is frozen: every call sees the same time, as two runs started in the same microsecond would.
    made = [create_run_dir(tmp_path, "exp", 3, now=FROZEN) for _ in range(5)]
    names = [p.name for p in made]
    assert len(set(names)) == 5 and all(p.is_dir() and p.parent == tmp_path / "exp" for p in made)
    assert names[0] == "2026-01-02_03-04-05-678901_seed3" and names[1] == "2026-01-02_03-04-05-678901-1_seed3"
    assert create_run_dir(tmp_path, "exp", 3, "tag", now=FROZEN).name == "2026-01-02_03-04-05-678901_seed3_tag"


def test_concurrent_runs_get_distinct_folders(tmp_path):
    made: list = []
    lock = threading.Lock()

    def start() -> None:
        folder = create_run_dir(tmp_path, "exp", 0, now=FROZEN)
        with lock:
            made.append(folder)

    threads = [threading.Thread(target=start) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 16 and len({p.name for p in made}) == 16
    # Real clock: the time stamp has microseconds.
    assert len(create_run_dir(tmp_path, "exp", 0).name.split("_seed")[0]) == len("2026-01-02_03-04-05-678901")


def test_run_folders_never_leave_the_log_root(tmp_path):
    for experiment, run_name in (("..", ""), ("exp", "../.."), ("a/b", ""), ("exp", "/etc")):
        with pytest.raises(ValueError, match="must be a single folder name"):
            create_run_dir(tmp_path / "root", experiment, 0, run_name)
    assert not (tmp_path / "root").exists()  # nothing was created


def test_log_root_must_be_a_writable_folder(tmp_path):
    file = tmp_path / "a_file"
    file.write_text("x")
    with pytest.raises(NotADirectoryError, match="the log root is a file"):
        check_log_root(file)
    with pytest.raises(NotADirectoryError, match="above the log root, is a file"):
        check_log_root(file / "below" / "it")
    assert check_log_root(tmp_path / "new" / "root") == tmp_path / "new" / "root"  # creatable
    assert not (tmp_path / "new").exists()  # the check creates nothing
    with pytest.raises(NotADirectoryError):
        create_run_dir(file, "exp", 0)


def test_checkpoint_files_are_checked_and_named(tmp_path):
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"\x80\x04not a pickle at all" * 10)
    tensor = tmp_path / "tensor.pt"
    torch.save(torch.zeros(3), tensor)
    other = tmp_path / "other.pt"
    torch.save({"model": {"w": torch.zeros(1)}}, other)
    cases = [
        (tmp_path / "missing.pt", "no such file"),
        (tmp_path, "not a file"),
        (empty, r"the file is empty \(0 bytes\)"),
        (garbage, "not a TorchScript policy or torch checkpoint"),
        (tensor, "a torch file but not an rsl-rl checkpoint"),
        (other, r"not an rsl-rl checkpoint \(no actor_state_dict, critic_state_dict"),
    ]
    for path, match in cases:
        with pytest.raises(CheckpointError, match=match) as info:
            load_checkpoint(path)
        assert str(path) in str(info.value)  # the error names the file
        assert isinstance(info.value, ValueError)
    good = tmp_path / "model_0.pt"
    torch.save({"actor_state_dict": {}, "critic_state_dict": {}, "optimizer_state_dict": {}, "iter": 0}, good)
    kind, data = load_checkpoint(good)
    assert kind == "rsl_rl" and data["iter"] == 0
    scripted = tmp_path / "policy.pt"
    torch.jit.script(torch.nn.Linear(2, 1)).save(str(scripted))
    kind, module = load_checkpoint(scripted)
    assert kind == "torchscript" and module(torch.zeros(1, 2)).shape == (1, 1)
