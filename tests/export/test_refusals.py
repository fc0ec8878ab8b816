"""What the exports refuse, and the behaviour they document for NULL, NaN, inf and floats."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from venncal import VennAbersClassifier
from venncal.calibration import (
    ACPCalibrator,
    MulticlassVennAbersCalibrator,
    PlattCalibrator,
    VennAbersCalibrator,
)
from venncal.export import to_onnx, to_sql
from venncal.export._sql import _Query

rng = np.random.default_rng(0)
S = np.round(rng.random(200), 2)
Y = (rng.random(200) < S).astype(int)


def _both(cal):
    with pytest.raises((ValueError, TypeError)) as a:
        to_sql(cal, table="t", score_column="s")
    with pytest.raises((ValueError, TypeError)) as b:
        to_onnx(cal)
    assert str(a.value) == str(b.value)
    return str(a.value)


def test_unfitted():
    assert "PlattCalibrator" in _both(PlattCalibrator()) and "not fitted" in _both(
        PlattCalibrator()
    )


def test_fitted_within_groups():
    cal = VennAbersCalibrator().fit(S, Y, groups=(S > 0.5).astype(int))
    msg = _both(cal)
    assert "VennAbersCalibrator" in msg and "groups" in msg


def test_multiclass_and_acp_and_unknown():
    P = rng.dirichlet(np.ones(3), 300)
    y3 = rng.integers(0, 3, 300)
    assert "MulticlassVennAbersCalibrator" in _both(MulticlassVennAbersCalibrator().fit(P, y3))
    assert "ACPCalibrator" in _both(ACPCalibrator())
    assert "object" in _both(object())


def test_classifier_wrapper():
    from sklearn.linear_model import LogisticRegression

    X = rng.normal(size=(200, 2))
    clf = VennAbersClassifier(LogisticRegression()).fit(X, Y)
    msg = _both(clf)
    assert "VennAbersClassifier" in msg and "classifier" in msg


def test_bad_sql_arguments():
    cal = PlattCalibrator().fit(S, Y)
    with pytest.raises(ValueError, match="'dialect' parameter of to_sql"):
        to_sql(cal, table="t", score_column="s", dialect="oracle")
    with pytest.raises(ValueError, match="'table' parameter"):
        to_sql(cal, table="t; DROP TABLE x", score_column="s")
    with pytest.raises(ValueError, match="'score_column' parameter"):
        to_sql(cal, table="t", score_column="a.b")
    q = to_sql(cal, table='main."My Table"', score_column='"Score"', dialect="sqlite")
    assert 'main."My Table"' in q


def test_null_nan_and_inf():
    """NULL in, NULL out (SQL); NaN in, NaN out (ONNX); inf read as the largest float."""
    import duckdb
    import onnxruntime as ort

    cal = VennAbersCalibrator().fit(S, Y)
    big = np.finfo(float).max
    want = cal.predict_proba(np.array([big, -big, 0.3]))[:, 1]
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (id INTEGER, s REAL)")
    con.executemany(
        "INSERT INTO t VALUES (?, ?)", [(0, float("inf")), (1, -float("inf")), (2, 0.3), (3, None)]
    )
    got = con.execute(
        f"SELECT id, p FROM ({to_sql(cal, table='t', score_column='s', dialect='sqlite')}) "
        "ORDER BY id"
    ).fetchall()
    assert [g[1] for g in got[:3]] == list(want) and got[3][1] is None
    duck = duckdb.connect()
    duck.execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES (0, 'inf'::DOUBLE), (1, '-inf'::DOUBLE), "
        "(2, 0.3::DOUBLE), (3, NULL), (4, 'nan'::DOUBLE)) AS v(id, s)"
    )
    got = duck.execute(
        f"SELECT id, p FROM ({to_sql(cal, table='t', score_column='s')}) ORDER BY id"
    ).fetchall()
    assert [g[1] for g in got[:3]] == list(want) and got[3][1] is None and got[4][1] is None
    sess = ort.InferenceSession(to_onnx(cal).SerializeToString())
    p = sess.run(["p"], {"score": np.array([np.inf, -np.inf, 0.3, np.nan])})[0]
    assert list(p[:3]) == list(want) and np.isnan(p[3])


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "ansi"])
def test_floats_read_back_bit_for_bit(dialect):
    import duckdb

    bits = np.random.default_rng(5).integers(0, 2**63, 3000, dtype=np.int64)
    x = bits.view(np.float64)
    x = np.concatenate([x[np.isfinite(x)], [5e-324, -0.0, 0.1, 1 / 3, np.finfo(float).max]])
    q = _Query(dialect)
    engines = [duckdb.connect()] if dialect == "duckdb" else [sqlite3.connect(":memory:")]
    if dialect == "ansi":
        engines.append(duckdb.connect())
    for con in engines:
        for chunk in np.array_split(x, 10):
            got = np.array(con.execute("SELECT " + ", ".join(map(q.num, chunk))).fetchone())
            nonzero = chunk != 0  # SQLite keeps no sign of zero; -0.0 == 0.0 everywhere
            assert np.array_equal(got.view(np.int64)[nonzero], chunk.view(np.int64)[nonzero])
            assert np.array_equal(got, chunk)
