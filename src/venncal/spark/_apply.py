"""venncal.spark.apply: calibrated probabilities added to a Spark DataFrame, batch by batch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._distributed import apply_columns, calibrated, fill_engine_doc
from venncal._distributed_classes import class_score_columns
from venncal.spark._frames import check_frame, require_spark

if TYPE_CHECKING:
    import pyspark.sql

__all__ = ["apply"]


def _shipped(frame, calibrator):
    """A function returning the calibrator on the executors: a broadcast, sent once per
    executor (Spark Connect, which has none, sends it with the tasks)."""
    try:
        handle = frame.sparkSession.sparkContext.broadcast(calibrator)
    except Exception:  # Spark Connect: no SparkContext

        def local():
            return calibrator

        return local

    def broadcast():
        return handle.value

    return broadcast


@fill_engine_doc
def apply(
    calibrator: Any, frame: pyspark.sql.DataFrame, *, score: str | list[str]
) -> pyspark.sql.DataFrame:
    """Add calibrated probabilities to a Spark DataFrame, Arrow batch by batch (lazily).

    The result is a new Spark DataFrame with the column ``p`` (the probability of
    ``calibrator.classes_[1]``, as ``predict_proba(scores)[:, 1]``), and ``p0`` and ``p1`` for
    Venn-Abers (``predict_interval``), computed when the frame is (e.g. by ``write.parquet``).
    The fitted calibrator is broadcast to the executors once, and each Arrow batch of scores
    goes through the same prediction code as in memory (``mapInArrow``): the values are those
    of ``predict_proba`` (and ``predict_interval``), bit for bit, and the other columns pass
    through as Arrow data, unconverted. A K-class calibrator takes its K score columns and
    adds one column ``p_<class>`` per class of ``classes_``, as ``predict_proba(scores)``.

    Parameters
    ----------
    {fitted_calibrator}
    frame : pyspark.sql.DataFrame
        Holds the scores; its other columns are kept.
    score : str or list of str
        Column of the scores, or the K columns of a K-class calibrator in the order of its
        ``classes_`` (numeric and finite; a null, NaN or infinite score fails the job with the
        calibrator's one-line error).

    Returns
    -------
    pyspark.sql.DataFrame

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> from venncal import IsotonicCalibrator
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> cal = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
    >>> frame = spark.createDataFrame([(0.15,), (0.35,)], "s double")  # doctest: +SKIP
    >>> apply(cal, frame, score="s").show()  # doctest: +SKIP
    +----+---+
    |   s|  p|
    +----+---+
    |0.15|0.0|
    |0.35|1.0|
    +----+---+
    """
    require_spark("venncal.spark.apply")
    from pyspark.sql.types import DoubleType, StructField, StructType

    if not isinstance(score, str):  # K score columns
        from venncal.spark._classes import apply_classes

        names = class_score_columns(score, "venncal.spark.apply") or []

        return apply_classes(calibrator, frame, score=names, ship=_shipped)
    check_frame(frame, {"score": score}, "venncal.spark.apply", numeric=("score",))
    columns = apply_columns(calibrator, frame.columns, "venncal.spark.apply")
    schema = StructType(
        [*frame.schema.fields, *(StructField(c, DoubleType(), False) for c in columns)]
    )
    get = _shipped(frame, calibrator)

    def calibrate(batches):
        import pyarrow as pa

        model = get()
        for batch in batches:
            s = batch.column(batch.schema.get_field_index(score))
            s = np.asarray(s.to_numpy(zero_copy_only=False), dtype=np.float64)
            new = calibrated(model, s, columns)
            yield pa.RecordBatch.from_arrays(
                [*batch.columns, *(pa.array(new[c], type=pa.float64()) for c in columns)],
                names=[*batch.schema.names, *columns],
            )

    return frame.mapInArrow(calibrate, schema)
