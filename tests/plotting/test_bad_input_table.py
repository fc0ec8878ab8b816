"""Bad-input table over every public display, and the Venn title's in/outside wording."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from tests._assertions import bad_input_table_tests
from venncal import VennAbersDistribution, plotting  # noqa: E402
from venncal.metrics import interval_validity  # noqa: E402
from venncal.plotting import (  # noqa: E402
    BrierCurveDisplay,
    CriticalDifferenceDisplay,
    PITDisplay,
    PredictiveBandDisplay,
    ReliabilityDisplay,
    RiskCoverageDisplay,
    SmoothReliabilityDisplay,
    VennIntervalDisplay,
    cliques,
)

Y = [0, 1, 0, 1, 1, 0]
P = [0.1, 0.8, 0.3, 0.6, 0.9, 0.2]
P0 = [0.05, 0.7, 0.2, 0.5, 0.8, 0.1]
P1 = [0.15, 0.9, 0.4, 0.7, 0.95, 0.3]
RANKS = {"a": 1.5, "b": 2.0, "c": 2.5}


def _reliability(y_true=Y, y_proba=P, **kw):
    return ReliabilityDisplay.from_predictions(y_true, y_proba, **kw)


def _smooth(y_true=Y, y_proba=P, **kw):
    return SmoothReliabilityDisplay.from_predictions(y_true, y_proba, **kw)


def _venn(y_true=Y, p0=P0, p1=P1, **kw):
    return VennIntervalDisplay.from_predictions(y_true, p0, p1, **kw)


def _brier(y_true=Y, y_proba=P, **kw):
    return BrierCurveDisplay.from_predictions(y_true, y_proba, **kw)


def _cd(average_ranks=RANKS, critical_difference=0.5, **kw):
    return CriticalDifferenceDisplay.from_ranks(average_ranks, critical_difference, **kw)


def _cliques(average_ranks=RANKS, critical_difference=0.5):
    return cliques(average_ranks, critical_difference)


PRED = [0.1, 0.8, 0.3, 0.6, 0.9, 0.2]
VALUES = [0.3, 1.1, 0.2, 0.9, 1.4, 0.0]
DIST = VennAbersDistribution().fit(PRED, VALUES)


def _band(distribution=DIST, scores=PRED, y_true=VALUES, **kw):
    return PredictiveBandDisplay.from_distribution(distribution, scores, y_true=y_true, **kw)


def _pit(distribution=DIST, scores=PRED, y_true=VALUES, **kw):
    return PITDisplay.from_distribution(distribution, scores, y_true, **kw)


def _risk_coverage(y_true=Y, y_proba=P, **kw):
    return RiskCoverageDisplay.from_predictions(y_true, y_proba, **kw)


#: public name -> (caller, data parameters)
CALLS = {
    "ReliabilityDisplay": (_reliability, ("y_true", "y_proba")),
    "SmoothReliabilityDisplay": (_smooth, ("y_true", "y_proba")),
    "VennIntervalDisplay": (_venn, ("y_true", "p0", "p1")),
    "BrierCurveDisplay": (_brier, ("y_true", "y_proba")),
    "CriticalDifferenceDisplay": (_cd, ("average_ranks", "critical_difference")),
    "cliques": (_cliques, ("average_ranks", "critical_difference")),
    "PredictiveBandDisplay": (_band, ("scores", "y_true")),
    "PITDisplay": (_pit, ("scores", "y_true")),
    "RiskCoverageDisplay": (_risk_coverage, ("y_true", "y_proba")),
}

#: the data parameters of the predictive-distribution displays take real numbers
KINDS = {("PredictiveBandDisplay", "y_true"): "optional", ("PITDisplay", "y_true"): "values"}

BAD = {
    "y_true": {
        "nan": [0, 1, np.nan, 1, 1, 0],
        "non-binary": [0, 1, 2, 1, 1, 0],
        "strings": list("ababba"),
        "empty": [],
        "short": [0, 1],
        "2-d": np.zeros((6, 2)),
        "none": None,
    },
    "probability": {
        "nan": [0.1, 0.8, np.nan, 0.6, 0.9, 0.2],
        "inf": [0.1, 0.8, np.inf, 0.6, 0.9, 0.2],
        "above-one": [0.1, 0.8, 1.3, 0.6, 0.9, 0.2],
        "strings": list("abcdef"),
        "empty": [],
        "short": [0.1, 0.2],
        "3-d": np.zeros((6, 1, 1)),
        "none": None,
        "nan-in-column-0": np.column_stack([[0.9, np.nan, 0.7, 0.4, 0.1, 0.8], P]),
    },
    "average_ranks": {
        "list": [1.0, 2.0],
        "one-method": {"a": 1.0},
        "nan": {"a": np.nan, "b": 2.0},
        "below-one": {"a": 0.5, "b": 2.0},
        "strings": {"a": "x", "b": 2.0},
    },
    "critical_difference": {"negative": -1.0, "nan": np.nan, "string": "1", "none": None},
    "scores": {
        "nan": [0.1, np.nan, 0.3, 0.6, 0.9, 0.2],
        "inf": [0.1, np.inf, 0.3, 0.6, 0.9, 0.2],
        "strings": list("abcdef"),
        "empty": [],
        "3-d": np.zeros((6, 1, 1)),
        "none": None,
    },
    "values": {
        "nan": [0.3, np.nan, 0.2, 0.9, 1.4, 0.0],
        "inf": [0.3, -np.inf, 0.2, 0.9, 1.4, 0.0],
        "strings": list("abcdef"),
        "short": [0.3, 1.1],
        "2-d": np.zeros((6, 2)),
        "none": None,
    },
}
BAD["optional"] = {k: v for k, v in BAD["values"].items() if v is not None}

OPTIONS = {
    "ReliabilityDisplay": [
        ({"n_bins": 0}, "n_bins"),
        ({"n_bins": 10**9}, "n_bins"),
        ({"n_bins": "10"}, "n_bins"),
        ({"strategy": "median"}, "strategy"),
        ({"confidence_level": 1.5}, "confidence_level"),
        ({"name": 3}, "name"),
        ({"ax": "axes"}, "ax"),
        ({"sample_weight": [1, 1, -1, 1, 1, 1]}, "sample_weight"),
        ({"sample_weight": [np.nan] * 6}, "sample_weight"),
    ],
    "VennIntervalDisplay": [
        ({"n_bins": 0}, "n_bins"),
        ({"n_bins": 10**9}, "n_bins"),
        ({"strategy": "median"}, "strategy"),
        ({"name": ["x"]}, "name"),
        ({"ax": 1}, "ax"),
        ({"p0": P1, "p1": P0}, "p0"),
    ],
    "BrierCurveDisplay": [
        ({"recalibrated": "yes"}, "recalibrated"),
        ({"ax": "axes"}, "ax"),
        ({"y_proba": {}}, "y_proba"),
        ({"sample_weight": [0] * 6}, "sample_weight"),
    ],
    "CriticalDifferenceDisplay": [({"ax": "axes"}, "ax")],
    "RiskCoverageDisplay": [
        ({"target_error": 1.5}, "target_error"),
        ({"accept": {"other": [True] * 6}}, "accept"),
        ({"accept": [1, 0, 1, 1, 0, 1]}, "accept"),
        ({"confidence": [0.1, 0.2]}, "confidence"),
        ({"y_proba": {}}, "y_proba"),
        ({"ax": "axes"}, "ax"),
    ],
    "PredictiveBandDisplay": [
        ({"distribution": VennAbersDistribution()}, "distribution"),
        ({"thresholds": [1.0, 0.0]}, "thresholds"),
        ({"ax": "axes"}, "ax"),
    ],
    "PITDisplay": [
        ({"distribution": "model"}, "distribution"),
        ({"n_bins": 0}, "n_bins"),
        ({"name": 3}, "name"),
        ({"ax": "axes"}, "ax"),
    ],
    "SmoothReliabilityDisplay": [
        ({"bandwidth": 0.0}, "bandwidth"),
        ({"n_points": 10**5}, "n_points"),
        ({"n_points": 1}, "n_points"),
        ({"name": 3}, "name"),
        ({"ax": "axes"}, "ax"),
        ({"sample_weight": [1, 1, -1, 1, 1, 1]}, "sample_weight"),
    ],
}


def _cases():
    for name, (_, params) in sorted(CALLS.items()):
        for param in params:
            kind = "probability" if param in ("y_proba", "p0", "p1") else param
            kind = KINDS.get((name, param), kind)
            for label, value in BAD[kind].items():
                yield pytest.param(name, {param: value}, param, id=f"{name}-{param}-{label}")
        for i, (options, param) in enumerate(OPTIONS.get(name, [])):
            yield pytest.param(name, options, param, id=f"{name}-option-{param}-{i}")


def test_every_public_display_is_in_the_table():
    public = {n for n in plotting.__all__ if callable(getattr(plotting, n))}
    assert public <= set(CALLS), sorted(public - set(CALLS))


(
    test_the_good_call_works,
    test_bad_input_gives_a_one_line_error_naming_the_parameter,
) = bad_input_table_tests(CALLS, _cases())


# ---------------------------------------------------------------- the Venn display's title
def test_venn_title_says_outside_when_the_frequency_is_outside():
    # 31 positives in 100, intervals around 0.307: the observed 0.310 is above [0.306, 0.308]
    y = np.r_[np.ones(31), np.zeros(69)]
    p0, p1 = np.full(100, 0.306), np.full(100, 0.308)
    disp = VennIntervalDisplay.from_predictions(y, p0, p1)
    title = disp.ax_.get_title()
    assert title.startswith("observed 0.310 outside [0.306, 0.308]"), title
    assert not disp.validity.valid


@pytest.mark.parametrize("seed", range(30))
def test_venn_title_agrees_with_the_unrounded_comparison(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    centre = rng.uniform(0.2, 0.8)
    half = rng.choice([1e-5, 1e-4, 1e-3, 1e-2])
    y = rng.random(n) < centre
    p0 = np.full(n, max(centre - half, 0.0))
    p1 = np.full(n, min(centre + half, 1.0))
    from venncal.plotting._venn import overall_title

    v = interval_validity(y, p0, p1)
    title = overall_title(v.observed, v.lower, v.upper)
    inside = v.lower <= v.observed <= v.upper
    assert (" in [" in title) == inside and (" outside [" in title) == (not inside)
    # the printed numbers say the same as the word
    o, lo, hi = (float(t.strip("[],")) for t in np.array(title.split())[[1, 3, 4]])
    assert (lo <= o <= hi) == inside, title
