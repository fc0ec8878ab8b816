"""partial_fit adds calibration data: the result equals a fit on the union of all batches."""

import pickle

import numpy as np
import pytest

from tests.calibration.test_aggregates import (
    CALIBRATORS,
    assert_identical,
    data,
    outputs,
    probe_scores,
)
from venncal.calibration import (
    BayesianBinningCalibrator,
    HistogramCalibrator,
    VennAbersCalibrator,
)


def batches(n, rng, k):
    """Split row indices 0..n-1 into k random batches (some may be tiny)."""
    cuts = np.sort(rng.choice(np.arange(1, n), size=k - 1, replace=False))
    return np.split(rng.permutation(n), cuts)


def new(cal, **extra):
    return cal.__class__(**{**cal.get_params(), **extra})


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
@pytest.mark.parametrize("seed", range(8))
def test_partial_fit_equals_the_fit_on_the_union_bit_for_bit(cal, seed):
    s, y = data(seed, n=300)
    rng = np.random.default_rng(seed)
    # integer weights (0 included) are counts: sums are exact, so the result is bit for bit
    w = rng.integers(0, 4, s.size).astype(float) if seed % 2 else None
    if w is not None:
        w[:2] = 1.0
    t = probe_scores(s, rng)
    whole = new(cal).fit(s, y, sample_weight=w)
    first, *rest = batches(s.size, rng, int(rng.integers(2, 6)))
    first = np.r_[np.arange(2), first[first >= 2]]  # both classes in the first batch
    rest = [b[b >= 2] for b in rest]
    part = new(cal)
    part.partial_fit(s[first], y[first], None if w is None else w[first])
    for b in rest:
        if b.size:
            part.partial_fit(s[b], y[b], None if w is None else w[b])
    assert_identical(outputs(whole, t), outputs(part, t))
    np.testing.assert_array_equal(
        part.aggregate_.values, np.unique(s[w > 0] if w is not None else s)
    )


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
def test_partial_fit_with_fractional_weights_agrees_to_rounding(cal):
    s, y = data(11, n=300)
    rng = np.random.default_rng(3)
    w = rng.exponential(size=s.size)
    t = probe_scores(s, rng)
    whole = outputs(new(cal).fit(s, y, sample_weight=w), t)
    part = new(cal).fit(s[:150], y[:150], sample_weight=w[:150])
    part = outputs(part.partial_fit(s[150:], y[150:], w[150:]), t)
    for key in whole:
        np.testing.assert_allclose(part[key], whole[key], rtol=0, atol=1e-9, err_msg=key)


@pytest.mark.parametrize("cal", CALIBRATORS[:4], ids=repr)
def test_partial_fit_on_an_unfitted_calibrator_is_fit(cal):
    s, y = data(2)
    t = probe_scores(s, np.random.default_rng(0))
    assert_identical(outputs(new(cal).fit(s, y), t), outputs(new(cal).partial_fit(s, y), t))
    with pytest.raises(ValueError, match="one class only"):
        new(cal).partial_fit([0.1, 0.2], [1, 1])


def test_a_batch_may_hold_one_class_and_labels_must_match():
    cal = VennAbersCalibrator().fit([0.1, 0.2, 0.3], ["no", "yes", "no"])
    cal.partial_fit([0.5, 0.6], ["yes", "yes"])
    ref = VennAbersCalibrator().fit([0.1, 0.2, 0.3, 0.5, 0.6], ["no", "yes", "no", "yes", "yes"])
    assert_identical(outputs(cal, [0.0, 0.4, 0.55, 1.0]), outputs(ref, [0.0, 0.4, 0.55, 1.0]))
    with pytest.raises(ValueError, match=r"labels \['maybe'\] not among the fitted classes"):
        cal.partial_fit([0.5], ["maybe"])
    with pytest.raises(ValueError, match="'classes' must be the labels"):
        cal.partial_fit([0.5], ["yes"], classes=["yes", "perhaps"])
    with pytest.raises(ValueError, match="NaN"):
        cal.partial_fit([np.nan], ["yes"])
    with pytest.raises(ValueError, match="Inconsistent lengths"):
        cal.partial_fit([0.5, 0.6], ["yes"])


