"""VennClassifier(method="full"): the transductive Venn predictor of Vovk & Petej (2014), sec. 2."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from tests._reference.venn_full_naive import full_venn_naive
from venncal.classifiers.venn import VennClassifier


def make_data(seed, n=40, m=5, k=2, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, d))
    z = X[:, 0] + 0.7 * X[:, 1] + rng.normal(size=n + m)
    y = np.digitize(z, np.quantile(z, np.linspace(0, 1, k + 1)[1:-1]))
    return X[:n], y[:n], X[n:], y[n:]


def rank_taxonomy(scores):
    """A bag-dependent callable taxonomy: above or below the bag's median score."""
    s = scores if scores.ndim == 1 else scores.max(axis=1)
    return (s > np.median(s)).astype(int)


ESTIMATORS = {
    "gnb (updated)": GaussianNB(),
    "logistic (updated)": LogisticRegression(C=0.5, tol=1e-10),
    "knn (updated)": KNeighborsClassifier(n_neighbors=5),
    "tree (refitted)": DecisionTreeClassifier(max_depth=2, random_state=0),
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("taxonomy", ["label", "bins", "isotonic", rank_taxonomy])
def test_binary_matches_naive_loop(name, taxonomy):
    X, y, Xt, _ = make_data(3)
    est = ESTIMATORS[name]
    vp = VennClassifier(est, taxonomy=taxonomy, n_bins=4, method="full").fit(X, y)
    assert vp.uses_update_ == ("updated" in name)
    got = vp.predict_multiprobability(Xt)
    want = full_venn_naive(est, X, y, Xt, taxonomy=taxonomy, n_classes=2, n_bins=4)
    np.testing.assert_allclose(got, want, atol=1e-9)
    pred = vp.predict_venn(Xt)
    np.testing.assert_allclose(pred.lower, want.min(axis=1), atol=1e-9)
    np.testing.assert_allclose(pred.upper, want.max(axis=1), atol=1e-9)
    # the interval is the convex hull of p0 and p1 (p0 > p1 can happen)
    p0, p1 = want[:, 0, 1], want[:, 1, 1]
    np.testing.assert_allclose(
        vp.predict_interval(Xt), np.column_stack([np.minimum(p0, p1), np.maximum(p0, p1)])
    )


def test_update_route_equals_refit_route():
    X, y, Xt, _ = make_data(5, n=60, m=8)
    X, Xt = np.abs(np.round(3 * X)), np.abs(np.round(3 * Xt))  # counts for MultinomialNB
    fast = VennClassifier(MultinomialNB(), taxonomy="bins", n_bins=3, method="full").fit(X, y)
    assert fast.uses_update_
    slow = full_venn_naive(MultinomialNB(), X, y, Xt, taxonomy="bins", n_classes=2, n_bins=3)
    np.testing.assert_array_equal(fast.predict_multiprobability(Xt), slow)


@pytest.mark.parametrize("taxonomy", ["label", "bins", rank_taxonomy])
def test_multiclass_matches_naive_loop(taxonomy):
    X, y, Xt, _ = make_data(7, n=45, m=4, k=3)
    vp = VennClassifier(GaussianNB(), taxonomy=taxonomy, n_bins=2, method="full").fit(X, y)
    got = vp.predict_multiprobability(Xt)
    want = full_venn_naive(GaussianNB(), X, y, Xt, taxonomy=taxonomy, n_classes=3, n_bins=2)
    np.testing.assert_allclose(got, want, atol=1e-12)
    proba = vp.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert vp.predict(Xt).shape == (4,)


def _leave_one_out_selected(make_predictor, X, y):
    """p_i: the probability of label 1 that object i gets from the others, under its own label."""
    p = np.empty(len(y))
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        vp = make_predictor().fit(X[keep], y[keep])
        p[i] = vp.predict_multiprobability(X[i : i + 1])[0, y[i], 1]
    return p


def _largest_imbalance(p, y):
    """max over the values v taken by p of |sum over {i: p_i = v} of (y_i - v)|."""
    keys = np.round(p, 9)
    return max(abs(np.sum(y[keys == v] - p[keys == v])) for v in np.unique(keys))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("taxonomy", ["label", "bins", "isotonic"])
def test_theorem1_exact_calibration_on_every_bag(seed, taxonomy):
    # The proof of Theorem 1: given the bag of l + 1 observations, the test object is a
    # uniformly random member, and the selected probability P_Y (the distribution under the
    # true label) is the positive frequency of its category in the bag's own partition. So
    # for every value v, the objects of the bag that receive v have exactly a fraction v of
    # positives: sum_{i: p_i = v} (y_i - v) = 0, an identity, not an approximation.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(24, 2))
    y = (X[:, 0] + rng.normal(size=24) > 0).astype(int)
    full = _leave_one_out_selected(
        lambda: VennClassifier(GaussianNB(), taxonomy=taxonomy, n_bins=3, method="full"), X, y
    )
    assert _largest_imbalance(full, y) < 1e-9
    # a predictor that scores the test object with the model trained without it (simplified
    # Venn: the training set calibrates its own model) breaks the identity with a learner
    # that memorises its training set
    tree = DecisionTreeClassifier(random_state=0)

    def simplified():
        class Simplified:
            def fit(self, X_, y_):
                frozen = FrozenEstimator(clone(tree).fit(X_, y_))
                self.vp = VennClassifier(frozen, taxonomy=taxonomy, n_bins=3).fit(X_, y_)
                return self

            def predict_multiprobability(self, Z):
                return self.vp.predict_multiprobability(Z)

        return Simplified()

    broken = _leave_one_out_selected(simplified, X, y)
    assert _largest_imbalance(broken, y) > 0.5


def test_validity_in_simulation():
    # Theorem 1 over independent draws of a training set and a test object: the selected
    # probability P_Y (the distribution under the true label) is calibrated, E[Y | P_Y] = P_Y,
    # so E[(Y - P_Y) 1{P_Y > 1/2}] = E[(Y - P_Y) 1{P_Y <= 1/2}] = 0, and Corollary 1: P(Y = 1)
    # lies between the mean lower and upper probability. A tree refitted with the test object
    # keeps them; the same tree scoring the test object without having seen it (its own
    # training set calibrating it) is overconfident on both sides.
    rng = np.random.default_rng(0)
    n_sim, n = 400, 20
    rows, broken = [], []
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    for _ in range(n_sim):
        X = rng.normal(size=(n + 1, 2))
        y = (rng.random(n + 1) < 1 / (1 + np.exp(-2 * X[:, 0]))).astype(int)
        if y[:n].min() == y[:n].max():
            continue
        vp = VennClassifier(tree, taxonomy="label", method="full").fit(X[:n], y[:n])
        P = vp.predict_multiprobability(X[n:])[0]
        rows.append((y[n], P[y[n], 1], P[:, 1].min(), P[:, 1].max()))
        frozen = FrozenEstimator(clone(tree).fit(X[:n], y[:n]))
        Pb = VennClassifier(frozen, taxonomy="label").fit(X[:n], y[:n])
        broken.append((y[n], Pb.predict_multiprobability(X[n:])[0, y[n], 1]))
    ys, sel, lower, upper = np.array(rows).T
    yb, selb = np.array(broken).T

    def conditional_bias(y_, p_):
        out = []
        for side in (p_ > 0.5, p_ <= 0.5):
            d = (y_ - p_) * side
            out.append((d.mean(), d.std(ddof=1) / np.sqrt(len(d))))
        return out

    for mean, se in conditional_bias(ys, sel):
        assert abs(mean) < 3 * se + 1e-3
    se_y = ys.std(ddof=1) / np.sqrt(len(ys))
    assert lower.mean() - 3 * se_y < ys.mean() < upper.mean() + 3 * se_y
    (high, se_high), (low, se_low) = conditional_bias(yb, selb)
    assert high < -(3 * se_high + 0.02) and low > 3 * se_low + 0.02


def test_memorising_learner_gives_vacuous_but_valid_predictions():
    # an unpruned tree predicts the hypothetical label of the test object, so with the label
    # taxonomy its category holds only that label: [L(1), U(1)] = [0, 1]
    X, y, Xt, _ = make_data(2)
    vp = VennClassifier(DecisionTreeClassifier(random_state=0), method="full").fit(X, y)
    np.testing.assert_allclose(vp.predict_interval(Xt), np.tile([0.0, 1.0], (len(Xt), 1)))


def test_pandas_and_refit_forgets():
    pd = pytest.importorskip("pandas")
    X, y, Xt, _ = make_data(4)
    df, dft = pd.DataFrame(X, columns=["a", "b"]), pd.DataFrame(Xt, columns=["a", "b"])
    tree = DecisionTreeClassifier(max_depth=2, random_state=0)
    vp = VennClassifier(tree, taxonomy="bins", n_bins=3, method="full").fit(df, y)
    want = full_venn_naive(tree, X, y, Xt, taxonomy="bins", n_classes=2, n_bins=3)
    np.testing.assert_allclose(vp.predict_multiprobability(dft), want)
    vp.set_params(method="inductive").fit(X, y)
    assert not hasattr(vp, "X_fit_") and not hasattr(vp, "updater_")


class _NoWeights(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.full((len(X), 2), 0.5)


def test_bad_input():
    X, y, Xt, _ = make_data(0)
    with pytest.raises(ValueError, match="sample_weight"):
        VennClassifier(GaussianNB(), method="full").fit(X, y, sample_weight=np.ones(len(y)))
    frozen = FrozenEstimator(GaussianNB().fit(X, y))
    with pytest.raises(ValueError, match="FrozenEstimator"):
        VennClassifier(frozen, method="full").fit(X, y)
    X3, y3 = make_data(0, k=3)[:2]
    with pytest.raises(ValueError, match="two classes"):
        VennClassifier(GaussianNB(), taxonomy="isotonic", method="full").fit(X3, y3)
    vp = VennClassifier(GaussianNB(), method="full")
    with pytest.raises(NotFittedError):
        vp.predict_interval(Xt)
    vp.fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        vp.predict_interval(np.r_[Xt[:1], [[np.nan, 0.0]]])
    with pytest.raises(ValueError, match="features"):
        vp.predict_interval(Xt[:, :1])
    bad = VennClassifier(GaussianNB(), taxonomy=lambda s: s[:-1] > 0.5, method="full")
    with pytest.raises(ValueError, match="one category per object"):
        bad.fit(X, y).predict_interval(Xt)
    with pytest.raises(ValueError, match="one class"):
        VennClassifier(GaussianNB(), method="full").fit(X, np.zeros(len(y)))
    assert VennClassifier(_NoWeights(), method="full").fit(X, y).predict_interval(Xt).shape == (
        5,
        2,
    )


def test_isotonic_taxonomy_is_full_venn_abers():
    from venncal import VennAbersClassifier

    X, y, Xt, _ = make_data(6, n=50, m=6)
    for est in (GaussianNB(), DecisionTreeClassifier(max_depth=3, random_state=0)):
        vp = VennClassifier(est, taxonomy="isotonic", method="full").fit(X, y)
        va = VennAbersClassifier(est, method="full", response_method="predict_proba").fit(X, y)
        P = vp.predict_multiprobability(Xt)
        np.testing.assert_allclose(P[:, :, 1], va.predict_interval(Xt), atol=1e-12)


def test_editing_the_training_array_after_fit_changes_nothing():
    X, y, Xt, _ = make_data(8)
    tree = DecisionTreeClassifier(max_depth=2, random_state=0)
    vp = VennClassifier(tree, taxonomy="bins", n_bins=3, method="full").fit(X, y)
    before = vp.predict_multiprobability(Xt)
    X[:] = 0.0
    np.testing.assert_array_equal(vp.predict_multiprobability(Xt), before)


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_parallel_refits_give_the_serial_prediction(backend):
    # the refit route (a tree has no update) over batches of test objects in joblib workers
    from joblib import parallel_config

    X, y, Xt, _ = make_data(11, n=50, m=9, k=3)
    est = DecisionTreeClassifier(max_depth=3, random_state=0)
    serial = VennClassifier(est, taxonomy="label", method="full").fit(X, y)
    want = serial.predict_multiprobability(Xt)
    with parallel_config(backend=backend):
        par = VennClassifier(est, taxonomy="label", method="full", n_jobs=2).fit(X, y)
        np.testing.assert_array_equal(par.predict_multiprobability(Xt), want)
        a, b = par.predict_venn(Xt), serial.predict_venn(Xt)
        np.testing.assert_array_equal(a.lower, b.lower)
        np.testing.assert_array_equal(a.upper, b.upper)
    naive = full_venn_naive(est, X, y, Xt, taxonomy="label", n_classes=3, n_bins=10)
    np.testing.assert_allclose(want, naive, atol=1e-12)


def test_a_failing_refit_in_a_worker_is_the_same_clear_error():
    class Exploding(DecisionTreeClassifier):
        def predict_proba(self, X):
            p = super().predict_proba(X)
            return np.where(X[:, :1] > 1e6, np.nan, p)

    X, y, Xt, _ = make_data(12, n=40, m=6)
    Xt = np.r_[Xt, [[1e7, 0.0]]]
    vp = VennClassifier(Exploding(max_depth=2), method="full", n_jobs=2).fit(X, y)
    with pytest.raises(ValueError, match="test object 6 of X joins the training set"):
        vp.predict_interval(Xt)
