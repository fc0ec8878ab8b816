"""The displays render headless and draw exactly the numbers of the metric functions."""

import itertools
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from venncal import metrics  # noqa: E402
from venncal.plotting import (  # noqa: E402
    BrierCurveDisplay,
    CriticalDifferenceDisplay,
    ReliabilityDisplay,
    VennIntervalDisplay,
    cliques,
)


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    p = rng.random(n) ** 2
    y = (rng.random(n) < p).astype(int)
    return y, p


def test_import_plotting_does_not_import_matplotlib():
    code = "import sys\nimport venncal.plotting\nassert 'matplotlib' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_display_data_equal_metrics(strategy):
    y, p = _data()
    disp = ReliabilityDisplay.from_predictions(y, p, n_bins=8, strategy=strategy, name="m")
    curve = metrics.reliability_curve(y, p, n_bins=8, strategy=strategy)
    np.testing.assert_array_equal(disp.curve.counts, curve.counts)
    np.testing.assert_array_equal(disp.curve.bin_edges, curve.bin_edges)
    nz = curve.nonempty
    np.testing.assert_array_equal(disp.line_.get_xdata(), curve.predicted)
    np.testing.assert_array_equal(disp.line_.get_ydata(), curve.observed)
    assert disp.ece == metrics.ece(y, p, n_bins=8, strategy=strategy)
    # bars show the per-bin counts, empty bins included
    heights = [bar.get_height() for bar in disp.bars_]
    np.testing.assert_array_equal(heights, curve.counts)
    # error bars are the exact binomial intervals
    lo, hi = curve.confidence_interval(0.95)
    segments = disp.errorbar_.lines[2][0].get_segments()
    np.testing.assert_allclose([s[0][1] for s in segments], lo[nz])
    np.testing.assert_allclose([s[1][1] for s in segments], hi[nz])
    assert disp.figure_ is disp.ax_.figure
    assert "ECE = " in disp.line_.get_label()


def test_reliability_display_marks_empty_bins():
    y = [0, 1, 1, 0, 1]
    p = [0.05, 0.15, 0.95, 0.12, 0.9]
    disp = ReliabilityDisplay.from_predictions(y, p, n_bins=10)
    empty = ~disp.curve.nonempty
    assert empty.sum() == 7
    # no marker for an empty bin: the line holds NaN there
    assert np.isfinite(disp.line_.get_ydata()).sum() == 3
    assert np.isnan(disp.line_.get_ydata()[empty]).all()
    hatched = [patch for patch in disp.ax_.patches if patch.get_hatch() == "//"]
    assert len(hatched) == 7
    labels = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert "empty bin" in labels


@pytest.mark.parametrize("n", [5, 300, 10_000])
def test_reliability_display_count_zero_at_probability_zero(n):
    y, p = _data(2, n)
    fig, ax = plt.subplots(figsize=(6, 5), dpi=100)
    disp = ReliabilityDisplay.from_predictions(y, p, ax=ax)
    fig.canvas.draw()
    count_zero = disp.counts_ax_.transData.transform((0, 0))[1]
    probability_zero = disp.ax_.transData.transform((0, 0.0))[1]
    assert abs(count_zero - probability_zero) < 0.5
    # the bars still take at most about a quarter of the height
    top = disp.counts_ax_.transData.transform((0, disp.curve.counts.max()))[1]
    height = disp.ax_.bbox.height
    assert 0 < top - count_zero <= 0.26 * height
    disp.ax_.set_ylim(-0.1, 1.1)  # a later rescale keeps them aligned
    fig.canvas.draw()
    count_zero = disp.counts_ax_.transData.transform((0, 0))[1]
    assert abs(count_zero - disp.ax_.transData.transform((0, 0.0))[1]) < 0.5


def test_reliability_display_on_given_axes_and_replot():
    y, p = _data(1)
    fig, axes = plt.subplots(1, 2)
    disp = ReliabilityDisplay.from_predictions(y, p, ax=axes[0])
    assert disp.ax_ is axes[0] and disp.figure_ is fig
    assert disp.plot(ax=axes[1], name="again") is disp
    assert disp.ax_ is axes[1]


def test_venn_display_data_equal_metrics():
    rng = np.random.default_rng(3)
    mid = rng.uniform(0.05, 0.9, 500)
    p0, p1 = mid - 0.04, mid + 0.06
    y = (rng.random(500) < mid).astype(int)
    disp = VennIntervalDisplay.from_predictions(y, p0, p1, n_bins=6)
    v = metrics.interval_validity(y, p0, p1, n_bins=6)
    nz = v.counts > 0
    np.testing.assert_allclose(disp.line_.get_ydata(), v.bin_observed[nz])
    segs = disp.intervals_.get_segments()
    np.testing.assert_allclose([s[0][1] for s in segs], v.bin_lower[nz])
    np.testing.assert_allclose([s[1][1] for s in segs], v.bin_upper[nz])
    assert disp.validity.valid == v.valid


