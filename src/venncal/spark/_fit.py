"""venncal.spark.fit: count-based calibrators from one Spark aggregation, Platt by passes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._distributed import (
    check_fit_calibrator,
    check_score_values,
    check_weight_column,
    fill_engine_doc,
    weighted_table,
)
from venncal._distributed_classes import class_score_columns
from venncal.calibration._base import warn_if_reversed
from venncal.core.counts import check_decimals, table_from_sums
from venncal.spark._frames import check_frame, collect_pandas, label_classes, require_spark

if TYPE_CHECKING:
    import pyspark.sql

__all__ = ["fit"]


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
    classes = label_classes(y.drop_duplicates(), label)
    y01 = (y.to_numpy() == classes[1]).astype(np.int64)
    return classes, y01


def _collector(F, frame, score, label, weight, decimals, classes):
    """``collect(scores)``: the rows of positive weight at ``scores``, gathered to the driver."""

    def collect(inexact):
        spark = frame.sparkSession
        wanted = spark.createDataFrame([(float(v),) for v in inexact], "s double")
        s = rounded(F, F.col(score).cast("double"), decimals).alias("s")
        w = F.col(weight).cast("double")
        rows = collect_pandas(
            frame.select(s, F.col(label).alias("y"), w.alias("w"))
            .where(F.col("w") > 0)
            .join(F.broadcast(wanted), on="s", how="inner")
        )
        y01 = (rows["y"].to_numpy() == classes[1]).astype(np.int8)
        return rows["s"].to_numpy(dtype=np.float64), y01, rows["w"].to_numpy(dtype=np.float64)

    return collect


def _weighted_table(F, frame, score, label, weight, decimals, table, classes, y01):
    """The CountTable of weighted rows and rows for a fit from rows: see
    :func:`venncal._distributed.weighted_table`."""
    exponent = check_weight_column(
        weight,
        low=float(table["wmin"].min()),
        high=float(table["wmax"].max()),
        n_nan=int(table["wbad"].sum()),
        n_positive=int(table["n"].sum()),
    )
    return weighted_table(
        table["s"].to_numpy(dtype=np.float64),
        y01,
        table["n"].to_numpy(dtype=np.int64),
        table["sw"].to_numpy(dtype=np.float64),
        table["frac"].to_numpy() != 0,
        _collector(F, frame, score, label, weight, decimals, classes),
        exponent=exponent,
        weight=weight,
    )


@fill_engine_doc
def fit(
    calibrator: Any,
    frame: pyspark.sql.DataFrame,
    *,
    score: str | list[str],
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
    * with fractional weights too: a score whose weights Spark cannot sum exactly (two or more
      rows, some fractional) has its rows collected, and only those rows travel to the driver,
      where each class's weights at the score are added in increasing order, as ``fit`` adds
      them in memory (an order no partitioning changes); Venn-Abers, which fits from rows, is
      fitted from those rows and one row per exact sum.

    :class:`~venncal.PlattCalibrator` is fitted by the Newton steps of the Dask fit, every sum
    taken per partition and added in partition order: deterministic for a given partitioning,
    and equal to the in-memory fit to the rounding of those sums (far inside the fit's own
    tolerance).

    K-class calibrators (:class:`~venncal.TemperatureCalibrator` without a bias,
    :class:`~venncal.MatrixScalingCalibrator`, :class:`~venncal.DirichletCalibrator`) take a
    list of K numeric score columns, one per class in the sorted order of the labels, and are
    fitted by the passes of the in-memory fit, each sum over the rows a sum over the
    partitions (as Platt scaling): equal to the in-memory fit up to the rounding of those sums.

    The aggregate has one row per distinct (score, label): it must fit in the memory of the
    driver (use the calibrator's ``decimals`` to bound it). The frame is read twice when some
    fractional weights need their rows; it must give the same rows each time (no
    unseeded ``rand``).

    Parameters
    ----------
    {calibrator_to_fit}
    frame : pyspark.sql.DataFrame
        The calibration data.
    score : str or list of str
        Column of the scores (numeric), or the K columns of a K-class calibrator's scores.
    label : str
        Column of the labels (any two values; K classes with K score columns).
    {weight}

    {returns_fitted}

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
    if not isinstance(score, str):  # K score columns
        from venncal.spark._classes import fit_classes

        columns = class_score_columns(score, "venncal.spark.fit") or []

        return fit_classes(calibrator, frame, score=columns, label=label, weight=weight)
    check_frame(
        frame,
        {"score": score, "label": label, "weight": weight},
        "venncal.spark.fit",
        numeric=("score", "weight"),
    )
    if isinstance(calibrator, PlattCalibrator):
        from venncal.spark._platt import fit_platt

        return fit_platt(calibrator, frame, score=score, label=label, weight=weight)
    check_fit_calibrator(calibrator, "venncal.spark.fit")
    decimals = check_decimals(calibrator.decimals, owner=type(calibrator).__name__)
    table = collect_pandas(_aggregate(F, frame, score, label, weight, decimals))
    classes, y01 = _labels(table, label)
    values = table["s"].to_numpy(dtype=np.float64, na_value=np.nan)
    check_score_values(values, score, table["n" if weight is None else "rows"].to_numpy())
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
    # the warning of ``fit`` for scores that rank the classes the wrong way round (the AUC of
    # the table's weighted rows is that of the rows behind it)
    warn_if_reversed(*counts.rows(), classes[1], classes[0], stacklevel=2)
    return calibrator
