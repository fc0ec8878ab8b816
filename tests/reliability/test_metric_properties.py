"""Properties of every metric on (y_true, y_proba): row order does not matter, inputs are not
modified, calls repeat bit-identically, and an (n, 2) array of class probabilities is the same
as its positive column (documented in ``venncal.metrics``).

Metrics are found through ``venncal.metrics.__all__``: every public function whose first two
parameters are ``y_true`` and ``y_proba``. Scaling the weights is in ``test_weight_scaling.py``;
bad input to metrics has its own table in ``tests/metrics``.
"""

import dataclasses
import inspect

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.reliability._settings import fewer
from tests.reliability.test_weight_scaling import labelled
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


def binary_metrics():
    out = []
    for name in metrics.__all__:
        obj = getattr(metrics, name)
        if callable(obj) and not inspect.isclass(obj) and not inspect.ismodule(obj):
            params = list(inspect.signature(obj).parameters)
            if params[:2] == ["y_true", "y_proba"]:
                out.append(name)
    return out


METRICS = binary_metrics()
# metrics that return one value per row (put back in the original order after a shuffle)
PER_SAMPLE = {name for name in METRICS if name.endswith("_samples")} | {"isotonic_recalibration"}
# metrics fitted by an iterative solver: summation order moves them within its tolerance
ITERATIVE = {"calibration_slope_intercept"}


def numbers(result, n, perm=None):
    """The numbers in a result; with ``perm``, a per-sample result is put back in order."""
    if dataclasses.is_dataclass(result):
        fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    else:
        fields = {"value": result}
    out = {}
    for key, value in fields.items():
        if callable(value) or isinstance(value, str):
            continue
        if hasattr(value, "select_dtypes"):  # a table: its numbers, rows in order of its key
            value = value.set_index(value.columns[0]).sort_index().select_dtypes("number")
        value = np.asarray(value, dtype=np.float64)
        if perm is not None:
            assert value.shape == (n,), value.shape
            restored = np.empty_like(value)
            restored[perm] = value
            value = restored
        out[key] = value
    return out


def call(name, y, p, w, groups=None):
    """``name(y, p)`` with weights ``w`` where it takes them; a metric over segments gets the
    segment column ``groups`` (default: rows alternating between two segments)."""
    f = getattr(metrics, name)
    kw = {}
    if w is not None and "sample_weight" in inspect.signature(f).parameters:
        kw["sample_weight"] = w
    if "segments" in inspect.signature(f).parameters:
        groups = np.arange(len(y)) % 2 if groups is None else groups
        kw.update(segments={"g": groups}, min_samples=1)
    return f(y, p, **kw)


def test_metrics_are_found():
    assert {"log_loss", "brier_score", "roc_auc", "ece", "brier_curve", "spiegelhalter_z"} <= set(
        METRICS
    )


@pytest.mark.parametrize("name", METRICS)
@fewer(4)
@given(data=labelled(), weighted=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_metric_ignores_row_order_and_leaves_inputs_alone(name, data, weighted, seed):
    y, p, w = data
    w = w if weighted else None
    copies = y.copy(), p.copy(), None if w is None else w.copy()
    n = y.shape[0]
    groups = np.arange(n) % 2
    try:
        first = numbers(call(name, y, p, w, groups), n)
    except ValueError as exc:  # e.g. a statistic undefined on this sample: say so in one line
        assert "\n" not in str(exc)
        return
    again = numbers(call(name, y, p, w, groups), n)
    for key in first:
        assert first[key].tobytes() == again[key].tobytes(), key
    for a, b in zip((y, p, w), copies):
        if a is not None:
            assert np.array_equal(a, b), "an input was modified"
    perm = np.random.default_rng(seed).permutation(n)
    result = call(name, y[perm], p[perm], None if w is None else w[perm], groups[perm])
    shuffled = numbers(result, n, perm if name in PER_SAMPLE else None)
    assert first.keys() == shuffled.keys()
    tol = 1e-5 if name in ITERATIVE else 1e-9
    for key in first:
        np.testing.assert_allclose(
            shuffled[key], first[key], rtol=tol, atol=tol * 1e-3, err_msg=key
        )


@pytest.mark.parametrize("name", METRICS)
@fewer(4)
@given(data=labelled())
def test_two_column_probabilities_are_the_positive_column(name, data):
    y, p, _ = data
    n = y.shape[0]
    try:
        one = numbers(call(name, y, p, None), n)
    except ValueError:
        return
    two = numbers(call(name, y, np.column_stack([1.0 - p, p]), None), n)
    for key in one:
        np.testing.assert_allclose(two[key], one[key], rtol=1e-9, atol=1e-12, err_msg=key)
