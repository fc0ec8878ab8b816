"""The row-sum rule of K-class probabilities: one answer for the same values, whatever the
memory layout of the matrix, and numpy's C-order sum (what the SQL and ONNX exports add)."""

import numpy as np
import pytest

from venncal.calibration import TemperatureCalibrator
from venncal.core.class_scores import SUM_TOLERANCE_PER_CLASS, rows_off_one


def _boundary_rows(K, n=20_000, seed=0):
    """Rows whose sums miss one by the tolerance, to the ulp."""
    rng = np.random.default_rng(seed)
    tol = SUM_TOLERANCE_PER_CLASS * K
    R = rng.dirichlet(np.ones(K), n) * np.where(np.arange(n) % 2, 1 + tol, 1 - tol)[:, None]
    return np.where(rng.random((n, 1)) < 0.5, np.nextafter(R, np.inf), R)


def _c_order_rule(R, K):
    """The rule written plainly: each row's sum in numpy's order for one C-contiguous row."""
    tol = SUM_TOLERANCE_PER_CLASS * K
    sums = np.array([np.ascontiguousarray(r).sum() for r in R])
    return np.flatnonzero(~(np.abs(sums - 1.0) <= tol))


@pytest.mark.parametrize("K", [3, 12, 40])
def test_the_layout_of_the_matrix_changes_nothing(K):
    R = _boundary_rows(K)
    want = _c_order_rule(R, K)
    assert 0 < want.size < R.shape[0]
    for layout in (np.ascontiguousarray(R), np.asfortranarray(R), np.hstack([R, R])[:, :K]):
        np.testing.assert_array_equal(rows_off_one(layout), want)


def test_predict_proba_refuses_the_same_rows_in_either_layout():
    K = 12
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(K), 400)
    y = (P.cumsum(axis=1) > rng.random((400, 1))).argmax(axis=1)
    cal = TemperatureCalibrator(score_type="probabilities").fit(P, y)
    R = _boundary_rows(K, n=400)
    bad = set(_c_order_rule(R, K).tolist())
    for layout in (np.ascontiguousarray(R), np.asfortranarray(R)):
        for i in range(0, 400, 7):
            row = layout[i : i + 1]
            if i in bad:
                with pytest.raises(ValueError, match="sums to"):
                    cal.predict_proba(row)
            else:
                assert np.isfinite(cal.predict_proba(row)).all()
