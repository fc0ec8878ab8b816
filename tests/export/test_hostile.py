"""Hostile models and tables: exports stay exact under an engine's defaults, and what is not a
number gives NULL.

* ONNX models run by onnxruntime with its default session options (graph optimisation on)
  equal ``predict_proba`` to 1e-12 for calibrators fitted on scores of extreme magnitude
  (near 1e-300, subnormal, near 1e308) and for parameters within a float32 rounding of 0
  or 1, on scores from -max float to max float; the optimiser changes no arithmetic node at
  any level.
* SQL: NaN, text and blobs give NULL in DuckDB and SQLite, in their dialects and the ANSI one.
* An output column named like a column of the table is an error of the engine, not a mix-up.
"""

from __future__ import annotations

import collections
import dataclasses
import sqlite3
import warnings

import numpy as np
import pytest

from tests.export._engines import BIG, max_difference, reference
from venncal.calibration import (
    BayesianBinningCalibrator,
    BetaCalibrator,
    HistogramCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    QuadraticCalibrator,
    ScalingBinningCalibrator,
    TemperatureCalibrator,
    VennAbersCalibrator,
)
from venncal.export import EXPORTABLE, to_onnx, to_sql
from venncal.export._plan import plan_of

ort = pytest.importorskip("onnxruntime")

TOL = 1e-12
TINY = 5e-324


def _fitted(magnitude, seed=0):
    """Every exportable calibrator fitted on log-odds times ``magnitude`` (the calibrators of
    probabilities on probabilities in [0, min(magnitude, 1)])."""
    rng = np.random.default_rng(seed)
    z = np.round(rng.normal(0.0, 2.0, 400), 2)
    y = (rng.random(400) < 1 / (1 + np.exp(-z))).astype(int)
    s = z * magnitude
    u = np.abs(z) / np.abs(z).max() * min(magnitude, 1.0)
    out = [
        (VennAbersCalibrator(), s),
        (IsotonicCalibrator(), s),
        (IsotonicCalibrator(rule="nearest"), s),
        (PlattCalibrator(), s),
        (HistogramCalibrator(n_bins=6), s),
        (BayesianBinningCalibrator(), s),
        (BetaCalibrator(score_scale="logit"), s),
        (BetaCalibrator(), u),
        (QuadraticCalibrator(score_scale="logit"), s),
        (QuadraticCalibrator(), u),
        (ScalingBinningCalibrator(n_bins=5), s),
        (TemperatureCalibrator(), s),
    ]
    return [(cal.fit(x, y), x) for cal, x in out]


def _scores(fit_scores):
    """The calibration scores and their neighbours, a log grid over every magnitude of both
    signs, subnormals, zeros, the largest floats, infinities and NaN."""
    grid = np.logspace(-323, 308, 400)
    base = np.concatenate(
        [fit_scores, grid, -grid, [0.0, -0.0, TINY, -TINY, 1e-310, -1e-310, 2.2e-308, 1.0]]
    )
    base = np.concatenate([base, [BIG, -BIG, np.inf, -np.inf, np.nan]])
    with np.errstate(over="ignore"):
        return np.concatenate([base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf)])


def _run_onnx(model, scores, options=None):
    """onnxruntime with its defaults, or with ``options``."""
    sess = ort.InferenceSession(model.SerializeToString(), options)
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, {"score": scores})))


@pytest.mark.parametrize("magnitude", [1e-300, 1e-310, 1e-320, 1.0, 1e300])
def test_onnx_exact_under_default_session_options(magnitude):
    failures = []
    fitted = _fitted(magnitude)
    # test_classes.py, test_multiclass_venn_abers_export.py
    k_class_only = {
        "MatrixScalingCalibrator",
        "DirichletCalibrator",
        "MulticlassVennAbersCalibrator",
    }
    assert {type(c).__name__ for c, _ in fitted} == set(EXPORTABLE) - k_class_only
    for cal, fit_scores in fitted:
        scores = _scores(fit_scores)
        with warnings.catch_warnings():
            # beta calibration of log-odds warns of an overflow of a ln(1 + e^s) for s near
            # the largest float (its probability, 0 or 1, is right)
            warnings.filterwarnings("ignore", "overflow encountered in multiply")
            want = reference(cal, scores, unit=plan_of(cal).unit)
        got = _run_onnx(to_onnx(cal), scores)
        for name in want:
            diff = max_difference(got[name], want[name])
            if not diff <= TOL:
                failures.append(f"{cal!r} at {magnitude:g}, {name}: {diff:g}")
    assert not failures, "\n".join(failures)