def test_memory_grows_with_distinct_scores_not_rows():
    rng = np.random.default_rng(0)
    cal = VennAbersCalibrator(decimals=2)
    for _ in range(20):
        s = rng.random(5000)
        cal.partial_fit(s, (rng.random(5000) < s).astype(int))
    assert cal.aggregate_.n_distinct == 101  # 0.00 .. 1.00
    assert cal.aggregate_.n_examples == 100_000
    assert len(pickle.dumps(cal)) < 20_000


def test_partial_fit_keeps_the_rounding_of_the_first_fit():
    s, y = data(4)
    cal = VennAbersCalibrator(decimals=1).fit(s * 0.3, y)
    cal.set_params(decimals=None)
    cal.partial_fit(s * 0.3 + 0.01, y)
    ref = VennAbersCalibrator().fit(np.round(np.r_[s * 0.3, s * 0.3 + 0.01], 1), np.r_[y, y])
    t = probe_scores(s * 0.3, np.random.default_rng(0))
    assert_identical(outputs(ref, np.round(t, 1)), outputs(cal, t))


def test_bayesian_binning_weights_are_counts_across_batches():
    """A weight of k is k copies through partial_fit too: the batches with integer weights
    give the fit on all the rows repeated."""
    s, y = data(5, n=200)
    w = np.random.default_rng(1).integers(0, 4, 200)
    w[:2] = 1
    a = (
        BayesianBinningCalibrator()
        .fit(s[:100], y[:100], w[:100].astype(float))
        .partial_fit(s[100:], y[100:], w[100:].astype(float))
    )
    b = BayesianBinningCalibrator().fit(np.repeat(s, w), np.repeat(y, w))
    t = np.unique(s)
    np.testing.assert_array_equal(a.predict_proba(t), b.predict_proba(t))


@pytest.mark.parametrize("cal", CALIBRATORS[3:], ids=repr)
def test_weights_near_the_largest_float(cal):
    """Weights of 1e308 are pooled in units of a power of two: no overflow. Where only their
    ratios matter the fit is that of moderate weights; smoothed histogram binning counts them
    as examples (alpha is then negligible), and Bayesian binning refuses totals past 2^53."""
    s, y = data(9, n=120)
    w = np.random.default_rng(2).integers(1, 4, s.size).astype(float)
    t = probe_scores(s, np.random.default_rng(0))
    params = {"alpha": 0.0} if isinstance(cal, HistogramCalibrator) else {}
    base = new(cal, **params).fit(s[:60], y[:60], w[:60]).partial_fit(s[60:], y[60:], w[60:])
    base = outputs(base, t)
    if isinstance(cal, BayesianBinningCalibrator):
        with pytest.raises(ValueError, match="2\\^53"):
            new(cal).fit(s[:60], y[:60], w[:60] * (1e308 / 4))
        return
    huge = new(cal).fit(s[:60], y[:60], w[:60] * (1e308 / 4))
    huge = outputs(huge.partial_fit(s[60:], y[60:], w[60:] * (1e308 / 4)), t)
    for key in base:
        np.testing.assert_allclose(huge[key], base[key], rtol=0, atol=1e-9, err_msg=key)


@pytest.mark.parametrize("cal", CALIBRATORS, ids=repr)
def test_a_model_file_without_its_data_refuses_partial_fit(cal, tmp_path):
    # saved without with_data=True, the loaded calibrator has no table of its data: refitting
    # on the new rows alone would silently drop the earlier ones
    import venncal

    s, y = data(3, n=300)
    venncal.save(new(cal).fit(s[:200], y[:200]), tmp_path / "m.json")
    loaded = venncal.load(tmp_path / "m.json")
    before = outputs(loaded, s)
    with pytest.raises(ValueError, match=r"partial_fit adds data to the calibration data of"):
        loaded.partial_fit(s[200:], y[200:])
    assert_identical(outputs(loaded, s), before)  # unchanged by the refusal
    venncal.save(new(cal).fit(s[:200], y[:200]), tmp_path / "d.json", with_data=True)
    kept = venncal.load(tmp_path / "d.json").partial_fit(s[200:], y[200:])
    assert_identical(outputs(kept, s), outputs(new(cal).fit(s, y), s))
