"""``venncal monitor``: the path it writes is the Python monitor's, in any chunking; exit codes
0 (no alarm), 1 (alarm) and 2 (bad input); outputs never overwritten without --force."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from venncal import CalibrationMonitor
from venncal.cli import main
from venncal.cli.monitor import martingale_text


def _frame(seed=0, n=3_000, jump=0.0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.7, n)
    y = (rng.random(n) < p + np.where(np.arange(n) >= n // 2, jump, 0.0)).astype(int)
    return pd.DataFrame({"id": np.arange(n), "p": p, "y": y})


def _run(*args):
    return CliRunner().invoke(main, ["monitor", *map(str, args)])


def test_no_alarm_exits_0_and_writes_the_path(tmp_path):
    frame = _frame()
    frame.to_csv(tmp_path / "s.csv", index=False)
    result = _run(tmp_path / "s.csv", "--score", "p", "--label", "y", "-o", tmp_path / "m.csv")
    assert result.exit_code == 0, result.output
    assert "No alarm" in result.output
    written = pd.read_csv(tmp_path / "m.csv")
    expected = CalibrationMonitor().update(frame.p.to_numpy(), frame.y.to_numpy()).martingale_
    assert list(written.columns) == ["row", "alarm", "log_martingale"]
    assert np.array_equal(written.row, np.arange(len(frame))) and written.alarm.sum() == 0
    assert np.allclose(written.log_martingale, expected, rtol=1e-12, atol=1e-12)


def test_alarm_exits_1_and_says_where(tmp_path, monkeypatch):
    import venncal.cli._stream as stream

    frame = _frame(jump=0.3)
    half = len(frame) // 2
    frame.iloc[:half].to_parquet(tmp_path / "a.parquet")
    frame.iloc[half:].to_parquet(tmp_path / "b.parquet")
    monkeypatch.setattr(stream, "BATCH_ROWS", 333)  # many chunks: the same answer
    out = tmp_path / "m.parquet"
    result = _run(tmp_path / "a.parquet", tmp_path / "b.parquet", "--score", "p", "--label", "y",
                  "--alpha", "0.01", "-o", out, "--plot", tmp_path / "m.png")  # fmt: skip
    assert result.exit_code == 1, result.output
    m = CalibrationMonitor(alpha=0.01).update(frame.p.to_numpy(), frame.y.to_numpy())
    assert m.alarm_index_ >= half
    assert f"row {m.alarm_index_} of the stream" in result.output
    assert f"row {m.alarm_index_ - half} of" in result.output and "b.parquet" in result.output
    written = pd.read_parquet(out)
    assert np.allclose(written.log_martingale, m.martingale_, rtol=1e-12, atol=1e-12)
    assert written.alarm.to_numpy().argmax() == m.alarm_index_
    assert (tmp_path / "m.png").stat().st_size > 1000


def test_outputs_are_not_overwritten_without_force(tmp_path):
    _frame().to_csv(tmp_path / "s.csv", index=False)
    (tmp_path / "m.csv").write_text("keep me\n")
    args = [tmp_path / "s.csv", "--score", "p", "--label", "y", "-o", tmp_path / "m.csv"]
    result = _run(*args)
    assert result.exit_code == 2 and "--force" in result.output
    assert (tmp_path / "m.csv").read_text() == "keep me\n"
    assert _run(*args, "--force").exit_code == 0
    assert (tmp_path / "m.csv").read_text() != "keep me\n"


@pytest.mark.parametrize(
    ("edit", "args", "said"),
    [
        (lambda f: f, ["--score", "nope", "--label", "y"], "no such column"),
        (lambda f: f.assign(p=f.p * 2), ["--score", "p", "--label", "y"], "in [0, 1]"),
        (lambda f: f.assign(y=f.y + 1), ["--score", "p", "--label", "y"], "0/1"),
        (
            lambda f: f.assign(y=f.y.astype(float).where(f.id != 5)),
            ["--score", "p", "--label", "y"],
            "missing label at row 5",
        ),
        (lambda f: f, ["--score", "p", "--label", "y", "--alpha", "2"], "alpha"),
        (lambda f: f, ["--score", "p", "--label", "y", "--alpha", "nan"], "--alpha"),
        (lambda f: f, ["--score", "p", "--label", "y", "--alpha", "inf"], "alpha"),
        (lambda f: f, ["--score", "p", "--label", "y", "--n-bins", "1000000"], "n-bins"),
        (lambda f: f, ["--score", "y", "--label", "y"], "the same column"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, edit, args, said):
    edit(_frame(n=200)).to_csv(tmp_path / "s.csv", index=False)
    result = _run(tmp_path / "s.csv", *args)
    assert result.exit_code == 2, result.output
    assert said in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and said in errors[0]  # (click adds usage lines to option errors)


def test_text_labels_with_positive(tmp_path):
    frame = _frame(n=500)
    frame.assign(y=np.where(frame.y == 1, "churn", "stay")).to_csv(tmp_path / "s.csv", index=False)
    result = _run(tmp_path / "s.csv", "--score", "p", "--label", "y", "--positive", "churn")
    assert result.exit_code == 0, result.output
    # without --positive the later name, "stay", is the positive class, as fit reads it: the
    # probabilities of churn read as those of stay lose calibration
    other = _run(tmp_path / "s.csv", "--score", "p", "--label", "y")
    assert other.exit_code == 1 and "ALARM" in other.output


def test_numeric_labels_with_positive(tmp_path):
    frame = _frame(n=400)
    frame.assign(y=np.where(frame.y == 1, 2.0, 1.0)).to_parquet(tmp_path / "s.parquet")
    result = _run(tmp_path / "s.parquet", "--score", "p", "--label", "y", "--positive", "2")
    assert result.exit_code == 0, result.output
    expected = CalibrationMonitor().update(frame.p.to_numpy(), frame.y.to_numpy())
    assert f"peaked at {martingale_text(expected.state_.log_max)}" in result.output


def _logs(text):
    import re

    return [float(v) for v in re.findall(r"\(log ([-+0-9.e]+)\)", text)]


def test_the_summary_says_what_the_path_file_holds_even_past_a_float(tmp_path):
    """A martingale near 10^312 (past the largest float) is printed as a power of ten and its
    log, equal to the path file's peak and last value; it used to print 1.014e+304."""
    rng = np.random.default_rng(0)
    p = rng.random(3000)
    y = (rng.random(3000) < p**0.3).astype(int)
    pd.DataFrame({"p": p, "y": y}).to_csv(tmp_path / "s.csv", index=False)
    result = _run(tmp_path / "s.csv", "--score", "p", "--label", "y", "-o", tmp_path / "m.csv")
    assert result.exit_code == 1, result.output
    path = pd.read_csv(tmp_path / "m.csv").log_martingale
    assert path.max() > 709  # e^709 is about the largest float
    peak, last, level = _logs(result.output.splitlines()[0])
    assert peak == pytest.approx(path.max(), rel=1e-5) and last == pytest.approx(
        path.iloc[-1], rel=1e-5
    )
    assert level == pytest.approx(np.log(20), rel=1e-5)
    assert f"10^{path.max() / np.log(10):.2f}" in result.output
    assert "e+304" not in result.output


def test_martingale_text_is_the_value_while_readable():
    assert martingale_text(np.log(20.0)) == "20 (log 2.99573)"
    assert martingale_text(np.log(1e7)).startswith("10^7.00 ")
