"""Fits from aggregated rows equal fits on the expanded rows, bit for bit.

Venn-Abers, isotonic regression, histogram binning and Bayesian binning depend on the
calibration data only through the counts of negatives and positives at each distinct score.
One row per distinct score and label with its count (as ``fit_aggregate`` counts, and as
``sample_weight`` where weights are counts) must give the same predictions to the last bit, on
test scores that include the calibration scores themselves, ties and points between them. The
expanded fits are also checked against the core functions run on the rows directly.
"""

import numpy as np
import pytest

from venncal.calibration import (
    BayesianBinningCalibrator,
    HistogramCalibrator,
    IsotonicCalibrator,
    VennAbersCalibrator,
)
from venncal.core.bayesian_binning import fit_bayesian_binning
from venncal.core.histogram import fit_histogram
from venncal.core.isotonic import fit_isotonic
from venncal.core.venn_abers import ivap_fit

CALIBRATORS = [
    VennAbersCalibrator(),
    IsotonicCalibrator(),
    IsotonicCalibrator(rule="nearest"),
    HistogramCalibrator(),
    HistogramCalibrator(n_bins=7, strategy="quantile"),
    HistogramCalibrator(n_bins=4, alpha=1.0),
    BayesianBinningCalibrator(lam=3.0),
    BayesianBinningCalibrator(method="selection"),
    BayesianBinningCalibrator(averaging="paper", max_positions=12),
]


