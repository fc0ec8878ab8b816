"""Reading and writing users' tables for the command line (CSV or Parquet).

Every problem with what the user gave is raised as :class:`InputError`, which click prints as a
one-line ``Error: ...`` message and turns into exit code 2.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np

from venncal._files import write_csv, write_parquet
from venncal._validation import check_binary_labels, check_probabilities, check_scores
from venncal.cli._extras import require_extra

if TYPE_CHECKING:
    from collections.abc import Iterable

    import numpy.typing as npt
    import pandas as pd

    from venncal._typing import AnyArray, FloatArray

__all__ = [
    "InputError",
    "read_table",
    "write_table",
    "check_table_file",
    "check_output_free",
    "check_not_an_input",
    "get_column",
    "scores_column",
    "weight_column",
    "labels_column",
    "probabilities_column",
]

_CSV = (".csv", ".txt", ".tsv")
_PARQUET = (".parquet", ".pq")


class InputError(click.ClickException):
    """A one-line error about the user's input; exit code 2 (like a usage error)."""

    exit_code = 2

    def __init__(self, message: object) -> None:
        super().__init__(" ".join(str(message).split()))


def _kind(path: str | os.PathLike[str], what: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in _CSV:
        return "csv"
    if suffix in _PARQUET:
        return "parquet"
    raise InputError(
        f"{what} {str(path)!r} must end in .csv, .tsv, .txt (comma-separated), .parquet or .pq "
        f"(got {suffix or 'no suffix'!r})."
    )


_PARQUET_ENGINES = ("pyarrow", "fastparquet")


def check_table_file(path: str | os.PathLike[str], what: str, doing: str = "reading") -> None:
    """Check the suffix of a table file and that its format can be read or written here.

    Called before any work starts, so a wrong suffix or a missing optional dependency
    (``venncal[parquet]``) is one line with exit code 2 before anything is fitted or written.
    """
    if _kind(path, what) == "parquet":
        require_extra(_PARQUET_ENGINES, "parquet", f"{doing} Parquet ({what} {str(path)!r})")


def _check_csv_layout(path, sep, what):
    """Refuse what pandas would read silently wrong: ragged rows, repeated column names, and
    text that is not UTF-8; return the number of columns."""
    try:
        return _check_csv_rows(path, sep, what)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"cannot read {what} {str(path)!r}: it is not UTF-8 text (byte {exc.start} cannot "
            "be decoded); save it as UTF-8."
        ) from None


def _check_csv_rows(path, sep, what):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=sep)
        header = next(reader, None)
        if not header:
            raise InputError(
                f"cannot read {what} {str(path)!r} as CSV: it is empty or its first line "
                "(the header) is."
            )
        seen = set()
        for name in header:
            if name in seen:
                raise InputError(
                    f"{what} {str(path)!r} has the column name {name!r} more than once; "
                    "column names must be unique."
                )
            seen.add(name)
        for row in reader:
            if row and len(row) != len(header):
                raise InputError(
                    f"cannot read {what} {str(path)!r} as CSV: line {reader.line_num} has "
                    f"{len(row)} fields but the header has {len(header)}; every row needs one "
                    "value per column."
                )
        return len(header)


