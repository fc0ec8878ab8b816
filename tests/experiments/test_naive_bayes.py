"""Weka-style naive Bayes of the Vovk & Petej study, against a loop over Weka's formulas."""

import math

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

from venncal.experiments.studies._naive_bayes import WekaNaiveBayes, nominal_groups


def _phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def naive_weka_posterior(X, y, groups, x):
    """P(class 1 | x) by Weka's NaiveBayes, written out attribute by attribute in floats."""
    n = len(y)
    in_group = {c for g in groups for c in g}
    numeric = [j for j in range(X.shape[1]) if j not in in_group]
    logp = []
    for c in (0, 1):
        rows = [i for i in range(n) if y[i] == c]
        lp = math.log((len(rows) + 1) / (n + 2))
        for g in groups:
            k = 2 if len(g) == 1 else len(g)

            def code(row, g=g):
                return int(row[g[0]]) if len(g) == 1 else [int(row[j]) for j in g].index(1)

            count = sum(1 for i in rows if code(X[i]) == code(x))
            lp += math.log(max((count + 1) / (len(rows) + k), 1e-75))
        for j in numeric:
            distinct = sorted(set(X[:, j].tolist()))
            prec = 0.01
            if len(distinct) > 1:
                prec = sum(b - a for a, b in zip(distinct, distinct[1:])) / (len(distinct) - 1)
            vals = [round(X[i, j] / prec) * prec for i in rows]
            mean = sum(vals) / len(vals)
            sd = math.sqrt(abs(sum(v * v for v in vals) - mean * sum(vals)) / len(vals))
            sd = max(prec / 6, sd) if sd > 1e-10 else prec / 6
            v = round(x[j] / prec) * prec
            mass = _phi((v - mean + prec / 2) / sd) - _phi((v - mean - prec / 2) / sd)
            lp += math.log(max(mass, 1e-75))
        logp.append(lp)
    m = max(logp)
    return math.exp(logp[1] - m) / sum(math.exp(v - m) for v in logp)


def _mixed_data(seed, n=40):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    num = np.round(rng.normal(y[:, None] * 1.5, 1.0, size=(n, 2)), 1)
    binary = (rng.random(n) < 0.3 + 0.4 * y).astype(float)
    level = np.where(rng.random(n) < 0.5, y, rng.integers(0, 3, n))
    onehot = np.eye(3)[level]
    X = np.column_stack([num[:, 0], binary, onehot, num[:, 1]])
    return X, y, [[1], [2, 3, 4]]


@pytest.mark.parametrize("seed", range(8))
def test_agrees_with_a_loop_over_wekas_formulas(seed):
    X, y, groups = _mixed_data(seed)
    nb = WekaNaiveBayes(nominal=groups).fit(X[:30], y[:30])
    got = nb.predict_proba(X[30:])[:, 1]
    want = [naive_weka_posterior(X[:30], y[:30], groups, x) for x in X[30:]]
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_nominal_factor_is_the_laplace_frequency_and_unseen_values_keep_mass():
    # one nominal attribute with three values, the third never seen in class 0
    X = np.eye(3)[[0, 0, 1, 2, 2, 2]]
    y = np.array([0, 0, 0, 1, 1, 1])
    nb = WekaNaiveBayes(nominal=[[0, 1, 2]]).fit(X, y)
    np.testing.assert_allclose(
        np.exp(nb.log_freq_[0]), [[3 / 6, 2 / 6, 1 / 6], [1 / 6, 1 / 6, 4 / 6]]
    )
    p = nb.predict_proba(np.eye(3)[[2]])[0, 1]
    assert p == pytest.approx((4 / 6) / (4 / 6 + 1 / 6))


def test_one_hot_attributes_keep_probabilities_away_from_0_and_1():
    # a Gaussian on one-hot columns pushes these to 0 or 1; Laplace counts do not
    X = np.eye(4)[[0] * 20 + [1] * 20 + [2] * 5 + [3] * 5]
    y = np.array([0] * 20 + [1] * 20 + [0] * 5 + [1] * 5)
    gauss = GaussianNB().fit(X, y).predict_proba(X)[:, 1]
    weka = WekaNaiveBayes(nominal=[[0, 1, 2, 3]]).fit(X, y).predict_proba(X)[:, 1]
    assert ((gauss < 1e-6) | (gauss > 1 - 1e-6)).any()
    assert weka.min() > 0.02 and weka.max() < 0.98


def test_nominal_groups_from_names():
    assert nominal_groups(["a", "b=x", "c=1", "c=2", "d"]) == [[1], [2, 3]]
    assert nominal_groups(["a", "b"]) == []


@pytest.mark.parametrize(
    "nominal, X, match",
    [
        ([[5]], np.zeros((4, 2)), "column indices"),
        ([[0], [0]], np.zeros((4, 2)), "repeats a column"),
        ([[0]], np.full((4, 2), 0.5), "only 0 and 1"),
        ([[0, 1]], np.ones((4, 2)), "one 1"),
    ],
)
def test_bad_nominal_columns(nominal, X, match):
    with pytest.raises(ValueError, match=match):
        WekaNaiveBayes(nominal=nominal).fit(X, np.array([0, 1, 0, 1]))


@parametrize_with_checks([WekaNaiveBayes()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
