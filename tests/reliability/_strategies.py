"""Strategies and the list of calibrators shared by the reliability battery."""

import inspect

import numpy as np
import pytest
from hypothesis import strategies as st

import venncal
from venncal.calibration._base import BaseScoreCalibrator
from venncal.core.merge import MERGES


def public_calibrators():
    """Every score calibrator that venncal exports (read from ``venncal.__all__``)."""
    out = {}
    for name in venncal.__all__:
        obj = getattr(venncal, name, None)
        if inspect.isclass(obj) and issubclass(obj, BaseScoreCalibrator):
            out[name] = obj
    return out


CALIBRATORS = public_calibrators()

# The settings each calibrator is tried with; a calibrator missing here is tried with its
# defaults (and ``test_every_calibrator_has_variants`` asks for an entry).
VARIANTS = {
    "VennAbersCalibrator": [{"merge": m} for m in MERGES],
    "IsotonicCalibrator": [{"rule": "interpolate"}, {"rule": "nearest"}],
    "PlattCalibrator": [{}, {"smoothing": False}],
    "ACPCalibrator": [{}, {"alpha": 1.0}],
    "HistogramCalibrator": [
        {},
        {"n_bins": 3, "strategy": "quantile"},
        {"n_bins": 4, "alpha": 1.0},
    ],
    "BayesianBinningCalibrator": [{"method": "averaging"}, {"method": "selection"}],
    # the battery draws real scores: beta calibration reads them as log-odds
    "BetaCalibrator": [
        {"score_scale": "logit"},
        {"parameters": "am", "score_scale": "logit"},
        {"parameters": "ab", "score_scale": "logit"},
    ],
    # the battery draws real scores: quadratic scaling reads them as log-odds
    "QuadraticCalibrator": [
        {"score_scale": "logit"},
        {"score_scale": "logit", "monotone": "affine"},
        {"score_scale": "logit", "monotone": "clip"},
    ],
    # without smoothing the sigmoid of a separable first part has no finite fit
    "ScalingBinningCalibrator": [{}, {"n_bins": 3, "scaling_fraction": 0.3}],
}

# Documented monotonicity: isotonic is non-decreasing; Venn-Abers p0 and p1 are each
# non-decreasing (isotonic fits), so is every merge (each increases in p0 and in p1); Platt's
# sigmoid is monotone in the direction of -a_. Histogram binning (bins predict their own
# frequencies) and Bayesian binning ("need not be monotone", BayesianBinningCalibrator Notes)
# are not; ACP (the frequency inside an interval around the score) is not either. Quadratic
# scaling is held constant beyond its vertex, so every rule gives a non-decreasing map.
NONDECREASING = {"IsotonicCalibrator", "VennAbersCalibrator", "QuadraticCalibrator"}
SIGMOID = {"PlattCalibrator"}


def variant_id(name, params):
    if not params:
        return name
    return name + "(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"


def calibrator_params(names=None, marks=None):
    """pytest params (name, kwargs) over every calibrator variant, optionally restricted.

    ``marks`` maps a variant id or a calibrator name to marks for that param.
    """
    marks = marks or {}
    out = []
    for name in sorted(CALIBRATORS):
        if names is not None and name not in names:
            continue
        for params in VARIANTS.get(name, [{}]):
            vid = variant_id(name, params)
            m = marks.get(vid, marks.get(name, ()))
            out.append(pytest.param(name, params, id=vid, marks=m))
    return out


def make(name, params):
    return CALIBRATORS[name](**params)


# --------------------------------------------------------------------------------------------
# data

TIE_POOL = [-3.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0, 7.5]

moderate_scores = {
    "ties": st.sampled_from(TIE_POOL),
    "unit": st.floats(0, 1, allow_nan=False),
    "real": st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False),
}

extreme_scores = {
    "wide": st.floats(-1e308, 1e308, allow_nan=False, allow_infinity=False),
    "tiny": st.floats(-1e-9, 1e-9, allow_nan=False, allow_subnormal=True),
    "huge": st.floats(1e300, 1.7e308, allow_nan=False, allow_infinity=False),
}

weight_elements = st.one_of(
    st.floats(1e-3, 1e3, allow_nan=False),
    st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]),
)


@st.composite
def calibration_data(draw, *, score_kinds=None, weighted=None, min_n=2, max_n=30, weights=None):
    """Draw (scores, y, w, test_scores); y has both classes with positive weight.

    ``weighted``: True, False or None (either). ``weights``: a strategy of weight elements
    (default: moderate weights with some zeros).
    """
    kinds = moderate_scores if score_kinds is None else score_kinds
    kind = draw(st.sampled_from(sorted(kinds)))
    elem = kinds[kind]
    n = draw(st.integers(min_n, max_n))
    s = np.array(draw(st.lists(elem, min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int64)
    i = draw(st.integers(0, n - 1))
    j = draw(st.integers(0, n - 2))
    j = j + 1 if j >= i else j
    y[i], y[j] = 0, 1
    if weighted is None:
        weighted = draw(st.booleans())
    w = None
    if weighted:
        welem = weight_elements if weights is None else weights
        w = np.array(draw(st.lists(welem, min_size=n, max_size=n)), dtype=np.float64)
        if w[i] == 0:
            w[i] = 1.0
        if w[j] == 0:
            w[j] = 1.0
    m = draw(st.integers(1, 12))
    fresh = draw(st.lists(elem, min_size=m, max_size=m))
    reused = draw(st.lists(st.integers(0, n - 1), max_size=6))
    t = np.r_[np.array(fresh, dtype=np.float64), s[reused]]
    return s, y, w, t


def fit(name, params, s, y, w):
    cal = make(name, params)
    return cal.fit(s, y) if w is None else cal.fit(s, y, sample_weight=w)


def outputs(cal, t):
    """All the probabilities a fitted calibrator gives at ``t``: the positive column of
    ``predict_proba``, and p0, p1 when it has ``predict_interval``."""
    out = {"proba": cal.predict_proba(t)}
    if hasattr(cal, "predict_interval"):
        out["interval"] = cal.predict_interval(t)
    return out
