"""venncal.spark.fit: count-based calibrators from one Spark aggregation, Platt by passes."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._distributed import check_fit_calibrator
from venncal._validation import check_binary_labels
from venncal.calibration._base import _scalar, warn_if_reversed
from venncal.core._weighted import sum_class_weights
from venncal.core.counts import _RESCALE_ABOVE, check_decimals, table_from_sums
from venncal.spark._frames import check_frame, collect_pandas, require_spark

if TYPE_CHECKING:
    import pyspark.sql

__all__ = ["fit"]

# whole-number sums below 2^53 are exact in float64 in any order of addition
_EXACT_BELOW = 2.0**53


def rounded(F, column, decimals):
    """The Spark expression of :func:`venncal.core.counts.round_scores`, operation for operation.

    ``rint(s * 10**d) / 10**d`` (``rint(s / 10**-d) * 10**-d`` for negative ``d``) in IEEE
    double arithmetic, as numpy computes it, and the score itself where it has no digit at
    that place: the same float64 results, bit for bit.
    """
    if decimals is None:
        return column
    if decimals >= 0:
        factor = F.lit(10.0**decimals)
        scaled = column * factor
        out = F.rint(scaled) / factor
    else:
        factor = F.lit(10.0**-decimals)
        scaled = column / factor
        out = F.rint(scaled) * factor
    return F.when(F.abs(scaled) < F.lit(2.0**52), out).otherwise(column)


def _aggregate(F, frame, score, label, weight, decimals):
    """Per (rounded score, label): rows, and for weights their sums and exactness flags."""
    s = rounded(F, F.col(score).cast("double"), decimals).alias("s")
    if weight is None:
        return (
            frame.select(s, F.col(label).alias("y"))
            .groupBy("s", "y")
            .agg(F.count(F.lit(1)).alias("n"))
        )
    w = F.col(weight).cast("double")
    positive = w > 0
    return (
        frame.select(s, F.col(label).alias("y"), w.alias("w"))
        .groupBy("s", "y")
        .agg(
            F.count(F.lit(1)).alias("rows"),
            F.sum(F.when(w > 0, 1).otherwise(0)).alias("n"),
            F.sum(w).alias("sw"),
            F.max(F.when(positive & (w != F.floor(w)), 1).otherwise(0)).alias("frac"),
            F.min(w).alias("wmin"),
            F.max(F.when(F.isnan(w), None).otherwise(w)).alias("wmax"),
            F.sum(F.when(F.isnan(w) | w.isNull(), 1).otherwise(0)).alias("wbad"),
        )
    )


def _labels(table, label):
    """The two labels, checked as in memory, and 0/1 for each row of the aggregate."""
    y = table["y"]
    if y.isna().any():
        raise ValueError(f"The label column {label!r} holds missing (null or NaN) labels.")
    found = y.drop_duplicates().to_numpy()
    if found.size == 0:
        raise ValueError("'y' is empty; at least one label is needed.")
    if found.dtype == object:
        found = np.asarray(found.tolist())
    classes = check_binary_labels(found, name="y")[1]
    y01 = (y.to_numpy() == classes[1]).astype(np.int64)
    return classes, y01


def _check_scores(values, rows, score):
    bad = ~np.isfinite(values)
    if bad.any():
        kind = "NaN" if np.isnan(values[bad]).any() else "infinite"
        raise ValueError(
            f"The score column {score!r} holds {int(rows[bad].sum())} {kind} value(s); remove "
            "or impute them first (scores must be finite)."
        )


def _check_weights(table, weight):
    n_nan = int(table["wbad"].sum())
    if n_nan:
        raise ValueError(f"The weight column {weight!r} holds {n_nan} NaN value(s).")
    low = float(table["wmin"].min())
    if low < 0:
        raise ValueError(
            f"The weight column {weight!r} must be non-negative, got values down to {low:g}."
        )
    if int(table["n"].sum()) == 0:
        raise ValueError(
            "'sample_weight' is zero everywhere; at least one weight must be positive."
        )
    top = float(table["wmax"].max())
    if not np.isfinite(top):
        raise ValueError(f"The weight column {weight!r} holds infinite values.")
    exponent = int(np.frexp(top)[1])
    return exponent - _RESCALE_ABOVE if exponent > _RESCALE_ABOVE else 0


def _ordered_rows(F, frame, score, label, weight, decimals, inexact):
    """The rows of positive weight at the scores ``inexact``, in the frame's row order."""
    spark = frame.sparkSession
    wanted = spark.createDataFrame([(float(v),) for v in inexact], "s double")
    s = rounded(F, F.col(score).cast("double"), decimals).alias("s")
    w = F.col(weight).cast("double")
    rows = (
        frame.select(
            F.monotonically_increasing_id().alias("at"), s, F.col(label).alias("y"), w.alias("w")
        )
        .where(F.col("w") > 0)
        .join(F.broadcast(wanted), on="s", how="inner")
    )
    return collect_pandas(rows).sort_values("at", kind="stable")


