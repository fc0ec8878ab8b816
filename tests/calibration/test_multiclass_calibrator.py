"""MulticlassVennAbersCalibrator against naive Venn-Abers and coupling from the definitions."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from tests._reference.coupling_naive import price_naive, wu1_naive, wu2_naive
from tests._reference.venn_abers_naive import venn_abers_naive
from venncal.calibration.multiclass import PAIRWISE_MAX_CLASSES, MulticlassVennAbersCalibrator
from venncal.core.merge import merge_log

NAIVE_COUPLING = {"wu2": wu2_naive, "wu1": wu1_naive, "price": price_naive}


def make(seed, n=45, m=6, K=3, ties=True):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n + m, K)) * 1.5
    if ties:
        Z = np.round(Z, 1)
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    y = (rng.random((n + m, 1)) > P.cumsum(axis=1)).sum(axis=1)
    y[:K] = np.arange(K)
    return Z[:n], y[:n], Z[n:]


def log_softmax(Z):
    """z_k - log sum_j exp(z_j), the log-sum-exp taken as max + log sum exp(z - max) (the
    documented arithmetic, so that near-ties between rows round alike)."""
    top = Z.max(axis=1)
    return Z - (top + np.log(np.exp(Z - top[:, None]).sum(axis=1)))[:, None]


@pytest.mark.parametrize("seed", range(3))
def test_ovr_separate_matches_naive(seed):
    Z, y, Zt = make(seed)
    cal = MulticlassVennAbersCalibrator(strategy="ovr", pooled=False, merge="log").fit(Z, y)
    T, Tt = log_softmax(Z), log_softmax(Zt)
    iv = cal.predict_interval(Zt)
    for k in range(3):
        p0, p1 = venn_abers_naive(T[:, k], (y == k).astype(int), Tt[:, k])
        np.testing.assert_allclose(iv[:, k, 0], p0, atol=1e-12)
        np.testing.assert_allclose(iv[:, k, 1], p1, atol=1e-12)
    p = merge_log(iv[..., 0], iv[..., 1])
    np.testing.assert_allclose(cal.predict_proba(Zt), p / p.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("seed", range(2))
def test_ovr_pooled_matches_naive(seed):
    Z, y, Zt = make(seed, n=30, m=4)
    cal = MulticlassVennAbersCalibrator(strategy="ovr").fit(Z, y)
    T, Tt = log_softmax(Z), log_softmax(Zt)
    Y = (y[:, None] == np.arange(3)).astype(int)
    p0, p1 = venn_abers_naive(T.ravel(), Y.ravel(), Tt.ravel())
    iv = cal.predict_interval(Zt)
    np.testing.assert_allclose(iv[..., 0], np.reshape(p0, Tt.shape), atol=1e-12)
    np.testing.assert_allclose(iv[..., 1], np.reshape(p1, Tt.shape), atol=1e-12)


def naive_pairwise_R(S, y, St, K, pooled, merge_rule=merge_log):
    """Merged pairwise probabilities r_ij (i < j) from naive Venn-Abers, as K x K matrices."""
    m = St.shape[0]
    R = np.full((m, K, K), 0.5)
    if pooled:
        s, lab = [], []
        for row, c in zip(S, y):
            for j in range(K):
                if j != c:
                    s += [row[c] - row[j], row[j] - row[c]]
                    lab += [1, 0]
    for i in range(K):
        for j in range(i + 1, K):
            if not pooled:
                sel = (y == i) | (y == j)
                s, lab = S[sel, i] - S[sel, j], (y[sel] == i).astype(int)
            p0, p1 = venn_abers_naive(np.array(s), np.array(lab), St[:, i] - St[:, j])
            R[:, i, j] = merge_rule(np.array(p0), np.array(p1))
            R[:, j, i] = 1 - R[:, i, j]
    return R


def naive_midpoint(p0, p1):
    return (p0 + p1) / 2


@pytest.mark.parametrize("merge", ["log", "mean"])
@pytest.mark.parametrize("pooled", [False, True])
@pytest.mark.parametrize("coupling", ["wu2", "wu1", "price"])
def test_pairwise_matches_naive(pooled, coupling, merge):
    Z, y, Zt = make(1, n=30, m=4, K=4)
    cal = MulticlassVennAbersCalibrator(
        strategy="pairwise", pooled=pooled, coupling=coupling, merge=merge
    )
    got = cal.fit(Z, y).predict_proba(Zt)
    rule = merge_log if merge == "log" else naive_midpoint
    R = naive_pairwise_R(Z, y, Zt, 4, pooled, rule)  # z_i - z_j: differences of log-softmax
    ref = np.array([NAIVE_COUPLING[coupling](r) for r in R])
    np.testing.assert_allclose(got, ref, atol=1e-6)


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
@pytest.mark.parametrize("pooled", [False, True])
def test_outputs(strategy, pooled):
    Z, y, Zt = make(2, n=200, m=50, K=5)
    cal = MulticlassVennAbersCalibrator(strategy=strategy, pooled=pooled).fit(Z, y)
    p, iv = cal.predict_proba(Zt), cal.predict_interval(Zt)
    assert p.shape == (50, 5) and iv.shape == (50, 5, 2)
    assert (p >= 0).all() and np.allclose(p.sum(axis=1), 1.0)
    assert ((0 <= iv[..., 0]) & (iv[..., 0] <= iv[..., 1]) & (iv[..., 1] <= 1)).all()
    np.testing.assert_array_equal(cal.predict(Zt), cal.classes_[p.argmax(axis=1)])
    # a row's answer does not depend on its batch
    np.testing.assert_allclose(cal.predict_proba(Zt[3:4])[0], p[3], atol=1e-12)


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
@pytest.mark.parametrize("pooled", [False, True])
def test_probabilities_and_logits_agree(strategy, pooled):
    Z, y, Zt = make(3, n=120, m=30, K=4, ties=False)
    P, Pt = np.exp(log_softmax(Z)), np.exp(log_softmax(Zt))
    kw = dict(strategy=strategy, pooled=pooled)
    a = MulticlassVennAbersCalibrator(**kw).fit(Z, y)
    b = MulticlassVennAbersCalibrator(**kw).fit(P, y)
    assert (a.score_type_, b.score_type_) == ("logits", "probabilities")
    np.testing.assert_allclose(a.predict_proba(Zt), b.predict_proba(Pt), atol=1e-9)


def test_any_labels_and_integer_weights_equal_duplicates():
    Z, y, Zt = make(4, n=80, K=3)
    labels = np.array(["ant", "bee", "cat"])
    w = np.random.default_rng(0).integers(0, 3, size=y.shape[0])
    w[:3] = 1
    for pooled in (False, True):
        for strategy in ("ovr", "pairwise"):
            kw = dict(strategy=strategy, pooled=pooled)
            a = MulticlassVennAbersCalibrator(**kw).fit(Z, labels[y], sample_weight=w)
            rep = np.repeat(np.arange(y.shape[0]), w)
            b = MulticlassVennAbersCalibrator(**kw).fit(Z[rep], labels[y[rep]])
            np.testing.assert_allclose(a.predict_proba(Zt), b.predict_proba(Zt), atol=1e-9)
            assert list(a.classes_) == list(labels)


def test_auto_strategy_switches_to_ovr_beyond_the_pairwise_limit():
    K = PAIRWISE_MAX_CLASSES + 1
    rng = np.random.default_rng(0)
    Z, y = rng.normal(size=(2 * K, K)), np.tile(np.arange(K), 2)
    assert MulticlassVennAbersCalibrator().fit(Z, y).strategy_ == "ovr"
    assert MulticlassVennAbersCalibrator().fit(Z[:, :5][y < 5], y[y < 5]).strategy_ == "pairwise"
    with pytest.raises(ValueError, match="strategy='ovr'"):
        MulticlassVennAbersCalibrator(strategy="pairwise").fit(Z, y)


@pytest.mark.parametrize(
    "scores, y, kw, match",
    [
        (np.zeros(6), [0, 1, 2, 0, 1, 2], {}, "2-D"),
        (np.zeros((6, 2)), [0, 1, 2, 0, 1, 2], {}, "3 classes"),
        (np.zeros((4, 3)), [0, 0, 0, 0], {}, "one class"),
        (np.zeros((4, 3)), [0, 1, 2], {}, "inconsistent|length"),
        ([[0, np.nan, 1]] * 3, [0, 1, 2], {}, "NaN"),
        ([[0, np.inf, 1]] * 3, [0, 1, 2], {}, "infinite"),
        (np.zeros((0, 3)), [], {}, "empty"),
        (np.zeros((3, 3)), [0, 1, 2], {"strategy": "ovo"}, "strategy"),
        (np.zeros((3, 3)), [0, 1, 2], {"coupling": "ht"}, "coupling"),
        (np.zeros((3, 3)), [0, 1, 2], {"merge": "max"}, "merge"),
        (np.zeros((3, 3)), [0, 1, 2], {"score_type": "odds"}, "score_type"),
        (-np.ones((3, 3)), [0, 1, 2], {"score_type": "probabilities"}, r"\[0, 1\]"),
    ],
)
def test_bad_input(scores, y, kw, match):
    with pytest.raises(ValueError, match=match):
        MulticlassVennAbersCalibrator(**kw).fit(scores, y)


def test_pooled_must_be_bool():
    with pytest.raises(TypeError, match="pooled"):
        MulticlassVennAbersCalibrator(pooled="yes").fit(np.zeros((3, 3)), [0, 1, 2])


def test_predict_errors():
    Z, y, Zt = make(0)
    with pytest.raises(NotFittedError):
        MulticlassVennAbersCalibrator().predict_proba(Zt)
    cal = MulticlassVennAbersCalibrator().fit(Z, y)
    with pytest.raises(ValueError, match="3 classes"):
        cal.predict_proba(Zt[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        cal.predict_interval(np.where(Zt == Zt[0, 0], np.nan, Zt))
    weights = np.ones(y.shape[0])
    weights[y == 1] = 0
    with pytest.raises(ValueError, match="class index 1"):
        MulticlassVennAbersCalibrator().fit(Z, y, sample_weight=weights)


@pytest.mark.parametrize("seed", range(2))
def test_pairwise_price_and_ovr_agree_with_venn_abers_package(seed):
    """Manokhin's multiclass Venn-Abers (the venn-abers package, if installed): one-vs-one with
    Price et al.'s coupling, and one-vs-rest, on probabilities."""
    va = pytest.importorskip("venn_abers.venn_abers")
    Z, y, Zt = make(seed, n=300, m=50, K=4, ties=False)
    P, Pt = np.exp(log_softmax(Z)), np.exp(log_softmax(Zt))
    ours = MulticlassVennAbersCalibrator(
        strategy="pairwise", pooled=False, coupling="price", merge="log"
    )
    theirs = va.predict_proba_prefitted_va(P, y, Pt)[0]
    np.testing.assert_allclose(ours.fit(P, y).predict_proba(Pt), theirs, atol=1e-9)
    ours = MulticlassVennAbersCalibrator(strategy="ovr", pooled=False, merge="log")
    theirs = va.predict_proba_prefitted_va(P, y, Pt, va_tpe="one_vs_rest")[0]
    np.testing.assert_allclose(ours.fit(P, y).predict_proba(Pt), theirs, atol=1e-9)
