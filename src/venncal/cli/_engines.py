"""What ``--backend dask`` and ``--backend spark`` share: the checks, messages and per-batch
calibration of ``venncal fit`` and ``venncal apply`` that do not depend on the engine.

Neither Dask nor PySpark is imported here: each engine's module brings its own.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli._io import InputError

if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Iterable, Iterator, Sequence

    import numpy.typing as npt
    import pandas as pd

    from venncal._typing import ArrayLike, FloatArray
    from venncal.cli._stream import Source

    #: one calibrated batch of rows: its kept columns and its new columns
    Batch = tuple[pd.DataFrame, dict[str, FloatArray]]

__all__ = [
    "apply_columns",
    "calibrate_batch",
    "check_columns",
    "check_fit_calibrator",
    "check_one_score_column",
    "fit_columns",
    "fitting",
    "label_values",
    "summary",
    "table_counts",
    "weight_error",
    "write_output",
    "apply_on",
]


def check_columns(source: Source, columns: Iterable[tuple[str, str | None]], where: str) -> None:
    """Refuse an option that names a column ``source`` does not have."""
    shown = ", ".join(repr(str(c)) for c in source.columns[:12])
    for option, name in columns:
        if name is not None and name not in source.columns:
            raise InputError(
                f"{option} {name!r}: no such column in {where!r}; its columns are {shown}."
            )


def check_fit_calibrator(calibrator: object, backend: str, method: str) -> None:
    """Refuse a calibrator the ``backend`` cannot fit from its aggregations."""
    from venncal.calibration._counts import CountCalibratorMixin
    from venncal.calibration.platt import PlattCalibrator

    if not isinstance(calibrator, (CountCalibratorMixin, PlattCalibrator)):
        raise InputError(
            f"--backend {backend} fits venn-abers, isotonic, histogram, sbb, abb and platt; not "
            f"{method!r} (use --backend local)."
        )


def fit_columns(
    cal_file: str | os.PathLike[str],
    *,
    score: str,
    label: str,
    weight: str | None,
    sep: str | None = None,
) -> tuple[Source, list[str]]:
    """The source of ``cal_file`` (its columns checked, a CSV file's fields split at ``sep``)
    and the columns the fit reads."""
    from venncal.cli._stream import open_source

    source = open_source([cal_file], "CAL_FILE", sep)
    check_columns(
        source, [("--score", score), ("--label", label), ("--weight", weight)], str(cal_file)
    )
    columns = list(dict.fromkeys([score, label] + ([weight] if weight else [])))
    return source, columns


def weight_error(cal_file: str | os.PathLike[str], weight: str) -> InputError:
    """The error of a weight column holding NaN or negative values."""
    return InputError(
        f"{str(cal_file)!r}: column {weight!r} (--weight): 'sample_weight' must be "
        "non-negative numbers (NaN or negative values found)."
    )


def label_values(
    values: ArrayLike,
    dtype: npt.DTypeLike,
    label: str,
    cal_file: str | os.PathLike[str],
    positive: str | None,
) -> tuple[pd.Series, npt.NDArray[np.int8], list[Any]]:
    """The distinct labels ``values`` read by the command line's own rule (``--positive``):
    the labels as a Series, their 0/1 codes and the list of the positive ones."""
    import pandas as pd

    from venncal.cli._io import labels_column

    found = pd.Series(values, dtype=dtype)
    y_found = labels_column(pd.DataFrame({label: found}), label, cal_file, positive=positive)
    return found, y_found, found[y_found == 1].tolist()


@contextlib.contextmanager
def fitting(method: str, cal_file: str | os.PathLike[str]) -> Iterator[None]:
    """The block of the fit: numpy's warnings silenced, a ValueError as one line."""
    try:
        with np.errstate(all="ignore"):
            yield
    except ValueError as exc:
        text = " ".join(str(exc).split())
        raise InputError(f"cannot fit {method} on {str(cal_file)!r}: {text}") from None


def table_counts(calibrator: object, weight: str | None) -> tuple[int, int] | None:
    """The rows and positives of the fitted table without weights, or None (to be counted)."""
    table = getattr(calibrator, "aggregate_", None)
    if weight is None and table is not None:
        return int(table.n_examples), int(np.sum(table.n1))
    return None


def summary(calibrator: Any, rows: int, n_pos: int | None) -> tuple[Any, dict[str, int]]:
    """What ``cli_fit`` returns: the calibrator and its rows and positives."""
    return calibrator, {"rows": int(rows), "positives": int(n_pos or 0)}


def check_one_score_column(calibrator: Any) -> None:
    """Refuse a model of K score columns: the command line calibrates one column of scores."""
    columns = getattr(calibrator, "n_features_in_", 1)
    if columns != 1 or len(getattr(calibrator, "classes_", ())) > 2:
        raise InputError(
            f"this {type(calibrator).__name__} was fitted on {columns} score columns "
            f"({len(calibrator.classes_)} classes); venncal apply calibrates one column of "
            "binary scores: use the Python API for K-class models."
        )


def apply_columns(
    calibrator: object,
    source: Source,
    *,
    score: str,
    keep: Sequence[str] | None,
    interval: Sequence[str] | None,
    backend: str,
) -> tuple[list[str], list[str], str]:
    """The checks of ``venncal apply`` on an engine: the kept columns, the columns read and
    the files named in errors."""
    check_one_score_column(calibrator)
    if interval is not None:
        raise InputError(f"--interval (ACP) is not available with --backend {backend}.")
    keep = list(source.columns) if keep is None else list(keep)
    columns = list(dict.fromkeys([*keep, score]))
    where = ", ".join(repr(str(p)) for p in source.files()[:3])
    return keep, columns, where


def calibrate_batch(
    pdf: pd.DataFrame, calibrator: Any, score: str, keep: list[str], prefix: str, where: str
) -> tuple[pd.DataFrame, dict[str, FloatArray]]:
    """One pandas batch of rows: its kept columns and the new calibrated columns."""
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


def write_output(
    out: str | os.PathLike[str],
    batches: Iterable[Batch],
    *,
    keep: list[str],
    method: str,
    fitted_on: str,
    total: int | None = None,
    progress: bool | None = None,
    overwrite: bool | None = None,
    sep: str | None = None,
) -> int:
    """Write the calibrated ``batches`` (kept columns, new columns) to ``out`` atomically, in
    order, each checked for probabilities outside [0, 1] first; return the rows written.

    ``total`` is the number of rows (None when not known) of the bar shown on standard error
    with ``progress`` (None: on a terminal); ``overwrite`` and ``sep`` are those of
    :class:`venncal.cli._stream.Sink`.
    """
    from venncal.cli._progress import progress_bar
    from venncal.cli._stream import Sink, _check_probabilities

    with Sink(out, overwrite=overwrite, sep=sep) as sink, progress_bar(total, progress) as bar:
        for kept, new in batches:
            if not new:
                continue
            _check_probabilities(new, method, fitted_on, False)
            sink.write(kept if keep else None, new)
            bar.update(len(next(iter(new.values()))))
        return int(sink.rows)


def apply_on(
    calibrated: Callable[..., contextlib.AbstractContextManager[tuple[list[str], Iterable[Batch]]]],
    calibrator: Any,
    source: Source,
    out: str | os.PathLike[str],
    *,
    score: str,
    keep: Sequence[str] | None,
    prefix: str = "",
    interval: Sequence[str] | None = None,
    method: str = "the calibrator",
    fitted_on: str = "its calibration data",
    progress: bool | None = None,
    overwrite: bool | None = None,
    out_sep: str | None = None,
    **engine: Any,
) -> int:
    """``venncal apply`` on an engine: the batches of ``calibrated(calibrator, source, ...,
    **engine)`` (an engine module's ``calibrated``) written to ``out`` by :func:`write_output`;
    return the rows written."""
    options = {"score": score, "keep": keep, "prefix": prefix, "interval": interval}
    with calibrated(calibrator, source, **options, **engine) as (kept, batches):
        return write_output(
            out,
            batches,
            keep=kept,
            method=method,
            fitted_on=fitted_on,
            total=source.num_rows,
            progress=progress,
            overwrite=overwrite,
            sep=out_sep,
        )
