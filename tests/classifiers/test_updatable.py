"""Updatable scorers: the scores after adding one example equal those of a refit."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.naive_bayes import CategoricalNB, GaussianNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier

from venncal.classifiers._response import positive_scores
from venncal.classifiers._updatable import (
    UpdatableScorer,
    get_updatable_scorer,
    register_updatable_scorer,
)

CASES = [
    ("gnb", GaussianNB(), "predict_proba", False, 1e-9),
    ("gnb_priors", GaussianNB(priors=[0.3, 0.7]), "predict_proba", False, 1e-9),
    ("mnb", MultinomialNB(alpha=0.3), "predict_proba", True, 1e-9),
    ("mnb_uniform", MultinomialNB(fit_prior=False), "predict_proba", True, 1e-9),
    ("cnb", CategoricalNB(alpha=0.5), "predict_proba", True, 0.0),
    ("cnb_min", CategoricalNB(min_categories=12, fit_prior=False), "predict_proba", True, 0.0),
    ("ridge", RidgeClassifier(alpha=0.5), "decision_function", False, 1e-9),
    ("ridge_noint", RidgeClassifier(fit_intercept=False), "decision_function", False, 1e-9),
    ("lda", LinearDiscriminantAnalysis(), "decision_function", False, 1e-9),
    ("lda_eigen", LinearDiscriminantAnalysis(solver="eigen"), "predict_proba", False, 1e-9),
    ("lda_priors", LinearDiscriminantAnalysis(priors=[0.6, 0.4]), "decision_function", False, 1e-9),
    ("qda", QuadraticDiscriminantAnalysis(), "decision_function", False, 1e-9),
    (
        "qda_reg",
        QuadraticDiscriminantAnalysis(reg_param=0.5, priors=[0.5, 0.5]),
        "predict_proba",
        False,
        1e-9,
    ),
    ("knn", KNeighborsClassifier(n_neighbors=4), "predict_proba", False, 1e-12),
    # the refit stops at its own tolerance; with a tight one both reach the same optimum
    (
        "logistic",
        LogisticRegression(C=2.0, tol=1e-12, max_iter=10_000),
        "decision_function",
        False,
        1e-6,
    ),
    (
        "logistic_noint",
        LogisticRegression(fit_intercept=False, tol=1e-12, max_iter=10_000),
        "predict_proba",
        False,
        1e-6,
    ),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name,est,method,counts,tol", CASES, ids=[c[0] for c in CASES])
def test_augmented_scores_equal_refit(seed, name, est, method, counts, tol):
    rng = np.random.default_rng(seed)
    n, d = 70, 4
    if counts:
        X = rng.poisson(2.0, size=(n + 4, d)).astype(float)
    else:
        X = rng.normal(size=(n + 4, d)) * [1.0, 2.0, 0.5, 3.0] + [0.0, 1.0, -2.0, 0.5]
    y = (X[:, 0] + rng.normal(size=n + 4) > np.median(X[:, 0])).astype(int)
    scorer = get_updatable_scorer(est, method)
    assert scorer is not None
    scorer.fit(X[:n], y[:n])
    if counts:  # a category or count never seen in training
        X[n + 3, 1] = X[:n, 1].max() + 2
    for i in range(n, n + 4):
        for lab in (0, 1):
            X_aug, y_aug = X[: n + 1].copy(), np.r_[y[:n], lab]
            X_aug[-1] = X[i]
            ref = positive_scores(clone(est).fit(X_aug, y_aug), X_aug, method)
            got = scorer.augmented_scores(X[i], lab)
            assert got.shape == (n + 1,)
            np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def test_unsupported_settings_have_no_fast_path():
    assert get_updatable_scorer(GaussianNB(), "decision_function") is None
    assert (
        get_updatable_scorer(QuadraticDiscriminantAnalysis(solver="eigen"), "predict_proba") is None
    )
    assert get_updatable_scorer(KNeighborsClassifier(weights="distance"), "predict_proba") is None
    assert get_updatable_scorer(KNeighborsClassifier(p=1), "predict_proba") is None
    assert get_updatable_scorer(LogisticRegression(l1_ratio=0.5), "decision_function") is None
    assert get_updatable_scorer(LogisticRegression(solver="liblinear"), "decision_function") is None
    assert get_updatable_scorer(RidgeClassifier(positive=True), "decision_function") is None
    assert (
        get_updatable_scorer(
            LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto"), "decision_function"
        )
        is None
    )


def test_subclasses_are_not_matched_but_can_be_registered():
    class MyNB(GaussianNB):
        pass

    assert get_updatable_scorer(MyNB(), "predict_proba") is None

    class Constant(UpdatableScorer):
        def fit(self, X, y01):
            self.n = len(y01)
            return self

        def augmented_scores(self, x, y):
            return np.zeros(self.n + 1)

    register_updatable_scorer(MyNB, lambda est, method: Constant())
    scorer = get_updatable_scorer(MyNB(), "predict_proba")
    assert isinstance(scorer, Constant)
    assert scorer.fit(np.zeros((3, 1)), np.array([0, 1, 0])).augmented_scores(None, 1).shape == (4,)


@pytest.mark.parametrize("name,est,method,counts,tol", CASES, ids=[c[0] for c in CASES])
def test_scoring_leaves_the_scorer_unchanged_and_both_labels_agree(name, est, method, counts, tol):
    rng = np.random.default_rng(4)
    if counts:
        X = rng.poisson(2.0, size=(42, 3)).astype(float)
    else:
        X = rng.normal(size=(42, 3))
    y = (X[:, 0] + rng.normal(size=42) > np.median(X[:, 0])).astype(int)
    scorer = get_updatable_scorer(est, method).fit(X[:40], y[:40])
    before = pickle.dumps(scorer)
    for x in X[40:]:
        s0, s1 = scorer.augmented_scores_both(x)
        np.testing.assert_array_equal(s0, scorer.augmented_scores(x, 0))
        np.testing.assert_array_equal(s1, scorer.augmented_scores(x, 1))
    assert pickle.dumps(scorer) == before


def test_qda_divisor_matches_the_installed_scikit_learn():
    from venncal.classifiers._updatable_scorers import _qda_divisor_offset

    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.r_[np.zeros(15, int), np.ones(15, int)]
    scalings = QuadraticDiscriminantAnalysis().fit(X, y).scalings_[0]
    Xc = X[:15] - X[:15].mean(axis=0)
    lam = np.linalg.eigvalsh(Xc.T @ Xc)[::-1]
    np.testing.assert_allclose(scalings, lam / (15 - _qda_divisor_offset()), rtol=1e-10)


def test_qda_scorer_declines_what_a_refit_cannot_reproduce():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = np.r_[np.zeros(20, int), np.ones(20, int)]
    est = QuadraticDiscriminantAnalysis()
    assert get_updatable_scorer(est, "decision_function").fit(X, y) is not None
    collinear = np.column_stack([X, X[:, 0] + X[:, 1]])
    assert get_updatable_scorer(est, "decision_function").fit(collinear, y) is None
    few = np.r_[np.zeros(37, int), np.ones(3, int)]  # 3 objects, 3 features
    assert get_updatable_scorer(est, "decision_function").fit(X, few) is None
    assert get_updatable_scorer(est, "decision_function").fit(X * 1e160, y) is None


def test_logistic_scorer_declines_when_a_refit_stops_far_from_the_optimum():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    est = LogisticRegression()
    assert get_updatable_scorer(est, "decision_function").fit(X, y) is not None
    assert get_updatable_scorer(est, "decision_function").fit(X * 1e10, y) is None


def test_default_both_labels_of_a_user_scorer():
    class Constant(UpdatableScorer):
        def fit(self, X, y01):
            self.n = len(y01)
            return self

        def augmented_scores(self, x, y):
            return np.full(self.n + 1, float(y))

    s0, s1 = Constant().fit(None, [0, 1]).augmented_scores_both(None)
    np.testing.assert_array_equal(s0, [0, 0, 0])
    np.testing.assert_array_equal(s1, [1, 1, 1])
