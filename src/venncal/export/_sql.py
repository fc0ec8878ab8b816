"""A fitted calibrator as one SQL query: :func:`to_sql`.

The query has three parts:

1. the distinct scores of the table, read as the calibrator reads them (infinities as the
   largest finite score, rounded to its decimals, out of its domain dropped);
2. the map on those scores, one common table expression (CTE) per step: a step table is a
   VALUES list looked up by a running count over the scores and the breakpoints sorted
   together (a window function: ``SUM(is_break) OVER (ORDER BY x ...)`` is the number of
   breakpoints up to each score, i.e. ``np.searchsorted``), then an equality join; a
   parametric map is arithmetic;
3. every row of the table joined to its score's probability (a LEFT JOIN: a NULL score, NaN,
   or a score out of the calibrator's domain gets NULL).

Floats are written so that they read back bit for bit: ``repr`` for DuckDB (whose parser
rounds correctly), and for SQLite and other engines an integer times a power of two,
``CAST(m AS type) / 2^k``, which any IEEE double arithmetic evaluates exactly.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.export._abstain import decision_of, sql_accept
from venncal.export._plan import (
    BIG,
    EPS,
    Beta,
    Interpolate,
    Nearest,
    Quadratic,
    Sigmoid,
    Step,
    Temperature,
    plan_of,
)
from venncal.export._sql_functions import sql_exp, sql_expit, sql_log1p

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["to_sql", "DIALECTS"]  # register_sqlite_math: venncal.export._sqlite_math

#: the SQL dialects :func:`to_sql` writes
DIALECTS = ("duckdb", "sqlite", "ansi")

_DOUBLE = {"duckdb": "DOUBLE", "sqlite": "REAL", "ansi": "DOUBLE PRECISION"}
_PART = r'(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")'
_IDENT = re.compile(rf"{_PART}(?:\.{_PART})*\Z")
_COLUMN = re.compile(rf"{_PART}\Z")


def _check_name(value, name, pattern):
    if not isinstance(value, str) or not pattern.match(value):
        raise ValueError(
            f"The {name!r} parameter of to_sql must be an SQL identifier (letters, digits and "
            f"_, or a double-quoted name{', dotted' if name == 'table' else ''}); "
            f"got {value!r}."
        )
    return value


# a query reading one earlier CTE; SQLite (and PostgreSQL) would inline a chain of them into
# one expression, repeating each column's formula wherever the next one reads it (a clip
# reads its input three times): the cost grows as the product along the chain. A window
# function keeps a subquery from being inlined, so each formula is computed once a row.
_BARE_SOURCE = re.compile(r"FROM (venncal_[a-z]+\d+)\Z")


def _barrier(match):
    name = match.group(1)
    return (
        f"FROM (SELECT venncal_i.*, ROW_NUMBER() OVER () AS venncal_n FROM {name} AS "
        f"venncal_i) AS {name}"
    )


class _Query:
    """Builds the common table expressions of one query."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.ctes: list[tuple[str, str]] = []

    def add(self, body: str, hint: str = "m", columns: str | None = None) -> str:
        name = f"venncal_{hint}{len(self.ctes)}"
        if self.dialect != "duckdb" and hint != "o":
            body = _BARE_SOURCE.sub(_barrier, body)
        self.ctes.append((name if columns is None else f"{name}({columns})", body))
        return name

    def num(self, v: float) -> str:
        """A float64 literal that reads back exactly."""
        v = float(v)
        if not math.isfinite(v):  # pragma: no cover - plans hold finite numbers
            raise ValueError(f"cannot write the non-finite number {v!r} in SQL.")
        if self.dialect == "duckdb":
            r = repr(v)
            r = r if "e" in r else r + "e0"
            return f"({r})" if v < 0 or r.startswith("-") else r
        n, d = v.as_integer_ratio()
        sign = "-" if n < 0 or (n == 0 and math.copysign(1.0, v) < 0) else ""
        n = abs(n)
        e = 0
        while n and n % 2 == 0 and n > (1 << 53):
            n //= 2
            e += 1
        out = f"CAST({n} AS {_DOUBLE[self.dialect]})"
        while e > 0:
            k = min(e, 62)
            out += f" * {1 << k}"
            e -= k
        k_total = d.bit_length() - 1
        while k_total > 0:
            k = min(k_total, 62)
            out += f" / {1 << k}"
            k_total -= k
        return f"({sign}{out})"

    def sql(self, final: str) -> str:
        parts = ",\n".join(f"{name} AS (\n  {body}\n)" for name, body in self.ctes)
        return f"WITH\n{parts}\n{final}\n"


