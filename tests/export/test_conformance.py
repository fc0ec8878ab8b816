"""The exports give the library's numbers on adversarial scores, in DuckDB, SQLite and ONNX.

Every exportable calibrator (and option that changes its map) is fitted on three data sets
(probabilities with ties; weighted probabilities; log-odds with ties) and run on 10^5 scores
per data set: every breakpoint, calibration score and midpoint of its map, their neighbouring
floats both ways, 0, 1 and their neighbours, tiny and huge scores, ±max float, ±inf, NaN, -0.0
and random scores inside and outside the calibration range. Step maps must agree bit for bit;
maps with LN/EXP within 1e-12.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from tests.export._engines import Engines, max_difference, reference
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
from venncal.export import to_onnx, to_sql
from venncal.export._plan import Interpolate, Nearest, Step, plan_of

N_SCORES = 100_000  # per data set
TOL = 1e-12


def _data(kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "ties":
        s = np.round(rng.random(800), 2)
        return s, (rng.random(800) < s).astype(int), None
    if kind == "weighted":
        s = np.concatenate([rng.beta(2, 5, 500), np.repeat([0.1, 0.25, 0.5], 30)])
        y = (rng.random(s.shape[0]) < s).astype(int)
        return s, y, rng.integers(1, 5, s.shape[0]).astype(float)
    s = np.round(rng.normal(0.0, 3.0, 900), 1)
    return s, (rng.random(900) < 1 / (1 + np.exp(-0.7 * s - 0.3))).astype(int), None


def _calibrators(kind):
    """The calibrators fitted on one data set: every class on each, options spread over them."""
    scale = "logit" if kind == "logits" else "probability"
    i = ("ties", "weighted", "logits").index(kind)
    return [
        VennAbersCalibrator(merge=("log", "square", "mean")[i], decimals=(None, None, 1)[i]),
        IsotonicCalibrator(),
        IsotonicCalibrator(rule="nearest", decimals=(None, 2, None)[i]),
        PlattCalibrator(smoothing=i != 1),
        HistogramCalibrator(
            n_bins=(12, 7, 9)[i],
            strategy=("quantile", "uniform", "quantile")[i],
            decimals=(None, 1, None)[i],
        ),  # fmt: skip
        BayesianBinningCalibrator(),
        BetaCalibrator(parameters=("abm", "am", "abm")[i], score_scale=scale),
        QuadraticCalibrator(score_scale=scale),
        ScalingBinningCalibrator(n_bins=8),
        TemperatureCalibrator(bias=i == 1),
    ]


def _points(plan):
    """Every breakpoint or point of the plan's lookups."""
    out = []
    stages = plan.venn_abers[:2] if plan.venn_abers else plan.stages
    for st in stages:
        if isinstance(st, Step):
            out.append(st.breaks)
        elif isinstance(st, (Nearest, Interpolate)):
            out.append(st.x)
    return np.concatenate(out) if out else np.zeros(0)


