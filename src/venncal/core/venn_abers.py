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


def _diagram(s, y01, w):
    """Distinct sorted scores and the cumulative-sum diagram (W_j, A_j), j = 0..k.

    Unweighted (or integer-weighted) input gives integer coordinates.
    """
    if w is None:
        n = s.shape[0]
        pos = y01.astype(bool)
        neg_sorted = s[~pos]
        neg_sorted.sort()
        pos_sorted = s[pos]
        pos_sorted.sort()
        del pos
        count_type = np.int32 if n < 2**31 - 1 else np.int64  # exact: products are int64
        u = np.empty(n)
        cw = np.empty(n + 1, dtype=count_type)
        ca = np.empty(n + 1, dtype=count_type)
        k = merge_sorted_groups(neg_sorted, pos_sorted, u, cw, ca)
        return u[:k], cw[: k + 1], ca[: k + 1]
    keep = w > 0
    s, y01, w = s[keep], y01[keep], w[keep]
    if np.all(w == np.round(w)) and w.max() < 2**31:
        w = w.astype(np.int64)  # integer weights: exact geometry, same as duplicated rows
    order = np.argsort(s, kind="stable")
    s, y01, w = s[order], y01[order], w[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    weight = np.add.reduceat(w, start)
    positives = np.add.reduceat(w * y01.astype(w.dtype), start)
    return s[start], _cumulative(weight), _cumulative(positives)


def _cumulative(v):
    out = np.empty(v.shape[0] + 1, dtype=v.dtype)
    out[0] = 0
    np.cumsum(v, out=out[1:])
    return out


def _scratch(cw):
    """Two hull stacks of the coordinates' type, and an output buffer."""
    k = cw.shape[0] - 1
    return np.empty(k + 2, dtype=cw.dtype), np.empty(k + 2, dtype=cw.dtype), np.empty(k + 1)


def _gap_values_from_diagram(cw, ca):
    sx, sy, v1 = _scratch(cw)
    v0 = np.empty_like(v1)
    hull_sweep(cw, ca, sx, sy, v1, False)
    hull_sweep(cw, ca, sx, sy, v0, True)
    return v0, v1


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
    weight = np.asarray(weight)
    positives = np.asarray(positives, dtype=weight.dtype)
    return _gap_values_from_diagram(_cumulative(weight), _cumulative(positives))


def _compress(u, v):
    """Keep only the breakpoints of a step table where its value changes."""
    changes = v[1:] != v[:-1]
    return u[changes], np.concatenate([v[:1], v[1:][changes]])


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
    u, cw, ca = _diagram(s, y.astype(np.int8, copy=False), w)
    # one sweep at a time into one buffer, compressed before the next: low peak memory
    sx, sy, buffer = _scratch(cw)
    hull_sweep(cw, ca, sx, sy, buffer, False)
    b1, vals1 = _compress(u, buffer)
    hull_sweep(cw, ca, sx, sy, buffer, True)
    total = float(cw[-1])
    del sx, sy, cw, ca
    b0, vals0 = _compress(u, buffer)
    return IVAPTables(b0, vals0, b1, vals1, total, int(u.shape[0]))
