"""Input validation shared by every layer (numpy only).

Each helper takes what a user may pass (lists, numpy arrays, pandas objects), checks it, and
returns a clean, normalised numpy array, or raises a one-line ``ValueError``/``TypeError`` that
names the argument and says how to fix it. The algorithms below this layer assume clean input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np

from venncal._params import (
    check_bool,
    check_in_range,
    check_option,
    check_positive_int,
    check_random_state,
)

if TYPE_CHECKING:
    from collections.abc import Sized

    import numpy.typing as npt

    from venncal._typing import AnyArray, ArrayLike, FloatArray

# weights or None: an array goes in and out, None stays None
_Weight = TypeVar("_Weight", bound="FloatArray | None")

__all__ = [
    "check_scores",
    "check_binary_labels",
    "check_labels01",
    "check_labels_pos",
    "check_probabilities",
    "check_sample_weight",
    "check_consistent_length",
    "check_weighted_classes",
    "check_option",
    "check_positive_int",
    "check_in_range",
    "check_bool",
    "check_random_state",
    "check_interval",
]


def _as_array(values: object, name: str) -> AnyArray:
    """Convert lists, numpy arrays and pandas objects to a numpy array without copying needlessly."""
    if values is None:
        raise TypeError(f"'{name}' must be array-like, got None.")
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        raise TypeError(
            f"'{name}' must be array-like (a list, numpy array or pandas object), "
            f"got the scalar {values!r}."
        )
    if type(values).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"'{name}' is a sparse matrix; sparse input is not supported, pass a dense array."
        )
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ValueError(f"'{name}' could not be read as an array: {exc}") from None


def check_scores(
    scores: ArrayLike,
    *,
    name: str = "scores",
    allow_column: bool = True,
    min_samples: int = 1,
    noun: str = "scores",
) -> FloatArray:
    """Return classifier scores as a finite 1-D float64 array.

    Parameters
    ----------
    scores : array-like of shape (n,) or (n, 1)
        Scores, one per object. A single-column 2-D array or DataFrame is accepted.
    name : str, default="scores"
        The argument's name, used in error messages.
    allow_column : bool, default=True
        Whether an (n, 1) array is accepted.
    min_samples : int, default=1
        The smallest accepted length.
    noun : str, default="scores"
        What the values are (plural), used in error messages.

    Returns
    -------
    scores : ndarray of shape (n,), dtype float64

    Raises
    ------
    ValueError
        If the scores are empty, have more than one column, or hold NaN or infinite values.
    TypeError
        If the scores are not numeric.

    Examples
    --------
    >>> check_scores([[0.5], [1.0]])
    array([0.5, 1. ])
    >>> check_scores([0.1, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: 'scores' holds 1 NaN value(s) (first at index 1); remove or impute them first.
    """
    arr = _as_array(scores, name)
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise ValueError(
            f"'{name}' has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required."
        )
    if arr.ndim == 2 and allow_column:
        if arr.shape[1] != 1:
            raise ValueError(
                f"'{name}' must be 1-D or have exactly one column (one score per object), "
                f"got shape {arr.shape}; pass a single score column."
            )
        arr = arr[:, 0]
    elif arr.ndim != 1:
        raise ValueError(f"'{name}' must be a 1-D array of {noun}, got shape {arr.shape}.")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.float64)
    if arr.dtype.kind == "c":
        raise ValueError(f"'{name}' holds complex numbers; Complex data not supported.")
    if arr.dtype.kind not in "iuf":
        try:
            arr = arr.astype(np.float64)
        except (ValueError, TypeError):
            raise TypeError(
                f"'{name}' must hold numbers, got values of type {arr.dtype}."
            ) from None
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if arr.shape[0] < min_samples:
        if arr.shape[0] == 0:
            raise ValueError(f"'{name}' is empty; at least {min_samples} value(s) are needed.")
        raise ValueError(
            f"'{name}' has {arr.shape[0]} value(s); at least {min_samples} are needed."
        )
    finite = np.isfinite(arr)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        n_nan = int(np.isnan(arr[bad]).sum())
        if n_nan:
            first = int(bad[np.isnan(arr[bad])][0])
            raise ValueError(
                f"'{name}' holds {n_nan} NaN value(s) (first at index {first}); "
                "remove or impute them first."
            )
        raise ValueError(
            f"'{name}' holds {bad.size} infinite value(s) (first at index {int(bad[0])}); "
            f"{noun} must be finite."
        )
    return arr


def _label_array(y: object, name: str) -> AnyArray:
    if y is None:
        raise ValueError(
            f"This estimator requires y to be passed, but the target y is None ('{name}')."
        )
    arr = _as_array(y, name)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"'{name}' must be a 1-D array of labels, got shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(f"'{name}' is empty; at least one label is needed.")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"'{name}' holds NaN; every object needs a label.")
    if arr.dtype.kind == "O":
        if any(_is_missing(v) for v in arr):
            raise ValueError(f"'{name}' holds missing values; every object needs a label.")
    return arr


def _is_missing(value: object) -> bool:
    """Whether one element of an object array is a missing value (None, NaN, pandas' NA, NaT)."""
    if value is None:
        return True
    try:
        return not bool(value == value)
    except (TypeError, ValueError):  # pandas' NA refuses to be a truth value
        return True


def _distinct_labels(arr: AnyArray) -> AnyArray:
    """Sorted distinct labels; for numbers, two passes instead of a sort when there are two."""
    if arr.dtype.kind in "iufb" and arr.size:
        lo, hi = arr.min(), arr.max()
        if lo == hi or not ((arr != lo) & (arr != hi)).any():
            return np.unique(np.array([lo, hi], dtype=arr.dtype))
    return np.unique(arr)


def check_binary_labels(
    y: ArrayLike, *, name: str = "y", classes: AnyArray | None = None
) -> tuple[npt.NDArray[np.int8], AnyArray]:
    """Encode labels of a binary problem as 0/1.

    Any two labels are accepted, as in scikit-learn: ``{0, 1}``, ``{-1, 1}``, ``{1, 2}``,
    booleans or strings. The larger label (in sorted order) is the positive class.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels.
    name : str, default="y"
        The argument's name, used in error messages.
    classes : ndarray of shape (2,), default=None
        The known classes (from a fitted estimator); when given, ``y`` must only hold them.

    Returns
    -------
    y01 : ndarray of shape (n,), dtype int8
        1 where ``y == classes[1]``.
    classes : ndarray of shape (2,)
        The two classes, sorted.

    Raises
    ------
    ValueError
        If ``y`` has one class only, more than two, missing values, or is empty.

    Examples
    --------
    >>> y01, classes = check_binary_labels(["spam", "ham", "spam"])
    >>> y01, classes
    (array([1, 0, 1], dtype=int8), array(['ham', 'spam'], dtype='<U4'))
    >>> check_binary_labels([1, 1, 1])
    Traceback (most recent call last):
    ...
    ValueError: 'y' holds one class only (1); calibration needs examples of both classes.
    """
    arr = _label_array(y, name)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"'{name}' holds infinite values; labels must be class names.")
    try:
        found = _distinct_labels(arr)
    except TypeError:
        raise TypeError(
            f"'{name}' mixes label types that cannot be compared; use one type for every label."
        ) from None
    if classes is None:
        if found.size == 1:
            raise ValueError(
                f"'{name}' holds one class only ({found.tolist()[0]!r}); calibration needs examples "
                "of both classes."
            )
        if found.size > 2 and arr.dtype.kind == "f" and (found != np.round(found)).any():
            raise ValueError(
                f"Unknown label type: '{name}' looks continuous ({found.size} distinct values); "
                "calibration needs class labels of a binary problem."
            )
        if found.size > 2:
            shown = ", ".join(repr(v) for v in found[:5].tolist())
            more = ", ..." if found.size > 5 else ""
            raise ValueError(
                f"Only binary classification is supported. '{name}' holds {found.size} classes "
                f"({shown}{more})."
            )
        classes = found
    else:
        unknown = np.setdiff1d(found, classes)
        if unknown.size:
            raise ValueError(
                f"'{name}' holds labels {unknown.tolist()!r} not among the fitted classes "
                f"{list(np.asarray(classes).tolist())!r}."
            )
    y01 = (arr == classes[1]).astype(np.int8)
    return y01, classes


def check_labels01(y_true: ArrayLike, *, name: str = "y_true") -> npt.NDArray[np.int8]:
    """Return labels that must already be 0/1 (or booleans) as an int8 array.

    Metrics use this: the positive class is 1, and one class alone is allowed.

    Examples
    --------
    >>> check_labels01([True, False, True])
    array([1, 0, 1], dtype=int8)
    >>> check_labels01([0, 2])
    Traceback (most recent call last):
    ...
    ValueError: 'y_true' must hold only 0 and 1 (or booleans), got the value(s) [2].
    """
    arr = _label_array(y_true, name)
    if arr.dtype.kind == "b":
        return arr.astype(np.int8)
    if arr.dtype.kind not in "iuf":
        raise ValueError(
            f"'{name}' must hold only 0 and 1 (or booleans), got values of type {arr.dtype}; "
            "encode the positive class as 1."
        )
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        vals = np.unique(arr[bad])[:5].tolist()
        raise ValueError(f"'{name}' must hold only 0 and 1 (or booleans), got the value(s) {vals}.")
    return arr.astype(np.int8)


def check_labels_pos(
    y_true: ArrayLike, pos_label: object = None, *, name: str = "y_true"
) -> npt.NDArray[np.int8]:
    """Return labels as an int8 0/1 array, 1 where ``y_true == pos_label``.

    With ``pos_label=None`` the labels must already be 0/1 (or booleans), as in
    :func:`check_labels01`. Otherwise they may be of any type with at most two distinct values,
    one of which is ``pos_label``.

    Examples
    --------
    >>> check_labels_pos(["no", "yes", "yes"], pos_label="yes")
    array([0, 1, 1], dtype=int8)
    >>> check_labels_pos(["no", "yes"], pos_label="maybe")
    Traceback (most recent call last):
    ...
    ValueError: 'pos_label' is 'maybe', which is not among the labels of 'y_true' (['no', 'yes']).
    """
    if pos_label is None:
        return check_labels01(y_true, name=name)
    if _is_missing(pos_label):
        raise ValueError(f"'pos_label' is missing ({pos_label!r}); give the positive class.")
    arr = _label_array(y_true, name)
    try:
        found = _distinct_labels(arr)
    except TypeError:
        raise TypeError(
            f"'{name}' mixes label types that cannot be compared; use one type for every label."
        ) from None
    shown = found[:5].tolist()
    if found.size > 2:
        raise ValueError(
            f"'{name}' holds {found.size} distinct labels ({shown}{', ...' if found.size > 5 else ''}); "
            "with 'pos_label' at most two are allowed."
        )
    positive = arr == pos_label
    if not isinstance(positive, np.ndarray) or not positive.any():
        raise ValueError(
            f"'pos_label' is {pos_label!r}, which is not among the labels of '{name}' ({shown})."
        )
    return positive.astype(np.int8)


def check_probabilities(y_proba: ArrayLike, *, name: str = "y_proba") -> FloatArray:
    """Return probabilities of the positive class as a 1-D float64 array in [0, 1].

    An (n, 2) array of class probabilities is accepted; its second column is used, and its rows
    must sum to one.

    Examples
    --------
    >>> check_probabilities([[0.25, 0.75], [1.0, 0.0]])
    array([0.75, 0.  ])
    >>> check_probabilities([0.5, 1.5])
    Traceback (most recent call last):
    ...
    ValueError: 'y_proba' must lie in [0, 1], got 1 value(s) outside (first: 1.5).
    """
    arr = _as_array(y_proba, name)
    if arr.ndim == 2:
        if arr.shape[1] == 2:
            # both columns are checked, so that a NaN among the negative-class probabilities
            # is not silently dropped with the column
            both = check_scores(arr.reshape(-1), name=name, allow_column=False)
            outside = (both < 0.0) | (both > 1.0)
            if outside.any():
                raise ValueError(
                    f"'{name}' must lie in [0, 1], got {int(outside.sum())} value(s) outside "
                    f"(first: {both[outside][0]:g})."
                )
            both = both.reshape(-1, 2)
            bad = np.abs(both.sum(axis=1) - 1.0) > 1e-6
            if bad.any():
                raise ValueError(
                    f"'{name}' has two columns whose rows do not sum to 1 ({int(bad.sum())} "
                    f"row(s), first at index {int(np.flatnonzero(bad)[0])}); pass the "
                    "probability of the positive class as a 1-D array."
                )
            arr = both[:, 1]
        elif arr.shape[1] == 1:
            arr = arr[:, 0]
        else:
            raise ValueError(
                f"'{name}' must be 1-D (probability of the positive class) or have two columns, "
                f"got shape {arr.shape}."
            )
    arr = check_scores(arr, name=name, allow_column=False)
    outside = (arr < 0.0) | (arr > 1.0)
    if outside.any():
        raise ValueError(
            f"'{name}' must lie in [0, 1], got {int(outside.sum())} value(s) outside "
            f"(first: {arr[outside][0]:g})."
        )
    return arr


def check_sample_weight(
    sample_weight: ArrayLike | None, n_samples: int, *, name: str = "sample_weight"
) -> FloatArray | None:
    """Return sample weights as a float64 array, or None when not given.

    Raises
    ------
    ValueError
        If the weights are negative, NaN, infinite, all zero, or of the wrong length.

    Examples
    --------
    >>> check_sample_weight([1, 2], 2)
    array([1., 2.])
    >>> check_sample_weight([1, -2], 2)
    Traceback (most recent call last):
    ...
    ValueError: 'sample_weight' must be non-negative, got 1 negative value(s) (first: -2).
    """
    if sample_weight is None:
        return None
    if np.isscalar(sample_weight):
        sample_weight = np.full(n_samples, sample_weight, dtype=np.float64)
    w = check_scores(sample_weight, name=name, allow_column=False, noun="weights")
    if w.shape[0] != n_samples:
        raise ValueError(
            f"'{name}' has {w.shape[0]} value(s) but there are {n_samples} samples; "
            "give one weight per sample."
        )
    neg = w < 0
    if neg.any():
        raise ValueError(
            f"'{name}' must be non-negative, got {int(neg.sum())} negative value(s) "
            f"(first: {w[neg][0]:g})."
        )
    if not (w > 0).any():
        raise ValueError(f"'{name}' is zero everywhere; at least one weight must be positive.")
    return w


def check_weighted_classes(
    y01: AnyArray, sample_weight: FloatArray | None, *, name: str = "sample_weight"
) -> None:
    """Raise if the weights leave one class with no positive total weight.

    Examples
    --------
    >>> check_weighted_classes(np.array([0, 1]), np.array([1.0, 0.0]))
    Traceback (most recent call last):
    ...
    ValueError: 'sample_weight' is zero on every example of one class; calibration needs both classes with positive weight.
    """
    if sample_weight is None:
        return
    pos = float(sample_weight[y01 == 1].sum())
    neg = float(sample_weight[y01 == 0].sum())
    if pos <= 0 or neg <= 0:
        raise ValueError(
            f"'{name}' is zero on every example of one class; calibration needs both classes "
            "with positive weight."
        )


def check_consistent_length(**arrays: Sized | None) -> None:
    """Raise if the named arrays do not all have the same length.

    Examples
    --------
    >>> check_consistent_length(scores=[1, 2], y=[0])
    Traceback (most recent call last):
    ...
    ValueError: Inconsistent lengths: scores has 2 value(s), y has 1 value(s); they must match.
    """
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n} value(s)" for k, n in lengths.items())
        raise ValueError(f"Inconsistent lengths: {desc}; they must match.")


def check_interval(p0: FloatArray, p1: FloatArray, *, tol: float = 1e-9) -> None:
    """Raise unless ``p0 <= p1`` (up to ``tol``) for every pair of interval ends.

    ``p0`` and ``p1`` are validated float arrays of the same length.

    Examples
    --------
    >>> check_interval(np.array([0.2, 0.6]), np.array([0.3, 0.5]))
    Traceback (most recent call last):
    ...
    ValueError: 'p0' exceeds 'p1' in 1 interval(s) (first at index 1: p0=0.6 > p1=0.5); the lower end p0 must not exceed the upper end p1.
    """
    crossed = p0 > p1 + tol
    if crossed.any():
        i = int(np.flatnonzero(crossed)[0])
        raise ValueError(
            f"'p0' exceeds 'p1' in {int(crossed.sum())} interval(s) (first at index {i}: "
            f"p0={p0[i]:.6g} > p1={p1[i]:.6g}); the lower end p0 must not exceed the upper end p1."
        )


def rescale_sample_weight(sample_weight: _Weight) -> _Weight:
    """Return weights scaled by a power of two so that the largest lies in [0.5, 1).

    Scaling by a power of two is exact (unless a weight below 2^-1022 of the largest becomes
    subnormal or zero), so estimators that depend only on the ratios of the weights give the
    same result, and sums of up to 2^53 weights can no longer overflow.

    Parameters
    ----------
    sample_weight : ndarray of shape (n,) or None
        Non-negative weights with at least one positive (as returned by
        :func:`check_sample_weight`).

    Returns
    -------
    ndarray of shape (n,) or None
        None when ``sample_weight`` is None; the input itself when already in range.

    Examples
    --------
    >>> rescale_sample_weight(np.array([1e308, 5e307]))
    array([0.55626846, 0.27813423])
    >>> rescale_sample_weight(np.array([0.5, 0.25]))
    array([0.5 , 0.25])
    """
    w, exponent = scaled_sample_weight(sample_weight)
    return sample_weight if exponent == 0 else w


def ranking_auc(
    scores: FloatArray, y01: AnyArray, sample_weight: FloatArray | None = None
) -> float:
    """The weighted share of (positive, negative) pairs the scores order correctly, ties
    counting one half (the Mann-Whitney statistic, ROC AUC).

    The package's one ROC AUC: :func:`venncal.metrics.roc_auc` (which checks its inputs), the
    command line and the calibrators' direction check call it. Each pair counts with the
    product of its weights; both classes must have positive weight.

    Examples
    --------
    >>> ranking_auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    0.75
    """
    w = np.ones(scores.shape[0]) if sample_weight is None else rescale_sample_weight(sample_weight)
    order = np.argsort(scores, kind="stable")
    s, y, w = scores[order], y01[order], w[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    pos = np.add.reduceat(w * y, start)
    neg = np.add.reduceat(w * (1 - y), start)
    below = np.cumsum(neg) - neg
    return float(np.sum(pos * (below + 0.5 * neg)) / (np.sum(pos) * np.sum(neg)))


def scaled_sample_weight(sample_weight: _Weight) -> tuple[_Weight, int]:
    """Return the weights in units of a power of two, and that power.

    A weight of k is k copies of its example. Estimators whose answer depends on more than
    the ratios of the weights (pseudo-counts, Platt's targets) keep that meaning while summing
    the weights in a safe range: the weights are divided exactly by ``2**exponent`` (so that
    the largest lies in [0.5, 1) and sums of up to 2^53 of them cannot overflow), and a
    pseudo-count ``alpha`` enters in the same units, as :func:`pseudo_count` gives it.

    Parameters
    ----------
    sample_weight : ndarray of shape (n,) or None
        As for :func:`rescale_sample_weight`.

    Returns
    -------
    weight : ndarray of shape (n,) or None
        ``sample_weight / 2**exponent``; None when ``sample_weight`` is None.
    exponent : int
        0 when ``sample_weight`` is None.

    Examples
    --------
    >>> scaled_sample_weight(np.array([3.0, 1.0, 0.0]))
    (array([0.75, 0.25, 0.  ]), 2)
    """
    if sample_weight is None:
        return sample_weight, 0
    _, exponent = np.frexp(np.max(sample_weight))
    return cast("_Weight", np.ldexp(sample_weight, -int(exponent))), int(exponent)


def pseudo_count(alpha: float, exponent: int) -> float:
    """Return the pseudo-count ``alpha`` (in examples) in units of ``2**exponent``.

    Capped at 2^1000: a pseudo-count that large outweighs any sum of the scaled weights
    (at most 2^53), so ``(n1 + a) / (n + 2 a)`` is 1/2 to rounding either way.

    Examples
    --------
    >>> pseudo_count(1.0, 2), pseudo_count(1.0, -2000) == 2.0**1000
    (0.25, True)
    """
    with np.errstate(over="ignore"):
        return float(min(np.ldexp(float(alpha), -int(exponent)), 2.0**1000))


def relative_sample_weight(sample_weight: _Weight) -> tuple[_Weight, float]:
    """Return weights scaled to average one over the examples of positive weight.

    For estimators whose answer depends only on the ratios of the weights (an unpenalised
    likelihood, as beta calibration's): there scaling the weights changes nothing, and
    weights averaging one keep every sum finite. Estimators with pseudo-counts or smoothed
    targets use :func:`scaled_sample_weight` instead, so that a weight of k stays k copies.
    Unit weights are returned as they are.

    Parameters
    ----------
    sample_weight : ndarray of shape (n,) or None
        As for :func:`rescale_sample_weight`.

    Returns
    -------
    weight : ndarray of shape (n,) or None
        The rescaled weights; None when ``sample_weight`` is None.
    factor : float
        The original weights are ``weight * factor`` (up to rounding; ``inf`` when their sum
        exceeds the largest float); 1.0 when ``sample_weight`` is None.

    Examples
    --------
    >>> relative_sample_weight(np.array([3e300, 1e300, 0.0]))
    (array([1.5, 0.5, 0. ]), 2e+300)
    """
    if sample_weight is None:
        return sample_weight, 1.0
    w, exponent = scaled_sample_weight(sample_weight)
    total = float(np.sum(w))
    n_positive = int(np.count_nonzero(w))
    with np.errstate(over="ignore"):
        factor = float(np.ldexp(total / n_positive, exponent))
    return cast("_Weight", w * (n_positive / total)), factor


def plain_label(label: object) -> object:
    """A label as Python writes it in a message: a numpy scalar as its Python value.

    Examples
    --------
    >>> plain_label(np.int64(1)), plain_label(np.str_("a")), plain_label("b")
    (1, 'a', 'b')
    """
    return label.item() if isinstance(label, np.generic) else label
