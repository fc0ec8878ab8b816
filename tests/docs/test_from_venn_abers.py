"""The claims of docs/user_guide/from_venn_abers.md.

The comparisons with the venn-abers package run only where it is installed (it is in the
``bench`` extra, not in the test one); the venncal-only checks of the same claims (the
definition of Venn-Abers, the merges, the rounding rule) run everywhere.
"""

import itertools
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

import venncal
from tests._reference.exact_isotonic import venn_abers as exact_venn_abers
from venncal.core.merge import merge_cross

# importing venn_abers calls np.seterr(divide="ignore", invalid="ignore"): each comparison
# restores numpy's settings afterwards, so that no other test runs with them changed
_ERRSTATE = np.geterr()

# venn-abers divides 0 by 0 in its hull computation by design (it relies on the settings above);
# with numpy's settings restored those divisions warn, which is venn-abers' business, not ours
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:venn_abers.venn_abers")


@pytest.fixture
def va():
    pytest.importorskip("venn_abers")
    from venn_abers import venn_abers as module

    yield module
    np.seterr(**_ERRSTATE)


def _scores(seed, n, decimals):
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), decimals)  # ties in the calibration scores
    y = (rng.random(n) < s).astype(int)
    y[:2] = [0, 1]
    t = np.concatenate([np.round(rng.random(30), 2), s[:10], [0.0, 1.0]])  # and with the test
    return s, y, t


def _two_columns(p):
    return np.column_stack([1 - p, p])


@pytest.mark.parametrize("seed", range(6))
def test_interval_and_log_merge_equal_venn_abers(va, seed):
    s, y, t = _scores(seed, 40 + 30 * seed, 1 + seed % 3)
    p_prime, p0_p1 = va.VennAbers().fit(_two_columns(s), y).predict_proba(_two_columns(t))
    cal = venncal.VennAbersCalibrator().fit(s, y)
    np.testing.assert_array_equal(cal.predict_interval(t), p0_p1 + 0.0)  # -0.0 becomes 0.0
    np.testing.assert_allclose(cal.predict_proba(t), p_prime, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_interval_is_the_definition(seed):
    # the venncal side alone: two isotonic fits with the test object labelled 0 and 1
    s, y, t = _scores(seed, 25, 1)
    p0, p1 = exact_venn_abers(s.tolist(), y.tolist(), t.tolist())
    got = venncal.VennAbersCalibrator().fit(s, y).predict_interval(t)
    np.testing.assert_allclose(got, np.column_stack([p0, p1]).astype(float), atol=1e-15)


def test_precision_rounds_the_calibration_scores_only(va):
    rng = np.random.default_rng(0)
    s, t = rng.random(200), rng.random(100)
    y = (rng.random(200) < s).astype(int)
    _, p0_p1 = va.VennAbers().fit(_two_columns(s), y, precision=1).predict_proba(_two_columns(t))
    rounded_by_hand = venncal.VennAbersCalibrator().fit(np.round(s, 1), y)
    np.testing.assert_array_equal(rounded_by_hand.predict_interval(t), p0_p1)
    both = venncal.VennAbersCalibrator(decimals=1).fit(s, y).predict_interval(t)
    assert np.abs(both - p0_p1).max() > 0.1


def test_decimals_round_test_scores_too():
    rng = np.random.default_rng(1)
    s, t = rng.random(200), rng.random(50)
    y = (rng.random(200) < s).astype(int)
    cal = venncal.VennAbersCalibrator(decimals=1).fit(s, y)
    by_hand = venncal.VennAbersCalibrator().fit(np.round(s, 1), y)
    np.testing.assert_array_equal(cal.predict_interval(t), by_hand.predict_interval(np.round(t, 1)))


def _wrapped_data():
    X, y = make_classification(n_samples=600, n_features=6, random_state=0)
    return X[:500], y[:500], X[500:]


@pytest.mark.parametrize("learner", [GaussianNB, LogisticRegression])
def test_inductive_wrapper_with_stratify_equals_venncal(va, learner):
    X, y, X_test = _wrapped_data()
    theirs = va.VennAbersCalibrator(
        learner(), inductive=True, cal_size=0.2, random_state=3, stratify=y
    ).fit(X, y)
    p, p0_p1 = theirs.predict_proba(X_test, p0_p1_output=True)
    ours = venncal.VennAbersClassifier(learner(), cal_size=0.2, random_state=3).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X_test), p, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(ours.predict_interval(X_test), p0_p1[0] + 0.0)
    brier = theirs.predict_proba(X_test, loss="brier")
    np.testing.assert_allclose(
        ours.set_params(merge="square").predict_proba(X_test), brier, rtol=0, atol=1e-15
    )


