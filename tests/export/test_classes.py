"""K-class calibrators in SQL and ONNX: the library's probabilities, row for row.

Temperature scaling (with and without a bias), matrix scaling of every structure and Dirichlet
calibration are fitted on logits, on probabilities with exact zeros (a random forest's) and
on raw scores, and run in DuckDB and SQLite (their dialects and the ANSI one) and in
onnxruntime with its default session options. Test rows: the calibration rows, rows with
exact zeros, ties, extreme logits, rows that do not sum to one, and rows with NaN, infinities
and NULL. Where ``predict_proba`` refuses a row, the exports give NULL (NaN in ONNX).
"""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import pytest

from venncal.calibration import (
    DirichletCalibrator,
    MatrixScalingCalibrator,
    MulticlassVennAbersCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
)
from venncal.export import to_onnx, to_sql

K = 4
TOL = 1e-12
COLUMNS = [f"s{j}" for j in range(K)]
NAMES = [f"p_{k}" for k in range(K)]


def _data(kind, n=500, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    Z = rng.normal(0.0, 2.0, (n, K))
    Z[np.arange(n), y] += 1.5
    if kind == "logits":
        return Z, y
    if kind == "raw":
        return 3.0 * Z + 1.0, y
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    P = np.round(P, 2)  # ties, and exact zeros where a probability was below 0.005
    P[rng.random(n) < 0.3, rng.integers(0, K)] = 0.0  # a forest's zeros
    return P / P.sum(axis=1, keepdims=True), y


def _calibrators(kind):
    st = {"logits": "logits", "raw": "raw", "probabilities": "probabilities"}[kind]
    out = []
    if kind != "raw":
        out += [
            TemperatureCalibrator(score_type=st),
            TemperatureCalibrator(score_type=st, bias=True),
        ]
    out.append(DirichletCalibrator(score_type=st))
    out += [
        MatrixScalingCalibrator(structure=s, score_type=st)
        for s in ("sms", "svs", "full", "vector")
    ]
    X, y = _data(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unpenalised fit may stop before converging
        return [cal.fit(X, y) for cal in out]


def _rows(kind):
    """Test rows: calibration rows, zeros, ties, extremes; then rows the calibrator may refuse."""
    X, _ = _data(kind, n=120, seed=1)
    if kind == "probabilities":
        special = np.array(
            [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 0.5, 0.5],
                [0.25, 0.25, 0.25, 0.25],
                [1e-300, 1.0 - 1e-16, 0.0, 0.0],
                [5e-324, 0.0, 1.0, 0.0],
                [0.3, 0.3, 0.3, 0.3],  # sums to 1.2
                [0.0, 0.0, 0.0, 0.0],
                [0.5, 0.5, 0.5, -0.5],
                [1.5, 0.0, -0.5, 0.0],
            ]
        )
    else:
        special = np.array(
            [
                [0.0, 0.0, 0.0, 0.0],
                [1e300, -1e300, 0.0, 5.0],
                [-1e300, -1e300, -1e300, -1e300],
                [700.0, -700.0, 1e-300, -5e-324],
                [1e-12, 0.0, -1e-12, 3e-12],
            ]
        )
    bad = np.array(
        [
            [np.nan, 0.1, 0.2, 0.7],
            [0.25, np.inf, 0.25, 0.5],
            [-np.inf, 0.0, 0.0, 1.0],
        ]
    )
    return np.vstack([X, special, bad])


def _reference(cal, S):
    """predict_proba row by row; NaN where it refuses the row."""
    out = np.full(S.shape, np.nan)
    for i, row in enumerate(S):
        try:
            out[i] = cal.predict_proba(row[None, :])[0]
        except ValueError:
            pass
    return out


def _duckdb(S):
    import duckdb

    con = duckdb.connect()
    con.execute(f"CREATE TABLE t (id BIGINT, {', '.join(c + ' DOUBLE' for c in COLUMNS)})")
    con.executemany(
        f"INSERT INTO t VALUES (?{', ?' * K})", [(i, *map(float, r)) for i, r in enumerate(S)]
    )
    con.execute("INSERT INTO t VALUES (-1, 0.5, NULL, 0.25, 0.25)")
    return con


def _sqlite(S):
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE TABLE t (id INTEGER, {', '.join(c + ' REAL' for c in COLUMNS)})")
    rows = [(i, *[None if np.isnan(v) else float(v) for v in r]) for i, r in enumerate(S)]
    con.executemany(f"INSERT INTO t VALUES (?{', ?' * K})", rows)
    con.execute("INSERT INTO t VALUES (-1, 0.5, 'abc', 0.25, 0.25)")
    return con


def _fetch(con, query, n):
    rows = con.execute(f"SELECT id, {', '.join(NAMES)} FROM ({query}) AS q").fetchall()
    got = np.full((n, K), np.nan)
    for row in rows:
        if row[0] == -1:  # a NULL or a text among the scores: NULL
            assert all(v is None for v in row[1:]), row
            continue
        got[row[0]] = [np.nan if v is None else v for v in row[1:]]
    assert len(rows) == n + 1
    return got


def _difference(got, want):
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return np.inf
    ok = ~np.isnan(want)
    return float(np.max(np.abs(got[ok] - want[ok]), initial=0.0))


@pytest.mark.parametrize("kind", ["logits", "probabilities", "raw"])
def test_k_class_exports_match_predict_proba(kind):
    import onnxruntime as ort

    S = _rows(kind)
    duck, lite = _duckdb(S), _sqlite(S)
    failures = []
    for cal in _calibrators(kind):
        want = _reference(cal, S)
        assert np.isnan(want).any() and not np.isnan(want).all()
        got = {}
        for dialect in ("duckdb", "ansi"):
            query = to_sql(cal, table="t", score_column=COLUMNS, dialect=dialect)
            got[f"duckdb {dialect}"] = _fetch(duck, query, S.shape[0])
        for dialect in ("sqlite", "ansi"):
            query = to_sql(cal, table="t", score_column=COLUMNS, dialect=dialect)
            got[f"sqlite {dialect}"] = _fetch(lite, query, S.shape[0])
        session = ort.InferenceSession(to_onnx(cal).SerializeToString())  # default options
        got["onnx"] = session.run(["p"], {"scores": S})[0]
        for engine, values in got.items():
            diff = _difference(values, want)
            if not diff <= TOL:
                failures.append(f"{cal!r} {engine}: {diff:g}")
    assert not failures, "\n".join(failures)


def test_loaded_model_exports_the_same(tmp_path):
    """What venncal.load returns, with scikit-learn and without (its saved predictor)."""
    import venncal
    from tests.persistence.test_light_load import _stand_in

    for i, cal in enumerate(_calibrators("probabilities")):
        path = venncal.save(cal, tmp_path / f"m{i}.json")
        q = to_sql(cal, table="t", score_column=COLUMNS)
        model = to_onnx(cal).SerializeToString()
        for loaded in (venncal.load(path), _stand_in(path)):
            assert to_sql(loaded, table="t", score_column=COLUMNS) == q
            assert to_onnx(loaded).SerializeToString() == model


def test_k_class_output_names_and_collisions():
    import duckdb

    cal = _calibrators("logits")[0]
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT 1.0 AS s0, 2.0 AS s1, 0.0 AS s2, 0.5 AS s3, 9 AS p_1")
    with pytest.raises(duckdb.BinderException, match="(?i)ambiguous"):
        con.execute(to_sql(cal, table="t", score_column=COLUMNS)).fetchall()
    query = to_sql(cal, table="t", score_column=COLUMNS, prefix="cal_")
    row = con.execute(f"SELECT p_1, cal_p_0, cal_p_1, cal_p_2, cal_p_3 FROM ({query})").fetchone()
    want = cal.predict_proba([[1.0, 2.0, 0.0, 0.5]])[0]
    assert row[0] == 9 and np.allclose(row[1:], want, rtol=0, atol=TOL)


def test_k_class_refusals():
    cal = _calibrators("logits")[0]
    with pytest.raises(ValueError, match="list of the 4 score columns"):
        to_sql(cal, table="t", score_column="s0")
    with pytest.raises(ValueError, match="names 3 column"):
        to_sql(cal, table="t", score_column=COLUMNS[:3])
    with pytest.raises(ValueError, match="'score_column' parameter"):
        to_sql(cal, table="t", score_column=["s0", "s1", "s2", "s;3"])
    binary = PlattCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="one score column of this PlattCalibrator"):
        to_sql(binary, table="t", score_column=["s0"])
    P, y = _data("probabilities", n=200)
    mva = MulticlassVennAbersCalibrator().fit(P, y)
    for export in (lambda c: to_sql(c, table="t", score_column=COLUMNS), to_onnx):
        with pytest.raises(ValueError, match="MulticlassVennAbersCalibrator cannot be exported"):
            export(mva)


