"""``pos_label``: which label the scores point to, for every score calibrator.

With string labels sorted the other way round (scores of P(benign), labels benign and
malignant), the larger label is positive by default and the scores rank it below the other: a
warning says so. ``pos_label="benign"`` fits the calibrator of the scores' own class;
``classes_`` stays sorted and the columns of ``predict_proba`` follow it.
"""

import warnings

import numpy as np
import pytest

import venncal
from tests.reliability._strategies import CALIBRATORS, VARIANTS
from venncal.exceptions import VenncalWarning

PARAMS = [pytest.param(n, VARIANTS.get(n, [{}])[0], id=n) for n in sorted(CALIBRATORS)]


def benign_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    s = np.clip(rng.random(n), 0.01, 0.99)  # P(benign)
    y = np.where(rng.random(n) < s, "benign", "malignant")
    return s, y


def fit_quiet(name, params, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VenncalWarning)
        return CALIBRATORS[name](**params).fit(*args, **kwargs)


@pytest.mark.parametrize("name, params", PARAMS)
def test_pos_label_is_the_fit_of_the_scores_own_class(name, params):
    s, y = benign_data()
    t = np.linspace(0.02, 0.98, 25)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VenncalWarning)  # the scores point to benign: no warning
        cal = CALIBRATORS[name](**params).fit(s, y, pos_label="benign")
    assert list(cal.classes_) == ["benign", "malignant"] and cal.pos_label_ == "benign"
    ref = fit_quiet(name, params, s, (y == "benign").astype(int))
    p = cal.predict_proba(t)
    np.testing.assert_array_equal(p[:, 0], ref.predict_proba(t)[:, 1])  # columns as classes_
    np.testing.assert_array_equal(p[:, 1], ref.predict_proba(t)[:, 0])
    # the more probable class, classes_[0] on a tie
    np.testing.assert_array_equal(cal.predict(t), np.where(p[:, 1] > 0.5, "malignant", "benign"))
    if hasattr(cal, "predict_interval"):
        np.testing.assert_array_equal(cal.predict_interval(t), ref.predict_interval(t))


@pytest.mark.parametrize("name, params", PARAMS)
def test_scores_ranking_the_positive_class_below_warn(name, params):
    s, y = benign_data(seed=1)
    with pytest.warns(VenncalWarning, match=r"rank the positive class 'malignant' below 'benign'"):
        CALIBRATORS[name](**params).fit(s, y)


def test_the_default_keeps_the_larger_label_positive():
    s, y = benign_data(seed=2)
    y01 = (y == "malignant").astype(int)
    a = fit_quiet("VennAbersCalibrator", {}, s, y)
    b = fit_quiet("VennAbersCalibrator", {}, s, y01)
    assert a.pos_label_ == "malignant"
    np.testing.assert_array_equal(a.predict_proba(s), b.predict_proba(s))


def test_pos_label_not_among_the_labels_is_one_line():
    s, y = benign_data()
    with pytest.raises(ValueError, match=r"^'pos_label' of PlattCalibrator.fit must be one of"):
        venncal.PlattCalibrator().fit(s, y, pos_label="cancer")


def test_pos_label_survives_a_model_file_and_partial_fit(tmp_path):
    s, y = benign_data(seed=3)
    cal = venncal.VennAbersCalibrator().fit(s[:300], y[:300], pos_label="benign")
    venncal.save(cal, tmp_path / "m.json", with_data=True)
    loaded = venncal.load(tmp_path / "m.json")
    assert loaded.pos_label_ == "benign"
    np.testing.assert_array_equal(loaded.predict_proba(s), cal.predict_proba(s))
    loaded.partial_fit(s[300:], y[300:])
    whole = venncal.VennAbersCalibrator().fit(s, y, pos_label="benign")
    np.testing.assert_array_equal(loaded.predict_proba(s), whole.predict_proba(s))


def test_fit_aggregate_takes_pos_label():
    s, y = benign_data(seed=4)
    counts = np.ones(s.size)
    a = venncal.IsotonicCalibrator().fit_aggregate(s, y, counts, pos_label="benign")
    b = venncal.IsotonicCalibrator().fit(s, y, pos_label="benign")
    np.testing.assert_array_equal(a.predict_proba(s), b.predict_proba(s))
