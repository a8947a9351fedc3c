"""Script arguments are checked by their ``argparse`` types before any work starts: video sizes (an even number of
pixels up to 4096: H.264 halves both sides, so an odd size would be padded to another size) and output folders (a
path below a regular file can never be created)."""

from __future__ import annotations

import argparse
import math

import pytest

from isaaclab_contrib.utils.cli import MAX_PIXELS, even_pixels, key_and_number, writable_dir


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="script")
    parser.add_argument("--video_width", type=even_pixels, default=640)
    parser.add_argument("--output", type=writable_dir, default="output")
    return parser


@pytest.mark.parametrize("text", ["2", "8", "640", "4096"])
def test_even_sizes_up_to_4096_are_accepted(text):
    assert even_pixels(text) == int(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7", r"must be an even number of pixels \(H.264 video\), got 7; use 6 or 8"),
        ("4097", "must be at most 4096 pixels, got 4097"),
        ("4098", "must be at most 4096 pixels"),
        ("0", "must be >= 2, got 0"),
        ("-2", "must be >= 2, got -2"),
        ("1", "must be >= 2, got 1"),
        ("six", "expected an integer, got 'six'"),
        ("6.0", "expected an integer, got '6.0'"),
    ],
)
def test_other_sizes_are_argparse_errors(text, expected):
    with pytest.raises(argparse.ArgumentTypeError, match=expected):
        even_pixels(text)


def test_a_bad_size_is_a_usage_error_naming_the_flag(capsys):
    with pytest.raises(SystemExit) as info:
        _parser().parse_args(["--video_width", "7"])
    assert info.value.code == 2
    assert "argument --video_width: must be an even number of pixels" in capsys.readouterr().err
    assert MAX_PIXELS == 4096


def test_an_output_folder_below_a_file_is_refused_before_work_starts(tmp_path, capsys):
    blocker = tmp_path / "results.txt"
    blocker.write_text("a regular file\n")
    with pytest.raises(argparse.ArgumentTypeError, match=r"lies below .*results\.txt', which is a file, not a folder"):
        writable_dir(str(blocker / "run" / "frames"))
    with pytest.raises(argparse.ArgumentTypeError, match=r"results\.txt' is a file, not a folder"):
        writable_dir(str(blocker))
    with pytest.raises(SystemExit) as info:
        _parser().parse_args(["--output", str(blocker / "run")])
    assert info.value.code == 2 and "argument --output:" in capsys.readouterr().err
    assert not (tmp_path / "results.txt" / "run").exists()  # nothing was created (and nothing can be)


def test_folders_that_exist_or_can_be_created_are_accepted_without_creating_them(tmp_path):
    assert writable_dir(str(tmp_path)) == tmp_path
    deep = tmp_path / "a" / "b" / "c"
    assert writable_dir(str(deep)) == deep and not (tmp_path / "a").exists()
    with pytest.raises(argparse.ArgumentTypeError, match="expected a folder path"):
        writable_dir("")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--video_width", "7", "--video_height", "5"], "argument --video_width: must be an even number of pixels"),
        (["--video_width", "4097"], "argument --video_width: must be at most 4096 pixels"),
        (["--output", "{file}/below"], "argument --output: .* lies below .*, which is a file, not a folder"),
    ],
)
def test_the_main_job_refuses_bad_video_sizes_and_outputs_before_building_anything(tmp_path, capsys, args, expected):
    import re
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # as `python scripts/run.py` does
    import run

    from isaaclab_contrib.physics import NewtonManager

    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    args = [arg.replace("{file}", str(a_file)) for arg in args]
    with pytest.raises(SystemExit) as info:
        run.main([*args, "--frames", "1"])
    assert info.value.code == 2 and re.search(expected, capsys.readouterr().err)
    assert NewtonManager._current_session() is None and sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_key_and_number_splits_at_the_first_equals_sign_and_leaves_the_checks_to_the_caller():
    assert key_and_number("actions=2.5") == ("actions", 2.5)
    assert key_and_number("2=-inf") == ("2", -math.inf)
    assert key_and_number("=1") == ("", 1.0)
    assert key_and_number("a=b=1") is None  # the number is everything after the first "="
    key, value = key_and_number("x=nan")
    assert key == "x" and math.isnan(value)
    for text in ("actions", "actions=", "actions=two", ""):
        assert key_and_number(text) is None
