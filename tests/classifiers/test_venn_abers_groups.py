"""VennAbersClassifier within groups: the calibration of each group is the score-level
calibrator fitted on that group's calibration scores."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from venncal import VennAbersCalibrator, VennAbersClassifier
from venncal.classifiers._response import positive_scores


def _data(seed, n=600):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    g = rng.choice(["north", "south", "east"], size=n)
    logit = X @ [1.5, -1.0, 0.5] + 1.2 * (g == "south")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y, g


def test_frozen_model_calibrates_each_group_on_its_own_rows():
    X, y, g = _data(0)
    model = LogisticRegression().fit(X[:300], y[:300])
    clf = VennAbersClassifier(FrozenEstimator(model)).fit(
        X[300:], y[300:], calibration_groups=g[300:]
    )
    Xt, _, gt = _data(1, 200)
    scores_cal = positive_scores(model, X[300:], "decision_function")
    ref = VennAbersCalibrator().fit(scores_cal, y[300:], groups=g[300:])
    expected = ref.predict_interval(positive_scores(model, Xt, "decision_function"), groups=gt)
    np.testing.assert_array_equal(clf.predict_interval(Xt, calibration_groups=gt), expected)
    p = clf.predict_proba(Xt, calibration_groups=gt)[:, 1]
    np.testing.assert_allclose(p, expected[:, 1] / (1 - expected[:, 0] + expected[:, 1]))
    # each group differs from the pooled calibration, and the estimator's own `groups` fit
    # parameter is not taken for calibration groups
    pooled = VennAbersClassifier(FrozenEstimator(model)).fit(X[300:], y[300:])
    assert not np.allclose(pooled.predict_interval(Xt), expected)


@pytest.mark.parametrize("method", ["inductive", "simplified", "cross"])
def test_methods_take_groups_and_need_them_at_prediction(method):
    X, y, g = _data(2)
    clf = VennAbersClassifier(LogisticRegression(), method=method, random_state=0)
    clf.fit(X, y, calibration_groups=g)
    Xt, _, gt = _data(3, 50)
    iv = clf.predict_interval(Xt, calibration_groups=gt)
    assert iv.shape == (50, 2) and (iv[:, 0] <= iv[:, 1] + 1e-12).all()
    assert clf.predict(Xt, calibration_groups=gt).shape == (50,)
    with pytest.raises(ValueError, match="fitted within groups: pass calibration_groups="):
        clf.predict_proba(Xt)
    plain = clone(clf).fit(X, y)
    with pytest.raises(ValueError, match="fitted without groups"):
        plain.predict_proba(Xt, calibration_groups=gt)


@pytest.mark.parametrize("method", ["full", "oob"])
def test_methods_without_groups_say_so(method):
    X, y, g = _data(4, 60)
    with pytest.raises(ValueError, match="calibration_groups= works with method"):
        VennAbersClassifier(LogisticRegression(), method=method).fit(X, y, calibration_groups=g)


def test_unknown_group_and_fallback():
    X, y, g = _data(5)
    clf = VennAbersClassifier(LogisticRegression(), random_state=0).fit(X, y, calibration_groups=g)
    with pytest.raises(ValueError, match=r"groups \['west'\] were not seen at fit"):
        clf.predict_proba(X[:2], calibration_groups=["west", "north"])
    soft = VennAbersClassifier(LogisticRegression(), random_state=0, group_fallback="pooled")
    soft.fit(X, y, calibration_groups=g)
    with pytest.warns(UserWarning, match="were not seen at fit"):
        soft.predict_proba(X[:2], calibration_groups=["west", "north"])
    with pytest.raises(ValueError, match="group_fallback"):
        VennAbersClassifier(LogisticRegression(), group_fallback="x").fit(
            X, y, calibration_groups=g
        )


@pytest.mark.parametrize("method", ["inductive", "cross", "simplified", "full", "oob"])
@pytest.mark.parametrize("bad", ["x", "Pooled", None, 1])
def test_group_fallback_is_checked_without_groups(method, bad):
    """A bad group_fallback is refused at every fit, not only when groups are given."""
    X, y, _ = _data(6, 60)
    clf = VennAbersClassifier(LogisticRegression(), method=method, group_fallback=bad)
    with pytest.raises(ValueError, match="'group_fallback' parameter of VennAbersClassifier") as e:
        clf.fit(X, y)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("method", ["inductive", "simplified", "cross"])
def test_length_error_counts_rows_at_fit_and_objects_at_prediction(method):
    X, y, g = _data(7, 200)
    clf = VennAbersClassifier(LogisticRegression(), method=method, random_state=0)
    with pytest.raises(ValueError) as info:
        clf.fit(X, y, calibration_groups=g[:199])
    assert str(info.value) == "'calibration_groups' has 199 labels for 200 rows; they must match."
    clf.fit(X, y, calibration_groups=g)
    for predict in (clf.predict_interval, clf.predict_proba, clf.predict_log_proba, clf.predict):
        with pytest.raises(ValueError) as info:
            predict(X[:5], calibration_groups=g[:4])
        assert str(info.value) == (
            "'calibration_groups' has 4 labels for 5 objects; they must match."
        )


@pytest.mark.parametrize("method", ["inductive", "simplified", "cross"])
@pytest.mark.parametrize("predict", ["predict_interval", "predict_proba", "predict"])
def test_unknown_group_is_said_once_for_all_folds_at_the_users_call(method, predict):
    import warnings

    from venncal.exceptions import VenncalWarning

    X, y, g = _data(7)
    clf = VennAbersClassifier(
        LogisticRegression(), method=method, n_splits=4, random_state=0, group_fallback="pooled"
    ).fit(X, y, calibration_groups=g)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(clf, predict)(X[:3], calibration_groups=["west", "north", "up"])
    unseen = [w for w in caught if "were not seen at fit" in str(w.message)]
    assert len(unseen) == 1, [str(w.message) for w in caught]
    assert unseen[0].category is VenncalWarning
    assert str(unseen[0].message).startswith("VennAbersClassifier: groups ['up', 'west']")
    assert unseen[0].filename == __file__
    strict = clone(clf).set_params(group_fallback="error").fit(X, y, calibration_groups=g)
    with pytest.raises(ValueError, match=r"^VennAbersClassifier: groups \['up'\] were not seen"):
        getattr(strict, predict)(X[:2], calibration_groups=["north", "up"])


def test_calibrator_warning_for_an_unknown_group_points_at_the_call():
    import warnings

    rng = np.random.default_rng(0)
    s = rng.random(200)
    y = (rng.random(200) < s).astype(int)
    cal = VennAbersCalibrator(group_fallback="pooled").fit(s, y, groups=np.repeat([0, 1], 100))
    for method in ("predict_interval", "predict_proba", "predict"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(cal, method)(s[:3], groups=[0, 2, 1])
        assert [w.filename for w in caught] == [__file__], method