@pytest.mark.parametrize("learner", [GaussianNB, LogisticRegression])
def test_cross_wrapper_equals_venncal(va, learner):
    X, y, X_test = _wrapped_data()
    theirs = va.VennAbersCalibrator(learner(), inductive=False, n_splits=5, random_state=3)
    theirs.fit(X, y)
    p, p0_p1 = theirs.predict_proba(X_test, p0_p1_output=True)
    ours = venncal.VennAbersClassifier(learner(), method="cross", n_splits=5, random_state=3)
    ours.fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X_test), p, rtol=0, atol=1e-15)
    p0, p1 = p0_p1[0][:, :5], p0_p1[0][:, 5:]
    envelope = np.column_stack([p0.min(axis=1), p1.max(axis=1)])
    np.testing.assert_array_equal(ours.predict_interval(X_test), envelope + 0.0)
    brier = theirs.predict_proba(X_test, loss="brier")
    np.testing.assert_allclose(
        ours.set_params(merge="square").predict_proba(X_test), brier, rtol=0, atol=1e-15
    )
    labels = theirs.predict(X_test, one_hot=False)
    assert theirs.predict(X_test).shape == (X_test.shape[0], 2)  # one-hot by default
    clear = np.abs(p[:, 1] - 0.5) > 1e-12  # rounding decides the ties, in either package
    ours.set_params(merge="log")
    np.testing.assert_array_equal(ours.predict(X_test)[clear], labels[clear])


def test_cross_merges_are_the_fold_formulas():
    rng = np.random.default_rng(2)
    p0 = rng.random((5, 40)) * 0.6
    p1 = p0 + rng.random((5, 40)) * 0.4
    gm = np.exp(np.log(p1).mean(axis=0)), np.exp(np.log(1 - p0).mean(axis=0))
    np.testing.assert_allclose(merge_cross(p0, p1, "log"), gm[0] / (gm[0] + gm[1]), atol=1e-15)
    square = p1.mean(axis=0) + 0.5 * (p0**2).mean(axis=0) - 0.5 * (p1**2).mean(axis=0)
    np.testing.assert_allclose(merge_cross(p0, p1, "square"), square, atol=1e-15)


@pytest.mark.parametrize(
    ("va_type", "options"),
    [
        ("one_vs_one", {"strategy": "pairwise", "coupling": "price"}),
        ("one_vs_rest", {"strategy": "ovr"}),
    ],
)
def test_multiclass_prefitted_equals_venncal(va, va_type, options):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    z = rng.normal(size=(600, 3)) + 1.5 * np.eye(3)[y]
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    theirs = va.VennAbersCalibrator().predict_proba(
        p_cal=P[:400], y_cal=y[:400], p_test=P[400:], va_type=va_type
    )
    ours = venncal.MulticlassVennAbersCalibrator(
        pooled=False, merge="log", score_type="probabilities", **options
    ).fit(P[:400], y[:400])
    np.testing.assert_allclose(ours.predict_proba(P[400:]), theirs, rtol=0, atol=1e-14)


def _half_problem():
    """The smallest calibration set (scores 1/3, 2/3, labels 0, 1) whose merged probability at
    a test score is exactly one half."""
    for n in range(2, 6):
        s = np.arange(1, n + 1) / (n + 1)
        for labels in itertools.product([0, 1], repeat=n):
            y = np.array(labels)
            if y.min() == y.max():
                continue
            cal = venncal.VennAbersCalibrator().fit(s, y)
            for t in np.arange(0.5, n + 1) / (n + 1):
                if cal.predict_proba([t])[0, 1] == 0.5:
                    return s, y, t
    raise AssertionError("no tie found")


def test_decision_at_one_half(va):
    s, y, t = _half_problem()
    assert venncal.VennAbersCalibrator().fit(s, y).predict([t]).tolist() == [0]
    theirs = va.VennAbers().fit(_two_columns(s), y)
    assert theirs.predict(_two_columns(np.array([t]))).tolist() == [1]


def test_unusual_input_gets_numbers_there_and_an_error_here(va):
    rng = np.random.default_rng(0)
    s, t = rng.random(100), rng.random(5)
    y = (rng.random(100) < s).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # venn-abers' own warnings on these inputs
        _, one_class = (
            va.VennAbers().fit(_two_columns(s), np.zeros(100, int)).predict_proba(_two_columns(t))
        )
        _, labels_12 = va.VennAbers().fit(_two_columns(s), y + 1).predict_proba(_two_columns(t))
        t_nan = t.copy()
        t_nan[0] = np.nan
        _, nan_test = va.VennAbers().fit(_two_columns(s), y).predict_proba(_two_columns(t_nan))
    assert np.isfinite(one_class).all()
    assert (labels_12[:, 0] > 1).any()
    assert np.isfinite(nan_test[0]).all()
    with pytest.raises(ValueError, match="one class only"):
        venncal.VennAbersCalibrator().fit(s, np.zeros(100, int))
    cal = venncal.VennAbersCalibrator().fit(s, y)
    np.testing.assert_array_equal(
        venncal.VennAbersCalibrator().fit(s, y + 1).predict_interval(t), cal.predict_interval(t)
    )
    with pytest.raises(ValueError, match="NaN"):
        cal.predict_interval(t_nan)


def test_importing_venn_abers_changes_numpy_error_settings():
    pytest.importorskip("venn_abers")
    code = (
        "import numpy as np; import venn_abers.venn_abers; "
        "assert np.geterr()['divide'] == np.geterr()['invalid'] == 'ignore', np.geterr()"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_importing_venncal_changes_no_numpy_setting():
    code = (
        "import numpy as np; before = np.geterr(); import venncal; "
        "venncal.VennAbersCalibrator; import venncal.calibration, venncal.metrics; "
        "assert np.geterr() == before, np.geterr()"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
