"""Abstention with a guarantee: the confidence threshold of Learn-then-Test.

A classifier answers when its confidence ``c`` (the probability of its predicted class)
reaches a threshold ``lam`` and abstains otherwise. Its *selective error* at ``lam`` is
``R(lam) = P(prediction wrong | c >= lam)``. Given ``n`` exchangeable calibration rows, the
threshold is chosen so that, with probability at least ``1 - delta`` over the calibration draw,
``R(lam_hat) <= target_error`` (Angelopoulos, Bates, Candes, Jordan and Lei, *Learn then
Test*, 2021, Theorem 1 with fixed-sequence testing, and their selective classification example):

1. a grid of thresholds fixed before the data, decreasing from 1 (:func:`threshold_grid`);
2. for each threshold, the null hypothesis ``H_lam: R(lam) > target_error`` and the exact
   binomial p-value ``P(Binomial(n_lam, target_error) <= k_lam)`` of the ``k_lam`` errors
   among the ``n_lam`` calibration rows accepted at ``lam``: given ``n_lam``, those rows are
   i.i.d. draws of the accepted population, so ``k_lam`` is ``Binomial(n_lam, R(lam))`` and
   the p-value is valid (:func:`binomial_pvalue`);
3. fixed-sequence testing (LTT Proposition 3): the thresholds are tested in decreasing order,
   each at level ``delta``, and the sequence stops at the first one not rejected; the family-
   wise error is at most ``delta``, so every rejected threshold has ``R(lam) <= target_error``
   with probability ``1 - delta`` at least, the lowest of them (the one accepting most) too.

The sequence starts at the highest threshold that accepts ``min_accepted`` calibration rows:
above it the p-value cannot fall below ``delta`` (with ``n_lam`` rows and no error it is
``(1 - target_error)^n_lam``), and one untestable threshold at the top would stop the sequence
before it starts. Where it starts depends on the confidences only, never on the labels; the
selective classification example of Angelopoulos et al. does the same (thresholds accepting
fewer than a minimum count are dropped).

Sample weights count as examples (a weight of 2 is two identical rows): ``n_lam`` and
``k_lam`` are weighted sums and the binomial tail is the regularised incomplete beta function,
which equals the binomial distribution function at integer counts. The guarantee is stated for
unit weights (exchangeable rows).

References
----------
A. N. Angelopoulos, S. Bates, E. J. Candes, M. I. Jordan and L. Lei, "Learn then Test:
Calibrating predictive algorithms to achieve risk control", arXiv:2110.01052, 2021.

C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits illustrated in the
case of the binomial", Biometrika 26(4), 404-413, 1934.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import betainc, betaincinv

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray, IntArray

__all__ = [
    "SelectiveThreshold",
    "binomial_pvalue",
    "clopper_pearson_upper",
    "learn_then_test",
    "smallest_testable_count",
    "threshold_grid",
    "top_label_confidence",
]

#: the smallest gap ``1 - lam`` of the default grid below the threshold 1
GRID_SMALLEST_GAP = 1e-6


def threshold_grid(n_thresholds: int = 1000) -> FloatArray:
    """The default grid of thresholds: 1, then ``1 - u`` for ``u`` geometric from 1e-6 to 1.

    Confidences pile up near 1, so the grid is fine there (neighbouring gaps ``1 - lam``
    differ by about 1.4% at 1000 thresholds) and ends at 0 (accept everything).

    Parameters
    ----------
    n_thresholds : int, default=1000
        The number of thresholds, at least 2.

    Returns
    -------
    thresholds : ndarray of shape (n_thresholds,)
        Strictly decreasing, from 1 to 0.

    Examples
    --------
    >>> threshold_grid(4)
    array([1.    , 0.9999, 0.99  , 0.    ])
    """
    gaps = np.geomspace(GRID_SMALLEST_GAP, 1.0, n_thresholds - 1)
    grid: FloatArray = np.concatenate([[1.0], 1.0 - gaps])
    grid[-1] = 0.0
    return grid


def binomial_pvalue(errors: ArrayLike, n: ArrayLike, target: float) -> FloatArray:
    """``P(Binomial(n, target) <= errors)``, the p-value of ``H: error rate > target``.

    For real (weighted) counts it is the regularised incomplete beta function
    ``I_{1 - target}(n - errors, errors + 1)``, equal to the binomial distribution function at
    integer counts; 1 where ``errors >= n`` (every accepted row wrong) or ``n`` is 0.

    Examples
    --------
    No error among 45 rows at a target of 0.05: ``0.95^45``.

    >>> float(binomial_pvalue(0, 45, 0.05).round(4)), round(0.95**45, 4)
    (0.0994, 0.0994)
    """
    k = np.asarray(errors, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    out = np.ones(np.broadcast(k, m).shape)
    ok = np.broadcast_to(m - k > 0, out.shape)
    kk, mm = np.broadcast_to(k, out.shape)[ok], np.broadcast_to(m, out.shape)[ok]
    out[ok] = betainc(mm - kk, kk + 1.0, 1.0 - target)
    return out


def clopper_pearson_upper(errors: ArrayLike, n: ArrayLike, delta: float) -> FloatArray:
    """The one-sided ``1 - delta`` Clopper-Pearson upper bound of an error rate.

    The smallest ``r`` with ``P(Binomial(n, r) <= errors) <= delta``: the quantile
    ``1 - delta`` of ``Beta(errors + 1, n - errors)``; 1 where ``errors >= n`` or ``n`` is 0.

    Examples
    --------
    >>> float(clopper_pearson_upper(0, 45, 0.1).round(4))
    0.0499
    """
    k = np.asarray(errors, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    out = np.ones(np.broadcast(k, m).shape)
    ok = np.broadcast_to(m - k > 0, out.shape)
    kk, mm = np.broadcast_to(k, out.shape)[ok], np.broadcast_to(m, out.shape)[ok]
    # I_{1-r}(n-k, k+1) = delta  <=>  I_r(k+1, n-k) = 1 - delta
    out[ok] = betaincinv(kk + 1.0, mm - kk, 1.0 - delta)
    return out


def smallest_testable_count(target_error: float, delta: float) -> int:
    """The fewest accepted rows whose p-value can reach ``delta``: with no error among ``n``
    rows the p-value is ``(1 - target_error)^n``.

    Examples
    --------
    >>> smallest_testable_count(0.05, 0.1)
    45
    """
    return max(1, math.ceil(math.log(delta) / math.log1p(-target_error) - 1e-12))


def top_label_confidence(P: FloatArray) -> tuple[IntArray, FloatArray]:
    """The predicted class (the first of largest value) and its value, per row of ``P``.

    Examples
    --------
    >>> top_label_confidence(np.array([[0.2, 0.8], [0.5, 0.5]]))
    (array([1, 0]), array([0.8, 0.5]))
    """
    top: IntArray = np.argmax(P, axis=1)
    return top, np.ascontiguousarray(P[np.arange(P.shape[0]), top])


@dataclass(frozen=True)
class SelectiveThreshold:
    """The outcome of :func:`learn_then_test`.

    Attributes
    ----------
    threshold : float
        Accept a row when its confidence is at least this; ``inf`` when no threshold passed.
    error_bound : float
        The ``1 - delta`` Clopper-Pearson upper bound of the selective error at ``threshold``
        (at most the target when a threshold passed).
    coverage : float
        The (weighted) share of calibration rows accepted at ``threshold``.
    n_accepted, n_errors : float
        The (weighted) calibration rows accepted at ``threshold`` and the wrong ones among them.
    smallest_target : float
        The smallest target error the procedure meets with this ``delta`` and these rows: the
        upper bound at the first threshold of the sequence.
    start : int
        The index of the first threshold tested.
    n_rejected : int
        How many thresholds were rejected (0: none passed).
    """

    threshold: float
    error_bound: float
    coverage: float
    n_accepted: float
    n_errors: float
    smallest_target: float
    start: int
    n_rejected: int


def learn_then_test(
    confidence: FloatArray,
    wrong: ArrayLike,
    sample_weight: FloatArray | None = None,
    *,
    target_error: float,
    delta: float,
    thresholds: FloatArray,
    min_accepted: float,
) -> SelectiveThreshold:
    """Choose the confidence threshold of abstention by fixed-sequence Learn-then-Test.

    See the module description for the procedure and its guarantee.

    Parameters
    ----------
    confidence : ndarray of shape (n,)
        Each calibration row's confidence in its predicted class.
    wrong : array-like of shape (n,)
        1 (or True) where the predicted class is wrong.
    sample_weight : ndarray of shape (n,), default=None
        Weights counted as examples.
    target_error : float
        The selective error to guarantee, in (0, 1).
    delta : float
        The probability allowed of missing it, in (0, 1).
    thresholds : ndarray
        Strictly decreasing thresholds (e.g. :func:`threshold_grid`).
    min_accepted : float
        The sequence starts at the first threshold accepting at least this many (weighted)
        rows (all of them, when there are fewer).

    Returns
    -------
    SelectiveThreshold
        ``n_rejected`` is 0 when no threshold passed (``threshold`` is then ``inf``).

    Examples
    --------
    1000 rows whose confidence ``c`` is right with probability ``c``: a 5% error among the
    accepted ones needs confidences from 0.9 up (0.95 or so with 1000 rows and 90% sure).

    >>> rng = np.random.default_rng(0)
    >>> c = rng.uniform(0.5, 1.0, 1000)
    >>> wrong = rng.random(1000) > c
    >>> res = learn_then_test(c, wrong, target_error=0.05, delta=0.1,
    ...                       thresholds=threshold_grid(), min_accepted=45)
    >>> bool(0.9 < res.threshold < 1.0), bool(res.error_bound <= 0.05)
    (True, True)
    """
    e = np.asarray(wrong, dtype=np.float64)
    order = np.argsort(-confidence, kind="stable")
    c_desc = confidence[order]
    w = np.ones_like(c_desc) if sample_weight is None else sample_weight[order]
    cum_w = np.concatenate([[0.0], np.cumsum(w)])
    cum_e = np.concatenate([[0.0], np.cumsum(w * e[order])])
    total = float(cum_w[-1])
    # rows accepted at lam: those with c >= lam, a prefix of the descending order
    m = np.searchsorted(-c_desc, -thresholds, side="right")
    n_acc, n_err = cum_w[m], cum_e[m]
    # more rows asked for than there are: the sequence starts with every row accepted
    testable = np.flatnonzero(n_acc >= min(min_accepted, total))
    if testable.size == 0:
        return SelectiveThreshold(np.inf, 1.0, 0.0, 0.0, 0.0, 1.0, len(thresholds), 0)
    start = int(testable[0])
    pvalues = binomial_pvalue(n_err[start:], n_acc[start:], target_error)
    failed = np.flatnonzero(pvalues > delta)
    n_rejected = int(failed[0]) if failed.size else pvalues.shape[0]
    smallest = float(clopper_pearson_upper(n_err[start], n_acc[start], delta))
    if n_rejected == 0:
        return SelectiveThreshold(np.inf, 1.0, 0.0, 0.0, 0.0, smallest, start, 0)
    j = start + n_rejected - 1
    return SelectiveThreshold(
        threshold=float(thresholds[j]),
        error_bound=float(clopper_pearson_upper(n_err[j], n_acc[j], delta)),
        coverage=float(n_acc[j] / total),
        n_accepted=float(n_acc[j]),
        n_errors=float(n_err[j]),
        smallest_target=smallest,
        start=start,
        n_rejected=n_rejected,
    )
