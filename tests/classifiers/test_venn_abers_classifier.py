"""VennAbersClassifier: methods, fit counts, scikit-learn integration, bad input."""

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal import VennAbersCalibrator, VennAbersClassifier
from venncal.classifiers._response import positive_scores
from venncal.core.merge import cross_interval, merge_cross
from venncal.core.venn_abers import ivap_fit
from venncal.exceptions import VenncalWarning

FIT_CALLS = []


class CountingLR(ClassifierMixin, BaseEstimator):
    """Logistic regression that records each fit (and its fit params) in FIT_CALLS."""

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y, sample_weight=None, tag=None):
        FIT_CALLS.append({"n": len(y), "tag": tag, "weighted": sample_weight is not None})
        self.model_ = LogisticRegression(C=self.C).fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        self.n_features_in_ = self.model_.n_features_in_
        return self

    def decision_function(self, X):
        return self.model_.decision_function(X)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


@pytest.fixture
def data():
    X, y = make_classification(n_samples=400, n_features=5, random_state=0)
    return X, y


def test_inductive_fits_once_and_calibrates_on_held_out_part(data):
    X, y = data
    FIT_CALLS.clear()
    clf = VennAbersClassifier(CountingLR(), cal_size=0.25, random_state=0).fit(X, y)
    assert len(FIT_CALLS) == 1 and FIT_CALLS[0]["n"] == 300
    assert clf.calibrators_[0].n_calibration == 100


def test_frozen_estimator_is_not_refitted_and_matches_calibrator(data):
    X, y = data
    base = LogisticRegression().fit(X[:200], y[:200])
    FIT_CALLS.clear()
    clf = VennAbersClassifier(FrozenEstimator(base)).fit(X[200:300], y[200:300])
    # same as calibrating the scores by hand
    cal = VennAbersCalibrator().fit(base.decision_function(X[200:300]), y[200:300])
    np.testing.assert_array_equal(
        clf.predict_interval(X[300:]), cal.predict_interval(base.decision_function(X[300:]))
    )
    np.testing.assert_array_equal(
        clf.predict_proba(X[300:]), cal.predict_proba(base.decision_function(X[300:]))
    )


@pytest.mark.parametrize("k", [2, 3, 5])
def test_cross_fits_exactly_k_times(data, k):
    X, y = data
    FIT_CALLS.clear()
    clf = VennAbersClassifier(CountingLR(), method="cross", n_splits=k, random_state=1)
    clf.fit(X, y, tag="passed")
    assert len(FIT_CALLS) == k
    assert all(call["tag"] == "passed" for call in FIT_CALLS)
    assert len(clf.estimators_) == k == len(clf.calibrators_)


def test_cross_merge_is_geometric_mean_merge(data):
    X, y = data
    clf = VennAbersClassifier(GaussianNB(), method="cross", n_splits=4, random_state=0).fit(X, y)
    p0 = np.array(
        [t.predict(e.predict_proba(X)[:, 1])[0] for e, t in zip(clf.estimators_, clf.calibrators_)]
    )
    p1 = np.array(
        [t.predict(e.predict_proba(X)[:, 1])[1] for e, t in zip(clf.estimators_, clf.calibrators_)]
    )
    gm1 = np.exp(np.log(p1).mean(axis=0))
    gm0 = np.exp(np.log(1 - p0).mean(axis=0))
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], gm1 / (gm0 + gm1), rtol=1e-12)
    interval = clf.predict_interval(X)
    np.testing.assert_array_equal(interval[:, 0], p0.min(axis=0))
    np.testing.assert_array_equal(interval[:, 1], p1.max(axis=0))


@pytest.mark.parametrize("merge", ["log", "square", "mean"])
@pytest.mark.parametrize("seed", [0, 2, 5])
def test_cross_interval_is_ordered_and_contains_the_merge(merge, seed):
    """Shallow trees on noisy data disagree between folds: the geometric-mean ends crossed."""
    X, y = make_classification(
        n_samples=300, n_features=4, flip_y=0.3, class_sep=0.5, random_state=seed
    )
    est = DecisionTreeClassifier(max_depth=3, random_state=0)
    clf = VennAbersClassifier(est, method="cross", n_splits=5, merge=merge, random_state=seed).fit(
        X[:200], y[:200]
    )
    interval = clf.predict_interval(X[200:])
    p = clf.predict_proba(X[200:])[:, 1]
    assert np.all(interval[:, 0] <= interval[:, 1])
    assert np.all((interval[:, 0] <= p) & (p <= interval[:, 1]))


