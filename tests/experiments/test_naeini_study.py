"""The Naeini et al. study's settings, its ceiling, and a small run with every option."""

import numpy as np
import pytest
from scipy.special import expit

from venncal.datasets import OffsetXorModel, SeparableModel
from venncal.experiments.studies import naeini_2014 as study
from venncal.experiments.studies import run_study

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class _LinearScore:
    """A fixed 'classifier' whose probability is expit(w . x)."""

    def __init__(self, w):
        self.w = np.asarray(w, float)

    def predict_proba(self, X):
        p = expit(np.asarray(X) @ self.w)
        return np.column_stack([1 - p, p])


def test_defaults_follow_the_paper():
    cfg = study.default_config("full")
    assert cfg["hist_strategy"] == "quantile"  # Zadrozny & Elkan's equal-frequency bins
    assert cfg["abb_averaging"] == "exact"
    assert cfg["acp_adjustment"] == "symmetric"
    assert (cfg["n_train"], cfg["n_cal"], cfg["n_test"]) == (600, 600, 600)
    kw = study._calibrator_kwargs
    assert kw("Hist", {"n_bins": 10}, cfg) == {"n_bins": 10, "strategy": "quantile"}
    assert kw("ABB", {"method": "averaging"}, cfg) == {"method": "averaging"}
    assert kw("ABB", {}, dict(cfg, abb_averaging="paper")) == {"averaging": "paper"}
    assert kw("ACP", {}, dict(cfg, acp_adjustment="none")) == {"interval_adjustment": "none"}


def test_ceiling_of_a_perfect_and_of_a_useless_score():
    perfect = study.ceiling(SeparableModel(), _LinearScore([3.0, 3.0]), 20_000, 0)
    assert perfect["AUC"] > 0.999 and perfect["Acc"] > 0.99
    useless = study.ceiling(SeparableModel(), _LinearScore([3.0, -3.0]), 20_000, 0)
    # the estimate of P(y | score) from 500 draws per bin is off by about 0.02 per bin
    assert abs(useless["AUC"] - 0.5) < 0.02 and useless["ECE"] < 0.04


def test_ceiling_sees_both_ends_of_the_xor_score():
    # the score along the positive diagonal ranks the classes at chance, yet its ideal
    # (non-monotone) calibration separates them: positives at both ends, negatives between
    score = _LinearScore([1.0, 1.0])
    X, y = OffsetXorModel().sample(20_000, random_state=1)
    from venncal.metrics import roc_auc

    assert abs(roc_auc(y, score.predict_proba(X)[:, 1]) - 0.5) < 0.05
    ideal = study.ceiling(OffsetXorModel(), score, 50_000, 2)
    assert ideal["AUC"] > 0.9
    # and it is calibrated, being the true P(y | score) up to the binning
    assert ideal["ECE"] < 0.02


@pytest.mark.slow
def test_small_run_with_every_option():
    res = run_study(
        "naeini-2014",
        overrides=dict(
            panels=["Separable/LR", "XOR/LR"],
            n_repeats=2,
            ceiling_samples=5_000,
            hist_strategy="uniform",
            abb_averaging="paper",
            acp_adjustment="none",
        ),
        progress=False,
    )
    methods = set(res.raw["method"])
    assert {"base", "ACP", "IsoReg", "Platt", "Hist", "SBB", "ABB", "ceiling"} <= methods
    assert "Linearly separable data (section 3; no numbers in the paper), LR, ours" in res.tables
    table = res.tables["Table 2(a): XOR, LR, ours (paper)"]
    assert table.loc["AUC", "base"].endswith("(0.497)")
    assert table.loc["AUC", "ceiling"] == table.loc["AUC", "ceiling"].split(" ")[0]
    assert any("strategy `uniform`" in n and "`paper` averaging" in n for n in res.notes)
    assert all("2 draws" in k for k in res.checks)
