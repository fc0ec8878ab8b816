"""Venn-Abers and isotonic regression equal their definitions, weights included.

The reference is ``tests/_reference/exact_isotonic.py``: PAVA in exact rational arithmetic, so it
holds at any magnitude of scores and weights. Venn-Abers is the isotonic fit with the test object
added at weight 1 and the calibration examples weighted as they are; it is therefore *not*
invariant to rescaling the weights, and is checked against the definition at large weights
instead.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._reference import exact_isotonic as exact
from tests._reference.platt_mle import platt_mle
from tests.reliability._settings import PROPERTY, fewer
from tests.reliability._strategies import calibration_data, extreme_scores, moderate_scores
from venncal import IsotonicCalibrator, PlattCalibrator, VennAbersCalibrator
from venncal.core.merge import MERGES, merge

ATOL = 1e-9

all_scores = {**moderate_scores, **extreme_scores}

large_weights = st.one_of(
    st.sampled_from([2.0**31 - 1, 1e16, 2.4e15, 2.0**53, 2.0**53 + 2, 1e300, 1.0, 0.5]),
    st.floats(1e10, 1e300, allow_nan=False),
    st.integers(1, 2**63).map(float),
)


def as_float(values):
    return np.array([float(v) for v in values])


def check_venn_abers(s, y, w, t):
    cal = VennAbersCalibrator().fit(s, y, sample_weight=w)
    iv = cal.predict_interval(t)
    p0, p1 = exact.venn_abers(s, y, t, w)
    np.testing.assert_allclose(iv[:, 0], as_float(p0), rtol=0, atol=ATOL, err_msg="p0")
    np.testing.assert_allclose(iv[:, 1], as_float(p1), rtol=0, atol=ATOL, err_msg="p1")
    return cal, iv


@PROPERTY
@given(data=calibration_data(score_kinds=all_scores))
def test_venn_abers_equals_two_isotonic_fits(data):
    s, y, w, t = data
    _, iv = check_venn_abers(s, y, w, t)
    # documented (ivap_fit): neither end reaches the far end of [0, 1]; the test object's own
    # label keeps p1 above 0 and p0 below 1 (representable at these moderate weights)
    assert (iv[:, 1] > 0).all() and (iv[:, 0] < 1).all(), iv


@PROPERTY
@given(data=calibration_data(weighted=True, weights=large_weights, max_n=12))
def test_venn_abers_equals_definition_at_large_weights(data):
    """Or refuses the weights with a one-line ValueError; never a silently different answer."""
    s, y, w, t = data
    try:
        check_venn_abers(s, y, w, t)
    except ValueError as exc:
        assert "\n" not in str(exc) and "weight" in str(exc)


@pytest.mark.parametrize(
    "s, y, w, t",
    [
        # four rows of weight 2**31 - 1
        ([0.0, 1.0, 2.0, 3.0], [0, 1, 0, 1], [2**31 - 1] * 4, [1.5, 0.5, 2.0, 4.0]),
        ([0.0, 1.0, 2.0, 3.0], [1, 1, 0, 0], [2**31 - 1] * 4, [-1.0, 0.5, 1.5, 2.0, 4.0]),
        # equal float weights of 1e16
        ([0.0, 1.0, 2.0, 3.0], [0, 1, 0, 1], [1e16] * 4, [-1.0, 1.5, 3.0, 4.0]),
        ([0.0, 1.0], [1, 0], [1e16] * 2, [-1.0, 0.0, 0.5, 1.0, 2.0]),
        # weights 2.4e15 on tied scores
        ([1.0, 1.0, 1.0, 1.0], [0, 1, 0, 1], [2.4e15] * 4, [0.0, 1.0, 2.0]),
        ([1.0, 1.0, 2.0, 2.0], [1, 0, 1, 0], [2.4e15] * 4, [0.0, 1.0, 1.5, 2.0, 3.0]),
    ],
)
def test_venn_abers_equals_definition_at_given_large_weights(s, y, w, t):
    s, y, w, t = (np.asarray(a) for a in (s, y, w, t))
    check_venn_abers(s, y.astype(int), w.astype(float), t.astype(float))


@fewer(2)
@given(data=calibration_data(), method=st.sampled_from(MERGES))
def test_venn_abers_probability_is_the_documented_merge_of_the_interval(data, method):
    s, y, w, t = data
    cal = VennAbersCalibrator(merge=method).fit(s, y, sample_weight=w)
    iv = cal.predict_interval(t)
    p = cal.predict_proba(t)[:, 1]
    assert p.tobytes() == merge(iv[:, 0], iv[:, 1], method).tobytes()
    assert ((iv[:, 0] <= p) & (p <= iv[:, 1])).all()


@PROPERTY
@given(
    data=calibration_data(score_kinds=all_scores), rule=st.sampled_from(["interpolate", "nearest"])
)
def test_isotonic_equals_exact_pava_and_its_rule(data, rule):
    s, y, w, t = data
    cal = IsotonicCalibrator(rule=rule).fit(s, y, sample_weight=w)
    xs, fitted = exact.isotonic_fit(s, y, w)
    # the table keeps the ends of each constant block: a subset of the distinct scores
    kept = np.searchsorted(as_float(xs), cal.step_function_.x)
    np.testing.assert_array_equal(cal.step_function_.x, as_float(xs)[kept])
    np.testing.assert_allclose(cal.step_function_.y, as_float(fitted)[kept], rtol=1e-12, atol=0)
    want = as_float(exact.isotonic_predict(xs, fitted, ti, rule) for ti in t)
    np.testing.assert_allclose(cal.predict_proba(t)[:, 1], want, rtol=0, atol=ATOL)


def test_isotonic_with_subnormal_score_gaps():
    """scikit-learn's ``test_isotonic_non_regression_inf_slope``: gaps between subnormal
    calibration scores must not turn interpolation into infinities."""
    s = np.array([0.0, 4.1e-320, 4.4e-314, 1.0])
    y = np.array([0, 0, 1, 1])
    t = np.array([2.1e-319, 1e-320, 4.4e-314, 0.5])
    cal = IsotonicCalibrator().fit(s, y)
    xs, fitted = exact.isotonic_fit(s, y)
    want = as_float(exact.isotonic_predict(xs, fitted, ti) for ti in t)
    np.testing.assert_allclose(cal.predict_proba(t)[:, 1], want, rtol=0, atol=ATOL)


# Cases found by the "thorough" profile, where float geometry rounded the ends of the interval
# past 0 or 1 (the definition gives exactly 0 or 1 there).
ROUNDED_PAST_THE_ENDS = [
    pytest.param(
        [0.0, 2.0, 1.0, 0.0], [0, 1, 1, 1], [9.001, 4.001, 7.001, 7.001], [2.0, 5.0], id="p1>1"
    ),
    pytest.param(
        [-3.0, -0.5, -0.5, -1.0, -3.0, -3.0, -3.0, -0.5, -3.0, -1.0, -3.0, -3.0]
        + [-3.0, -0.5, -3.0, -3.0, -3.0, -3.0, -3.0, -3.0, -3.0, -3.0, -3.0, -3.0],
        [0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [380.0, 1.001, 253.55727628115233, 390.0, 1.0, 1.0, 1.0, 79.0, 0.0, 834.1493844728709]
        + [0.0, 2.0, 0.0, 1.6065801298266251, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 352.5, 0.0],
        [-3.0],
        id="p0<0",
    ),
]


@pytest.mark.parametrize("s, y, w, t", ROUNDED_PAST_THE_ENDS)
def test_weighted_venn_abers_never_rounds_past_0_or_1(s, y, w, t):
    s, w, t = (np.asarray(a, dtype=float) for a in (s, w, t))
    _, iv = check_venn_abers(s, np.asarray(y), w, t)
    assert ((iv >= 0) & (iv <= 1)).all(), iv.tolist()


def check_platt(s, y, w, t):
    cal = PlattCalibrator().fit(s, y, sample_weight=w)
    want = platt_mle(s, y, w)(t)
    np.testing.assert_allclose(cal.predict_proba(t)[:, 1], want, rtol=0, atol=1e-4)


@fewer(2)
@given(data=calibration_data())
def test_platt_is_the_minimiser_of_its_objective(data):
    """Platt's smoothed targets make the objective strictly convex: one minimiser, which a
    general-purpose optimiser finds to a tight tolerance (``tests/_reference/platt_mle.py``)."""
    s, y, w, t = data
    check_platt(s, y, w, t)


def test_platt_converges_with_very_unequal_weights():
    check_platt(
        np.array([-3.0, -3.0, -1.0]),
        np.array([0, 1, 0]),
        np.array([1 / 128, 1 / 128, 186.0]),
        [-3.0],
    )
