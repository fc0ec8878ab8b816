"""Pairwise coupling: one class distribution from the probabilities of every pair of classes.

Given r_ij, an estimate of mu_ij = P(y = i | y in {i, j}, x) for every pair i != j (with
r_ji = 1 - r_ij), find p = (p_1, ..., p_K) with p_i >= 0 and sum_i p_i = 1 such that
p_i / (p_i + p_j) is close to r_ij. Three rules:

* ``"price"`` (Price, Knerr, Personnaz & Dreyfus 1995): from sum_{j != i} P(y in {i, j}) =
  (K - 2) p_i + 1, p_i = 1 / (sum_{j != i} 1 / r_ij - (K - 2)); the p_i do not sum to one in
  general and are normalised (as in Manokhin's multiclass Venn-Abers). An r_ij of zero gives
  p_i = 0.
* ``"wu1"`` (Wu, Lin & Weng 2004, method 1, eq. 7): the solution of
  p_i = sum_{j != i} (p_i + p_j) / (K - 1) * r_ij with sum_i p_i = 1: the stationary
  distribution of the Markov chain with Q_ii = sum_{s != i} r_is / (K - 1) and
  Q_ij = r_ij / (K - 1).
* ``"wu2"`` (Wu, Lin & Weng 2004, method 2, eq. 9): the minimiser of
  sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2 subject to sum_i p_i = 1, from its bordered linear
  system [[Q, 1], [1', 0]] [p; b] = [0; 1] with Q_ii = sum_{s != i} r_si^2 and
  Q_ij = -r_ji r_ij (the paper shows the solution is non-negative).

All three return the distribution itself when the r_ij are consistent, r_ij = p_i / (p_i + p_j).
For example, with K = 10 and r = 0.9 for one class against every other and 0.5 elsewhere, the
consistent answer is p = 0.9 / (0.9 + 9 * 0.1) = 0.5 for that class (it is nine times as likely
as each of nine equally likely others), and every rule returns 0.5.

References
----------
D. Price, S. Knerr, L. Personnaz and G. Dreyfus, "Pairwise neural network classifiers with
probabilistic outputs", NIPS 7, 1995.
T.-F. Wu, C.-J. Lin and R. C. Weng, "Probability estimates for multi-class classification by
pairwise coupling", JMLR 5, 2004, section 4.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_option
from venncal.core._docs import fill_docstring

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from venncal._typing import ArrayLike, BoolArray, FloatArray

    F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["COUPLINGS", "couple", "couple_price", "couple_wu1", "couple_wu2"]

COUPLINGS = ("wu2", "wu1", "price")
_BATCH_ENTRIES = 2**22  # rows of (K + 1)^2 systems solved at once


#: The parameter, return value and example set-up of the three rules, put into their docstrings.
_RULE_DOCS = {
    "rule": """Parameters
----------
R : array-like of shape (m, K, K)
    ``R[:, i, j]`` estimates P(y = i | y in {i, j}); the diagonal is ignored.

Returns
-------
P : ndarray of shape (m, K)
    Non-negative rows summing to one.