@settings(max_examples=300, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.floats(0, 1), st.floats(0, 1))
        .map(sorted)
        .filter(lambda q: q[0] < 1 and q[1] > 0),
        min_size=1,
        max_size=6,
    )
)
def test_cross_interval_contains_every_fold_and_every_merge(pairs):
    p0 = np.array([[q[0]] for q in pairs])
    p1 = np.array([[q[1]] for q in pairs])
    lo, hi = cross_interval(p0, p1)
    assert lo[0] <= hi[0]
    assert np.all((lo <= p0) & (p1 <= hi))
    for method in ("log", "square", "mean"):
        p = merge_cross(p0, p1, method)[0]
        assert lo[0] - 1e-12 <= p <= hi[0] + 1e-12


def test_simplified_matches_definition(data):
    """Algorithm 2 of Vovk & Petej: two isotonic fits on the training scores plus the test."""
    X, y = data
    X, y, Xt = X[:60], y[:60], X[60:75]
    clf = VennAbersClassifier(GaussianNB(), method="simplified").fit(X, y)
    est = GaussianNB().fit(X, y)
    s, t = est.predict_proba(X)[:, 1], est.predict_proba(Xt)[:, 1]
    q0, q1 = venn_abers_naive(s, y, t)
    interval = clf.predict_interval(Xt)
    np.testing.assert_allclose(interval[:, 0], q0, atol=1e-12)
    np.testing.assert_allclose(interval[:, 1], q1, atol=1e-12)


def test_response_method_override(data):
    X, y = data
    a = VennAbersClassifier(
        LogisticRegression(), response_method="predict_proba", random_state=0
    ).fit(X, y)
    b = VennAbersClassifier(LogisticRegression(), random_state=0).fit(X, y)
    # the logistic link is monotone, so both scores give the same Venn-Abers output
    np.testing.assert_allclose(a.predict_interval(X), b.predict_interval(X), atol=1e-12)


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1), (1, 2), ("no", "yes"), (False, True)])
def test_any_two_labels(data, labels):
    X, y = data
    yl = np.where(y == 1, labels[1], labels[0])
    clf = VennAbersClassifier(GaussianNB(), random_state=0).fit(X, yl)
    assert list(clf.classes_) == sorted(labels)
    assert set(clf.predict(X)) <= set(labels)
    ref = VennAbersClassifier(GaussianNB(), random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(X), ref.predict_proba(X))