def _adversarial(kind, fitted, rng):
    s = _data(kind)[0]
    pts = [s] + [_points(plan_of(cal)) for cal in fitted]
    pts = np.unique(np.concatenate(pts))
    mids = 0.5 * pts[:-1] + 0.5 * pts[1:]
    base = np.concatenate([pts, mids])
    tiny = np.array([5e-324, 1e-300, 2.2250738585072014e-308, 1e-17, 1e-9])
    special = np.concatenate(
        [
            [0.0, -0.0, 1.0, 0.5, np.inf, -np.inf, np.nan, np.nan],
            [np.finfo(float).max, -np.finfo(float).max, 1e300, -1e300, 1e20, -1e20],
            tiny,
            -tiny,
            1.0 - tiny,
            1.0 + tiny,
        ]
    )
    base = np.concatenate([base, special])
    with np.errstate(over="ignore"):
        near = np.concatenate([base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf)])
    lo, hi = float(s.min()), float(s.max())
    width = hi - lo
    fill = N_SCORES - near.shape[0]
    assert fill > N_SCORES // 2
    rand = np.concatenate(
        [
            rng.uniform(lo - 0.5 * width, hi + 0.5 * width, fill // 2),
            rng.choice(pts, fill - fill // 2),  # ties: repeated breakpoints
        ]
    )
    return rng.permutation(np.concatenate([near, rand]))


def _is_lookup(plan):
    """A map whose output is looked up, not computed: bit for bit in every engine."""
    stages = plan.venn_abers[:2] if plan.venn_abers else plan.stages
    return all(isinstance(st, (Step, Nearest)) for st in stages)


@functools.lru_cache(maxsize=1)
def _setting(kind):
    """The fitted calibrators of a data set and its adversarial scores loaded in the engines."""
    s, y, w = _data(kind)
    fitted = [cal.fit(s, y, sample_weight=w) for cal in _calibrators(kind)]
    scores = _adversarial(kind, fitted, np.random.default_rng(1))
    assert scores.shape[0] == N_SCORES
    return fitted, Engines(scores)


CASES = [(kind, i) for kind in ("ties", "weighted", "logits") for i in range(10)]


@pytest.mark.parametrize(("kind", "index"), CASES)
def test_exports_match_predict_proba(kind, index):
    fitted, engines = _setting(kind)
    cal = fitted[index]
    plan = plan_of(cal)
    want = reference(cal, engines.scores, unit=plan.unit)
    names = tuple(want)
    tol = 0.0 if _is_lookup(plan) else TOL
    got = {
        "duckdb": engines.duckdb(to_sql(cal, table="scores", score_column="score"), names),
        "sqlite": engines.sqlite(
            to_sql(cal, table="scores", score_column="score", dialect="sqlite"), names
        ),
        "onnx": engines.onnx(to_onnx(cal), names),
    }
    failures = []
    for engine, cols in got.items():
        for name in names:
            diff = max_difference(cols[name], want[name])
            if not diff <= tol:
                failures.append(f"{cal!r} {engine} {name}: {diff:g}")
    assert not failures, "\n".join(failures)


def test_ansi_dialect_in_duckdb_and_sqlite():
    """The ANSI query (exact integer-times-power-of-two floats) runs unchanged in both."""
    s, y, w = _data("weighted")
    rng = np.random.default_rng(3)
    scores = np.concatenate([rng.uniform(-0.2, 1.2, 600), s[:300], np.nextafter(s[:300], 2)])
    engines = Engines(scores)
    for cal in (
        VennAbersCalibrator().fit(s, y, sample_weight=w),
        IsotonicCalibrator().fit(s, y, sample_weight=w),
        BetaCalibrator().fit(s, y, sample_weight=w),
    ):
        plan = plan_of(cal)
        want = reference(cal, scores, unit=plan.unit)
        query = to_sql(cal, table="scores", score_column="score", dialect="ansi")
        for run in (engines.duckdb, engines.sqlite):
            got = run(query, tuple(want))
            for name in want:
                assert max_difference(got[name], want[name]) <= TOL


def test_every_exportable_class_is_covered():
    from venncal.export import EXPORTABLE

    covered = {type(c).__name__ for kind in ("ties", "logits") for c in _calibrators(kind)}
    # the calibrators of K-class score matrices only: tests/export/test_classes.py and
    # tests/export/test_multiclass_venn_abers_export.py
    k_class_only = {"MatrixScalingCalibrator", "DirichletCalibrator"}
    k_class_only.add("MulticlassVennAbersCalibrator")
    assert covered == set(EXPORTABLE) - k_class_only


def test_one_distinct_calibration_score():
    """Tables of one breakpoint and maps of one point (constant) export too."""
    scores = np.array([-1.0, 0.2, 0.5, np.nextafter(0.5, 1), 0.9, np.nan, np.inf])
    engines = Engines(scores)
    for cal in (
        VennAbersCalibrator().fit([0.5, 0.5], [1, 0]),
        IsotonicCalibrator().fit([0.5, 0.5], [1, 0]),
        IsotonicCalibrator(rule="nearest").fit([0.5, 0.5], [1, 0]),
        BayesianBinningCalibrator().fit([0.5, 0.5], [1, 0]),
        HistogramCalibrator(n_bins=1).fit([0.5, 0.5], [1, 0]),
    ):
        want = reference(cal, scores)
        names = tuple(want)
        for got in (
            engines.duckdb(to_sql(cal, table="scores", score_column="score"), names),
            engines.sqlite(
                to_sql(cal, table="scores", score_column="score", dialect="sqlite"), names
            ),
            engines.onnx(to_onnx(cal), names),
        ):
            for name in names:
                assert max_difference(got[name], want[name]) == 0.0, (cal, name)


def test_sqlite_math_fallback_registers_what_a_build_lacks():
    import math
    import sqlite3

    from venncal.export import register_sqlite_math

    real = sqlite3.connect(":memory:")

    class WithoutMath:  # a build without LN, EXP and FLOOR: the probe fails
        def execute(self, sql):
            raise sqlite3.OperationalError(f"no such function: {sql}")

        def create_function(self, *args, **kwargs):
            return real.create_function(*args, **kwargs)

    assert register_sqlite_math(WithoutMath()) == ["LN", "EXP", "FLOOR"]
    row = real.execute(
        "SELECT LN(2.0), LN(0.0), LN(-1.0), EXP(1.5), EXP(1000.0), FLOOR(-2.5), FLOOR(NULL)"
    ).fetchone()
    assert row == (math.log(2.0), -math.inf, None, math.exp(1.5), math.inf, -3.0, None)
    # a build that has them all gets nothing registered
    assert register_sqlite_math(sqlite3.connect(":memory:")) == []
