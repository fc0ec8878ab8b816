"""One-vs-rest multiclass Venn-Abers in SQL and ONNX: the library's probabilities and
intervals, row for row; and the refusal of the other strategies.

Calibrators with K = 3 and K = 5 classes, pooled and not, with every merge, fitted on
probabilities with exact zeros and ties, on logits and on raw scores, run in DuckDB and
SQLite (their dialects and the ANSI one) and in onnxruntime with its default session
options and with every optimisation. Test rows: the calibration rows, each with one score
moved to its float neighbours, fresh rows, zeros, ties, rows that miss a sum of one by 1e-9,
extreme and subnormal scores; then rows ``predict_proba`` refuses (NaN, infinities, NULL,
text, entries outside [0, 1], sums beyond the tolerance), which give NULL (NaN in ONNX).

Probabilities and raw scores are looked up as given: every number agrees bit for bit (the
tests allow 1e-12). Logits are looked up at ``S_k - logsumexp(S)``, whose ``exp`` and ``log``
the engines do not compute bit for bit as numpy does; away from the calibration keys the
answers agree to 1e-12, and at a calibration row (its key is a breakpoint) a key an ulp off
can take the neighbouring step: the tests bound how often, and check that only that happens.
"""

from __future__ import annotations

import collections
import sqlite3
import warnings

import numpy as np
import pytest

from venncal.calibration import MulticlassVennAbersCalibrator
from venncal.core.class_scores import SUM_TOLERANCE_PER_CLASS, log_sum_exp
from venncal.export import to_onnx, to_sql

ort = pytest.importorskip("onnxruntime")
duckdb = pytest.importorskip("duckdb")

TOL = 1e-12
BIG = float(np.finfo(np.float64).max)
MERGES = ("mean", "log", "square")


def _data(kind, K, n=300, seed=0):
    rng = np.random.default_rng(seed + K)
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    Z = rng.normal(0.0, 2.0, (n, K))
    Z[np.arange(n), y] += 1.5
    if kind == "logits":
        Z[::7] = np.round(Z[::7], 1)  # ties
        return Z, y
    if kind == "raw":
        return np.round(3.0 * Z + 1.0, 2), y
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    P = np.round(P, 2)  # ties, and exact zeros where a probability was below 0.005
    P[rng.random(n) < 0.3, rng.integers(0, K)] = 0.0  # a forest's zeros
    P[P.sum(axis=1) == 0.0] = 1.0
    return P / P.sum(axis=1, keepdims=True), y


def _neighbours(X, j):
    """Rows of ``X`` with column ``j`` moved one float up and one down."""
    up, down = X.copy(), X.copy()
    up[:, j] = np.nextafter(X[:, j], np.inf)
    down[:, j] = np.nextafter(X[:, j], -np.inf)
    return np.vstack([up, down])


def _special(kind, K):
    tiny, sub = 2.2250738585072014e-308, 5e-324
    if kind == "probabilities":
        rows = [
            [1.0] + [0.0] * (K - 1),
            [0.0] * (K - 2) + [0.5, 0.5],
            [1.0 / K] * K,
            [1e-300, 1.0 - 1e-16] + [0.0] * (K - 2),
            [sub, 0.0, 1.0] + [0.0] * (K - 3),
            [tiny, -0.0, 1.0] + [-0.0] * (K - 3),
            list(np.full(K, 1.0 / K) * (1 + 1e-9)),  # misses one by 1e-9: read
            list(np.full(K, 1.0 / K) * (1 - 1e-9)),
        ]
        refused = [
            [0.3] * K,  # sums beyond the tolerance
            [0.0] * K,
            [0.5] * (K - 1) + [-0.5],
            [1.5, -0.5] + [0.0] * (K - 2),
            [1.0 + 2e-16] + [0.0] * (K - 1),
        ]
        # at the tolerance exactly, and one float beyond it
        tol = SUM_TOLERANCE_PER_CLASS * K
        rows.append([1.0 - tol] + [0.0] * (K - 1))
        refused.append([float(np.nextafter(1.0 - tol, 0.0))] + [0.0] * (K - 1))
    else:
        rows = [
            [0.0] * K,
            [-0.0] * K,
            [1e300, -1e300] + [0.0] * (K - 3) + [5.0],
            [1e308, -1e308] + [1e307] * (K - 2),
            [BIG] * K,
            [-BIG] * K,
            [BIG, -BIG] + [0.0] * (K - 2),
            [700.0, -700.0, 1e-300] + [-sub] * (K - 3),
            [sub, -sub, 0.0] + [tiny] * (K - 3),
            [1e-12, 0.0, -1e-12] + [3e-12] * (K - 3),
            [2.0] * K,
        ]
        refused = []
    refused += [
        [np.nan] + [0.1] * (K - 1),
        [0.25, np.inf] + [0.25] * (K - 2),
        [-np.inf] + [0.0] * (K - 2) + [1.0],
    ]
    return np.array(rows, dtype=np.float64), np.array(refused, dtype=np.float64)