def refuse_empty_lines(path: str | os.PathLike[str], sep: str, what: str) -> None:
    """Refuse a one-column CSV file with an empty line after its header, for a reader that
    would drop it: there it is a row whose value is missing (as ``cut`` writes one)."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=sep)
        next(reader, None)
        for row in reader:
            if not row:
                raise InputError(
                    f"{what} {str(path)!r}: line {reader.line_num} is empty, a missing value "
                    "(--backend spark would drop it and write fewer rows than it read)."
                )


def read_table(
    path: str | os.PathLike[str], what: str = "input file", sep: str | None = None
) -> pd.DataFrame:
    """Read a CSV (``sep``, by default comma, or tab for .tsv) or Parquet file into a DataFrame.

    CSV files must be UTF-8 (a byte-order mark is accepted), every row must have as many fields
    as the header, and column names must be unique; otherwise :class:`InputError`.
    """
    import pandas as pd  # imported when needed: a command that streams does without it

    path = Path(path)
    kind = _kind(path, what)
    if not path.is_file():
        raise InputError(f"{what} {str(path)!r} does not exist or is not a file.")
    try:
        if kind == "parquet":
            frame = pd.read_parquet(path)
        else:
            sep = sep or ("\t" if path.suffix.lower() == ".tsv" else ",")
            n_columns = _check_csv_layout(path, sep, what)
            # an empty line of a one-column file is a row whose value is missing, not nothing
            frame = pd.read_csv(path, sep=sep, encoding="utf-8-sig", index_col=False,
                                skip_blank_lines=n_columns > 1)  # fmt: skip
    except ImportError:
        raise InputError(
            f'reading Parquet ({what} {str(path)!r}) needs pyarrow; pip install "venncal[parquet]".'
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"cannot read {what} {str(path)!r}: it is not UTF-8 text (byte {exc.start} cannot "
            "be decoded); save it as UTF-8."
        ) from None
    except (
        pd.errors.ParserError,
        pd.errors.EmptyDataError,
        csv.Error,
        OSError,
        ValueError,
    ) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"cannot read {what} {str(path)!r} as {kind.upper()}: {first}") from None
    repeated = frame.columns[frame.columns.duplicated()]
    if len(repeated):
        raise InputError(
            f"{what} {str(path)!r} has the column name {str(repeated[0])!r} more than once; "
            "column names must be unique."
        )
    if frame.shape[0] == 0:
        raise InputError(f"{what} {str(path)!r} has no data rows.")
    return frame


def path_kind(path: str | os.PathLike[str], what: str, *, follow: bool = True) -> str | None:
    """``"dir"``, ``"file"`` (anything else that exists, links too without ``follow``) or None.

    A path that cannot be looked at (a folder on the way that is not searchable, say) is one
    line, where :meth:`pathlib.Path.exists` would raise a PermissionError.
    """
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if follow and os.path.islink(path):  # a dangling or looping link: not there
            return None
        raise InputError(
            f"cannot look at {what} {str(path)!r}: {exc.strerror or exc} (check the "
            "permissions of the folders on its way)."
        ) from None
    import stat

    return "dir" if stat.S_ISDIR(st.st_mode) else "file"


def check_output_free(
    path: str | os.PathLike[str], force: bool, what: str = "output", *, need_folder: bool = True
) -> None:
    """Refuse to overwrite an existing file unless ``force``; check the folder exists."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    folder = path_kind(parent, f"the folder of {what}") if need_folder else "dir"
    exists = path_kind(path, what, follow=False) is not None if folder else False
    if exists and not force:  # a symbolic link, dangling or not, is a file here
        raise InputError(f"{what} {str(path)!r} already exists; pass --force to overwrite it.")
    if exists and path_kind(path, what) == "dir":
        raise InputError(f"{what} {str(path)!r} is a folder; give a file name.")
    if need_folder and folder == "file":
        raise InputError(f"the folder of {what} {str(path)!r} is a file, not a folder.")
    if need_folder and folder is None:
        raise InputError(f"the folder of {what} {str(path)!r} does not exist; create it first.")


def appeared_meanwhile(path: str | os.PathLike[str], what: str = "output") -> InputError:
    """The one-line error for an output that appeared while venncal was writing it."""
    return InputError(
        f"{what} {str(path)!r} appeared while venncal was writing it and was left as it is; "
        "pass --force to overwrite it."
    )


def check_not_an_input(
    path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]], what: str = "output"
) -> None:
    """Refuse an output that is the same file as an input (links included), even with --force."""
    path = Path(path)
    for source in inputs:
        try:
            same = path.exists() and Path(source).exists() and os.path.samefile(path, source)
        except OSError:
            same = False
        if same:
            raise InputError(
                f"{what} {str(path)!r} is the input file {str(source)!r}; venncal never "
                "overwrites its input: choose another output."
            )


def write_table(
    frame: pd.DataFrame,
    path: str | os.PathLike[str],
    force: bool,
    what: str = "output",
    *,
    overwrite: bool | None = None,
    sep: str | None = None,
) -> None:
    """Write a DataFrame to CSV or Parquet by the file's suffix, atomically.

    A reader, or a crash while writing, sees the old file or the complete new one. ``overwrite``
    is whether an existing file may be replaced, as the command decided at its start (see
    :func:`venncal.cli._outputs.plan_overwrites`); None decides now: only a file that exists
    now, with ``force``.
    """
    path = Path(path)
    kind = _kind(path, what)
    check_output_free(path, force or bool(overwrite), what)
    # replace only a file that --force was given for: one that appears meanwhile is kept
    if overwrite is None:
        overwrite = force and os.path.lexists(path)
    try:
        if kind == "parquet":
            write_parquet(frame, path, index=False, overwrite=overwrite)
        else:
            sep = sep or ("\t" if path.suffix.lower() == ".tsv" else ",")
            write_csv(frame, path, index=False, sep=sep, overwrite=overwrite)
    except FileExistsError:
        raise appeared_meanwhile(path, what) from None
    except ImportError:
        raise InputError(
            f'writing Parquet ({what} {str(path)!r}) needs pyarrow; pip install "venncal[parquet]".'
        ) from None
    except OSError as exc:
        raise InputError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}.") from None


