"""Every check of every study can fail: a mutation of the committed full results per check.

Each study's checks are recomputed from its committed results (``results/<study>-full/``). For
every check, a mutation of those results that goes against the claim must make that check fail
(for a claim the paper's own table contradicts: a mutation that makes the claim hold). A check
that already fails on the committed results is left out (nothing to watch fail), and every
check must have a mutation: a new check without one fails this test.
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

RESULTS = Path(__file__).resolve().parents[2] / "results"


def _read(study):
    path = RESULTS / f"{study}-full" / "results.csv"
    if not path.is_file():
        pytest.skip(f"no committed results for {study}")
    return pd.read_csv(path)


def _head(key):
    """The statement of a check with every number of the run masked (its identity)."""
    return re.sub(r"[-+]?\d+(\.\d+)?%?", "#", key)


def _prefix(key, mutations):
    """The longest prefix of the mutation table that the check's statement starts with."""
    head = _head(key)
    found = [p for p, _ in mutations if head.startswith(_head(p))]
    return max(found, key=len) if found else None


def _same_check(checks, mutations, prefix, index):
    """The check at ``index`` among those of ``prefix`` (the same statement as before)."""
    keys = [k for k in checks if _prefix(k, mutations) == prefix]
    return checks[keys[index]]


def _watch(checks_of, raw, mutations):
    """Apply each check's mutations; return the checks that did not fail, as (key, mutation)."""
    base = checks_of(raw)
    survivors, unknown, seen = [], [], {}
    for key, value in base.items():
        prefix = _prefix(key, mutations)
        if prefix is None:
            unknown.append(key)
            continue
        index = seen[prefix] = seen.get(prefix, -1) + 1
        if not value:  # fails already on the committed results: nothing to watch fail
            continue
        for p, mutate in mutations:
            if p != prefix:
                continue
            if _same_check(checks_of(mutate(raw.copy(), key)), mutations, prefix, index):
                survivors.append((key, mutate.__name__))
    assert not unknown, f"checks without a mutation: {unknown}"
    assert any(base.values()), "no check holds on the committed results: nothing was watched"
    return survivors


# ----------------------------------------------------------------------------- Naeini et al.
def _rows(raw, panel, method):
    return (raw["panel"] == panel) & (raw["method"] == method)


def _set_like(raw, panel, method, rival, metric, delta):
    """``method``'s metric := ``rival``'s on the same draw, plus ``delta``."""
    rv = raw[_rows(raw, panel, rival)].set_index("repeat")[metric]
    m = _rows(raw, panel, method)
    raw.loc[m, metric] = raw.loc[m, "repeat"].map(rv).to_numpy() + delta
    return raw


def _ds(head):
    """The dataset a statement is about: the word after its first " on "."""
    return re.search(r" on ([A-Za-z-]+)", head).group(1)


def naeini_worse_auc(raw, head):  # "{m} beats {rival} on {ds}"
    m, rival, ds = head.split(" ")[0], head.split(" ")[2], _ds(head)
    return _set_like(raw, f"{ds}/LR", m, rival, "AUC", -0.05)


def naeini_worse_rmse(raw, head):
    m, rival, ds = head.split(" ")[0], head.split(" ")[2], _ds(head)
    return _set_like(raw, f"{ds}/LR", m, rival, "RMSE", +0.05)


def naeini_worse_ece(raw, head):  # "{m} has lower ECE than {rival} on {ds}"
    m, rival, ds = head.split(" ")[0], head.split(" ")[5], _ds(head)
    return _set_like(raw, f"{ds}/LR", m, rival, "ECE", +0.05)


def naeini_lr_ranks(raw, head):
    raw.loc[_rows(raw, f"{_ds(head)}/LR", "base"), "AUC"] += 0.2
    return raw


def naeini_abb_worse_on_adult(raw, head):
    return _set_like(raw, "Adult/NB", "ABB", "IsoReg", "AUC", -0.05)


def naeini_sbb_fine_on_adult(raw, head):
    # SBB as good as the better of isotonic regression and Platt: the claim now holds here
    for panel in ("Adult/NB", "Adult/SVM", "Adult/LR"):
        best = raw[raw["panel"] == panel].pivot_table(
            index="repeat", columns="method", values="AUC"
        )
        top = best[["IsoReg", "Platt"]].max(axis=1)
        m = _rows(raw, panel, "SBB")
        raw.loc[m, "AUC"] = raw.loc[m, "repeat"].map(top).to_numpy() + 0.02
    return raw