def data(seed, n=None):
    """Scores with many ties (a few dozen distinct values), labels of both classes."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(5, 400))
    levels = int(rng.integers(2, 40))
    s = rng.integers(0, levels, n) / rng.choice([1.0, 3.0, 7.0]) + rng.choice([0.0, -5.0, 1e6])
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(s - s.mean())))).astype(int)
    y[:2] = [0, 1]
    return s, y


def aggregate(s, y, rng, split=False):
    """One row per distinct (score, label) with its count, in random order; ``split`` cuts
    some counts into several rows."""
    keys, counts = np.unique(np.c_[s, y], axis=0, return_counts=True)
    us, uy, uc = keys[:, 0], keys[:, 1].astype(int), counts.astype(float)
    if split:
        cut = (uc > 1) & (rng.random(uc.size) < 0.5)
        part = np.floor(uc[cut] / 2)
        us, uy, uc = np.r_[us, us[cut]], np.r_[uy, uy[cut]], np.r_[uc, part]
        uc[: cut.size][cut] -= part
    order = rng.permutation(us.size)
    return us[order], uy[order], uc[order]


def probe_scores(s, rng):
    u = np.unique(s)
    mids = (u[1:] + u[:-1]) / 2 if u.size > 1 else u
    return np.r_[s, u, mids, u - 1e-9, u + 1e-9, rng.normal(s.mean(), s.std() + 1, 50)]


def outputs(cal, t):
    out = {"proba": cal.predict_proba(t)}
    if isinstance(cal, VennAbersCalibrator):
        out["interval"] = cal.predict_interval(t)
    return out


def assert_identical(a, b):
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key, strict=True)


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
@pytest.mark.parametrize("seed", range(12))
def test_aggregated_rows_give_the_expanded_fit_bit_for_bit(cal, seed):
    s, y = data(seed)
    rng = np.random.default_rng(1000 + seed)
    t = probe_scores(s, rng)
    expanded = outputs(cal.__class__(**cal.get_params()).fit(s, y), t)
    for split in (False, True):
        us, uy, uc = aggregate(s, y, rng, split=split)
        agg = cal.__class__(**cal.get_params()).fit_aggregate(us, uy, uc)
        assert_identical(expanded, outputs(agg, t))
        # a weight of k is k copies, for every count calibrator
        weighted = cal.__class__(**cal.get_params()).fit(us, uy, sample_weight=uc)
        assert_identical(expanded, outputs(weighted, t))


def core_fit(cal, s, y):
    """The core function on the rows directly (no aggregation), as a predict function."""
    if isinstance(cal, VennAbersCalibrator):
        tables = ivap_fit(s, y)
        return lambda t: np.column_stack(tables.predict(t))
    if isinstance(cal, IsotonicCalibrator):
        step = fit_isotonic(s, y)
        return lambda t: step.predict(t, rule=cal.rule)
    if isinstance(cal, HistogramCalibrator):
        binning = fit_histogram(s, y, n_bins=cal.n_bins, strategy=cal.strategy, alpha=cal.alpha)
        return binning.predict
    params = {k: getattr(cal, k) for k in ("method", "lam", "max_positions", "averaging")}
    return fit_bayesian_binning(s, y, **params).predict


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
@pytest.mark.parametrize("seed", range(6))
def test_the_fit_through_counts_equals_the_core_fit_on_rows(cal, seed):
    s, y = data(seed)
    t = probe_scores(s, np.random.default_rng(seed))
    fitted = cal.__class__(**cal.get_params()).fit(s, y)
    got = fitted.predict_interval(t) if isinstance(cal, VennAbersCalibrator) else None
    expected = core_fit(cal, s, y)(t)
    if got is None:
        got = fitted.predict_proba(t)[:, 1]
    np.testing.assert_array_equal(got, expected, strict=True)


@pytest.mark.parametrize("cal", CALIBRATORS[:6], ids=repr)
def test_aggregates_of_many_rows(cal):
    """10^5 rows on 300 distinct scores: counts in the hundreds, still bit for bit."""
    rng = np.random.default_rng(7)
    s = np.round(rng.normal(size=100_000), 2)
    y = (rng.random(s.size) < 1 / (1 + np.exp(-2 * s))).astype(int)
    t = probe_scores(s[:1000], rng)
    expanded = outputs(cal.__class__(**cal.get_params()).fit(s, y), t)
    us, uy, uc = aggregate(s, y, rng)
    assert_identical(
        expanded, outputs(cal.__class__(**cal.get_params()).fit_aggregate(us, uy, uc), t)
    )


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
def test_counts_as_sample_weights_are_the_aggregate_fit(cal):
    """A weight of k is k copies: the counts of aggregated rows as sample_weight give the
    fit on the expanded rows, as fit_aggregate does."""
    s, y = data(3, n=200)
    rng = np.random.default_rng(0)
    us, uy, uc = aggregate(s, y, rng)
    t = np.unique(s)
    expanded = outputs(cal.__class__(**cal.get_params()).fit(s, y), t)
    as_weights = outputs(cal.__class__(**cal.get_params()).fit(us, uy, sample_weight=uc), t)
    as_counts = outputs(cal.__class__(**cal.get_params()).fit_aggregate(us, uy, uc), t)
    assert_identical(expanded, as_counts)
    assert_identical(expanded, as_weights)


def _fractional_weights(rng, n, kind):
    w = rng.exponential(size=n)
    w[rng.random(n) < 0.1] = 0.0
    if kind == "tiny":  # Venn-Abers' exact geometry
        w[::9] = 1e-9
    elif kind == "mixed":  # whole numbers among fractions
        w[::3] = np.round(w[::3]) + 1.0
    return w


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
@pytest.mark.parametrize("kind", ["moderate", "tiny", "mixed"])
@pytest.mark.parametrize("seed", range(3))
def test_fractional_weights_fit_does_not_depend_on_the_order_of_the_rows(cal, kind, seed):
    """Fractional weights: the fit depends on the rows as a set (each class's weights at a
    score are added in an order of their own), and fit_aggregate with fractional counts is
    fit with those counts as sample_weight, bit for bit."""
    s, y = data(seed + 20, n=250)
    rng = np.random.default_rng(seed)
    w = _fractional_weights(rng, s.size, kind)
    t = probe_scores(s, rng)
    expected = outputs(cal.__class__(**cal.get_params()).fit(s, y, sample_weight=w), t)
    order = rng.permutation(s.size)
    shuffled = cal.__class__(**cal.get_params()).fit(s[order], y[order], sample_weight=w[order])
    assert_identical(expected, outputs(shuffled, t))
    as_counts = cal.__class__(**cal.get_params()).fit_aggregate(s[order], y[order], w[order])
    assert_identical(expected, outputs(as_counts, t))


@pytest.mark.parametrize("cal", CALIBRATORS[:1] + CALIBRATORS[3:4] + CALIBRATORS[6:7], ids=repr)
def test_fit_aggregate_checks_its_input(cal):
    with pytest.raises(ValueError, match="'counts' must be non-negative"):
        cal.fit_aggregate([0.1, 0.2], [0, 1], [1, -1])
    with pytest.raises(ValueError, match="'counts' is zero on every example of one class"):
        cal.fit_aggregate([0.1, 0.2], [0, 1], [1, 0])
    with pytest.raises(ValueError, match="'counts' has 1 value"):
        cal.fit_aggregate([0.1, 0.2], [0, 1], [1])
    with pytest.raises(ValueError, match="one class only"):
        cal.fit_aggregate([0.1, 0.2], [1, 1], [1, 2])
    with pytest.raises(TypeError, match="'counts' must be array-like"):
        cal.fit_aggregate([0.1, 0.2], [0, 1], None)


# --- rounding -------------------------------------------------------------------------------


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
@pytest.mark.parametrize("decimals", [0, 1, 3, -1])
def test_rounding_is_applied_alike_at_fit_and_prediction(cal, decimals):
    rng = np.random.default_rng(decimals + 5)
    s = rng.normal(size=300) * 3
    y = (rng.random(300) < 1 / (1 + np.exp(-s))).astype(int)
    t = np.r_[rng.normal(size=100) * 3, s]
    rounded = cal.__class__(**{**cal.get_params(), "decimals": decimals}).fit(s, y)
    assert rounded.decimals_ == decimals
    # the reference: numpy's own rounding applied by hand, to calibration and test scores
    by_hand = cal.__class__(**cal.get_params()).fit(np.round(s, decimals), y)
    assert_identical(outputs(by_hand, np.round(t, decimals)), outputs(rounded, t))
    assert rounded.aggregate_.n_distinct == np.unique(np.round(s, decimals)).size


def test_rounding_is_recorded_in_the_fitted_model():
    s, y = data(1)
    cal = IsotonicCalibrator(decimals=0).fit(s * 0.37, y)
    before = cal.predict_proba(s * 0.41)
    cal.set_params(decimals=None)  # a parameter changed after the fit does not change it
    np.testing.assert_array_equal(cal.predict_proba(s * 0.41), before)
    assert cal.decimals_ == 0


@pytest.mark.parametrize("bad", [1.5, "2", True, 301, -400])
def test_bad_decimals_is_a_one_line_error(bad):
    with pytest.raises(ValueError, match=r"^The 'decimals' parameter of VennAbersCalibrator"):
        VennAbersCalibrator(decimals=bad).fit([0.1, 0.2], [0, 1])


def test_rounding_keeps_scores_of_any_magnitude_finite():
    s = np.array([-1e308, -1.0, 0.0, 1e-300, 2.5, 1e300, 1.7e308])
    y = np.array([0, 0, 1, 0, 1, 1, 1])
    for decimals in (-300, -3, 0, 5, 300):
        cal = VennAbersCalibrator(decimals=decimals).fit(s, y)
        p = cal.predict_interval(s)
        assert np.isfinite(p).all() and (p[:, 0] <= p[:, 1]).all()