@pytest.mark.parametrize("K", [5, 12])
def test_rows_at_the_sum_tolerance_are_refused_as_the_library_refuses_them(K):
    """Rows whose sum misses one by the tolerance, to the ulp: the exports add a row in numpy's
    order, so they refuse exactly the rows ``predict_proba`` refuses (onnxruntime's ReduceSum
    refused or accepted 1,567 of 20,000 such rows the other way at K = 5)."""
    import duckdb
    import onnxruntime as ort

    from venncal.core.class_scores import SUM_TOLERANCE_PER_CLASS, rows_off_one

    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(K), 400)
    y = (P.cumsum(axis=1) > rng.random((400, 1))).argmax(axis=1)  # labels drawn from P
    cal = TemperatureCalibrator(score_type="probabilities").fit(P, y)
    tol = SUM_TOLERANCE_PER_CLASS * K
    R = rng.dirichlet(np.ones(K), 3000) * np.where(np.arange(3000) % 2, 1 + tol, 1 - tol)[:, None]
    step = rng.integers(-1, 2, 3000)[:, None]  # a float below, none, or a float above
    R = np.where(step < 0, np.nextafter(R, -np.inf), np.where(step > 0, np.nextafter(R, np.inf), R))
    R = R[(R <= 1).all(axis=1)]
    accepted = np.ones(R.shape[0], dtype=bool)
    accepted[rows_off_one(R)] = False
    assert 0.2 < accepted.mean() < 0.8
    session = ort.InferenceSession(to_onnx(cal).SerializeToString())
    got = session.run(["p"], {"scores": R})[0]
    np.testing.assert_array_equal(~np.isnan(got).any(axis=1), accepted)
    cols = [f"s{j}" for j in range(K)]
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE TABLE t (id INTEGER, {', '.join(c + ' REAL' for c in cols)})")
    con.executemany(
        f"INSERT INTO t VALUES ({', '.join('?' * (K + 1))})",
        [(i, *r) for i, r in enumerate(R.tolist())],
    )
    duck = duckdb.connect()
    duck.execute(f"CREATE TABLE t (id INTEGER, {', '.join(c + ' DOUBLE' for c in cols)})")
    duck.executemany(
        f"INSERT INTO t VALUES ({', '.join('?' * (K + 1))})",
        [(i, *r) for i, r in enumerate(R.tolist())],
    )
    for engine, dialect in ((con, "sqlite"), (con, "ansi"), (duck, "duckdb"), (duck, "ansi")):
        query = to_sql(cal, table="t", score_column=cols, dialect=dialect)
        rows = engine.execute(f"SELECT id, p_0 FROM ({query}) AS q ORDER BY id").fetchall()
        np.testing.assert_array_equal([p is not None for _, p in rows], accepted, dialect)