def naeini_spect_abb_collapses(raw, head):
    raw.loc[(raw["panel"].str.startswith("SPECT/")) & (raw["method"] == "ABB"), "AUC"] = 0.3
    return raw


def naeini_spect_sbb_fine(raw, head):
    # SBB as good as the better of isotonic regression and Platt on every SPECT panel
    for panel in ("SPECT/NB", "SPECT/SVM", "SPECT/LR"):
        sub = raw[raw["panel"] == panel].set_index("method")["AUC"]
        raw.loc[_rows(raw, panel, "SBB"), "AUC"] = max(sub["IsoReg"], sub["Platt"]) + 0.02
    return raw


def naeini_row_off(raw, head):  # "Ours reproduces the paper's Table 2(x) {panel} {metric} row"
    panel, metric = re.search(r"Table 2\(\w\) (\S+) (\w+) row", head).groups()
    raw.loc[raw["panel"] == panel, metric] += 1.0  # past any tolerance of a metric in [0, 1]
    return raw


def naeini_acp_worse(raw, head):  # "{acp} performs well with LR on {ds} (section 5)"
    acp, ds = head.split(" performs")[0], _ds(head)
    if ds == "SPECT":
        raw.loc[_rows(raw, "SPECT/LR", acp), "AUC"] = 0.3
        return raw
    rival = "base" if ds == "Adult" else "IsoReg"
    return _set_like(raw, f"{ds}/LR", acp, rival, "AUC", -0.1)


def naeini_acp_behind(raw, head):  # "SBB and ABB ... than {acp} on {ds} (section 5; ...)"
    acp = head.split("better than ")[1].split(" on ")[0]
    ds = head.split(" on ")[1].split(" ")[0]
    panel = f"{ds}/LR"
    auc = raw[raw["panel"] == panel].pivot_table(index="repeat", columns="method", values="AUC")
    rmse = raw[raw["panel"] == panel].pivot_table(index="repeat", columns="method", values="RMSE")
    m = _rows(raw, panel, acp)
    lowest = auc[["SBB", "ABB"]].min(axis=1) - 0.05
    highest = rmse[["SBB", "ABB"]].max(axis=1) + 0.05
    raw.loc[m, "AUC"] = raw.loc[m, "repeat"].map(lowest).to_numpy()
    raw.loc[m, "RMSE"] = raw.loc[m, "repeat"].map(highest).to_numpy()
    return raw


def naeini_above_ceiling(raw, head):
    raw.loc[_rows(raw, f"{_ds(head)}/LR", "ceiling"), "AUC"] -= 0.1
    return raw


def naeini_separable_calibrator_poor(raw, head):
    raw.loc[_rows(raw, "Separable/LR", "Hist"), "ECE"] = 0.2
    return raw


def naeini_separable_lr_poor(raw, head):
    raw.loc[_rows(raw, "Separable/LR", "base"), "AUC"] = 0.9
    return raw


NAEINI = [
    ("SBB beats", naeini_worse_auc),
    ("SBB beats", naeini_worse_rmse),
    ("ABB beats", naeini_worse_auc),
    ("ABB beats", naeini_worse_rmse),
    ("SBB has lower ECE", naeini_worse_ece),
    ("ABB has lower ECE", naeini_worse_ece),
    ("[design] LR's score does not rank", naeini_lr_ranks),
    ("ABB performs as well as or better than IsoReg and Platt on Adult", naeini_abb_worse_on_adult),
    ("SBB performs as well as or better than IsoReg and Platt on Adult", naeini_sbb_fine_on_adult),
    ("ABB performs as well as or better than IsoReg and Platt on SPECT",
     naeini_spect_abb_collapses),
    ("SBB performs as well as or better than IsoReg and Platt on SPECT", naeini_spect_sbb_fine),
    ("Ours reproduces the paper's Table 2(", naeini_row_off),
    ("ACP", naeini_acp_worse),
    ("SBB and ABB perform as well as or better than ACP", naeini_acp_behind),
    ("[design] No calibrator of the score beats the ceiling", naeini_above_ceiling),
    ("Every calibrator is excellent on the separable", naeini_separable_calibrator_poor),
    ("LR itself is excellent on the separable", naeini_separable_lr_poor),
]  # fmt: skip


