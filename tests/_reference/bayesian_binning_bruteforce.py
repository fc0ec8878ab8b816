"""Bayesian binning by enumerating every binning (Naeini, Cooper & Hauskrecht 2014, eqs. 6-7).

Independent of the dynamic programmes in ``venncal.core.bayesian_binning``: this code lists all
``2^(N-1)`` ways to cut N sorted distinct scores into runs, scores each one with eq. (6) written
out literally, and either keeps the best (SBB) or averages the bin estimates (ABB). Only for small
N (N <= 14 runs in well under a second).
"""

import itertools
import math
from fractions import Fraction

import numpy as np


def pool(scores, y, w=None):
    """Distinct sorted scores with the weighted counts of each class."""
    scores = np.asarray(scores, dtype=float)
    y = np.asarray(y)
    w = np.ones(len(scores)) if w is None else np.asarray(w, dtype=float)
    keys = sorted(set(scores.tolist()))
    n0 = [
        float(sum(w[i] for i in range(len(scores)) if scores[i] == k and y[i] == 0)) for k in keys
    ]
    n1 = [
        float(sum(w[i] for i in range(len(scores)) if scores[i] == k and y[i] == 1)) for k in keys
    ]
    return keys, n0, n1


def _prior_logs(v, lam):
    """Return log q_k and log(1 - q_k) of every boundary, from exact rational gaps.

    The gap lam (v_{k+1} - v_k) / (v_N - v_1) is taken in exact fractions, so a range beyond
    the largest float and a gap that underflows against the range are still exact; log q is
    log(1 - exp(-g)), or log g (to 1e-300) for a gap below 1e-300.
    """
    big_n = len(v)
    if big_n == 1:
        return [], []
    span = Fraction(v[-1]) - Fraction(v[0])
    log_q, log_not_q = [], []
    for k in range(big_n - 1):
        g = Fraction(lam) * (Fraction(v[k + 1]) - Fraction(v[k])) / span
        if g < Fraction(1, 10**300):
            log_q.append(math.log(g.numerator) - math.log(g.denominator))
        else:
            log_q.append(math.log(-math.expm1(-float(g))))
        log_not_q.append(-float(g))
    return log_q, log_not_q


def _log_prior(log_q, log_not_q, l, u, big_n):
    """Log prior of the bin [l, u]: no boundary inside it, a boundary at its right end."""
    return (log_q[u] if u < big_n - 1 else 0.0) + sum(log_not_q[l:u])


def log_score(bins, v, n0, n1, lam):
    """Log of eq. (6) for a binning given as a list of (l, u) inclusive index pairs."""
    log_q, log_not_q = _prior_logs(v, lam)
    big_n = len(v)
    total = 0.0
    for l, u in bins:
        a = sum(n0[l : u + 1])
        b = sum(n1[l : u + 1])
        total += (
            _log_prior(log_q, log_not_q, l, u, big_n)
            + math.lgamma(a + 1)
            + math.lgamma(b + 1)
            - math.lgamma(a + b + 2)
        )
    return total


def bin_table(v, n0, n1, lam):
    """Log factor W[l, u] of eq. (6) and estimate E[l, u] of every possible bin, literally."""
    big_n = len(v)
    log_q, log_not_q = _prior_logs(v, lam)
    w = np.full((big_n, big_n), -np.inf)
    e = np.full((big_n, big_n), np.nan)
    for l in range(big_n):
        for u in range(l, big_n):
            a, b = sum(n0[l : u + 1]), sum(n1[l : u + 1])
            w[l, u] = (
                _log_prior(log_q, log_not_q, l, u, big_n)
                + math.lgamma(a + 1)
                + math.lgamma(b + 1)
                - math.lgamma(a + b + 2)
            )
            e[l, u] = (b + 1.0) / (a + b + 2.0)
    return w, e


def all_binnings(big_n):
    """Every partition of positions 0..N-1 into runs, as lists of (l, u)."""
    for cuts in itertools.product((False, True), repeat=big_n - 1):
        bins, start = [], 0
        for k, cut in enumerate(cuts):
            if cut:
                bins.append((start, k))
                start = k + 1
        bins.append((start, big_n - 1))
        yield bins


