"""Per-class score matrices of K-class calibrators: their checks and their log-probabilities.

The K-class calibrators (:class:`~venncal.MulticlassVennAbersCalibrator`,
:class:`~venncal.TemperatureCalibrator`, :class:`~venncal.MatrixScalingCalibrator`,
:class:`~venncal.DirichletCalibrator`) take a matrix of one score column per class: logits,
probabilities or raw scores. These functions check such a matrix and turn it into per-class
log-probabilities; they are shared by the estimators and by the prediction of a loaded model
file, which runs without scikit-learn (:mod:`venncal.persistence._predictor`).

**Reading probabilities** (one rule for every K-class calibrator that takes their logarithms:
temperature scaling, matrix scaling, Dirichlet calibration, and the other classes' shares of
top-label Venn-Abers):

1. rows in [0, 1] summing to one within ``SUM_TOLERANCE_PER_CLASS * K`` (0.005 per class, so
   probabilities rounded to two decimals or more pass); other rows are refused, not
   renormalised (:func:`check_probability_rows`);
2. ``log(max(p, floor))``, the floor fitted on the calibration data and kept in the fitted
   map (:func:`probability_floor`): how often the model's exact zeros come true there, or its
   smallest calibration probability when it gives no zero; then the calibrator's linear map
   and softmax.

Logits are read as they are (their log-softmax where a calibrator needs log-probabilities).
Pairwise and one-vs-rest Venn-Abers use only the order of their scores and keep reading
probabilities as given (one-vs-rest) or as ``log(max(p, tiny))`` (pairwise): the floor changed
the held-out log loss of pooled pairwise Venn-Abers by 0.0004 on average over 45 cells of
forests, extra trees, trees and nearest neighbours (better in 22).
The floor was chosen by held-out log loss on scikit-learn's digits and wine, three K-class
problems of the Adult data and synthetic problems, with forests, extra trees, k nearest
neighbours, a tree and naive Bayes (whose zeros it changes) and logistic regression and
gradient boosting (which it leaves alone), against ``log(p + 1e-12)``, a floor at the
resolution of the model and additive smoothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import _as_array

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, BoolArray, FloatArray, IntArray

__all__ = [
    "LOG_TINY",
    "MAX_MATRIX_CLASSES",
    "SUM_TOLERANCE_PER_CLASS",
    "check_matrix_classes",
    "check_log_floor",
    "check_score_matrix",
    "check_probability_rows",
    "check_probabilities_as_fitted",
    "checked_class_log_scores",
    "class_log_scores",
    "log_sum_exp",
    "probability_floor",
    "rows_off_one",
    "ShiftedColumns",
    "finite_difference",
]

#: the logarithm of the smallest normal float64, where the logarithms of probabilities stop
LOG_TINY = float(np.log(np.finfo(np.float64).tiny))
#: the most classes of a calibrator that fits a K x K matrix (matrix scaling, Dirichlet
#: calibration) or forms a K x K Hessian (temperature scaling with a bias): 10^6 parameters
MAX_MATRIX_CLASSES = 1000
#: rows of K probabilities may miss a sum of one by this much per class: any rounding to two
#: decimals or more (each entry off by at most 0.005) passes, a row of zeros does not
SUM_TOLERANCE_PER_CLASS = 0.005


def check_score_matrix(
    scores: ArrayLike, *, name: str = "scores", owner: str, n_classes: int | None = None
) -> FloatArray:
    """Return a finite float64 (n, K) matrix; one-line errors otherwise."""
    arr = _as_array(scores, name)
    if arr.ndim != 2:
        raise ValueError(
            f"'{name}' of {owner} must be a 2-D (n_samples, n_classes) matrix of per-class "
            f"scores, got shape {arr.shape}. Reshape your data; for two classes and one score "
            "column use VennAbersCalibrator."
        )
    if arr.dtype.kind == "c":
        raise ValueError(f"'{name}' of {owner} holds complex numbers; Complex data not supported.")
    try:
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    except (ValueError, TypeError):
        raise TypeError(f"'{name}' of {owner} must hold numbers, got {arr.dtype}.") from None
    if arr.shape[1] == 0:
        raise ValueError(
            f"'{name}' of {owner} has 0 feature(s) (shape={arr.shape}) while a minimum of 2 is "
            "required (one score column per class)."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"'{name}' of {owner} is empty; at least one row is needed.")
    if n_classes is not None and arr.shape[1] != n_classes:
        raise ValueError(
            f"'{name}' of {owner} has {arr.shape[1]} column(s) but it was fitted with "
            f"{n_classes} classes; pass one score column per class, in the order of classes_."
        )
    finite = np.isfinite(arr)
    if not finite.all():
        kind = "NaN" if np.isnan(arr).any() else "infinite"
        row = int(np.flatnonzero(~finite.all(axis=1))[0])
        raise ValueError(
            f"'{name}' of {owner} holds {kind} values (first in row {row}); scores must be finite."
        )
    return arr


def class_log_scores(S: FloatArray, score_type: str) -> FloatArray:
    """Per-class log-probabilities t of a score matrix (see the module docstring).

    Parameters
    ----------
    S : ndarray of shape (n, K)
    score_type : {"logits", "probabilities", "raw"}

    Returns
    -------
    t : ndarray of shape (n, K)

    Examples
    --------
    >>> class_log_scores(np.array([[0.0, np.log(3.0)]]), "logits").round(4)
    array([[-1.3863, -0.2877]])
    """
    if score_type == "raw":
        return S
    if score_type == "probabilities":
        with np.errstate(divide="ignore"):
            return np.maximum(np.log(S), LOG_TINY)
    # logits 1e308 apart: a log-probability below the float range is held at the most
    # negative float, in order, as a probability of 0 (the fits floor it further)
    return finite_difference(S, log_sum_exp(S)[:, None])


def probability_floor(P: FloatArray, y: IntArray, sample_weight: FloatArray | None = None) -> float:
    """The floor at which a calibrator reads calibration probabilities ``P`` as logarithms.

    The probabilities of the K classes of an example form K (example, class) pairs, a hit when
    the class is the example's label. When some pairs have a probability of exactly zero (a
    random forest, k nearest neighbours, a tree), the floor is how often such pairs come true
    on the calibration data, with half a hit in one pair of prior,

    .. math:: \\mathrm{floor} = \\frac{h_0 + 1/2}{m_0 + 1},

    ``m_0`` the (weighted) zero pairs and ``h_0`` their hits, the weights scaled to one per
    example on average. ``log(0)`` would take those zeros for certainties (about -708 as a
    float64), and one zero that comes true would then drive a fitted temperature to hundreds.
    Without zeros, the floor is the smallest calibration probability: below it the
    calibration data say nothing, and the calibration probabilities themselves are read
    unchanged.

    Parameters
    ----------
    P : ndarray of shape (n, K)
        Calibration probabilities.
    y : ndarray of shape (n,)
        Class indices 0..K-1.
    sample_weight : ndarray of shape (n,), default=None

    Returns
    -------
    floor : float
        In ``[tiny, 1]``, ``tiny`` the smallest normal float64.

    Examples
    --------
    Ten zeros of which one comes true give (1 + 1/2) / (10 + 1):

    >>> P = np.array([[1.0, 0.0]] * 9 + [[0.0, 1.0]])
    >>> round(probability_floor(P, np.array([0] * 8 + [1, 1])), 4)
    0.1364
    >>> probability_floor(np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([0, 1]))
    0.1
    """
    tiny = float(np.finfo(np.float64).tiny)
    zero = P == 0.0
    if not zero.any():
        return max(float(P.min()), tiny)
    n = P.shape[0]
    if sample_weight is None:
        w = np.ones(n)
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        w = w / w.max()
        w = w * (np.count_nonzero(w) / w.sum())  # one per example of positive weight, on average
    rows = np.arange(n)
    m0 = float(w @ zero.sum(axis=1))
    h0 = float(w @ zero[rows, y])
    return min(max((h0 + 0.5) / (m0 + 1.0), tiny), 1.0)


def check_matrix_classes(K: int, *, owner: str, what: str) -> None:
    """Raise a one-line ``ValueError`` when ``K`` exceeds :data:`MAX_MATRIX_CLASSES` for a fit
    of ``what`` (a K x K matrix), before anything of that size is allocated.

    Examples
    --------
    >>> check_matrix_classes(5000, owner="DirichletCalibrator", what="a K x K matrix")
    Traceback (most recent call last):
    ...
    ValueError: DirichletCalibrator fits a K x K matrix: 5000 classes would need 25,000,000 parameters; it is offered up to 1000 classes. Use TemperatureCalibrator, MatrixScalingCalibrator(structure='svs') or MulticlassVennAbersCalibrator(strategy='ovr').
    """
    if K > MAX_MATRIX_CLASSES:
        raise ValueError(
            f"{owner} fits {what}: {K} classes would need {K * K:,} parameters; it is offered "
            f"up to {MAX_MATRIX_CLASSES} classes. Use TemperatureCalibrator, "
            "MatrixScalingCalibrator(structure='svs') or "
            "MulticlassVennAbersCalibrator(strategy='ovr')."
        )


def check_log_floor(value: object, *, low: float, owner: str) -> None:
    """Raise a one-line ``ValueError`` unless ``value`` is a float in ``[low, 0]`` or ``-inf``
    (no floor): the ``log_floor`` of a fitted map, checked when a model file is read too."""
    ok = type(value) is float and (value == -np.inf or low <= value <= 0.0)
    if not ok:
        raise ValueError(f"{owner}: 'log_floor' must be -inf or a float in [{low:.6g}, 0].")


def log_sum_exp(S: FloatArray) -> FloatArray:
    """log sum_k exp(S[i, k]) per row, by blocks of rows (small temporaries at large n K)."""
    lse = np.empty(S.shape[0])
    step = max(1, 2**20 // S.shape[1])
    for lo in range(0, S.shape[0], step):
        block = S[lo : lo + step]
        top = block.max(axis=1, keepdims=True)
        with np.errstate(over="ignore"):  # block - top below -1e308: exp of -inf is 0
            lse[lo : lo + step] = top[:, 0] + np.log(np.exp(block - top).sum(axis=1))
    return lse


def finite_difference(a: FloatArray, b: FloatArray) -> FloatArray:
    """``a - b``, a difference beyond the float range held at the largest float of its sign.

    Log-scores 1e308 apart keep their order, beyond every ordinary difference, and stay finite
    for the Venn-Abers fits, which refuse infinite scores.

    Examples
    --------
    >>> finite_difference(np.array([1e308, 1.0]), np.array([-1e308, 3.0]))
    array([ 1.79769313e+308, -2.00000000e+000])
    """
    with np.errstate(over="ignore"):
        d = np.subtract(a, b)
    big = np.finfo(np.float64).max
    return np.clip(d, -big, big, out=d)


class ShiftedColumns:
    """The columns of S - shift[:, None], computed one at a time (one-vs-rest needs no more).

    At n = 5 * 10^4 and K = 1000 this saves building a second n x K matrix.
    """

    def __init__(self, S: FloatArray, shift: FloatArray) -> None:
        self.S = S
        self.shift = shift
        self.shape = S.shape

    def column(self, k: int) -> FloatArray:
        return finite_difference(self.S[:, k], self.shift)

    def __getitem__(self, rows: slice | IntArray | BoolArray) -> ShiftedColumns:
        return ShiftedColumns(self.S[rows], self.shift[rows])


def rows_off_one(S: FloatArray) -> IntArray:
    """The rows of ``S`` whose sum misses one by more than ``SUM_TOLERANCE_PER_CLASS * K``.

    Examples
    --------
    >>> rows_off_one(np.array([[0.33, 0.33, 0.33], [0.0, 0.0, 0.0], [0.5, 0.6, 0.0]]))
    array([1, 2])
    """
    tol = SUM_TOLERANCE_PER_CLASS * S.shape[1]
    # summed in C order whatever the layout: numpy's order of addition depends on it (the
    # exports add in this order), and at the tolerance an ulp decides
    total = np.ascontiguousarray(S).sum(axis=1)
    off: IntArray = np.flatnonzero(~(np.abs(total - 1.0) <= tol))
    return off


def check_probability_rows(S: FloatArray, *, owner: str) -> None:
    """Raise unless every row of ``S`` lies in [0, 1] and sums to one within
    ``SUM_TOLERANCE_PER_CLASS * K`` (a row of probabilities rounded to two decimals or more).

    Examples
    --------
    >>> check_probability_rows(np.array([[0.3333, 0.3333, 0.3333]]), owner="example")
    >>> check_probability_rows(np.array([[0.0, 0.0, 0.0]]), owner="example")
    Traceback (most recent call last):
    ...
    ValueError: row 0 of 'scores' of example sums to 0, not 1: rows of probabilities must sum to one (within 0.005 per class, 0.015 here); renormalise them, or pass score_type='logits' for scores that are not probabilities.
    """
    if (S < 0).any() or (S > 1).any():
        raise ValueError(f"'scores' of {owner} must be probabilities in [0, 1].")
    off = rows_off_one(S)
    if off.size:
        i = int(off[0])
        raise ValueError(
            f"row {i} of 'scores' of {owner} sums to {S[i].sum():.6g}, not 1: rows of "
            f"probabilities must sum to one (within {SUM_TOLERANCE_PER_CLASS:g} per class, "
            f"{SUM_TOLERANCE_PER_CLASS * S.shape[1]:g} here); renormalise them, or pass "
            "score_type='logits' for scores that are not probabilities."
        )


def check_probabilities_as_fitted(scores: FloatArray, score_type: str, *, owner: str) -> None:
    """Raise if a calibrator fitted on probabilities gets scores that are not: outside [0, 1],
    or (a K-class matrix) rows that do not sum to one (:func:`check_probability_rows`)."""
    if score_type != "probabilities":
        return
    if (scores < 0).any() or (scores > 1).any():
        raise ValueError(f"'scores' of {owner} must be probabilities in [0, 1], as at fit time.")
    if scores.ndim == 2:
        check_probability_rows(scores, owner=owner)


def checked_class_log_scores(
    scores: ArrayLike, score_type: str, *, n_classes: int, owner: str
) -> FloatArray:
    """Check the test scores of a fitted K-class calibrator; return their log-probabilities.

    Parameters
    ----------
    scores : array-like of shape (m, K)
    score_type : {"logits", "probabilities", "raw"}
        The score type resolved at fit time.
    n_classes : int
        K, the number of classes at fit time.
    owner : str
        The name in the error messages.

    Returns
    -------
    t : ndarray of shape (m, K)

    Examples
    --------
    >>> checked_class_log_scores([[0.25, 0.75]], "probabilities", n_classes=2, owner="example")
    array([[-1.38629436, -0.28768207]])
    """
    S = check_score_matrix(scores, owner=owner, n_classes=n_classes)
    check_probabilities_as_fitted(S, score_type, owner=owner)
    return class_log_scores(S, score_type)
