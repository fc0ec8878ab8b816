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

import numpy as np

from venncal.cli._io import InputError

__all__ = ["cli_fit", "cli_apply", "check_one_score_column"]

#: partitions computed at once by apply (and held in memory before they are written)
_WINDOW = 4


@contextlib.contextmanager
def connected(scheduler):
    """A ``distributed.Client`` of ``scheduler`` for the block (nothing when None)."""
    if scheduler is None:
        yield None
        return
    import distributed

    try:
        client = distributed.Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(
            f"cannot reach the Dask scheduler at {scheduler!r} (--scheduler): {text}"
        ) from None
    try:
        yield client
    finally:
        client.close()


def _frame(source, columns, as_text=False):
    """The files of ``source`` as one Dask DataFrame of ``columns`` (with ``as_text``, CSV
    values as the text the file stores: columns that are copied are not parsed)."""
    import dask.dataframe as dd

    kinds = {kind for kind, _ in source.parts}
    files = [str(p) for p in source.files()]
    if kinds == {"parquet"}:
        return dd.read_parquet(files, columns=columns)
    if "parquet" not in kinds:
        sep = "\t" if all(f.lower().endswith(".tsv") for f in files) else ","
        text = {"dtype": str, "keep_default_na": False, "na_filter": False} if as_text else {}
        return dd.read_csv(files, usecols=columns, sep=sep, blocksize="64MB", **text)
    raise InputError(
        f"{source.what} mixes CSV and Parquet files; --backend dask reads one kind at a time."
    )


def _check_columns(source, columns, where):
    shown = ", ".join(repr(str(c)) for c in source.columns[:12])
    for option, name in columns:
        if name is not None and name not in source.columns:
            raise InputError(
                f"{option} {name!r}: no such column in {where!r}; its columns are {shown}."
            )


def cli_fit(calibrator, cal_file, *, score, label, weight=None, positive=None, method, scheduler):
    """Fit ``calibrator`` on ``cal_file`` with Dask; return it and the rows and positives."""
    import pandas as pd

    import venncal.dask
    from venncal.calibration._counts import CountCalibratorMixin
    from venncal.calibration.platt import PlattCalibrator
    from venncal.cli._io import labels_column
    from venncal.cli._stream import open_source
    from venncal.dask._fit import _distinct

    if not isinstance(calibrator, (CountCalibratorMixin, PlattCalibrator)):
        raise InputError(
            f"--backend dask fits venn-abers, isotonic, histogram, sbb, abb and platt; not "
            f"{method!r} (use --backend local)."
        )
    source = open_source([cal_file], "CAL_FILE")
    _check_columns(
        source, [("--score", score), ("--label", label), ("--weight", weight)], str(cal_file)
    )
    columns = list(dict.fromkeys([score, label] + ([weight] if weight else [])))
    with connected(scheduler):
        import dask

        frame = _frame(source, columns)
        if weight is not None:  # the in-memory check of the column, on its extremes
            low, n_nan = dask.compute(frame[weight].min(), frame[weight].isna().sum())
            if n_nan or not low >= 0:
                raise InputError(
                    f"{str(cal_file)!r}: column {weight!r} (--weight): 'sample_weight' must be "
                    "non-negative numbers (NaN or negative values found)."
                )
        # the labels' distinct values, read by the command line's own rule (--positive)
        column = frame[label]
        (found,) = dask.compute(column.map_partitions(_distinct, meta=column._meta))
        found = pd.Series(list(dict.fromkeys(found.tolist())), dtype=found.dtype)
        y_found = labels_column(pd.DataFrame({label: found}), label, cal_file, positive=positive)
        positives = found[y_found == 1].tolist()
        frame = frame.assign(__venncal_y=frame[label].isin(positives).astype("int8"))
        try:
            with np.errstate(all="ignore"):
                venncal.dask.fit(calibrator, frame, score=score, label="__venncal_y", weight=weight)
        except ValueError as exc:
            text = " ".join(str(exc).split())
            raise InputError(f"cannot fit {method} on {str(cal_file)!r}: {text}") from None
        table = getattr(calibrator, "aggregate_", None)
        if weight is None and table is not None:
            rows, n_pos = int(table.n_examples), int(np.sum(table.n1))
        else:
            rows, n_pos = dask.compute(frame.map_partitions(len).sum(), frame["__venncal_y"].sum())
    return calibrator, {"rows": int(rows), "positives": int(n_pos)}


def check_one_score_column(calibrator):
    """Refuse a model of K score columns: the command line calibrates one column of scores."""
    columns = getattr(calibrator, "n_features_in_", 1)
    if columns != 1 or len(getattr(calibrator, "classes_", ())) > 2:
        raise InputError(
            f"this {type(calibrator).__name__} was fitted on {columns} score columns "
            f"({len(calibrator.classes_)} classes); venncal apply calibrates one column of "
            "binary scores: use the Python API for K-class models."
        )


def _calibrate(pdf, calibrator, score, keep, prefix, where):
    import pandas as pd

    from venncal.cli._stream import calibrated_columns

    s = pd.to_numeric(pdf[score], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(s)
    if bad.any():
        raise ValueError(
            f"{where}: column {score!r} (--score) holds {int(bad.sum())} missing or infinite "
            "score(s); remove or impute them first."
        )
    new = calibrated_columns(calibrator, s, prefix) if s.size else {}
    return pdf[keep].reset_index(drop=True), new


def cli_apply(
    calibrator,
    source,
    out,
    *,
    score,
    keep,
    prefix="",
    interval=None,
    method="the calibrator",
    fitted_on="its calibration data",
    progress=None,
    scheduler=None,
    overwrite=None,
):
    """Calibrate ``source`` with Dask and write it to ``out`` atomically; return the rows."""
    from venncal.cli._stream import Sink, _check_probabilities

    check_one_score_column(calibrator)
    if interval is not None:
        raise InputError("--interval (ACP) is not available with --backend dask.")
    keep = list(source.columns) if keep is None else list(keep)
    columns = list(dict.fromkeys([*keep, score]))
    where = ", ".join(repr(str(p)) for p in source.files()[:3])
    with connected(scheduler):
        import dask

        frame = _frame(source, columns, as_text=True)
        parts = frame.to_delayed()
        work = dask.delayed(_calibrate)
        with Sink(out, overwrite=overwrite) as sink:
            for start in range(0, len(parts), _WINDOW):
                batch = [
                    work(p, calibrator, score, keep, prefix, where)
                    for p in parts[start : start + _WINDOW]
                ]
                try:
                    results = dask.compute(*batch)
                except ValueError as exc:
                    raise InputError(" ".join(str(exc).split())) from None
                for kept, new in results:
                    if not new:
                        continue
                    _check_probabilities(new, method, fitted_on, False)
                    sink.write(kept if keep else None, new)
            return sink.rows
