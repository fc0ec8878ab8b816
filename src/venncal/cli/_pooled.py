"""Calibration rows read in chunks and pooled by distinct score, for ``venncal fit``.

Venn-Abers, isotonic regression, histogram binning and Bayesian binning see their calibration
data only through the weight of each class at each distinct score (see
:mod:`venncal.core.counts`). :func:`read_pooled` reads a calibration table in chunks (CSV or
Parquet files, folders of Parquet files), sums each chunk by distinct score and label, and
pools the sums: memory grows with the number of distinct scores, never with the rows. The
pooled rows, weighted by their counts, fit the calibrator that the rows themselves fit, bit for
bit (tested), since whole-number sums are exact in any order. (Where a file holds both -0.0
and 0.0, which equal each other, the pooled table keeps the sign of the first in the file; the
in-memory sort keeps either.)

What the pooled reading cannot reproduce exactly is left to the in-memory reading
(:func:`venncal.cli._fitting.read_calibration`), which then gives its own answer or its own
one-line error: fractional weights (whose float sums depend on the order of addition),
anything wrong with the input (a bad score or weight, a missing label, more than two labels),
and label columns of other types than numbers, booleans and text.
"""

from __future__ import annotations

import contextlib
import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.cli import _spill
from venncal.cli._io import InputError
from venncal.cli._spill import pool_arrays

if TYPE_CHECKING:
    import os
    from collections.abc import Iterator

    import numpy.typing as npt

    from venncal._typing import FloatArray

__all__ = [
    "POOLED_METHODS",
    "SPILLED_METHODS",
    "Pooled",
    "Unpoolable",
    "fit_file",
    "fit_pooled",
    "read_pooled",
]

#: the --method values whose fit depends on the rows only through per-score class weights
POOLED_METHODS = frozenset({"venn-abers", "isotonic", "histogram", "sbb", "abb"})
#: the --method values fitted from a pooled table on disk, read in blocks
SPILLED_METHODS = frozenset({"venn-abers", "isotonic", "histogram"})

#: whole-number sums stay exact in float64 below this
_EXACT = 2.0**53
#: Venn-Abers reads a table on disk in blocks up to this many examples (exact int64 geometry)
_INT64_EXACT = 2**31 - 2


class Unpoolable(Exception):
    """The rows need the in-memory reading (it gives the answer, or the error, exactly)."""


def fit_file(
    calibrator: Any,
    path: str | os.PathLike[str],
    score: str,
    label: str,
    weight: str | None = None,
    positive: str | None = None,
    *,
    method: str,
    progress: bool | None = None,
    sep: str | None = None,
) -> tuple[Any, dict[str, int]]:
    """Fit ``calibrator`` (``--method`` ``method``) on the calibration table ``path`` in this
    process (``venncal fit --backend local``); return it and ``{"rows", "positives"}``.

    Pooled by distinct score (memory bounded by the distinct scores) for
    :data:`POOLED_METHODS`, and for :data:`SPILLED_METHODS` written to disk past
    :data:`~venncal.cli._spill.SPILL_DISTINCT` distinct scores (memory bounded); else, or
    when the input needs it, every row read in memory.
    """
    from venncal.cli._fitting import fit_calibrator, read_calibration

    if method in POOLED_METHODS:
        with _spill.SpillFolder() as folder:
            try:
                pooled = read_pooled(
                    path,
                    score,
                    label,
                    weight,
                    positive,
                    progress=progress,
                    sep=sep,
                    folder=folder if method in SPILLED_METHODS else None,
                )
            except Unpoolable:
                pass
            else:
                fit_pooled(calibrator, pooled, method=method, source=path)
                return calibrator, pooled.info
    from venncal.cli._progress import Steps

    with Steps(["reading", "fitting"], progress) as steps:
        steps.start(f"reading {path}")
        s, y, w = read_calibration(path, score, label, weight, positive, sep=sep)
        steps.start(f"fitting {method}")
        fit_calibrator(calibrator, s, y, w, method=method, source=path)
    return calibrator, {"rows": int(s.shape[0]), "positives": int(y.sum())}


