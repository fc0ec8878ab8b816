"""What the command line never does: replace a file it did not decide to replace, leave its
temporary files behind for good, or end in a traceback (wide files, folders it may not look
into, memory running out, score columns of the wrong type)."""

import os
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.cli.test_fit_apply import one_line_error, run
from venncal import _files
from venncal._files import TMP_PREFIX, make_temporary, remove_leftovers
from venncal.cli import _csv, _stream


@pytest.fixture
def folder(tmp_path):
    rng = np.random.default_rng(0)
    s = np.round(rng.normal(size=300), 3)
    y = (rng.random(300) < 1 / (1 + np.exp(-2 * s))).astype(int)
    pd.DataFrame({"score": s, "y": y, "prob": 1 / (1 + np.exp(-s))}).to_csv(
        tmp_path / "cal.csv", index=False
    )
    pd.DataFrame({"id": np.arange(50), "score": np.linspace(-2, 2, 50)}).to_csv(
        tmp_path / "test.csv", index=False
    )
    res = run("fit", tmp_path / "cal.csv", "--score", "score", "--label", "y", "-o",
              tmp_path / "model.json")  # fmt: skip
    assert res.exit_code == 0, res.output
    return tmp_path


def _appearing(module, name, target, monkeypatch):
    """Make ``module.name`` create the user's file ``target`` before it does its work."""
    original = getattr(module, name)

    def wrapped(*args, **kwargs):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"the user's own file")
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)


def _kept(result, target):
    one_line_error(result, "appeared while venncal was writing it")
    assert target.read_bytes() == b"the user's own file"
    assert not [p for p in target.parent.iterdir() if p.name.startswith(TMP_PREFIX)]


# ----------------------------------------------------------------------------- outputs
@pytest.mark.parametrize("force", [[], ["--force"]])
@pytest.mark.parametrize("name", ["o.csv", "o.parquet"])
def test_calibrate_keeps_a_file_that_appears_during_the_fit(folder, monkeypatch, force, name):
    import venncal.cli.calibrate as command

    out = folder / name
    _appearing(command, "fit_calibrator", out, monkeypatch)
    res = run("calibrate", folder / "cal.csv", folder / "test.csv", "--score", "score",
              "--label", "y", "-o", out, *force)  # fmt: skip
    if not force:  # seen by the check before the output is written: the same one line
        assert res.exit_code == 2 and out.read_bytes() == b"the user's own file"
        return
    _kept(res, out)


@pytest.mark.parametrize("name", ["metrics.csv", "reliability.png", "brier_curve.png"])
def test_evaluate_keeps_a_file_that_appears_while_it_runs(folder, monkeypatch, name):
    import venncal.cli.evaluate as command

    target = folder / "ev" / name
    _appearing(command, "read_table", target, monkeypatch)
    res = run("evaluate", folder / "cal.csv", "--label", "y", "--proba", "prob", "--out-dir",
              folder / "ev", "--force")  # fmt: skip
    _kept(res, target)


@pytest.mark.parametrize("name", ["comparison.csv", "reliability.png"])
def test_compare_keeps_a_file_that_appears_while_it_runs(folder, monkeypatch, name):
    import venncal.cli.compare as command

    target = folder / "cmp" / name
    _appearing(command, "read_table", target, monkeypatch)
    res = run("compare", folder / "cal.csv", "--score", "score", "--label", "y", "--method",
              "platt", "--method", "isotonic", "--cv", "2", "--out-dir", folder / "cmp",
              "--force")  # fmt: skip
    _kept(res, target)


def test_files_existing_at_the_start_are_replaced_with_force(folder):
    (folder / "ev").mkdir()
    for name in ("metrics.csv", "reliability.png", "brier_curve.png"):
        (folder / "ev" / name).write_bytes(b"old")
    res = run("evaluate", folder / "cal.csv", "--label", "y", "--proba", "prob", "--out-dir",
              folder / "ev", "--force")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert all((folder / "ev" / n).read_bytes() != b"old" for n in ("metrics.csv",
                                                                    "reliability.png"))  # fmt: skip