def test_pipeline_pandas_clone_pickle_gridsearch(data):
    X, y = data
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    pipe = make_pipeline(
        StandardScaler(), VennAbersClassifier(LogisticRegression(), random_state=0)
    )
    pipe.fit(df, pd.Series(y))
    proba = pipe.predict_proba(df)
    assert proba.shape == (len(y), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    again = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(again.predict_proba(df), proba)
    c = clone(pipe)
    assert not hasattr(c[-1], "classes_")
    search = GridSearchCV(
        VennAbersClassifier(LogisticRegression(), random_state=0),
        {"estimator__C": [0.1, 1.0], "merge": ["log", "square"]},
        cv=3,
        scoring="neg_log_loss",
    ).fit(X, y)
    assert search.best_params_["estimator__C"] in (0.1, 1.0)
    clf = VennAbersClassifier(LogisticRegression(), random_state=0).fit(df, y)
    assert list(clf.feature_names_in_) == list(df.columns)


def test_sample_weight_reaches_estimator_and_calibration(data):
    X, y = data
    FIT_CALLS.clear()
    w = np.ones(len(y))
    clf = VennAbersClassifier(CountingLR(), random_state=0).fit(X, y, sample_weight=2 * w)
    assert FIT_CALLS[0]["weighted"]
    assert clf.calibrators_[0].n_calibration == 2 * 80


@pytest.mark.parametrize("method", ["inductive", "simplified", "cross"])
@pytest.mark.parametrize(
    "estimator",
    [KNeighborsClassifier(), make_pipeline(StandardScaler(), LogisticRegression())],
    ids=["knn", "pipeline"],
)
def test_estimator_without_sample_weight_warns_and_weights_calibration(data, method, estimator):
    X, y = data
    w = np.random.default_rng(0).uniform(0.5, 3.0, size=len(y))
    params = dict(method=method, n_splits=3, random_state=0)
    with pytest.warns(VenncalWarning, match="calibration only"):
        clf = VennAbersClassifier(estimator, **params).fit(X, y, sample_weight=w)
    plain = VennAbersClassifier(estimator, **params).fit(X, y)
    assert sum(c.n_calibration for c in clf.calibrators_) == pytest.approx(
        sum(w[cal].sum() for cal in _calibration_rows(plain, X, y))
    )
    # the estimator is fitted unweighted: the same models, calibrated with weights
    tables = [ivap_fit(s, y01, sample_weight=ws) for s, y01, ws in _weighted_cal(plain, X, y, w)]
    expected = np.array([t.predict(s)[0] for t, s in zip(tables, _test_scores(plain, X))])
    got0 = np.array(clf._fold_pairs(X)[0])
    np.testing.assert_allclose(got0, expected)


def _calibration_rows(clf, X, y):
    from sklearn.model_selection import StratifiedKFold, train_test_split

    n = len(y)
    if clf.method == "inductive":
        return [
            train_test_split(np.arange(n), test_size=clf.cal_size, stratify=y, random_state=0)[1]
        ]
    if clf.method == "simplified":
        return [np.arange(n)]
    folds = StratifiedKFold(clf.n_splits, shuffle=True, random_state=0)
    return [cal for _, cal in folds.split(np.zeros(n), y)]


def _weighted_cal(clf, X, y, w):
    ests = getattr(clf, "estimators_", None) or [clf.estimator_]
    for est, cal in zip(ests, _calibration_rows(clf, X, y)):
        yield positive_scores(est, X[cal], clf._response_), y[cal], w[cal]


def _test_scores(clf, X):
    ests = getattr(clf, "estimators_", None) or [clf.estimator_]
    return [positive_scores(est, X, clf._response_) for est in ests]


def test_refit_forgets(data):
    X, y = data
    clf = VennAbersClassifier(LogisticRegression(), method="cross", n_splits=3).fit(X, y)
    clf.set_params(method="inductive").fit(X, y)
    assert not hasattr(clf, "estimators_")


def test_validity_in_simulation():
    """Mean p0 <= frequency of positives <= mean p1, up to sampling error (Theorem 1)."""
    rng = np.random.default_rng(0)
    lows, highs, freqs = [], [], []
    for _ in range(30):
        X = rng.normal(size=(300, 2))
        y = (rng.random(300) < 1 / (1 + np.exp(-X[:, 0] - 0.5 * X[:, 1] ** 2))).astype(int)
        clf = VennAbersClassifier(GaussianNB(), cal_size=0.5, random_state=int(rng.integers(1e6)))
        clf.fit(X[:200], y[:200])
        interval = clf.predict_interval(X[200:])
        lows.append(interval[:, 0].mean())
        highs.append(interval[:, 1].mean())
        freqs.append(y[200:].mean())
    se = np.std(freqs) / np.sqrt(len(freqs))
    assert np.mean(lows) <= np.mean(freqs) + 3 * se
    assert np.mean(freqs) <= np.mean(highs) + 3 * se


@pytest.mark.parametrize(
    "params, match",
    [
        ({"method": "foo"}, "'method' parameter of VennAbersClassifier must be one of"),
        ({"merge": "max"}, "'merge' parameter"),
        ({"cal_size": 1.5}, "'cal_size'"),
        ({"method": "cross", "n_splits": 1}, "'n_splits'"),
        ({"response_method": "predict"}, "'response_method'"),
    ],
)
def test_bad_parameters(data, params, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        VennAbersClassifier(LogisticRegression(), **params).fit(X, y)


def test_bad_input(data):
    X, y = data
    clf = VennAbersClassifier(LogisticRegression())
    with pytest.raises(ValueError, match="one class only"):
        clf.fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="Only binary classification"):
        clf.fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="Inconsistent lengths"):
        clf.fit(X, y[:-1])
    with pytest.raises(NotFittedError):
        clf.predict_proba(X)
    with pytest.raises(ValueError, match="FrozenEstimator"):
        VennAbersClassifier(FrozenEstimator(LogisticRegression().fit(X, y)), method="cross").fit(
            X, y
        )
    with pytest.raises(TypeError, match="'estimator' parameter.*neither"):
        VennAbersClassifier(StandardScaler()).fit(X, y)
