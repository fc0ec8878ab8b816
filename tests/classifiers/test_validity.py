"""Validity of Venn predictors in simulation (Vovk & Petej 2014, Theorem 1 and Corollary 1).

On IID data, the probability selected by the true label, p_Y, is perfectly calibrated:
E(Y - p_Y) = 0, also within groups of p_Y; hence E(p0) <= P(Y = 1) <= E(p1). Each check uses
standard errors over independent repetitions (test objects of one repetition share a training
set, so the repetition means are the independent units) and prints its margins.
"""

import numpy as np
import pytest
from scipy.special import expit
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB

from venncal.classifiers._full import FullVennAbers
from venncal.classifiers._oob import OOBVennAbers
from venncal.classifiers.venn import VennClassifier
from venncal.core.venn_abers import ivap_fit

N_REPS, L, M = 250, 40, 6


def draw(rng, n):
    X = rng.normal(size=(n, 2))
    y = (rng.random(n) < expit(2.0 * X[:, 0] - X[:, 1])).astype(int)
    return X, y


def full_va(X, y, Xt, seed):
    return FullVennAbers(GaussianNB()).fit(X, y).predict_interval(Xt)


def inductive_va(X, y, Xt, seed):
    est = GaussianNB().fit(X[: L // 2], y[: L // 2])
    p0, p1 = ivap_fit(est.predict_proba(X[L // 2 :])[:, 1], y[L // 2 :]).predict(
        est.predict_proba(Xt)[:, 1]
    )
    return np.column_stack([p0, p1])


def venn_label(X, y, Xt, seed):
    vp = VennClassifier(GaussianNB(), cal_size=0.5, random_state=seed).fit(X, y)
    return vp.predict_interval(Xt)


def venn_bins(X, y, Xt, seed):
    vp = VennClassifier(GaussianNB(), taxonomy="bins", n_bins=3, cal_size=0.5, random_state=seed)
    return vp.fit(X, y).predict_interval(Xt)


def _forest(seed):
    return RandomForestClassifier(n_estimators=20, max_depth=3, random_state=seed)


def oob_va(X, y, Xt, seed):
    return OOBVennAbers(_forest(seed), random_state=seed).fit(X, y).predict_interval(Xt)


def oob_venn_label(X, y, Xt, seed):
    vp = VennClassifier(_forest(seed), method="oob", random_state=seed)
    return vp.fit(X, y).predict_interval(Xt)


# a few examples in the bootstrap sample of every tree are expected with 20 trees
@pytest.mark.filterwarnings("ignore:.*no out-of-bag score")
@pytest.mark.parametrize(
    "predictor",
    [
        full_va,
        inductive_va,
        venn_label,
        venn_bins,
        pytest.param(oob_va, marks=pytest.mark.slow),
        pytest.param(oob_venn_label, marks=pytest.mark.slow),
    ],
    ids=lambda f: f.__name__,
)
def test_venn_validity_in_simulation(predictor):
    rng = np.random.default_rng(2014)
    p0s, p1s, ys = [], [], []
    for rep in range(N_REPS):
        X, y = draw(rng, L + M)
        if y[:L].min() == y[:L].max() or y[: L // 2].min() == y[: L // 2].max():
            continue
        pi = predictor(X[:L], y[:L], X[L:], rep)
        p0s.append(pi[:, 0])
        p1s.append(pi[:, 1])
        ys.append(y[L:])
    p0, p1, yy = np.array(p0s), np.array(p1s), np.array(ys)
    r = p0.shape[0]

    def mean_se(v):
        per_rep = v.mean(axis=1)
        return per_rep.mean(), per_rep.std(ddof=1) / np.sqrt(r)

    # Theorem 1: p_Y is calibrated
    p_sel = np.where(yy == 1, p1, p0)
    bias, se = mean_se(yy - p_sel)
    print(f"\n{predictor.__name__}: {r} repetitions x {M} test objects")
    print(f"  E(Y - p_Y) = {bias:+.4f} (se {se:.4f}, margin {3 * se - abs(bias):+.4f})")
    assert abs(bias) < 3 * se + 1e-3
    # ... also within groups of p_Y (below / above its median)
    cut = np.median(p_sel)
    for name, grp in (("low p_Y", p_sel <= cut), ("high p_Y", p_sel > cut)):
        resid = np.where(grp, yy - p_sel, 0.0)
        b, s = mean_se(resid)
        print(f"  {name}: E((Y - p_Y) 1[group]) = {b:+.4f} (se {s:.4f})")
        assert abs(b) < 3.5 * s + 1e-3
    # Corollary 1: E(lower) <= P(Y = 1) <= E(upper) for the interval conv(p0, p1); full
    # Venn-Abers refits the scorer per label, so its p0 may exceed p1 (Vovk & Petej 2014, s. 2)
    lo, se_lo = mean_se(yy - np.minimum(p0, p1))
    hi, se_hi = mean_se(np.maximum(p0, p1) - yy)
    print(
        f"  freq - mean lower = {lo:+.4f} (se {se_lo:.4f}); mean upper - freq = {hi:+.4f} "
        f"(se {se_hi:.4f})"
    )
    assert lo > -3 * se_lo and hi > -3 * se_hi
    if predictor is not full_va:  # a fixed scorer: p0 <= p1
        assert (p0 <= p1 + 1e-12).all()