def _arith(q, prev, expr, extra=""):
    """A CTE ``SELECT s, <expr> AS x FROM prev`` (``expr`` reads the column ``x``)."""
    return q.add(f"SELECT s, {expr} AS x{extra} FROM {prev}", "a")


def _counts(q: _Query, prev: str, tables: list[tuple[np.ndarray, bool]]) -> str:
    """CTE of (s, x, k0, k1, ...): ``k_i`` the number of breakpoints of ``tables[i]`` that
    are <= x (``right``) or < x, for ``tables`` a list of ``(breaks, right)``.

    The scores and every table's breakpoints are sorted together; ``k_i`` is the running
    count of table i's breakpoints, which come before the scores they equal when they count
    (``ORDER BY x, w_i DESC``) and after them otherwise.
    """
    n = len(tables)
    zeros = ", ".join("0" for _ in range(n))
    parts = [f"SELECT s, x, 0 AS w, {zeros} FROM {prev}"]
    for i, (breaks, _) in enumerate(tables):
        if len(breaks) == 0:  # no breakpoint: its count stays 0
            continue
        rows = ", ".join(f"({q.num(b)})" for b in breaks)
        bt = q.add(f"VALUES {rows}", "b", "b")
        flags = ", ".join("1" if j == i else "0" for j in range(n))
        parts.append(f"SELECT NULL, b, 1, {flags} FROM {bt}")
    cols = ", ".join(f"w{i}" for i in range(n))
    union = q.add(" UNION ALL ".join(parts), "u", f"s, x, w, {cols}")
    sums = ", ".join(
        f"SUM(w{i}) OVER (ORDER BY x, w{i} {'DESC' if right else 'ASC'} ROWS BETWEEN "
        f"UNBOUNDED PRECEDING AND CURRENT ROW) AS k{i}"
        for i, (_, right) in enumerate(tables)
    )
    ks = ", ".join(f"k{i}" for i in range(n))
    return q.add(
        f"SELECT s, x, {ks} FROM (SELECT s, x, w, {sums} FROM {union}) AS venncal_w WHERE w = 0",
        "k",
    )


def _table(q, columns, rows):
    """A VALUES CTE with integer ``k`` first; None entries are NULL."""

    def cell(v):
        if v is None:
            return "NULL"
        return str(int(v)) if isinstance(v, (int, np.integer)) else q.num(v)

    body = ", ".join("(" + ", ".join(cell(v) for v in row) + ")" for row in rows)
    cols = ", ".join(columns)
    return q.add(f"VALUES {body}", "t", cols)


def _lookup(q, counts, tab, cols, i=0):
    """Rows of ``counts`` with the columns ``cols`` of ``tab`` at their ``k{i}`` (CROSS JOIN
    and WHERE: SQLite then indexes the small table, not the scores)."""
    picked = ", ".join(f"t.{c}" for c in cols)
    return f"SELECT c.*, {picked} FROM {counts} AS c CROSS JOIN {tab} AS t WHERE t.k = c.k{i}"


def _step_values(q: _Query, st: Step) -> str:
    return _table(q, ("k", "v"), [(k, v) for k, v in enumerate(st.values)])


def _at_count(q, prev, points, right, columns, rows, name="j"):
    """The rows of ``prev`` with the columns of a table (``columns``, ``k`` first, and
    ``rows``) at the number ``k`` of ``points`` up to each value (``<=`` with ``right``)."""
    counts = _counts(q, prev, [(points, right)])
    tab = _table(q, columns, rows)
    return q.add(_lookup(q, counts, tab, columns[1:]), name)


def _step(q, prev, st):
    if st.breaks.shape[0] == 0:
        return _arith(q, prev, q.num(st.values[0]))
    rows = list(enumerate(st.values))
    looked = _at_count(q, prev, st.breaks, st.right, ("k", "v"), rows, "r")
    return q.add(f"SELECT s, v AS x FROM {looked}", "r")


