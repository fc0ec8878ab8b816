"""What the Spark fit and apply share: the import of PySpark, frame checks, collecting."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_binary_labels

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Mapping
    from types import ModuleType

    import pandas as pd
    import pyspark.sql

    from venncal._typing import AnyArray

__all__ = ["require_spark", "check_frame", "collect_pandas", "run_partitions", "label_classes"]


def require_spark(what: str) -> ModuleType:
    """Import ``pyspark.sql.functions`` or raise an ImportError naming the extra."""
    try:
        import pyspark.sql.functions as F
    except ImportError:
        raise ImportError(
            f'{what} needs pyspark, which is not installed; pip install "venncal[spark]" '
            "(and a Java runtime, 17 or later)."
        ) from None
    return F


def check_frame(
    frame: Any, columns: Mapping[str, str | None], what: str, *, numeric: Container[str] = ()
) -> None:
    """Raise unless ``frame`` is a Spark DataFrame holding ``columns`` ({role: name or None}).

    The roles in ``numeric`` must name numeric columns.
    """
    from pyspark.sql import DataFrame

    # Spark Connect's DataFrame class is recognised by its module: importing it would need
    # Spark Connect's own dependencies (and, without them, can end the process)
    connect = type(frame).__module__.startswith("pyspark.sql.connect.")
    if not (isinstance(frame, DataFrame) or connect):
        raise TypeError(
            f"'frame' of {what} must be a Spark DataFrame (e.g. spark.read.parquet), "
            f"got {type(frame).__name__}."
        )
    from pyspark.sql.types import NumericType

    fields = {f.name: f for f in frame.schema.fields}
    for role, name in columns.items():
        if name is None:
            continue
        if name not in fields:
            raise ValueError(
                f"'{role}' of {what} names the column {name!r}, which the frame does not have "
                f"(columns: {list(fields)!r})."
            )
        if role in numeric and not isinstance(fields[name].dataType, NumericType):
            raise ValueError(
                f"'{role}' of {what} names the column {name!r} of type "
                f"{fields[name].dataType.simpleString()}; it must be numeric."
            )


def collect_pandas(frame: pyspark.sql.DataFrame) -> pd.DataFrame:
    """The rows of a (small) Spark DataFrame as a pandas DataFrame, through Arrow."""
    if hasattr(frame, "toArrow"):  # Spark 4
        return frame.toArrow().to_pandas()
    spark = frame.sparkSession
    key = "spark.sql.execution.arrow.pyspark.enabled"
    before = spark.conf.get(key, None)
    spark.conf.set(key, "true")
    try:
        return frame.toPandas()
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


def label_classes(found: pd.Series, label: str) -> AnyArray:
    """The two classes of the label column ``label`` from its distinct values ``found``,
    checked as in memory (missing labels, no label, one or more than two: the same error)."""
    if found.isna().any():
        raise ValueError(f"The label column {label!r} holds missing (null or NaN) labels.")
    values = found.to_numpy()
    if values.size == 0:
        raise ValueError("'y' is empty; at least one label is needed.")
    if values.dtype == object:
        values = np.asarray(values.tolist())
    return check_binary_labels(values, name="y")[1]


def _empty(schema):
    import pandas as pd

    return pd.DataFrame({f.name: pd.Series([], dtype=np.float64) for f in schema.fields})


def run_partitions(
    frame: pyspark.sql.DataFrame, func: Callable[..., object], *args: Any
) -> list[Any]:
    """``[func(pdf, *args) for each partition pdf]`` in partition order.

    Each partition is read as one pandas DataFrame (its Arrow batches concatenated) on the
    executors; the results, pickled, come back to the caller.
    """
    import pandas as pd

    schema = frame.schema

    def run(batches):
        from pyspark import TaskContext

        parts = list(batches)
        pdf = pd.concat(parts, ignore_index=True) if parts else _empty(schema)
        result = pickle.dumps(func(pdf, *args))
        yield pd.DataFrame({"part": [TaskContext.get().partitionId()], "data": [result]})

    rows = collect_pandas(frame.mapInPandas(run, "part long, data binary"))
    rows = rows.sort_values("part", kind="stable")
    return [pickle.loads(data) for data in rows["data"]]
