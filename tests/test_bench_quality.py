"""The calibration-quality benchmark runs on a small configuration and ranks correctly."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_quality.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH.parent))
    try:
        spec = importlib.util.spec_from_file_location("bench_quality", BENCH)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(BENCH.parent))


@pytest.mark.parametrize("classifier", ["LR", "SVM"])
def test_one_cell_scores_every_calibrator(bench, classifier):
    rows = bench.run_cell({"dataset": "labor", "classifier": classifier, "repeat": 0, "seed": 1000})
    frame = pd.DataFrame(rows)
    expected = {"uncalibrated", "VA-log", "VA-square", "VA-mean", "CVA-log", "SVA", "Platt",
                "Isotonic", "Histogram", "SBB", "ABB", "Beta", "sk-sigmoid", "sk-isotonic",
                "Quadratic", "Temperature", "chooser"}  # fmt: skip
    assert expected <= set(frame["method"])
    assert frame["method"].is_unique
    assert (frame["brier"].between(0, 1)).all() and (frame["ece"].between(0, 1)).all()
    assert np.isfinite(frame["log_loss"]).all() and (frame["log_loss"] > 0).all()
    # 57 rows: ceil(0.2 * 57) = 12 for testing, then ceil(0.25 * 45) = 12 for calibration
    assert (frame["n_cal"] == 12).all()


def test_summary_ranks_the_best_first(bench):
    rng = np.random.default_rng(0)
    rows = []
    for d in range(6):
        for c in ("LR", "RF"):
            base = rng.uniform(0.2, 0.6)
            for m, shift in (("good", 0.0), ("mid", 0.05), ("bad", 0.1)):
                rows.append({"dataset": f"d{d}", "classifier": c, "repeat": 0, "method": m,
                             "log_loss": base + shift, "brier": base / 3 + shift,
                             "ece": 0.05 + shift, "fit_seconds": 0.001, "n_cal": 50 + 100 * d})  # fmt: skip
    summary = bench.summarise(pd.DataFrame(rows))
    for metric in bench.METRICS:
        ranks = summary[metric]["ranks"]
        assert ranks["good"] == 1.0 and ranks["mid"] == 2.0 and ranks["bad"] == 3.0
        assert summary[metric]["friedman"].pvalue < 0.01
    text = bench.render(summary, "python benchmarks/bench_quality.py")
    assert "| good | 1.00 | 1.00 | 1.00 |" in text


def test_against_raw_counts_cells_below_the_raw_model(bench):
    rows = []
    for d in range(4):
        for m, ll in (("uncalibrated", 0.5), ("better", 0.4 if d < 3 else 0.6), ("worse", 0.55)):
            rows.append({"dataset": f"d{d}", "classifier": "LR", "repeat": 0, "method": m,
                         "log_loss": ll})  # fmt: skip
    table = bench.against_raw(pd.DataFrame(rows))
    assert table.loc["better", "share_lower_than_raw"] == 0.75
    assert table.loc["worse", "share_lower_than_raw"] == 0.0
    assert table.loc["better", "median_relative_change"] == pytest.approx(-0.2)
    assert table.loc["worse", "mean_log_loss"] == pytest.approx(0.55)
    assert "uncalibrated" not in table.index
