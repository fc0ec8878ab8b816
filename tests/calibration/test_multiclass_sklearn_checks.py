"""scikit-learn's estimator checks for MulticlassVennAbersCalibrator.

The calibrator takes one score column per class, so a check that fits it on a feature matrix
whose number of columns differs from its number of classes gets the one-line error that says
so. Those checks are listed with that reason, and what they would have checked (pickling,
dtypes, read-only input, returning self, pipelines) is checked on valid input below; every other
check must pass.
"""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from tests.calibration._score_matrix import XFAILS
from venncal.calibration.multiclass import MulticlassVennAbersCalibrator

ESTIMATORS = [
    MulticlassVennAbersCalibrator(),
    MulticlassVennAbersCalibrator(strategy="ovr"),
    MulticlassVennAbersCalibrator(strategy="ovr", pooled=False),
    MulticlassVennAbersCalibrator(strategy="pairwise"),
    MulticlassVennAbersCalibrator(strategy="pairwise", pooled=False),
    MulticlassVennAbersCalibrator(strategy="top-label"),
]


@parametrize_with_checks([clone(e) for e in ESTIMATORS], expected_failed_checks=lambda e: XFAILS)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(K=4, n=200, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, K)) * 2
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    y = (rng.random((n, 1)) > P.cumsum(axis=1)).sum(axis=1)
    y[:K] = np.arange(K)
    return Z, y


@pytest.mark.parametrize("est", ESTIMATORS, ids=repr)
def test_what_the_listed_checks_cover_on_valid_input(est):
    Z, y = _data()
    cal = clone(est)
    assert cal.fit(Z, y) is cal
    assert cal.n_features_in_ == 4
    ref = cal.predict_proba(Z)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(cal)).predict_proba(Z), ref)
    Z32 = Z.astype(np.float32)
    np.testing.assert_array_equal(
        clone(est).fit(Z32, y).predict_proba(Z32),
        clone(est).fit(Z32.astype(np.float64), y).predict_proba(Z32.astype(np.float64)),
    )
    ro = Z.copy()
    ro.flags.writeable = False
    np.testing.assert_array_equal(clone(est).fit(ro, y).predict_proba(ro), ref)
    pipe = make_pipeline(FunctionTransformer(), clone(est)).fit(Z, y)
    np.testing.assert_array_equal(pipe.predict_proba(Z), ref)
    assert est.get_params() == clone(est).get_params()  # parameters untouched by fit
    perm = np.random.default_rng(1).permutation(len(y))
    np.testing.assert_allclose(clone(est).fit(Z[perm], y[perm]).predict_proba(Z), ref, atol=1e-12)