def get_column(
    frame: pd.DataFrame, name: str, path: str | os.PathLike[str], option: str
) -> pd.Series:
    """Return a column of ``frame``; missing columns name the available ones."""
    if name not in frame.columns:
        shown = ", ".join(repr(str(c)) for c in list(frame.columns)[:12])
        more = ", ..." if frame.shape[1] > 12 else ""
        raise InputError(
            f"{option} {name!r}: no such column in {str(path)!r}; its columns are {shown}{more}."
        )
    return frame[name]


def _reword(exc, option, name, path):
    # one pass: a column named y or scores is not replaced again inside its own replacement
    text = re.sub("'scores'|'y_proba'|'y'", lambda _: f"column {name!r} ({option})", str(exc))
    return InputError(f"{str(path)!r}: {text}")


def _first_text(col):
    """'row N holds V' for the first value of ``col`` that is not a number (rows from 0)."""
    import pandas as pd

    bad = pd.to_numeric(col, errors="coerce").isna().to_numpy() & col.notna().to_numpy()
    if not bad.any():
        return "found values that are not numbers"
    row = int(np.flatnonzero(bad)[0])
    return f"row {row} holds {str(col.iloc[row])!r}"


def scores_column(
    frame: pd.DataFrame, name: str, path: str | os.PathLike[str], option: str = "--score"
) -> FloatArray:
    """Scores as a finite float64 array; NaN, inf or text exit with code 2."""
    import pandas as pd

    col = get_column(frame, name, path, option)
    try:
        values = pd.to_numeric(col, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan)
    except (ValueError, TypeError):
        raise InputError(
            f"{str(path)!r}: column {name!r} ({option}) must hold numbers; {_first_text(col)}."
        ) from None
    try:
        return check_scores(values, name="scores")
    except (ValueError, TypeError) as exc:
        raise _reword(exc, option, name, path) from None


def weight_column(
    frame: pd.DataFrame, name: str | None, path: str | os.PathLike[str]
) -> FloatArray | None:
    """The ``--weight`` column as checked sample weights (None without one); a negative,
    non-finite or all-zero weight exits with code 2 in one line."""
    if name is None:
        return None
    from venncal._validation import check_sample_weight

    raw = scores_column(frame, name, path, option="--weight")
    try:
        return check_sample_weight(raw, raw.shape[0])
    except ValueError as exc:
        raise InputError(f"{str(path)!r}: column {name!r} (--weight): {exc}") from None


def labels_column(
    frame: pd.DataFrame,
    name: str,
    path: str | os.PathLike[str],
    positive: str | None = None,
    option: str = "--label",
    *,
    one_class_ok: bool = False,
) -> npt.NDArray[np.int8]:
    """Labels as 0/1 (int8). Any two values; ``positive`` names the positive one.

    Without ``positive`` the larger label in sorted order is positive (1 for 0/1 labels). With
    ``one_class_ok`` (for evaluation) a column holding a single class is accepted when the class
    is unambiguous: 0/1 or boolean values, or a ``positive`` label.
    """
    col = get_column(frame, name, path, option)
    if col.isna().any():
        first = int(np.flatnonzero(col.isna().to_numpy())[0])
        raise InputError(
            f"{str(path)!r}: column {name!r} ({option}) has missing labels (first at row "
            f"{first}); every row needs a label."
        )
    if col.dtype.kind in "biuf":
        return _numeric_labels(col, name, path, positive, option, one_class_ok)
    as_text = col.astype(str).to_numpy()
    found = np.unique(as_text)
    shown = _shown(found)
    if found.size > 2:
        raise _too_many(found, shown, name, path, option)
    if positive is not None and positive not in set(as_text):
        if not (one_class_ok and found.size == 1):
            raise _not_a_value(positive, found, name)
    if found.size == 1:
        if one_class_ok and positive is not None:
            return np.asarray(as_text == positive, dtype=np.int8)
        raise _one_class(shown, name, path, option, one_class_ok)
    values = col.to_numpy()
    if positive is not None:
        values = np.where(as_text == positive, 1, 0)
    try:
        y01, _ = check_binary_labels(values, name="y")
    except (ValueError, TypeError) as exc:
        raise _reword(exc, option, name, path) from None
    return y01


