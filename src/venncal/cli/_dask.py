"""``--backend dask`` of ``venncal fit`` and ``venncal apply``.

``venncal fit --backend dask`` reads CAL_FILE (CSV, Parquet, or a folder of Parquet files) as a
Dask DataFrame and fits with :func:`venncal.dask.fit`: one distributed aggregation of the class
counts per score, so the model is the one the local backend writes. ``venncal apply --backend
dask`` calibrates the partitions on the cluster and writes them, in order, to one output file
through the same atomic writer as the local backend, a few partitions at a time (bounded
memory). ``--scheduler ADDRESS`` connects to a running ``distributed`` scheduler; without it
Dask's local threads do the work.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from venncal.cli._csv import separator
from venncal.cli._engines import (
    apply_columns,
    calibrate_batch,
    check_fit_calibrator,
    check_one_score_column,
    fit_columns,
    fitting,
    label_values,
    summary,
    table_counts,
    weight_error,
)
from venncal.cli._io import InputError
from venncal.cli._progress import Steps

if TYPE_CHECKING:
    import os
    from collections.abc import Iterator, Sequence

    from venncal.cli._engines import Batch
    from venncal.cli._stream import Source

__all__ = ["cli_fit", "calibrated", "check_one_score_column"]

#: partitions computed at once by apply (and held in memory before they are written)
_WINDOW = 4

#: how long ``--scheduler`` is tried before the command gives up with a one-line error
CONNECT_TIMEOUT = "10s"


@contextlib.contextmanager
def connected(scheduler):
    """A ``distributed.Client`` of ``scheduler`` for the block (nothing when None)."""
    if scheduler is None:
        yield None
        return
    import distributed

    try:
        client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(
            f"cannot reach the Dask scheduler at {scheduler!r} (--scheduler): {text}"
        ) from None
    try:
        yield client
    finally:
        client.close()


def _frame(source: Source, columns: list[str], as_text: bool = False) -> Any:
    """The files of ``source`` as one Dask DataFrame of ``columns`` (with ``as_text``, CSV
    values as the text the file stores: columns that are copied are not parsed)."""
    import dask.dataframe as dd

    kinds = {kind for kind, _ in source.parts}
    files = [str(p) for p in source.files()]
    if kinds == {"parquet"}:
        return dd.read_parquet(files, columns=columns)
    if "parquet" not in kinds:
        text: dict[str, Any] = (
            {"dtype": str, "keep_default_na": False, "na_filter": False} if as_text else {}
        )
        # an empty line of a one-column file is a row whose value is missing (as locally)
        text["skip_blank_lines"] = len(source.columns) > 1
        seps = [separator(f, source.sep) for f in files]
        if len(set(seps)) == 1:
            return dd.read_csv(files, usecols=columns, sep=seps[0], blocksize="64MB", **text)
        # .csv and .tsv files together: each with its own separator, in order
        return dd.concat(
            [
                dd.read_csv(f, usecols=columns, sep=sep, blocksize="64MB", **text)
                for f, sep in zip(files, seps)
            ]
        )
    raise InputError(
        f"{source.what} mixes CSV and Parquet files; --backend dask reads one kind at a time."
    )


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
    scheduler: str | None,
) -> tuple[Any, dict[str, int]]:
    """Fit ``calibrator`` on ``cal_file`` with Dask; return it and the rows and positives.

    ``sep`` is the field separator of a CSV file (None: tab for .tsv, else comma); ``progress``
    shows a bar of the fit's steps (None: on a terminal).
    """
    import venncal.dask
    from venncal.dask._labels import distinct_values

    check_fit_calibrator(calibrator, "dask", method)
    source, columns = fit_columns(cal_file, score=score, label=label, weight=weight, sep=sep)
    steps = Steps(["reading the labels", "fitting on Dask"], progress)
    with connected(scheduler), steps:
        import dask

        steps.start("reading the labels")
        frame = _frame(source, columns)
        if weight is not None:  # the in-memory check of the column, on its extremes
            low, n_nan = dask.compute(frame[weight].min(), frame[weight].isna().sum())
            if n_nan or not low >= 0:
                raise weight_error(cal_file, weight)
        # the labels' distinct values, read by the command line's own rule (--positive)
        column = frame[label]
        (found,) = dask.compute(column.map_partitions(distinct_values, meta=column._meta))
        found, y_found, positives = label_values(
            list(dict.fromkeys(found.tolist())), found.dtype, label, cal_file, positive
        )
        frame = frame.assign(__venncal_y=frame[label].isin(positives).astype("int8"))
        steps.start("fitting on Dask")
        with fitting(method, cal_file):
            venncal.dask.fit(calibrator, frame, score=score, label="__venncal_y", weight=weight)
        counts = table_counts(calibrator, weight)
        if counts is None:
            counts = dask.compute(frame.map_partitions(len).sum(), frame["__venncal_y"].sum())
    return summary(calibrator, *counts)


@contextlib.contextmanager
def calibrated(
    calibrator: Any,
    source: Source,
    *,
    score: str,
    keep: Sequence[str] | None,
    prefix: str = "",
    interval: Sequence[str] | None = None,
    scheduler: str | None = None,
) -> Iterator[tuple[list[str], Iterator[Batch]]]:
    """The kept columns and the calibrated batches of ``source``, in order, computed with Dask
    (on ``scheduler``, else in this process) while the block runs."""
    keep, columns, where = apply_columns(
        calibrator, source, score=score, keep=keep, interval=interval, backend="dask"
    )
    with connected(scheduler):
        import dask

        frame = _frame(source, columns, as_text=True)
        parts = frame.to_delayed()
        work = dask.delayed(calibrate_batch)

        def batches() -> Iterator[Batch]:
            for start in range(0, len(parts), _WINDOW):
                batch = [
                    work(p, calibrator, score, keep, prefix, where)
                    for p in parts[start : start + _WINDOW]
                ]
                try:
                    results = dask.compute(*batch)
                except ValueError as exc:
                    raise InputError(" ".join(str(exc).split())) from None
                yield from results

        yield keep, batches()