def _weighted_table(F, frame, score, label, weight, decimals, table, classes, y01):
    """The CountTable of weighted rows, equal bit for bit to the in-memory one, and rows for
    a fit from rows.

    A class's weight at a score is summed by Spark when that sum is exact in any order (at
    most one row of positive weight, or whole numbers below 2^53); the rows at the other
    scores are collected in the frame's order and summed as ``fit`` sums them in memory.
    The rows returned, ``(scores, y01, weights)`` in the weights' own units, are those
    collected rows and one row per exact sum: every class's weight at a score adds up to what
    the frame's rows give, exactly or (for the collected rows) from the same numbers, which is
    what the fit of Venn-Abers from rows needs to equal the in-memory fit.
    """
    exponent = _check_weights(table, weight)
    values = table["s"].to_numpy(dtype=np.float64)
    n = table["n"].to_numpy(dtype=np.int64)
    sw = table["sw"].to_numpy(dtype=np.float64)
    exact = (n <= 1) | ((table["frac"].to_numpy() == 0) & (sw < _EXACT_BELOW))
    inexact = np.unique(values[~exact])
    # a score is summed in Spark only if both its classes are
    keep = ~np.isin(values, inexact)
    original = sw
    if exponent:
        with np.errstate(under="ignore"):
            sw = np.ldexp(sw, -exponent)
    sw = np.where(n > 0, sw, 0.0)
    y1 = y01 == 1
    parts_v = [values[keep]]
    parts_0 = [np.where(y1, 0.0, sw)[keep]]
    parts_1 = [np.where(y1, sw, 0.0)[keep]]
    summed = keep & (n > 0)
    row_parts = [(values[summed], y01[summed].astype(np.int8), original[summed])]
    if inexact.size:
        rows = _ordered_rows(F, frame, score, label, weight, decimals, inexact)
        rs = rows["s"].to_numpy(dtype=np.float64)
        ry = (rows["y"].to_numpy() == classes[1]).astype(np.int8)
        w = rows["w"].to_numpy(dtype=np.float64)
        row_parts.append((rs, ry, w))
        if exponent:
            w = np.ldexp(w, -exponent)
        v, n0, n1 = sum_class_weights(rs, ry, w)
        parts_v.append(v)
        parts_0.append(n0)
        parts_1.append(n1)
    w0, w1 = np.concatenate(parts_0), np.concatenate(parts_1)
    if not (np.isfinite(w0).all() and np.isfinite(w1).all()):
        raise ValueError(
            f"The weight column {weight!r} holds weights whose sums exceed the largest float; "
            "rescale them."
        )
    out = table_from_sums(np.concatenate(parts_v), w0, w1, float(n.sum()))
    rows = tuple(np.concatenate(part) for part in zip(*row_parts))
    return dataclasses.replace(out, exponent=exponent), rows


