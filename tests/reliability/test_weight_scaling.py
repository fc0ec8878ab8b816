"""Sample weights at any magnitude: the same answer as at moderate magnitude, or a clear error.

A weight of k is k copies of the row for every calibrator (``test_weight_copies.py``), so
scaling all weights changes the answer wherever examples are counted: the pseudo-counts of
smoothed histogram binning and ACP, Platt's smoothed targets, the Beta marginal likelihoods of
Bayesian binning, the Fisher information behind ACP's self-built intervals, and Venn-Abers (the
test object keeps weight 1; checked against its exact definition at large weights in
``test_exact_definitions.py``). Where the answer depends only on the ratios of the weights
(isotonic regression, unsmoothed histogram binning, Platt without smoothing, beta calibration),
and for every weighted metric, scaling all weights by ``10**k``, ``k`` in [-200, 200], must
not change it (or must raise a one-line ValueError naming the weights; never a silently
different number). Every calibrator, at any weight scale, gives probabilities or such an error.
"""

import dataclasses
import inspect

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.reliability._settings import fewer
from tests.reliability._strategies import (
    CALIBRATORS,
    calibration_data,
    calibrator_params,
    fit,
    outputs,
)
from tests.reliability.test_calibrator_properties import check_probabilities
from venncal import metrics
from venncal.core.quadratic import separated_by
from venncal.metrics import _multiclass as multiclass_metrics

scale_exponents = st.integers(-200, 200)


def counts_examples(name, params):
    """Whether the calibrator's answer depends on the weights as numbers of examples (not
    only on their ratios), so that scaling every weight changes it."""
    if name in ("VennAbersCalibrator", "ACPCalibrator", "BayesianBinningCalibrator"):
        return True
    if name == "HistogramCalibrator":
        return params.get("alpha", 0.0) > 0.0
    if name in ("PlattCalibrator", "ScalingBinningCalibrator"):
        return params.get("smoothing", True) is not False
    return False


# every calibrator setting whose answer depends only on the ratios of the weights
SCALE_INVARIANT = [
    p for p in calibrator_params(set(CALIBRATORS)) if not counts_examples(*p.values[:2])
]
ITERATIVE = {"PlattCalibrator", "ACPCalibrator", "BetaCalibrator", "QuadraticCalibrator"}


def quadratic_separable(s, y, w):
    keep = np.ones(s.shape[0], bool) if w is None else w > 0
    return separated_by(s[keep], y[keep], "quadratic")


def separable(s, y, w):
    """Whether a threshold separates the classes, ties at it allowed (quasi-complete
    separation: no finite maximum-likelihood sigmoid either)."""
    keep = np.ones(s.shape[0], bool) if w is None else w > 0
    s0, s1 = s[keep & (y == 0)], s[keep & (y == 1)]
    return s0.max() <= s1.min() or s1.max() <= s0.min()


def clear_weight_error(exc):
    msg = str(exc)
    assert "\n" not in msg, msg
    assert "weight" in msg, msg


def or_clear_weight_error(call):
    """``call()``, or None where it raises a ValueError of one line that names the weights."""
    try:
        return call()
    except ValueError as exc:
        clear_weight_error(exc)
        return None


def assert_outputs_close(scaled, base, name):
    """The outputs at scaled weights are those at moderate ones (iterative fits less exactly)."""
    tol = 1e-6 if name in ITERATIVE else 1e-9
    for key in base:
        np.testing.assert_allclose(scaled[key], base[key], rtol=0, atol=tol, err_msg=key)


@pytest.mark.parametrize("name, params", SCALE_INVARIANT)
@fewer(4)
@given(data=calibration_data(weighted=True), k=scale_exponents)
def test_calibrator_invariant_to_scaling_the_weights(name, params, data, k):
    s, y, w, t = data
    if params.get("smoothing") is False:  # no finite plain-likelihood fit on separable data,
        # nor a well-conditioned one where scores a millionth apart nearly separate them
        assume(not separable(np.round(s, 6), y, w))
    if name == "QuadraticCalibrator":  # nor where a quadratic of the score separates them
        assume(not quadratic_separable(s, y, w))
    base = outputs(fit(name, params, s, y, w), t)
    scaled = or_clear_weight_error(lambda: outputs(fit(name, params, s, y, w * 10.0**k), t))
    if scaled is not None:
        assert_outputs_close(scaled, base, name)


@pytest.mark.parametrize("name, params", calibrator_params())
@fewer(4)
@given(data=calibration_data(weighted=True), k=scale_exponents)
def test_any_weight_scale_gives_probabilities_or_a_clear_error(name, params, data, k):
    """Bayesian binning's, as documented ("Outputs lie strictly inside (0, 1)"), strictly
    inside (0, 1)."""
    s, y, w, t = data
    cal = or_clear_weight_error(lambda: fit(name, params, s, y, w * 10.0**k))
    if cal is None:
        return
    check_probabilities(outputs(cal, t))
    if name == "BayesianBinningCalibrator":
        p = cal.predict_proba(t)[:, 1]
        assert ((p > 0) & (p < 1)).all(), p


