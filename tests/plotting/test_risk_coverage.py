"""RiskCoverageDisplay draws exactly the numbers of the selective-prediction metrics."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from venncal import AbstentionRule, metrics  # noqa: E402
from venncal.plotting import RiskCoverageDisplay  # noqa: E402


def _data(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return (rng.random(n) < p).astype(int), p


def test_the_lines_are_the_curves_and_the_point_the_rule():
    y, p = _data()
    rule = AbstentionRule(target_error=0.1).fit(p[:1500], y[:1500])
    accept = rule.accept(p[1500:])
    raw = p[1500:] + np.random.default_rng(1).normal(scale=0.2, size=1500)
    disp = RiskCoverageDisplay.from_predictions(
        y[1500:],
        {"model": p[1500:], "raw ranking": p[1500:]},
        confidence={"raw ranking": raw},
        accept={"model": accept},
        target_error=0.1,
    )
    curve = metrics.risk_coverage_curve(y[1500:], p[1500:])
    x, h = disp.lines_["model"].get_data()
    np.testing.assert_array_equal(x, curve.coverage)
    np.testing.assert_array_equal(h, curve.risk)
    assert disp.curves["raw ranking"].aurc == metrics.aurc(y[1500:], p[1500:], confidence=raw)
    assert disp.curves["raw ranking"].aurc > curve.aurc  # a noisier ranking
    point = metrics.selective_error(y[1500:], p[1500:], accept=accept)
    assert disp.points["model"] == point
    assert f"AURC = {curve.aurc:.4f}" in disp.lines_["model"].get_label()
    assert set(disp.points_) == {"model"}
    plt.close("all")


def test_k_classes_and_an_axis_of_ones_own():
    rng = np.random.default_rng(2)
    P = rng.dirichlet(np.ones(3), 200)
    y = np.array([rng.choice(3, p=row) for row in P])
    y[:3] = [0, 1, 2]
    fig, ax = plt.subplots()
    disp = RiskCoverageDisplay.from_predictions(y, P, ax=ax)
    assert disp.ax_ is ax and disp.figure_ is fig
    assert disp.curves["classifier"].aurc == metrics.aurc(y, P)
    plt.close("all")
