"""``from_estimator`` on the displays: the same data as ``from_predictions`` on the predictions."""

import dataclasses

import matplotlib
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

import venncal
from venncal.plotting import BrierCurveDisplay, ReliabilityDisplay, VennIntervalDisplay

matplotlib.use("Agg")


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    return X[:200], y[:200], X[200:], y[200:]


def _plain(x):
    """A curve (a dataclass) or a dict of curves as nested dicts; other values as they are."""
    if isinstance(x, dict):
        return {k: dataclasses.asdict(v) for k, v in x.items()}
    return dataclasses.asdict(x) if dataclasses.is_dataclass(x) else x


def _same(a, b):
    """Equal field by field and key by key, NaN equal to NaN (numpy's ``assert_equal``)."""
    np.testing.assert_equal(_plain(a), _plain(b))


def test_reliability_from_estimator_equals_from_predictions():
    Xtr, ytr, Xte, yte = _data()
    clf = LogisticRegression().fit(Xtr, ytr)
    opts = dict(n_bins=5, strategy="quantile", confidence_level=0.9)
    a = ReliabilityDisplay.from_estimator(clf, Xte, yte, **opts)
    b = ReliabilityDisplay.from_predictions(yte, clf.predict_proba(Xte)[:, 1], **opts)
    _same(a.curve, b.curve)
    _same(a.lower, b.lower)
    _same(a.upper, b.upper)
    assert a.ece == b.ece and a.confidence_level == 0.9
    assert a.name == "LogisticRegression" and a.ax_ is not None


def test_brier_curve_from_estimator_equals_from_predictions():
    Xtr, ytr, Xte, yte = _data(1)
    clf = GaussianNB().fit(Xtr, ytr)
    w = np.linspace(0.5, 2.0, yte.shape[0])
    a = BrierCurveDisplay.from_estimator(
        clf, Xte, yte, name="nb", recalibrated=True, sample_weight=w
    )
    b = BrierCurveDisplay.from_predictions(
        yte, {"nb": clf.predict_proba(Xte)[:, 1]}, recalibrated=True, sample_weight=w
    )
    _same(a.curves, b.curves)
    assert a.recalibrated


def test_venn_from_estimator_equals_from_predictions():
    Xtr, ytr, Xte, yte = _data(2)
    clf = venncal.VennAbersClassifier(GaussianNB(), random_state=0).fit(Xtr, ytr)
    a = VennIntervalDisplay.from_estimator(clf, Xte, yte, n_bins=4)
    p0, p1 = clf.predict_interval(Xte).T
    b = VennIntervalDisplay.from_predictions(yte, p0, p1, n_bins=4)
    _same(a.validity, b.validity)
    assert a.name == "VennAbersClassifier"


def test_string_classes_use_classes_1_or_pos_label():
    Xtr, ytr, Xte, yte = _data(3)
    words = np.array(["no", "yes"])
    clf = LogisticRegression().fit(Xtr, words[ytr])
    p = clf.predict_proba(Xte)
    a = ReliabilityDisplay.from_estimator(clf, Xte, words[yte])
    _same(a.curve, ReliabilityDisplay.from_predictions(yte, p[:, 1]).curve)
    # the negative class named positive: its own column and the flipped labels
    c = ReliabilityDisplay.from_estimator(clf, Xte, words[yte], pos_label="no")
    _same(c.curve, ReliabilityDisplay.from_predictions(1 - yte, p[:, 0]).curve)
    with pytest.raises(ValueError, match="pos_label"):
        ReliabilityDisplay.from_estimator(clf, Xte, words[yte], pos_label="maybe")


def test_venn_pos_label_flips_the_interval():
    Xtr, ytr, Xte, yte = _data(4)
    words = np.array(["no", "yes"])
    clf = venncal.VennAbersClassifier(GaussianNB(), random_state=0).fit(Xtr, words[ytr])
    a = VennIntervalDisplay.from_estimator(clf, Xte, words[yte], pos_label="no")
    p0, p1 = clf.predict_interval(Xte).T
    b = VennIntervalDisplay.from_predictions(1 - yte, 1 - p1, 1 - p0)
    _same(a.validity, b.validity)


def test_from_predictions_takes_pos_label():
    Xtr, ytr, Xte, yte = _data(5)
    p = LogisticRegression().fit(Xtr, ytr).predict_proba(Xte)[:, 1]
    words = np.where(yte == 1, "yes", "no")
    a = BrierCurveDisplay.from_predictions(words, p, pos_label="yes")
    _same(a.curves, BrierCurveDisplay.from_predictions(yte, p).curves)
    v = VennIntervalDisplay.from_predictions(words, p * 0.9, p, pos_label="yes")
    _same(v.validity, VennIntervalDisplay.from_predictions(yte, p * 0.9, p).validity)


def test_multiclass_estimator_is_refused():
    rng = np.random.default_rng(6)
    X, y = rng.normal(size=(90, 2)), np.repeat([0, 1, 2], 30)
    clf = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        BrierCurveDisplay.from_estimator(clf, X, y)  # ReliabilityDisplay has a multiclass mode
