"""Bad-input table over every public metric.

Every function named in ``venncal.metrics.__all__`` and ``venncal.metrics.ranking.__all__`` is
called with each bad input that applies to it; each call must raise ``ValueError`` or
``TypeError`` with a one-line message that names the offending parameter. A new public
function without an entry in ``CALLS`` fails ``test_every_public_function_is_in_the_table``.
"""

import inspect

import numpy as np
import pandas as pd
import pytest

from tests._assertions import bad_input_table_tests
from venncal import metrics
from venncal.metrics import _multiclass as multiclass_metrics
from venncal.metrics import ranking

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

Y = [0, 1, 0, 1, 1, 0]
P = [0.1, 0.8, 0.3, 0.6, 0.9, 0.2]
P0 = [0.05, 0.7, 0.2, 0.5, 0.8, 0.1]
P1 = [0.15, 0.9, 0.4, 0.7, 0.95, 0.3]
TABLE = np.array([[0.1, 0.2, 0.3], [0.2, 0.1, 0.4], [0.3, 0.2, 0.1], [0.2, 0.3, 0.4]])


def _yp(f):
    """Functions of (y_true, y_proba, **options)."""

    def call(y_true=Y, y_proba=P, **kw):
        return f(y_true, y_proba, **kw)

    return call


def _interval_validity(y_true=Y, p0=P0, p1=P1, **kw):
    return metrics.interval_validity(y_true, p0, p1, **kw)


def _interval_width(p0=P0, p1=P1):
    return metrics.interval_width(p0, p1)


def _merge_regret(p0=P0, p1=P1, y_proba=P, **kw):
    return metrics.merge_regret(p0, p1, y_proba, **kw)


def _bootstrap(metric=metrics.brier_score, y_true=Y, y_proba=P, **kw):
    kw.setdefault("n_resamples", 5)
    return metrics.bootstrap_ci(metric, y_true, y_proba, **kw)


def _table(f):
    def call(table=TABLE, **kw):
        return f(table, **kw)

    return call


#: name -> (caller, the data parameters it takes)
YP = ("y_true", "y_proba")
CALLS = {
    "log_loss": (_yp(metrics.log_loss), YP),
    "log_loss_samples": (_yp(metrics.log_loss_samples), YP),
    "brier_score": (_yp(metrics.brier_score), YP),
    "brier_score_samples": (_yp(metrics.brier_score_samples), YP),
    "rmse": (_yp(metrics.rmse), YP),
    "accuracy": (_yp(metrics.accuracy), YP),
    "roc_auc": (_yp(metrics.roc_auc), YP),
    "reliability_curve": (_yp(metrics.reliability_curve), YP),
    "ece": (_yp(metrics.ece), YP),
    "mce": (_yp(metrics.mce), YP),
    "debiased_ece": (_yp(metrics.debiased_ece), YP),
    "smooth_ece": (_yp(metrics.smooth_ece), YP),
    "smooth_calibration_curve": (_yp(metrics.smooth_calibration_curve), YP),
    "brier_decomposition": (_yp(metrics.brier_decomposition), YP),
    "corp_decomposition": (_yp(metrics.corp_decomposition), YP),
    "isotonic_recalibration": (_yp(metrics.isotonic_recalibration), YP),
    "spiegelhalter_z": (_yp(metrics.spiegelhalter_z), YP),
    "calibration_slope_intercept": (_yp(metrics.calibration_slope_intercept), YP),
    "brier_curve": (_yp(metrics.brier_curve), YP),
    "bootstrap_ci": (_bootstrap, YP),
    "interval_width": (_interval_width, ("p0", "p1")),
    "interval_validity": (_interval_validity, ("y_true", "p0", "p1")),
    "merge_regret": (_merge_regret, ("p0", "p1", "y_proba")),
    "risk_coverage_curve": (_yp(metrics.risk_coverage_curve), YP),
    "aurc": (_yp(metrics.aurc), YP),
    "selective_error": (
        lambda y_true=Y, y_proba=P, **kw: metrics.selective_error(
            y_true, y_proba, accept=np.array([True, True, False, True, False, True]), **kw
        ),
        YP,
    ),
    "multicalibration_error": (
        lambda y_true=Y, y_proba=P, **kw: metrics.multicalibration_error(
            y_true, y_proba, **{"segments": {"g": [0, 1, 0, 1, 1, 0]}, "min_samples": 1, **kw}
        ),
        YP,
    ),
    "ecce_pvalue": (lambda sigma=(0.0, 1.5, 3.0): metrics.ecce_pvalue(sigma), ("sigma",)),
    "average_ranks": (_table(ranking.average_ranks), ("table",)),
    "friedman_test": (_table(ranking.friedman_test), ("table",)),
    "nemenyi_posthoc": (_table(ranking.nemenyi_posthoc), ("table",)),
    "holm_posthoc": (_table(ranking.holm_posthoc), ("table",)),
    "bergmann_hommel_posthoc": (_table(ranking.bergmann_hommel_posthoc), ("table",)),
    "nemenyi_critical_difference": (
        lambda k=3, n=10, **kw: ranking.nemenyi_critical_difference(k, n, **kw),
        ("k", "n"),
    ),
}

