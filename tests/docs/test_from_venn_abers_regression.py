"""The claims of the venn-abers section of docs/user_guide/regression.md.

They run only where the venn-abers package is installed (the ``bench`` extra).
"""

import warnings

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsRegressor

import venncal

_ERRSTATE = np.geterr()  # importing venn_abers changes numpy's error settings

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning:venn_abers.venn_abers")


@pytest.fixture
def va():
    pytest.importorskip("venn_abers")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from venn_abers import venn_abers as module
    yield module
    np.seterr(**_ERRSTATE)


def _data():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, 600)
    y = np.sin(2 * x) + x + rng.normal(size=600) * (0.2 + 0.3 * np.abs(x))
    return x.reshape(-1, 1), y


@pytest.mark.parametrize("inductive", [True, False])
def test_same_split_and_folds_give_the_same_regressors(va, inductive):
    X, y = _data()
    kwargs = {"cal_size": 0.3, "random_state": 1}
    theirs = va.VennAbersRegressor(
        KNeighborsRegressor(20), inductive=inductive, n_splits=None if inductive else 3, **kwargs
    ).fit(X, y)
    method = "inductive" if inductive else "cross"
    ours = venncal.VennAbersRegressor(
        KNeighborsRegressor(20), method=method, n_splits=3, **kwargs
    ).fit(X, y)
    their_models = theirs.va_calibrator_.estimators_[1:]  # [0] is refitted on all rows
    assert len(their_models) == len(ours.estimators_)
    for a, b in zip(their_models, ours.estimators_, strict=True):
        np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_their_interval_is_about_the_mean_and_ours_about_y(va):
    X, y = _data()
    theirs = va.VennAbersRegressor(KNeighborsRegressor(20), cal_size=0.3, random_state=1)
    _, interval = theirs.fit(X[:400], y[:400]).predict(X[400:])
    ours = venncal.VennAbersRegressor(KNeighborsRegressor(20), cal_size=0.3, random_state=1)
    lo, hi = ours.fit(X[:400], y[:400]).predict_interval(X[400:]).T
    covered = np.mean((lo <= y[400:]) & (y[400:] <= hi))
    assert 0.8 <= covered <= 0.99  # 200 test values, 120 calibration rows
    assert np.mean(interval[:, 1] - interval[:, 0]) < 0.5 * np.mean(hi - lo)
