"""The SQL query of one-vs-rest multiclass Venn-Abers: K score columns in; per class the
probability ``p_k`` and the Venn-Abers interval ``p0_k``, ``p1_k`` out.

The distinct rows of the K scores are read as the calibrator reads them (NULL for a row with
a score that is NULL, NaN, infinite or not a number; for probabilities, outside [0, 1] or not
summing to one); each class's score is looked
up in its p0 and p1 step tables as the binary Venn-Abers query looks up a score (a running
count over the keys and breakpoints sorted together, then the value picked from the small
table), one class after the other on the same rows, and the merged probabilities are divided
by their row's sum, added in numpy's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal.export._order import numpy_sum, plus
from venncal.export._plan import BIG, Plan, Step
from venncal.export._sql_classes import _Rows, join_back

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal.export._sql import _Query

__all__ = ["venn_abers_class_query"]

_MERGE = {
    "log": "{b} / (1.0 - {a} + {b})",
    "square": "{b} + 0.5 * ({a} * {a} - {b} * {b})",
    "mean": "0.5 * ({a} + {b})",
}


def _lookup_class(
    q: _Query,
    prev: str,
    carried: list[str],
    j: int,
    s0: Step,
    s1: Step,
    step_values: Callable[[_Query, Step], str],
) -> str:
    """The rows of ``prev`` (its columns ``carried``) with ``a{j}``, ``b{j}``: the p0 and p1
    step tables at the key ``x{j}``.

    The rows and the breakpoints of both tables are sorted together by the key; the running
    count of each table's breakpoints (before the keys they equal when they count, after
    them otherwise) is ``np.searchsorted``, and the values are then picked from the small
    tables. No join of the rows with another large relation: an engine that joins by nested
    loops (SQLite) stays fast.
    """
    cols = ", ".join(carried)
    nulls = ", ".join("NULL" for _ in carried)
    parts = [f"SELECT {cols}, x{j} AS venncal_x, 0 AS w, 0 AS w0, 0 AS w1 FROM {prev}"]
    for i, st in enumerate((s0, s1)):
        if st.breaks.shape[0] == 0:  # no breakpoint: its count stays 0
            continue
        rows = ", ".join(f"({q.num(b)})" for b in st.breaks)
        bt = q.add(f"VALUES {rows}", "b", "b")
        flags = "1, 0" if i == 0 else "0, 1"
        parts.append(f"SELECT {nulls}, b, 1, {flags} FROM {bt}")
    union = q.add(" UNION ALL ".join(parts), "u", f"{cols}, venncal_x, w, w0, w1")
    sums = ", ".join(
        f"SUM(w{i}) OVER (ORDER BY venncal_x, w{i} {'DESC' if st.right else 'ASC'} ROWS "
        f"BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS k{i}"
        for i, st in enumerate((s0, s1))
    )
    counted = q.add(
        f"SELECT {cols}, k0, k1 FROM (SELECT {cols}, w, {sums} FROM {union}) AS venncal_w "
        "WHERE w = 0",
        "k",
    )
    v0, v1 = step_values(q, s0), step_values(q, s1)
    picked = ", ".join(f"c.{c}" for c in carried)
    return q.add(
        f"SELECT {picked}, a.v AS a{j}, b.v AS b{j} FROM {counted} AS c CROSS JOIN {v0} AS a "
        f"CROSS JOIN {v1} AS b WHERE a.k = c.k0 AND b.k = c.k1",
        "l",
    )


def venn_abers_class_query(
    q: _Query,
    plan: Plan,
    table: str,
    columns: list[str],
    prefix: str,
    value: Callable[[str], str],
    step_values: Callable[[_Query, Step], str],
) -> tuple[str, list[str]]:
    """The final SELECT of a one-vs-rest multiclass Venn-Abers query (its CTEs added to
    ``q``) and the names of its output columns: ``p_k`` for every class, then ``p0_k`` and
    ``p1_k``. ``step_values`` is the query's table of a step map's values (passed in: the
    query module imports this one)."""
    read, va = plan.classes, plan.venn_abers_classes
    assert read is not None and va is not None
    K = read.n_classes
    r = _Rows(q, K)
    big = q.num(BIG)
    inner = ", ".join(f"{value(c)} AS s{j}" for j, c in enumerate(columns))
    ok = [f"s{j} <= {big} AND s{j} >= -{big}" for j in range(K)]
    if read.score_type == "probabilities":
        ok += [f"s{j} >= 0.0 AND s{j} <= 1.0" for j in range(K)]
        if read.sum_tolerance is not None:
            total = numpy_sum([f"s{j}" for j in range(K)], plus)
            ok.append(f"ABS({total} - 1.0) <= {q.num(read.sum_tolerance)}")
    rows = q.add(
        f"SELECT DISTINCT {r.keys} FROM (SELECT {inner} FROM {table}) AS venncal_v "
        f"WHERE {' AND '.join(ok)}",
        "s",
    )
    x = r.each(rows, "{v}", "s")
    carried = [f"s{j}" for j in range(K)] + [f"x{j}" for j in range(K)]
    pairs = x
    for j in range(K):
        s0, s1 = va.tables[0 if va.pooled else j]
        pairs = _lookup_class(q, pairs, carried, j, s0, s1, step_values)
        carried += [f"a{j}", f"b{j}"]
    merged = ", ".join(
        _MERGE[va.merge].format(a=f"a{j}", b=f"b{j}") + f" AS m{j}" for j in range(K)
    )
    ab = ", ".join(f"a{j}, b{j}" for j in range(K))
    m = q.add(f"SELECT {r.keys}, {ab}, {merged} FROM {pairs}", "c")
    total = numpy_sum([f"m{j}" for j in range(K)], plus)
    ms = ", ".join(f"m{j}" for j in range(K))
    t = q.add(f"SELECT {r.keys}, {ab}, {ms}, {total} AS total FROM {m}", "c")
    names = [f"{prefix}p_{k}" for k in range(K)]
    names += [f"{prefix}p0_{k}" for k in range(K)] + [f"{prefix}p1_{k}" for k in range(K)]
    cols = [f"m{k} / total" for k in range(K)]
    cols += [f"a{k}" for k in range(K)] + [f"b{k}" for k in range(K)]
    out = q.add(
        f"SELECT {r.keys}, {', '.join(f'{c} AS {n}' for c, n in zip(cols, names))} FROM {t}",
        "o",
    )
    return join_back(q, out, table, columns, names, value), names
