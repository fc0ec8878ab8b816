"""Input that used to end in another library's exception (pandas, scikit-learn, numpy,
matplotlib) now gets one line naming the parameter and the owner, raised before any work."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

import venncal
from venncal import metrics
from venncal.datasets import make_bivariate_normal

matplotlib.use("Agg")


def _one_line(exc_type, fn, *fragments):
    with pytest.raises(exc_type) as info:
        fn()
    text = str(info.value)
    assert "\n" not in text, text
    for fragment in fragments:
        assert fragment in text, text


def _binary(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + rng.normal(size=n) > 0).astype(int)


@pytest.mark.parametrize("missing", [pd.NA, np.nan, None])
@pytest.mark.parametrize("metric", [metrics.brier_score, metrics.ece, metrics.log_loss])
def test_a_missing_pos_label_is_one_line(metric, missing):
    y = np.array([0, 1, 1, 0])
    p = np.array([0.2, 0.7, 0.6, 0.4])
    if missing is None:  # None means 0/1 labels: no error
        metric(y, p, pos_label=missing)
        return
    _one_line(ValueError, lambda: metric(y, p, pos_label=missing), "'pos_label' is missing")


def test_na_labels_are_one_line():
    s = np.linspace(0, 1, 20)
    y = pd.array([0, 1] * 9 + [pd.NA, 1], dtype="Int64")
    _one_line(ValueError, lambda: venncal.VennAbersCalibrator().fit(s, y), "'y'")
    cal = venncal.VennAbersCalibrator().fit(s, np.r_[[0, 1] * 10])
    _one_line(
        ValueError, lambda: cal.partial_fit(s, np.r_[[0, 1] * 10], classes=[0, pd.NA]), "'classes'"
    )


@pytest.mark.parametrize(
    "cls",
    [venncal.VennAbersClassifier, venncal.VennClassifier, venncal.MulticlassVennAbersClassifier],
)
@pytest.mark.parametrize("cal_size", [0.99, 0.01, 59])
def test_a_cal_size_that_leaves_a_side_too_small_is_one_line(cls, cal_size):
    X, y = _binary()
    _one_line(
        ValueError,
        lambda: cls(LogisticRegression(), cal_size=cal_size).fit(X, y),
        "'cal_size' parameter of",
        cls.__name__,
    )


def test_a_cal_size_that_leaves_enough_on_each_side_fits():
    X, y = _binary()
    venncal.VennAbersClassifier(LogisticRegression(), cal_size=0.95).fit(X, y)


@pytest.mark.parametrize(
    "cls",
    [venncal.VennAbersClassifier, venncal.VennClassifier, venncal.MulticlassVennAbersClassifier],
)
@pytest.mark.parametrize("estimator", [None, "logistic", 3])
def test_an_estimator_that_is_not_one_is_one_line(cls, estimator):
    X, y = _binary()
    _one_line(TypeError, lambda: cls(estimator=estimator).fit(X, y), "'estimator' parameter")


@pytest.mark.parametrize("weight", [1e308, np.finfo(float).max])
@pytest.mark.parametrize("multiclass", [None, "top_label", "classwise"])
def test_reliability_display_at_extreme_weights(weight, multiclass):
    from venncal.plotting import ReliabilityDisplay

    rng = np.random.default_rng(1)
    if multiclass is None:
        p = rng.random(40)
        y = (rng.random(40) < p).astype(int)
        plain = ReliabilityDisplay.from_predictions(y, p)
        disp = ReliabilityDisplay.from_predictions(y, p, sample_weight=np.full(40, weight))
    else:
        p = rng.dirichlet([1, 1, 1], size=40)
        y = np.arange(40) % 3
        kw = {"multiclass": multiclass, "class_label": 1}
        plain = ReliabilityDisplay.from_predictions(y, p, **kw)
        disp = ReliabilityDisplay.from_predictions(y, p, sample_weight=np.full(40, weight), **kw)
    heights = [b.get_height() for b in disp.bars_]
    assert np.isfinite(heights).all()
    # equal weights: the same frequencies and error as without weights
    np.testing.assert_allclose(disp.ece, plain.ece, rtol=1e-12)
    matplotlib.pyplot.close("all")


def test_a_data_set_larger_than_memory_is_one_line():
    _one_line(ValueError, lambda: make_bivariate_normal(10**12), "'n_samples'", "memory")
    assert make_bivariate_normal(50).X.shape[0] == 50


_MISSING_LABELS = {
    "Int64": pd.array([0, 1] * 19 + [1, pd.NA], dtype="Int64"),
    "object": pd.Series([0, 1] * 19 + [1, pd.NA], dtype=object),
    "string": pd.array(["a", "b"] * 19 + ["a", pd.NA], dtype="string"),
    "categorical": pd.Categorical(["a", "b"] * 19 + ["a", None]),
    "list": [0, 1] * 19 + [1, pd.NA],
}


@pytest.mark.parametrize(
    "cls",
    [venncal.VennAbersClassifier, venncal.VennClassifier, venncal.MulticlassVennAbersClassifier],
)
@pytest.mark.parametrize("kind", list(_MISSING_LABELS))
def test_classifiers_refuse_missing_labels_in_one_line(cls, kind):
    X, _ = _binary(40)
    _one_line(
        ValueError,
        lambda: cls(LogisticRegression()).fit(X, _MISSING_LABELS[kind]),
        "'y' holds",
        "every object needs a label",
    )


@pytest.mark.parametrize(
    "cls",
    [venncal.VennAbersClassifier, venncal.VennClassifier, venncal.MulticlassVennAbersClassifier],
)
def test_classifiers_refuse_labels_of_mixed_types_in_one_line(cls):
    X, _ = _binary(40)
    y = np.array(["a", 1] * 20, dtype=object)
    _one_line(TypeError, lambda: cls(LogisticRegression()).fit(X, y), "'y' mixes label types")
