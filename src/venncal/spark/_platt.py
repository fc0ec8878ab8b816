"""Platt scaling on a Spark DataFrame: the Newton steps of the Dask fit, passes run by Spark."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from venncal.spark._frames import collect_pandas, label_classes, run_partitions

if TYPE_CHECKING:
    import pyspark.sql

__all__ = ["fit_platt"]


def fit_platt(
    calibrator: Any,
    frame: pyspark.sql.DataFrame,
    *,
    score: str,
    label: str,
    weight: str | None = None,
) -> Any:
    """Fit a :class:`~venncal.PlattCalibrator` on a Spark DataFrame (see venncal.spark.fit).

    Every pass of :func:`venncal.dask._platt.fit_platt_passes` runs as one Spark job over the
    partitions (each read as a pandas DataFrame); the per-partition sums are added in
    partition order. The columns used are cached for the passes and released at the end.
    """
    from venncal.dask._platt import fit_platt_passes

    columns = list(dict.fromkeys([score, label] + ([weight] if weight else [])))
    # the two labels, checked as in memory (one Spark ``distinct`` of the label column)
    classes = label_classes(collect_pandas(frame.select(label).distinct())[label], label)
    data = frame.select(*columns).persist()
    try:
        return fit_platt_passes(
            calibrator,
            classes,
            lambda func, *args: run_partitions(data, func, *args),
            score=score,
            label=label,
            weight=weight,
        )
    finally:
        data.unpersist()
