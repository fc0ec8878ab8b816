"""The claims of docs/user_guide/from_mapie.md.

The comparisons with MAPIE run only where MAPIE (1.3 or later, which has VennAbersCalibrator) is
installed; the venncal-only checks of the same recipes run everywhere.
"""

import warnings

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.naive_bayes import GaussianNB

import venncal
from tests._reference.metrics_loops import uniform_bin
from venncal import metrics

# MAPIE's Venn-Abers code divides 0 by 0 in its hull computation by design; those warnings are
# MAPIE's business, not what these tests check
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:mapie._venn_abers")


@pytest.fixture
def mapie():
    calibration = pytest.importorskip("mapie.calibration")
    if not hasattr(calibration, "VennAbersCalibrator"):
        pytest.skip("MAPIE before 1.3 has no VennAbersCalibrator")
    import mapie.metrics.calibration as mapie_metrics

    return calibration, mapie_metrics


def _three_classes():
    X, y = make_classification(
        n_samples=3000, n_features=8, n_informative=6, n_classes=3, random_state=0
    )
    model = GaussianNB().fit(X[:1000], y[:1000])
    return model, X[1000:2000], y[1000:2000], X[2000:], y[2000:]


def _per_class_top_label(calibrator, P_cal, y_cal, P_test):
    top_cal, class_cal = P_cal.max(axis=1), P_cal.argmax(axis=1)
    top_test, class_test = P_test.max(axis=1), P_test.argmax(axis=1)
    out = np.full(P_test.shape[0], np.nan)
    for k in np.unique(class_cal):
        rows = class_cal == k
        cal = clone(calibrator)
        cal.fit(top_cal[rows], y_cal[rows] == k)
        out[class_test == k] = cal.predict_proba(top_test[class_test == k])[:, 1]
    return out


@pytest.mark.parametrize(
    ("name", "calibrator", "atol"),
    [
        ("sigmoid", venncal.PlattCalibrator(), 1e-6),
        ("isotonic", venncal.IsotonicCalibrator(), 1e-12),
    ],
)
def test_top_label_calibrator_is_one_calibrator_per_predicted_class(mapie, name, calibrator, atol):
    calibration, _ = mapie
    model, X_cal, y_cal, X_test, _ = _three_classes()
    theirs = calibration.TopLabelCalibrator(model, calibrator=name, cv="prefit").fit(X_cal, y_cal)
    P = theirs.predict_proba(X_test)
    assert (np.isnan(P).sum(axis=1) == 2).all()  # NaN outside the predicted class's column
    ours = _per_class_top_label(
        calibrator, model.predict_proba(X_cal), y_cal, model.predict_proba(X_test)
    )
    np.testing.assert_allclose(ours, np.nanmax(P, axis=1), rtol=0, atol=atol)


def test_venn_abers_prefit(mapie):
    calibration, _ = mapie
    model, X_cal, y_cal, X_test, _ = _three_classes()
    P = calibration.VennAbersCalibrator(model, cv="prefit").fit(X_cal, y_cal).predict_proba(X_test)
    ours = venncal.MulticlassVennAbersCalibrator(
        strategy="pairwise", pooled=False, coupling="price", merge="log", score_type="probabilities"
    ).fit(model.predict_proba(X_cal), y_cal)
    np.testing.assert_allclose(ours.predict_proba(model.predict_proba(X_test)), P, atol=1e-14)

    X, y = make_classification(n_samples=1500, n_features=8, random_state=1)
    binary = GaussianNB().fit(X[:600], y[:600])
    theirs = calibration.VennAbersCalibrator(binary, cv="prefit").fit(X[600:1100], y[600:1100])
    p, p0_p1 = theirs.predict_proba(X[1100:], p0_p1_output=True)
    clf = venncal.VennAbersClassifier(FrozenEstimator(binary)).fit(X[600:1100], y[600:1100])
    np.testing.assert_allclose(clf.predict_proba(X[1100:]), p, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(clf.predict_interval(X[1100:]), np.asarray(p0_p1) + 0.0)
    # weights do not change MAPIE's prefit calibration; they do change venncal's
    w = np.random.default_rng(0).integers(1, 4, 500).astype(float)
    weighted = calibration.VennAbersCalibrator(binary, cv="prefit")
    weighted.fit(X[600:1100], y[600:1100], sample_weight=w)
    np.testing.assert_array_equal(weighted.predict_proba(X[1100:]), p)
    ours_w = venncal.VennAbersClassifier(FrozenEstimator(binary))
    ours_w.fit(X[600:1100], y[600:1100], sample_weight=w)
    assert np.abs(ours_w.predict_proba(X[1100:]) - p).max() > 1e-3


def test_venn_abers_inductive_and_cross(mapie):
    calibration, _ = mapie
    X, y = make_classification(n_samples=1500, n_features=8, random_state=1)
    X_fit, y_fit, X_test = X[:1400], y[:1400], X[1400:]
    theirs = calibration.VennAbersCalibrator(GaussianNB(), inductive=True)
    theirs.fit(X_fit, y_fit, calib_size=0.2, stratify=y_fit, random_state=3)
    ours = venncal.VennAbersClassifier(GaussianNB(), cal_size=0.2, random_state=3).fit(X_fit, y_fit)
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=1e-15)
    theirs = calibration.VennAbersCalibrator(
        GaussianNB(), inductive=False, n_splits=5, random_state=3
    ).fit(X_fit, y_fit)
    ours = venncal.VennAbersClassifier(
        GaussianNB(), method="cross", n_splits=5, random_state=3
    ).fit(X_fit, y_fit)
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=1e-15)
    brier = theirs.predict_proba(X_test, loss="brier")
    ours.set_params(merge="square")
    np.testing.assert_allclose(ours.predict_proba(X_test), brier, atol=1e-15)


