"""VennAbersCalibrator and IsotonicCalibrator as estimators on scores."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.isotonic import IsotonicRegression

from tests._reference.venn_abers_naive import venn_abers_naive
from venncal import IsotonicCalibrator, VennAbersCalibrator
from venncal.core.merge import merge_log, merge_square


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    return s, y


def test_interval_and_proba_follow_definition():
    s, y = _data()
    t = np.linspace(-3, 3, 41)
    cal = VennAbersCalibrator().fit(s[:40], y[:40])
    q0, q1 = venn_abers_naive(s[:40], y[:40], t)
    interval = cal.predict_interval(t)
    np.testing.assert_allclose(interval, np.column_stack([q0, q1]), atol=1e-12)
    np.testing.assert_allclose(cal.predict_proba(t)[:, 1], merge_log(q0, q1), atol=1e-12)
    sq = VennAbersCalibrator(merge="square").fit(s[:40], y[:40])
    np.testing.assert_allclose(sq.predict_proba(t)[:, 1], merge_square(q0, q1), atol=1e-12)
    assert set(cal.predict(t)) <= {0, 1}


def test_accepts_column_dataframe_and_series():
    s, y = _data()
    a = VennAbersCalibrator().fit(s, y).predict_interval(s)
    b = (
        VennAbersCalibrator()
        .fit(pd.DataFrame({"score": s}), pd.Series(y))
        .predict_interval(s.reshape(-1, 1))
    )
    np.testing.assert_array_equal(a, b)


def test_string_labels_and_relabelling():
    s, y = _data()
    lab = np.where(y == 1, "pos", "neg")
    cal = VennAbersCalibrator().fit(s, lab)
    assert list(cal.classes_) == ["neg", "pos"]
    np.testing.assert_array_equal(
        cal.predict_proba(s), VennAbersCalibrator().fit(s, y).predict_proba(s)
    )
    # swapping the labels and negating the scores mirrors the interval
    mirror = VennAbersCalibrator().fit(-s, 1 - y).predict_interval(-s)
    np.testing.assert_allclose(mirror[:, ::-1], 1 - cal.predict_interval(s), atol=1e-12)


def test_clone_pickle_refit():
    s, y = _data()
    cal = VennAbersCalibrator().fit(s, y)
    again = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(again.predict_interval(s), cal.predict_interval(s))
    assert not hasattr(clone(cal), "tables_")
    s2, y2 = _data(1)
    refit = cal.fit(s2, y2).predict_interval(s)
    np.testing.assert_array_equal(refit, VennAbersCalibrator().fit(s2, y2).predict_interval(s))


def test_isotonic_calibrator_matches_sklearn_and_dir():
    s, y = _data()
    t = np.linspace(-4, 4, 101)
    ours = IsotonicCalibrator().fit(s, y).predict_proba(t)[:, 1]
    theirs = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(t)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    dir_ = IsotonicCalibrator(rule="nearest").fit(s, y).predict_proba(s)[:, 1]
    np.testing.assert_allclose(dir_, IsotonicRegression().fit(s, y).predict(s), atol=1e-12)


@pytest.mark.parametrize("Cal", [VennAbersCalibrator, IsotonicCalibrator])
def test_bad_input(Cal):
    s, y = _data()
    with pytest.raises(ValueError, match="NaN"):
        Cal().fit(np.r_[s[:-1], np.nan], y)
    with pytest.raises(ValueError, match="infinite"):
        Cal().fit(np.r_[s[:-1], np.inf], y)
    with pytest.raises(ValueError, match="one class only"):
        Cal().fit(s, np.ones_like(y))
    with pytest.raises(ValueError, match="Only binary"):
        Cal().fit(s, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="empty"):
        Cal().fit([], [])
    with pytest.raises(ValueError, match="Inconsistent lengths"):
        Cal().fit(s, y[:-1])
    with pytest.raises(ValueError, match="one column"):
        Cal().fit(np.column_stack([s, s]), y)
    with pytest.raises(ValueError, match="non-negative"):
        Cal().fit(s, y, sample_weight=-np.ones_like(s))
    with pytest.raises(ValueError, match="NaN"):
        Cal().fit(s, y, sample_weight=np.full_like(s, np.nan))
    with pytest.raises(NotFittedError):
        Cal().predict_proba(s)
    fitted = Cal().fit(s, y)
    with pytest.raises(ValueError, match="NaN"):
        fitted.predict_proba([np.nan])
    with pytest.raises(ValueError, match="must be one of"):
        Cal(**{"merge" if Cal is VennAbersCalibrator else "rule": "bad"}).fit(s, y)


def test_no_global_numpy_state_changed_and_nothing_printed(capsys):
    before = np.geterr()
    s, y = _data()
    VennAbersCalibrator().fit(s, y).predict_proba(s)
    assert np.geterr() == before
    assert capsys.readouterr() == ("", "")