def _nearest(q, prev, st):
    x, y = st.x, st.y
    K = x.shape[0]
    if K == 1:
        return _arith(q, prev, q.num(y[0]))
    rows = [(0, None, None, y[0], y[0])]
    rows += [(k, x[k - 1], x[k], y[k - 1], y[k]) for k in range(1, K)]
    rows.append((K, None, None, y[K - 1], y[K - 1]))
    j = _at_count(q, prev, x, False, ("k", "xl", "xh", "yl", "yh"), rows)
    return q.add(
        "SELECT s, CASE WHEN xh IS NULL THEN yl WHEN (xh - x) < (x - xl) THEN yh ELSE yl END "
        f"AS x FROM {j}",
        "r",
    )


def _interpolate(q, prev, st):
    K = st.x.shape[0]
    if K == 1:
        return _arith(q, prev, q.num(st.y[0]))
    rows = [(k, *row) for k, row in enumerate(zip(*st.segments()))]
    j = _at_count(q, prev, st.x, True, ("k", "hv", "xa", "g", "yl", "dy", "yh"), rows)
    lam = q.add(f"SELECT s, yl, dy, yh, (hv * x - xa) / g AS lam FROM {j}", "j")
    v = q.add(
        "SELECT s, yl, yh, yl + (CASE WHEN lam < 0.0 THEN 0.0 WHEN lam > 1.0 THEN 1.0 "
        f"ELSE lam END) * dy AS v FROM {lam}",
        "j",
    )
    return q.add(
        "SELECT s, CASE WHEN v < yl THEN yl WHEN v > yh THEN yh ELSE v END AS x FROM " + v, "r"
    )


def _standardise(q, prev, center, scale):
    """``(x - center) / scale``, halved when the difference overflows (as the core does)."""
    c, sc = q.num(center), q.num(scale)
    hc, hs = q.num(0.5 * center), q.num(0.5 * scale)
    d = q.add(f"SELECT s, x, x - {c} AS d FROM {prev}", "a")
    return _arith(
        q,
        d,
        f"CASE WHEN d > {q.num(BIG)} OR d < {q.num(-BIG)} THEN (0.5 * x - {hc}) / {hs} "
        f"ELSE d / {sc} END",
    )


def _sigmoid(q, prev, st):
    if st.a == 0.0:  # a u is 0 (or NaN, which the core reads as 0) for every score
        from scipy.special import expit

        return _arith(q, prev, q.num(float(expit(-st.b))))
    u = _standardise(q, prev, st.center, st.scale) if st.standardise else prev
    z = _arith(q, u, f"{q.num(st.a)} * x + {q.num(st.b)}")
    return _arith(q, _arith(q, z, "-x"), sql_expit(q, "x"))


def _prob_features(q, prev):
    """CTE (s, f0, f1): ``ln s`` and ``-log1p(-s)`` of scores clipped to [eps, 1 - eps]."""
    lo, hi = q.num(EPS), q.num(1.0 - EPS)
    c = _arith(q, prev, f"CASE WHEN x < {lo} THEN {lo} WHEN x > {hi} THEN {hi} ELSE x END")
    n = q.add(f"SELECT s, x, -x AS t FROM {c}", "a")
    return q.add(f"SELECT s, LN(x) AS f0, -({sql_log1p('t')}) AS f1 FROM {n}", "f")


def _logaddexp0(q, prev, col):
    """CTE (s, x, L): ``np.logaddexp(0, col)`` = max(0, y) + log1p(exp(-|y|))."""
    e = q.add(
        f"SELECT s, x, CASE WHEN {col} > 0.0 THEN {col} ELSE 0.0 END AS m, "
        f"{sql_exp(f'-ABS({col})')} AS t FROM {prev}",
        "a",
    )
    return q.add(f"SELECT s, x, m + ({sql_log1p('t')}) AS L FROM {e}", "a")


