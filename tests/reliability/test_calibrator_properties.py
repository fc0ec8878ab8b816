"""Properties every score calibrator must have, on any calibration set.

Every calibrator exported by venncal (found through ``venncal.__all__``) is tried in each of its
settings: outputs are finite probabilities, intervals are ordered, monotone methods are monotone,
the order of the calibration rows does not matter, inputs are not modified, calls repeat
bit-identically, a prediction does not depend on the other rows of its batch, and rescaling the
scores by a power of two changes nothing.
"""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.reliability._settings import fewer
from tests.reliability._strategies import (
    CALIBRATORS,
    NONDECREASING,
    SIGMOID,
    TIE_POOL,
    VARIANTS,
    calibration_data,
    calibrator_params,
    extreme_scores,
    fit,
    outputs,
)
from venncal.core.quadratic import separated_by

# Methods whose answer comes from an iterative fit: compared with a tolerance.
ITERATIVE = {"PlattCalibrator", "ACPCalibrator", "BetaCalibrator", "QuadraticCalibrator"}
# beta calibration is a model on the probability (or log-odds) scale itself: its family of maps
# is not closed under rescaling the score, by definition (Kull et al. 2017)
SCALE_DEPENDENT = {"BetaCalibrator"}


def check_probabilities(out):
    proba = out["proba"]
    assert proba.ndim == 2 and proba.shape[1] == 2
    assert np.isfinite(proba).all(), proba
    assert ((proba >= 0) & (proba <= 1)).all(), proba
    assert np.all(np.abs(proba.sum(axis=1) - 1.0) <= 2**-52)
    if "interval" in out:
        iv = out["interval"]
        assert iv.shape == (proba.shape[0], 2)
        assert np.isfinite(iv).all(), iv
        assert ((iv >= 0) & (iv <= 1)).all(), iv
        assert (iv[:, 0] <= iv[:, 1]).all(), iv


def test_every_calibrator_has_variants():
    known = {
        "VennAbersCalibrator",
        "IsotonicCalibrator",
        "PlattCalibrator",
        "ACPCalibrator",
        "HistogramCalibrator",
        "BayesianBinningCalibrator",
    }
    assert known <= set(CALIBRATORS)
    missing = set(CALIBRATORS) - set(VARIANTS)
    assert not missing, f"add the settings of {sorted(missing)} to VARIANTS in _strategies.py"


@pytest.mark.parametrize("name, params", calibrator_params())
@fewer(2)
@given(data=calibration_data())
def test_outputs_are_probabilities_per_row_repeatable_and_inputs_untouched(name, params, data):
    """Finite probabilities in [0, 1] (ordered intervals); labels from ``classes_``; inputs not
    modified; repeated calls and a refit bit-identical; a row predicted alone gets exactly what
    it gets inside the batch."""
    s, y, w, t = data
    copies = [a.copy() for a in (s, y, t)] + [None if w is None else w.copy()]
    cal = fit(name, params, s, y, w)
    first = outputs(cal, t)
    check_probabilities(first)
    assert set(np.unique(cal.predict(t))) <= set(cal.classes_)
    again = outputs(cal, t)
    refit = outputs(fit(name, params, s, y, w), t)
    for a, b in zip((s, y, t, w), copies):
        if a is None:
            continue
        assert a.dtype == b.dtype and np.array_equal(a, b), "an input was modified"
    for key in first:
        assert first[key].tobytes() == again[key].tobytes(), key
        assert first[key].tobytes() == refit[key].tobytes(), key
    for k in range(t.shape[0]):
        alone = outputs(cal, t[k : k + 1])
        for key in first:
            assert first[key][k].tobytes() == alone[key][0].tobytes(), (key, k)


@pytest.mark.parametrize("name, params", calibrator_params(NONDECREASING | SIGMOID))
@fewer(2)
@given(data=calibration_data())
def test_monotone_in_the_score(name, params, data):
    s, y, w, t = data
    cal = fit(name, params, s, y, w)
    t = np.sort(np.r_[t, s, s.min() - 1.0, s.max() + 1.0])
    p = cal.predict_proba(t)[:, 1]
    direction = 1.0
    if name in SIGMOID:
        direction = -np.sign(cal.a_) if cal.a_ != 0 else 0.0
        if direction == 0.0:
            assert (p == p[0]).all()
            return
    assert (direction * np.diff(p) >= 0).all(), (t, p)
    if hasattr(cal, "predict_interval"):
        iv = cal.predict_interval(t)
        assert (np.diff(iv[:, 0]) >= 0).all(), (t, iv)
        assert (np.diff(iv[:, 1]) >= 0).all(), (t, iv)


@pytest.mark.parametrize("name, params", calibrator_params())
@fewer(4)
@given(data=calibration_data(), seed=st.integers(0, 2**32 - 1))
def test_order_of_calibration_rows_does_not_matter(name, params, data, seed):
    s, y, w, t = data
    if name == "QuadraticCalibrator":  # no finite fit where a quadratic separates the classes
        keep = np.ones(s.shape[0], bool) if w is None else w > 0
        assume(not separated_by(s[keep], y[keep], "quadratic"))
    perm = np.random.default_rng(seed).permutation(s.shape[0])
    a = outputs(fit(name, params, s, y, w), t)
    b = outputs(fit(name, params, s[perm], y[perm], None if w is None else w[perm]), t)
    rtol = 1e-7 if name in ITERATIVE else 1e-12
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=rtol, atol=rtol, err_msg=key)


# exactly representable scores, far from the subnormal range even after scaling by 2**-40
_scalable = {
    "ties": st.sampled_from(TIE_POOL),
    "grid": st.integers(-(10**6), 10**6).map(lambda i: i / 1024.0),
}


@pytest.mark.parametrize(
    "name, params", calibrator_params(names=set(CALIBRATORS) - SCALE_DEPENDENT)
)
@fewer(4)
@given(data=calibration_data(score_kinds=_scalable), k=st.integers(-40, 40))
def test_rescaling_the_scores_by_a_power_of_two(name, params, data, k):
    """Every method is invariant to a positive rescaling of the score axis (ranks, bin
    positions, the sigmoid's fit and the self-built intervals all follow the scale): fitting on
    ``2**k s`` and predicting at ``2**k t`` is fitting on ``s`` and predicting at ``t``. Catches
    near-constant fits on tiny scores."""
    s, y, w, t = data
    c = 2.0**k
    a = outputs(fit(name, params, s, y, w), t)
    b = outputs(fit(name, params, s * c, y, w), t * c)
    tol = 1e-4 if name in ITERATIVE else 1e-12
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=0, atol=tol, err_msg=key)


RANK_BASED = {"IsotonicCalibrator", "VennAbersCalibrator"}


@pytest.mark.parametrize("name, params", calibrator_params())
@fewer(4)
@given(data=calibration_data(score_kinds=extreme_scores))
def test_extreme_scores_give_probabilities_or_a_clear_error(name, params, data):
    """Scores spanning the whole float range, subnormal or near the overflow threshold: finite
    probabilities in [0, 1], or (for the methods that do arithmetic on scores) a one-line
    ValueError. Rank-based methods (isotonic, Venn-Abers) have no excuse to refuse."""
    s, y, w, t = data
    try:
        cal = fit(name, params, s, y, w)
        out = outputs(cal, t)
    except ValueError as exc:
        if name in RANK_BASED:
            raise
        assert "\n" not in str(exc)
        return
    check_probabilities(out)
