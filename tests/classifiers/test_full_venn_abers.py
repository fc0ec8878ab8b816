"""Full (transductive) Venn-Abers: generic path against the naive loop, fast paths against refits."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from joblib import parallel_config
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.naive_bayes import CategoricalNB, GaussianNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from tests._reference.full_venn_abers_naive import full_venn_abers_naive
from venncal.classifiers._full import FullVennAbers, _pava_value_at, isotonic_value_at_last
from venncal.classifiers._updatable import UpdatableScorer, register_updatable_scorer
from venncal.exceptions import VenncalWarning


def make_data(seed, n=50, m=12, d=3, counts=False):
    rng = np.random.default_rng(seed)
    if counts:
        X = rng.poisson(2.0, size=(n + m, d)).astype(float)
        y = (X[:, 0] + rng.normal(0, 1.5, n + m) > 2).astype(int)
    else:
        X = rng.normal(size=(n + m, d))
        y = (X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=n + m) > 0).astype(int)
    y[:2] = [0, 1]
    return X[:n], y[:n], X[n:]


@pytest.mark.parametrize("seed", range(4))
def test_isotonic_value_at_last_matches_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        n = int(rng.integers(1, 25))
        s = rng.integers(0, 5, n + 1).astype(float)
        y = rng.integers(0, 2, n + 1).astype(float)
        ref = IsotonicRegression().fit(s, y).predict(s[-1:])[0]
        assert isotonic_value_at_last(s, y) == pytest.approx(ref, abs=1e-12)
        order = np.argsort(s[:-1], kind="stable")
        args = (s[:-1][order], y[:-1][order], s[-1], y[-1])
        py = getattr(_pava_value_at, "py_func", _pava_value_at)
        assert py(*args) == pytest.approx(_pava_value_at(*args), abs=1e-15)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "estimator",
    [LogisticRegression(), GaussianNB(), DecisionTreeClassifier(max_depth=2, random_state=0)],
    ids=["logistic", "gnb", "tree"],
)
def test_generic_path_equals_naive_loop(seed, estimator):
    X, y, Xt = make_data(seed, n=40, m=6)
    got = FullVennAbers(estimator, fast_path=False).fit(X, y).predict_interval(Xt)
    ref = full_venn_abers_naive(estimator, X, y, Xt)
    np.testing.assert_allclose(got, ref, atol=1e-12)
    assert (got[:, 0] < 1).all() and (got[:, 1] > 0).all()


FAST = [
    ("gnb", GaussianNB(), False),
    ("mnb", MultinomialNB(alpha=0.5), True),
    ("cnb", CategoricalNB(), True),
    ("ridge", RidgeClassifier(alpha=3.0), False),
    ("lda_svd", LinearDiscriminantAnalysis(), False),
    ("lda_lsqr", LinearDiscriminantAnalysis(solver="lsqr"), False),
    ("qda", QuadraticDiscriminantAnalysis(reg_param=0.1), False),
    ("knn", KNeighborsClassifier(n_neighbors=5), False),
    # the refit stops at its solver's tolerance; a tight one makes it the exact optimum
    ("logistic", LogisticRegression(C=0.7, tol=1e-10, max_iter=10_000), False),
    ("logistic_proba", LogisticRegression(tol=1e-10, max_iter=10_000), False),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name,estimator,counts", FAST, ids=[f[0] for f in FAST])
def test_fast_path_equals_refitting(seed, name, estimator, counts):
    X, y, Xt = make_data(seed, n=60, m=10, counts=counts)
    if name != "knn":
        # test objects that repeat training objects: their scores must tie exactly, as in a
        # refit (for k-NN a repeated object makes a tie in distances, which is left open)
        Xt = np.vstack([Xt, X[:5]])
    rm = "predict_proba" if name == "logistic_proba" else "auto"
    fast = FullVennAbers(estimator, response_method=rm).fit(X, y)
    assert fast.uses_fast_path_
    slow = FullVennAbers(estimator, response_method=rm, fast_path=False).fit(X, y)
    a, b = fast.predict_interval(Xt), slow.predict_interval(Xt)
    agree = np.all(np.abs(a - b) <= 1e-9, axis=1)
    print(f"{name} seed={seed}: {agree.mean():.0%} of test objects agree to 1e-9")
    assert agree.mean() >= 0.99


def test_knn_fast_path_exact_on_tie_free_data():
    # continuous features: no distance ties, so every test object agrees
    X, y, Xt = make_data(7, n=80, m=30)
    est = KNeighborsClassifier(n_neighbors=7)
    a = FullVennAbers(est).fit(X, y).predict_interval(Xt)
    b = FullVennAbers(est, fast_path=False).fit(X, y).predict_interval(Xt)
    np.testing.assert_allclose(a, b, atol=1e-12)


def test_unsupported_settings_fall_back_to_refitting():
    X, y, Xt = make_data(0)
    for est in (
        KNeighborsClassifier(weights="distance"),
        LogisticRegression(solver="liblinear"),
        LinearDiscriminantAnalysis(solver="lsqr", shrinkage=0.3),
        RidgeClassifier(class_weight="balanced"),
    ):
        full = FullVennAbers(est).fit(X, y)
        assert not full.uses_fast_path_
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VenncalWarning)  # distance-weighted k-NN memorises
            assert full.predict_interval(Xt[:2]).shape == (2, 2)


def test_dataframe_and_sparse_inputs_give_the_same_answer():
    X, y, Xt = make_data(1, n=40, m=4)
    est = LogisticRegression()
    ref = FullVennAbers(est, fast_path=False).fit(X, y).predict_interval(Xt)
    cols = ["a", "b", "c"]
    df = FullVennAbers(est).fit(pd.DataFrame(X, columns=cols), y)
    np.testing.assert_allclose(df.predict_interval(pd.DataFrame(Xt, columns=cols)), ref, atol=1e-5)
    sparse = FullVennAbers(est).fit(sp.csr_matrix(X), y)
    assert not sparse.uses_fast_path_
    np.testing.assert_allclose(sparse.predict_interval(sp.csr_matrix(Xt)), ref, atol=1e-12)


def test_parallel_generic_path_equals_serial():
    X, y, Xt = make_data(2, n=40, m=6)
    est = GaussianNB()
    with parallel_config(backend="threading"):
        a = FullVennAbers(est, fast_path=False, n_jobs=2).fit(X, y).predict_interval(Xt)
    b = FullVennAbers(est, fast_path=False, n_jobs=1).fit(X, y).predict_interval(Xt)
    np.testing.assert_array_equal(a, b)


class _Stump(DecisionTreeClassifier):
    pass


class _StumpScorer(UpdatableScorer):
    """Counts the calls, and delegates to a refit (so it is trivially exact)."""

    calls = 0

    def fit(self, X, y01):
        self.X, self.y = X, y01
        return self

    def augmented_scores(self, x, y):
        type(self).calls += 1
        Xa, ya = np.vstack([self.X, x]), np.r_[self.y, y]
        est = _Stump(max_depth=1, random_state=0).fit(Xa, ya)
        return est.predict_proba(Xa)[:, 1]


def test_registered_scorer_is_used():
    register_updatable_scorer(_Stump, lambda est, rm: _StumpScorer())
    X, y, Xt = make_data(3, n=30, m=3)
    full = FullVennAbers(_Stump(max_depth=1, random_state=0)).fit(X, y)
    assert full.uses_fast_path_
    got = full.predict_interval(Xt)
    assert _StumpScorer.calls == 6
    ref = full_venn_abers_naive(_Stump(max_depth=1, random_state=0), X, y, Xt)
    np.testing.assert_allclose(got, ref, atol=1e-12)
    with pytest.raises(TypeError, match="class"):
        register_updatable_scorer("GaussianNB", lambda e, r: None)
    with pytest.raises(TypeError, match="callable"):
        register_updatable_scorer(_Stump, None)


def test_bad_input():
    X, y, Xt = make_data(0)
    with pytest.raises(NotFittedError):
        FullVennAbers(GaussianNB()).predict_interval(Xt)
    with pytest.raises(ValueError, match="one 0/1 label"):
        FullVennAbers(GaussianNB()).fit(X, y[:-1])
    with pytest.raises(ValueError, match="both labels"):
        FullVennAbers(GaussianNB()).fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="response_method"):
        FullVennAbers(GaussianNB(), response_method="foo").fit(X, y)
    with pytest.raises(TypeError, match="decision_function"):
        FullVennAbers(GaussianNB(), response_method="decision_function").fit(X, y)
    full = FullVennAbers(GaussianNB()).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        full.predict_interval(Xt[:, :2])
    bad = Xt.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        full.predict_interval(bad)
    assert full.predict_interval(Xt[:0]).shape == (0, 2)


@pytest.mark.parametrize("fast", [True, False])
def test_through_venn_abers_classifier(fast):
    from venncal import VennAbersClassifier

    X, y, Xt = make_data(8, n=40, m=5)
    labels = np.array(["no", "yes"])[y]
    est = GaussianNB() if fast else DecisionTreeClassifier(max_depth=2, random_state=0)
    clf = VennAbersClassifier(est, method="full").fit(X, labels)
    got = clf.predict_interval(Xt)
    np.testing.assert_allclose(got, full_venn_abers_naive(est, X, y, Xt), atol=1e-12)
    proba = clf.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    lo, hi = got.min(axis=1), got.max(axis=1)
    assert ((proba[:, 1] >= lo - 1e-12) & (proba[:, 1] <= hi + 1e-12)).all()
    assert set(clf.predict(Xt)) <= {"no", "yes"}


def test_full_refuses_sample_weight():
    from venncal import VennAbersClassifier

    X, y, Xt = make_data(0, n=30)
    with pytest.raises(ValueError, match="sample_weight"):
        VennAbersClassifier(GaussianNB(), method="full").fit(X, y, sample_weight=np.ones(30))


@pytest.mark.slow
def test_generic_path_runs_on_dask():
    distributed = pytest.importorskip("distributed")
    X, y, Xt = make_data(4, n=30, m=3)
    est = GaussianNB()
    ref = FullVennAbers(est, fast_path=False).fit(X, y).predict_interval(Xt)
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ):
        with parallel_config(backend="dask"):
            got = FullVennAbers(est, fast_path=False, n_jobs=2).fit(X, y).predict_interval(Xt)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("seed", range(3))
def test_insertion_sort_kernel(seed):
    from venncal.classifiers._full import _insertion_sort_pairs

    rng = np.random.default_rng(seed)
    s = np.sort(rng.normal(size=200)) + rng.normal(scale=0.01, size=200)  # almost sorted
    y = rng.integers(0, 2, 200).astype(float)
    for kernel in (_insertion_sort_pairs, getattr(_insertion_sort_pairs, "py_func", None)):
        if kernel is None:
            continue
        ss, yy = s.copy(), y.copy()
        assert kernel(ss, yy, 10**9)
        order = np.argsort(s, kind="stable")
        np.testing.assert_array_equal(ss, s[order])
        np.testing.assert_array_equal(yy, y[order])
        assert not kernel(s[::-1].copy(), y.copy(), 50)  # far from sorted: gives up


NO_DISTANCE_TIES = [f for f in FAST if f[0] != "knn"]


@pytest.mark.parametrize(
    "name,estimator,counts", NO_DISTANCE_TIES, ids=[f[0] for f in NO_DISTANCE_TIES]
)
def test_repeated_objects_agree_with_refitting_exactly(name, estimator, counts):
    # training objects repeated in the training set and test objects repeating them: every
    # repeat must tie with its twin, as in a refit, so p0 and p1 agree exactly (for k-NN a
    # repeat makes a tie in distances, which the refit breaks by its own order)
    X, y, _ = make_data(5, n=60, m=0, counts=counts)
    X[30:40] = X[:10]
    Xt = X[[0, 3, 7, 30, 45]]
    rm = "predict_proba" if name == "logistic_proba" else "auto"
    fast = FullVennAbers(estimator, response_method=rm).fit(X, y)
    assert fast.uses_fast_path_
    slow = FullVennAbers(estimator, response_method=rm, fast_path=False).fit(X, y)
    np.testing.assert_allclose(fast.predict_interval(Xt), slow.predict_interval(Xt), atol=1e-9)


def test_qda_fast_path_declines_what_a_refit_rejects():
    from scipy.linalg import LinAlgError
    from sklearn.base import clone

    X, y, Xt = make_data(0, n=60)
    X = np.column_stack([X, X[:, 0]])  # collinear: no covariance of full rank
    Xt = np.column_stack([Xt, Xt[:, 0]])
    est = QuadraticDiscriminantAnalysis()
    with pytest.raises(LinAlgError):
        clone(est).fit(X, y)
    # the estimator judges the training objects at fit, as a refit would
    with pytest.raises(LinAlgError):
        FullVennAbers(est).fit(X, y)
    # regularised, the same data has a fast path again
    assert FullVennAbers(QuadraticDiscriminantAnalysis(reg_param=0.1)).fit(X, y).uses_fast_path_


SCALED = [f for f in FAST if f[0] != "cnb"] + [
    ("generic", DecisionTreeClassifier(max_depth=2, random_state=0), False)
]


@pytest.mark.parametrize("scale", [1e307, 1e200, 1e150, 1e-150, 1e-300])
@pytest.mark.parametrize("name,estimator,counts", SCALED, ids=[f[0] for f in SCALED])
def test_extreme_feature_scales_answer_as_refitting_or_refuse(scale, name, estimator, counts):
    X, y, Xt = make_data(3, n=40, m=3, counts=counts)
    X, Xt = X * scale, Xt * scale
    rm = "predict_proba" if name == "logistic_proba" else "auto"
    outcomes = []
    for fast_path in (True, False):
        try:
            model = FullVennAbers(estimator, response_method=rm, fast_path=fast_path)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the learners' own overflow warnings
                outcomes.append(model.fit(X, y).predict_interval(Xt))
        except Exception as exc:  # noqa: BLE001 - the estimator's own errors pass through
            outcomes.append(exc)
    fast, slow = outcomes
    if isinstance(slow, Exception):
        assert type(fast) is type(slow)
    else:
        np.testing.assert_allclose(fast, slow, atol=1e-9)
        assert np.isfinite(fast).all() and ((fast >= 0) & (fast <= 1)).all()
    if scale == 1e307:  # sums over the training set overflow: refused up front
        assert isinstance(fast, ValueError) and "X" in str(fast) and "\n" not in str(fast)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # GaussianNB's own overflow
def test_values_that_overflow_once_the_test_object_joins_are_refused():
    X, y, Xt = make_data(0, n=40, m=2)
    for fast_path in (True, False):
        model = FullVennAbers(GaussianNB(), fast_path=fast_path).fit(X * 1e306, y)
        Xt[1, 0] = 1.7e308  # finite, but not once added to the training objects
        with pytest.raises(ValueError, match="rescale X"):
            model.predict_interval(Xt)
    with pytest.raises(ValueError, match="rescale X"):
        FullVennAbers(GaussianNB()).fit(np.r_[X, [[np.inf, 0, 0]]], np.r_[y, 0])


def test_non_finite_scores_are_refused():
    with pytest.raises(ValueError, match="scores"):
        isotonic_value_at_last(np.array([0.1, np.nan, 0.3]), np.array([0, 1, 0]))


@pytest.mark.parametrize(
    "estimator",
    [RandomForestClassifier(n_estimators=30, random_state=0), KNeighborsClassifier(1)],
    ids=["forest", "1nn"],
)
def test_learner_that_memorises_its_training_set_warns(estimator):
    from venncal import VennAbersClassifier
    from venncal.classifiers._full import VACUOUS_SHARE, VACUOUS_WIDTH

    X, y, Xt = make_data(0, n=60, m=10)
    with pytest.warns(VenncalWarning, match="memorises"):
        p = FullVennAbers(estimator).fit(X, y).predict_interval(Xt)
    assert (np.abs(p[:, 1] - p[:, 0]) >= VACUOUS_WIDTH).mean() > VACUOUS_SHARE
    clf = VennAbersClassifier(estimator, method="full").fit(X, y)
    with pytest.warns(VenncalWarning, match="memorises"):
        clf.predict_proba(Xt)


def test_stable_learner_does_not_warn():
    X, y, Xt = make_data(0, n=60, m=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VenncalWarning)
        for est in (GaussianNB(), KNeighborsClassifier(7), LogisticRegression()):
            FullVennAbers(est).fit(X, y).predict_interval(Xt)


def test_vacuous_warning_threshold():
    from venncal.classifiers._full import _warn_if_vacuous

    interval = np.tile([0.2, 0.3], (10, 1))
    interval[:5] = [0.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", VenncalWarning)
        _warn_if_vacuous(interval, GaussianNB())  # half: no warning
        _warn_if_vacuous(interval[:4], GaussianNB())  # all, but only 4: no warning
    interval[5] = [0.9, 0.0]  # width 0.9, ends in either order
    with pytest.warns(VenncalWarning, match="6 of 10"):
        _warn_if_vacuous(interval, GaussianNB())


def test_repeated_test_object_is_found_among_rows_sharing_features():
    X, y, _ = make_data(6, n=50, m=0)
    X[:, 0] = np.round(X[:, 0])  # few distinct values in the first feature
    X[10:, 1] = 0.0
    X[20:25] = X[:5]
    X[30, 1] = -0.0
    Xt = np.vstack([X[[0, 3, 22, 40, 30]], -X[:1] + 1.0])
    model = FullVennAbers(GaussianNB()).fit(X, y)
    for i, j in ((0, 0), (3, 3), (22, 2), (40, 40), (30, 30)):
        assert model._find_training_row(X[i]) == j
    x = X[30].copy()
    x[1] = 0.0  # equal to -0.0
    assert model._find_training_row(x) == 30
    assert model._find_training_row(Xt[-1]) is None
    slow = FullVennAbers(GaussianNB(), fast_path=False).fit(X, y)
    np.testing.assert_allclose(model.predict_interval(Xt), slow.predict_interval(Xt), atol=1e-9)


def test_repeated_test_object_is_found_when_checksums_collide(monkeypatch):
    import venncal.classifiers._full as full_module

    monkeypatch.setattr(full_module, "_row_key", lambda row: 7)  # every row collides
    test_repeated_test_object_is_found_among_rows_sharing_features()
