"""The Naeini study's simulated designs come from the paper's description and LR row only, and
its agreement tables mark every cell and bracket it by the design family."""

import numpy as np
import pandas as pd
import pytest

from venncal.experiments.paper_tables import load_paper_table
from venncal.experiments.runner import cell_seed
from venncal.experiments.studies import _naeini_agreement as agreement
from venncal.experiments.studies import _naeini_designs as designs
from venncal.experiments.studies import naeini_2014 as study
from venncal.experiments.studies._naeini_tuning import fit_stretch_to_lr_row

_CALIBRATOR_WORDS = ("ACP", "IsoReg", "isotonic", "Platt", "Hist", "histogram", "SBB", "ABB")


# ---------------------------------------------------------------- the designs


def test_central_designs_are_the_documented_derivation():
    xor, disc = designs.central_design("XOR"), designs.central_design("Circular")
    d = designs.DERIVATION
    assert (xor.stretch, xor.rho, xor.flip) == (
        d["XOR"]["stretch"][0],
        d["XOR"]["rho"][0],
        d["XOR"]["flip"][0],
    )
    assert (disc.stretch, disc.aspect, disc.flip) == (
        d["Circular"]["stretch"][0],
        d["Circular"]["aspect"][0],
        d["Circular"]["flip"][0],
    )
    # the circle holds half the mass of two standard normal features: 1 - exp(-r^2 / 2) = 1/2
    assert disc.radius == d["Circular"]["radius"][0]
    assert 1 - np.exp(-(disc.radius**2) / 2) == pytest.approx(0.5, abs=1e-15)
    # the study's XOR and Circular panels draw from these designs
    assert study.DESIGNS["XOR"] == xor and study.DESIGNS["Circular"] == disc


def test_no_design_parameter_comes_from_a_calibrator_row():
    for dataset, params in designs.DERIVATION.items():
        for name, (_, source) in params.items():
            assert not any(w in source for w in _CALIBRATOR_WORDS), (dataset, name, source)
            assert "Figure" in source or "LR row" in source or "section 3" in source
    # the one fitted number is fitted to the LR row, whose values are the paper's
    paper = load_paper_table("naeini_2014_table2")
    for dataset, letter in (("XOR", "a"), ("Circular", "b")):
        assert "LR row" in designs.DERIVATION[dataset]["stretch"][1]
        lr = paper[(paper["panel"] == letter) & (paper["method"] == "base")]
        assert designs.PAPER_LR_ROW[dataset] == dict(zip(lr["metric"], lr["value"]))


def test_the_fitting_draws_are_not_the_study_draws():
    panels = [p for ds in ("XOR", "Circular") for p in designs.family_panels(ds)]
    committed = {cell_seed({"panel": p, "repeat": r}, 0) for p in panels for r in range(20)}
    assert committed.isdisjoint(designs.TUNING_SEEDS)


@pytest.mark.parametrize("dataset", ["XOR", "Circular"])
def test_central_design_has_balanced_classes_and_its_rule_as_posterior(dataset):
    design = designs.central_design(dataset)
    X, y = design.sample(200_000, random_state=3)
    assert abs(y.mean() - 0.5) < 0.005  # the LR row's RMSE of 0.500 asks for balance
    # no label noise: the posterior (read through the stretch) is the label itself
    np.testing.assert_array_equal(design.posterior(X), y)


@pytest.mark.parametrize("dataset", ["XOR", "Circular"])
def test_every_noiseless_design_has_its_rule_as_posterior(dataset):
    # the gap and the stretch move points without crossing the boundary; the posterior reads
    # the rule through them
    for label, design in designs.design_family(dataset).items():
        if design.flip:
            continue
        X, y = design.sample(20_000, random_state=7)
        np.testing.assert_array_equal(design.posterior(X), y, err_msg=label)


def test_gap_empties_a_band_around_the_boundary():
    X, y = designs.SignXorDesign(gap=0.5, stretch=1.0).sample(20_000, random_state=8)
    assert np.abs(X).min() >= 0.5
    X, y = designs.DiscDesign(gap=0.5, stretch=1.0).sample(20_000, random_state=8)
    r = np.hypot(X[:, 0], X[:, 1])
    radius = designs.DiscDesign.radius
    assert r[y == 1].max() < radius <= radius + 0.5 <= r[y == 0].min() + 1e-12


@pytest.mark.parametrize("make", [designs.SignXorDesign, designs.DiscDesign])
def test_flipped_labels_have_the_stated_rate(make):
    X, y = make(flip=0.1).sample(100_000, random_state=4)
    p = make(flip=0.1).posterior(X)
    assert set(np.unique(p)) == {0.1, 0.9}
    wrong = np.mean(y != (p > 0.5))
    assert abs(wrong - 0.1) < 0.005


def test_stretch_moves_one_side_only():
    base = designs.SignXorDesign(stretch=1.0).sample(5_000, random_state=5)[0]
    X = designs.SignXorDesign(stretch=2.0).sample(5_000, random_state=5)[0]
    third = (base[:, 0] < 0) & (base[:, 1] < 0)
    np.testing.assert_allclose(X[third], 2.0 * base[third])
    np.testing.assert_array_equal(X[~third], base[~third])
    base = designs.DiscDesign(stretch=1.0).sample(5_000, random_state=6)[0]
    X = designs.DiscDesign(stretch=2.0).sample(5_000, random_state=6)[0]
    right = base[:, 0] > 0
    np.testing.assert_allclose(X[right, 0], 2.0 * base[right, 0])
    np.testing.assert_array_equal(X[~right], base[~right])
    np.testing.assert_array_equal(X[:, 1], base[:, 1])