def _naeini_checks(raw):
    from venncal.experiments.paper_tables import load_paper_table
    from venncal.experiments.studies._naeini_checks import study_checks
    from venncal.experiments.studies._naeini_real import agreement_checks, real_cells
    from venncal.experiments.studies.naeini_2014 import FAMILY_PANELS

    checks = study_checks(raw[~raw["panel"].isin(FAMILY_PANELS)])
    checks.update(agreement_checks(real_cells(raw, load_paper_table("naeini_2014_table2"))))
    return checks


# ----------------------------------------------------------------------------- Vovk & Petej
def _vp_checks(raw):
    from venncal.experiments.studies._vovk_petej_checks import agreement_checks, count_checks
    from venncal.experiments.studies.vovk_petej_2014 import check_claims, default_config, summarise

    agg, _ = summarise(raw, default_config("full"))
    checks = check_claims(agg)
    checks.update(agreement_checks(raw))
    checks.update(count_checks(raw, n_boot=100))
    return checks


def vp_infinite(method):
    def mutate(raw, head):
        first = raw.index[raw["method"] == method][0]
        raw.loc[first, "log_loss"] = np.inf
        return raw

    mutate.__name__ = f"vp_infinite_{method}"
    return mutate


def vp_dir_finite(raw, head):
    # one dataset and classifier whose DIR log loss is finite on every split
    first = raw[raw["method"] == "DIR"].iloc[0]
    m = (
        (raw["method"] == "DIR")
        & (raw["dataset"] == first["dataset"])
        & (raw["classifier"] == first["classifier"])
    )
    raw.loc[m, "log_loss"] = 0.5
    return raw


def vp_swap_va_sva(raw, head):
    from venncal.experiments.studies.vovk_petej_2014 import SVA_PAIRED

    va, sva = raw["method"] == "VA", raw["method"] == SVA_PAIRED
    raw.loc[va, "method"], raw.loc[sva, "method"] = SVA_PAIRED, "VA"
    return raw


def vp_shift_va_up(raw, head):
    raw.loc[raw["method"] == "VA", "log_loss"] += 0.1
    return raw


def vp_shift_va_down(raw, head):
    raw.loc[raw["method"] == "VA", "log_loss"] -= 0.1
    return raw


def _vp_loss(head):
    return "log_loss" if "log loss" in head else "rmse"


def vp_column_off(raw, head):  # "Ours reproduces the paper's Table k (loss), method M: ..."
    method = re.search(r"method (\w+):", head).group(1)
    loss = _vp_loss(head)
    m = raw["method"] == method
    if np.isinf(raw.loc[m, loss]).any():  # DIR's log loss, infinite as the paper's: finite
        raw.loc[m, loss] = 0.5
    else:
        raw.loc[m, loss] += 0.1
    return raw


def vp_count_off(raw, head):  # "Section 5, loss: X is the best method ..." / "X beats W"
    said = head.split(": ", 1)[1]
    methods = ["VA", "SVA"] if said.startswith("VA or SVA") else [said.split(" ")[0]]
    raw.loc[raw["method"].isin(methods), _vp_loss(head)] += 1.0
    return raw


VOVK = [
    ("Ours reproduces the paper's Table", vp_column_off),
    ("Section 5,", vp_count_off),
    ("VA log loss is finite", vp_infinite("VA")),
    ("SVA log loss is finite", vp_infinite("SVA")),
    ("DIR log loss is infinite", vp_dir_finite),
    ("SVA is close to VA", vp_swap_va_sva),
    ("SVA is close to VA", vp_shift_va_up),
    ("SVA is close to VA", vp_shift_va_down),
]


# ----------------------------------------------------------------------------- Tasche
def _est(raw, name):
    return raw["estimate"] == name


def tasche_area(raw, head):
    raw.loc[raw.index[0], "curve_area"] += 1e-3
    return raw


def tasche_true_not_lowest(raw, head):
    raw.loc[_est(raw, "true posterior"), "brier"] += 0.1
    return raw


#: how a check names an estimate -> the estimate's name in the results
_TASCHE_SAID = {
    "the partial posterior": "partial posterior (x1 only)",
    "the naive-Bayes score": "naive Bayes score",
    "the recalibrated naive-Bayes score": "naive Bayes, recalibrated",
}


def _tasche_estimate(head, kind, verb):
    """The estimate a statement ``"{kind} {said} {verb} ..."`` is about."""
    return next(v for k, v in _TASCHE_SAID.items() if head.startswith(f"{kind} {k} {verb}"))


