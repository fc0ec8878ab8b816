"""Multiclass Venn-Abers wrapper: agreement with the score calibrator, cross and out-of-bag."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from venncal.calibration.multiclass import MulticlassVennAbersCalibrator
from venncal.classifiers._oob import OOBEnsemble, draw_reference_examples
from venncal.classifiers.multiclass import MulticlassVennAbersClassifier


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=700, n_features=6, n_informative=4, n_classes=4, random_state=0
    )
    return X[:500], y[:500], X[500:], y[500:]


@pytest.mark.parametrize(
    "kw",
    [{}, {"strategy": "ovr"}, {"strategy": "ovr", "pooled": False}, {"coupling": "price"}],
)
def test_frozen_classifier_equals_calibrator_on_its_scores(data, kw):
    X, y, Xt, _ = data
    base = LogisticRegression().fit(X[:250], y[:250])
    clf = MulticlassVennAbersClassifier(FrozenEstimator(base), **kw).fit(X[250:], y[250:])
    cal = MulticlassVennAbersCalibrator(**kw).fit(base.decision_function(X[250:]), y[250:])
    St = base.decision_function(Xt)
    np.testing.assert_array_equal(clf.predict_proba(Xt), cal.predict_proba(St))
    np.testing.assert_array_equal(clf.predict_interval(Xt), cal.predict_interval(St))


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
def test_cross_merges_the_folds(data, strategy):
    from venncal.core.merge import merge_cross

    X, y, Xt, _ = data
    clf = MulticlassVennAbersClassifier(
        LogisticRegression(),
        strategy=strategy,
        method="cross",
        n_splits=3,
        merge="log",
        random_state=0,
    ).fit(X, y)
    assert len(clf.estimators_) == len(clf.calibrations_) == 3
    p0, p1 = clf._fold_pairs(Xt)
    proba, iv = clf.predict_proba(Xt), clf.predict_interval(Xt)
    if strategy == "ovr":
        p = merge_cross(p0, p1, "log")
        np.testing.assert_allclose(proba, p / p.sum(axis=1, keepdims=True))
        np.testing.assert_array_equal(iv[..., 0], p0.min(axis=0))
        np.testing.assert_array_equal(iv[..., 1], p1.max(axis=0))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (iv[..., 0] <= iv[..., 1]).all()


def naive_oob(clf, X_train, Xt):
    """Eqs. (10)-(11) of Johansson et al. (2018), written out: for each test row, its z_r, the
    out-of-bag scores of every training example but z_r, and a fresh calibrator on them."""
    ens = clf._oob.ensemble
    n = X_train.shape[0]
    oob = OOBEnsemble(ens, n)
    members = np.stack([t.predict_proba(X_train.astype(np.float32)) for t in ens.estimators_])
    test_members = np.stack([t.predict_proba(Xt.astype(np.float32)) for t in ens.estimators_])
    r_all = draw_reference_examples(clf.oob_seed_, clf.oob_index_, Xt)
    out = []
    for row, r in enumerate(r_all):
        cal_rows, cal_scores = [], []
        for i in range(n):
            mask = oob.oob_mask[i]
            if i == r or not mask.any():
                continue
            cal_rows.append(i)
            cal_scores.append(members[mask, i].mean(axis=0))
        score = test_members[oob.oob_mask[r], row].mean(axis=0)
        cal = MulticlassVennAbersCalibrator(
            strategy=clf.strategy, pooled=clf.pooled, score_type="probabilities"
        ).fit(np.array(cal_scores), clf._y_train[cal_rows])
        out.append(cal.predict_proba(score[None])[0])
    return np.array(out)


@pytest.mark.parametrize("strategy", ["ovr", "pairwise"])
@pytest.mark.filterwarnings("ignore:1 training example")
def test_oob_matches_its_definition(data, strategy):
    X, y, Xt, _ = data
    X, y = X[:150], y[:150]
    rf = RandomForestClassifier(n_estimators=15, max_depth=4, random_state=0)
    clf = MulticlassVennAbersClassifier(rf, strategy=strategy, method="oob", random_state=3)
    clf.fit(X, y)
    clf._y_train = y
    np.testing.assert_allclose(clf.predict_proba(Xt[:12]), naive_oob(clf, X, Xt[:12]), atol=1e-12)
    # a row's answer does not depend on its batch
    np.testing.assert_array_equal(clf.predict_proba(Xt[3:4])[0], clf.predict_proba(Xt[:12])[3])


def test_oob_errors(data):
    X, y, _, _ = data
    with pytest.raises(TypeError, match="bagged ensemble"):
        MulticlassVennAbersClassifier(LogisticRegression(), method="oob").fit(X, y)
    rf = RandomForestClassifier(n_estimators=5, bootstrap=False)
    with pytest.raises(ValueError, match="bootstrap"):
        MulticlassVennAbersClassifier(rf, method="oob").fit(X, y)
    rf = RandomForestClassifier(n_estimators=5)
    with pytest.raises(ValueError, match="response_method"):
        MulticlassVennAbersClassifier(rf, method="oob", response_method="decision_function").fit(
            X, y
        )
