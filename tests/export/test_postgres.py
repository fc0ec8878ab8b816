"""The ANSI SQL export in PostgreSQL, a third engine: the library's numbers, unchanged query.

PostgreSQL runs from the ``pgserver`` wheel (the server's own binaries) in a temporary folder,
reached through ``pg8000``. Every exportable calibrator of the conformance data sets is run on
2x10^4 of the finite adversarial scores within the span of its data (ties, values on the
steps, their neighbouring floats, scores outside the calibration range) and on NULL.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.export._engines import max_difference, reference
from tests.export.test_conformance import TOL, _is_lookup, _setting
from venncal.export import to_sql
from venncal.export._plan import plan_of

with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
    warnings.simplefilter("ignore")
    pgserver = pytest.importorskip("pgserver")
    pg8000 = pytest.importorskip("pg8000.native")


@pytest.fixture(scope="module")
def postgres(tmp_path_factory):
    """A connection to a PostgreSQL server of its own, stopped and removed at the end."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pgserver.get_server(tmp_path_factory.mktemp("pgdata"), cleanup_mode="delete")
    try:
        host = server.get_uri().split("host=")[1]
        con = pg8000.Connection("postgres", unix_sock=f"{host}/.s.PGSQL.5432")
        yield con
        con.close()
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()


def _load(con, scores):
    """The table scores(id, score) of these scores, NaN stored as NULL."""
    con.run("DROP TABLE IF EXISTS scores")
    con.run("CREATE TABLE scores (id BIGINT, score DOUBLE PRECISION)")
    values = [None if np.isnan(v) else v for v in scores.tolist()]
    con.run(
        "INSERT INTO scores SELECT * FROM UNNEST(CAST(:ids AS BIGINT[]), "
        "CAST(:s AS DOUBLE PRECISION[]))",
        ids=list(range(len(values))),
        s=values,
    )


def _run(con, query, names, n):
    rows = con.run(f"SELECT id, {', '.join(names)} FROM ({query}) AS q")
    out = {name: np.full(n, np.nan) for name in names}
    for row in rows:
        for name, value in zip(names, row[1:]):
            out[name][row[0]] = np.nan if value is None else float(value)
    return out


@pytest.mark.parametrize("kind", ["ties", "weighted", "logits"])
def test_ansi_query_runs_unchanged_with_the_library_numbers(postgres, kind):
    fitted, engines = _setting(kind)
    scores = engines.scores
    finite = scores[np.isfinite(scores)]
    lo, hi = np.quantile(finite, [0.01, 0.99])
    inside = np.abs(scores - (lo + hi) / 2) <= 2 * (hi - lo)  # False for NaN and infinities
    # PostgreSQL raises an error where IEEE arithmetic underflows to a subnormal or to 0
    inside &= (np.abs(scores) >= 1e-300) | (scores == 0)
    rng = np.random.default_rng(0)  # a sample of them, and one NULL
    chosen = np.r_[rng.choice(scores[inside], 20_000, replace=False), np.nan]
    _load(postgres, chosen)
    failures = []
    for cal in fitted:
        plan = plan_of(cal)
        want = reference(cal, chosen, unit=plan.unit)
        query = to_sql(cal, table="scores", score_column="score", dialect="ansi")
        got = _run(postgres, query, tuple(want), chosen.shape[0])
        tol = 0.0 if _is_lookup(plan) else TOL
        for name in want:
            diff = max_difference(got[name], want[name])
            if not diff <= tol:
                failures.append(f"{cal!r} {name}: {diff:g}")
    assert not failures, "\n".join(failures)


def test_exp_that_underflows_gives_zero_not_an_error(postgres):
    """PostgreSQL raises an error for EXP of a large negative argument, which IEEE engines
    round to 0: a Platt map on margins far from the calibration range reaches it."""
    from venncal.calibration import PlattCalibrator

    rng = np.random.default_rng(5)
    s = rng.normal(0.0, 3.0, 500)
    y = (rng.random(500) < 1 / (1 + np.exp(-2 * s))).astype(int)
    cal = PlattCalibrator().fit(s, y)
    scores = np.linspace(-4000.0, 4000.0, 4001)
    _load(postgres, scores)
    want = reference(cal, scores)
    query = to_sql(cal, table="scores", score_column="score", dialect="ansi")
    got = _run(postgres, query, tuple(want), scores.shape[0])
    assert max_difference(got["p"], want["p"]) <= TOL
    assert (want["p"] == 0).any() and (want["p"] == 1).any()  # the map reaches both ends


def test_nan_and_infinities(postgres):
    """PostgreSQL orders NaN after every number (+inf included) and takes it as equal to
    itself: the query tells it from +inf and gives it NULL, as DuckDB and SQLite do. (Platt
    is run without the infinities: its arithmetic on the largest float overflows, which
    PostgreSQL raises as an error.)"""
    from venncal.calibration import PlattCalibrator, VennAbersCalibrator

    postgres.run("DROP TABLE IF EXISTS special")
    postgres.run("CREATE TABLE special (id BIGINT, score DOUBLE PRECISION)")
    postgres.run(
        "INSERT INTO special VALUES (0, 0.25), (1, 'Infinity'), (2, '-Infinity'), (3, 'NaN'), "
        "(4, NULL)"
    )
    rng = np.random.default_rng(2)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    scores = np.array([0.25, np.inf, -np.inf, np.nan, np.nan])
    for cal in (VennAbersCalibrator().fit(s, y), PlattCalibrator().fit(s, y)):
        if isinstance(cal, PlattCalibrator):
            postgres.run("DELETE FROM special WHERE id IN (1, 2)")
            scores[1:3] = np.nan
        want = reference(cal, scores)
        query = to_sql(cal, table="special", score_column="score", dialect="ansi")
        got = _run(postgres, query, tuple(want), scores.shape[0])
        for name in want:
            assert max_difference(got[name], want[name]) <= TOL, (cal, name)


def test_k_class_ansi_query(postgres):
    """The K-class query (row maxima written as CASE) in PostgreSQL: predict_proba's numbers,
    NULL for the rows it refuses."""
    from tests.export.test_classes import COLUMNS, NAMES, _calibrators, _reference, _rows

    for kind in ("logits", "probabilities"):
        S = _rows(kind)
        # PostgreSQL raises an error where IEEE arithmetic underflows or overflows: no
        # scores within 1e-200 of zero (but zero) or beyond 1e300
        tiny = (np.abs(S) < 1e-200) & (S != 0)
        S = S[np.all(np.isfinite(S), axis=1) & (np.abs(S).max(axis=1) < 1e300) & ~tiny.any(axis=1)]
        postgres.run("DROP TABLE IF EXISTS k")
        cols = ", ".join(f"{c} DOUBLE PRECISION" for c in COLUMNS)
        postgres.run(f"CREATE TABLE k (id BIGINT, {cols})")
        for i, row in enumerate(S.tolist()):
            postgres.run(f"INSERT INTO k VALUES ({i}, {', '.join(map(repr, row))})")
        for cal in _calibrators(kind)[::2]:
            want = _reference(cal, S)
            query = to_sql(cal, table="k", score_column=COLUMNS, dialect="ansi")
            got = np.full(S.shape, np.nan)
            for row in postgres.run(f"SELECT id, {', '.join(NAMES)} FROM ({query}) AS q"):
                got[row[0]] = [np.nan if v is None else float(v) for v in row[1:]]
            assert np.array_equal(np.isnan(got), np.isnan(want)), cal
            assert np.nanmax(np.abs(got - want)) <= TOL, cal