# ----------------------------------------------------------------------------- leftovers
_DIE_WHILE_WRITING = """
import os, signal, sys
import pyarrow.csv

def die(data, sink, *args, **kwargs):
    sink.write(b"half a table")
    sink.flush()
    os.kill(os.getpid(), signal.SIGKILL)

pyarrow.csv.write_csv = die
from venncal.cli import main

main(sys.argv[1:])
"""


def test_a_later_run_removes_what_a_killed_run_left(folder):
    args = ["apply", folder / "model.json", folder / "test.csv", "-o", folder / "o.csv"]
    proc = subprocess.Popen([sys.executable, "-c", _DIE_WHILE_WRITING, *map(str, args)])
    assert proc.wait() == -signal.SIGKILL
    left = [p for p in os.listdir(folder) if p.startswith(TMP_PREFIX)]
    assert len(left) == 1 and left[0].startswith(f"{TMP_PREFIX}p{proc.pid}h")
    res = run(*args)
    assert res.exit_code == 0, res.output
    assert [p for p in os.listdir(folder) if p.startswith(TMP_PREFIX)] == []


def test_only_leftovers_of_dead_venncal_processes_here_are_removed(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = _files._host_tag()
    other_host = "0" * 8 if host != "0" * 8 else "1" * 8
    names = {
        f"{TMP_PREFIX}p{dead.pid}h{host}-out.csv.abc": False,  # removed
        f"{TMP_PREFIX}p{os.getppid()}h{host}-out.csv.abc": True,  # its process runs
        f"{TMP_PREFIX}p{dead.pid}h{other_host}-out.csv.abc": True,  # another machine's
        f"{TMP_PREFIX}out.csv.abc": True,  # no process named: not known to be dead
        "out.csv": True,
        f"notes-p{dead.pid}h{host}-x": True,
    }
    for name in names:
        (tmp_path / name).write_text("x")
    (tmp_path / "elsewhere").write_text("y")
    link = f"{TMP_PREFIX}p{dead.pid}h{host}-link.csv.abc"
    (tmp_path / link).symlink_to(tmp_path / "elsewhere")
    names[link] = True  # a link is not a file venncal wrote
    assert remove_leftovers(tmp_path) == 1
    assert sorted(os.listdir(tmp_path)) == sorted([n for n, k in names.items() if k] +
                                                  ["elsewhere"])  # fmt: skip
    fd, path = make_temporary(tmp_path, "new.csv")
    os.close(fd)
    assert os.path.basename(path).startswith(f"{TMP_PREFIX}p{os.getpid()}h{host}-new.csv.")
    assert remove_leftovers(tmp_path) == 0  # this process runs: its own file stays


# ----------------------------------------------------------------------------- inputs
def test_a_csv_of_a_million_columns_opens(tmp_path, folder):
    """The check for repeated column names is linear (it was quadratic: minutes at 10^5)."""
    n = 10**6
    names = ["score"] + [f"c{i}" for i in range(n - 1)]
    with open(tmp_path / "wide.csv", "w") as fh:
        fh.write(",".join(names) + "\n")
        fh.write(",".join(["0.5"] + ["1"] * (n - 1)) + "\n")
    code = (
        "import sys; from venncal.cli._stream import open_source; "
        "s = open_source([sys.argv[1]]); print(len(s.columns))"
    )
    # a bound against a hang only: the check takes about a second
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "wide.csv")],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.stdout.strip() == str(n), proc.stderr
    names[-1] = "c7"
    with open(tmp_path / "wide2.csv", "w") as fh:
        fh.write(",".join(names) + "\n0.5" + ",1" * (n - 1) + "\n")
    res = run("apply", folder / "model.json", tmp_path / "wide2.csv", "-o", tmp_path / "o.csv")
    one_line_error(res, "'c7' more than once")


