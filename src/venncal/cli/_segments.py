"""Segment columns on the command line: multicalibration.

``venncal fit --method multicalibration --segments a,b,c`` fits a
:class:`~venncal.MulticalibrationCalibrator` on the score, the label and the segment
columns of the calibration table; ``venncal apply`` reads the model's segment columns (by
the names the model stores) beside the score, chunk by chunk, and writes ``p``, ``p0`` and
``p1``: the calibrator's ``predict_proba`` and ``predict_interval``.

Segment values are read the same way at fit and at apply, so a level seen at fit is the same
level later:

* a categorical column is text: a CSV value as the file stores it (the texts a CSV reader
  takes for a missing value, such as an empty field or ``NA``, are missing), a Parquet value
  as Python prints it (``1``, ``2.5``, ``True``; nulls are missing);
* a numerical column holds numbers: a CSV value is parsed (a missing text is a missing
  value, any other text that is not a number is one line naming its column and row), a
  Parquet column must store integers or floats.

Without ``--categorical``/``--numerical`` a column is numerical when the table stores it as
numbers (a CSV column whose values all read as numbers), categorical otherwise: the
calibrator's own rule for a frame of the table's columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli._io import InputError

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

    import pandas as pd

    from venncal._typing import FloatArray
    from venncal.cli._stream import Source

__all__ = [
    "SEGMENT_METHODS",
    "SegmentColumns",
    "check_segment_columns",
    "is_segment_model",
    "segment_kinds",
    "segment_frame",
    "read_segments",
    "split_names",
]

#: command-line name -> (public name in venncal, fixed parameters, what it is)
SEGMENT_METHODS: dict[str, tuple[str, dict[str, Any], str]] = {
    "multicalibration": (
        "MulticalibrationCalibrator",
        {},
        "calibrated within every segment of --segments columns: boosting on the segments, "
        "then Venn-Abers (scores are probabilities, in [0, 1])",
    ),
}


def split_names(text: str, option: str) -> list[str]:
    """The comma-separated column names of ``text``, each once; an empty name is one line.

    Examples
    --------
    >>> split_names("region, age", "--segments")
    ['region', 'age']
    """
    names = [c.strip() for c in text.split(",")]
    if not all(names):
        raise InputError(
            f"{option} {text!r} has an empty column name; give names separated by ','."
        )
    repeated = [c for c in dict.fromkeys(names) if names.count(c) > 1]
    if repeated:
        raise InputError(f"{option} {text!r} names the column {repeated[0]!r} twice.")
    return names


def segment_kinds(
    frame: pd.DataFrame,
    segments: Sequence[str],
    categorical: Sequence[str],
    numerical: Sequence[str],
) -> tuple[list[str], list[str]]:
    """The categorical and numerical columns of ``segments``: those named by
    ``--categorical``/``--numerical``, the others by their type in ``frame`` (numbers, not
    booleans, are numerical), in the order of ``segments``."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    for option, names in (("--categorical", categorical), ("--numerical", numerical)):
        outside = [c for c in names if c not in segments]
        if outside:
            raise InputError(
                f"{option} names {outside[0]!r}, which is not one of --segments "
                f"({', '.join(segments)}); name it in --segments too."
            )
    both = [c for c in categorical if c in numerical]
    if both:
        raise InputError(f"{both[0]!r} is in both --categorical and --numerical; choose one.")
    cat, num = [], []
    for c in segments:
        if c in categorical:
            cat.append(c)
        elif c in numerical or (is_numeric_dtype(frame[c]) and not is_bool_dtype(frame[c])):
            num.append(c)
        else:
            cat.append(c)
    return cat, num


def _is_csv(path: str | os.PathLike[str]) -> bool:
    from venncal.cli._io import _CSV

    return str(path).lower().endswith(_CSV)