def _beta(q, prev, st):
    if st.logit:
        l0 = _logaddexp0(q, q.add(f"SELECT s, x, -x AS y FROM {prev}", "a"), "y")
        f0 = q.add(f"SELECT s, x, -L AS f0 FROM {l0}", "a")
        l1 = _logaddexp0(q, f0, "x")
        feats = q.add(f"SELECT l.s, f.f0, l.L AS f1 FROM {l1} AS l JOIN {f0} AS f ON f.s = l.s")
    else:
        feats = _prob_features(q, prev)
    z = q.add(
        f"SELECT s, {q.num(st.a)} * f0 + {q.num(st.b)} * f1 + {q.num(st.c)} AS x FROM {feats}"
    )
    return _arith(q, z, sql_expit(q, "x"))


def _log_odds(q, prev, logit):
    if logit:
        return prev
    return q.add(f"SELECT s, f0 + f1 AS x FROM {_prob_features(q, prev)}")


def _quadratic(q, prev, st):
    u = _standardise(q, _log_odds(q, prev, st.logit), st.center, st.scale)
    lo, hi = q.num(st.lo), q.num(st.hi)
    u = _arith(q, u, f"CASE WHEN x < {lo} THEN {lo} WHEN x > {hi} THEN {hi} ELSE x END")
    z = _arith(q, u, f"{q.num(st.c0)} + x * ({q.num(st.c1)} + {q.num(st.c2)} * x)")
    return _arith(q, z, sql_expit(q, "x"))


def _temperature(q, prev, st):
    z = _log_odds(q, prev, st.logit)
    sc, floor = q.num(st.scale), q.num(-1e300)
    # the standardised logits of [0, z]: (0.5 [0, z] - 0.5 max(0, z)) / scale, floored
    h = q.add(
        "SELECT s, CASE WHEN x >= 0.0 THEN -0.5 * x ELSE 0.0 END AS h0, "
        f"CASE WHEN x >= 0.0 THEN 0.0 ELSE 0.5 * x END AS h1 FROM {z}"
    )
    X = q.add(f"SELECT s, h0 / {sc} AS x0, h1 / {sc} AS x1 FROM {h}")
    X = q.add(
        f"SELECT s, CASE WHEN x0 < {floor} THEN {floor} ELSE x0 END AS x0, "
        f"CASE WHEN x1 < {floor} THEN {floor} ELSE x1 END AS x1 FROM {X}"
    )
    beta = q.num(st.beta)
    b0, b1 = q.num(st.bias0), q.num(st.bias1)
    if st.beta > 0:
        L = q.add(f"SELECT s, {beta} * x0 + {b0} AS l0, {beta} * x1 + {b1} AS l1 FROM {X}")
    else:
        L = q.add(f"SELECT s, 0.0 + {b0} AS l0, 0.0 + {b1} AS l1 FROM {X}")
    m = q.add(f"SELECT s, l0, l1, CASE WHEN l0 >= l1 THEN l0 ELSE l1 END AS m FROM {L}")
    e = q.add(f"SELECT s, {sql_exp('l0 - m')} AS e0, {sql_exp('l1 - m')} AS e1 FROM {m}")
    return q.add(f"SELECT s, e1 / (e0 + e1) AS x FROM {e}")


_STAGES = {
    Step: _step,
    Nearest: _nearest,
    Interpolate: _interpolate,
    Sigmoid: _sigmoid,
    Beta: _beta,
    Quadratic: _quadratic,
    Temperature: _temperature,
}


def _rounding(q, prev, d):
    """``round_scores``: rint(x 10^d) / 10^d (half to even), kept when already whole."""
    f = q.num(10.0**d if d >= 0 else 10.0 ** (-d))
    op, inv = ("*", "/") if d >= 0 else ("/", "*")
    sc = q.add(f"SELECT s, x, x {op} {f} AS y FROM {prev}", "a")
    fl = q.add(f"SELECT s, x, y, FLOOR(y) AS fl FROM {sc}", "a")
    return _arith(
        q,
        fl,
        f"CASE WHEN NOT (ABS(y) < {q.num(2.0**52)}) THEN x ELSE (fl + CASE WHEN y - fl > 0.5 "
        "OR (y - fl = 0.5 AND fl - 2.0 * FLOOR(fl / 2.0) <> 0.0) THEN 1.0 ELSE 0.0 END) "
        f"{inv} {f} END",
    )


