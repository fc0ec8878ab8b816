"""Top-label Venn-Abers (strategy="top-label") against naive binary Venn-Abers."""

import numpy as np
import pytest

import venncal
from tests._reference.venn_abers_naive import venn_abers_naive
from tests.calibration._score_matrix import XFAILS, sklearn_checks_test
from tests.calibration.test_multiclass_calibrator import log_softmax, make
from venncal.calibration.multiclass import MulticlassVennAbersCalibrator
from venncal.core.merge import merge


def top_probability(S):
    """The largest softmax probability of each row of logits, row by row."""
    return np.array([1.0 / sum(np.exp(row - row.max())) for row in S])


def naive_top_label(S, y, St, w=None):
    """(p0, p1) of the top class from the binary definition on (top probability, top is
    right)."""
    correct = (np.argmax(S, axis=1) == y).astype(int)
    return venn_abers_naive(top_probability(S), correct, top_probability(St), w)


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("seed", range(3))
def test_top_interval_matches_naive_binary_venn_abers(K, seed):
    S, y, St = make(seed, n=40, m=8, K=K)
    cal = MulticlassVennAbersCalibrator(strategy="top-label", merge="log").fit(S, y)
    iv = cal.predict_interval(St)
    top = np.argmax(St, axis=1)
    rows = np.arange(St.shape[0])
    p0, p1 = naive_top_label(S, y, St)
    np.testing.assert_allclose(iv[rows, top, 0], p0, atol=1e-12)
    np.testing.assert_allclose(iv[rows, top, 1], p1, atol=1e-12)
    proba = cal.predict_proba(St)
    np.testing.assert_allclose(proba[rows, top], merge(p0, p1, "log"), atol=1e-12)


@pytest.mark.parametrize("merge_rule", ["log", "square", "mean"])
def test_rows_sum_to_one_and_intervals_contain_p(merge_rule):
    S, y, St = make(4, n=60, m=30, K=4, ties=False)
    cal = MulticlassVennAbersCalibrator(strategy="top-label", merge=merge_rule).fit(S, y)
    proba, iv = cal.predict_proba(St), cal.predict_interval(St)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert (proba >= 0).all()
    assert (iv[..., 0] <= proba + 1e-12).all() and (proba <= iv[..., 1] + 1e-12).all()


def test_other_classes_share_the_rest_in_proportion_to_the_model():
    S, y, St = make(5, n=50, m=20, K=5, ties=False)
    cal = MulticlassVennAbersCalibrator(strategy="top-label").fit(S, y)
    proba = cal.predict_proba(St)
    Q = np.exp(log_softmax(St))
    rows = np.arange(St.shape[0])
    top = np.argmax(St, axis=1)
    for i in rows:
        rest = np.arange(5) != top[i]
        share = Q[i, rest] / Q[i, rest].sum()
        np.testing.assert_allclose(proba[i, rest], (1 - proba[i, top[i]]) * share, atol=1e-12)


def test_underflowing_others_are_shared_equally():
    S, y, _ = make(6, n=40, K=3)
    cal = MulticlassVennAbersCalibrator(strategy="top-label", score_type="logits").fit(S, y)
    proba = cal.predict_proba(np.array([[2000.0, 0.0, 0.0], [0.0, 0.0, 1e4]]))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert proba[0, 1] == proba[0, 2] and proba[1, 0] == proba[1, 1]


def test_weights_match_naive_and_copies():
    S, y, St = make(7, n=40, m=6, K=3)
    w = np.random.default_rng(0).integers(0, 4, size=40)
    w[:3] = 1
    cal = MulticlassVennAbersCalibrator(strategy="top-label").fit(S, y, sample_weight=w)
    rows = np.repeat(np.arange(40), w)
    copies = MulticlassVennAbersCalibrator(strategy="top-label").fit(S[rows], y[rows])
    np.testing.assert_allclose(cal.predict_interval(St), copies.predict_interval(St), atol=1e-12)
    p0, p1 = naive_top_label(S, y, St, w)
    top = np.argmax(St, axis=1)
    iv = cal.predict_interval(St)[np.arange(6), top]
    np.testing.assert_allclose(iv[:, 0], p0, atol=1e-12)
    np.testing.assert_allclose(iv[:, 1], p1, atol=1e-12)


def test_probabilities_and_pooled_do_not_matter():
    S, y, St = make(8, n=50, m=10, K=4, ties=False)
    P, Pt = np.exp(log_softmax(S)), np.exp(log_softmax(St))
    a = MulticlassVennAbersCalibrator(strategy="top-label").fit(S, y).predict_interval(St)
    b = MulticlassVennAbersCalibrator(strategy="top-label", pooled=False).fit(P, y)
    # probabilities below the smallest calibration probability (the floor when the model
    # gives no zeros) are read at it: compare the rows above it
    inside = (Pt >= P.min()).all(axis=1)
    assert inside.sum() >= 5
    np.testing.assert_allclose(b.predict_interval(Pt)[inside], a[inside], atol=1e-9)


def test_top_label_validity_on_average():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(6000, 4)) * 2
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    y = (rng.random((6000, 1)) > P.cumsum(axis=1)).sum(axis=1)
    S = 3 * Z  # overconfident
    cal = MulticlassVennAbersCalibrator(strategy="top-label").fit(S[:3000], y[:3000])
    iv = cal.predict_interval(S[3000:])
    top = np.argmax(S[3000:], axis=1)
    lo, hi = iv[np.arange(3000), top].mean(axis=0)
    accuracy = (top == y[3000:]).mean()
    assert lo - 0.02 <= accuracy <= hi + 0.02


def test_model_file_round_trip(tmp_path):
    S, y, St = make(9, n=60, m=10, K=3)
    cal = MulticlassVennAbersCalibrator(strategy="top-label").fit(S, y)
    loaded = venncal.load(venncal.save(cal, tmp_path / "top.json"))
    np.testing.assert_array_equal(loaded.predict_interval(St), cal.predict_interval(St))
    np.testing.assert_array_equal(loaded.predict_proba(St), cal.predict_proba(St))
    assert loaded.strategy_ == "top-label"


def test_edited_strategy_is_refused():
    from venncal.persistence._checks import FittedStateError, check_fitted_state

    S, y, _ = make(9, n=60, K=3)
    cal = MulticlassVennAbersCalibrator(strategy="top-label").fit(S, y)
    state = {k: v for k, v in vars(cal).items() if k.endswith("_")}
    check_fitted_state("MulticlassVennAbersCalibrator", state, cal.get_params())
    with pytest.raises(FittedStateError, match="does not match"):
        check_fitted_state("MulticlassVennAbersCalibrator", {**state, "strategy_": "ovr"}, {})


def test_the_classifier_does_not_take_top_label():
    from sklearn.linear_model import LogisticRegression

    from venncal.classifiers.multiclass import MulticlassVennAbersClassifier

    X, y, _ = make(0, n=60, K=3)
    with pytest.raises(ValueError, match="'strategy' parameter"):
        MulticlassVennAbersClassifier(LogisticRegression(), strategy="top-label").fit(X, y)


test_sklearn_compatible = sklearn_checks_test(
    [MulticlassVennAbersCalibrator(strategy="top-label")], XFAILS
)