def _categorical(col: Any, csv: bool) -> Any:
    """A categorical column of a chunk as Python text, None where missing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = np.array([None if v is None else str(v) for v in col.to_pylist()], dtype=object)
    if csv and len(col):
        from venncal.cli._csv import MISSING_TEXTS

        missing = pc.is_in(col, value_set=pa.array(sorted(MISSING_TEXTS), pa.string()))
        values[np.asarray(missing.to_pylist(), dtype=bool)] = None
    return values


def _numerical(col: Any, name: str, path: str | os.PathLike[str], offset: int) -> FloatArray:
    """A numerical column of a chunk as float64, NaN where missing; text that is not a
    number, and infinity, are one line naming the row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if _is_csv(path):
        from venncal.cli._csv import MISSING_TEXTS

        text = pc.utf8_trim_whitespace(col)
        missing = pc.is_in(text, value_set=pa.array(sorted(MISSING_TEXTS), pa.string()))
        text = pc.if_else(missing, pa.scalar(None, pa.string()), text)
        try:
            col = pc.cast(text, pa.float64())
        except pa.ArrowInvalid:
            from venncal.cli._csv import _first_failure

            row: int = _first_failure(text, pa, pc)  # type: ignore[no-untyped-call]
            raise InputError(
                f"{str(path)!r}: column {name!r} (a numerical segment column) must hold "
                f"numbers; row {offset + row} holds {str(text[row].as_py())[:80]!r}."
            ) from None
    elif not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        raise InputError(
            f"{str(path)!r}: column {name!r} (a numerical segment column) must hold numbers; "
            f"it is of type {col.type}."
        )
    values = np.asarray(col.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    bad = np.isinf(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{str(path)!r}: column {name!r} (a numerical segment column) is infinite at row "
            f"{offset + row}; numerical segments must be finite or missing."
        )
    return values


def segment_frame(
    chunk: Any,
    categorical: Sequence[str],
    numerical: Sequence[str],
    path: str | os.PathLike[str],
    offset: int,
) -> pd.DataFrame:
    """The segment columns of a chunk (a pyarrow record batch) as the calibrator takes them:
    categorical columns as text (None where missing), numerical ones as float64 (NaN where
    missing). ``offset``: the rows of the file before the chunk, for messages."""
    import pandas as pd

    csv = _is_csv(path)
    names = list(chunk.schema.names)
    columns: dict[str, Any] = {}
    for c in categorical:
        columns[c] = _categorical(chunk.column(names.index(c)), csv)
    for c in numerical:
        columns[c] = _numerical(chunk.column(names.index(c)), c, path, offset)
    return pd.DataFrame(columns, index=pd.RangeIndex(chunk.num_rows))


def check_segment_columns(source: Source, names: Sequence[str], what: str) -> None:
    """One line when a segment column is not in the input (``what`` says whose columns they
    are)."""
    missing = [c for c in names if c not in source.columns]
    if missing:
        shown = ", ".join(repr(str(c)) for c in source.columns[:12])
        more = ", ..." if len(source.columns) > 12 else ""
        raise InputError(
            f"{what} {missing[0]!r}: no such column in {str(source.files()[0])!r}; its columns "
            f"are {shown}{more}."
        )


def read_segments(
    path: str | os.PathLike[str],
    categorical: Sequence[str],
    numerical: Sequence[str],
    rows: int,
    sep: str | None = None,
) -> pd.DataFrame:
    """The segment columns of a whole calibration table (every file of a folder, in order),
    read as :func:`segment_frame` reads a chunk at apply; ``rows``: the rows the table's
    scores have (a different count is one line)."""
    import pandas as pd

    from venncal.cli._stream import open_source

    source = open_source([path], "CAL_FILE", sep)
    names = [*categorical, *numerical]
    parts, offset, current = [], 0, None
    for file, chunk in source.chunks(names):
        if file != current:
            offset, current = 0, file
        parts.append(segment_frame(chunk, categorical, numerical, file, offset))
        offset += chunk.num_rows
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=names)
    if frame.shape[0] != rows:
        raise InputError(
            f"CAL_FILE {str(path)!r}: the segment columns have {frame.shape[0]} rows but the "
            f"scores {rows}; check the file for blank or malformed lines."
        )
    for c in names:
        if frame.shape[0] and frame[c].isna().all():
            raise InputError(
                f"CAL_FILE {str(path)!r}: the segment column {c!r} (--segments) is missing in "
                "every row; a segment column needs values (is it the right column?)."
            )
    return frame


def is_segment_model(model: object) -> bool:
    """Whether a loaded model needs segment columns besides the scores."""
    return hasattr(model, "categorical_") and hasattr(model, "numerical_")


class SegmentColumns:
    """A fitted multicalibration model and the columns ``venncal apply`` writes of it.

    :func:`venncal.cli._stream.apply_stream` reads :attr:`input_columns` besides the scores
    and calls :meth:`chunk_columns` on each chunk: ``p`` is ``predict_proba``, ``p0`` and
    ``p1`` are ``predict_interval``, of the chunk's scores and segments.

    Parameters
    ----------
    calibrator : MulticalibrationCalibrator
        Fitted.

    Examples
    --------
    >>> import pandas as pd
    >>> from venncal import MulticalibrationCalibrator
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.1, 0.9, 600)
    >>> seg = pd.DataFrame({"group": rng.choice(["a", "b"], 600)})
    >>> cal = MulticalibrationCalibrator().fit(p, rng.random(600) < p, segments=seg)
    >>> SegmentColumns(cal).column_names("cal_")
    ['cal_p', 'cal_p0', 'cal_p1']
    """

    model_name = "MulticalibrationCalibrator"

    def __init__(self, calibrator: Any) -> None:
        self.calibrator = calibrator
        self.categorical = list(calibrator.categorical_)
        self.numerical = list(calibrator.numerical_)
        self.input_columns = [*self.categorical, *self.numerical]

    def column_names(self, prefix: str = "") -> list[str]:
        """The names of the new columns."""
        return [prefix + "p", prefix + "p0", prefix + "p1"]

    def chunk_columns(
        self,
        scores: FloatArray,
        chunk: Any,
        path: str | os.PathLike[str],
        offset: int,
        prefix: str = "",
    ) -> dict[str, FloatArray]:
        """The new columns for clean scores and the segment columns of their chunk."""
        frame = segment_frame(chunk, self.categorical, self.numerical, path, offset)
        p = self.calibrator.predict_proba(scores, segments=frame)[:, 1]
        interval = self.calibrator.predict_interval(scores, segments=frame)
        names = self.column_names(prefix)
        columns = [p, interval[:, 0], interval[:, 1]]
        return {n: np.ascontiguousarray(v, dtype=np.float64) for n, v in zip(names, columns)}
