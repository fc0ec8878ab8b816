"""ProbingClassifier: probing reduction with cost-weighted classifiers."""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from venncal.classifiers.probing import ProbingClassifier, probe_costs


@parametrize_with_checks([ProbingClassifier(LogisticRegression(), n_probes=5)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _logistic_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, 1))
    eta = 1 / (1 + np.exp(-2 * X[:, 0]))
    y = (rng.random(n) < eta).astype(int)
    return X, y


@pytest.mark.parametrize("seed", range(2))
def test_approaches_the_posterior_as_probes_grow(seed):
    X, y = _logistic_data(2500, seed)
    grid = np.linspace(-2.5, 2.5, 51)[:, None]
    eta = 1 / (1 + np.exp(-2 * grid[:, 0]))
    errors = []
    for k in (2, 6, 32):
        clf = ProbingClassifier(LogisticRegression(), n_probes=k).fit(X, y)
        errors.append(np.abs(clf.predict_proba(grid)[:, 1] - eta).max())
    # a probing estimate moves in steps of 1/k: error about 1/(2k) plus estimation noise
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.05


def test_ideal_probes_give_the_midpoint_rule():
    # with a 1-D threshold learner on the exact posterior as feature, each probe is 1{eta > c}
    X, y = _logistic_data(4000, 5)
    eta = 1 / (1 + np.exp(-2 * X[:, 0]))
    k = 10
    clf = ProbingClassifier(DecisionTreeClassifier(max_depth=1), n_probes=k).fit(eta[:, None], y)
    p = clf.predict_proba(np.array([[0.05], [0.33], [0.51], [0.97]]))[:, 1]
    np.testing.assert_allclose(p, [0.0, 0.3, 0.5, 1.0], atol=0.1 + 1e-9)


def test_probe_weights_are_cost_weights():
    X, y = _logistic_data(300, 1)
    clf = ProbingClassifier(LogisticRegression(), n_probes=3).fit(X, y)
    np.testing.assert_allclose(clf.costs_, [1 / 6, 1 / 2, 5 / 6])
    for c, est in zip(clf.costs_, clf.estimators_):
        w = np.where(y == 1, 1 - c, c)
        ref = LogisticRegression().fit(X, y, sample_weight=w)
        np.testing.assert_allclose(est.coef_, ref.coef_)


def test_decisions_are_monotone_and_match_the_estimate():
    X, y = _logistic_data(2000, 2)
    clf = ProbingClassifier(DecisionTreeClassifier(min_samples_leaf=50), n_probes=9).fit(X, y)
    d = clf.decision_path(X[:200])
    assert np.all(np.diff(d, axis=1) <= 0)  # ones first, then zeros
    np.testing.assert_allclose(d.mean(axis=1), clf.predict_proba(X[:200])[:, 1])


def test_sample_weight_multiplies_cost_weights():
    X, y = _logistic_data(300, 3)
    w = np.random.default_rng(0).integers(1, 3, 300).astype(float)
    a = ProbingClassifier(LogisticRegression(), n_probes=4).fit(X, y, sample_weight=w)
    b = ProbingClassifier(LogisticRegression(), n_probes=4).fit(
        np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int))
    )
    for ea, eb in zip(a.estimators_, b.estimators_):
        np.testing.assert_allclose(ea.coef_, eb.coef_, rtol=1e-3)


def test_any_two_labels_and_parallel_equal_serial():
    X, y = _logistic_data(500, 4)
    labels = np.array(["neg", "pos"])
    a = ProbingClassifier(n_probes=6).fit(X, labels[y])
    with parallel_config(backend="threading"):
        b = ProbingClassifier(n_probes=6, n_jobs=2).fit(X, labels[y])
    np.testing.assert_array_equal(a.classes_, labels)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert set(a.predict(X)) <= set(labels)


def test_outputs_in_unit_interval_on_a_grid():
    X, y = _logistic_data(500, 6)
    clf = ProbingClassifier(DecisionTreeClassifier(max_depth=3), n_probes=7).fit(X, y)
    p = clf.predict_proba(np.linspace(-10, 10, 101)[:, None])
    assert np.all((p >= 0) & (p <= 1))
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert set(np.unique(p[:, 1] * 7).round(9)) <= set(range(8))


def test_probe_costs():
    np.testing.assert_allclose(probe_costs(5), [0.1, 0.3, 0.5, 0.7, 0.9])
    with pytest.raises(ValueError, match="n_probes"):
        probe_costs(0)


def test_bad_input():
    X, y = _logistic_data(50, 0)
    with pytest.raises(ValueError, match="'n_probes' parameter of ProbingClassifier"):
        ProbingClassifier(n_probes=0).fit(X, y)
    with pytest.raises(TypeError, match="sample_weight"):
        ProbingClassifier(KNeighborsClassifier()).fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        ProbingClassifier().fit(X, np.zeros(50))
    with pytest.raises(ValueError, match="binary"):
        ProbingClassifier().fit(X, np.arange(50) % 3)
    with pytest.raises(ValueError, match="zero total weight"):
        ProbingClassifier().fit(X, y, sample_weight=(y == 1).astype(float))
    with pytest.raises(NotFittedError):
        clone(ProbingClassifier()).predict_proba(X)


def test_predict_agrees_with_argmax_of_proba_on_ties():
    """With two probes, p = 1/2 happens; predict must agree with argmax(predict_proba)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 1))
    y = (rng.random(300) < 1 / (1 + np.exp(-2 * X[:, 0]))).astype(int)
    clf = ProbingClassifier(LogisticRegression(), n_probes=2).fit(X, y)
    proba = clf.predict_proba(X)
    assert np.any(proba[:, 1] == 0.5)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])


@pytest.mark.parametrize(
    "estimator",
    ["LinearRegression", "DecisionTreeRegressor", "KMeans"],
)
def test_a_learner_without_classifier_output_is_refused(estimator):
    from sklearn.cluster import KMeans
    from sklearn.linear_model import LinearRegression
    from sklearn.tree import DecisionTreeRegressor

    make = {
        "LinearRegression": LinearRegression,
        "DecisionTreeRegressor": DecisionTreeRegressor,
        "KMeans": KMeans,
    }[estimator]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(TypeError, match="'estimator' parameter of ProbingClassifier") as info:
        ProbingClassifier(make()).fit(X, y)
    assert "\n" not in str(info.value)
