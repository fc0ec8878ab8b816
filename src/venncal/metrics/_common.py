"""Input preparation and binning shared by the metrics (numpy only)."""

from __future__ import annotations

import numpy as np

from venncal._validation import (
    check_consistent_length,
    check_labels01,
    check_option,
    check_positive_int,
    check_probabilities,
    check_sample_weight,
)

STRATEGIES = ("uniform", "quantile")


def prepare(y_true, y_proba, sample_weight=None):
    """Validate ``(y_true, y_proba, sample_weight)`` and return clean arrays.

    Returns ``y`` (float64 0/1), ``p`` (float64 in [0, 1]) and ``w`` (float64 weights, all ones
    when ``sample_weight`` is None).
    """
    y = check_labels01(y_true)
    p = check_probabilities(y_proba)
    check_consistent_length(y_true=y, y_proba=p)
    w = check_sample_weight(sample_weight, y.shape[0])
    w = np.ones(y.shape[0]) if w is None else w
    return y.astype(np.float64), p, w


def prepare_interval(p0, p1):
    """Validate a pair of probability arrays of equal length (the ends of Venn intervals)."""
    p0 = check_probabilities(p0, name="p0")
    p1 = check_probabilities(p1, name="p1")
    check_consistent_length(p0=p0, p1=p1)
    return p0, p1


def quantile_edges(values, weights, q):
    """Edges that split weighted values into groups of (about) equal weight.

    For each share ``q``, find the smallest distinct value ``u_k`` whose cumulative weight share
    reaches ``q`` and put the edge half-way between ``u_k`` and the next distinct value, so that
    ``u_k`` falls below the edge. Tied values are never split, and duplicating a row gives the
    same edges as doubling its weight.
    """
    order = np.argsort(values, kind="stable")
    v = values[order]
    start = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    u = v[start]
    cum = np.cumsum(np.add.reduceat(weights[order], start))
    cum /= cum[-1]
    k = np.searchsorted(cum, np.asarray(q) - 1e-12, side="left")
    k = np.clip(k, 0, u.shape[0] - 1)
    nxt = np.append(u[1:], 1.0 if u[-1] < 1.0 else np.inf)
    edges = 0.5 * (u[k] + nxt[k])
    return np.minimum(edges, 1.0)


def bin_edges(p, w, n_bins, strategy, owner):
    """Return the ``n_bins + 1`` edges of the bins, from 0 to 1.

    ``"uniform"``: ``[0, 1/n), [1/n, 2/n), ..., [(n-1)/n, 1]``; the edges are ``i / n_bins`` so
    that a prediction of exactly 0.3 falls in ``[0.3, 0.4)`` as in Naeini et al. (2015).
    ``"quantile"``: interior edges between the predictions at the weighted quantiles
    ``1/n, ..., (n-1)/n``, so that the bins hold about equal weight; tied predictions stay in
    one bin, which can leave other bins empty.
    """
    n_bins = check_positive_int(n_bins, name="n_bins", owner=owner)
    check_option(strategy, STRATEGIES, name="strategy", owner=owner)
    if strategy == "uniform":
        return np.arange(n_bins + 1, dtype=np.float64) / n_bins
    interior = quantile_edges(p[w > 0], w[w > 0], np.arange(1, n_bins) / n_bins)
    return np.concatenate(([0.0], interior, [1.0]))


def assign_bins(p, edges):
    """Index of the bin of each prediction: bin ``i`` is ``[edges[i], edges[i+1])``, the last
    bin is closed on the right."""
    n_bins = edges.shape[0] - 1
    return np.clip(np.searchsorted(edges[1:-1], p, side="right"), 0, n_bins - 1)