def test_a_folder_that_cannot_be_searched_is_one_line(folder, monkeypatch):
    """As a user without the right to search ``locked``: looking inside it is refused."""
    locked = folder / "locked"
    locked.mkdir()
    (locked / "test.csv").write_bytes((folder / "test.csv").read_bytes())
    real_stat, real_lstat = os.stat, os.lstat

    def refuse(real):
        def stat(path, *args, **kwargs):
            if str(locked) + os.sep in os.fspath(path):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real(path, *args, **kwargs)

        return stat

    monkeypatch.setattr(os, "stat", refuse(real_stat))
    monkeypatch.setattr(os, "lstat", refuse(real_lstat))
    model = folder / "model.json"
    res = run("apply", model, folder / "test.csv", "-o", locked / "o.csv")
    one_line_error(res, "Permission denied", "locked")
    res = run("apply", model, locked / "test.csv", "-o", folder / "o.csv")
    one_line_error(res, "Permission denied", "locked")
    assert not (folder / "o.csv").exists()


@pytest.mark.parametrize(
    "column",
    [pa.array(["0.1", "0.2", "0.3", "0.4"]), pa.array([True, False, True, False]),
     pa.array([1, 2, 3, 4], pa.decimal128(5, 2))],
)  # fmt: skip
def test_fit_and_apply_refuse_the_same_score_types(tmp_path, column):
    pq.write_table(pa.table({"score": column, "y": [0, 1, 0, 1]}), tmp_path / "t.parquet")
    pd.DataFrame({"score": [0.1, 0.2, 0.3, 0.4], "y": [0, 1, 0, 1]}).to_csv(
        tmp_path / "c.csv", index=False
    )
    fit = run("fit", tmp_path / "t.parquet", "--score", "score", "--label", "y", "-o",
              tmp_path / "m.json")  # fmt: skip
    refused = one_line_error(fit, "must hold numbers", str(column.type))
    assert run("fit", tmp_path / "c.csv", "--score", "score", "--label", "y", "-o",
               tmp_path / "m.json").exit_code == 0  # fmt: skip
    apply = run("apply", tmp_path / "m.json", tmp_path / "t.parquet", "-o", tmp_path / "o.csv")
    assert one_line_error(apply) == refused


@pytest.mark.parametrize("error", [MemoryError, pa.ArrowMemoryError])
@pytest.mark.parametrize("where", ["compute", "write"])
def test_running_out_of_memory_is_one_line(folder, monkeypatch, error, where):
    def fail(*args, **kwargs):
        raise error("cannot allocate")

    if where == "compute":
        monkeypatch.setattr(_stream, "calibrated_columns", fail)
    else:
        monkeypatch.setattr(_csv, "write_csv_batch", fail)
    res = run("apply", folder / "model.json", folder / "test.csv", "-o", folder / "o.csv")
    one_line_error(res, "out of memory")
    assert not (folder / "o.csv").exists()
    assert not [p for p in os.listdir(folder) if p.startswith(TMP_PREFIX)]


def test_a_ragged_row_is_named_by_its_row(folder, monkeypatch):
    lines = ["id,score"] + [f"{i},0.{i}" for i in range(100)]
    lines[1 + 57] += ",extra"
    (folder / "ragged.csv").write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(_stream, "BATCH_ROWS", 8)
    res = run("apply", folder / "model.json", folder / "ragged.csv", "-o", folder / "o.csv")
    one_line_error(res, "ragged.csv'", "row 57 has 3 fields but the header has 2")
    assert not (folder / "o.csv").exists()


def test_a_temporary_file_for_a_long_name_fits(tmp_path):
    name = "x" * 250  # as long as a file name may be
    fd, path = make_temporary(tmp_path, name)
    os.close(fd)
    assert os.path.basename(path).startswith(TMP_PREFIX)