def _platt_scaled(scale, center=0.0):
    """A Platt map on scores standardised by ``scale`` (1 + 1e-8: within a float32 rounding of
    1, which the optimiser took for 1)."""
    rng = np.random.default_rng(1)
    s = rng.normal(0.0, 2.0, 300)
    cal = PlattCalibrator().fit(s, (rng.random(300) < 1 / (1 + np.exp(-s))).astype(int))
    cal.sigmoid_ = dataclasses.replace(
        cal.sigmoid_, center=center, scale=scale, a_scaled=-1.0, b_scaled=1e-9
    )
    return cal


@pytest.mark.parametrize(
    ("scale", "center"), [(1 + 1e-8, 0.0), (1 - 3e-8, 0.0), (1.0, 1e-9), (1 + 1e-6, 1e-300)]
)
def test_onnx_parameters_near_float32_zero_and_one(scale, center):
    cal = _platt_scaled(scale, center)
    scores = np.concatenate([np.linspace(-40, 40, 801), _scores(np.zeros(0))])
    want = reference(cal, scores)["p"]
    got = _run_onnx(to_onnx(cal), scores)["p"]
    assert max_difference(got, want) <= TOL
    # the parameter matters at this tolerance: the map with scale 1 and center 0 differs
    plain = _platt_scaled(1.0, 0.0)
    assert max_difference(reference(plain, scores)["p"], want) > 10 * TOL


def _arithmetic(nodes):
    """The nodes that compute (data movement excluded: the optimiser may turn the gathers of
    the graph's numbers into one Split and Squeezes)."""
    moves = {"Gather", "Split", "Squeeze", "Unsqueeze", "Identity", "Reshape"}
    return collections.Counter(n.op_type for n in nodes if n.op_type not in moves)


@pytest.mark.parametrize(
    "level", ["ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED", "ORT_ENABLE_LAYOUT", "ORT_ENABLE_ALL"]
)
def test_optimiser_changes_no_arithmetic(level, tmp_path):
    import onnx

    if not hasattr(ort.GraphOptimizationLevel, level):
        pytest.skip(f"onnxruntime {ort.__version__} has no {level}")
    from tests.export.test_classes import _calibrators

    k_class = _calibrators("probabilities")[::2]  # temperature, Dirichlet, matrix scalings
    for cal in [c for c, _ in _fitted(1e-300)[::2] + _fitted(1.0)[1::2]] + k_class:
        model = to_onnx(cal)
        options = ort.SessionOptions()
        options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
        options.optimized_model_filepath = str(tmp_path / "optimised.onnx")
        options.log_severity_level = 3  # the warning that the saved graph is host-specific
        ort.InferenceSession(model.SerializeToString(), options)
        optimised = onnx.load(str(tmp_path / "optimised.onnx"))
        assert _arithmetic(optimised.graph.node) == _arithmetic(model.graph.node), cal


# ---------------------------------------------------------------- SQL: NULL for non-numbers

_CALS = (
    VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8, 0.5, 0.0], [0, 0, 1, 1, 1, 0]),
    PlattCalibrator().fit([0.1, 0.4, 0.35, 0.8, 0.5, 0.0], [0, 0, 1, 1, 1, 0]),
)
_NUMBERS = [0.5, 0.0, 3, 2**62 + 1, float("inf"), float("-inf"), -0.25, 1e-310]


def _want(cal, values):
    s = np.array([float(v) for v in values])
    return reference(cal, s)


def _check(rows, cal, names, values, is_number):
    """rows: (id, *names) for the ids of ``values``; NULL where ``is_number`` is False."""
    got = {row[0]: row[1:] for row in rows}
    numbers = [i for i, ok in enumerate(is_number) if ok]
    want = _want(cal, [values[i] for i in numbers])
    for k, i in enumerate(numbers):
        for j, name in enumerate(names):
            assert got[i][j] == want[name][k], (cal, name, values[i], got[i][j])
    for i, ok in enumerate(is_number):
        if not ok:
            assert all(v is None for v in got[i]), (cal, values[i], got[i])