_MERGE = {
    "log": "p1 / (1.0 - p0 + p1)",
    "square": "p1 + 0.5 * (p0 * p0 - p1 * p1)",
    "mean": "0.5 * (p0 + p1)",
}


def _score_value(column: str, dialect: str, big: str) -> str:
    """The score of a row as a double, NULL where it is not a number.

    DuckDB: ``TRY_CAST`` (NULL for text that is not a number) and NULL for NaN. SQLite and
    ANSI: the column is a number when ``column <= CAST(BIG)`` (true for every number but
    ``+inf`` and NaN; in SQLite the ``REAL`` operand converts a text that spells a number
    exactly, and other texts and blobs stay after every number) or when it is ``+inf``:
    ``-CAST(column) < -BIG`` (false for NaN, which PostgreSQL and DuckDB order after every
    number, negated too) and ``column = CAST(column)`` (false for an SQLite text such as
    ``'1e999abc'`` that casts to ``+inf``). SQLite would otherwise cast a text or a blob to
    the number its prefix spells (``'abc'`` to 0).
    """
    t = _DOUBLE[dialect]
    if dialect == "duckdb":
        v = f"TRY_CAST({column} AS DOUBLE)"
        return f"CASE WHEN NOT isnan({v}) THEN {v} END"
    cast = f"CAST({column} AS {t})"
    is_number = f"{column} <= CAST({big} AS {t}) OR (-{cast} < -{big} AND {column} = {cast})"
    return f"CASE WHEN {is_number} THEN {cast} END"


_OUTPUTS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z|\Z")


