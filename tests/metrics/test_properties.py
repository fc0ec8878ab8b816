"""Property-based checks of the exact identities on arbitrary inputs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from venncal import metrics

# random predictions and labels include degenerate cases (classes separated by the
# predictions, every prediction 0, 1/2 or 1) where some metrics warn and return NaN; these
# properties test the values, the warnings are tested in tests/metrics/
pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:calibration_slope_intercept:venncal.exceptions.VenncalWarning"
    ),
    pytest.mark.filterwarnings(
        "ignore:spiegelhalter_z is undefined:venncal.exceptions.VenncalWarning"
    ),
]

probs = st.one_of(
    st.floats(0, 1, allow_nan=False),
    st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 1.0]),  # bin edges and extremes
)


@st.composite
def labelled(draw):
    n = draw(st.integers(1, 60))
    p = draw(arrays(np.float64, n, elements=probs))
    y = draw(arrays(np.int8, n, elements=st.integers(0, 1)))
    w = draw(arrays(np.float64, n, elements=st.floats(0.01, 5)))
    return y, p, w


@settings(max_examples=100, deadline=None)
@given(labelled())
def test_brier_curve_area_and_bounds(data):
    y, p, w = data
    curve = metrics.brier_curve(y, p, sample_weight=w)
    assert abs(curve.area - metrics.brier_score(y, p, sample_weight=w) / 2) < 1e-12
    assert np.all(curve.loss >= -1e-15)
    # L(c) <= min(c * P(y=0), (1 - c) * P(y=1)) fails in general, but L(c) <= max(c, 1 - c)
    assert np.all(curve.loss <= np.maximum(curve.costs, 1 - curve.costs) + 1e-12)
    rec = curve.recalibrated
    c = np.linspace(0, 1, 51)
    assert np.all(rec(c) <= curve(c) + 1e-12)


@settings(max_examples=100, deadline=None)
@given(labelled(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_binned_errors_are_ordered(data, n_bins, strategy):
    y, p, w = data
    e = metrics.ece(y, p, n_bins=n_bins, strategy=strategy, sample_weight=w)
    m = metrics.mce(y, p, n_bins=n_bins, strategy=strategy, sample_weight=w)
    assert 0 <= e <= m + 1e-12 <= 1 + 1e-12
    curve = metrics.reliability_curve(y, p, n_bins=n_bins, strategy=strategy, sample_weight=w)
    assert curve.counts.shape == (n_bins,)
    assert np.isclose(curve.counts.sum(), w.sum())
    d = metrics.brier_decomposition(y, p, n_bins=n_bins, strategy=strategy, sample_weight=w)
    total = d.reliability - d.resolution + d.uncertainty
    total += d.within_bin_variance - 2 * d.within_bin_covariance
    assert abs(total - d.brier) < 1e-12


@settings(max_examples=100, deadline=None)
@given(labelled())
def test_corp_identities(data):
    y, p, w = data
    d = metrics.corp_decomposition(y, p, sample_weight=w)
    assert abs(d.brier - d.calibration_loss - d.refinement_loss) < 1e-12
    assert d.calibration_loss >= 0 and d.discrimination >= 0
    assert d.refinement_loss <= d.uncertainty + 1e-12
