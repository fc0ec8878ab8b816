"""``venncal monitor --segments``: the report it writes is the Python monitor's, in any
chunking; the alarm names the segments; exit codes 0, 1 and 2; bad options in one line."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.special import expit, logit

from venncal import SegmentedCalibrationMonitor
from venncal.cli import main


def _frame(seed=0, n=3000, shift=1.0):
    rng = np.random.default_rng(seed)
    region = rng.choice([f"r{i}" for i in range(8)], n).astype(object)
    region[::50] = None
    age = np.round(rng.uniform(15, 80, n), 1)
    p = rng.uniform(0.05, 0.6, n)
    q = np.where(region == "r3", expit(logit(p) + shift), p)
    y = (rng.random(n) < q).astype(int)
    return pd.DataFrame({"p": p, "y": y, "region": region, "age": age})


def _run(*args):
    return CliRunner().invoke(main, ["monitor", *map(str, args)])


def test_alarm_names_the_segment_and_the_report_is_the_monitors(tmp_path, monkeypatch):
    import venncal.cli._stream as stream

    frame = _frame()
    frame.iloc[:1000].to_csv(tmp_path / "a.csv", index=False)
    frame.iloc[1000:].to_parquet(tmp_path / "b.parquet")
    monkeypatch.setattr(stream, "BATCH_ROWS", 333)  # many chunks: the same answer
    out = tmp_path / "report.csv"
    result = _run(tmp_path / "a.csv", tmp_path / "b.parquet", "--score", "p", "--label", "y",
                  "--segments", "region,age", "--segment-bins", "age=30,50", "-o", out)  # fmt: skip
    assert result.exit_code == 1, result.output
    seg = {"region": frame.region.to_numpy(), "age": frame.age.to_numpy()}
    mon = SegmentedCalibrationMonitor(["region", "age"], bins={"age": [30.0, 50.0]})
    mon.update(frame.p.to_numpy(), frame.y.to_numpy(), segments=seg)
    assert mon.alarmed_segments_[0] == ("region", "r3")
    row = mon.alarm_rows_["region"][mon.levels_["region"].index("r3")]
    assert f"region = r3: at row {row} of the stream" in result.output
    written = pd.read_csv(out, keep_default_na=False, na_values=[""])
    want = mon.report()
    assert list(written.column) == list(want.column)
    assert list(written.level) == list(want.level)
    np.testing.assert_allclose(written.log_martingale, want.log_martingale, rtol=1e-12)


def test_no_alarm_exits_0(tmp_path):
    _frame(shift=0.0, n=600).to_csv(tmp_path / "s.csv", index=False)
    result = _run(tmp_path / "s.csv", "--score", "p", "--label", "y", "--segments", "region")
    assert result.exit_code == 0, result.output
    assert "No alarm" in result.output and "9 segments of 1 column at" in result.output


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--segments", "region,nope"], "--segments 'nope': no such column"),
        (["--segments", "region", "--segment-bins", "age=30"], "not one of --segments"),
        (["--segment-bins", "age=30"], "--segment-bins needs --segments"),
        (["--segments", "age", "--segment-bins", "age=50,30"], "strictly increasing"),
        (["--segments", "age"], "--segment-bins age=18,30,50"),
        (["--segments", "region,y"], "the column of --score or --label"),
        (["--segments", "region", "--plot", "x.png"], "-o writes the report"),
    ],
)
def test_bad_options_stop_in_one_line(tmp_path, args, fragment):
    _frame(n=100).to_csv(tmp_path / "s.csv", index=False)
    result = _run(tmp_path / "s.csv", "--score", "p", "--label", "y", *args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.output