def _shown(found):
    return ", ".join(repr(str(v)) for v in found[:5]) + (", ..." if found.size > 5 else "")


def _too_many(found, shown, name, path, option):
    return InputError(
        f"{str(path)!r}: column {name!r} ({option}) holds {found.size} classes ({shown}); "
        "it must hold two classes (a binary problem)."
    )


def _not_a_value(positive, found, name):
    return InputError(
        f"--positive {positive!r} is not a value of column {name!r}; it holds "
        f"{[str(v) for v in found]}."
    )


def _one_class(shown, name, path, option, one_class_ok):
    hint = "" if not one_class_ok else " (or 0/1 labels, or --positive)"
    return InputError(
        f"{str(path)!r}: column {name!r} ({option}) holds one class only ({shown}); it "
        f"needs examples of both classes{hint}."
    )


def _numeric_labels(col, name, path, positive, option, one_class_ok):
    """Labels of a numeric or boolean column, checked on its distinct values only.

    Gives what the text route gives (the same messages, the same 0/1 labels) without turning
    every row into text: the distinct values are found by hashing and only they become text.
    """
    import pandas as pd

    values = col.to_numpy()
    distinct = pd.unique(values)
    text = pd.Series(distinct).astype(str).to_numpy()
    order = np.argsort(text, kind="stable")
    distinct, text = distinct[order], text[order]
    shown = _shown(text)
    if text.size > 2:
        raise _too_many(text, shown, name, path, option)
    if positive is not None and col.dtype.kind in "iuf":
        positive = _as_number_text(positive, distinct, text)
    if positive is not None and positive not in set(text.tolist()):
        if not (one_class_ok and text.size == 1):
            raise _not_a_value(positive, text, name)
    if text.size == 1:
        numeric01 = set(distinct.tolist()) <= {0, 1}
        if one_class_ok and positive is not None:  # the one class is positive or it is not
            return np.full(values.shape, int(text[0] == positive), dtype=np.int8)
        if one_class_ok and numeric01:
            return np.asarray(values == 1, dtype=np.int8)
        raise _one_class(shown, name, path, option, one_class_ok)
    numbers = distinct.astype(np.float64)
    if col.dtype.kind in "iuf" and not np.all(numbers == np.round(numbers)):
        raise InputError(
            f"{str(path)!r}: column {name!r} ({option}) holds {shown}; labels must be two "
            "classes (0/1, -1/1, True/False or two names), not fractions."
        )
    if positive is not None:
        return np.asarray(values == distinct[text == positive][0], dtype=np.int8)
    if col.dtype.kind in "iuf":
        if set(numbers.tolist()) not in ({0.0, 1.0}, {-1.0, 1.0}):
            raise InputError(
                f"{str(path)!r}: column {name!r} ({option}) holds {shown}; numeric labels must "
                "be 0/1 or -1/1, or name the positive class with --positive."
            )
    # two distinct values: the larger one (in numeric order) is the positive class
    return np.asarray(values == distinct.max(), dtype=np.int8)


def _as_number_text(positive: str, distinct: AnyArray, text: AnyArray) -> str:
    """``positive`` as the text of the numeric label equal to it (``2`` names ``2.0``)."""
    if positive in set(text.tolist()):
        return positive
    try:
        number = float(positive)
    except ValueError:
        return positive
    same = np.flatnonzero(distinct.astype(np.float64) == number)
    return str(text[same[0]]) if same.size else positive


def probabilities_column(
    frame: pd.DataFrame, name: str, path: str | os.PathLike[str], option: str = "--proba"
) -> FloatArray:
    """Probabilities of the positive class in [0, 1]."""
    values = scores_column(frame, name, path, option)
    try:
        return check_probabilities(values, name="y_proba")
    except ValueError as exc:
        raise _reword(exc, option, name, path) from None