PROBABILITY_LIKE = ("y_proba", "p0", "p1")

#: bad values of each kind of data parameter
BAD_LABELS = {
    "nan": [0, 1, np.nan, 1, 1, 0],
    "inf": [0, 1, np.inf, 1, 1, 0],
    "non-binary": [0, 1, 2, 1, 1, 0],
    "strings": ["a", "b", "a", "b", "b", "a"],
    "empty": [],
    "short": [0, 1, 0],
    "2-d": np.zeros((6, 2)),
    "none": None,
    "scalar": 1,
    "pandas-NA": pd.array([0, 1, pd.NA, 1, 1, 0], dtype="Int64"),
    "object-NA": np.array([0, 1, pd.NA, 1, 1, 0], dtype=object),
    "nullable-boolean-NA": pd.array([False, True, pd.NA, True, True, False], dtype="boolean"),
}
BAD_PROBABILITIES = {
    "nan": [0.1, 0.8, np.nan, 0.6, 0.9, 0.2],
    "inf": [0.1, 0.8, np.inf, 0.6, 0.9, 0.2],
    "negative": [0.1, 0.8, -0.3, 0.6, 0.9, 0.2],
    "above-one": [0.1, 0.8, 1.3, 0.6, 0.9, 0.2],
    "strings": ["0.1", "x", "0.3", "0.6", "0.9", "0.2"],
    "empty": [],
    "short": [0.1, 0.8, 0.3],
    "3-columns": np.full((6, 3), 1 / 3),
    "3-d": np.zeros((6, 1, 1)),
    "none": None,
    "scalar": 0.5,
    "nan-in-column-0": np.column_stack([[0.9, np.nan, 0.7, 0.4, 0.1, 0.8], P]),
    "rows-not-summing-to-1": np.column_stack([[0.5] * 6, P]),
    "pandas-NA": pd.array([0.1, 0.8, pd.NA, 0.6, 0.9, 0.2], dtype="Float64"),
    "complex": np.array(P) + 1j,
}
BAD_WEIGHTS = {
    "negative": [1, 1, -1, 1, 1, 1],
    "nan": [1, 1, np.nan, 1, 1, 1],
    "inf": [1, 1, np.inf, 1, 1, 1],
    "all-zero": [0] * 6,
    "short": [1, 1],
    "strings": ["a"] * 6,
    "2-d": np.ones((6, 2)),
}
BAD_TABLES = {
    "nan": np.where(TABLE == 0.4, np.nan, TABLE),
    "strings": [["a", "b"], ["c", "d"]],
    "1-d": [0.1, 0.2, 0.3],
    "one-method": TABLE[:, :1],
    "one-dataset": TABLE[:1],
    "none": None,
    "pandas-NA": pd.DataFrame(TABLE, dtype="Float64").mask(TABLE == 0.4),
}
#: statistics in standard deviations (non-negative numbers, +inf allowed)
BAD_STATISTICS = {
    "nan": [0.0, np.nan, 1.0],
    "negative": [0.0, -1.0, 1.0],
    "strings": ["1", "x"],
    "none": None,
    "complex": np.array([1.0, 2.0]) + 1j,
}
BAD_COUNTS = {"zero": 0, "negative": -3, "float": 2.5, "string": "3", "none": None, "bool": True}