class _Pool:
    """Per-score sums of two label keys' weights, pooled across chunks.

    Tables of chunks wait in a list and are merged into the running table once they hold as
    many rows as it does, so merging costs O(k log k) in all for k distinct scores. With a
    ``folder``, a running table of :data:`~venncal.cli._spill.SPILL_DISTINCT` distinct scores
    is written there as a sorted run, and the runs are merged on disk at the end.
    """

    def __init__(self, weighted: bool, folder: _spill.SpillFolder | None = None) -> None:
        self.weighted, self.folder = weighted, folder
        self.runs: list[_spill.ArrayTable] = []
        dtype = np.float64 if weighted else np.int64
        self.table: Any = (np.empty(0), np.empty(0, dtype), np.empty(0, dtype))
        self.waiting: list[Any] = []
        self.waiting_rows = 0

    def add(self, s: FloatArray, key: npt.NDArray[np.int8], w: FloatArray | None) -> None:
        """Add a chunk: scores, label key 0/1 (int8) and weights (None: unit weights)."""
        if w is not None:
            keep = w > 0
            if not keep.all():
                s, key, w = s[keep], key[keep], w[keep]
        if s.shape[0] == 0:
            return
        order = np.argsort(s, kind="stable")  # a score's first row in the file gives its sign
        s = s[order]
        start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
        if w is None:
            c1 = np.add.reduceat(key[order].astype(np.int64), start)
            c0 = np.diff(np.r_[start, s.shape[0]]) - c1
        else:
            w = w[order]
            ones = key[order].astype(bool)
            c1 = np.add.reduceat(np.where(ones, w, 0.0), start)
            c0 = np.add.reduceat(np.where(ones, 0.0, w), start)
        values = s[start]
        self.waiting.append((values, c0, c1))
        self.waiting_rows += values.shape[0]
        limit = max(self.table[0].shape[0] // 4, 1 << 16)
        if self.folder is not None:
            limit = min(limit, _spill.SPILL_DISTINCT)
        if self.waiting_rows >= limit:
            self._merge()

    def _merge(self) -> None:
        """Pool the waiting tables, then add them into the running table (sorted merge)."""
        if not self.waiting:
            return
        parts, self.waiting, self.waiting_rows = self.waiting, [], 0
        add = pool_arrays(*(np.concatenate(p) for p in zip(*parts))) if len(parts) > 1 else parts[0]
        del parts
        values, c0, c1 = self.table
        at = np.searchsorted(values, add[0])
        found = at < values.shape[0]
        found[found] = values[at[found]] == add[0][found]
        c0[at[found]] += add[1][found]
        c1[at[found]] += add[2][found]
        del values, c0, c1
        if not found.all():
            new = ~found
            at, add = at[new], [a[new] for a in add]
            table, self.table = list(self.table), None
            for i in range(3):  # one array at a time: the old one is freed before the next
                table[i] = np.insert(table[i], at, add[i])
            self.table = tuple(table)
        if self.folder is not None and self.table[0].shape[0] >= _spill.SPILL_DISTINCT:
            self.runs.append(_spill.write_run(_spill.ArrayTable(*self.table), self.folder))
            self.table = tuple(a[:0].copy() for a in self.table)

    def result(self) -> _spill.ArrayTable:
        """The pooled table (scores increasing, weights of keys 0 and 1): an
        :class:`~venncal.cli._spill.ArrayTable`, or a file's table when runs were written."""
        self._merge()
        last = _spill.ArrayTable(*self.table)
        if not self.runs:
            return last
        runs, self.runs, self.table = self.runs, [], None
        return _spill.merge_runs([*runs, last], self.folder)


def _label_keys(col, csv, pa, pc):
    """The distinct values of a chunk's label column, or Unpoolable for a kind the in-memory
    reading handles (missing values, NaN, other types)."""
    from venncal.cli._csv import MISSING_TEXTS

    if col.null_count:
        raise Unpoolable()
    kind = col.type
    if csv:
        keys = pc.unique(col).to_pylist()
        if any(k in MISSING_TEXTS for k in keys):  # pandas reads these as missing
            raise Unpoolable()
        return keys
    if not (
        pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
    ):
        raise Unpoolable()
    keys = pc.unique(col).to_pylist()
    if pa.types.is_floating(kind) and any(k != k for k in keys):
        raise Unpoolable()
    return keys


def _resolve_labels(keys, label, kind, path, positive):
    """0/1 of each label key as the in-memory reading gives it, and the keys as it shows them:
    :func:`~venncal.cli._io.labels_column` decides on the keys read as the whole column would
    be (:func:`~venncal.cli._labels.keys_frame`): the same classes, positive class and errors.
    """
    from venncal.cli._io import labels_column
    from venncal.cli._labels import keys_frame

    frame = keys_frame(keys, label, kind)
    if frame is None:
        raise Unpoolable()
    y = labels_column(frame, label, path, positive=positive)
    return np.asarray(y, dtype=np.int8), frame[label]


def read_pooled(
    path: str | os.PathLike[str],
    score: str,
    label: str,
    weight: str | None = None,
    positive: str | None = None,
    *,
    what: str = "CAL_FILE",
    progress: bool | None = None,
    sep: str | None = None,
    folder: _spill.SpillFolder | None = None,
) -> Pooled:
    """Calibration rows pooled by distinct score and class, as a :class:`Pooled`.

    With a ``folder``, pooled tables past :data:`~venncal.cli._spill.SPILL_DISTINCT` distinct
    scores are written there and the result's table is on disk. Raises :class:`Unpoolable`
    when the in-memory reading must decide.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from venncal.cli._progress import progress_bar
    from venncal.cli._stream import check_number_columns, open_source, score_array

    try:
        source = open_source([path], what, sep)
    except InputError:
        raise Unpoolable() from None
    wanted = [("--score", score), ("--label", label)] + ([("--weight", weight)] if weight else [])
    if any(name not in source.columns for _, name in wanted):
        raise Unpoolable()  # the in-memory reading names the column as it always has
    try:
        check_number_columns(source, [(score, "--score")] + ([(weight, "--weight")] * bool(weight)))
    except InputError:
        raise Unpoolable() from None
    columns = list(dict.fromkeys(name for _, name in wanted))
    pool = _Pool(weight is not None, folder)
    keys, rows_of_key, label_type, total, examples = [], [0, 0], None, 0.0, 0
    offset, current = 0, None
    try:
        with progress_bar(source.num_rows, progress, desc=f"reading {path}") as bar:
            for file, chunk in source.chunks(columns):
                if file != current:
                    offset, current = 0, file
                csv = not str(file).lower().endswith((".parquet", ".pq"))
                col = chunk.column(chunk.schema.get_field_index(label))
                if label_type is None:
                    label_type = "csv" if csv else col.type
                elif label_type != ("csv" if csv else col.type):
                    raise Unpoolable()  # files of a folder store the labels differently
                for k in _label_keys(col, csv, pa, pc):
                    if k not in keys:
                        keys.append(k)
                if len(keys) > 2:
                    raise Unpoolable()
                s = score_array(chunk, score, file, offset)
                if len(keys) == 1:
                    key = np.zeros(s.shape[0], np.int8)
                else:
                    key = np.asarray(pc.equal(col, keys[1]).to_numpy(zero_copy_only=False))
                    key = key.astype(np.int8)
                n_one = int(key.sum())
                rows_of_key[1] += n_one
                rows_of_key[0] += s.shape[0] - n_one
                w = None
                if weight is not None:
                    w = score_array(chunk, weight, file, offset, "--weight")
                    if (w < 0).any() or (w != np.floor(w)).any():
                        raise Unpoolable()  # refused in memory, or fractional: summed in order
                    total += float(np.sum(w))
                    examples += int(np.count_nonzero(w))
                    if total >= _EXACT:
                        raise Unpoolable()
                if w is None:
                    examples += s.shape[0]
                pool.add(s, key, w)
                offset += s.shape[0]
                bar.update(s.shape[0])
    except _spill.SpillError:
        raise
    except InputError:
        raise Unpoolable() from None
    table = pool.result()
    del pool
    sums = _sums(table)
    if table.k == 0 or len(keys) < 2 or not (sums[0] > 0 and sums[1] > 0):
        raise Unpoolable()  # no rows, one class, or a class without weight
    try:
        y_key, shown = _resolve_labels(keys, label, label_type, path, positive)
    except InputError:
        raise Unpoolable() from None
    if y_key[0] == y_key[1]:
        raise Unpoolable()
    pos = int(np.flatnonzero(y_key == 1)[0])
    n_neg, n_pos = (sums[0], sums[1]) if pos == 1 else (sums[1], sums[0])
    pairs = sums[2] if pos == 1 else 2.0 * n_neg * n_pos - sums[2]
    if pairs < n_neg * n_pos:  # AUC below one half
        from venncal.cli._fitting import ranked_below_warning

        names = np.asarray(shown).astype(str)
        auc = pairs / (2.0 * n_neg * n_pos)
        ranked_below_warning(
            str(names[pos]), str(names[1 - pos]), auc, column=score, positive=positive
        )
    info = {"rows": rows_of_key[0] + rows_of_key[1], "positives": rows_of_key[pos]}
    return Pooled(table, pos, weight is not None, examples, info, (n_neg, n_pos))


def _sums(table: _spill.ArrayTable) -> tuple[float, float, float]:
    """The weights of label keys 0 and 1 and twice the weight of the (key 1, key 0) pairs
    that the scores order (ties count one half), over the table's blocks: exact for whole
    numbers below 2^53."""
    import math

    n0 = n1 = 0.0
    pairs = []
    for _, c0, c1 in table.blocks():
        below = n0 + (np.cumsum(c0, dtype=np.float64) - c0)  # key-0 weight at smaller scores
        pairs.append(float(np.sum(c1 * (2.0 * below + c0))))
        n0 += float(np.sum(c0))
        n1 += float(np.sum(c1))
    return n0, n1, math.fsum(pairs)


class Pooled:
    """Calibration rows pooled by distinct score: the ``table`` of label keys' weights (in
    memory or on disk, see :mod:`venncal.cli._spill`), which key is the positive class
    (``pos``), whether the rows were ``weighted``, the rows of positive weight
    (``examples``), ``info`` (rows read, positives) and the ``totals`` of the negatives' and
    the positives' weights."""

    def __init__(
        self,
        table: _spill.ArrayTable,
        pos: int,
        weighted: bool,
        examples: int,
        info: dict[str, int],
        totals: tuple[float, float],
    ) -> None:
        self.table, self.pos, self.totals = table, pos, totals
        self.weighted, self.examples, self.info = weighted, examples, info

    def read(self, start: int, stop: int) -> tuple[FloatArray, Any, Any]:
        """Distinct scores ``start`` to ``stop - 1``: the scores, the weight of negatives and
        of positives."""
        values, c0, c1 = self.table.read(start, stop)
        return (values, c0, c1) if self.pos == 1 else (values, c1, c0)

    def arrays(self) -> tuple[FloatArray, Any, Any]:
        """The whole table: the scores (increasing) and the weights of negatives and
        positives (read into memory when on disk)."""
        return self.read(0, self.table.k)

    def rows(self) -> tuple[FloatArray, npt.NDArray[np.int8], FloatArray]:
        """``(scores, y01, counts)``: one row per distinct score and class, negatives first."""
        values, n0, n1 = self.arrays()
        neg, pos = n0 > 0, n1 > 0
        s = np.concatenate([values[neg], values[pos]])
        y01 = np.r_[np.zeros(int(neg.sum()), np.int8), np.ones(int(pos.sum()), np.int8)]
        counts = np.concatenate([n0[neg], n1[pos]]).astype(np.float64)
        return s, y01, counts


