"""One-vs-rest Venn-Abers ranks the class scores as given: tied scores stay tied, distinct ones
stay distinct.

A Venn-Abers predictor uses only the order of its scores, so one-vs-rest on probabilities must
be, column by column, the binary Venn-Abers predictor of that class on that column, bit for bit,
even when the probabilities are rounded (many ties) or one ulp apart (which a logarithm merges).
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator

from venncal import (
    MulticlassVennAbersCalibrator,
    MulticlassVennAbersClassifier,
    VennAbersCalibrator,
)


def rounded_probabilities(rng, n, K=3):
    P = np.round(rng.dirichlet(np.ones(K), size=n), 2)
    # a few neighbours one ulp apart, which the logarithm maps to the same float
    j = rng.integers(0, n, size=max(1, n // 5))
    P[j, 0] = np.nextafter(P[j, 0], 1.0)
    y = np.array([rng.choice(K, p=(p + 1e-3) / (p + 1e-3).sum()) for p in P])
    y[:K] = np.arange(K)
    return P, y


def binary_intervals(S, y, T, k, w=None):
    cal = VennAbersCalibrator().fit(S[:, k], (y == k).astype(int), sample_weight=w)
    return cal.predict_interval(T[:, k])


@pytest.mark.parametrize("seed", range(6))
def test_ovr_on_rounded_probabilities_is_the_binary_predictor_of_each_class(seed):
    rng = np.random.default_rng(seed)
    S, y = rounded_probabilities(rng, 200)
    T, _ = rounded_probabilities(rng, 80)
    T = np.r_[T, S[:20]]
    w = rng.integers(1, 4, S.shape[0]).astype(float) if seed % 2 else None
    cal = MulticlassVennAbersCalibrator(strategy="ovr", pooled=False, score_type="probabilities")
    iv = cal.fit(S, y, sample_weight=w).predict_interval(T)
    for k in range(S.shape[1]):
        np.testing.assert_array_equal(iv[:, k, :], binary_intervals(S, y, T, k, w))


@pytest.mark.parametrize("seed", range(3))
def test_pooled_ovr_on_rounded_probabilities_is_the_binary_predictor_of_the_stacked_columns(seed):
    rng = np.random.default_rng(10 + seed)
    S, y = rounded_probabilities(rng, 150)
    T, _ = rounded_probabilities(rng, 60)
    cal = MulticlassVennAbersCalibrator(strategy="ovr", pooled=True, score_type="probabilities")
    iv = cal.fit(S, y).predict_interval(T)
    onehot = (y[:, None] == np.arange(S.shape[1])[None, :]).astype(int)
    binary = VennAbersCalibrator().fit(S.ravel(), onehot.ravel())
    expected = binary.predict_interval(T.ravel()).reshape(T.shape + (2,))
    np.testing.assert_array_equal(iv, expected)


class RoundedScorer(ClassifierMixin, BaseEstimator):
    """Probabilities rounded to two decimals (a fixed rule of the two features)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        X = np.asarray(X, dtype=np.float64)
        z = np.column_stack([X[:, 0], X[:, 1], -X[:, 0] - X[:, 1]])
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p = np.round(p / p.sum(axis=1, keepdims=True), 2)
        p[:, 2] = 1.0 - p[:, 0] - p[:, 1]  # rows sum to one (to rounding), many ties
        return p


def test_classifier_ovr_on_rounded_probabilities_is_the_binary_predictor_of_each_class():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 2))
    y = rng.integers(0, 3, 300)
    y[:3] = np.arange(3)
    X_test = rng.normal(size=(50, 2))
    est = FrozenEstimator(RoundedScorer().fit(X, y))
    clf = MulticlassVennAbersClassifier(est, strategy="ovr", pooled=False).fit(X, y)
    S, T = est.predict_proba(X), est.predict_proba(X_test)
    assert clf.score_type_ == "probabilities"
    iv = clf.predict_interval(X_test)
    for k in range(3):
        np.testing.assert_array_equal(iv[:, k, :], binary_intervals(S, y, T, k))


@pytest.mark.parametrize("pooled", [False, True])
def test_tables_fitted_on_log_probabilities_keep_predicting_from_logarithms(pooled):
    # a model file written before one-vs-rest ranked probabilities as given holds tables of
    # log-probabilities: loaded now, it must predict what it predicted then
    import venncal.calibration.multiclass as mc

    rng = np.random.default_rng(3)
    S, y = rounded_probabilities(rng, 120)
    S = (S + 0.01) / (S + 0.01).sum(axis=1, keepdims=True)
    T, _ = rounded_probabilities(rng, 40)
    T = (T + 0.01) / (T + 0.01).sum(axis=1, keepdims=True)
    cal = MulticlassVennAbersCalibrator(strategy="ovr", pooled=pooled).fit(S, y)
    logs = mc.class_log_scores(S, "probabilities")
    legacy = mc.fit_tables(logs, y, None, 3, "ovr", pooled, owner="test")
    old = MulticlassVennAbersCalibrator(strategy="ovr", pooled=pooled).fit(S, y)
    old.tables_ = legacy
    p0, p1 = legacy.pairs(mc.class_log_scores(T, "probabilities"))
    expected = mc.combine((p0[None], p1[None]), legacy, "ovr", "mean", "wu2")
    np.testing.assert_array_equal(old.predict_proba(T), expected[0])
    assert not np.array_equal(cal.tables_.pairs(T)[0], legacy.pairs(T)[0])