def tasche_calibration(raw, head):
    name = _tasche_estimate(head, "[sample]", "is")
    m = _est(raw, name)
    if "miscalibrated" in head:  # as if calibrated: the isotonic loss at its null mean
        raw.loc[m, "calibration_loss_isotonic"] = raw.loc[m, "calibration_loss_isotonic_null_mean"]
    else:
        raw.loc[m, "calibration_loss_isotonic"] += 0.01
    return raw


def tasche_no_grouping_loss(raw, head):
    raw.loc[_est(raw, _tasche_estimate(head, "[model]", "has")), "grouping_loss"] = 0.0
    return raw


def tasche_recalibration_worse(raw, head):
    nb = raw[_est(raw, "naive Bayes score")].set_index("repeat")["brier"]
    m = _est(raw, "naive Bayes, recalibrated")
    raw.loc[m, "brier"] = raw.loc[m, "repeat"].map(nb).to_numpy() + 0.01
    return raw


def tasche_grouping_halved(raw, head=""):
    raw["grouping_loss"] /= 2
    return raw


TASCHE = [
    ("[model] the size of the grouping loss", tasche_grouping_halved),
    ("[identity, Definition 5.1]", tasche_area),
    ("[sample] the true posterior has the lowest", tasche_true_not_lowest),
    ("[sample] the partial posterior is", tasche_calibration),
    ("[sample] the naive-Bayes score is", tasche_calibration),
    ("[sample] the recalibrated naive-Bayes score is", tasche_calibration),
    ("[model]", tasche_no_grouping_loss),
    ("[sample] recalibrating naive Bayes lowers", tasche_recalibration_worse),
]


def _tasche_checks(raw):
    from venncal.experiments.studies.tasche_2022 import check_claims

    return check_claims(raw)


# ----------------------------------------------------------------------------- Johansson et al.
def _johansson_checks(raw):
    from venncal.experiments.studies._johansson_results import checks_from_results

    return checks_from_results(raw)


def johansson_outside(raw, head):
    setup = head.split(":")[0]
    m = raw["setup"] == setup
    raw.loc[m, "upper"] = raw.loc[m, "accuracy"] - 0.05
    raw.loc[m, "lower"] = raw.loc[m, "accuracy"] - 0.1
    return raw


def johansson_wide_vp_oob(raw, head):
    raw.loc[raw["setup"] == "VP-oob", "interval_size"] *= 100
    return raw


def johansson_oob_less_accurate(raw, head):
    raw.loc[raw["setup"].str.endswith("-oob"), "accuracy"] -= 0.1
    return raw


def johansson_vp_oob_less_accurate(raw, head):
    raw.loc[raw["setup"] == "VP-oob", "accuracy"] -= 0.1
    return raw


def johansson_accuracy_down(raw, head=""):
    raw["accuracy"] -= 0.05
    raw["estimate_minus_accuracy"] = raw["estimate"] - raw["accuracy"]
    return raw


def johansson_interval_down(raw, head=""):
    raw[["lower", "upper"]] -= 0.05
    return raw


def johansson_vp_estimates_off(raw, head):
    raw.loc[raw["setup"].str.startswith("VP-"), "estimate_minus_accuracy"] = 0.1
    return raw


def johansson_oob_estimates_off(raw, head):
    raw.loc[raw["setup"].str.endswith("-oob"), "estimate_minus_accuracy"] += 0.1
    return raw


def johansson_reliability_up(prefix):
    def mutate(raw, head):
        raw.loc[raw["setup"].str.startswith(prefix), "reliability"] += 0.1
        return raw

    mutate.__name__ = f"johansson_reliability_up_{prefix}"
    return mutate


def johansson_wider_intervals(raw, head):
    raw["interval_size"] *= 2
    return raw


