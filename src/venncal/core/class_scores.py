"""Per-class score matrices of K-class calibrators: their checks and their log-probabilities.

The K-class calibrators (:class:`~venncal.MulticlassVennAbersCalibrator`,
:class:`~venncal.TemperatureCalibrator`, :class:`~venncal.MatrixScalingCalibrator`,
:class:`~venncal.DirichletCalibrator`) take a matrix of one score column per class: logits,
probabilities or raw scores. These functions check such a matrix and turn it into per-class
log-probabilities; they are shared by the estimators and by the prediction of a loaded model
file, which runs without scikit-learn (:mod:`venncal.persistence._predictor`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import _as_array

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, BoolArray, FloatArray, IntArray

__all__ = [
    "check_score_matrix",
    "check_probabilities_as_fitted",
    "checked_class_log_scores",
    "class_log_scores",
    "log_sum_exp",
    "ShiftedColumns",
]

_LOG_TINY: np.float64 = np.log(np.finfo(np.float64).tiny)


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
            return np.maximum(np.log(S), _LOG_TINY)
    return np.subtract(S, log_sum_exp(S)[:, None])


def log_sum_exp(S: FloatArray) -> FloatArray:
    """log sum_k exp(S[i, k]) per row, by blocks of rows (small temporaries at large n K)."""
    lse = np.empty(S.shape[0])
    step = max(1, 2**20 // S.shape[1])
    for lo in range(0, S.shape[0], step):
        block = S[lo : lo + step]
        top = block.max(axis=1, keepdims=True)
        lse[lo : lo + step] = top[:, 0] + np.log(np.exp(block - top).sum(axis=1))
    return lse


class ShiftedColumns:
    """The columns of S - shift[:, None], computed one at a time (one-vs-rest needs no more).

    At n = 5 * 10^4 and K = 1000 this saves building a second n x K matrix.
    """

    def __init__(self, S: FloatArray, shift: FloatArray) -> None:
        self.S = S
        self.shift = shift
        self.shape = S.shape

    def column(self, k: int) -> FloatArray:
        return self.S[:, k] - self.shift

    def __getitem__(self, rows: slice | IntArray | BoolArray) -> ShiftedColumns:
        return ShiftedColumns(self.S[rows], self.shift[rows])


def check_probabilities_as_fitted(scores: FloatArray, score_type: str, *, owner: str) -> None:
    """Raise if a calibrator fitted on probabilities gets scores outside [0, 1]."""
    if score_type == "probabilities" and ((scores < 0).any() or (scores > 1).any()):
        raise ValueError(f"'scores' of {owner} must be probabilities in [0, 1], as at fit time.")


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
