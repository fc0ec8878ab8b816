"""``venncal export``: a model file as an SQL query or an ONNX model, and its refusals."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from click.testing import CliRunner

import venncal
from tests.cli._helpers import expect_usage_error
from venncal.calibration import MulticlassVennAbersCalibrator, PlattCalibrator, VennAbersCalibrator
from venncal.cli import main

rng = np.random.default_rng(0)
S = rng.random(300)
Y = (rng.random(300) < S).astype(int)


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.json"
    venncal.save(VennAbersCalibrator().fit(S, Y), path)
    return path


def _run(*args):
    return CliRunner().invoke(main, ["export", *map(str, args)])


def test_sql_file_runs_in_sqlite(model, tmp_path):
    out = tmp_path / "q.sql"
    result = _run(model, "--to", "sql", "--table", "t", "--score-column", "s",
                  "--dialect", "sqlite", "-o", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (id INTEGER, s REAL)")
    t = rng.random(50)
    con.executemany("INSERT INTO t VALUES (?, ?)", enumerate(t.tolist()))
    rows = con.execute(f"SELECT id, p, p0, p1 FROM ({out.read_text()}) ORDER BY id").fetchall()
    want = venncal.load(model).predict_proba(t)[:, 1]
    assert np.array_equal(np.array([r[1] for r in rows]), want)


def test_onnx_file_runs(model, tmp_path):
    import onnxruntime as ort

    out = tmp_path / "m.onnx"
    result = _run(model, "--to", "onnx", "-o", out)
    assert result.exit_code == 0, result.output
    sess = ort.InferenceSession(out.read_bytes())
    t = rng.random(50)
    p = sess.run(["p"], {"score": t})[0]
    assert np.array_equal(p, venncal.load(model).predict_proba(t)[:, 1])


def test_existing_output_needs_force(model, tmp_path):
    out = tmp_path / "q.sql"
    out.write_text("keep")
    args = (model, "--to", "sql", "--table", "t", "--score-column", "s", "-o", out)
    expect_usage_error(_run(*args), "already exists", "--force")
    assert out.read_text() == "keep"
    assert _run(*args, "--force").exit_code == 0
    assert out.read_text().startswith("WITH")


def test_never_overwrites_the_model(model):
    before = model.read_bytes()
    expect_usage_error(_run(model, "--to", "onnx", "-o", model, "--force"), "input")
    assert model.read_bytes() == before


def test_bad_options(model, tmp_path):
    expect_usage_error(_run(model, "--to", "sql", "-o", tmp_path / "q.sql"), "--table")
    expect_usage_error(
        _run(model, "--to", "onnx", "--table", "t", "-o", tmp_path / "m.onnx"), "--to sql only"
    )
    expect_usage_error(
        _run(model, "--to", "sql", "--table", "t;", "--score-column", "s", "-o", tmp_path / "q"),
        "identifier",
    )
    expect_usage_error(_run(tmp_path / "none.json", "--to", "onnx", "-o", tmp_path / "m.onnx"))
    assert not (tmp_path / "m.onnx").exists() and not (tmp_path / "q").exists()


def test_refused_model(tmp_path):
    P = rng.dirichlet(np.ones(3), 200)
    path = tmp_path / "mc.json"
    venncal.save(MulticlassVennAbersCalibrator().fit(P, rng.integers(0, 3, 200)), path)
    expect_usage_error(
        _run(path, "--to", "onnx", "-o", tmp_path / "m.onnx"), "MulticlassVennAbersCalibrator"
    )
    assert not (tmp_path / "m.onnx").exists()


def test_platt_model_sql_matches(tmp_path):
    import duckdb

    path = tmp_path / "platt.json"
    venncal.save(PlattCalibrator().fit(S, Y), path)
    out = tmp_path / "q.sql"
    assert (
        _run(path, "--to", "sql", "--table", "t", "--score-column", "s", "-o", out).exit_code == 0
    )
    con = duckdb.connect()
    t = rng.normal(size=40)
    con.execute("CREATE TABLE t (id INTEGER, s DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(t.tolist())))
    rows = con.execute(f"SELECT id, p FROM ({out.read_text()}) ORDER BY id").fetchall()
    want = venncal.load(path).predict_proba(t)[:, 1]
    assert np.max(np.abs(np.array([r[1] for r in rows]) - want)) <= 1e-12


@pytest.mark.parametrize("command", ["apply", "export"])
def test_a_monitor_file_is_one_line_with_exit_2(tmp_path, command):
    """A saved CalibrationMonitor given as MODEL: one line, exit code 2 (apply used to end in an
    AttributeError traceback with exit code 1, the monitor's code for an alarm)."""
    import numpy as np
    import pandas as pd
    from click.testing import CliRunner

    import venncal
    from venncal.cli import main

    rng = np.random.default_rng(0)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    venncal.save(venncal.CalibrationMonitor().update(p, y), tmp_path / "mon.json")
    pd.DataFrame({"score": p}).to_csv(tmp_path / "d.csv", index=False)
    args = {
        "apply": ["apply", tmp_path / "mon.json", tmp_path / "d.csv", "--score", "score"],
        "export": ["export", tmp_path / "mon.json", "--to", "sql", "--table", "t"],
    }[command]
    args += ["--score-column", "score"] if command == "export" else []
    out = tmp_path / ("out.csv" if command == "apply" else "out.sql")
    result = CliRunner().invoke(main, [*map(str, args), "-o", str(out)])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "CalibrationMonitor, not a calibrator" in lines[0]
    assert not out.exists()
