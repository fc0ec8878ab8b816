"""Grouping loss: information in the features that a probabilistic classifier leaves unused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import (
    check_consistent_length,
    check_labels01,
    check_positive_int,
    check_probabilities,
    check_random_state,
)
from venncal.metrics import isotonic_recalibration
from venncal.metrics._common import assign_bins, bin_edges

if TYPE_CHECKING:
    from venncal._typing import AnyArray, ArrayLike, FloatArray, SeedLike

__all__ = ["GroupingLoss", "grouping_loss"]


@dataclass(frozen=True)
class GroupingLoss:
    """Cross-fitted estimate of the grouping loss of a probabilistic classifier.

    Attributes
    ----------
    grouping_loss : float
        Debiased estimate of the Brier-score gain of the region means over the bin means,
        a lower bound (in expectation) of the grouping loss; see :func:`grouping_loss`. Can be
        slightly negative by sampling noise when there is no grouping loss to detect.
    grouping_loss_plugin : float
        The same gain without the finite-sample correction (biased upwards).
    brier : float
        Brier score of ``y_proba``.
    calibrated_brier : float
        Brier score of the bin means (the score recalibrated by binning), on the held-out folds.
    refined_brier : float
        ``calibrated_brier - grouping_loss``: the Brier score attainable when the region means
        are known as well.
    within_bin_calibration_variance : float
        Mean variance, within each bin, of the isotonically recalibrated score: how much of
        the estimate may come from the binning itself rather than from the features.
    bin_edges : ndarray of shape (n_bins + 1,)
        Edges of the level sets of the score.
    bin_counts : ndarray of shape (n_bins,)
        Number of samples per bin.
    bin_grouping_loss : ndarray of shape (n_bins,)
        Debiased estimate within each bin (the between-region variance of the positive rate);
        NaN for an empty bin. ``grouping_loss`` is its count-weighted mean.
    fold_estimates : ndarray of shape (n_splits,)
        The estimate on each held-out fold.
    """

    grouping_loss: float
    grouping_loss_plugin: float
    brier: float
    calibrated_brier: float
    refined_brier: float
    within_bin_calibration_variance: float
    bin_edges: FloatArray
    bin_counts: AnyArray
    bin_grouping_loss: FloatArray
    fold_estimates: FloatArray


def _between_region_gain(y, bins, regions, n_bins):
    """Per-bin sums of the plug-in and the debiased between-region sum of squares.

    Within a bin of ``n`` samples split into regions of ``n_r`` samples with positive rates
    ``ybar_r``, the Brier gain of the region means over the bin mean is
    ``SSB = sum_r n_r (ybar_r - ybar)^2``. Its expectation is
    ``sum_r n_r (mu_r - mu)^2 + sum_r (1 - n_r / n) sigma_r^2`` with
    ``sigma_r^2 = mu_r (1 - mu_r)``, so subtracting ``(1 - n_r / n) s_r^2`` with the unbiased
    ``s_r^2 = n_r ybar_r (1 - ybar_r) / (n_r - 1)`` leaves an unbiased estimate. Regions with a
    single sample carry no variance estimate and are left out (with their bin total).

    Returns ``plugin``, ``debiased`` and ``counts`` (samples used), each of shape (n_bins,).
    """
    plugin = np.zeros(n_bins)
    debiased = np.zeros(n_bins)
    counts = np.zeros(n_bins)
    keys = bins.astype(np.int64) * (int(regions.max()) + 1) + regions
    uniq, inverse, n_r = np.unique(keys, return_inverse=True, return_counts=True)
    keep = n_r[inverse] >= 2
    if not keep.any():
        return plugin, debiased, counts
    y, bins, inverse = y[keep], bins[keep], inverse[keep]
    uniq_bin = uniq // (int(regions.max()) + 1)
    n_r = np.bincount(inverse, minlength=uniq.shape[0]).astype(np.float64)
    s_r = np.bincount(inverse, weights=y, minlength=uniq.shape[0])
    used = n_r > 0
    n_b = np.bincount(bins, minlength=n_bins).astype(np.float64)
    s_b = np.bincount(bins, weights=y, minlength=n_bins)
    ybar_b = np.divide(s_b, n_b, out=np.zeros(n_bins), where=n_b > 0)
    n_r, s_r, rb = n_r[used], s_r[used], uniq_bin[used]
    ybar_r = s_r / n_r
    ssb = n_r * (ybar_r - ybar_b[rb]) ** 2
    var_r = n_r * ybar_r * (1.0 - ybar_r) / (n_r - 1.0)
    correction = (1.0 - n_r / n_b[rb]) * var_r
    plugin = np.bincount(rb, weights=ssb, minlength=n_bins)
    debiased = np.bincount(rb, weights=ssb - correction, minlength=n_bins)
    return plugin, debiased, n_b


def _regions(fitted, X_train, X_test, n_regions):
    """Region labels of test rows: tree leaves when available, else prediction quantiles."""
    if hasattr(fitted, "apply"):
        return np.asarray(fitted.apply(X_test)).reshape(X_test.shape[0], -1)[:, 0]
    pred_train = np.asarray(fitted.predict(X_train), dtype=np.float64).ravel()
    edges = np.unique(np.quantile(pred_train, np.linspace(0, 1, n_regions + 1)[1:-1]))
    return np.searchsorted(edges, np.asarray(fitted.predict(X_test)).ravel(), side="right")


def grouping_loss(
    X: ArrayLike,
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    estimator: Any = None,
    n_bins: int = 10,
    strategy: str = "quantile",
    n_splits: int = 5,
    n_regions: int = 8,
    min_samples_leaf: int = 20,
    random_state: SeedLike = None,
) -> GroupingLoss:
    """Estimate the grouping loss: what the features know about the label beyond the score.

    The Brier score of a probabilistic classifier ``S`` splits into refinement loss
    ``E[(Y - Q)^2]`` and calibration loss ``E[(S - Q)^2]`` with ``Q = P(Y = 1 | X)``; the
    calibration loss splits again into the part that recalibrating ``S`` removes and the
    grouping loss ``E[(Q - E[Y | S])^2] = E[Var(Q | S)]``, the spread of the true probability
    among objects that receive the same score (Tasche, Proposition 2.4, eq. (1c)).
    Recalibration cannot remove it; only a better classifier can.

    The estimate follows Perez-Lebel et al. (2023): the score's level sets are approximated by
    ``n_bins`` bins of ``y_proba``; within each bin a richer estimator (by default a small
    regression tree on ``X``) is fitted to the labels on the training folds, and its leaves
    split the bin into regions. On the held-out fold, the Brier score of the region means is
    compared with that of the bin mean (the calibrated score), and the gain, corrected for its
    finite-sample bias, is averaged over the folds.

    What is estimated, and its bias:

    - Given the regions, the held-out gain is an unbiased estimate of
      ``E[Var(E[Y | bin, region] | bin)]``. Since the regions are coarser than the features,
      this is at most ``E[Var(Q | bin)]``: the estimate is a **lower bound** (a weak learner or
      small data give a small, conservative value, never a spurious large one).
    - ``E[Var(Q | bin)]`` exceeds the grouping loss of ``S`` by
      ``E[Var(E[Y | S] | bin)]``, the variation of the calibrated score inside a bin; it
      vanishes for fine bins. ``within_bin_calibration_variance`` estimates it. Leave the score
      out of ``X`` so that the regions do not rediscover it.
    - The regions are learned on other folds than those they are evaluated on, so there is no
      optimism from selection.

    Parameters
    ----------
    X : array-like of shape (n, n_features)
        Features (numeric; without the score itself).
    y_true : array-like of shape (n,)
        Labels, 0/1 or booleans.
    y_proba : array-like of shape (n,) or (n, 2)
        Probability of the positive class given by the classifier under study, predicted
        out-of-sample (e.g. on a test set).
    estimator : scikit-learn regressor, default=None
        Richer estimator fitted within each bin on ``(X, y)``. Regions are its leaves when it
        has ``apply`` (trees), otherwise ``n_regions`` quantile groups of its predictions. The
        default is ``DecisionTreeRegressor(max_leaf_nodes=n_regions,
        min_samples_leaf=min_samples_leaf)``.
    n_bins : int, default=10
        Number of level sets (bins) of the score.
    strategy : {"uniform", "quantile"}, default="quantile"
        Equal-width or equal-mass bins.
    n_splits : int, default=5
        Number of cross-fitting folds (at least 2).
    n_regions : int, default=8
        Largest number of regions per bin.
    min_samples_leaf : int, default=20
        Smallest region of the default tree (training samples).
    random_state : int, numpy Generator or None, default=None
        Seed of the folds and of the default tree.

    Returns
    -------
    GroupingLoss

    References
    ----------
    Tasche, "Calibrating sufficiently", Sections 2.3-2.4 and Proposition 2.4; Kull & Flach,
    "Novel decompositions of proper scoring rules for classification" (ECML 2015);
    Perez-Lebel, Le Morvan & Varoquaux, "Beyond calibration: estimating the grouping loss of
    modern neural networks" (ICLR 2023).

    Examples
    --------
    A score that ignores one of two informative features is calibrated, yet leaves grouping
    loss; the true posterior leaves none:

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(6000, 2))
    >>> q = 1 / (1 + np.exp(-2 * X[:, 0] * np.sign(X[:, 1])))
    >>> y = rng.random(6000) < q
    >>> partial = np.full(6000, 0.5)  # calibrated, but blind to the features
    >>> true_gl = np.var(q)  # E[Var(Q | S)] with S constant
    >>> est = grouping_loss(X, y, partial, random_state=0).grouping_loss
    >>> bool(0.05 < est <= true_gl)
    True
    >>> bool(abs(grouping_loss(X, y, q, random_state=0).grouping_loss) < 0.005)
    True
    """
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold
    from sklearn.tree import DecisionTreeRegressor
    from sklearn.utils import check_array

    owner = "grouping_loss"
    try:
        features = check_array(
            X, ensure_2d=True, dtype="numeric", ensure_all_finite=True, input_name="X"
        )
    except (TypeError, ValueError) as exc:  # scikit-learn's messages span several lines
        first = str(exc).splitlines()[0].rstrip(":")
        raise type(exc)(f"'X' of {owner}: {first}.") from None
    y = check_labels01(y_true).astype(np.float64)
    p = check_probabilities(y_proba)
    check_consistent_length(X=features, y_true=y, y_proba=p)
    n_splits = check_positive_int(n_splits, name="n_splits", owner=owner, minimum=2)
    n_regions = check_positive_int(n_regions, name="n_regions", owner=owner, minimum=2)
    min_samples_leaf = check_positive_int(min_samples_leaf, name="min_samples_leaf", owner=owner)
    counts_y = np.bincount(y.astype(np.int64), minlength=2)
    if counts_y.min() < n_splits:
        raise ValueError(
            f"grouping_loss needs at least n_splits={n_splits} samples of each class in "
            f"'y_true', got {counts_y.tolist()}; lower n_splits or give more data."
        )
    rng = check_random_state(random_state, owner=owner)
    if estimator is not None and not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
        raise TypeError(
            f"The 'estimator' parameter of {owner} must be a scikit-learn regressor (with fit "
            f"and predict) or None. Got {estimator!r} instead."
        )
    if estimator is None:
        estimator = DecisionTreeRegressor(
            max_leaf_nodes=n_regions, min_samples_leaf=min_samples_leaf
        )

    n = y.shape[0]
    edges = bin_edges(p, np.ones(n), n_bins, strategy, owner=owner)
    k = edges.shape[0] - 1
    bins = assign_bins(p, edges)

    folds = StratifiedKFold(
        n_splits=n_splits, shuffle=True, random_state=int(rng.integers(2**31 - 1))
    )
    plugin_sum = np.zeros(k)
    debiased_sum = np.zeros(k)
    used = np.zeros(k)
    fold_estimates = np.empty(n_splits)
    calibrated_sse = 0.0
    for f, (train, test) in enumerate(folds.split(features, y)):
        regions = np.zeros(test.shape[0], dtype=np.int64)
        for b in np.unique(bins[test]):  # occupied bins only, however many bins there are
            tr = train[bins[train] == b]
            te_mask = bins[test] == b
            if not te_mask.any() or tr.shape[0] < 2 * min_samples_leaf:
                continue
            if y[tr].min() == y[tr].max():
                continue  # one class only: no split can be learned
            model = clone(estimator)
            if "random_state" in model.get_params():
                model.set_params(random_state=int(rng.integers(2**31 - 1)))
            model.fit(features[tr], y[tr])
            regions[te_mask] = _regions(model, features[tr], features[test[te_mask]], n_regions)
        plug, deb, cnt = _between_region_gain(y[test], bins[test], regions, k)
        plugin_sum += plug
        debiased_sum += deb
        used += cnt
        fold_estimates[f] = deb.sum() / max(cnt.sum(), 1.0)
        nb = np.bincount(bins[test], minlength=k).astype(np.float64)
        sb = np.bincount(bins[test], weights=y[test], minlength=k)
        calibrated_sse += float((sb - sb**2 / np.where(nb > 0, nb, 1.0)).sum())

    total = max(used.sum(), 1.0)
    gl = float(debiased_sum.sum() / total)
    counts = np.bincount(bins, minlength=k).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_bin = np.where(used > 0, debiased_sum / used, np.nan)
    calibrated = calibrated_sse / n
    q = isotonic_recalibration(y, p)
    nb = np.where(counts > 0, counts, 1.0)
    mean_q = np.bincount(bins, weights=q, minlength=k) / nb
    wbv = float(((q - mean_q[bins]) ** 2).sum() / n)
    return GroupingLoss(
        grouping_loss=gl,
        grouping_loss_plugin=float(plugin_sum.sum() / total),
        brier=float(np.mean((y - p) ** 2)),
        calibrated_brier=float(calibrated),
        refined_brier=float(calibrated - gl),
        within_bin_calibration_variance=wbv,
        bin_edges=edges,
        bin_counts=counts,
        bin_grouping_loss=per_bin,
        fold_estimates=fold_estimates,
    )
