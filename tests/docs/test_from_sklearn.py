"""The claims of docs/user_guide/from_sklearn.md: which venncal call gives scikit-learn's number.

scikit-learn is a dependency, so these always run. Each agreement with scikit-learn is paired,
where the claim is about a definition, with a check against an independent reference
(tests/_reference) that does not use either library's code.
"""

import warnings

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV, calibration_curve
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss
from sklearn.model_selection import cross_val_predict
from sklearn.naive_bayes import GaussianNB

import venncal
from tests._reference.exact_isotonic import isotonic_fit, isotonic_predict
from tests._reference.platt_mle import platt_mle
from venncal import metrics


def _data(seed):
    X, y = make_classification(n_samples=1200, n_features=6, flip_y=0.1, random_state=seed)
    return X[:500], y[:500], X[500:900], y[500:900], X[900:], y[900:]


def _scorer(model):
    """The score CalibratedClassifierCV uses: decision_function, else predict_proba[:, 1]."""
    if hasattr(model, "decision_function"):
        return model.decision_function
    return lambda X: model.predict_proba(X)[:, 1]


# scikit-learn warns that a FrozenEstimator is fitted without the weights: expected, since the
# weights are meant for the calibration only
_FROZEN_WEIGHTS = pytest.mark.filterwarnings("ignore:Since FrozenEstimator:UserWarning")


@_FROZEN_WEIGHTS
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("learner", [LogisticRegression, GaussianNB])
@pytest.mark.parametrize("weighted", [False, True])
def test_platt_and_isotonic_reproduce_calibrated_classifier_cv(seed, learner, weighted):
    X_tr, y_tr, X_cal, y_cal, X_te, _ = _data(seed)
    model = learner().fit(X_tr, y_tr)
    score = _scorer(model)
    w = (
        np.random.default_rng(seed).integers(1, 4, y_cal.shape[0]).astype(float)
        if weighted
        else None
    )
    for method, calibrator, atol in [
        ("sigmoid", venncal.PlattCalibrator(), 1e-6),  # L-BFGS against Newton
        ("isotonic", venncal.IsotonicCalibrator(), 1e-12),  # the same fit
    ]:
        sk = CalibratedClassifierCV(FrozenEstimator(model), method=method)
        sk.fit(X_cal, y_cal, sample_weight=w)
        calibrator.fit(score(X_cal), y_cal, sample_weight=w)
        np.testing.assert_allclose(
            calibrator.predict_proba(score(X_te)), sk.predict_proba(X_te), rtol=0, atol=atol
        )


@pytest.mark.parametrize("seed", [0, 1])
def test_platt_and_isotonic_match_their_definitions(seed):
    # the venncal side on its own: Platt's smoothed targets with weight totals, and the
    # isotonic fit with tied scores pooled and linear interpolation between fitted points
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=80), 1)  # ties
    y = (rng.random(80) < 1 / (1 + np.exp(-2 * s))).astype(int)
    w = rng.integers(1, 4, 80).astype(float)
    t = np.linspace(-3.5, 3.5, 57)
    platt = venncal.PlattCalibrator().fit(s, y, sample_weight=w)
    np.testing.assert_allclose(platt.predict_proba(t)[:, 1], platt_mle(s, y, w)(t), atol=1e-7)
    iso = venncal.IsotonicCalibrator().fit(s, y, sample_weight=w)
    xs, fitted = isotonic_fit(s, y, w)
    naive = [float(isotonic_predict(xs, fitted, v, rule="interpolate")) for v in t]
    np.testing.assert_allclose(iso.predict_proba(t)[:, 1], naive, atol=1e-12)


@_FROZEN_WEIGHTS
def test_weights_count_as_copies_in_both_platt_fits():
    # multiplying every weight by 10 moves the smoothed targets, in scikit-learn and in venncal
    X_tr, y_tr, X_cal, y_cal, X_te, _ = _data(3)
    model = GaussianNB().fit(X_tr, y_tr)
    score = _scorer(model)
    w = np.random.default_rng(3).integers(1, 4, y_cal.shape[0]).astype(float)
    sk = CalibratedClassifierCV(FrozenEstimator(model), method="sigmoid")
    sk.fit(X_cal, y_cal, sample_weight=10 * w)
    ours = venncal.PlattCalibrator().fit(score(X_cal), y_cal, sample_weight=10 * w)
    np.testing.assert_allclose(ours.predict_proba(score(X_te)), sk.predict_proba(X_te), atol=1e-6)
    doubled = venncal.PlattCalibrator().fit(
        np.repeat(score(X_cal), 2), np.repeat(y_cal, 2), sample_weight=np.repeat(5 * w, 2)
    )
    np.testing.assert_allclose(doubled.predict_proba(score(X_te)), ours.predict_proba(score(X_te)))