#: per function: (options, the parameter the error must name)
BAD_OPTIONS = {
    "log_loss": [({"clip": -0.1}, "clip"), ({"clip": 0.7}, "clip"), ({"clip": "a"}, "clip")],
    "log_loss_samples": [({"clip": np.nan}, "clip")],
    "accuracy": [({"threshold": 1.5}, "threshold"), ({"threshold": "0.5"}, "threshold")],
    "calibration_slope_intercept": [({"clip": 0}, "clip"), ({"clip": 0.5}, "clip")],
    "brier_curve": [({"recalibrate": "yes"}, "recalibrate")],
    "debiased_ece": [({"squared": "yes"}, "squared")],
    "smooth_ece": [
        ({"bandwidth": 0.0}, "bandwidth"),
        ({"bandwidth": np.nan}, "bandwidth"),
        ({"bandwidth": "auto"}, "bandwidth"),
    ],
    "smooth_calibration_curve": [
        ({"bandwidth": -1.0}, "bandwidth"),
        ({"n_points": 1}, "n_points"),
        ({"n_points": 2.5}, "n_points"),
    ],
    "interval_validity": [
        ({"tol": -1}, "tol"),
        ({"tol": np.nan}, "tol"),
        ({"target": "acc"}, "target"),
    ],
    "merge_regret": [({"loss": "hinge"}, "loss"), ({"y_true": [0, 1]}, "y_true")],
    "bootstrap_ci": [
        ({"metric": "ece"}, "metric"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"method": "normal"}, "method"),
        ({"stratify": "yes"}, "stratify"),
        ({"random_state": -1}, "random_state"),
        ({"random_state": "seed"}, "random_state"),
    ],
    "nemenyi_critical_difference": [({"alpha": 0}, "alpha"), ({"alpha": 1.5}, "alpha")],
    "multicalibration_error": [
        ({"segments": [0, 1, 0, 1, 1, 0]}, "segments"),
        ({"segments": {"g": [0, 1, 0]}}, "segments"),
        ({"segments": {"g": [0, 1, 0, 1, 1, 0]}, "categorical": ["h"]}, "categorical"),
        ({"max_depth": -1}, "max_depth"),
        ({"max_values": 1}, "max_values"),
        ({"min_samples": 0}, "min_samples"),
        ({"max_segments": 0}, "max_segments"),
        ({"ties": "first"}, "ties"),
    ],
}
for _name in ("reliability_curve", "ece", "mce", "debiased_ece", "brier_decomposition"):
    BAD_OPTIONS.setdefault(_name, []).extend(
        [
            ({"n_bins": 0}, "n_bins"),
            ({"n_bins": -5}, "n_bins"),
            ({"n_bins": 2.5}, "n_bins"),
            ({"n_bins": "10"}, "n_bins"),
            ({"n_bins": 10**30}, "n_bins"),
            ({"strategy": "median"}, "strategy"),
            ({"strategy": None}, "strategy"),
        ]
    )
BAD_OPTIONS["interval_validity"] += [({"n_bins": 0}, "n_bins"), ({"strategy": "x"}, "strategy")]
for _name in ("friedman_test", "nemenyi_posthoc", "holm_posthoc", "bergmann_hommel_posthoc"):
    BAD_OPTIONS[_name] = [
        ({"names": ["a"]}, "names"),
        ({"names": "abc"}, "names"),
        ({"lower_is_better": "yes"}, "lower_is_better"),
    ]
BAD_OPTIONS["average_ranks"] = [({"lower_is_better": None}, "lower_is_better")]

#: functions that need both classes: one class alone is a bad input for them
NEEDS_BOTH_CLASSES = {"roc_auc", "calibration_slope_intercept"}


def _public_functions():
    names = []
    for module in (metrics, ranking):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                names.append(name)
    return names


def _cases():
    for name in sorted(CALLS):
        caller, params = CALLS[name]
        for param in params:
            if param == "y_true":
                table = BAD_LABELS
            elif param in PROBABILITY_LIKE:
                table = BAD_PROBABILITIES
            elif param == "table":
                table = BAD_TABLES
            elif param == "sigma":
                table = BAD_STATISTICS
            else:
                table = BAD_COUNTS
            for label, value in table.items():
                yield pytest.param(name, {param: value}, param, id=f"{name}-{param}-{label}")
        if "sample_weight" in inspect.signature(_target(name)).parameters:
            for label, value in BAD_WEIGHTS.items():
                yield pytest.param(
                    name,
                    {"sample_weight": value},
                    "sample_weight",
                    id=f"{name}-sample_weight-{label}",
                )
        if name in NEEDS_BOTH_CLASSES:
            yield pytest.param(name, {"y_true": [1] * 6}, "y_true", id=f"{name}-one-class")
        for i, (options, param) in enumerate(BAD_OPTIONS.get(name, [])):
            yield pytest.param(name, options, param, id=f"{name}-option-{param}-{i}")


def _target(name):
    return getattr(metrics, name, None) or getattr(ranking, name)


#: multiclass metrics take labels of any kind and (n, K) matrices, so the binary bad inputs above
#: do not apply; their own bad-input table is in tests/metrics/test_multiclass_metrics.py
MULTICLASS = set(multiclass_metrics.__all__)


def test_every_public_function_is_in_the_table():
    missing = sorted(set(_public_functions()) - set(CALLS) - MULTICLASS)
    assert not missing, f"add these public functions to the bad-input table: {missing}"


(
    test_the_good_call_works,
    test_bad_input_gives_a_one_line_error_naming_the_parameter,
) = bad_input_table_tests(CALLS, _cases())
