"""Multiclass metrics against plain loops and, where they overlap, scikit-learn."""

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.calibration import calibration_curve

from tests._reference import multiclass_metrics_loops as loops
from venncal.metrics._multiclass import (
    classwise_ece,
    classwise_reliability_curves,
    multiclass_brier_score,
    multiclass_log_loss,
    top_label_ece,
    top_label_reliability_curve,
)


def make(seed, n=300, K=4, labels=None, grid=False):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(K, 0.7), size=n)
    if grid:  # probabilities on bin edges and ties for the top class
        P = np.round(P * 10) / 10
        P[:, -1] = 1 - P[:, :-1].sum(axis=1)
        P = np.clip(P, 0, 1)
        P = P / P.sum(axis=1, keepdims=True)
    y = (rng.random((n, 1)) > P.cumsum(axis=1)).sum(axis=1).clip(0, K - 1)
    y[:K] = np.arange(K)
    labels = np.arange(K) if labels is None else np.asarray(labels)
    return labels[y], P, labels


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighted", [False, True])
def test_against_loops(seed, weighted):
    y, P, labels = make(seed, labels=["a", "b", "c", "d"], grid=seed % 2 == 1)
    w = np.random.default_rng(seed).uniform(0.1, 3, size=len(y)) if weighted else None
    wl = None if w is None else list(w)
    Pl = P.tolist()
    kw = dict(sample_weight=w)
    assert multiclass_log_loss(y, P, **kw) == pytest.approx(loops.log_loss(y, Pl, labels, wl))
    assert multiclass_brier_score(y, P, **kw) == pytest.approx(loops.brier(y, Pl, labels, wl))
    for n_bins in (1, 7, 15):
        assert top_label_ece(y, P, n_bins=n_bins, **kw) == pytest.approx(
            loops.top_label_ece(y, Pl, labels, n_bins, wl), abs=1e-12
        )
        assert classwise_ece(y, P, n_bins=n_bins, **kw) == pytest.approx(
            loops.classwise_ece(y, Pl, labels, n_bins, wl), abs=1e-12
        )


@pytest.mark.parametrize("seed", range(3))
def test_against_scikit_learn(seed):
    y, P, labels = make(seed, K=5)
    assert multiclass_log_loss(y, P) == pytest.approx(skm.log_loss(y, P, labels=labels))
    assert multiclass_brier_score(y, P) == pytest.approx(
        skm.brier_score_loss(y, P, labels=labels), rel=1e-12
    )
    # per-class reliability curves: scikit-learn keeps only the occupied bins
    for k, curve in enumerate(classwise_reliability_curves(y, P, n_bins=8)):
        obs, pred = calibration_curve(y == k, P[:, k], n_bins=8)
        occupied = curve.counts > 0
        np.testing.assert_allclose(curve.observed[occupied], obs)
        np.testing.assert_allclose(curve.predicted[occupied], pred)


def test_top_label_curve_matches_its_ece_and_accuracy():
    y, P, _ = make(5)
    curve = top_label_reliability_curve(y, P, n_bins=10)
    occupied = curve.counts > 0
    share = curve.counts[occupied] / curve.counts.sum()
    ece = (share * np.abs(curve.observed[occupied] - curve.predicted[occupied])).sum()
    assert ece == pytest.approx(top_label_ece(y, P, n_bins=10))
    acc = (curve.observed[occupied] * share).sum()
    assert acc == pytest.approx((P.argmax(axis=1) == y).mean())


def test_two_classes_agree_with_binary_metrics():
    from venncal import metrics

    rng = np.random.default_rng(0)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    P = np.column_stack([1 - p, p])
    assert multiclass_log_loss(y, P) == pytest.approx(metrics.log_loss(y, p))
    assert multiclass_brier_score(y, P) == pytest.approx(2 * metrics.brier_score(y, p))


def test_labels_for_a_missing_class_and_zero_probability():
    P = np.array([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0]])
    assert multiclass_log_loss([0, 1], P, labels=[0, 1, 2]) == pytest.approx(np.log(2) / 2)
    assert multiclass_log_loss([2, 1], P, labels=[0, 1, 2]) == np.inf
    assert np.isfinite(multiclass_log_loss([2, 1], P, labels=[0, 1, 2], clip=1e-15))


@pytest.mark.parametrize(
    "y, P, kw, match",
    [
        ([0, 1], [0.2, 0.8], {}, "matrix"),
        ([0, 1], [[0.2, 0.8]], {}, "inconsistent|length"),
        (
            [0, 1],
            [[0.2, 0.7], [0.5, 0.5]],
            {},
            r"sum to one \(within 0.005 per class, 0.01 here\); row 0 sums to 0.9",
        ),
        ([0, 1], [[np.nan, 1.0], [0.5, 0.5]], {}, "NaN"),
        ([0, 1], [[-0.5, 1.5], [0.5, 0.5]], {}, r"\[0, 1\]"),
        ([0, 1], [[0.2, 0.3, 0.5], [0.5, 0.25, 0.25]], {}, "labels="),
        ([0, 5], [[0.2, 0.8], [0.5, 0.5]], {"labels": [0, 1]}, "not among"),
        ([0, 1], [[0.2, 0.8], [0.5, 0.5]], {"labels": [0, 0]}, "distinct"),
        ([0, 1], [[0.2, 0.8], [0.5, 0.5]], {"sample_weight": [0, 0]}, "sample_weight"),
        ([0, 1], [[0.2, 0.8], [0.5, 0.5]], {"n_bins": 0}, "n_bins"),
        ([0, 1], [[0.2, 0.8], [0.5, 0.5]], {"strategy": "width"}, "strategy"),
    ],
)
def test_bad_input(y, P, kw, match):
    fn = top_label_ece if {"n_bins", "strategy"} & set(kw) else classwise_ece
    with pytest.raises(ValueError, match=match):
        fn(y, P, **kw)