def _rows(kind, K):
    """(test rows, is a calibration row or a neighbour of one) and the calibration data."""
    X, y = _data(kind, K)
    near = np.vstack([X[:60]] + [_neighbours(X[:30], j) for j in range(K)])
    fresh, _ = _data(kind, K, n=60, seed=7)
    special, refused = _special(kind, K)
    rows = np.vstack([near, fresh, fresh[:5], special, refused])
    at_cal = np.zeros(rows.shape[0], dtype=bool)
    at_cal[: near.shape[0]] = True
    return rows, at_cal, X, y


def _reference(cal, S):
    """predict_proba and predict_interval of the rows it reads, NaN elsewhere; the rows it
    refuses found one by one."""
    m, K = S.shape
    p, p0, p1 = (np.full((m, K), np.nan) for _ in range(3))
    ok = np.ones(m, dtype=bool)
    for i, row in enumerate(S):
        try:
            cal.predict_proba(row[None, :])
        except ValueError:
            ok[i] = False
    p[ok] = cal.predict_proba(S[ok])
    iv = cal.predict_interval(S[ok])
    p0[ok], p1[ok] = iv[:, :, 0], iv[:, :, 1]
    return {"p": p, "p0": p0, "p1": p1}


def _names(K):
    return [f"{o}_{k}" for o in ("p", "p0", "p1") for k in range(K)]


class _Tables:
    """The rows loaded into DuckDB and SQLite, plus one row with NULL (DuckDB) or a text
    (SQLite) among its scores, id -1."""

    def __init__(self, S):
        K = S.shape[1]
        self.S, self.K = S, K
        cols = [f"s{j}" for j in range(K)]
        self.duck = duckdb.connect()
        self.duck.execute(f"CREATE TABLE t (id BIGINT, {', '.join(c + ' DOUBLE' for c in cols)})")
        data = [(i, *map(float, r)) for i, r in enumerate(S)]
        self.duck.executemany(f"INSERT INTO t VALUES (?{', ?' * K})", data)
        self.duck.execute(f"INSERT INTO t VALUES (-1, NULL{', 0.5' * (K - 1)})")
        self.lite = sqlite3.connect(":memory:")
        self.lite.execute(f"CREATE TABLE t (id INTEGER, {', '.join(c + ' REAL' for c in cols)})")
        data = [(i, *[None if np.isnan(v) else float(v) for v in r]) for i, r in enumerate(S)]
        self.lite.executemany(f"INSERT INTO t VALUES (?{', ?' * K})", data)
        self.lite.execute(f"INSERT INTO t VALUES (-1, 'abc'{', 0.5' * (K - 1)})")
        self.columns = cols

    def fetch(self, con, query):
        names = _names(self.K)
        rows = con.execute(f"SELECT id, {', '.join(names)} FROM ({query}) AS q").fetchall()
        assert len(rows) == self.S.shape[0] + 1  # every row once
        got = np.full((self.S.shape[0], len(names)), np.nan)
        for row in rows:
            if row[0] == -1:
                assert all(v is None for v in row[1:]), row
                continue
            got[row[0]] = [np.nan if v is None else v for v in row[1:]]
        K = self.K
        return {"p": got[:, :K], "p0": got[:, K : 2 * K], "p1": got[:, 2 * K :]}


def _run_onnx(model, S, level=None):
    options = None
    if level is not None:
        options = ort.SessionOptions()
        options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
    session = ort.InferenceSession(model.SerializeToString(), options)
    return dict(zip(("p", "p0", "p1"), session.run(["p", "p0", "p1"], {"scores": S})))


def _row_differences(got, want):
    """Per row: the largest difference over the outputs; inf where NaN-ness differs."""
    out = np.zeros(next(iter(want.values())).shape[0])
    for name in want:
        g, w = got[name], want[name]
        nan_differs = (np.isnan(g) != np.isnan(w)).any(axis=1)
        d = np.where(np.isnan(w) | np.isnan(g), 0.0, np.abs(g - w)).max(axis=1)
        out = np.maximum(out, np.where(nan_differs, np.inf, d))
    return out


def _keys(S):
    with np.errstate(over="ignore"):
        return np.clip(S - log_sum_exp(S)[:, None], -BIG, BIG)


CASES = [
    (kind, K, pooled, merge)
    for kind in ("probabilities", "raw")
    for K in (3, 5)
    for pooled in (True, False)
    for merge in (MERGES if K == 3 else MERGES[:1] if pooled else MERGES[1:])
]


