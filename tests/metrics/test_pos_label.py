"""``pos_label`` in every metric that takes ``y_true``: any two labels, one named positive."""

import dataclasses
import inspect

import numpy as np
import pytest

from venncal import metrics
from venncal.metrics import _multiclass as multiclass_metrics

#: multiclass metrics name their classes with labels= (tests/metrics/test_multiclass_metrics.py)
MULTICLASS = set(multiclass_metrics.__all__)


def _metrics_with_y_true():
    found = []
    for name in metrics.__all__:
        obj = getattr(metrics, name)
        if name in MULTICLASS:
            continue
        if inspect.isfunction(obj) and "y_true" in inspect.signature(obj).parameters:
            found.append(obj)
    return found


METRICS = _metrics_with_y_true()

RNG = np.random.default_rng(0)
P = RNG.uniform(0.05, 0.95, 40)
P1 = np.minimum(P + 0.1, 1.0)
Y01 = (RNG.random(40) < P).astype(int)
Y01[:2] = [0, 1]


def _call(func, y, **kw):
    params = inspect.signature(func).parameters
    if "metric" in params:  # bootstrap_ci
        return func(metrics.brier_score, y, P, n_resamples=20, random_state=0, **kw)
    if "p0" in params and params["y_true"].kind is inspect.Parameter.KEYWORD_ONLY:
        return func(P, P1, P, y_true=y, **kw)  # merge_regret
    if "p0" in params:
        return func(y, P, P1, **kw)  # interval_validity
    if "segments" in params:  # multicalibration_error
        return func(y, P, segments={"g": np.arange(len(P)) % 3}, **kw)
    return func(y, P, **kw)


def _plain(value):
    if dataclasses.is_dataclass(value):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return {i: _plain(v) for i, v in enumerate(value)}
    if value is None or isinstance(value, str):
        return value
    if hasattr(value, "to_dict"):  # a table
        return {k: _plain(list(v.values())) for k, v in value.to_dict().items()}
    if callable(value):
        return _plain(value(np.linspace(0, 1, 11)))
    return np.asarray(value, dtype=float)


def _assert_same(a, b):
    """Equal key by key (numpy's ``assert_equal`` walks nested dicts; NaN equals NaN)."""
    np.testing.assert_equal(_plain(a), _plain(b))


def test_every_metric_with_y_true_is_found():
    names = {f.__name__ for f in METRICS}
    assert {"brier_score", "ece", "roc_auc", "bootstrap_ci", "interval_validity"} <= names
    assert "merge_regret" in names and len(names) >= 19


@pytest.mark.parametrize("func", METRICS, ids=lambda f: f.__name__)
def test_pos_label_keyword_only(func):
    param = inspect.signature(func).parameters["pos_label"]
    assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default is None


@pytest.mark.parametrize("func", METRICS, ids=lambda f: f.__name__)
def test_string_labels_with_pos_label_agree_with_01(func):
    words = np.where(Y01 == 1, "yes", "no")
    _assert_same(_call(func, words, pos_label="yes"), _call(func, Y01))
    # the other label as positive is the same as flipping the labels
    _assert_same(_call(func, words, pos_label="no"), _call(func, 1 - Y01))


@pytest.mark.parametrize("func", METRICS, ids=lambda f: f.__name__)
def test_pos_label_not_among_labels(func):
    words = np.where(Y01 == 1, "yes", "no")
    with pytest.raises(ValueError, match="pos_label") as info:
        _call(func, words, pos_label="maybe")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("func", METRICS, ids=lambda f: f.__name__)
def test_pos_label_refuses_three_labels(func):
    words = np.where(Y01 == 1, "yes", "no")
    words[2] = "maybe"
    with pytest.raises(ValueError, match="y_true"):
        _call(func, words, pos_label="yes")


def test_numeric_pos_label():
    y = np.where(Y01 == 1, 2, -1)
    assert metrics.brier_score(y, P, pos_label=2) == metrics.brier_score(Y01, P)
    assert metrics.ece(y, P, pos_label=-1) == metrics.ece(1 - Y01, P)


def test_one_class_with_pos_label():
    assert metrics.brier_score(["yes", "yes"], [1.0, 1.0], pos_label="yes") == 0.0


def test_default_still_requires_01():
    with pytest.raises(ValueError, match="y_true"):
        metrics.brier_score(np.where(Y01 == 1, "yes", "no"), P)
