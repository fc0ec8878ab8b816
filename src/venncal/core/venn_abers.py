"""Exact inductive Venn-Abers predictors in O(n log n).

For a test score t and a hypothetical label y, p_y(t) is the value at t of the isotonic
least-squares fit to the calibration pairs plus (t, y) (Vovk & Petej 2014, Algorithm 1 with a
fixed scoring function; Vovk 2012, pre-trained Venn-Abers predictors). Vovk, Petej & Fedorova
(2015) compute p0 and p1 for every position of t at once from the cumulative-sum diagram of
the calibration set; this module follows their algorithm with exact integer geometry, the tie
rule for test scores equal to a calibration score, and compressed step tables for prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from venncal._validation import check_consistent_length, check_sample_weight, check_scores
from venncal.core._ivap_kernels import hull_sweep, merge_sorted_groups

__all__ = ["IVAPTables", "ivap_fit", "ivap_gap_values"]


def _groups(s, y01, w):
    """Distinct sorted scores with their weights and weighted positive counts."""
    if w is None:
        pos = y01.astype(bool)
        return merge_sorted_groups(np.sort(s[~pos]), np.sort(s[pos]))
    keep = w > 0
    s, y01, w = s[keep], y01[keep], w[keep]
    order = np.argsort(s, kind="stable")
    s, y01, w = s[order], y01[order], w[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    return s[start], np.add.reduceat(w, start), np.add.reduceat(w * y01, start)


def _cumulative(v):
    out = np.empty(v.shape[0] + 1, dtype=v.dtype)
    out[0] = 0
    np.cumsum(v, out=out[1:])
    return out


def ivap_gap_values(weight, positives):
    """p0 and p1 for a test score in each gap between the distinct calibration scores.

    Parameters
    ----------
    weight : ndarray of shape (k,)
        Weight (count) of each distinct calibration score, in increasing score order; positive.
        Integer arrays give exact integer geometry.
    positives : ndarray of shape (k,)
        Weighted number of positives at each distinct score (``0 <= positives <= weight``).

    Returns
    -------
    v0, v1 : ndarrays of shape (k + 1,)
        ``v0[g]`` and ``v1[g]`` are p0 and p1 for a test score above exactly ``g`` groups.

    Examples
    --------
    >>> v0, v1 = ivap_gap_values(np.array([1, 1]), np.array([0, 1]))
    >>> v0, v1
    (array([0. , 0. , 0.5]), array([0.5, 1. , 1. ]))
    """
    v1 = hull_sweep(_cumulative(weight), _cumulative(positives))
    # p0 by symmetry: (s, y) -> (-s, 1 - y) maps the fit f to 1 - f
    v1_mirror = hull_sweep(_cumulative(weight[::-1]), _cumulative((weight - positives)[::-1]))
    v0 = 1.0 - v1_mirror[::-1]
    return v0, v1


def _compress(u, v):
    """Keep only the breakpoints of a step table where its value changes."""
    change = np.flatnonzero(v[1:] != v[:-1]) + 1
    return np.ascontiguousarray(u[change - 1]), np.ascontiguousarray(np.r_[v[0], v[change]])


@dataclass(frozen=True)
class IVAPTables:
    """A fitted inductive Venn-Abers predictor: two compressed step tables.

    ``p0(t) = values0[searchsorted(breaks0, t, "right")]`` and
    ``p1(t) = values1[searchsorted(breaks1, t, "left")]``.

    Attributes
    ----------
    breaks0, values0 : ndarray
        Breakpoints (calibration scores) and values of p0; ``len(values0) == len(breaks0) + 1``.
    breaks1, values1 : ndarray
        The same for p1.
    n_calibration : float
        Total weight (the number, when unweighted) of calibration examples.
    n_distinct : int
        The number of distinct calibration scores.
    """

    breaks0: np.ndarray
    values0: np.ndarray
    breaks1: np.ndarray
    values1: np.ndarray
    n_calibration: float
    n_distinct: int

    def predict(self, t):
        """Return (p0, p1) for test scores.

        Parameters
        ----------
        t : array-like of shape (m,)
            Test scores (finite).

        Returns
        -------
        p0, p1 : ndarrays of shape (m,)
            Lower and upper probabilities of the positive class, ``0 <= p0 <= p1 <= 1``.
        """
        t = check_scores(t, name="scores", min_samples=0)
        return self.predict_unchecked(t)

    def predict_unchecked(self, t):
        """Like :meth:`predict` for a clean float64 array (no checks)."""
        p0 = self.values0[np.searchsorted(self.breaks0, t, side="right")]
        p1 = self.values1[np.searchsorted(self.breaks1, t, side="left")]
        return p0, p1


def ivap_fit(scores, y01, sample_weight=None):
    """Fit an inductive (pre-trained) Venn-Abers predictor to calibration scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Calibration scores.
    y01 : array-like of shape (n,)
        Labels encoded 0/1.
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights; a weight of 2 is the same as a duplicated example. The test
        object always has weight one.

    Returns
    -------
    IVAPTables

    Notes
    -----
    Fit costs one sort plus two O(k) stack sweeps over the k distinct scores; prediction is a
    binary search per test score. A test score equal to a calibration score u_j is pooled with
    it: p1 is then the value just below u_j and p0 the value just above it.

    References
    ----------
    Vovk, Petej & Fedorova, "Large-scale probabilistic predictors with and without guarantees
    of validity" (NeurIPS 2015), Algorithms 1-4; Vovk & Petej, "Venn-Abers predictors"
    (UAI 2014).

    Examples
    --------
    >>> tables = ivap_fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> p0, p1 = tables.predict([0.0, 0.25, 0.5])
    >>> p0, p1
    (array([0. , 0.33333333, 0.5 ]), array([0.5 , 0.66666667, 1. ]))

    The two probabilities are ordered, and neither reaches the far end of [0, 1]:

    >>> bool((p0 <= p1).all() and (p0 < 1).all() and (p1 > 0).all())
    True
    """
    s = check_scores(scores, name="scores")
    y = np.asarray(y01)
    check_consistent_length(scores=s, y=y)
    w = check_sample_weight(sample_weight, s.shape[0])
    if w is not None and np.all(w == np.round(w)) and w.max() < 2**31:
        # integer weights: exact geometry, same as duplicating rows
        order = np.argsort(s, kind="stable")
        ss, yy, ww = s[order], y[order], w[order].astype(np.int64)
        keep = ww > 0
        ss, yy, ww = ss[keep], yy[keep], ww[keep]
        start = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
        u = ss[start]
        weight = np.add.reduceat(ww, start)
        positives = np.add.reduceat(ww * yy.astype(np.int64), start)
    else:
        u, weight, positives = _groups(s, y.astype(np.int8), w)
    v0, v1 = ivap_gap_values(weight, positives)
    b0, vals0 = _compress(u, v0)
    b1, vals1 = _compress(u, v1)
    return IVAPTables(b0, vals0, b1, vals1, float(weight.sum()), int(u.shape[0]))