Examples
--------
>>> p = np.array([0.5, 0.3, 0.2])
>>> R = p[:, None] / (p[:, None] + p[None, :])""",
}


def _fill_rule_doc(func: F) -> F:
    return fill_docstring(func, _RULE_DOCS)


def _check(R: ArrayLike) -> tuple[FloatArray, BoolArray]:
    """``R`` as a float array, checked, and the mask of its off-diagonal entries."""
    R = np.asarray(R, dtype=np.float64)
    if R.ndim != 3 or R.shape[1] != R.shape[2] or R.shape[1] < 2:
        raise ValueError(f"'R' must have shape (m, K, K) with K >= 2, got {R.shape}.")
    off = ~np.eye(R.shape[1], dtype=bool)
    vals = R[:, off]
    if not np.isfinite(vals).all() or (vals < 0).any() or (vals > 1).any():
        raise ValueError("'R' must hold probabilities in [0, 1] off the diagonal.")
    return R, off


def _normalise(P: FloatArray) -> FloatArray:
    P = np.clip(P, 0.0, None)
    total = P.sum(axis=1, keepdims=True)
    K = P.shape[1]
    return np.where(total > 0, P / np.where(total > 0, total, 1.0), 1.0 / K)


@_fill_rule_doc
def couple_price(R: ArrayLike) -> FloatArray:
    """Price et al. (1995): p_i proportional to 1 / (sum_{j != i} 1 / r_ij - (K - 2)).

    {rule}
    >>> couple_price(R[None]).round(6)
    array([[0.5, 0.3, 0.2]])
    """
    R, off = _check(R)
    K = R.shape[1]
    with np.errstate(divide="ignore", over="ignore"):
        inv = np.where(off, 1.0 / R, 0.0).sum(axis=2) - (K - 2)
    # sum_{j != i} 1 / r_ij >= K - 1, so inv >= 1; an r_ij of zero (or so small that its
    # inverse overflows, e.g. of extreme weights) makes it infinite (p_i = 0)
    return _normalise(1.0 / inv)


def _solve_batched(A: FloatArray, b: FloatArray) -> FloatArray:
    """Solve A x = b row by row in batches; least squares where a system is singular."""
    m = A.shape[0]
    out = np.empty(b.shape)
    step = max(1, _BATCH_ENTRIES // (A.shape[1] * A.shape[2]))
    for lo in range(0, m, step):
        hi = min(m, lo + step)
        try:
            out[lo:hi] = np.linalg.solve(A[lo:hi], b[lo:hi, :, None])[..., 0]
        except np.linalg.LinAlgError:
            for r in range(lo, hi):
                out[r] = np.linalg.lstsq(A[r], b[r], rcond=None)[0]
    return out


@_fill_rule_doc
def couple_wu1(R: ArrayLike) -> FloatArray:
    """Wu, Lin & Weng (2004), method 1: p_i = sum_{j != i} (p_i + p_j) r_ij / (K - 1).

    {rule}
    >>> couple_wu1(R[None]).round(6)
    array([[0.5, 0.3, 0.2]])
    """
    R, off = _check(R)
    m, K, _ = R.shape
    Q = np.where(off, R, 0.0) / (K - 1)
    idx = np.arange(K)
    Q[:, idx, idx] = Q.sum(axis=2)
    A = Q.copy()
    A[:, idx, idx] -= 1.0  # (Q - I) p = 0; its rows sum to zero, so one row is redundant
    A[:, K - 1, :] = 1.0
    b = np.zeros((m, K))
    b[:, K - 1] = 1.0
    return _normalise(_solve_batched(A, b))


@_fill_rule_doc
def couple_wu2(R: ArrayLike) -> FloatArray:
    """Wu, Lin & Weng (2004), method 2: least squares sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2.

    {rule}
    >>> couple_wu2(R[None]).round(6)
    array([[0.5, 0.3, 0.2]])
    """
    R, off = _check(R)
    m, K, _ = R.shape
    Rt = np.swapaxes(R, 1, 2)  # Rt[:, i, j] = r_ji
    A = np.zeros((m, K + 1, K + 1))
    A[:, :K, :K] = np.where(off, -(Rt * R), 0.0)
    idx = np.arange(K)
    A[:, idx, idx] = np.where(off, Rt**2, 0.0).sum(axis=2)
    A[:, :K, K] = 1.0
    A[:, K, :K] = 1.0
    b = np.zeros((m, K + 1))
    b[:, K] = 1.0
    return _normalise(_solve_batched(A, b)[:, :K])


_RULES = {"price": couple_price, "wu1": couple_wu1, "wu2": couple_wu2}


def couple(R: ArrayLike, method: str = "wu2") -> FloatArray:
    """Couple pairwise probabilities by the rule ``method`` (see the module docstring).

    Parameters
    ----------
    R : array-like of shape (m, K, K)
        ``R[:, i, j]`` estimates P(y = i | y in {i, j}); the diagonal is ignored.
    method : {"wu2", "wu1", "price"}, default="wu2"

    Returns
    -------
    P : ndarray of shape (m, K)

    Examples
    --------
    One class at 0.9 against each of nine others, 0.5 among the others: it gets 0.5.

    >>> R = np.full((1, 10, 10), 0.5)
    >>> R[0, 0, 1:], R[0, 1:, 0] = 0.9, 0.1
    >>> [float(couple(R, m)[0, 0].round(6)) for m in ("wu2", "wu1", "price")]
    [0.5, 0.5, 0.5]
    """
    check_option(method, COUPLINGS, name="coupling", owner="couple")
    return _RULES[method](R)