def test_temperature_reproduces_calibrated_classifier_cv():
    X_tr, y_tr, X_cal, y_cal, X_te, _ = _data(4)
    model = LogisticRegression().fit(X_tr, y_tr)
    try:
        sk = CalibratedClassifierCV(FrozenEstimator(model), method="temperature").fit(X_cal, y_cal)
    except ValueError:  # scikit-learn before 1.8 has no temperature scaling
        pytest.skip("this scikit-learn has no method='temperature'")
    ts = venncal.TemperatureCalibrator().fit(model.decision_function(X_cal), y_cal)
    np.testing.assert_allclose(
        ts.predict_proba(model.decision_function(X_te)), sk.predict_proba(X_te), atol=1e-6
    )


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_ensemble_false_recipe(method):
    X, y = make_classification(n_samples=900, n_features=6, flip_y=0.1, random_state=5)
    X_all, y_all, X_te = X[:700], y[:700], X[700:]
    sk = CalibratedClassifierCV(LogisticRegression(), method=method, cv=5, ensemble=False)
    sk.fit(X_all, y_all)
    s = cross_val_predict(LogisticRegression(), X_all, y_all, cv=5, method="decision_function")
    refit = LogisticRegression().fit(X_all, y_all)
    cal = venncal.PlattCalibrator() if method == "sigmoid" else venncal.IsotonicCalibrator()
    cal.fit(s, y_all)
    np.testing.assert_allclose(
        cal.predict_proba(refit.decision_function(X_te)), sk.predict_proba(X_te), atol=1e-6
    )


def test_frozen_venn_abers_classifier_equals_the_calibrator_on_scores():
    X_tr, y_tr, X_cal, y_cal, X_te, _ = _data(6)
    model = LogisticRegression().fit(X_tr, y_tr)
    clf = venncal.VennAbersClassifier(FrozenEstimator(model)).fit(X_cal, y_cal)
    cal = venncal.VennAbersCalibrator().fit(model.decision_function(X_cal), y_cal)
    np.testing.assert_array_equal(
        clf.predict_interval(X_te), cal.predict_interval(model.decision_function(X_te))
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_bins", [5, 10])
def test_reliability_curve_nonempty_bins_are_calibration_curve(seed, n_bins):
    rng = np.random.default_rng(seed)
    p = rng.random(300) ** 3  # leaves upper bins empty
    y = (rng.random(300) < p).astype(int)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins)
    curve = metrics.reliability_curve(y, p, n_bins=n_bins)
    assert curve.n_bins == n_bins  # empty bins kept
    np.testing.assert_allclose(curve.observed[curve.nonempty], prob_true, atol=1e-12)
    np.testing.assert_allclose(curve.predicted[curve.nonempty], prob_pred, atol=1e-12)


def test_a_prediction_on_an_inner_edge_goes_one_bin_higher_in_venncal():
    y, p = np.array([0, 1, 1, 0]), np.array([0.2, 0.2, 0.5, 0.9])
    prob_true, prob_pred = calibration_curve(y, p, n_bins=5)
    assert prob_pred[0] == pytest.approx(0.2)  # scikit-learn: bin [0, 0.2]
    counts = metrics.reliability_curve(y, p, n_bins=5).counts
    assert counts.tolist() == [0.0, 2.0, 1.0, 0.0, 1.0]  # venncal: bin [0.2, 0.4)


def test_scores_and_log_loss_clipping():
    rng = np.random.default_rng(7)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    assert metrics.brier_score(y, p) == pytest.approx(brier_score_loss(y, p), abs=1e-15)
    assert metrics.log_loss(y, p) == pytest.approx(sk_log_loss(y, p), abs=1e-12)
    y2, p2 = np.array([1, 0, 1]), np.array([0.9, 1.0, 0.6])  # a confident mistake
    assert metrics.log_loss(y2, p2) == np.inf
    eps = np.finfo(float).eps
    assert metrics.log_loss(y2, p2, clip=eps) == pytest.approx(sk_log_loss(y2, p2), rel=1e-12)


def test_binary_calibrators_refuse_more_classes():
    with pytest.raises(ValueError, match="Only binary classification"):
        venncal.PlattCalibrator().fit([0.1, 0.5, 0.9], [0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="only 0 and 1"):
            metrics.brier_score([-1, 1], [0.2, 0.7])
    assert metrics.brier_score([-1, 1], [0.2, 0.7], pos_label=1) == pytest.approx(
        brier_score_loss([-1, 1], [0.2, 0.7])
    )
