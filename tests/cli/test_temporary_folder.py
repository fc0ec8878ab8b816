"""``venncal fit``'s temporary folder: one line for every failure, no other folder tried, and the
folders of killed fits removed by the next fit (only venncal's, only of dead processes)."""

import os
import signal
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
import pytest

from tests.cli._helpers import expect_usage_error, run
from venncal._files import TMP_PREFIX, _host_tag
from venncal.cli import _spill


def _data(tmp_path, n=300):
    rng = np.random.default_rng(0)
    s = rng.random(n)
    path = tmp_path / "cal.parquet"
    pd.DataFrame({"score": s, "y": (rng.random(n) < s).astype(int)}).to_parquet(path)
    return path


@pytest.fixture
def spilling(monkeypatch, tmp_path):
    """Runs of 40 distinct scores at most: a fit of 300 distinct scores spills; the folder of
    the temporary files is chosen by the environment alone."""
    monkeypatch.setattr(_spill, "SPILL_DISTINCT", 40)
    monkeypatch.setattr(_spill, "READ_BLOCK", 16)
    monkeypatch.setattr(tempfile, "tempdir", None)
    for name in ("TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    return _data(tmp_path)


def _fit(data, tmp_path):
    return run("fit", data, "--score", "score", "--label", "y", "-o", tmp_path / "m.json")


@pytest.mark.parametrize("what", ["missing", "a file", "read-only"])
def test_unusable_tmpdir_is_one_line_and_nothing_else_is_tried(
    spilling, monkeypatch, tmp_path, what
):
    """TMPDIR that cannot be written: exit code 2 naming it; no spill folder anywhere else
    (tempfile.gettempdir would have moved to /tmp, /var/tmp or the working folder)."""
    bad = tmp_path / "bad"
    if what == "a file":
        bad.write_text("x")
    elif what == "read-only":
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only folders")
        bad.mkdir(mode=0o555)
    monkeypatch.setenv("TMPDIR", str(bad))
    made = []
    real = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(k) or real(*a, **k))
    result = _fit(spilling, tmp_path)
    expect_usage_error(result, "cannot use the temporary files of the fit", str(bad), "TMPDIR")
    assert all(k.get("dir") == str(bad) for k in made)
    assert not (tmp_path / "m.json").exists()


def test_no_usable_temporary_folder_at_all_is_one_line(spilling, monkeypatch, tmp_path):
    """Where tempfile finds no usable folder it raises while the error is being written: a
    94-line chained traceback with exit code 1 before."""

    def nowhere():
        raise FileNotFoundError(2, "No usable temporary directory found")

    monkeypatch.setattr(tempfile, "gettempdir", nowhere)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    expect_usage_error(_fit(spilling, tmp_path), "cannot use the temporary files of the fit")


def _dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_leftover_folders_of_killed_fits_go_and_nothing_else(spilling, monkeypatch, tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    host, dead = _host_tag(), _dead_pid()

    def folder(name, *files):
        path = temp / name
        path.mkdir()
        for f in files:
            (path / f).write_bytes(b"x")
        return path

    gone = folder(f"{TMP_PREFIX}p{dead}h{host}-fit.abc", "table-1.bin", "table-12.bin")
    kept = [
        folder(f"{TMP_PREFIX}p{os.getppid()}h{host}-fit.abc", "table-1.bin"),  # runs
        folder(f"{TMP_PREFIX}p{dead}h{'0' * 8 if host != '0' * 8 else '1' * 8}-fit.x"),  # host
        folder(f"venncal-fit-p{dead}", "table-1.bin"),  # not venncal's name
        folder(f"{TMP_PREFIX}p{dead}h{host}-fit.mine", "table-1.bin", "notes.txt"),  # not only
    ]
    result = _fit(spilling, tmp_path)
    assert result.exit_code == 0, result.output
    assert not gone.exists()
    assert all(path.exists() for path in kept)
    assert sorted(p.name for p in kept[3].iterdir()) == ["notes.txt"]  # venncal's file went
    assert sorted(temp.iterdir()) == sorted(kept)  # the fit's own folder went too


_KILLED_WHILE_SPILLING = """
import sys, time
from venncal.cli import _spill, main
_spill.SPILL_DISTINCT, _spill.READ_BLOCK = 40, 16
write = _spill.write_run
def slow(*args):
    out = write(*args)
    print("spilled", flush=True)
    time.sleep(120)
    return out
_spill.write_run = slow
main(sys.argv[1:])
"""


def test_the_folder_of_a_fit_killed_with_9_goes_at_the_next_fit(spilling, monkeypatch, tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    args = [
        "fit",
        str(spilling),
        "--score",
        "score",
        "--label",
        "y",
        "-o",
        str(tmp_path / "k.json"),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WHILE_SPILLING, *args],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "spilled"
        left = list(temp.iterdir())
        assert len(left) == 1 and left[0].name.startswith(f"{TMP_PREFIX}p{proc.pid}h")
        assert any(left[0].iterdir())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    assert left[0].exists()  # killed: nothing removed it
    monkeypatch.setenv("TMPDIR", str(temp))
    result = _fit(spilling, tmp_path)
    assert result.exit_code == 0, result.output
    assert list(temp.iterdir()) == []