def fit_pooled(
    calibrator: Any, pooled: Pooled, *, method: str, source: str | os.PathLike[str]
) -> Any:
    """Fit ``calibrator`` on pooled rows as ``fit`` on the rows themselves fits it.

    Unweighted rows: the calibrator's own fit sets up every fitted attribute (on two rows),
    then its table fit, the one ``fit`` runs on these rows, replaces what depends on the data.
    Weighted rows: the pooled rows weighted by their sums (whole numbers, so exact). Venn-Abers,
    isotonic regression and histogram binning on a table on disk read it in blocks (the
    ``*_fit_blocks`` functions of ``venncal.core``: the same fit) and keep no table
    (``aggregate_``) in the calibrator.
    """
    from venncal.cli._fitting import fit_calibrator

    if isinstance(pooled.table, _spill.FileTable) and _streams(calibrator, pooled, method):
        _fit_two_rows(calibrator)
        with _fit_errors(method, source):
            _STREAMED[method](calibrator, pooled)
        calibrator.__dict__.pop("aggregate_", None)
        return calibrator
    if pooled.weighted:
        s, y01, counts = pooled.rows()
        return fit_calibrator(calibrator, s, y01, counts, method=method, source=source)
    from venncal.core.counts import CountTable

    table = CountTable(*pooled.arrays(), float(pooled.examples), 0)
    _fit_two_rows(calibrator)
    with _fit_errors(method, source):
        calibrator._fit_table(table)
    calibrator.aggregate_ = table
    return calibrator