def brute_force(scores, y, w=None, lam=10.0):
    """Enumerate all 2^(N-1) binnings.

    Returns (positions, sbb_values, sbb_log_score, abb_values, abb_log_total, second_best), where
    ``second_best`` is the log score of the best binning other than the selected one, so that a
    test can tell whether the maximiser is unique.
    """
    v, n0, n1 = pool(scores, y, w)
    big_n = len(v)
    wt, est = bin_table(v, n0, n1, lam)
    # one row per binning: cut[k] is True when a bin ends at position k (always at N - 1)
    masks = np.arange(2 ** (big_n - 1))
    cut = np.ones((masks.size, big_n), dtype=bool)
    for k in range(big_n - 1):
        cut[:, k] = (masks >> k) & 1
    idx = np.arange(big_n)
    # start[k]: first position of the bin holding k; end[k]: its last position
    prev_end = np.where(cut, idx, -1)
    start = np.empty_like(cut, dtype=np.intp)
    start[:, 0] = 0
    start[:, 1:] = np.maximum.accumulate(prev_end, axis=1)[:, :-1] + 1
    end = np.where(cut, idx, big_n)
    end = np.minimum.accumulate(end[:, ::-1], axis=1)[:, ::-1]
    logs = np.where(cut, wt[start, idx], 0.0).sum(axis=1)
    ests = est[start, end]
    order = np.argsort(-logs, kind="stable")
    best = order[0]
    second = logs[order[1]] if len(order) > 1 else -np.inf
    m = logs.max()
    post = np.exp(logs - m)
    log_total = m + math.log(post.sum())
    post /= post.sum()
    abb = post @ ests
    return np.array(v), ests[best], logs[best], abb, log_total, second


def paper_eq8(scores, y, w=None, lam=10.0):
    """ABB as eq. (8) of the paper writes it, at every distinct calibration score.

    Section 2.4: ``V^f_j`` is the score of the *highest-scoring* binning of the prefix
    ``S_{1,j}`` (a forward run of SBB) and ``V^b_j`` that of the suffix ``S_{j,N}`` (a backward
    run), with ``V^f_0 = V^b_{N+1} = 1``; then

        P(x) ∝ sum_{l <= u} V^f_{l-1} Score_{l,u} V^b_{u+1} p_{l,u}(x),

    where ``p_{l,u}(x)`` is the smoothed frequency ``(n1 + 1) / (n + 2)`` of the bin ``S_{l,u}``
    when x falls in it. The bins that do not hold x do not take part, and "∝" is read as
    normalising by the sum of the same weights over the same bins. Here every ``V`` is found by
    listing all binnings of the prefix or suffix, each scored with the bin factors of eq. (6)
    (``Prior(u_b)`` of the whole problem at a bin's right end, 1 for the last position).

    Returns (positions, values).
    """
    v, n0, n1 = pool(scores, y, w)
    big_n = len(v)
    wt, est = bin_table(v, n0, n1, lam)

    def best(lo, hi):
        """Log score of the best binning of positions lo..hi - 1 (0 for an empty run)."""
        if hi <= lo:
            return 0.0
        top = -math.inf
        for bins in all_binnings(hi - lo):
            top = max(top, sum(wt[lo + a, lo + b] for a, b in bins))
        return top

    vf = [best(0, j) for j in range(big_n + 1)]  # vf[j]: best binning of positions 0..j-1
    vb = [best(j, big_n) for j in range(big_n + 1)]  # vb[j]: best binning of positions j..N-1
    values = np.empty(big_n)
    for i in range(big_n):
        logs, ests = [], []
        for l in range(i + 1):
            for u in range(i, big_n):
                logs.append(vf[l] + wt[l, u] + vb[u + 1])
                ests.append(est[l, u])
        logs = np.array(logs)
        weights = np.exp(logs - logs.max())
        values[i] = float(weights @ np.array(ests) / weights.sum())
    return np.array(v), values
