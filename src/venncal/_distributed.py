"""What :mod:`venncal.dask` and :mod:`venncal.spark` share: the checks of ``fit`` and ``apply``,
the exact table of weighted rows, and the calibration of one batch of scores, free of either
engine (neither is imported here)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.core._docs import fill_docstring

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Sequence
    from typing import TypeVar

    import numpy.typing as npt

    from venncal._typing import BoolArray, FloatArray
    from venncal.core.counts import CountTable

    F = TypeVar("F", bound=Callable[..., Any])

    #: The rows of positive weight at some scores: (scores, y01, weights).
    Rows = tuple[FloatArray, npt.NDArray[np.int8], FloatArray]

__all__ = [
    "apply_columns",
    "calibrated",
    "check_fit_calibrator",
    "check_score_values",
    "check_weight_column",
    "fill_engine_doc",
    "weighted_table",
]

#: The descriptions the docstrings of ``fit`` and ``apply`` of both engines share.
ENGINE_DOCS = {
    "calibrator_to_fit": (
        "calibrator : estimator\n"
        "    An unfitted (or fitted: it is refitted) count-based calibrator or PlattCalibrator; it\n"
        "    is fitted in place and returned."
    ),
    "fitted_calibrator": "calibrator : fitted estimator\n    Any fitted score calibrator.",
    "weight": (
        "weight : str, default=None\n"
        "    Column of non-negative sample weights, with the calibrator's meaning of a weight."
    ),
    "returns_fitted": "Returns\n-------\ncalibrator\n    The fitted calibrator.",
}


def fill_engine_doc(func: F) -> F:
    """Put the descriptions of :data:`ENGINE_DOCS` into ``func``'s docstring (lines
    ``{name}``, see :func:`venncal.core._docs.fill_docstring`)."""
    return fill_docstring(func, ENGINE_DOCS)


# whole-number sums below 2^53 are exact in float64 in any order of addition
_EXACT_BELOW = 2.0**53


def check_fit_calibrator(calibrator: object, what: str) -> None:
    """Refuse a calibrator that ``what`` (``venncal.dask.fit``, ...) cannot fit."""
    from venncal.calibration._counts import CountCalibratorMixin

    if not isinstance(calibrator, CountCalibratorMixin):
        raise TypeError(
            f"'calibrator' of {what} must be VennAbersCalibrator, IsotonicCalibrator, "
            f"HistogramCalibrator, BayesianBinningCalibrator or PlattCalibrator; got "
            f"{type(calibrator).__name__}."
        )


def apply_columns(calibrator: Any, frame_columns: Container[str], what: str) -> list[str]:
    """The columns ``what`` (``venncal.dask.apply``, ...) adds to a frame of ``frame_columns``:
    ``p``, and ``p0`` and ``p1`` for Venn-Abers; the calibrator checked fitted, without
    groups, and the columns checked free."""
    from sklearn.utils.validation import check_is_fitted

    from venncal.calibration.venn_abers import VennAbersCalibrator

    check_is_fitted(calibrator)
    if getattr(calibrator, "groups_", None) is not None:
        raise ValueError(
            f"{type(calibrator).__name__} was fitted within groups; {what} "
            "calibrates without groups: apply it per group, or fit it without groups."
        )
    columns = ["p", "p0", "p1"] if isinstance(calibrator, VennAbersCalibrator) else ["p"]
    taken = [c for c in columns if c in frame_columns]
    if taken:
        raise ValueError(
            f"The frame already has the column(s) {taken!r} that {what} adds; rename them first."
        )
    return columns


def calibrated(calibrator: Any, s: FloatArray, columns: Sequence[str]) -> dict[str, FloatArray]:
    """The new columns for the scores ``s`` of one batch (NaN for a null score: the
    calibrator's own error)."""
    if s.shape[0] == 0:
        return {c: np.empty(0) for c in columns}
    if "p0" in columns:
        from venncal.core.merge import merge

        p0, p1 = calibrator.tables_.predict_unchecked(calibrator._check_predict_input(s))
        return {"p": merge(p0, p1, calibrator.merge), "p0": p0, "p1": p1}
    return {"p": calibrator.predict_proba(s)[:, 1]}


def check_score_values(
    values: FloatArray, score: str, rows: npt.NDArray[np.int64] | None = None
) -> None:
    """Refuse NaN or infinite distinct scores of an aggregate, as ``fit`` refuses such scores;
    ``rows``, if given, are the rows behind each value (the message counts the bad ones)."""
    bad = ~np.isfinite(values)
    if bad.any():
        kind = "NaN" if np.isnan(values[bad]).any() else "infinite"
        many = f"{int(rows[bad].sum())} " if rows is not None else ""
        raise ValueError(
            f"The score column {score!r} holds {many}{kind} value(s); remove or impute them "
            "first (scores must be finite)."
        )


def check_weight_column(
    weight: str, *, low: float, high: float, n_nan: int, n_positive: int
) -> int:
    """Check a weight column from its aggregates as ``fit`` checks ``sample_weight``.

    ``low`` and ``high`` are its smallest and largest values, ``n_nan`` its missing ones and
    ``n_positive`` its rows of positive weight. Returns the power of two the weights are
    divided by in the count table (that of :func:`~venncal.core.counts.count_table`: 0 unless
    they pass 2^960).
    """
    from venncal.core.counts import table_exponent

    if n_nan:
        raise ValueError(f"The weight column {weight!r} holds {n_nan} NaN value(s).")
    if low < 0:
        raise ValueError(
            f"The weight column {weight!r} must be non-negative, got values down to {low:g}."
        )
    if n_positive == 0:
        raise ValueError(
            "'sample_weight' is zero everywhere; at least one weight must be positive."
        )
    if not np.isfinite(high):
        raise ValueError(f"The weight column {weight!r} holds infinite values.")
    return table_exponent(high)


def weighted_table(
    values: FloatArray,
    y01: npt.NDArray[np.int64],
    n: npt.NDArray[np.int64],
    sw: FloatArray,
    frac: BoolArray,
    collect: Callable[[FloatArray], Rows],
    *,
    exponent: int,
    weight: str,
) -> tuple[CountTable, Rows]:
    """The count table of weighted rows, equal bit for bit to the in-memory one, and rows on
    which a fit from rows (Venn-Abers) equals the in-memory fit.

    The arguments describe the groups of a distributed ``groupBy(score, label)``: the score
    ``values``, the class ``y01`` (0/1), the rows of positive weight ``n``, the weight sum
    ``sw`` and whether a positive weight is fractional (``frac``). A group's sum is exact,
    whatever the order of its addition, when it has at most one row of positive weight or
    whole numbers summing below 2^53; a score whose two classes are exact keeps those sums.
    The rows of positive weight at the other scores come from ``collect(scores)``, as
    ``(scores, y01, weights)`` in any order, and are summed here as in memory
    (:func:`~venncal.core._weighted.sum_class_weights`, which no order changes).

    Returns
    -------
    table : CountTable
    rows : tuple of ndarray
        ``(scores, y01, weights)`` in the weights' own units: the collected rows and one row
        per exact sum.
    """
    from venncal.core._weighted import sum_class_weights
    from venncal.core.counts import table_from_sums

    exact = (n <= 1) | (~frac & (sw < _EXACT_BELOW))
    inexact = np.unique(values[~exact])
    keep = ~np.isin(values, inexact)  # a score is summed by the engine only if both classes are
    summed = keep & (n > 0)
    rows = [(values[summed], y01[summed].astype(np.int8), sw[summed])]
    scaled = np.where(n > 0, sw, 0.0)
    if exponent:
        with np.errstate(under="ignore"):
            scaled = np.ldexp(scaled, -exponent)
    y1 = y01 == 1
    parts_v = [values[keep]]
    parts_0 = [np.where(y1, 0.0, scaled)[keep]]
    parts_1 = [np.where(y1, scaled, 0.0)[keep]]
    if inexact.size:
        rs, ry, rw = collect(inexact)
        rows.append((rs, ry.astype(np.int8), rw))
        v, n0, n1 = sum_class_weights(rs, ry, np.ldexp(rw, -exponent) if exponent else rw)
        parts_v.append(v)
        parts_0.append(n0)
        parts_1.append(n1)
    w0, w1 = np.concatenate(parts_0), np.concatenate(parts_1)
    if not (np.isfinite(w0).all() and np.isfinite(w1).all()):
        raise ValueError(
            f"The weight column {weight!r} holds weights whose sums exceed the largest float; "
            "rescale them."
        )
    table = table_from_sums(np.concatenate(parts_v), w0, w1, float(n.sum()))
    table = dataclasses.replace(table, exponent=exponent)
    scores = np.concatenate([part[0] for part in rows])
    labels = np.concatenate([part[1] for part in rows])
    return table, (scores, labels, np.concatenate([part[2] for part in rows]))