def _fit_two_rows(calibrator: Any) -> None:
    """The calibrator's own fit on two rows: every fitted attribute set up, silently."""
    import warnings

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        calibrator.fit(np.array([0.0, 1.0]), np.array([0, 1], dtype=np.int8))
    calibrator.__dict__.pop("_table_rows", None)


@contextlib.contextmanager
def _fit_errors(method: str, source: str | os.PathLike[str]) -> Iterator[None]:
    """A failure of the fit as one line naming the data."""
    try:
        with np.errstate(all="ignore"):
            yield
    except (ValueError, ArithmeticError) as exc:
        text = str(exc) or type(exc).__name__
        raise InputError(f"cannot fit {method} on {str(source)!r}: {text}") from None


def _streams(calibrator: Any, pooled: Pooled, method: str) -> bool:
    """Whether ``method`` fits from the table on disk in blocks: Venn-Abers within its exact
    int64 geometry, isotonic regression always, histogram binning with its edges listed in
    full."""
    if method == "venn-abers":
        return sum(pooled.totals) <= _INT64_EXACT
    if method == "histogram":
        from venncal.core._histogram_stream import streams

        n_bins = calibrator.n_bins
        if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral):
            return False
        return streams(int(n_bins), pooled.table.k)
    return method in SPILLED_METHODS


