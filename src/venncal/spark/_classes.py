"""K-class calibrators on a Spark DataFrame: the passes of venncal._distributed_classes run by
Spark, and apply adding one probability column per class."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._distributed_classes import class_apply_columns, class_calibrated, fit_class_passes
from venncal.spark._frames import check_frame, run_partitions

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pyspark.sql

__all__ = ["apply_classes", "fit_classes"]


def _check_columns(frame: Any, score: list[str], what: str, **others: str | None) -> None:
    check_frame(frame, others, what)
    roles = {f"score[{i}]": c for i, c in enumerate(score)}
    check_frame(frame, roles, what, numeric=tuple(roles))


def fit_classes(
    calibrator: Any,
    frame: pyspark.sql.DataFrame,
    *,
    score: list[str],
    label: str,
    weight: str | None,
) -> Any:
    """Fit a K-class calibrator on the K score columns ``score`` (see venncal.spark.fit).

    Every pass runs as one Spark job over the partitions of the columns used, cached for the
    passes and released at the end.
    """
    what = "venncal.spark.fit"
    _check_columns(frame, score, what, label=label, weight=weight)
    data = frame.select(*score, label).persist()
    try:
        return fit_class_passes(
            calibrator,
            lambda func, *args: run_partitions(data, func, *args),
            score=score,
            label=label,
            weight=weight,
            what=what,
        )
    finally:
        data.unpersist()


def apply_classes(
    calibrator: Any, frame: pyspark.sql.DataFrame, *, score: list[str], ship: Any
) -> pyspark.sql.DataFrame:
    """Add ``p_<class>`` columns, as ``predict_proba`` of the K score columns, batch by batch;
    ``ship(frame, calibrator)`` returns a function giving the calibrator on the executors."""
    from pyspark.sql.types import DoubleType, StructField, StructType

    what = "venncal.spark.apply"
    _check_columns(frame, score, what)
    columns = class_apply_columns(calibrator, score, frame.columns, what)
    schema = StructType(
        [*frame.schema.fields, *(StructField(c, DoubleType(), False) for c in columns)]
    )
    shipped = ship(frame, calibrator)

    def calibrate(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        model = shipped()
        for batch in batches:
            cols = [batch.column(batch.schema.get_field_index(c)) for c in score]
            S = np.column_stack(
                [np.asarray(c.to_numpy(zero_copy_only=False), dtype=np.float64) for c in cols]
            ).reshape(batch.num_rows, len(score))
            new = class_calibrated(model, S, columns)
            yield pa.RecordBatch.from_arrays(
                [*batch.columns, *(pa.array(new[c], type=pa.float64()) for c in columns)],
                names=[*batch.schema.names, *columns],
            )

    return frame.mapInArrow(calibrate, schema)