JOHANSSON = [
    ("Table 1: the forest's estimates are too pessimistic", johansson_accuracy_down),
    ("Table 1: Platt scaling", johansson_accuracy_down),
    ("Table 1: the Venn predictor is the best", johansson_vp_estimates_off),
    ("Table 1: out-of-bag calibration", johansson_oob_estimates_off),
    ("Table 2: isotonic regression", johansson_reliability_up("Iso")),
    (
        "Table 2: all four Venn setups are better calibrated (lower reliability) than the raw",
        johansson_reliability_up("V"),
    ),
    (
        "Table 2: all four Venn setups are better calibrated than Platt",
        johansson_reliability_up("V"),
    ),
    ("Table 4: mean interval size", johansson_wider_intervals),
    ("VP-oob gives the tightest", johansson_wide_vp_oob),
    ("VP-oob is the most accurate", johansson_vp_oob_less_accurate),
    ("every out-of-bag setup", johansson_oob_less_accurate),
    ("each setup is more accurate calibrated out-of-bag", johansson_oob_less_accurate),
    ("VP-cal: the accuracy", johansson_outside),
    ("VP-oob: the accuracy", johansson_outside),
    ("VAP-cal: the accuracy", johansson_outside),
    ("VAP-oob: the accuracy", johansson_outside),
]


# ----------------------------------------------------------------------------- every study
#: study -> (its checks from its results, its mutations)
STUDIES = {
    "naeini-2014": (_naeini_checks, NAEINI),
    "vovk-petej-2014": (_vp_checks, VOVK),
    "tasche-2022": (_tasche_checks, TASCHE),
    "johansson-2018": (_johansson_checks, JOHANSSON),
}


@pytest.mark.parametrize("study", list(STUDIES))
def test_every_check_fails_under_its_mutation(study):
    checks_of, mutations = STUDIES[study]
    assert not _watch(checks_of, _read(study), mutations)


# ----------------------------------------------------------------------------- Tasche, Figure 1
def fig1_np_off(cv, key):
    cv["np"]["both"] = cv["np"]["both"] + 1e-3
    return cv


def fig1_sample_off(cv, key):
    cv["sample"]["first"] = cv["sample"]["first"] + 0.02
    return cv


def fig1_uninformative(cv, key):
    # the weaker component tells nothing: its curve is the prior's and there is no grouping loss
    weaker = "first" if cv["separations"]["first"] < cv["separations"]["second"] else "second"
    for curves in (cv["closed"], cv["np"], cv["sample"]):
        curves[weaker] = cv["closed"]["prior"].copy()
    return cv


FIGURE1 = [
    ("[identity, Remark 5.4]", fig1_np_off),
    ("[sample, Figure 1]", fig1_sample_off),
    ("[model, Example 3.12]", fig1_uninformative),
]


def test_every_tasche_figure1_check_fails_under_its_mutation():
    # Figure 1's curves come from the model and a fresh sample, not from the results file
    import copy

    from venncal.experiments.studies._tasche_figure1 import figure1_checks, figure1_curves

    cv = figure1_curves(5000, seed=1)
    base = figure1_checks(cv)
    assert len(base) == 3 and all(base.values())
    for prefix, mutate in FIGURE1:
        checks = figure1_checks(mutate(copy.deepcopy(cv), prefix))
        (key,) = [k for k in checks if k.startswith(prefix)]
        assert not checks[key], key
        assert sum(not v for v in checks.values()) == 1  # exactly that check


# ----------------------------------------------------------------------------- shifts from the paper
def naeini_adult_auc_down(raw):
    raw.loc[raw["panel"].str.startswith("Adult/"), "AUC"] -= 0.1
    return raw


def vp_log_loss_up(raw):
    raw["log_loss"] += 0.1
    return raw


def johansson_both_down(raw):
    return johansson_interval_down(johansson_accuracy_down(raw))


SHIFTS = [
    ("naeini-2014", naeini_adult_auc_down),
    ("vovk-petej-2014", vp_log_loss_up),
    ("johansson-2018", johansson_accuracy_down),
    ("johansson-2018", johansson_interval_down),
    ("johansson-2018", johansson_both_down),
    ("tasche-2022", tasche_grouping_halved),
]


@pytest.mark.parametrize("study, shift", SHIFTS, ids=[f"{s}-{m.__name__}" for s, m in SHIFTS])
def test_a_uniform_shift_away_from_the_paper_is_contradicted(study, shift):
    # every method moved together keeps every comparison between methods: only the checks
    # against the paper's printed numbers (or the model's exact ones) can see it
    from venncal.experiments.claims import full_state

    checks_of, _ = STUDIES[study]
    raw = _read(study)
    before = {_head(k): full_state(v) for k, v in checks_of(raw).items()}
    after = {_head(k): full_state(v) for k, v in checks_of(shift(raw.copy())).items()}
    turned = [k for k, v in after.items() if v is False and before.get(k) is not False]
    assert turned, f"no check is contradicted by {shift.__name__}"
