"""Write the golden model files of this folder (run once per model-file format version).

``python -m tests.golden.make_golden`` writes ``calibration_data.csv`` (seeded) and one model
file per calibrator setting fitted on it. Existing files are never replaced: the golden files
of a released format must keep loading, unchanged, in every later version.
"""

import csv
import os
from pathlib import Path

import numpy as np

import venncal

HERE = Path(__file__).parent
DATA = HERE / "calibration_data.csv"

#: file stem -> (class name, parameters, weighted)
SETTINGS = {
    "venn_abers_v1": ("VennAbersCalibrator", {}, False),
    "venn_abers_weighted_v1": ("VennAbersCalibrator", {"merge": "square"}, True),
    "isotonic_v1": ("IsotonicCalibrator", {}, False),
    "isotonic_nearest_v1": ("IsotonicCalibrator", {"rule": "nearest"}, False),
    "platt_v1": ("PlattCalibrator", {}, False),
    "histogram_v1": ("HistogramCalibrator", {"n_bins": 8, "strategy": "quantile"}, True),
    "abb_v1": ("BayesianBinningCalibrator", {"method": "averaging", "lam": 5.0}, False),
    "sbb_v1": ("BayesianBinningCalibrator", {"method": "selection"}, False),
    "acp_v1": ("ACPCalibrator", {"alpha": 1.0}, False),
    "venn_abers_distribution_v1": ("VennAbersDistribution", {}, False),
    "venn_abers_distribution_groups_v1": ("VennAbersDistribution", {"merge": "log"}, True),
}
#: the predictive distributions fitted within groups (the labels 'neg' and 'pos' as groups)
GROUPED = {"venn_abers_distribution_groups_v1"}


def read_data():
    """Scores, labels ('neg'/'pos') and weights of the committed calibration data."""
    with open(DATA, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    s = np.array([float(r["score"]) for r in rows])  # float() reads decimals exactly rounded
    y = np.array([r["label"] for r in rows])
    w = np.array([float(r["weight"]) for r in rows])
    return s, y, w


def scores_to_check():
    """The test scores the golden predictions are checked on."""
    s, _, _ = read_data()
    return np.r_[np.linspace(-4.0, 4.0, 161), s[:40], -1e9, 1e9]


def fit(stem):
    cls, params, weighted = SETTINGS[stem]
    s, y, w = read_data()
    est = getattr(venncal, cls)(**params)
    if cls == "VennAbersDistribution":  # a regression target of the same rows
        groups = y if stem in GROUPED else None
        return est.fit(s, regression_target(), sample_weight=w if weighted else None, groups=groups)
    return est.fit(s, y, sample_weight=w if weighted else None)


def regression_target():
    """A real label per row of the committed data, for the predictive distributions: the
    score plus the weight column, shifted (ties among the labels included)."""
    s, _, w = read_data()
    return np.round(s + w - 1.75, 2)


def main():
    if not DATA.exists():
        import pandas as pd

        rng = np.random.default_rng(20261123)
        n = 400
        s = np.round(rng.normal(size=n), 2)
        y = np.where(rng.random(n) < 1 / (1 + np.exp(-1.5 * s)), "pos", "neg")
        w = np.round(rng.uniform(0.5, 3.0, size=n), 3)
        pd.DataFrame({"score": s, "label": y, "weight": w}).to_csv(DATA, index=False)
    for stem in SETTINGS:
        path = HERE / f"{stem}.json"
        if not path.exists():
            venncal.save(fit(stem), path)
            print("wrote", os.path.relpath(path))


if __name__ == "__main__":
    main()