def fit(
    calibrator: Any,
    frame: pyspark.sql.DataFrame,
    *,
    score: str,
    label: str,
    weight: str | None = None,
) -> Any:
    """Fit a calibrator on the columns of a Spark DataFrame.

    Count-based calibrators (:class:`~venncal.VennAbersCalibrator`,
    :class:`~venncal.IsotonicCalibrator`, :class:`~venncal.HistogramCalibrator`,
    :class:`~venncal.BayesianBinningCalibrator`) are fitted from one Spark aggregation: the rows
    are grouped by (rounded) score and label, counting the rows (summing the weights), and the
    small table of distinct scores is collected and fitted locally, as :meth:`fit_aggregate`
    does. The result is the in-memory ``fit`` on the frame's rows, bit for bit:

    * without weights, or with whole-number weights, in any partitioning (the sums are exact
      integers, whatever the order of addition);
    * with fractional weights, for isotonic regression, histogram and Bayesian binning too: a
      score whose weights Spark cannot sum exactly (two or more rows, some fractional) has its
      rows collected in the frame's order (``toPandas()`` order) and summed as ``fit`` sums
      them, so only those rows travel to the driver; Venn-Abers, which in memory fits from the
      rows (adding each class's weights at a score in increasing order, or exactly), is
      fitted from those rows and one row per exact sum, which add up alike.

    :class:`~venncal.PlattCalibrator` is fitted by the Newton steps of the Dask fit, every sum
    taken per partition and added in partition order: deterministic for a given partitioning,
    and equal to the in-memory fit to the rounding of those sums (far inside the fit's own
    tolerance).

    The aggregate has one row per distinct (score, label): it must fit in the memory of the
    driver (use the calibrator's ``decimals`` to bound it). The frame is read twice when some
    fractional weights need their rows; it must give the same rows each time (no
    unseeded ``rand``).

    Parameters
    ----------
    calibrator : estimator
        An unfitted (or fitted: it is refitted) count-based calibrator or PlattCalibrator; it
        is fitted in place and returned.
    frame : pyspark.sql.DataFrame
        The calibration data.
    score, label : str
        Columns of the scores (numeric) and of the labels (any two values).
    weight : str, default=None
        Column of non-negative sample weights, with the calibrator's meaning of a weight.

    Returns
    -------
    calibrator
        The fitted calibrator.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> from venncal import VennAbersCalibrator
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> frame = spark.createDataFrame(
    ...     [(0.1, 0), (0.2, 1), (0.3, 0), (0.4, 1)], "s double, y int"
    ... )  # doctest: +SKIP
    >>> cal = fit(VennAbersCalibrator(), frame, score="s", label="y")  # doctest: +SKIP
    >>> cal.predict_interval([0.25]).round(3)  # doctest: +SKIP
    array([[0.333, 0.667]])
    """
    from venncal.calibration.platt import PlattCalibrator

    F = require_spark("venncal.spark.fit")
    check_frame(
        frame,
        {"score": score, "label": label, "weight": weight},
        "venncal.spark.fit",
        numeric=("score", "weight"),
    )
    if isinstance(calibrator, PlattCalibrator):
        from venncal.spark._platt import fit_platt

        fit_platt(calibrator, frame, score=score, label=label, weight=weight)
        calibrator.pos_label_ = _scalar(calibrator.classes_[1])
        return calibrator
    check_fit_calibrator(calibrator, "venncal.spark.fit")
    decimals = check_decimals(calibrator.decimals, owner=type(calibrator).__name__)
    table = collect_pandas(_aggregate(F, frame, score, label, weight, decimals))
    classes, y01 = _labels(table, label)
    values = table["s"].to_numpy(dtype=np.float64, na_value=np.nan)
    _check_scores(values, table["n" if weight is None else "rows"].to_numpy(), score)
    rows = None
    if weight is None:
        n = table["n"].to_numpy(dtype=np.int64)
        n1 = np.where(y01 == 1, n, 0)
        counts = table_from_sums(values, n - n1, n1, float(n.sum()))
    else:
        counts, rows = _weighted_table(
            F, frame, score, label, weight, decimals, table, classes, y01
        )
    calibrator._fit_table_checked(counts, classes, rows)
    calibrator.pos_label_ = _scalar(classes[1])  # as ``fit`` records it
    # the warning of ``fit`` for scores that rank the classes the wrong way round (the AUC of
    # the table's weighted rows is that of the rows behind it)
    warn_if_reversed(*counts.rows(), classes[1], classes[0], stacklevel=2)
    return calibrator