def test_venn_display_flags_bins_outside():
    y = np.r_[np.ones(20, int), np.zeros(20, int)]
    p0 = np.r_[np.full(20, 0.1), np.full(20, 0.7)]
    disp = VennIntervalDisplay.from_predictions(y, p0, p0 + 0.1, n_bins=5)
    labels = [line.get_label() for line in disp.ax_.lines]
    assert "outside the interval" in labels


def test_brier_curve_display_data_equal_metrics():
    y, p = _data(2)
    preds = {"raw": p, "sharpened": p**2}
    disp = BrierCurveDisplay.from_predictions(y, preds, recalibrated=True)
    for name, q in preds.items():
        curve = metrics.brier_curve(y, q)
        np.testing.assert_array_equal(disp.lines_[name].get_xdata(), curve.costs)
        np.testing.assert_array_equal(disp.lines_[name].get_ydata(), curve.loss)
        rec = disp.recalibrated_lines_[name]
        np.testing.assert_array_equal(rec.get_ydata(), curve.recalibrated.loss)
        assert f"{metrics.brier_score(y, q):.4f}" in disp.lines_[name].get_label()
    # the two sets of predictions share one axis
    assert len(disp.ax_.lines) == 4


def test_brier_curve_display_single_array_and_errors():
    y, p = _data(4)
    disp = BrierCurveDisplay.from_predictions(y, p)
    assert list(disp.lines_) == ["classifier"] and disp.recalibrated_lines_ == {}
    with pytest.raises(ValueError, match="empty dict"):
        BrierCurveDisplay.from_predictions(y, {})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        BrierCurveDisplay.from_predictions(y, {"bad": p + 1})


def _naive_cliques(ranks, cd):
    """All maximal sets of methods, consecutive in rank, whose rank range is below cd."""
    names = sorted(ranks, key=lambda k: ranks[k])
    groups = []
    for i, j in itertools.combinations(range(len(names)), 2):
        if ranks[names[j]] - ranks[names[i]] < cd:
            groups.append((i, j))
    maximal = [
        (i, j)
        for i, j in groups
        if not any((a <= i and j <= b) and (a, b) != (i, j) for a, b in groups)
    ]
    return [tuple(names[i : j + 1]) for i, j in sorted(maximal)]


@pytest.mark.parametrize("seed", range(20))
def test_cliques_match_naive(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 9))
    ranks = {f"m{i}": float(r) for i, r in enumerate(rng.uniform(1, k, k))}
    cd = float(rng.uniform(0.1, 3))
    assert cliques(ranks, cd) == _naive_cliques(ranks, cd)


def test_critical_difference_display():
    from venncal.metrics.ranking import average_ranks, nemenyi_critical_difference

    rng = np.random.default_rng(0)
    table = rng.random((12, 5)) + np.arange(5) * 0.2
    avg = average_ranks(table)
    avg = np.asarray(getattr(avg, "values", avg), dtype=float).ravel()
    ranks = {f"method {i}": float(r) for i, r in enumerate(avg)}
    cd = float(nemenyi_critical_difference(5, 12, 0.05))
    disp = CriticalDifferenceDisplay.from_ranks(ranks, cd)
    assert disp.cliques_ == cliques(ranks, cd)
    texts = [t.get_text() for t in disp.ax_.texts]
    for name, r in ranks.items():
        assert f"{name} ({r:.2f})" in texts
    assert f"CD = {cd:.2f}" in texts


def test_critical_difference_bad_input():
    with pytest.raises(ValueError, match="at least two"):
        CriticalDifferenceDisplay.from_ranks({"a": 1.0}, 1.0)
    with pytest.raises(ValueError, match="critical_difference"):
        CriticalDifferenceDisplay.from_ranks({"a": 1.0, "b": 2.0}, -1)
    with pytest.raises(ValueError, match="finite"):
        CriticalDifferenceDisplay.from_ranks({"a": 1.0, "b": np.nan}, 1.0)


def test_displays_save_png(tmp_path):
    y, p = _data(5)
    disp = ReliabilityDisplay.from_predictions(y, p)
    out = tmp_path / "r.png"
    disp.figure_.savefig(out)
    assert out.stat().st_size > 1000
