"""Hostile input files and interrupted writes: exit 2 with one line, or the right answer."""

import os
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from venncal._files import TMP_PREFIX, atomic_open, write_text
from venncal.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(res, *words):
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert "Traceback" not in res.output
    errors = [line for line in res.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, res.output
    for word in words:
        assert word in errors[0], errors[0]


@pytest.fixture
def good(tmp_path):
    rng = np.random.default_rng(1)
    s = rng.normal(size=200)
    y = (rng.random(200) < 1 / (1 + np.exp(-2 * s))).astype(int)
    pd.DataFrame({"score": s, "y": y}).to_csv(tmp_path / "cal.csv", index=False)
    pd.DataFrame({"score": s[:50], "y": y[:50], "prob": 1 / (1 + np.exp(-s[:50]))}).to_csv(
        tmp_path / "test.csv", index=False
    )
    return tmp_path


def calibrate(folder, cal, *extra, out="o.csv"):
    return run("calibrate", cal, folder / "test.csv", "--score", "score", "--label", "y",
               "-o", folder / out, *extra)  # fmt: skip


# ----------------------------------------------------------------------------- malformed CSV
BAD_FILES = {
    # one more field than the header in every row: pandas would take the first column as index
    "one_more_field": (b"score,y\n0.1,0,9\n0.5,1,9\n0.9,1,9\n-0.3,0,9\n", "fields"),
    "more_fields_in_one_row": (b"score,y\n0.1,0\n0.5,1,7\n0.9,1\n-0.3,0\n", "fields"),
    "fewer_fields": (b"score,y\n0.1,0\n0.5\n0.9,1\n-0.3,0\n", "fields"),
    "empty": (b"", "empty"),
    "header_only": (b"score,y\n", "no data rows"),
    "not_utf8": ("score,y,name\n0.1,0,caf\u00e9\n0.9,1,b\n".encode("latin-1"), "UTF-8"),
    "duplicate_columns": (b"score,y,score\n0.1,0,1\n0.9,1,2\n0.2,0,3\n", "more than once"),
    "fractional_labels": (b"score,y\n0.1,0\n0.9,0.5\n0.2,0\n0.7,0.5\n", "fractions"),
    "labels_1_2": (b"score,y\n0.1,1\n0.9,2\n0.2,1\n0.7,2\n", "--positive"),
    "binary_garbage": (b"\x00\x01\x02\xff\xfe\n\x00\x00", "cannot read"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_malformed_calibration_file(good, case):
    data, word = BAD_FILES[case]
    bad = good / f"{case}.csv"
    bad.write_bytes(data)
    one_line_error(calibrate(good, bad), word)
    assert not (good / "o.csv").exists()


@pytest.mark.parametrize("case", ["one_more_field", "fewer_fields", "duplicate_columns",
                                  "not_utf8", "fractional_labels"])  # fmt: skip
def test_malformed_file_to_evaluate(good, case):
    data, word = BAD_FILES[case]
    if case != "fractional_labels":
        data = data.replace(b"score", b"prob")
    bad = good / f"{case}.csv"
    bad.write_bytes(data)
    proba = "score" if case == "fractional_labels" else "prob"
    res = run("evaluate", bad, "--label", "y", "--proba", proba)
    one_line_error(res, word)


def test_byte_order_mark_and_blank_last_line_are_accepted(good):
    text = (good / "cal.csv").read_bytes()
    (good / "bom.csv").write_bytes(b"\xef\xbb\xbf" + text + b"\n")
    assert calibrate(good, good / "cal.csv").exit_code == 0
    assert calibrate(good, good / "bom.csv", out="o2.csv").exit_code == 0
    pd.testing.assert_frame_equal(pd.read_csv(good / "o.csv"), pd.read_csv(good / "o2.csv"))


def test_numeric_labels_other_than_0_1_need_positive(good):
    cal = pd.read_csv(good / "cal.csv")
    cal.assign(y=cal["y"] + 1).to_csv(good / "c12.csv", index=False)
    assert calibrate(good, good / "cal.csv").exit_code == 0
    res = calibrate(good, good / "c12.csv", "--positive", "2", out="o2.csv")
    assert res.exit_code == 0, res.output
    pd.testing.assert_frame_equal(pd.read_csv(good / "o.csv"), pd.read_csv(good / "o2.csv"))
    cal.assign(y=2 * cal["y"] - 1).to_csv(good / "cpm.csv", index=False)
    assert calibrate(good, good / "cpm.csv", out="o3.csv").exit_code == 0
    pd.testing.assert_frame_equal(pd.read_csv(good / "o.csv"), pd.read_csv(good / "o3.csv"))


# ----------------------------------------------------------------------------- same file
def test_output_that_is_an_input_is_refused_even_with_force(good):
    before = (good / "cal.csv").read_bytes()
    one_line_error(calibrate(good, good / "cal.csv", "--force", out="cal.csv"), "input")
    (good / "link.csv").symlink_to(good / "test.csv")
    one_line_error(calibrate(good, good / "cal.csv", "--force", out="link.csv"), "input")
    os.link(good / "cal.csv", good / "hard.csv")
    one_line_error(calibrate(good, good / "cal.csv", "--force", out="hard.csv"), "input")
    assert (good / "cal.csv").read_bytes() == before
    assert (good / "link.csv").is_symlink()


def test_evaluate_output_that_is_its_input_is_refused(good):
    folder = good / "ev"
    folder.mkdir()
    data = (good / "test.csv").read_bytes()
    (folder / "metrics.csv").write_bytes(data)
    res = run("evaluate", folder / "metrics.csv", "--label", "y", "--proba", "prob",
              "--out-dir", folder, "--force", "--no-plots")  # fmt: skip
    one_line_error(res, "input")
    assert (folder / "metrics.csv").read_bytes() == data


# ----------------------------------------------------------------------------- extreme weights
METHODS = ["venn-abers", "isotonic", "platt", "histogram", "sbb", "abb", "acp", "beta-logit"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("weight", [1e308, 1e-200, 1e160])
def test_extreme_weights_give_probabilities_or_a_clear_error(good, method, weight):
    cal = pd.read_csv(good / "cal.csv").iloc[:80]
    cal.assign(w=weight).to_csv(good / "w.csv", index=False)
    res = calibrate(good, good / "w.csv", "--method", method, "--weight", "w")
    if res.exit_code == 2:
        one_line_error(res, "weight")
        assert not (good / "o.csv").exists()
        return
    assert res.exit_code == 0, res.output
    p = pd.read_csv(good / "o.csv")["p"].to_numpy()
    assert np.isfinite(p).all() and ((p >= 0) & (p <= 1)).all()
    # equal weights of any size are no weights at all where only their ratios matter; a weight
    # of k is k copies, so Platt's targets and the pseudo-counts of Bayesian binning and ACP
    # see 1e308 copies of every row
    if method not in ("venn-abers", "platt", "sbb", "abb", "acp"):
        cal.to_csv(good / "u.csv", index=False)
        assert calibrate(good, good / "u.csv", "--method", method, out="u_out.csv").exit_code == 0
        ref = pd.read_csv(good / "u_out.csv")["p"].to_numpy()
        np.testing.assert_allclose(p, ref, rtol=1e-6, atol=1e-9)


# ----------------------------------------------------------------------------- atomic writes
def test_a_failed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "t.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as fh:
            fh.write("half of the new")
            raise RuntimeError("crash")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["t.txt"]


def test_a_link_at_the_destination_is_replaced_not_written_through(tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep")
    link = tmp_path / "out.txt"
    link.symlink_to(precious)
    write_text(link, "new")
    assert precious.read_text() == "keep"
    assert not link.is_symlink() and link.read_text() == "new"


_DIE_WHILE_WRITING = """
import os, signal, sys

def die(handle):
    data = b"\\x89PNG half" if "b" in getattr(handle, "mode", "wb") else "half,a,table\\n"
    if isinstance(handle, (str, os.PathLike)):
        handle = open(handle, "wb" if isinstance(data, bytes) else "w")
    handle.write(data)
    handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)

import matplotlib.figure
import pandas as pd

matplotlib.figure.Figure.savefig = lambda self, fname, *a, **k: die(fname)
pd.DataFrame.to_csv = lambda self, path=None, *a, **k: die(path)
import pyarrow.csv
pyarrow.csv.write_csv = lambda data, sink, *a, **k: die(sink)
from venncal.cli import main

main(sys.argv[1:])
"""


@pytest.mark.parametrize(
    "args, name",
    [
        (["evaluate", "{d}/test.csv", "--label", "y", "--proba", "prob", "--out-dir", "{d}/ev",
          "--force"], "ev/metrics.csv"),
        (["evaluate", "{d}/test.csv", "--label", "y", "--proba", "prob", "--out-dir", "{d}/ev",
          "--force"], "ev/reliability.png"),
        (["calibrate", "{d}/cal.csv", "{d}/test.csv", "--score", "score", "--label", "y",
          "-o", "{d}/o.csv", "--force"], "o.csv"),
    ],
)  # fmt: skip
def test_kill_9_during_a_write_leaves_the_old_file(good, args, name):
    (good / "ev").mkdir()
    for old in ("ev/metrics.csv", "ev/reliability.png", "ev/brier_curve.png", "o.csv"):
        (good / old).write_bytes(b"old content")
    if name == "ev/reliability.png":  # let the table through, die on the figure
        script = _DIE_WHILE_WRITING.replace("pd.DataFrame.to_csv = ", "_ = ")
        script = script.replace("pyarrow.csv.write_csv = ", "_ = ")
    else:
        script = _DIE_WHILE_WRITING
    argv = [a.format(d=good) for a in args]
    proc = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    assert (good / name).read_bytes() == b"old content"
    leftovers = [p for p in good.rglob("*") if p.name.startswith(TMP_PREFIX)]
    assert len(leftovers) <= 1  # the killed write's temporary file, never the destination
