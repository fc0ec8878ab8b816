"""scikit-learn's estimator checks and the shared input contract of the classic calibrators."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from tests.calibration._bad_input import bad_fit_inputs
from tests.calibration.sklearn_checks import score_calibrator_xfails
from venncal import (
    ACPCalibrator,
    BayesianBinningCalibrator,
    HistogramCalibrator,
    PlattCalibrator,
)

CALIBRATORS = [
    PlattCalibrator(),
    HistogramCalibrator(n_bins=5, strategy="quantile"),
    BayesianBinningCalibrator(method="selection"),
    BayesianBinningCalibrator(method="averaging", lam=5.0),
    ACPCalibrator(),
]


# The shared list holds the checks that cannot run on any one-column score calibrator, each with
# its reason (tests/calibration/sklearn_checks.py); these calibrators add no failure of their own.
@parametrize_with_checks(
    [clone(c) for c in CALIBRATORS], expected_failed_checks=score_calibrator_xfails
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    y[:2] = [0, 1]
    return s, y


@pytest.fixture(params=CALIBRATORS, ids=lambda c: repr(c))
def cal(request):
    return clone(request.param)


def test_outputs_are_probabilities(cal):
    s, y = _data()
    p = cal.fit(s, y).predict_proba(np.linspace(-10, 10, 201))
    assert p.shape == (201, 2)
    assert np.all((p >= 0) & (p <= 1))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_any_two_labels(cal):
    s, y = _data()
    a = clone(cal).fit(s, y).predict_proba(s)
    for labels in (np.array(["no", "yes"]), np.array([-1, 1]), np.array([False, True])):
        c = clone(cal).fit(s, labels[y])
        np.testing.assert_array_equal(c.classes_, labels)
        np.testing.assert_allclose(c.predict_proba(s), a)
        assert set(np.unique(c.predict(s))) <= set(labels.tolist())


def test_column_scores_equal_flat_scores(cal):
    s, y = _data()
    a = clone(cal).fit(s, y).predict_proba(s)
    b = clone(cal).fit(s[:, None], y).predict_proba(s[:, None])
    np.testing.assert_allclose(a, b)


def test_refit_forgets(cal):
    s, y = _data(seed=1)
    s2, y2 = _data(seed=2)
    a = clone(cal).fit(s2, y2).predict_proba(s)
    b = cal.fit(s, y).fit(s2, y2).predict_proba(s)
    np.testing.assert_allclose(a, b)


def test_unfitted(cal):
    with pytest.raises(NotFittedError):
        cal.predict_proba([0.0])


@pytest.mark.parametrize("scores, y, match", bad_fit_inputs((0.0, 1.0), (0.0, 1.0, 2.0)))
def test_bad_fit_input(cal, scores, y, match):
    with pytest.raises(ValueError, match=match):
        cal.fit(scores, y)


def test_bad_predict_input(cal):
    s, y = _data()
    cal.fit(s, y)
    with pytest.raises(ValueError, match="NaN"):
        cal.predict_proba([np.nan])
    with pytest.raises(ValueError, match="one column"):
        cal.predict_proba(np.zeros((3, 2)))


def test_bad_weights(cal):
    s, y = _data()
    with pytest.raises(ValueError, match="negative"):
        cal.fit(s, y, sample_weight=-np.ones_like(s))
    with pytest.raises(ValueError, match="sample_weight"):
        cal.fit(s, y, sample_weight=np.ones(3))
