"""Run an exported calibrator in DuckDB, SQLite and onnxruntime, and the library's reference.

Each engine gets a table ``scores(id INTEGER, score DOUBLE)`` loaded once per score set; NaN
is stored as NaN in DuckDB and as NULL in SQLite (which has no NaN). Results come back as
float64 arrays in ``id`` order, NULL as NaN.
"""

from __future__ import annotations

import sqlite3

import numpy as np

BIG = float(np.finfo(np.float64).max)


class Engines:
    """A score set loaded into DuckDB and SQLite, and the arrays for onnxruntime."""

    def __init__(self, scores):
        import duckdb

        self.scores = np.ascontiguousarray(scores, dtype=np.float64)
        self.ids = np.arange(self.scores.shape[0], dtype=np.int64)
        self.duck = duckdb.connect()
        self.duck.execute("CREATE TABLE scores (id BIGINT, score DOUBLE)")
        self.duck.execute(
            "INSERT INTO scores SELECT * FROM (SELECT UNNEST($1) AS id, UNNEST($2) AS score)",
            [self.ids.tolist(), self.scores.tolist()],
        )
        self.lite = sqlite3.connect(":memory:")
        self.lite.execute("CREATE TABLE scores (id INTEGER PRIMARY KEY, score REAL)")
        rows = zip(self.ids.tolist(), [None if np.isnan(v) else v for v in self.scores.tolist()])
        self.lite.executemany("INSERT INTO scores VALUES (?, ?)", rows)

    def _columns(self, rows, names):
        n = self.scores.shape[0]
        arr = np.array(rows, dtype=np.float64).reshape(-1, len(names) + 1)
        out = {}
        for j, name in enumerate(names):
            col = np.full(n, np.nan)
            col[arr[:, 0].astype(np.int64)] = arr[:, j + 1]
            out[name] = col
        return out

    def duckdb(self, query, names):
        cols = ", ".join(names)
        res = self.duck.execute(f"SELECT id, {cols} FROM ({query}) AS q").fetchnumpy()
        n = self.scores.shape[0]
        out = {}
        for name in names:
            col = np.full(n, np.nan)
            vals = np.ma.filled(np.ma.masked_invalid(res[name]).astype(np.float64), np.nan)
            col[np.asarray(res["id"], dtype=np.int64)] = vals
            out[name] = col
        return out

    def sqlite(self, query, names):
        cols = ", ".join(names)
        rows = self.lite.execute(f"SELECT id, {cols} FROM ({query}) AS q").fetchall()
        return self._columns(rows, names)

    def onnx(self, model, names):
        import onnxruntime as ort

        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        out = sess.run(list(names), {"score": self.scores})
        return dict(zip(names, out))


def reference(cal, scores, *, unit=False):
    """The library's p (and p0, p1) for every score, NaN where the export gives NULL/NaN.

    NaN has none; ``±inf`` is predicted as ``±max float``; a calibrator of probabilities has
    none outside [0, 1]. Scores are predicted in two batches, ``|s| <= 1e300`` and the rest,
    since the core standardises a batch in halves when one of its scores would overflow
    (the exports decide score by score).
    """
    s = np.clip(scores, -BIG, BIG)
    ok = ~np.isnan(scores)
    if unit:
        ok &= (scores >= 0) & (scores <= 1)
    names = ("p", "p0", "p1") if hasattr(cal, "predict_interval") else ("p",)
    out = {name: np.full(scores.shape[0], np.nan) for name in names}
    for part in (ok & (np.abs(s) <= 1e300), ok & (np.abs(s) > 1e300)):
        if not part.any():
            continue
        out["p"][part] = cal.predict_proba(s[part])[:, 1]
        if "p0" in out:
            interval = cal.predict_interval(s[part])
            out["p0"][part], out["p1"][part] = interval[:, 0], interval[:, 1]
    return out


def max_difference(got, want):
    """The largest |got - want| where both are numbers; inf if they disagree on NaN."""
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return np.inf
    both = ~np.isnan(want)
    return float(np.max(np.abs(got[both] - want[both]), initial=0.0))
