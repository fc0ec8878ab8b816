"""Bad input fails with a clear one-line error; importing the metrics stays light."""

import subprocess
import sys

import numpy as np
import pytest

from venncal import metrics

Y = [0, 1, 1, 0]
P = [0.1, 0.8, 0.6, 0.3]

BINARY_METRICS = [
    metrics.log_loss,
    metrics.brier_score,
    metrics.rmse,
    metrics.accuracy,
    metrics.roc_auc,
    metrics.log_loss_samples,
    metrics.brier_score_samples,
    metrics.ece,
    metrics.mce,
    metrics.debiased_ece,
    metrics.reliability_curve,
    metrics.brier_decomposition,
    metrics.corp_decomposition,
    metrics.spiegelhalter_z,
    metrics.calibration_slope_intercept,
    metrics.brier_curve,
]


@pytest.mark.parametrize("metric", BINARY_METRICS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("y", "p", "match"),
    [
        (Y, [0.1, 1.2, 0.6, 0.3], r"must lie in \[0, 1\]"),
        (Y, [0.1, -0.01, 0.6, 0.3], r"must lie in \[0, 1\]"),
        (Y, [0.1, np.nan, 0.6, 0.3], "NaN"),
        (Y, [0.1, np.inf, 0.6, 0.3], "infinite"),
        ([0, 2, 1, 0], P, "only 0 and 1"),
        ([-1, 1, 1, -1], P, "only 0 and 1"),
        (["a", "b", "a", "b"], P, "only 0 and 1"),
        ([0, np.nan, 1, 0], P, "NaN"),
        (Y, P[:3], "Inconsistent lengths"),
        ([], [], "empty"),
        (Y, np.ones((4, 3)) / 3, "two columns"),
        (Y, [[0.5, 0.6]] * 4, "sum to 1"),
    ],
)
def test_bad_input_raises(metric, y, p, match):
    with pytest.raises(ValueError, match=match) as info:
        metric(y, p)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("metric", [metrics.ece, metrics.mce, metrics.reliability_curve])
def test_bad_binning_options(metric):
    with pytest.raises(ValueError, match="n_bins"):
        metric(Y, P, n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        metric(Y, P, strategy="kmeans")


def test_bad_weights():
    with pytest.raises(ValueError, match="non-negative"):
        metrics.brier_score(Y, P, sample_weight=[1, -1, 1, 1])
    with pytest.raises(ValueError, match="4 samples"):
        metrics.ece(Y, P, sample_weight=[1, 1])


def test_one_class_rules():
    # scores are defined for one class; AUC and the slope are not
    assert metrics.brier_score([1, 1], [0.5, 1.0]) == pytest.approx(0.125)
    with pytest.raises(ValueError, match="one class"):
        metrics.roc_auc([1, 1], [0.5, 0.7])
    with pytest.raises(ValueError, match="both classes"):
        metrics.calibration_slope_intercept([1, 1], [0.5, 0.7])


def test_venn_metric_inputs():
    with pytest.raises(ValueError, match="Inconsistent lengths"):
        metrics.interval_width([0.1, 0.2], [0.3])
    with pytest.raises(ValueError, match="p1"):
        metrics.interval_width([0.1], [1.3])
    with pytest.raises(ValueError, match="target"):
        metrics.interval_validity([0], [0.1], [0.2], target="both")
    with pytest.raises(ValueError, match="loss"):
        metrics.merge_regret([0.1], [0.2], [0.15], loss="hinge")
    with pytest.raises(ValueError, match="only 0 and 1"):
        metrics.interval_validity([3], [0.1], [0.2])


def test_bootstrap_inputs():
    with pytest.raises(TypeError, match="callable"):
        metrics.bootstrap_ci("ece", Y, P)
    with pytest.raises(ValueError, match="method"):
        metrics.bootstrap_ci(metrics.ece, Y, P, method="student")
    with pytest.raises(ValueError, match="confidence_level"):
        metrics.bootstrap_ci(metrics.ece, Y, P, confidence_level=1.5)


def test_results_are_frozen():
    d = metrics.brier_decomposition(Y, P)
    with pytest.raises(AttributeError):
        d.reliability = 0.0
    with pytest.raises(AttributeError):
        metrics.brier_curve(Y, P).area = 0.0


def test_import_does_not_load_sklearn_or_matplotlib():
    code = (
        "import sys\n"
        "import venncal.metrics\n"
        "bad = [m for m in ('sklearn', 'matplotlib', 'pandas') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "import venncal.metrics as m\n"
        "m.brier_curve([0, 1], [0.2, 0.7]); m.corp_decomposition([0, 1], [0.2, 0.7])\n"
        "bad = [m for m in ('sklearn', 'matplotlib') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
