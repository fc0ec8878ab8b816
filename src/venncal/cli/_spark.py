"""``--backend spark`` of ``venncal fit`` and ``venncal apply``.

``venncal fit --backend spark`` reads CAL_FILE (CSV, Parquet, or a folder of Parquet files) as
a Spark DataFrame and fits with :func:`venncal.spark.fit`: one Spark aggregation of the class
counts per score, so the model is the one the local backend writes. ``venncal apply --backend
spark`` calibrates the rows on Spark (the model broadcast to the executors) and brings them
back to this process one partition at a time, in order, to write one output file through the
same atomic writer as the local backend: Spark writes nothing itself, so no folder of part
files is created or removed.

The Spark session is the active one when there is one (``spark-submit``, a notebook); otherwise
a local session (``local[*]``) is started for the command and stopped at its end, whose Python
workers run the interpreter that runs venncal (unless ``PYSPARK_PYTHON`` says otherwise). Spark
needs a Java runtime (17 or later).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import sys
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli._csv import separator
from venncal.cli._engines import (
    apply_columns,
    calibrate_batch,
    check_fit_calibrator,
    fit_columns,
    fitting,
    label_values,
    summary,
    table_counts,
    weight_error,
)
from venncal.cli._io import InputError, refuse_empty_lines
from venncal.cli._progress import Steps

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from pyspark.sql import SparkSession

    from venncal.cli._engines import Batch
    from venncal.cli._stream import Source

__all__ = ["cli_fit", "calibrated", "session"]


def _check_java() -> None:
    if os.environ.get("JAVA_HOME") or shutil.which("java"):
        return
    raise InputError(
        "--backend spark needs a Java runtime (17 or later) on PATH or in JAVA_HOME; on "
        "Debian or Ubuntu: apt-get install default-jre-headless."
    )


@contextlib.contextmanager
def session() -> Iterator[SparkSession]:
    """The active Spark session, or a local one started (and stopped) for the block."""
    from pyspark.sql import SparkSession

    with warnings.catch_warnings():
        # PySpark's notice about untested pandas versions, once per call: not the user's
        warnings.filterwarnings("ignore", "PySpark does not yet", FutureWarning)
        active = SparkSession.getActiveSession()
        if active is not None:
            yield active
            return
        with _started() as spark:
            yield spark


@contextlib.contextmanager
def _workers_run_this_python() -> Iterator[None]:
    """PySpark starts its Python workers with ``PYSPARK_PYTHON``, else the ``python3`` on PATH,
    which is not this interpreter when ``venncal`` is run by its full path from an environment
    that is not activated (a cron job, a container): the workers would lack venncal. While the
    session starts (it reads the variable once), the variable names this interpreter unless the
    user set it; it is restored afterwards. A session the user made is left as configured."""
    if os.environ.get("PYSPARK_PYTHON"):
        yield
        return
    os.environ["PYSPARK_PYTHON"] = sys.executable
    try:
        yield
    finally:
        os.environ.pop("PYSPARK_PYTHON", None)


@contextlib.contextmanager
def _started():
    """A local Spark session for the block, stopped at its end."""
    from pyspark.sql import SparkSession

    _check_java()
    with _workers_run_this_python():
        spark = (
            SparkSession.builder.appName("venncal")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        yield spark
    finally:
        spark.stop()


def _frame(spark, source, columns, as_text=False):
    """The files of ``source`` as one Spark DataFrame of ``columns``, rows in the files' order
    (with ``as_text``, CSV values as the text the file stores: copied columns are not parsed).

    Each file is read on its own and the reads are concatenated in order: Spark's reader of
    several files would pack them into partitions by size, out of order.
    """
    kinds = {kind for kind, _ in source.parts}
    files = [str(p) for p in source.files()]
    if kinds == {"parquet"}:

        def read(path):
            return spark.read.parquet(path)

    elif "parquet" not in kinds:
        if len(source.columns) == 1:  # Spark's reader drops empty lines, another reader's rows
            for path in files:
                refuse_empty_lines(path, separator(path, source.sep), source.what)

        def read(path):
            sep = separator(path, source.sep)
            return spark.read.csv(path, header=True, sep=sep, inferSchema=not as_text)

    else:
        raise InputError(
            f"{source.what} mixes CSV and Parquet files; --backend spark reads one kind at a time."
        )
    frame = None
    for path in files:
        part = read(path)
        part = part.select(*[part[c] for c in columns])
        frame = part if frame is None else frame.unionByName(part)
    return frame


def cli_fit(
    calibrator: Any,
    cal_file: str | os.PathLike[str],
    *,
    score: str,
    label: str,
    weight: str | None = None,
    positive: str | None = None,
    method: str,
    sep: str | None = None,
    progress: bool | None = None,
) -> tuple[Any, dict[str, int]]:
    """Fit ``calibrator`` on ``cal_file`` with Spark; return it and the rows and positives.

    ``sep`` is the field separator of a CSV file (None: tab for .tsv, else comma); ``progress``
    shows a bar of the fit's steps (None: on a terminal).
    """
    import pyspark.sql.functions as F

    import venncal.spark
    from venncal.cli._fitting import warn_if_ranked_below
    from venncal.exceptions import VenncalWarning
    from venncal.spark._frames import collect_pandas

    check_fit_calibrator(calibrator, "spark", method)
    source, columns = fit_columns(cal_file, score=score, label=label, weight=weight, sep=sep)
    steps = Steps(["reading the labels", "fitting on Spark"], progress)
    with session() as spark, steps:
        steps.start("reading the labels")
        frame = _frame(spark, source, columns)
        if weight is not None:  # the in-memory check of the column, on its extremes
            w = F.col(weight).cast("double")
            low, n_bad = frame.agg(
                F.min(w), F.sum(F.when(F.isnan(w) | w.isNull(), 1).otherwise(0))
            ).first()
            if n_bad or (low is not None and not low >= 0):
                raise weight_error(cal_file, weight)
        # the labels' distinct values, read by the command line's own rule (--positive)
        found = collect_pandas(frame.select(label).distinct())[label]
        found, y_found, positives = label_values(
            found.tolist(), found.dtype, label, cal_file, positive
        )
        frame = frame.withColumn("__venncal_y", F.col(label).isin(positives).cast("int"))
        steps.start("fitting on Spark")
        with fitting(method, cal_file), warnings.catch_warnings():
            # said below, with the file's label names, as the local backend says it
            warnings.filterwarnings(
                "ignore", message="the scores rank the positive class", category=VenncalWarning
            )
            venncal.spark.fit(calibrator, frame, score=score, label="__venncal_y", weight=weight)
        table = getattr(calibrator, "aggregate_", None)
        if table is not None:  # the table's weighted rows rank as the rows behind them
            s_rows, y_rows, w_rows = table.rows()
            names = np.where(y_rows == 1, positives[0], found[y_found == 0].iloc[0])
            warn_if_ranked_below(names, y_rows, s_rows, w_rows, column=score, positive=positive)
        counts = table_counts(calibrator, weight)
        if counts is None:
            counts = frame.agg(F.count(F.lit(1)), F.sum("__venncal_y")).first()
    return summary(calibrator, *counts)


def _python_error(exc):
    """The one-line message of a ValueError raised on an executor, or None."""
    lines = [line for line in str(exc).splitlines() if line.startswith("ValueError: ")]
    return lines[-1][len("ValueError: ") :].strip() if lines else None


@contextlib.contextmanager
def calibrated(
    calibrator: Any,
    source: Source,
    *,
    score: str,
    keep: Sequence[str] | None,
    prefix: str = "",
    interval: Sequence[str] | None = None,
) -> Iterator[tuple[list[str], Iterator[Batch]]]:
    """The kept columns and the calibrated batches of ``source``, in order, computed on Spark
    (the model broadcast to the executors) while the block runs."""
    import pandas as pd

    from venncal.spark._apply import _shipped

    keep, columns, where = apply_columns(
        calibrator, source, score=score, keep=keep, interval=interval, backend="spark"
    )
    with session() as spark:
        frame = _frame(spark, source, columns, as_text=True)
        get = _shipped(frame, calibrator)

        def work(batches):
            model = get()
            for pdf in batches:
                kept, new = calibrate_batch(pdf, model, score, keep, prefix, where)
                if new:
                    yield pd.DataFrame({"data": [pickle.dumps((kept, new))]})

        results = frame.mapInPandas(work, "data binary").toLocalIterator(prefetchPartitions=True)

        def batches() -> Iterator[Batch]:
            try:
                for row in results:
                    yield pickle.loads(row["data"])
            except Exception as exc:
                text = _python_error(exc)
                if text is None:
                    raise
                raise InputError(" ".join(text.split())) from None

        yield keep, batches()
