"""Venn predictors on categories (numpy only).

A Venn predictor splits the calibration examples into categories with a *taxonomy*, finds the
category of a test object, and reads the label frequencies in that category once for every label
the test object might have (Vovk, Gammerman & Shafer 2005, ch. 6; Johansson et al. 2018, eqs. 3-6).
With ``c_j`` calibration examples of label ``j`` among the ``n_k`` examples of the test object's
category, the lower and upper probabilities of label ``j`` are

    L(j) = c_j / (n_k + 1),        U(j) = (c_j + 1) / (n_k + 1)            (eqs. 3-4)

the predicted label is ``argmax_j L(j)`` (eq. 5), and the prediction comes with the interval
``[L(yhat), U(yhat)]`` (eq. 6). For a binary problem, ``[L(1), U(1)]`` is the pair ``(p0, p1)``
of Vovk & Petej (2014): the frequency of label 1 in the category after adding the test object
with label 0, and with label 1.

Out-of-bag calibration (Johansson et al. 2018, eqs. 10-11) leaves one calibration example
``z_r`` out of the category of each test object; ``exclude`` gives ``r`` per test object.

Everything here works on categories or 1-D scores already computed; the estimator layer
(``venncal.classifiers.venn``) brings the learner and the taxonomy in.

References
----------
V. Vovk and I. Petej, "Venn-Abers predictors", UAI 2014, section 2 and Theorem 1.
U. Johansson, T. Löfström, H. Sundell, H. Linusson, A. Gidenstam and H. Boström, "Venn predictors
for well-calibrated probability estimation trees", 2018, eqs. (3)-(6) and (10)-(11).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_positive_int, check_scores

if TYPE_CHECKING:
    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray

__all__ = ["VennPrediction", "venn_predict", "equal_mass_venn_predict"]


@dataclass(frozen=True)
class VennPrediction:
    """Lower and upper label probabilities of a Venn predictor.

    Attributes
    ----------
    lower : ndarray of shape (m, n_classes)
        ``L(j)`` of eq. (3): the smallest probability of label ``j`` over the tentative labels.
    upper : ndarray of shape (m, n_classes)
        ``U(j)`` of eq. (4): the largest probability of label ``j``.
    label : ndarray of shape (m,), dtype int
        The predicted label index of eq. (5), ``argmax_j L(j)``; ties go to the smallest index.
    category_size : ndarray of shape (m,), dtype int
        The number of calibration examples in the test object's category (after exclusion);
        with sample weights, their total weight (float).
    """

    lower: FloatArray
    upper: FloatArray
    label: IntArray
    category_size: IntArray | FloatArray

    @property
    def interval(self) -> FloatArray:
        """ndarray of shape (m, 2): ``[L(yhat), U(yhat)]`` of eq. (6)."""
        rows = np.arange(self.label.shape[0])
        return np.column_stack([self.lower[rows, self.label], self.upper[rows, self.label]])

    @property
    def p0_p1(self) -> FloatArray:
        """ndarray of shape (m, 2): ``[L(1), U(1)]``, the (p0, p1) pair of a binary problem."""
        if self.lower.shape[1] != 2:
            raise ValueError(
                f"p0_p1 is defined for two classes; this prediction has {self.lower.shape[1]}. "
                "Use lower and upper instead."
            )
        return np.column_stack([self.lower[:, 1], self.upper[:, 1]])


def _check_labels(labels: ArrayLike, n_classes: int | None, name: str) -> tuple[IntArray, int]:
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"'{name}' must be 1-D, got shape {arr.shape}.")
    if arr.dtype.kind not in "iub":
        raise TypeError(
            f"'{name}' must hold integer label indices 0..n_classes-1, got dtype {arr.dtype}."
        )
    arr = arr.astype(np.intp)
    if n_classes is None:
        n_classes = int(arr.max()) + 1 if arr.size else 2
        n_classes = max(n_classes, 2)
    else:
        n_classes = check_positive_int(n_classes, name="n_classes", owner="venn_predict", minimum=2)
    if arr.size and (arr.min() < 0 or arr.max() >= n_classes):
        raise ValueError(
            f"'{name}' must hold label indices in 0..{n_classes - 1}, "
            f"got values from {arr.min()} to {arr.max()}."
        )
    return arr, n_classes


def _check_exclude(exclude: ArrayLike | None, m: int, n: int) -> IntArray | None:
    if exclude is None:
        return None
    ex = np.asarray(exclude)
    if ex.shape != (m,) or ex.dtype.kind not in "iu":
        raise ValueError(
            f"'exclude' must be an integer array of shape ({m},) (one calibration index per test "
            f"object, -1 for none), got shape {ex.shape} and dtype {ex.dtype}."
        )
    ex = ex.astype(np.intp)
    if ex.size and (ex.min() < -1 or ex.max() >= n):
        raise ValueError(f"'exclude' must hold indices in -1..{n - 1}.")
    return ex


def _finish(counts: AnyArray, weighted: bool = False) -> VennPrediction:
    counts = counts.astype(np.float64)
    size = counts.sum(axis=1)
    lower = counts / (size + 1.0)[:, None]
    upper = (counts + 1.0) / (size + 1.0)[:, None]
    label = np.argmax(lower, axis=1)
    return VennPrediction(lower, upper, label, size if weighted else size.astype(np.intp))


def _check_weight(sample_weight: ArrayLike | None, n: int) -> FloatArray | None:
    """Calibration weights as float64 (None stays None); zero weights allowed, all zero too."""
    if sample_weight is None:
        return None
    w = check_scores(sample_weight, name="sample_weight", allow_column=False, noun="weights")
    if w.shape[0] != n:
        raise ValueError(
            f"'sample_weight' has {w.shape[0]} value(s) but there are {n} calibration "
            "examples; give one weight per example."
        )
    if (w < 0).any():
        raise ValueError("'sample_weight' must be non-negative.")
    return w


def venn_predict(
    cal_categories: ArrayLike,
    cal_labels: ArrayLike,
    test_categories: ArrayLike,
    *,
    n_classes: int | None = None,
    exclude: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> VennPrediction:
    """Venn predictor for a taxonomy that does not depend on the labels.

    Parameters
    ----------
    cal_categories : array-like of shape (n,)
        Category of each calibration example (any comparable values: ints, strings).
    cal_labels : array-like of shape (n,), dtype int
        Label index of each calibration example, in ``0..n_classes-1``.
    test_categories : array-like of shape (m,)
        Category of each test object, computed the same way.
    n_classes : int, default=None
        Number of labels; by default ``max(cal_labels) + 1`` (at least 2).
    exclude : array-like of shape (m,), dtype int, default=None
        Out-of-bag calibration (eqs. 10-11): for test object ``i``, calibration example
        ``exclude[i]`` is left out of its category; ``-1`` leaves nothing out.
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights of the calibration examples: ``c_j`` and ``n_k`` become sums of
        weights, so a weight of ``k`` counts as ``k`` copies of the example (zero: left out);
        the test object counts once. An excluded example is left out with all its weight.

    Returns
    -------
    VennPrediction
        Lower and upper probabilities (eqs. 3-4), predicted label (eq. 5).

    References
    ----------
    Johansson et al. (2018), eqs. (3)-(6) and (10)-(11); Vovk & Petej (2014), section 2.

    Examples
    --------
    Three calibration examples in category "a" (labels 1, 1, 0) and one in "b":

    >>> pred = venn_predict(["a", "a", "a", "b"], [1, 1, 0, 0], ["a", "b", "c"])
    >>> pred.lower.round(3)
    array([[0.25, 0.5 ],
           [0.5 , 0.  ],
           [0.  , 0.  ]])
    >>> pred.p0_p1.round(3)  # [L(1), U(1)]: frequency of 1 with the test labelled 0 and 1
    array([[0.5 , 0.75],
           [0.  , 0.5 ],
           [0.  , 1.  ]])

    Validity (Theorem 1 of Vovk & Petej 2014): averaged over exchangeable data, the frequency
    of label 1 lies between the mean lower and mean upper probability.

    >>> rng = np.random.default_rng(0)
    >>> hits = []
    >>> for _ in range(200):
    ...     x = rng.integers(0, 3, size=41); y = rng.random(41) < 0.2 + 0.3 * x
    ...     p = venn_predict(x[:40], y[:40].astype(int), x[40:]).p0_p1[0]
    ...     hits.append((p[0], y[40], p[1]))
    >>> lo, freq, hi = np.mean(hits, axis=0)
    >>> bool(lo - 0.05 < freq < hi + 0.05)
    True
    """
    cal_cat = np.asarray(cal_categories)
    test_cat = np.asarray(test_categories)
    if cal_cat.ndim != 1 or test_cat.ndim != 1:
        raise ValueError(
            "'cal_categories' and 'test_categories' must be 1-D, got shapes "
            f"{cal_cat.shape} and {test_cat.shape}."
        )
    labels, n_classes = _check_labels(cal_labels, n_classes, "cal_labels")
    if labels.shape[0] != cal_cat.shape[0]:
        raise ValueError(
            f"Inconsistent lengths: cal_categories has {cal_cat.shape[0]} value(s), cal_labels "
            f"has {labels.shape[0]} value(s); they must match."
        )
    m, n = test_cat.shape[0], cal_cat.shape[0]
    ex = _check_exclude(exclude, m, n)
    w = _check_weight(sample_weight, n)
    try:
        uniq, inv = np.unique(np.concatenate([cal_cat, test_cat]), return_inverse=True)
    except TypeError:
        raise TypeError("categories must be comparable values of one type.") from None
    inv = inv.reshape(-1)
    cal_idx, test_idx = inv[:n], inv[n:]
    table = np.zeros((uniq.shape[0], n_classes), dtype=np.int64 if w is None else np.float64)
    np.add.at(table, (cal_idx, labels), 1 if w is None else w)
    counts = table[test_idx]
    if ex is not None:
        rows = np.flatnonzero(ex >= 0)
        rows = rows[cal_idx[ex[rows]] == test_idx[rows]]
        counts[rows, labels[ex[rows]]] -= 1 if w is None else w[ex[rows]]
    return _finish(counts, weighted=w is not None)


def _bag_order_stat(
    sorted_cal: FloatArray,
    q: IntArray,
    insert_pos: IntArray,
    test_values: FloatArray,
    removed_pos: IntArray | None,
) -> FloatArray:
    """Value at position ``q`` of the sorted bag ``cal - {removed} + {test}`` (vectorised)."""
    # Remove first (positions of the remaining calibration values), then insert the test value.
    n = sorted_cal.shape[0]
    out = np.empty(q.shape, dtype=np.float64)
    is_test = q == insert_pos[:, None]
    after = q > insert_pos[:, None]
    j = q - after  # position among the remaining calibration values
    if removed_pos is not None:
        j = j + ((removed_pos[:, None] >= 0) & (j >= removed_pos[:, None]))
    j = np.clip(j, 0, n - 1)
    out[...] = sorted_cal[j]
    out[is_test] = np.broadcast_to(test_values[:, None], q.shape)[is_test]
    return out


def equal_mass_venn_predict(
    cal_scores: ArrayLike,
    cal_labels: ArrayLike,
    test_scores: ArrayLike,
    *,
    n_bins: int = 10,
    n_classes: int | None = None,
    exclude: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> VennPrediction:
    """Venn predictor whose categories are equal-mass bins of a 1-D score.

    For each test object the bin edges are order statistics of the bag of the calibration scores
    and the test score together (positions ``floor(j (n + 1) / n_bins)``, ``j = 1..n_bins-1``),
    so the taxonomy is a function of the bag, as a Venn taxonomy must be, and tied scores always
    share a bin. Bin ``b`` holds the scores ``s`` with ``edge_b <= s < edge_{b+1}``.

    Parameters
    ----------
    cal_scores : array-like of shape (n,)
        Calibration scores.
    cal_labels : array-like of shape (n,), dtype int
        Label indices of the calibration examples.
    test_scores : array-like of shape (m,)
        Test scores (from the same scorer).
    n_bins : int, default=10
        Number of bins.
    n_classes : int, default=None
        Number of labels; by default ``max(cal_labels) + 1`` (at least 2).
    exclude : array-like of shape (m,), dtype int, default=None
        Out-of-bag calibration: calibration example ``exclude[i]`` is removed from the bag of
        test object ``i`` (it neither sets the edges nor counts); ``-1`` removes nothing.
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights of the calibration examples, each counting as that many copies
        of the example (the test object counts once): the bag has total weight ``W``, edge
        ``j`` is the smallest score of the bag whose cumulative weight exceeds ``j W / n_bins``
        (for whole-number weights, the order statistic of the bag with the rows repeated),
        and the label counts of the test object's bin are sums of weights.

    Returns
    -------
    VennPrediction

    References
    ----------
    Vovk, Gammerman & Shafer (2005), section 6.1 (taxonomies as functions of the bag);
    Johansson et al. (2018), eqs. (3)-(6), (10)-(11).

    Examples
    --------
    >>> s = np.arange(9.0); y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 1])
    >>> pred = equal_mass_venn_predict(s, y, [0.5, 7.5], n_bins=3)
    >>> pred.p0_p1.round(3)  # bins {0, 0.5, 1}, ..., {6, 7, 7.5, 8} of the bag
    array([[0.   , 0.333],
           [0.75 , 1.   ]])
    """
    cal = check_scores(cal_scores, name="cal_scores")
    test = check_scores(test_scores, name="test_scores")
    labels, n_classes = _check_labels(cal_labels, n_classes, "cal_labels")
    if labels.shape[0] != cal.shape[0]:
        raise ValueError(
            f"Inconsistent lengths: cal_scores has {cal.shape[0]} value(s), cal_labels has "
            f"{labels.shape[0]} value(s); they must match."
        )
    n_bins = check_positive_int(n_bins, name="n_bins", owner="equal_mass_venn_predict")
    n, m = cal.shape[0], test.shape[0]
    ex = _check_exclude(exclude, m, n)
    w = _check_weight(sample_weight, n)
    if w is not None:
        return _weighted_equal_mass(cal, labels, test, w, n_bins, n_classes, ex)

    order = np.argsort(cal, kind="stable")
    sc, lab = cal[order], labels[order]
    cum = np.zeros((n + 1, n_classes), dtype=np.int64)
    np.add.at(cum, (np.arange(1, n + 1), lab), 1)
    cum = np.cumsum(cum, axis=0)

    removed_pos = None
    n_bag = np.full(m, n + 1)
    if ex is not None:
        rank = np.empty(n, dtype=np.intp)
        rank[order] = np.arange(n)
        removed_pos = np.where(ex >= 0, rank[np.maximum(ex, 0)], -1)
        n_bag = n_bag - (ex >= 0)
    # insertion position of the test value among the remaining calibration values
    ins = np.searchsorted(sc, test, side="left")
    if removed_pos is not None:
        ins = ins - ((removed_pos >= 0) & (removed_pos < ins))

    if n_bins > 1:
        jj = np.arange(1, n_bins)
        q = (jj[None, :] * n_bag[:, None]) // n_bins
        edges = _bag_order_stat(sc, q, ins, test, removed_pos)
    else:
        edges = None
    counts = _counts_between_edges(edges, test, sc, cum, (ex, cal, labels, None))
    return _finish(counts)


def _counts_between_edges(
    edges: FloatArray | None,
    test: FloatArray,
    sc: FloatArray,
    cum: AnyArray,
    removed: tuple[IntArray | None, FloatArray, IntArray, FloatArray | None],
) -> AnyArray:
    """The class counts, in the bin ``[lo, hi)`` of each test object among its row of ``edges``
    (None: one bin), of the sorted calibration scores ``sc`` (``cum``: cumulative counts, one
    row more than ``sc``), less the example each test object leaves out: ``removed`` is
    ``(ex, cal, labels, w)``, ``ex`` the index of that example or -1 (None: none), ``w`` the
    weights (None: each counts once)."""
    m = test.shape[0]
    if edges is None:
        lo, hi = np.full(m, -np.inf), np.full(m, np.inf)
    else:
        rows, inner = np.arange(m), edges.shape[1]
        k = (edges <= test[:, None]).sum(axis=1)
        lo = np.where(k > 0, edges[rows, np.maximum(k - 1, 0)], -np.inf)
        hi = np.where(k < inner, edges[rows, np.minimum(k, inner - 1)], np.inf)
    a = np.searchsorted(sc, lo, side="left")
    b = np.searchsorted(sc, hi, side="left")
    counts = cum[b] - cum[a]
    ex, cal, labels, w = removed
    if ex is not None:
        rows = np.flatnonzero(ex >= 0)
        s_r = cal[ex[rows]]
        rows = rows[(s_r >= lo[rows]) & (s_r < hi[rows])]
        counts[rows, labels[ex[rows]]] -= 1 if w is None else w[ex[rows]]
    return counts


def _weighted_equal_mass(
    cal: FloatArray,
    labels: IntArray,
    test: FloatArray,
    w: FloatArray,
    n_bins: int,
    n_classes: int,
    ex: IntArray | None,
) -> VennPrediction:
    """``equal_mass_venn_predict`` with calibration weights (see there)."""
    n, m = cal.shape[0], test.shape[0]
    order = np.argsort(cal, kind="stable")
    sc, lab, ws = cal[order], labels[order], w[order]
    cw = np.cumsum(ws)  # cumulative weight of the sorted calibration examples
    cum = np.zeros((n + 1, n_classes))
    np.add.at(cum, (np.arange(1, n + 1), lab), ws)
    cum = np.cumsum(cum, axis=0)
    # the excluded example stays in the sorted array with its weight taken off from its rank
    w_out = np.zeros(m)
    rank_out = np.full(m, n)
    if ex is not None:
        rank = np.empty(n, dtype=np.intp)
        rank[order] = np.arange(n)
        has = ex >= 0
        w_out[has] = w[ex[has]]
        rank_out[has] = rank[ex[has]]
    ins = np.searchsorted(sc, test, side="left")  # the test object goes before its ties
    total = (cw[-1] if n else 0.0) - w_out + 1.0
    if n_bins > 1:
        x = np.arange(1, n_bins)[None, :] * total[:, None] / n_bins  # (m, n_bins - 1)
        # the bag's cumulative weight at calibration position i is cw[i] plus an offset that
        # changes at the removed example (-w_out) and at the test object (+1)
        b1, b2 = np.minimum(rank_out, ins), np.maximum(rank_out, ins)
        off1 = np.where(rank_out <= ins, -w_out, 1.0)
        off2 = 1.0 - w_out
        first = np.full(x.shape, n)
        for start, stop, off in ((0, b1, 0.0), (b1, b2, off1), (b2, n, off2)):
            off = np.broadcast_to(off, (m,))[:, None]
            i = np.searchsorted(cw, x - off, side="right")
            i = np.maximum(i, np.broadcast_to(start, (m,))[:, None])
            hit = (i < np.broadcast_to(stop, (m,))[:, None]) & (first == n)
            first = np.where(hit, i, first)
        before = np.where(ins > 0, cw[np.maximum(ins - 1, 0)], 0.0)
        cum_test = before - np.where(rank_out < ins, w_out, 0.0) + 1.0
        use_test = (first >= ins[:, None]) & (cum_test[:, None] > x)
        edges = np.where(use_test, test[:, None], sc[np.minimum(first, n - 1)] if n else 0.0)
    else:
        edges = None
    counts = _counts_between_edges(edges, test, sc, cum, (ex, cal, labels, w))
    return _finish(np.maximum(counts, 0.0), weighted=True)
