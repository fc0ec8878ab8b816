"""``--sep`` (CSV inputs) and ``--out-sep`` (CSV outputs), and floats written to CSV exactly."""

import csv
import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pcsv
import pytest
from click.testing import CliRunner

import venncal
from tests.cli._helpers import check_backend_separators_and_progress, expect_usage_error
from venncal.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _rows(path, sep):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh, delimiter=sep))


@pytest.fixture
def tables(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    s = np.round(rng.normal(size=n), 3)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    p = 1 / (1 + np.exp(-s))
    frame = pd.DataFrame(
        {"id": [f"{i:05d}" for i in range(n)], "note": np.resize(["a;b", "NA", "c,d", ""], n),
         "score": s, "y": y, "p": p, "p0": 0.9 * p, "p1": p}
    )  # fmt: skip
    frame.to_csv(tmp_path / "comma.csv", index=False)
    frame.to_csv(tmp_path / "semi.csv", index=False, sep=";")
    frame.to_csv(tmp_path / "tab.txt", index=False, sep="\t")
    return tmp_path


@pytest.mark.parametrize("method", ["venn-abers", "platt"])  # pooled and in-memory reading
@pytest.mark.parametrize("name,sep", [("semi.csv", ";"), ("tab.txt", "\\t"), ("tab.txt", "tab")])
def test_fit_reads_the_separator_given(tables, method, name, sep):
    base = ["--score", "score", "--label", "y", "--method", method]
    assert run("fit", tables / "comma.csv", *base, "-o", tables / "a.json").exit_code == 0
    res = run("fit", tables / name, *base, "--sep", sep, "-o", tables / "b.json")
    assert res.exit_code == 0, res.output
    a, b = venncal.load(tables / "a.json"), venncal.load(tables / "b.json")
    grid = np.linspace(-3, 3, 101)
    np.testing.assert_array_equal(a.predict_proba(grid), b.predict_proba(grid))


def test_apply_output_keeps_the_input_separator_unless_told(tables):
    run("fit", tables / "comma.csv", "--score", "score", "--label", "y", "-o", tables / "m.json")
    common = ["--keep", "id,note,score"]
    res = run("apply", tables / "m.json", tables / "semi.csv", "--sep", ";", *common, "-o",
              tables / "o.csv")  # fmt: skip
    assert res.exit_code == 0, res.output
    semi = _rows(tables / "o.csv", ";")
    assert semi[0] == ["id", "note", "score", "p", "p0", "p1"]
    original = _rows(tables / "semi.csv", ";")
    # the kept columns are the input's text, value for value
    assert [r[:3] for r in semi[1:]] == [[r[0], r[1], r[2]] for r in original[1:]]
    for out_sep, out in ((",", "o2.csv"), ("\\t", "o3.csv")):
        res = run("apply", tables / "m.json", tables / "semi.csv", "--sep", ";", "--out-sep",
                  out_sep, *common, "-o", tables / out)  # fmt: skip
        assert res.exit_code == 0, res.output
        assert _rows(tables / out, out_sep.replace("\\t", "\t")) == semi
    res = run("apply", tables / "m.json", tables / "semi.csv", "--sep", ";", *common, "-o",
              tables / "o.tsv")  # fmt: skip
    assert _rows(tables / "o.tsv", "\t") == semi  # a .tsv output is tab-separated


def test_other_commands_read_the_separator(tables):
    semi, comma = tables / "semi.csv", tables / "comma.csv"
    ev = ["--label", "y", "--proba", "p", "--interval", "p0", "p1"]
    assert run("evaluate", semi, *ev, "--sep", ";").output == run(
        "evaluate", comma, *ev
    ).output.replace(str(comma), str(semi))
    mon = ["--score", "p", "--label", "y"]
    got = run("monitor", semi, *mon, "--sep", ";").output
    assert got == run("monitor", comma, *mon).output.replace(str(comma), str(semi))
    res = run("monitor", semi, *mon, "--sep", ";", "-o", tables / "path.csv")
    assert res.exit_code in (0, 1)  # 1: the alarm fired
    assert (tables / "path.csv").read_text().splitlines()[0].count(";") == 2
    cal = ["--score", "score", "--label", "y", "--prefix", "c_"]
    res = run("calibrate", semi, semi, *cal, "--sep", ";", "-o", tables / "c.csv")
    assert res.exit_code == 0, res.output
    want = run("calibrate", comma, comma, *cal, "-o", tables / "d.csv")
    assert want.exit_code == 0
    assert _rows(tables / "c.csv", ";") == _rows(tables / "d.csv", ",")
    cmp = ["--score", "score", "--label", "y", "--n-boot", "10", "--cv", "2", "--method", "platt"]
    assert run("compare", semi, *cmp, "--sep", ";").exit_code == 0


@pytest.mark.parametrize("value", ["", ";;", '"', "'", "\n", "ab"])
@pytest.mark.parametrize("command", ["fit", "apply", "calibrate", "evaluate", "monitor", "compare"])
def test_bad_separators_are_one_line(tables, command, value):
    args = {
        "fit": ["fit", tables / "semi.csv", "--score", "score", "--label", "y", "-o",
                tables / "m.json"],
        "apply": ["apply", tables / "m.json", tables / "semi.csv", "-o", tables / "o.csv"],
        "calibrate": ["calibrate", tables / "semi.csv", tables / "semi.csv", "--score", "score",
                      "--label", "y", "-o", tables / "o.csv"],
        "evaluate": ["evaluate", tables / "semi.csv", "--label", "y", "--proba", "p"],
        "monitor": ["monitor", tables / "semi.csv", "--score", "p", "--label", "y"],
        "compare": ["compare", tables / "semi.csv", "--score", "score", "--label", "y"],
    }[command]  # fmt: skip
    expect_usage_error(run(*args, "--sep", value), "--sep", "one character")
    if command in ("apply", "calibrate", "monitor"):
        expect_usage_error(run(*args, "--out-sep", value), "--out-sep", "one character")


def test_dask_backend_reads_and_writes_the_separators_given_and_shows_progress(tmp_path):
    pytest.importorskip("distributed")
    check_backend_separators_and_progress(tmp_path, "dask")
    # a .csv and a .tsv input together: each read with its own separator, rows in order
    pd.read_csv(tmp_path / "comma.csv", dtype=str).to_csv(tmp_path / "t.tsv", sep="\t", index=False)
    inputs = [tmp_path / "local.json", tmp_path / "comma.csv", tmp_path / "t.tsv"]
    for backend, out in (("local", "a.parquet"), ("dask", "b.parquet")):
        res = run("apply", *inputs, "--keep", "id", "--backend", backend, "-o", tmp_path / out)
        assert res.exit_code == 0, res.output
    a, b = pd.read_parquet(tmp_path / "a.parquet"), pd.read_parquet(tmp_path / "b.parquet")
    assert len(a) == 1200
    pd.testing.assert_frame_equal(a, b)


def test_apply_writes_floats_that_read_back_exactly(tmp_path):
    """CSV output of pyarrow's writer: the shortest text that reads back as the same double."""
    hard = np.array([0.1, 1 / 3, 5e-324, 1 - 2**-53, 2.2250738585072014e-308, 1e300, -0.0, 7.0])
    rng = np.random.default_rng(1)
    scores = np.concatenate([hard, rng.normal(size=2000), np.exp(rng.normal(0, 50, 2000))])
    x = rng.normal(size=500)
    cal = venncal.IsotonicCalibrator().fit(x, (rng.random(500) < 1 / (1 + np.exp(-x))).astype(int))
    venncal.save(cal, tmp_path / "m.json", metadata={"score": "s"})
    pd.DataFrame({"s": scores}).to_parquet(tmp_path / "in.parquet")
    res = run("apply", tmp_path / "m.json", tmp_path / "in.parquet", "-o", tmp_path / "o.csv")
    assert res.exit_code == 0, res.output
    text = (tmp_path / "o.csv").read_bytes()
    types = {"s": pa.float64(), "p": pa.float64()}
    back = pcsv.read_csv(io.BytesIO(text), convert_options=pcsv.ConvertOptions(column_types=types))
    got_s = back["s"].to_numpy()
    assert got_s.view(np.int64).tolist() == scores.view(np.int64).tolist()  # bit for bit
    want_p = cal.predict_proba(scores)[:, 1]
    assert back["p"].to_numpy().view(np.int64).tolist() == want_p.view(np.int64).tolist()
    # Python's own float parsing agrees
    parsed = [float(r[0]) for r in _rows(tmp_path / "o.csv", ",")[1:]]
    assert np.array(parsed).view(np.int64).tolist() == scores.view(np.int64).tolist()