def to_sql(
    calibrator: object,
    *,
    table: str,
    score_column: str | Sequence[str],
    dialect: str = "duckdb",
    prefix: str = "",
    abstain: Any = None,
    group_column: str | None = None,
) -> str:
    """One SQL query that calibrates the scores of a table as ``calibrator`` does.

    The query selects every column of ``table`` and the calibrated probability ``p`` of the
    positive class (``classes_[1]``); for a Venn-Abers calibrator also ``p0`` and ``p1``,
    ``p`` being their merge by the calibrator's ``merge`` rule. Its numbers are the
    calibrator's ``predict_proba(scores)[:, 1]`` (and ``predict_interval``): bit for bit for
    step maps (Venn-Abers, histogram, Bayesian binning, isotonic with ``rule="nearest"``),
    within about 1e-15 where the map needs ``LN`` and ``EXP``.

    For a K-class calibrator (temperature scaling of a score matrix, matrix scaling,
    Dirichlet calibration), ``score_column`` lists the K score columns in the order of
    ``classes_`` and the query adds the K probabilities ``p_0, ..., p_{K-1}``
    (``predict_proba(scores)[:, k]``, within about 1e-15); a row with a score that is NULL,
    NaN, infinite or not a number, or (a calibrator of probabilities) outside [0, 1] or not
    summing to one as ``predict_proba`` requires, gets NULL in every column. For
    :class:`~venncal.calibration.MulticlassVennAbersCalibrator` (``strategy="ovr"``, fitted on
    probabilities or raw scores) the query adds ``p_0, ..., p_{K-1}`` and each class's
    Venn-Abers interval ``p0_0, ..., p0_{K-1}``, ``p1_0, ..., p1_{K-1}``
    (``predict_interval(scores)[:, k, 0]`` and ``[:, k, 1]``), bit for bit; fitted on logits
    it is refused (its class keys would need ``LN`` and ``EXP``, and a row at a calibration
    key could take the neighbouring step where the engine's differ from numpy's by an ulp).

    Parameters
    ----------
    calibrator : object
        A fitted score calibrator (see :func:`venncal.export.to_onnx` for the list), or
        what :func:`venncal.load` returns for one.
    table : str
        The table (or view) of scores: an identifier, dotted or double-quoted if needed.
    score_column : str or list of str
        The column of classifier scores; for a K-class calibrator, the K columns of class
        scores in the order of ``classes_``.
    dialect : {"duckdb", "sqlite", "ansi"}, default="duckdb"
        ``"duckdb"`` writes floats as decimal literals and reads scores with ``TRY_CAST`` and
        ``isnan``; ``"sqlite"`` and ``"ansi"`` write each float as an integer times a power
        of two (exact in any IEEE engine) and cast to ``REAL`` and ``DOUBLE PRECISION``.
    prefix : str, default=""
        Put before the names of the output columns (``p`` becomes ``{prefix}p``): letters,
        digits and ``_``. An output column named like a column of ``table`` is an error of
        the engine when the query runs ("ambiguous column name"), never a silent mix-up;
        choose a ``prefix`` that avoids it.
    abstain : AbstentionRule, default=None
        A fitted binary :class:`~venncal.AbstentionRule` whose threshold applies to this
        calibrator's probabilities: the query adds ``{prefix}accept``, 1 where
        ``rule.accept`` is True, 0 where False, NULL where ``p`` is NULL.
    group_column : str, default=None
        With a rule fitted within groups: the column of ``table`` holding each row's group
        (a group not seen at fit gets NULL, or the pooled threshold when the rule's
        ``group_fallback`` is ``"pooled"``).

    Returns
    -------
    str
        One query (``WITH ... SELECT``) without a trailing semicolon.

    Notes
    -----
    What the engine needs: common table expressions, ``VALUES`` lists, window functions
    (``SUM(...) OVER (ORDER BY ... ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)``,
    SQLite 3.25 or later) and, for parametric maps only, ``LN``, ``EXP`` and ``ABS`` (and
    ``FLOOR`` when the calibrator rounds scores to ``decimals``). SQLite has ``LN``, ``EXP``
    and ``FLOOR`` when built with its math functions (Python 3.11 or later usually is: check
    ``SELECT ln(2)``); otherwise register them with :func:`register_sqlite_math`.

    Scores are read as the calibrator reads them: NULL, NaN and what is not a number give
    NULL (an SQLite text or blob, whatever its prefix spells; a DuckDB text that does not
    cast to ``DOUBLE``), ``±inf`` is read as the largest finite score of its sign, and a
    calibrator of probabilities (beta, quadratic, temperature scaling fitted on
    probabilities) gives NULL for a score outside [0, 1], which its ``predict_proba``
    refuses. In the ``"ansi"`` query the score column must have a numeric type (DuckDB and
    PostgreSQL refuse to compare a text column with a number). The rows come in no particular order
    (add ``ORDER BY``). The names of the query's own CTEs start with ``venncal_``.

    Examples
    --------
    >>> import sqlite3
    >>> from venncal.calibration import HistogramCalibrator
    >>> cal = HistogramCalibrator(n_bins=2).fit([0.1, 0.2, 0.7, 0.9], [0, 0, 1, 1])
    >>> con = sqlite3.connect(":memory:")
    >>> _ = con.execute("CREATE TABLE t (id INTEGER, score REAL)")
    >>> _ = con.executemany("INSERT INTO t VALUES (?, ?)", [(1, 0.3), (2, 0.8), (3, None)])
    >>> query = to_sql(cal, table="t", score_column="score", dialect="sqlite")
    >>> con.execute(f"SELECT id, p FROM ({query}) ORDER BY id").fetchall()
    [(1, 0.0), (2, 1.0), (3, None)]
    """
    if dialect not in DIALECTS:
        raise ValueError(
            f"The 'dialect' parameter of to_sql must be one of {DIALECTS}; got {dialect!r}."
        )
    _check_name(table, "table", _IDENT)
    if not isinstance(prefix, str) or not _OUTPUTS.match(prefix):
        raise ValueError(
            "The 'prefix' parameter of to_sql must be letters, digits and _ (not starting "
            f"with a digit) or empty; got {prefix!r}."
        )
    plan = plan_of(calibrator)
    if abstain is not None:
        decision = decision_of(abstain, plan, grouped_ok=group_column is not None)
        if group_column is not None:
            _check_name(group_column, "group_column", _COLUMN)
            if decision.groups is None:
                raise ValueError("'group_column' goes with a rule fitted within groups.")
        query = to_sql(
            calibrator, table=table, score_column=score_column, dialect=dialect, prefix=prefix
        )
        return sql_accept(query, decision, _Query(dialect).num, prefix, group_column)
    if group_column is not None:
        raise ValueError("'group_column' goes with abstain= (a rule fitted within groups).")
    q = _Query(dialect)
    big = q.num(BIG)
    if plan.classes is not None:
        from venncal.export._sql_classes import class_query

        K = plan.classes.n_classes
        if isinstance(score_column, str) or not hasattr(score_column, "__len__"):
            raise ValueError(
                f"The 'score_column' parameter of to_sql must be a list of the {K} score "
                f"columns of this {plan.name} (one per class, in the order of classes_); "
                f"got {score_column!r}."
            )
        columns = list(score_column)
        if len(columns) != K:
            raise ValueError(
                f"The 'score_column' parameter of to_sql names {len(columns)} column(s); this "
                f"{plan.name} was fitted on {K} (one per class, in the order of classes_)."
            )
        for c in columns:
            _check_name(c, "score_column", _COLUMN)
        names = [f"{prefix}p_{k}" for k in range(K)]

        def value(column: str) -> str:
            return _score_value(column, dialect, big)

        if plan.venn_abers_classes is not None:
            from venncal.export._sql_venn_abers import venn_abers_class_query

            final, _ = venn_abers_class_query(q, plan, table, columns, prefix, value, _step_values)
            return q.sql(final)
        return q.sql(class_query(q, plan, table, columns, names, value))
    if not isinstance(score_column, str):
        raise ValueError(
            f"The 'score_column' parameter of to_sql must be the one score column of this "
            f"{plan.name} (a binary score calibrator); got {score_column!r}."
        )
    _check_name(score_column, "score_column", _COLUMN)
    s = _score_value(score_column, dialect, big)
    scores = q.add(
        f"SELECT DISTINCT s FROM (SELECT {s} AS s FROM {table}) AS venncal_v WHERE s IS NOT NULL",
        "s",
    )
    domain = " WHERE s >= 0.0 AND s <= 1.0" if plan.unit else ""
    x = _arith(q, scores, f"CASE WHEN s > {big} THEN {big} WHEN s < -{big} THEN -{big} ELSE s END")
    if domain:
        x = q.add(f"SELECT s, x FROM {x}{domain}", "a")
    if plan.decimals is not None:
        x = _rounding(q, x, plan.decimals)
    if plan.venn_abers is not None:
        s0, s1, merge = plan.venn_abers
        counts = _counts(q, x, [(s0.breaks, s0.right), (s1.breaks, s1.right)])
        v0, v1 = _step_values(q, s0), _step_values(q, s1)
        both = q.add(
            f"SELECT c.s, a.v AS p0, b.v AS p1 FROM {counts} AS c CROSS JOIN {v0} AS a "
            f"CROSS JOIN {v1} AS b WHERE a.k = c.k0 AND b.k = c.k1",
            "o",
        )
        names = [prefix + n for n in ("p", "p0", "p1")]
        out = q.add(
            f"SELECT s, {_MERGE[merge]} AS {names[0]}, p0 AS {names[1]}, p1 AS {names[2]} "
            f"FROM {both}",
            "o",
        )
    else:
        for stage in plan.stages:
            x = _STAGES[type(stage)](q, x, stage)
        names = [prefix + "p"]
        out = q.add(f"SELECT s, x AS {names[0]} FROM {x}", "o")
    key = _score_value("t." + score_column, dialect, big)
    # the output columns are named unqualified: a column of the table with the same name
    # makes the reference ambiguous, an error of the engine, not a silent mix-up
    if dialect == "sqlite":
        # SQLite joins by nested loops; it indexes the scores' probabilities for a correlated
        # subquery (not reliably for a join), so each column is looked up that way; a
        # one-row relation of the output names is joined only to check them
        picks = ", ".join(f"(SELECT o.{c} FROM {out} AS o WHERE o.s = {key}) AS {c}" for c in names)
        guard = ", ".join(f"NULL AS {c}" for c in names)
        check = " AND ".join(f"{c} IS NULL" for c in names)
        final = (
            f"SELECT t.*, {picks} FROM {table} AS t CROSS JOIN (SELECT {guard}) AS venncal_g "
            f"WHERE {check}"
        )
    else:
        final = (
            f"SELECT t.*, {', '.join(names)} FROM {table} AS t LEFT JOIN {out} AS o ON o.s = {key}"
        )
    return q.sql(final)
