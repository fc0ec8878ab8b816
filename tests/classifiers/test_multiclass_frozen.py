"""A frozen (prefit) estimator: every row given to fit calibrates it, nothing is held out."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal.classifiers.multiclass import MulticlassVennAbersClassifier


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    X = X + rng.normal(scale=0.3, size=X.shape)  # overlap, so that calibration is not trivial
    base = LogisticRegression(max_iter=1000).fit(X[::2], y[::2])
    return X, y, base


def test_frozen_ovr_calibrates_on_every_row(iris):
    X, y, base = iris
    clf = MulticlassVennAbersClassifier(
        FrozenEstimator(base), strategy="ovr", pooled=False, response_method="predict_proba"
    ).fit(X, y)
    S = base.predict_proba(X)
    got = clf.predict_interval(X[:25])
    for k in range(3):
        # the Venn-Abers interval of "y = k" with all 150 rows as calibration examples
        p0, p1 = venn_abers_naive(S[:, k], (y == k).astype(int), S[:25, k])
        np.testing.assert_allclose(got[:, k, 0], p0, atol=1e-12)
        np.testing.assert_allclose(got[:, k, 1], p1, atol=1e-12)


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
def test_frozen_ignores_cal_size_and_random_state(iris, strategy):
    X, y, base = iris
    a = MulticlassVennAbersClassifier(
        FrozenEstimator(base), strategy=strategy, cal_size=0.5, random_state=1
    ).fit(X, y)
    b = MulticlassVennAbersClassifier(FrozenEstimator(base), strategy=strategy).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.estimators_[0] is not None and len(a.estimators_) == 1


@pytest.mark.parametrize("method", ["cross"])
def test_frozen_refuses_methods_that_refit(iris, method):
    X, y, base = iris
    with pytest.raises(ValueError, match="FrozenEstimator"):
        MulticlassVennAbersClassifier(FrozenEstimator(base), method=method).fit(X, y)
