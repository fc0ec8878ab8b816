"""Reading a model file is bounded: regular files only, a size cap, a nesting limit and finite
numbers; each refusal is one ModelFileError line, given before anything large is read and
without waiting for a writer."""

import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import venncal
from tests.persistence._files import refused_on_load, rewrite
from venncal.persistence import FORMAT_VERSION, ModelFileError
from venncal.persistence._reading import MAX_BYTES, json_depth


@pytest.fixture
def saved(tmp_path):
    rng = np.random.default_rng(0)
    s = rng.random(200)
    cal = venncal.VennAbersCalibrator().fit(s, (rng.random(200) < s).astype(int))
    return venncal.save(cal, tmp_path / "m.json")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_unread():
    refused_on_load("/dev/zero", "character device", "regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_without_writer_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "model.json"
    os.mkfifo(fifo)
    errors = []

    def attempt():
        try:
            venncal.load(fifo)
        except ModelFileError as exc:
            errors.append(str(exc))

    reader = threading.Thread(target=attempt, daemon=True)
    reader.start()
    reader.join(timeout=60)
    if reader.is_alive():  # unblock the reader so the test run can end
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("load waited for a writer of the FIFO")
    assert errors and "FIFO" in errors[0] and "\n" not in errors[0]


def test_a_folder_is_refused(tmp_path):
    refused_on_load(tmp_path, "folder")


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:  # sparse: 1 GB of size, no data written
        fh.truncate(10**9)
    refused_on_load(big, "1000000000 bytes", f"the {MAX_BYTES}", "max_bytes")


def test_the_cap_can_be_lowered_and_raised(saved):
    size = saved.stat().st_size
    refused_on_load(saved, f"more than the {size - 1}", max_bytes=size - 1)
    assert isinstance(venncal.load(saved, max_bytes=size), venncal.VennAbersCalibrator)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "big", True])
def test_a_bad_cap_is_one_line(saved, bad):
    with pytest.raises(TypeError, match="'max_bytes' of venncal.load"):
        venncal.load(saved, max_bytes=bad)


def test_nesting_900_deep_is_one_line(saved):
    doc = json.loads(saved.read_text())
    deep = []
    for _ in range(900):
        deep = [deep]
    doc["params"]["merge"] = deep
    rewrite(saved, doc)
    refused_on_load(saved, "nests more than 64 levels")


@pytest.mark.parametrize("literal", ["1e999", "-1e999", "1e400"])
def test_a_number_beyond_float_range_is_one_line(saved, literal):
    text = saved.read_text().replace(
        f'"format_version": {FORMAT_VERSION}', f'"format_version": {literal}'
    )
    saved.write_text(text)
    refused_on_load(saved, "out of the range of a float")


def test_a_number_beyond_float_range_deep_in_the_fitted_state_is_named(saved):
    doc = json.loads(saved.read_text())
    doc["metadata"] = {"note": [0.5, [1.0, 2.0]]}
    text = json.dumps(doc).replace("2.0]", "2e400]")
    saved.write_text(text)
    refused_on_load(saved, "the number at metadata.note[1][1] is out of the range of a float")


def test_json_depth_counts_arrays_and_objects():
    assert json_depth(3, limit=0)
    assert json_depth({"a": [1, {"b": []}]}, limit=4)
    assert not json_depth({"a": [1, {"b": []}]}, limit=3)


def test_the_command_line_refuses_dev_zero_in_one_line(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("needs /dev/zero")
    src = tmp_path / "in.csv"
    src.write_text("score\n0.5\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "venncal",
            "apply",
            "/dev/zero",
            str(src),
            "-o",
            str(tmp_path / "o.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "regular file" in out.stderr


def test_the_command_line_takes_a_model_size_cap(tmp_path, saved):
    src = tmp_path / "in.csv"
    src.write_text("score\n0.5\n")
    args = [sys.executable, "-m", "venncal", "apply", str(saved), str(src), "--score", "score"]
    out = subprocess.run(
        [*args, "-o", str(tmp_path / "o.csv"), "--max-model-bytes", "100"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "more than the 100" in out.stderr, out.stderr
    out = subprocess.run(
        [*args, "-o", str(tmp_path / "o2.csv"), "--max-model-bytes", str(10**9)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