# --------------------------------------------------------------------------------------------
# metrics


def weighted_metrics():
    # the multiclass metrics take (n, K) matrices; tests/metrics/test_multiclass_metrics.py
    # checks their weights against loops
    multiclass = set(multiclass_metrics.__all__)
    out = []
    for name in metrics.__all__:
        obj = getattr(metrics, name)
        if callable(obj) and not inspect.isclass(obj) and name not in multiclass:
            if "sample_weight" in inspect.signature(obj).parameters:
                out.append(name)
    return out


WEIGHTED_METRICS = weighted_metrics()

# result fields that are weighted totals: they scale with the weights
TOTALS = {"counts", "positives"}

probabilities = st.one_of(
    st.floats(0, 1, allow_nan=False),
    st.sampled_from([0.0, 1e-300, 1e-12, 0.1, 0.3, 0.5, 0.7, 1 - 1e-12, 1.0]),
)


@st.composite
def labelled(draw):
    n = draw(st.integers(2, 40))
    p = np.array(draw(st.lists(probabilities, min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[0], y[1] = 0, 1
    w = np.array(draw(st.lists(st.floats(1e-3, 1e3), min_size=n, max_size=n)))
    return y, p, w


def call_metric(metric, y, p, **kw):
    """``metric(y, p, **kw)``; a metric over segments gets two alternating segments."""
    f = getattr(metrics, metric)
    if "segments" in inspect.signature(f).parameters:
        kw = {"segments": {"g": np.arange(len(y)) % 2}, "min_samples": 1, **kw}
    return f(y, p, **kw)


def flatten(result, factor):
    """The numbers in a metric's result, weighted totals divided by ``factor``."""
    if dataclasses.is_dataclass(result):
        out = {}
        for f in dataclasses.fields(result):
            value = getattr(result, f.name)
            if callable(value) or isinstance(value, str):
                continue
            if hasattr(value, "select_dtypes"):  # a table: its numbers, row by row
                value = value.set_index(value.columns[0]).sort_index().select_dtypes("number")
            value = np.asarray(value, dtype=np.float64)
            out[f.name] = value / factor if f.name in TOTALS else value
        return out
    return {"value": np.asarray(result, dtype=np.float64)}


def assert_same(scaled, base, factor):
    """Compare flattened results; a weighted total beyond the largest float is not compared
    (its true value is not representable, so infinity is its correct rounding)."""
    assert base.keys() == scaled.keys()
    for key in base:
        a, b = scaled[key], base[key]
        if key in TOTALS:
            with np.errstate(over="ignore"):
                keep = np.isfinite(b * factor)
            a, b = a[keep], b[keep]
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=key)


def test_weighted_metrics_are_found():
    assert {"log_loss", "brier_score", "roc_auc", "ece"} <= set(WEIGHTED_METRICS)


@pytest.mark.parametrize("metric", WEIGHTED_METRICS)
@fewer(4)
@given(data=labelled(), k=scale_exponents)
def test_metric_invariant_to_scaling_the_weights(metric, data, k):
    y, p, w = data
    base = flatten(call_metric(metric, y, p, sample_weight=w), 1.0)
    scaled = or_clear_weight_error(
        lambda: flatten(call_metric(metric, y, p, sample_weight=w * 10.0**k), 10.0**k)
    )
    if scaled is not None:
        assert_same(scaled, base, 10.0**k)


@pytest.mark.parametrize("metric", WEIGHTED_METRICS)
@pytest.mark.parametrize("weight", [1e308, 1e300, 1e160, 1e-200, 5e-324])
def test_metric_with_equal_extreme_weights_is_the_unweighted_metric(metric, weight):
    y = np.array([0, 1, 1, 0, 1])
    p = np.array([0.25, 0.5, 0.75, 0.5, 0.25])
    base = flatten(call_metric(metric, y, p), 1.0)
    scaled = or_clear_weight_error(
        lambda: flatten(call_metric(metric, y, p, sample_weight=np.full(5, weight)), weight)
    )
    if scaled is not None:
        assert_same(scaled, base, weight)


@pytest.mark.parametrize("name, params", SCALE_INVARIANT)
@pytest.mark.parametrize("tiny", [1e-310, 5e-324])
def test_subnormal_weights_give_the_answer_of_moderate_ones(name, params, tiny):
    # weights below the smallest normal float: n / total overflows when the weights are taken
    # relative to their mean; the answer must still be that of the same weights at scale 1
    rng = np.random.default_rng(0)
    s = rng.random(120)
    y = (rng.random(120) < s).astype(int)
    y[:2] = [0, 1]
    w = rng.integers(1, 4, 120).astype(np.float64) if tiny > 1e-320 else np.ones(120)
    t = np.linspace(-0.1, 1.1, 15)
    base = outputs(fit(name, params, s, y, w), t)
    scaled = or_clear_weight_error(lambda: outputs(fit(name, params, s, y, w * tiny), t))
    if scaled is not None:
        check_probabilities(scaled)
        assert_outputs_close(scaled, base, name)