def test_family_is_the_central_design_and_one_change_each():
    for dataset in ("XOR", "Circular"):
        family = designs.design_family(dataset)
        labels = list(family)
        assert labels[0] == "central"
        central = family["central"]
        for label, design in family.items():
            changed = [
                f for f in central.__dataclass_fields__ if getattr(design, f) != getattr(central, f)
            ]
            assert len(changed) == (0 if label == "central" else 1), (label, changed)
        panels = designs.family_panels(dataset)
        assert list(panels)[0] == f"{dataset}/LR"
        assert set(panels) - {f"{dataset}/LR"} <= study.FAMILY_PANELS


def test_fit_stretch_returns_the_closest_value():
    best, table = fit_stretch_to_lr_row("XOR", [1.0, 1.5], seeds=range(20_000, 20_006))
    assert set(table) == {1.0, 1.5}
    assert best == min(table, key=lambda k: table[k][0])
    assert all(d >= 0 for d, _ in table.values())


# ---------------------------------------------------------------- agreement


def _fake_raw(shift=None, n_repeats=4, seed=0):
    """Study-shaped results for every panel of both families; ``shift`` adds to a method."""
    rng = np.random.default_rng(seed)
    methods = ("base", "ACP", "IsoReg", "Platt", "Hist", "SBB", "ABB")
    rows = []
    for ds in ("XOR", "Circular"):
        for i, panel in enumerate(designs.family_panels(ds)):
            for r in range(n_repeats):
                for m in methods:
                    vals = {k: 0.5 + 0.02 * i + 0.05 * rng.random() for k in study.METRICS}
                    if shift and m in shift:
                        vals = {k: v + shift[m] for k, v in vals.items()}
                    rows.append({"panel": panel, "repeat": r, "method": m, **vals})
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("dataset", "letter"), [("XOR", "a"), ("Circular", "b")])
def test_every_cell_of_the_paper_is_marked_fitted_or_held_out(dataset, letter):
    paper = load_paper_table("naeini_2014_table2")
    table = agreement.cell_table(_fake_raw(), paper, dataset, letter)
    pp = paper[paper["panel"] == letter]
    assert set(zip(table["metric"], table["method"])) == set(zip(pp["metric"], pp["method"]))
    assert len(table) == len(pp)
    assert set(table["role"]) == {"fitted", "monotone map of the fitted row", "held out"}
    assert (table["role"] == "fitted").eq(table["method"] == "base").all()
    # Platt scaling is a monotone map of LR's score: not counted as held out
    assert (table["role"] == "monotone map of the fitted row").eq(table["method"] == "Platt").all()
    assert (table["n_designs"] == len(designs.design_family(dataset))).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_band_contains_the_central_design(seed):
    paper = load_paper_table("naeini_2014_table2")
    raw = _fake_raw(seed=seed)
    for dataset, letter in (("XOR", "a"), ("Circular", "b")):
        t = agreement.cell_table(raw, paper, dataset, letter)
        assert (t["band_low"] <= t["ours"]).all() and (t["ours"] <= t["band_high"]).all()
        # the central mean and its spread, recomputed directly
        row = t[(t["metric"] == "AUC") & (t["method"] == "SBB")].iloc[0]
        v = raw[(raw["panel"] == f"{dataset}/LR") & (raw["method"] == "SBB")]["AUC"]
        assert row["ours"] == pytest.approx(v.mean())
        assert row["sd_draw"] == pytest.approx(v.std(ddof=1))
        assert row["se_mean"] == pytest.approx(v.std(ddof=1) / np.sqrt(len(v)))


def test_summary_counts_match_a_direct_computation():
    paper = load_paper_table("naeini_2014_table2")
    t = agreement.cell_table(_fake_raw(), paper, "XOR", "a")
    s = agreement.summary(t)
    held = t[t["role"] == "held out"]
    assert s["held out"]["cells"] == 25  # ACP, IsoReg, Hist, SBB, ABB; Platt apart
    assert s["held out"]["median |ours - paper|"] == pytest.approx(held["diff"].abs().median())
    assert s["held out"]["within 0.03"] == int((held["diff"].abs() <= 0.03).sum())
    assert s["fitted"]["cells"] == 5


def test_a_comparison_holds_on_every_design_only_when_it_does():
    better = _fake_raw(shift={"ABB": 0.2})  # ABB higher on every metric of every design
    c = agreement.conclusions(better, "XOR", claims=(("ABB", "IsoReg"),))
    auc = c[c["metric"] == "AUC"].iloc[0]
    n_designs = len(designs.design_family("XOR"))
    assert auc["holds"] == auc["designs"] == n_designs and auc["low"] > 0.1
    # higher RMSE and ECE are worse: the same shift makes those comparisons fail everywhere
    assert (c[c["metric"] != "AUC"]["holds"] == 0).all()
    assert (c[c["metric"] != "AUC"]["high"] < 0).all()
