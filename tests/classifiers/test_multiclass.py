"""Multiclass Venn-Abers: one-vs-rest and pairwise coupling, against naive computations."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal.classifiers.multiclass import MulticlassVennAbersClassifier, couple_pairwise
from venncal.core.coupling import couple_wu2
from venncal.core.merge import merge_log


def make_data(seed, n=300, m=30, k=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 2))
    z = X[:, 0] + 0.7 * X[:, 1] + rng.normal(size=n + m)
    y = np.digitize(z, np.quantile(z, np.linspace(0, 1, k + 1)[1:-1]))
    return X[:n], y[:n], X[n:], y[n:]


def split(n, y, seed):
    return train_test_split(np.arange(n), test_size=0.2, random_state=seed, stratify=y)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [2, 3, 4])
def test_ovr_intervals_match_naive(seed, k):
    X, y, Xt, _ = make_data(seed, k=k)
    clf = MulticlassVennAbersClassifier(
        LogisticRegression(), strategy="ovr", pooled=False, merge="log", random_state=seed
    ).fit(X, y)
    _, cal = split(len(y), y, seed)
    est = clf.estimators_[0]
    # one-vs-rest ranks by the log-softmax of the logits, i.e. by the model's probability
    S, St = est.predict_proba(X[cal]), est.predict_proba(Xt)
    got = clf.predict_interval(Xt)
    for c in range(k):
        p0, p1 = venn_abers_naive(S[:, c], (y[cal] == c).astype(int), St[:, c])
        np.testing.assert_allclose(got[:, c, 0], p0, atol=1e-12)
        np.testing.assert_allclose(got[:, c, 1], p1, atol=1e-12)
    proba = clf.predict_proba(Xt)
    ref = merge_log(got[..., 0], got[..., 1])
    np.testing.assert_allclose(proba, ref / ref.sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(clf.predict(Xt), clf.classes_[np.argmax(proba, axis=1)])


@pytest.mark.parametrize("merge", ["log", "mean"])
@pytest.mark.parametrize("seed", range(3))
def test_pairwise_matches_naive(seed, merge):
    k = 3
    X, y, Xt, _ = make_data(seed, k=k)
    clf = MulticlassVennAbersClassifier(
        GaussianNB(), strategy="pairwise", pooled=False, merge=merge, random_state=seed
    ).fit(X, y)
    _, cal = split(len(y), y, seed)
    est = clf.estimators_[0]
    # probabilities: pairwise scores are log p_i - log p_j
    S, St = np.log(est.predict_proba(X[cal])), np.log(est.predict_proba(Xt))
    R = np.full((len(Xt), k, k), 0.5)
    for i in range(k):
        for j in range(i + 1, k):
            sel = (y[cal] == i) | (y[cal] == j)
            p0, p1 = venn_abers_naive(
                S[sel, i] - S[sel, j], (y[cal][sel] == i).astype(int), St[:, i] - St[:, j]
            )
            R[:, i, j] = merge_log(p0, p1) if merge == "log" else (p0 + p1) / 2
            R[:, j, i] = 1 - R[:, i, j]
    np.testing.assert_allclose(clf.predict_proba(Xt), couple_wu2(R), atol=1e-12)
    iv = clf.predict_interval(Xt)
    assert (iv[..., 0] <= iv[..., 1]).all()


@pytest.mark.parametrize("seed", range(5))
def test_coupling_solves_its_least_squares_problem(seed):
    rng = np.random.default_rng(seed)
    k = 4
    R = rng.uniform(0.05, 0.95, size=(k, k))
    R = np.triu(R, 1)
    R = R + np.tril(1 - R.T, -1)
    got = couple_wu2(R[None])[0]

    def objective(p):
        return sum(
            (R[j, i] * p[i] - R[i, j] * p[j]) ** 2 for i in range(k) for j in range(k) if i != j
        )

    cons = {"type": "eq", "fun": lambda p: p.sum() - 1}
    ref = minimize(
        objective, np.full(k, 1 / k), constraints=[cons], bounds=[(0, 1)] * k, tol=1e-14
    ).x
    np.testing.assert_allclose(got, ref, atol=1e-6)


def test_cross_method():
    X, y, Xt, _ = make_data(4)
    clf = MulticlassVennAbersClassifier(
        LogisticRegression(), method="cross", n_splits=3, random_state=0
    ).fit(X, y)
    assert len(clf.estimators_) == 3
    iv = clf.predict_interval(Xt)
    assert iv.shape == (len(Xt), 3, 2)
    assert ((iv[..., 0] <= iv[..., 1]) & (iv[..., 0] >= 0) & (iv[..., 1] <= 1)).all()
    np.testing.assert_allclose(clf.predict_proba(Xt).sum(axis=1), 1.0)


def test_ovr_per_class_validity_in_simulation():
    rng = np.random.default_rng(11)
    lo, hi, hit = [], [], []
    for rep in range(120):
        X = rng.normal(size=(66, 2))
        y = np.digitize(X[:, 0] + rng.normal(size=66), [-0.6, 0.6])
        if np.bincount(y[:60], minlength=3).min() < 4:
            continue
        clf = MulticlassVennAbersClassifier(
            GaussianNB(), strategy="ovr", pooled=False, cal_size=0.5, random_state=rep
        )
        iv = clf.fit(X[:60], y[:60]).predict_interval(X[60:])
        lo.append(iv[..., 0].mean(axis=0))
        hi.append(iv[..., 1].mean(axis=0))
        hit.append(np.eye(3)[y[60:]].mean(axis=0))
    lo, hi, hit = map(np.array, (lo, hi, hit))
    se = hit.std(axis=0, ddof=1) / np.sqrt(len(hit))
    print("\nfreq - mean p0 per class:", (hit - lo).mean(axis=0).round(4), "se", se.round(4))
    print("mean p1 - freq per class:", (hi - hit).mean(axis=0).round(4))
    assert ((hit - lo).mean(axis=0) > -3 * se).all()
    assert ((hi - hit).mean(axis=0) > -3 * se).all()


def test_bad_input():
    X, y, Xt, _ = make_data(0, k=4)
    with pytest.raises(ValueError, match="strategy"):
        MulticlassVennAbersClassifier(GaussianNB(), strategy="ovo").fit(X, y)
    with pytest.raises(ValueError, match="method"):
        MulticlassVennAbersClassifier(GaussianNB(), method="full").fit(X, y)
    with pytest.raises(ValueError, match="merge"):
        MulticlassVennAbersClassifier(GaussianNB(), merge="max").fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        MulticlassVennAbersClassifier(GaussianNB()).fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="at least two examples"):
        MulticlassVennAbersClassifier(GaussianNB()).fit(X, np.r_[y[:-1], 9])
    with pytest.raises(ValueError, match="n_splits"):
        MulticlassVennAbersClassifier(GaussianNB(), method="cross", n_splits=1).fit(X, y)
    with pytest.raises(ValueError, match="4 columns"):
        MulticlassVennAbersClassifier(SVC(decision_function_shape="ovo")).fit(X, y)
    with pytest.raises(TypeError, match="decision_function"):
        MulticlassVennAbersClassifier(GaussianNB(), response_method="decision_function").fit(X, y)
    with pytest.raises(ValueError, match="Inconsistent"):
        MulticlassVennAbersClassifier(GaussianNB()).fit(X, y[:-1])
    with pytest.raises(NotFittedError):
        MulticlassVennAbersClassifier(GaussianNB()).predict_proba(Xt)


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
@pytest.mark.parametrize("seed", [0, 1])
def test_cross_intervals_are_ordered_and_contain_the_merge(strategy, seed):
    """Folds that disagree (shallow trees, noisy labels) made the geometric-mean ends cross."""
    from sklearn.datasets import make_classification
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(
        n_samples=450, n_features=5, n_informative=3, n_classes=3, flip_y=0.3, random_state=seed
    )
    clf = MulticlassVennAbersClassifier(
        DecisionTreeClassifier(max_depth=3, random_state=0),
        strategy=strategy,
        pooled=False,
        method="cross",
        n_splits=5,
        random_state=seed,
    ).fit(X[:300], y[:300])
    iv = clf.predict_interval(X[300:])
    assert np.all(iv[..., 0] <= iv[..., 1])
    if strategy == "ovr":  # before normalisation, each class's merge lies in its interval
        p0, p1 = clf._fold_pairs(X[300:])
        from venncal.core.merge import merge_cross

        p = merge_cross(p0, p1, "log")
        assert np.all((iv[..., 0] <= p) & (p <= iv[..., 1]))


class _RowwiseLR(LogisticRegression):
    """LogisticRegression whose decision_function is computed row by row (no BLAS batching),
    so a row's score is bit-identical in every batch."""

    def decision_function(self, X):
        X = np.asarray(X, dtype=np.float64)
        return (X[:, None, :] * self.coef_[None]).sum(axis=2) + self.intercept_


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
def test_prediction_of_a_row_does_not_depend_on_the_batch(strategy):
    """The calibration is a function of each row's scores (the scikit-learn subset-invariance
    check fails only through the wrapped model's BLAS rounding)."""
    X, y, Xt, _ = make_data(3)
    clf = MulticlassVennAbersClassifier(_RowwiseLR(), strategy=strategy, random_state=0)
    clf.fit(X, y)
    for rows in (Xt, X[:40]):  # training rows tie with calibration scores
        batch = clf.predict_proba(rows)
        alone = np.vstack([clf.predict_proba(rows[i : i + 1]) for i in range(len(rows))])
        np.testing.assert_array_equal(batch, alone)


def test_couple_pairwise_is_a_deprecated_alias_of_couple_wu2():
    """The alias warns (FutureWarning, naming the replacement and the release that removes it)
    and gives what couple_wu2 gives, on random pairwise matrices."""
    rng = np.random.default_rng(3)
    for k in (2, 3, 5):
        R = rng.uniform(0.02, 0.98, size=(20, k, k))
        R = np.triu(R, 1) + np.tril(1 - np.swapaxes(np.triu(R, 1), 1, 2), -1)
        with pytest.warns(FutureWarning, match="couple_wu2.*|0.3.0"):
            got = couple_pairwise(R)
        np.testing.assert_array_equal(got, couple_wu2(R))
