"""The SQL query of a K-class calibrator: K score columns in, K probability columns out.

The distinct rows of the K scores are read as the calibrator reads them (NULL for a row with
a score that is NULL, NaN, infinite or not a number; for a map of probabilities, outside
[0, 1] or not summing to one), mapped by the plan's stages (:mod:`venncal.export._plan`),
one common table expression each, and joined back to every row of the table. A row's maximum
is ``greatest`` in DuckDB, SQLite's ``max`` of several arguments, and pairwise ``CASE``
expressions in the ``ansi`` query (SQLite has no ``GREATEST``), which makes that query grow
as ``K^2 log K``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal.export._order import numpy_sum, plus
from venncal.export._plan import (
    BIG,
    Affine,
    Floor,
    Plan,
    Scale,
    SmoothedLogSoftmax,
    StandardisedLogits,
)
from venncal.export._sql_functions import sql_exp

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal.export._sql import _Query

__all__ = ["class_query", "join_back"]

_TINY = 2.2250738585072014e-308  # the smallest normal float64
_GREATEST = {"duckdb": "greatest", "sqlite": "max"}


class _Rows:
    """The CTEs of one K-class query: each carries the keys ``s0..`` and K columns."""

    def __init__(self, q: _Query, K: int) -> None:
        self.q = q
        self.K = K
        self.keys = ", ".join(f"s{j}" for j in range(K))

    def step(self, prev: str, exprs: list[str], name: str = "x", extra: str = "") -> str:
        """``SELECT keys, exprs[j] AS {name}j [, extra] FROM prev``."""
        cols = ", ".join(f"{e} AS {name}{j}" for j, e in enumerate(exprs))
        return self.q.add(f"SELECT {self.keys}, {cols}{extra} FROM {prev}", "c")

    def each(self, prev: str, form: str, src: str = "x", name: str = "x") -> str:
        """A CTE applying ``form`` (with ``{v}`` the column) to every column ``src``j."""
        return self.step(prev, [form.format(v=f"{src}{j}") for j in range(self.K)], name)

    def greatest(self, col: str) -> str:
        cols = [f"{col}{j}" for j in range(self.K)]
        if self.q.dialect == "ansi":  # no GREATEST in SQLite: a tournament of CASEs
            return _tournament(cols)
        return f"{_GREATEST[self.q.dialect]}({', '.join(cols)})"

    def total(self, col: str) -> str:
        """The sum of the columns ``col``j, added in numpy's order."""
        return numpy_sum([f"{col}{j}" for j in range(self.K)], plus)

    def with_max(self, prev: str, src: str = "x") -> str:
        """The columns ``src``j and their row maximum ``m``."""
        cols = [f"{src}{j}" for j in range(self.K)]
        return self.step(prev, cols, src, f", {self.greatest(src)} AS m")


def _tournament(cols: list[str]) -> str:
    """The largest of ``cols`` by pairwise CASEs (each column written about K times)."""
    if len(cols) == 1:
        return cols[0]
    half = len(cols) // 2
    a, b = _tournament(cols[:half]), _tournament(cols[half:])
    return f"CASE WHEN {a} >= {b} THEN {a} ELSE {b} END"


def _softmax(r: _Rows, prev: str, src: str = "x") -> str:
    """Columns ``x``j: exp(src - max) / sum, as the core computes a softmax."""
    m = r.with_max(prev, src)
    e = r.each(m, sql_exp("{v} - m"), src, "e")
    return r.step(e, [f"e{j} / {r.total('e')}" for j in range(r.K)])


def _read(r: _Rows, prev: str, plan: Plan) -> str:
    """Columns ``x``j: the class log-scores of the rows (s0..)."""
    read = plan.classes
    assert read is not None
    q = r.q
    if read.score_type == "probabilities":
        tiny = q.num(read.log_tiny)
        ln = r.each(prev, f"CASE WHEN {{v}} > 0.0 THEN LN({{v}}) ELSE {tiny} END", "s")
        return r.each(ln, f"CASE WHEN {{v}} < {tiny} THEN {tiny} ELSE {{v}} END")
    if read.score_type == "logits" and read.log_softmax:
        # t = s - logsumexp(s), logsumexp(s) = m + ln sum exp(s - m) with m the row's maximum
        m = q.add(f"SELECT {r.keys}, {r.greatest('s')} AS m FROM {prev}", "c")
        e = r.step(m, [sql_exp(f"s{j} - m") for j in range(r.K)], "e", ", m")
        lse = q.add(f"SELECT {r.keys}, m + LN({r.total('e')}) AS lse FROM {e}", "c")
        return r.each(lse, "{v} - lse", "s")
    return r.each(prev, "{v}", "s")