@pytest.fixture(scope="module")
def fitted():
    cache = {}

    def get(kind, K, pooled, merge):
        if (kind, K) not in cache:
            cache[kind, K] = _rows(kind, K)
        rows, at_cal, X, y = cache[kind, K]
        cal = MulticlassVennAbersCalibrator(
            strategy="ovr", pooled=pooled, merge=merge, score_type=kind
        ).fit(X, y)
        return cal, rows, at_cal

    return get


@pytest.mark.parametrize(("kind", "K", "pooled", "merge"), CASES)
def test_exports_match_predict_proba(fitted, kind, K, pooled, merge):
    cal, S, at_cal = fitted(kind, K, pooled, merge)
    want = _reference(cal, S)
    refused = np.isnan(want["p"]).all(axis=1)
    assert refused.any() and not refused.all()
    tables = _Tables(S)
    got = {}
    for con, dialects in ((tables.duck, ("duckdb", "ansi")), (tables.lite, ("sqlite", "ansi"))):
        for dialect in dialects:
            query = to_sql(cal, table="t", score_column=tables.columns, dialect=dialect)
            name = f"{'duckdb' if con is tables.duck else 'sqlite'} {dialect}"
            got[name] = tables.fetch(con, query)
    model = to_onnx(cal)
    got["onnx"] = _run_onnx(model, S)
    got["onnx ORT_ENABLE_ALL"] = _run_onnx(model, S, "ORT_ENABLE_ALL")
    failures = []
    for engine, values in got.items():
        diff = _row_differences(values, want)
        if not diff.max() <= TOL:
            failures.append(f"{engine}: {diff.max():g} in {int((diff > TOL).sum())} rows")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("pooled", [True, False])
def test_logits_are_refused_with_the_way_to_export(pooled):
    """On logits the class keys need the engine's exp and log, an ulp off numpy's on some
    values: at a calibration score that moves a row to the neighbouring step (measured: 0.9%
    of calibration rows in onnxruntime, off by up to 0.0065). Refused, not approximated."""
    X, y = _data("logits", 3)
    cal = MulticlassVennAbersCalibrator(strategy="ovr", pooled=pooled, score_type="logits")
    cal.fit(X, y)
    for export in (lambda c: to_sql(c, table="t", score_column=["a", "b", "c"]), to_onnx):
        with pytest.raises(ValueError, match="score_type='probabilities'") as info:
            export(cal)
        assert "\n" not in str(info.value)


def test_rows_off_one_by_1e9_and_exact_zeros_read_exactly():
    """The cases the module's rows mix, alone: a K = 5 pooled model of probabilities."""
    X, y = _data("probabilities", 5)
    cal = MulticlassVennAbersCalibrator(strategy="ovr", score_type="probabilities").fit(X, y)
    S = np.vstack([X[:20] * (1 + 1e-9), X[:20] * (1 - 1e-9)])
    S[:, 1] = np.where(S[:, 1] < 0.05, 0.0, S[:, 1])
    S = S[np.abs(S.sum(axis=1) - 1) <= SUM_TOLERANCE_PER_CLASS * 5]
    want = cal.predict_proba(S)
    got = _run_onnx(to_onnx(cal), S)["p"]
    assert np.max(np.abs(got - want)) <= TOL
    tables = _Tables(S)
    query = to_sql(cal, table="t", score_column=tables.columns, dialect="sqlite")
    assert np.max(np.abs(tables.fetch(tables.lite, query)["p"] - want)) <= TOL


def _arithmetic(nodes):
    moves = {"Gather", "Split", "Squeeze", "Unsqueeze", "Identity", "Reshape", "Concat"}
    return collections.Counter(n.op_type for n in nodes if n.op_type not in moves)


@pytest.mark.parametrize("level", ["ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED", "ORT_ENABLE_ALL"])
def test_optimiser_changes_no_arithmetic(level, tmp_path):
    import onnx

    for kind, pooled in (("raw", False), ("probabilities", True)):
        X, y = _data(kind, 3)
        cal = MulticlassVennAbersCalibrator(
            strategy="ovr", pooled=pooled, merge="log", score_type=kind
        ).fit(X, y)
        model = to_onnx(cal)
        options = ort.SessionOptions()
        options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
        options.optimized_model_filepath = str(tmp_path / "optimised.onnx")
        options.log_severity_level = 3
        ort.InferenceSession(model.SerializeToString(), options)
        optimised = onnx.load(str(tmp_path / "optimised.onnx"))
        assert _arithmetic(optimised.graph.node) == _arithmetic(model.graph.node), kind
        assert not any(i.data_type == onnx.TensorProto.FLOAT for i in model.graph.initializer)