# text and blobs SQLite would cast to a number (0, 0.5 or inf): not numbers
_SQLITE_OTHERS = ["abc", "", "0.5abc", b"\x00\x01", b"0.5", "1e999abc", " ", "nan", "Inf", None]


@pytest.mark.parametrize("dialect", ["sqlite", "ansi"])
@pytest.mark.parametrize("declared", ["REAL", "", "TEXT", "NUMERIC"])
def test_sqlite_text_and_blobs_give_null(dialect, declared):
    """A number gives its probability, whether stored as a number or as a text that spells
    it (which a TEXT column holds); other texts and blobs give NULL."""
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE TABLE t (id INTEGER, s {declared})")
    spelled = ["0.25", "7", "1e-3"]
    values = _NUMBERS + spelled + _SQLITE_OTHERS
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(values)))
    is_number = [i < len(_NUMBERS) + len(spelled) for i in range(len(values))]
    if declared == "TEXT":  # SQLite stores infinities there as 'Inf', which it cannot read
        is_number = [
            ok and not (isinstance(v, float) and np.isinf(v)) for v, ok in zip(values, is_number)
        ]
    for cal in _CALS:
        names = ("p", "p0", "p1") if hasattr(cal, "predict_interval") else ("p",)
        query = to_sql(cal, table="t", score_column="s", dialect=dialect)
        rows = con.execute(f"SELECT id, {', '.join(names)} FROM ({query})").fetchall()
        _check(rows, cal, names, values, is_number)


@pytest.mark.parametrize("dialect", ["duckdb", "ansi"])
def test_duckdb_nan_gives_null(dialect):
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE t (id BIGINT, s DOUBLE)")
    values = [*map(float, _NUMBERS), float("nan"), -float("nan"), None]
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(values)))
    for cal in _CALS:
        names = ("p", "p0", "p1") if hasattr(cal, "predict_interval") else ("p",)
        query = to_sql(cal, table="t", score_column="s", dialect=dialect)
        rows = con.execute(f"SELECT id, {', '.join(names)} FROM ({query})").fetchall()
        _check(rows, cal, names, values, [i < len(_NUMBERS) for i in range(len(values))])


def test_duckdb_text_that_is_not_a_number_gives_null():
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE t (id BIGINT, s VARCHAR)")
    values = ["0.5", "-0.25", "inf", "abc", "", "0.5abc", "nan", None]
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(values)))
    for cal in _CALS:
        names = ("p", "p0", "p1") if hasattr(cal, "predict_interval") else ("p",)
        rows = con.execute(
            f"SELECT id, {', '.join(names)} FROM ({to_sql(cal, table='t', score_column='s')})"
        ).fetchall()
        _check(rows, cal, names, values, [i < 3 for i in range(len(values))])


# ------------------------------------------------------------- SQL: output names that collide


def _engines_with_p():
    import duckdb

    duck = duckdb.connect()
    duck.execute("CREATE TABLE t AS SELECT 0.3::DOUBLE AS s, 7.0::DOUBLE AS p, 1 AS p1")
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE t (s REAL, p REAL, p1 INTEGER)")
    lite.execute("INSERT INTO t VALUES (0.3, 7.0, 1)")
    return [(duck, "duckdb"), (duck, "ansi"), (lite, "sqlite"), (lite, "ansi")]


@pytest.mark.parametrize("cal", _CALS, ids=["venn-abers", "platt"])
def test_output_named_like_an_input_column_is_an_error_or_renamed(cal):
    for con, dialect in _engines_with_p():
        query = to_sql(cal, table="t", score_column="s", dialect=dialect)
        with pytest.raises(Exception, match="(?i)ambiguous"):
            con.execute(f"SELECT * FROM ({query}) AS q").fetchall()
        query = to_sql(cal, table="t", score_column="s", dialect=dialect, prefix="cal_")
        row = con.execute(f"SELECT p, cal_p FROM ({query}) AS q").fetchone()
        assert row == (7.0, cal.predict_proba([0.3])[0, 1])


def test_bad_prefix():
    for prefix in ("1x", "p;", "a b", None, '"p"'):
        with pytest.raises(ValueError, match="'prefix' parameter of to_sql"):
            to_sql(_CALS[1], table="t", score_column="s", prefix=prefix)