def _stage(r: _Rows, prev: str, st: object) -> str:
    q = r.q
    if isinstance(st, Floor):
        v = q.num(st.value)
        return r.each(prev, f"CASE WHEN {{v}} < {v} THEN {v} ELSE {{v}} END")
    if isinstance(st, Scale):
        return r.each(prev, f"{q.num(st.factor)} * {{v}}")
    if isinstance(st, SmoothedLogSoftmax):
        P = _softmax(r, prev)
        if st.c == 0:
            tiny, floor = q.num(_TINY), q.num(st.floor)
            up = r.each(P, f"LN(CASE WHEN {{v}} < {tiny} THEN {tiny} ELSE {{v}} END)")
            return r.each(up, f"CASE WHEN {{v}} < {floor} THEN {floor} ELSE {{v}} END")
        a, b = q.num(1.0 - st.c), q.num(st.c / r.K)
        return r.each(P, f"LN({a} * {{v}} + {b})")
    if isinstance(st, StandardisedLogits):
        m = r.with_max(prev)
        d = r.each(m, f"(0.5 * {{v}} - 0.5 * m) / {q.num(st.scale)}")
        lo = q.num(-1e300)
        X = r.each(d, f"CASE WHEN {{v}} < {lo} THEN {lo} ELSE {{v}} END")
        if st.beta > 0:
            return r.each(X, f"{q.num(st.beta)} * {{v}}")
        return r.each(X, "0.0")
    assert isinstance(st, Affine)
    exprs = []
    for k in range(r.K):
        if st.weights is None:
            u = f"x{k}"
        else:
            terms = [f"{q.num(w)} * x{j}" for j, w in enumerate(st.weights[k]) if w != 0.0]
            u = "(" + (" + ".join(terms) or "0.0") + ")"
            if st.identity:
                u = f"(x{k} + {u})"
        exprs.append(f"{u} + {q.num(st.bias[k])}")
    return r.step(prev, exprs)


def class_query(
    q: _Query, plan: Plan, table: str, columns: list[str], names: list[str], value: object
) -> str:
    """The final SELECT of a K-class query (its CTEs added to ``q``).

    ``value(column)`` is the expression of a column's score (NULL where not a number);
    ``names`` the output columns, one per class.
    """
    read = plan.classes
    assert read is not None
    K = read.n_classes
    r = _Rows(q, K)
    big = q.num(BIG)
    keys = [value(c) for c in columns]  # type: ignore[operator]
    inner = ", ".join(f"{k} AS s{j}" for j, k in enumerate(keys))
    ok = [f"s{j} <= {big} AND s{j} >= -{big}" for j in range(K)]
    if read.score_type == "probabilities":
        ok += [f"s{j} >= 0.0 AND s{j} <= 1.0" for j in range(K)]
        if read.sum_tolerance is not None:
            ok.append(f"ABS({r.total('s')} - 1.0) <= {q.num(read.sum_tolerance)}")
    rows = q.add(
        f"SELECT DISTINCT {r.keys} FROM (SELECT {inner} FROM {table}) AS venncal_v "
        f"WHERE {' AND '.join(ok)}",
        "s",
    )
    x = _read(r, rows, plan)
    for stage in plan.stages:
        x = _stage(r, x, stage)
    p = _softmax(r, x)
    cols = ", ".join(f"x{j} AS {name}" for j, name in enumerate(names))
    out = q.add(f"SELECT {r.keys}, {cols} FROM {p}", "o")
    return join_back(q, out, table, columns, names, value)  # type: ignore[arg-type]


def join_back(
    q: _Query,
    out: str,
    table: str,
    columns: list[str],
    names: list[str],
    value: Callable[[str], str],
) -> str:
    """Every row of ``table`` with the output columns ``names`` of its scores, read from the
    distinct rows ``out`` (keyed ``s0, s1, ...`` on the K ``columns``, read by ``value``);
    NULL where ``out`` has no row. SQLite: a correlated subquery per column, checked to be
    NULL on no row (a guard the query planner cannot drop); other engines: a LEFT JOIN."""
    match = [f"o.s{j} = {value('t.' + c)}" for j, c in enumerate(columns)]
    if q.dialect == "sqlite":
        where = " AND ".join(match)
        picks = ", ".join(f"(SELECT o.{c} FROM {out} AS o WHERE {where}) AS {c}" for c in names)
        guard = ", ".join(f"NULL AS {c}" for c in names)
        check = " AND ".join(f"{c} IS NULL" for c in names)
        return (
            f"SELECT t.*, {picks} FROM {table} AS t CROSS JOIN (SELECT {guard}) AS venncal_g "
            f"WHERE {check}"
        )
    return (
        f"SELECT t.*, {', '.join(names)} FROM {table} AS t LEFT JOIN {out} AS o "
        f"ON {' AND '.join(match)}"
    )