def test_outputs_and_prefix():
    X, y = _data("probabilities", 3)
    cal = MulticlassVennAbersCalibrator(strategy="ovr").fit(X, y)
    model = to_onnx(cal)
    assert [o.name for o in model.graph.output] == ["p", "p0", "p1"]
    assert [
        d.dim_param or d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim
    ] == [
        "N",
        3,
    ]
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT 0.25 AS s0, 0.75 AS s1, 0.0 AS s2, 9 AS p_1")
    with pytest.raises(duckdb.BinderException, match="(?i)ambiguous"):
        con.execute(to_sql(cal, table="t", score_column=["s0", "s1", "s2"])).fetchall()
    query = to_sql(cal, table="t", score_column=["s0", "s1", "s2"], prefix="c_")
    row = con.execute(f"SELECT p_1, c_p_0, c_p_1, c_p_2, c_p0_1, c_p1_1 FROM ({query})").fetchone()
    want = cal.predict_proba([[0.25, 0.75, 0.0]])[0]
    iv = cal.predict_interval([[0.25, 0.75, 0.0]])[0]
    assert row[0] == 9 and np.allclose(row[1:4], want, rtol=0, atol=TOL)
    assert row[4:] == (iv[1, 0], iv[1, 1])


def test_loaded_model_exports_the_same(tmp_path):
    import venncal
    from tests.persistence.test_light_load import _stand_in

    cols = ["s0", "s1", "s2"]
    for i, (kind, pooled) in enumerate((("probabilities", False), ("raw", True))):
        X, y = _data(kind, 3)
        cal = MulticlassVennAbersCalibrator(
            strategy="ovr", pooled=pooled, merge="square", score_type=kind
        )
        cal.fit(X, y)
        path = venncal.save(cal, tmp_path / f"m{i}.json")
        queries = [to_sql(cal, table="t", score_column=cols, dialect=d) for d in ("duckdb", "ansi")]
        model = to_onnx(cal).SerializeToString()
        for loaded in (venncal.load(path), _stand_in(path)):
            for d, q in zip(("duckdb", "ansi"), queries):
                assert to_sql(loaded, table="t", score_column=cols, dialect=d) == q
            assert to_onnx(loaded).SerializeToString() == model


def _refusal(cal, K=3):
    cols = [f"s{j}" for j in range(K)]
    with pytest.raises(ValueError) as a:
        to_sql(cal, table="t", score_column=cols)
    with pytest.raises(ValueError) as b:
        to_onnx(cal)
    msg = str(a.value)
    assert msg == str(b.value) and "\n" not in msg
    assert msg.startswith("MulticlassVennAbersCalibrator cannot be exported to SQL or ONNX: ")
    return msg


def test_refusals():
    P, y = _data("probabilities", 3, n=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        msgs = {
            c: _refusal(MulticlassVennAbersCalibrator(strategy="pairwise", coupling=c).fit(P, y))
            for c in ("wu2", "wu1", "price")
        }
        auto = _refusal(MulticlassVennAbersCalibrator().fit(P, y))
        top = _refusal(MulticlassVennAbersCalibrator(strategy="top-label").fit(P, y))
    exportable = "exportable: strategy='ovr' (pooled or not, every merge) on probabilities or raw"
    assert "strategy='pairwise'" in msgs["wu2"] and "linear system per row" in msgs["wu2"]
    assert "coupling='wu1'" in msgs["wu1"] and "coupling='price'" in msgs["price"]
    assert "strategy='auto' resolved to 'pairwise' for its 3 classes" in auto
    assert "coupling='wu2'" in auto
    assert "strategy='top-label'" in top
    assert all(exportable in m for m in [*msgs.values(), auto, top])
    grouped = MulticlassVennAbersCalibrator(strategy="ovr").fit(
        P, y, groups=np.arange(y.shape[0]) % 2
    )
    assert "groups" in _refusal(grouped)
    cal = MulticlassVennAbersCalibrator(strategy="ovr").fit(P, y)
    with pytest.raises(ValueError, match="list of the 3 score columns"):
        to_sql(cal, table="t", score_column="s0")
    with pytest.raises(ValueError, match="names 2 column"):
        to_sql(cal, table="t", score_column=["s0", "s1"])


def test_tables_of_logarithms_of_an_older_version_are_refused():
    from venncal.core.multiclass_venn_abers import fit_tables

    P, y = _data("probabilities", 3, n=200)
    cal = MulticlassVennAbersCalibrator(strategy="ovr", pooled=False).fit(P, y)
    logs = np.log(np.maximum(P, 1e-300))
    cal.tables_ = fit_tables(logs, y, None, 3, "ovr", False, owner="test")
    assert "older version" in _refusal(cal)