class _Column(ClassifierMixin, BaseEstimator):
    """A fitted 'model' whose probability of class 1 is the first feature."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1
        return self

    def predict_proba(self, X):
        p = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1 - p, p])


def test_decision_at_one_half(mapie):
    calibration, _ = mapie
    # scores 1/3 and 2/3 labelled 0 and 1: at 1/2 the interval is [0, 1], merged to one half
    X_cal, y_cal, X_half = np.array([[1 / 3], [2 / 3]]), np.array([0, 1]), np.array([[0.5]])
    model = _Column().fit(X_cal, y_cal)
    theirs = calibration.VennAbersCalibrator(model, cv="prefit").fit(X_cal, y_cal)
    assert theirs.predict_proba(X_half)[0, 1] == 0.5
    assert theirs.predict(X_half).tolist() == [1]
    ours = venncal.VennAbersClassifier(FrozenEstimator(model)).fit(X_cal, y_cal)
    assert ours.predict_proba(X_half)[0, 1] == 0.5
    assert ours.predict(X_half).tolist() == [0]


def test_ece_num_bins_counts_edges(mapie):
    _, mapie_metrics = mapie
    rng = np.random.default_rng(0)
    for edges in (11, 16, 50):
        p = rng.random(2000)
        y = (rng.random(2000) < p**1.3).astype(int)
        theirs = mapie_metrics.expected_calibration_error(y, p, num_bins=edges)
        assert metrics.ece(y, p, n_bins=edges - 1) == pytest.approx(theirs, abs=1e-12)
    assert metrics.ece(y, p, n_bins=49) == pytest.approx(
        mapie_metrics.expected_calibration_error(y, p), abs=1e-12
    )
    p[:300] = 0.0  # exact zeros: a bin of their own in MAPIE
    theirs = mapie_metrics.expected_calibration_error(y, p, num_bins=11)
    assert abs(metrics.ece(y, p, n_bins=10) - theirs) > 1e-3


def test_ece_recipes_match_their_definitions():
    # the venncal side alone, against loops over the bins
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(3), size=2000)
    y = np.array([rng.choice(3, p=row) for row in P**1.5 / (P**1.5).sum(axis=1, keepdims=True)])
    top, cls = P.max(axis=1), P.argmax(axis=1)
    correct = (cls == y).astype(int)

    def loop_ece(labels, probs, n_bins):
        total = 0.0
        for b in range(n_bins):
            rows = [i for i in range(len(probs)) if uniform_bin(probs[i], n_bins) == b]
            if rows:
                gap = abs(np.mean(labels[rows]) - np.mean(probs[rows]))
                total += len(rows) / len(probs) * gap
        return total

    assert metrics.top_label_ece(y, P, n_bins=15) == pytest.approx(loop_ece(correct, top, 15))
    per_class = [loop_ece((y[cls == k] == k).astype(int), top[cls == k], 15) for k in range(3)]
    mine = [metrics.ece(y[cls == k] == k, top[cls == k], n_bins=15) for k in range(3)]
    np.testing.assert_allclose(mine, per_class, atol=1e-12)


def test_top_label_ece_is_a_mean_over_predicted_classes(mapie):
    _, mapie_metrics = mapie
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=3000)
    y = np.array([rng.choice(3, p=row) for row in P**1.5 / (P**1.5).sum(axis=1, keepdims=True)])
    top, cls = P.max(axis=1), P.argmax(axis=1)
    per_class = [metrics.ece(y[cls == k] == k, top[cls == k], n_bins=15) for k in range(3)]
    theirs = mapie_metrics.top_label_ece(y, P, num_bins=16)
    assert float(np.mean(per_class)) == pytest.approx(theirs, abs=1e-12)
    correct = (cls == y).astype(int)
    confidence = mapie_metrics.expected_calibration_error(correct, P, num_bins=16)
    assert metrics.top_label_ece(y, P, n_bins=15) == pytest.approx(confidence, abs=1e-12)
    assert abs(metrics.top_label_ece(y, P, n_bins=15) - theirs) > 1e-4


def test_spiegelhalter_statistic_same_p_value_sided(mapie):
    _, mapie_metrics = mapie
    rng = np.random.default_rng(0)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    ours = metrics.spiegelhalter_z(y, p)
    assert ours.statistic == pytest.approx(mapie_metrics.spiegelhalter_statistic(y, p), abs=1e-12)
    one_sided = mapie_metrics.spiegelhalter_p_value(y, p)
    assert 1 - norm.cdf(ours.statistic) == pytest.approx(one_sided, abs=1e-12)
    assert ours.pvalue == pytest.approx(2 * norm.sf(abs(ours.statistic)), abs=1e-12)


def test_per_class_recipe_runs_without_mapie():
    model, X_cal, y_cal, X_test, _ = _three_classes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = _per_class_top_label(
            venncal.PlattCalibrator(),
            model.predict_proba(X_cal),
            y_cal,
            model.predict_proba(X_test),
        )
    assert np.isfinite(out).all() and ((out > 0) & (out < 1)).all()