def _venn_abers_blocks(calibrator: Any, pooled: Pooled) -> None:
    """Venn-Abers tables of a pooled table on disk, read in blocks."""
    from venncal.core._ivap_stream import ivap_fit_blocks

    def read(start: int, stop: int) -> tuple[FloatArray, Any, Any]:
        values, n0, n1 = pooled.read(start, stop)
        return values, (n0 + n1).astype(np.int64), n1.astype(np.int64)

    weight, positives = int(sum(pooled.totals)), int(pooled.totals[1])
    k = pooled.table.k
    calibrator.tables_ = ivap_fit_blocks(read, k, weight, positives, block=_spill.READ_BLOCK)


def _isotonic_blocks(calibrator: Any, pooled: Pooled) -> None:
    """The isotonic step function of a pooled table on disk, read in blocks."""
    from venncal.core._isotonic_stream import isotonic_fit_blocks

    def read(start: int, stop: int) -> tuple[FloatArray, Any, Any]:
        values, n0, n1 = pooled.read(start, stop)
        return values, n0 + n1, n1

    k = pooled.table.k
    calibrator.step_function_ = isotonic_fit_blocks(read, k, block=_spill.READ_BLOCK)


def _histogram_blocks(calibrator: Any, pooled: Pooled) -> None:
    """The histogram binning of a pooled table on disk, read in blocks."""
    from venncal.core._histogram_stream import histogram_fit_blocks

    options = {"n_bins": int(calibrator.n_bins), "strategy": calibrator.strategy}
    options.update(alpha=calibrator.alpha, block=_spill.READ_BLOCK)
    total = sum(pooled.totals)  # summed by read_pooled: one pass less
    binning = histogram_fit_blocks(pooled.read, pooled.table.k, **options, total_weight=total)
    calibrator.binning_, calibrator.bin_edges_ = binning, binning.edges
    calibrator.bin_counts_ = binning.counts


#: the block fit of each of SPILLED_METHODS: sets the calibrator's fitted tables
_STREAMED = {
    "venn-abers": _venn_abers_blocks,
    "isotonic": _isotonic_blocks,
    "histogram": _histogram_blocks,
}
