"""Johansson, Lofstrom, Sundell, Linusson, Gidenstam & Bostrom (2018), "Venn predictors for
well-calibrated probability estimation trees": random forests calibrated on a calibration set or
out-of-bag, Tables 1-6.

A random forest of 300 trees (scikit-learn's, standing in for MATLAB's TreeBagger) is turned into
probability estimates in ten ways: the forest's own estimates (RF), Platt scaling, isotonic
regression (Iso), the inductive Venn predictor with the predicted label as category (VP, eqs.
3-6) and the Venn-Abers predictor (VAP, eqs. 7-9), each calibrated

* ``-cal``: on a calibration set, the last third of the training fold (the forest is grown on the
  first two thirds), or
* ``-oob``: out-of-bag (section 3.2): the forest is grown on the whole training fold, each
  training example is scored by the trees for which it is out-of-bag, and each test object by the
  out-of-bag sub-ensemble of one calibration example ``z_r`` drawn at random, which is then left
  out of the calibration set (eqs. 10-11), so that test and calibration objects are scored alike.

All ten setups share one forest per fold and variant and the same draws of ``r``. Measures per
dataset (predictions pooled over the folds of one cross-validation, then averaged over
repetitions): the mean estimate for the predicted label minus the accuracy (Table 1), the
reliability term of Murphy's Brier decomposition with K = 100 bins (eq. 13, Table 2), the Venn
intervals and their size (Table 4) and accuracy (Table 6). For the Venn setups the estimate is
the interval's centre point, as in the paper. Setups are ranked over datasets and compared by the
Friedman test and Bergmann-Hommel's procedure (Tables 3 and 5), with Holm and Nemenyi beside.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from venncal.experiments.report import StudyResult
from venncal.experiments.runner import cell_seed
from venncal.experiments.studies._common import load_cached, quiet, run_cells

NAME = "johansson-2018"
TITLE = "Johansson et al. (2018), Venn predictors for random forests: calibration set vs out-of-bag"

SETUPS = (
    "RF-cal",
    "RF-oob",
    "Platt-cal",
    "Platt-oob",
    "Iso-cal",
    "Iso-oob",
    "VP-cal",
    "VP-oob",
    "VAP-cal",
    "VAP-oob",
)
VENN_SETUPS = ("VP-cal", "VP-oob", "VAP-cal", "VAP-oob")
_SEED_MOD = 2**32 - 1  # scikit-learn seeds must stay below 2**32


def all_datasets():
    """The bundled two-class sets of Lofstrom et al. (25; the paper used 22 of this family)."""
    from venncal.datasets import list_datasets

    names = list_datasets()["name"]
    return [n.split("/", 1)[1] for n in names if n.startswith("lofstrom_ce/")]


def default_config(mode="quick"):
    """Full: 300 trees, 10 x 10-fold cross-validation on all 25 sets (as the paper).

    Quick: 100 trees and one 5-fold cross-validation on all 25 sets.
    """
    full = mode == "full"
    return {
        "mode": mode,
        "datasets": all_datasets(),
        "n_trees": 300 if full else 100,
        "n_folds": 10 if full else 5,
        "n_repeats": 10 if full else 1,
        "base_seed": 0,
    }


def _forest(n_trees, seed):
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(
        n_estimators=n_trees, oob_score=True, bootstrap=True, random_state=seed, n_jobs=1
    )


def _tree_probas(forest, X):
    """Positive-class probability of every tree, shape (n_trees, m)."""
    return np.array([t.predict_proba(X)[:, 1] for t in forest.estimators_])


def _inbag(forest, n):
    mask = np.zeros((len(forest.estimators_), n), dtype=bool)
    for t, idx in enumerate(forest.estimators_samples_):
        mask[t, idx] = True
    return mask


def _platt():
    import venncal

    try:
        return venncal.PlattCalibrator
    except (AttributeError, ImportError):
        return None


def _point(p_pos):
    """Predicted label, its probability estimate, for point estimates of P(y = 1)."""
    label = (p_pos > 0.5).astype(int)
    return label, np.where(label == 1, p_pos, 1.0 - p_pos)


def _venn_outputs(lower1, upper1, label):
    """From [L(1), U(1)] and a label: positive-class centre, and the label's interval."""
    lo = np.where(label == 1, lower1, 1.0 - upper1)
    hi = np.where(label == 1, upper1, 1.0 - lower1)
    return (lower1 + upper1) / 2.0, lo, hi


def _fold_predictions(X, y, train, test, n_trees, seed):
    """Predictions of the ten setups for one fold: setup -> dict of arrays over ``test``."""
    from sklearn.model_selection import train_test_split

    from venncal import IsotonicCalibrator
    from venncal.core.venn import venn_predict
    from venncal.core.venn_abers import ivap_fit

    platt = _platt()
    out = {}
    rng = np.random.default_rng(seed)

    # ---- calibration set: forest on 2/3, calibrators on 1/3
    proper, cal = train_test_split(train, test_size=1 / 3, random_state=seed, stratify=y[train])
    rf = _forest(n_trees, seed).fit(X[proper], y[proper])
    s_cal, s_test = rf.predict_proba(X[cal])[:, 1], rf.predict_proba(X[test])[:, 1]
    out["RF-cal"] = {"p": s_test}
    if platt is not None:
        out["Platt-cal"] = {"p": platt().fit(s_cal, y[cal]).predict_proba(s_test)[:, 1]}
    out["Iso-cal"] = {"p": IsotonicCalibrator().fit(s_cal, y[cal]).predict_proba(s_test)[:, 1]}
    vp = venn_predict((s_cal > 0.5).astype(int), y[cal], (s_test > 0.5).astype(int), n_classes=2)
    out["VP-cal"] = {"l1": vp.p0_p1[:, 0], "u1": vp.p0_p1[:, 1], "label": vp.label}
    p0, p1 = ivap_fit(s_cal, y[cal]).predict(s_test)
    out["VAP-cal"] = {"l1": p0, "u1": p1}

    # ---- out-of-bag: forest on the whole training fold
    rf = _forest(n_trees, (seed + 1) % _SEED_MOD).fit(X[train], y[train])
    ytr = y[train]
    n = len(train)
    inbag = _inbag(rf, n)
    oob = ~inbag
    has_oob = oob.any(axis=0)
    s_oob = np.full(n, np.nan)
    probs_tr = _tree_probas(rf, X[train])  # (T, n)
    s_oob[has_oob] = (probs_tr * oob).sum(0)[has_oob] / oob.sum(0)[has_oob]
    usable = np.flatnonzero(has_oob)
    cal_s, cal_y = s_oob[usable], ytr[usable]
    # one random calibration example z_r per test object; its out-of-bag trees score the object
    r_pos = rng.integers(0, usable.size, size=len(test))
    r = usable[r_pos]
    w = oob[:, r].T.astype(float)  # (m, T)
    s_sub = (w * _tree_probas(rf, X[test]).T).sum(1) / w.sum(1)
    out["RF-oob"] = {"p": s_sub}
    if platt is not None:
        out["Platt-oob"] = {"p": platt().fit(cal_s, cal_y).predict_proba(s_sub)[:, 1]}
    out["Iso-oob"] = {"p": IsotonicCalibrator().fit(cal_s, cal_y).predict_proba(s_sub)[:, 1]}
    vp = venn_predict(
        (cal_s > 0.5).astype(int), cal_y, (s_sub > 0.5).astype(int), n_classes=2, exclude=r_pos
    )
    out["VP-oob"] = {"l1": vp.p0_p1[:, 0], "u1": vp.p0_p1[:, 1], "label": vp.label}
    l1, u1 = np.empty(len(test)), np.empty(len(test))
    for k in np.unique(r_pos):
        rows = np.flatnonzero(r_pos == k)
        keep = np.ones(usable.size, dtype=bool)
        keep[k] = False
        l1[rows], u1[rows] = ivap_fit(cal_s[keep], cal_y[keep]).predict(s_sub[rows])
    out["VAP-oob"] = {"l1": l1, "u1": u1}
    return out


def run_cell(cell):
    """One dataset and repetition: a full k-fold cross-validation, metrics per setup."""
    from sklearn.model_selection import StratifiedKFold

    from venncal.metrics import accuracy, brier_decomposition, brier_score

    data = load_cached(f"lofstrom_ce/{cell['dataset']}")
    X, y = np.asarray(data.X, float), np.asarray(data.y).astype(int)
    seed = cell_seed({"dataset": cell["dataset"], "repeat": cell["repeat"]}, cell["base_seed"])
    folds = StratifiedKFold(cell["n_folds"], shuffle=True, random_state=seed % (2**31))
    pooled = {}
    with quiet():
        for f, (train, test) in enumerate(folds.split(X, y)):
            fold_seed = (seed + 7919 * (f + 1)) % _SEED_MOD
            preds = _fold_predictions(X, y, train, test, cell["n_trees"], fold_seed)
            for setup, d in preds.items():
                acc = pooled.setdefault(setup, {"y": []})
                acc["y"].append(y[test])
                for k, v in d.items():
                    acc.setdefault(k, []).append(v)
    rows = []
    for setup in SETUPS:
        if setup not in pooled:
            continue
        d = {k: np.concatenate(v) for k, v in pooled[setup].items()}
        yy = d["y"]
        if "p" in d:
            p_pos = d["p"]
            label, est = _point(p_pos)
            lo = hi = np.full(yy.shape, np.nan)
        else:
            label = d["label"] if "label" in d else ((d["l1"] + d["u1"]) / 2 > 0.5).astype(int)
            p_pos, lo, hi = _venn_outputs(d["l1"], d["u1"], label)
            est = (lo + hi) / 2.0
        acc = float(np.mean(label == yy))
        rows.append(
            {
                "setup": setup,
                "accuracy": acc,
                "estimate": float(np.mean(est)),
                "estimate_minus_accuracy": float(np.mean(est)) - acc,
                "reliability": float(brier_decomposition(yy, p_pos, n_bins=100).reliability),
                "brier": float(brier_score(yy, p_pos)),
                "lower": float(np.mean(lo)),
                "upper": float(np.mean(hi)),
                "interval_size": float(np.mean(hi - lo)),
                "accuracy_of_p": float(accuracy(yy, p_pos)),
                "n_objects": int(yy.size),
            }
        )
    return rows


def _cd_figure(avg_ranks, cd, title):
    """Critical-difference diagram of average ranks (Demsar 2006, Figure 1)."""
    from matplotlib.figure import Figure

    from venncal.plotting import CriticalDifferenceDisplay

    fig = Figure(figsize=(8, 3.2))
    ax = fig.subplots()
    CriticalDifferenceDisplay.from_ranks(avg_ranks, cd, ax=ax)
    ax.set_title(title)
    return fig


def _posthoc_table(res):
    """Matrix of 'v' where the row setup is significantly better than the column setup."""
    better = res.better(0.05)
    names = list(res.names)
    mat = pd.DataFrame("", index=names, columns=names)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if better[i, j]:
                mat.loc[a, b] = "v"
    return mat


def run(config, *, out_csv=None, n_jobs=1, backend="loky", scheduler=None, progress=True):
    """Run the cross-validations and build Tables 1-6 with rankings and significance tests."""
    from venncal.metrics.ranking import (
        bergmann_hommel_posthoc,
        friedman_test,
        holm_posthoc,
        nemenyi_critical_difference,
        nemenyi_posthoc,
    )

    keys = ("n_trees", "n_folds", "base_seed")
    cells = [
        {"study": NAME, "dataset": ds, "repeat": r, **{k: config[k] for k in keys}}
        for ds in config["datasets"]
        for r in range(config["n_repeats"])
    ]
    raw, wall_time = run_cells(
        cells,
        run_cell,
        out_csv=out_csv,
        n_jobs=n_jobs,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    metrics = [
        "estimate_minus_accuracy",
        "reliability",
        "accuracy",
        "lower",
        "upper",
        "interval_size",
        "brier",
    ]
    per_ds = raw.groupby(["dataset", "setup"], sort=False)[metrics].mean()
    setups = [s for s in SETUPS if s in set(raw["setup"])]
    datasets = [d for d in config["datasets"] if d in set(raw["dataset"])]

    n_objects = raw.groupby("dataset")["n_objects"].first().reindex(datasets)

    def wide(metric, which=setups):
        return per_ds[metric].unstack("setup").reindex(index=datasets, columns=list(which))

    tables = {}
    t1 = wide("estimate_minus_accuracy")
    rel = wide("reliability")
    acc = wide("accuracy")
    summary = pd.DataFrame(index=setups)
    summary["estimate - accuracy"] = t1.mean()
    summary["|estimate - accuracy|"] = t1.abs().mean()
    summary["reliability (K=100)"] = rel.mean()
    summary["accuracy"] = acc.mean()
    if len(datasets) >= 2:
        summary["rank reliability"] = friedman_test(rel, lower_is_better=True).average_ranks
        summary["rank accuracy"] = friedman_test(acc, lower_is_better=False).average_ranks
    summary["interval size"] = wide("interval_size").mean()
    tables["Summary over datasets (means; ranks: 1 = best)"] = summary

    t1_out = t1.copy()
    t1_out.loc["mean"] = t1.mean()
    tables["Table 1: estimate minus accuracy (positive = optimistic)"] = t1_out
    rel_out = rel.copy()
    rel_out.loc["mean"] = rel.mean()
    if len(datasets) >= 2:
        rel_out.loc["mean rank"] = friedman_test(rel).average_ranks
    tables["Table 2: reliability (K = 100)"] = rel_out

    figures = {}
    checks = {}
    notes = []
    if len(datasets) >= 2:
        fr = friedman_test(rel)
        bh = bergmann_hommel_posthoc(rel)
        tables[
            "Table 3: reliability, row significantly better than column (Bergmann-Hommel, "
            "alpha = .05)"
        ] = _posthoc_table(bh)
        notes.append(
            f"Reliability: Friedman chi2 = {fr.statistic:.2f} (p = {fr.pvalue:.3g}), "
            f"Iman-Davenport F = {fr.iman_davenport_statistic:.2f} "
            f"(p = {fr.iman_davenport_pvalue:.3g}), {len(datasets)} datasets, {len(setups)} setups."
        )
        cd = nemenyi_critical_difference(len(setups), len(datasets), 0.05)
        figures["cd_reliability"] = _cd_figure(
            dict(zip(setups, fr.average_ranks, strict=True)),
            cd,
            "Reliability: average ranks and Nemenyi critical difference (alpha = .05)",
        )

    t4 = {}
    for s in VENN_SETUPS:
        if s not in setups:
            continue
        lo, hi, a = wide("lower")[s], wide("upper")[s], acc[s]
        for ds in datasets:
            inside = lo[ds] - 1e-12 <= a[ds] <= hi[ds] + 1e-12
            t4.setdefault(ds, {})[(s, "interval")] = f"[{lo[ds]:.3f}, {hi[ds]:.3f}]"
            t4[ds][(s, "size")] = f"{hi[ds] - lo[ds]:.3f}"
            t4[ds][(s, "accuracy")] = f"{a[ds]:.3f}" + ("" if inside else " *")
        strict = float(np.mean([lo[d] - 1e-12 <= a[d] <= hi[d] + 1e-12 for d in datasets]))
        # the observed accuracy is itself an estimate, with standard error sqrt(a (1 - a) / n)
        se = np.sqrt(a * (1.0 - a) / n_objects)
        gap = np.maximum(lo - a, a - hi).clip(lower=0.0)
        loose = float(np.mean(gap[datasets] <= 2.0 * se[datasets]))
        checks[
            f"{s} interval contains the observed accuracy on most datasets, up to two standard "
            f"errors of the accuracy ({loose:.0%}; strictly inside: {strict:.0%})"
        ] = bool(loose > 0.5)
    if t4:
        t4 = pd.DataFrame.from_dict(t4, orient="index")
        t4.columns = pd.MultiIndex.from_tuples(t4.columns)
        tables["Table 4: Venn intervals for the predicted label (* accuracy outside)"] = t4
        sizes = wide("interval_size", VENN_SETUPS).mean()
        checks[
            "VP-oob gives the tightest intervals (paper: VP-oob .006, VAP-cal .075; ours: "
            + ", ".join(f"{k} {v:.3f}" for k, v in sizes.items())
            + ")"
        ] = bool(sizes.idxmin() == "VP-oob")

    if len(datasets) >= 2:
        venn_acc = acc[[s for s in VENN_SETUPS if s in setups]]
        for label, fn in (
            ("Bergmann-Hommel", bergmann_hommel_posthoc),
            ("Holm", holm_posthoc),
            ("Nemenyi", nemenyi_posthoc),
        ):
            res = fn(venn_acc, lower_is_better=False)
            pairs = pd.DataFrame(res.pairs())
            pairs.columns = ["a", "b", "rank a", "rank b", "z", "p", f"p adjusted ({label})"]
            if label == "Bergmann-Hommel":
                tables["Table 5: accuracy of the Venn setups, pairwise tests"] = pairs.set_index(
                    ["a", "b"]
                )
            else:
                key = "Table 5: accuracy of the Venn setups, pairwise tests"
                tables[key][f"p adjusted ({label})"] = pairs.set_index(["a", "b"])[
                    f"p adjusted ({label})"
                ]
    acc_out = acc.copy()
    acc_out.loc["mean"] = acc.mean()
    if len(datasets) >= 2:
        acc_out.loc["mean rank"] = friedman_test(acc, lower_is_better=False).average_ranks
    tables["Table 6: accuracy"] = acc_out

    means = acc.mean()
    oob = [s for s in setups if s.endswith("-oob")]
    cal = [s for s in setups if s.endswith("-cal")]
    if oob and cal:
        checks[
            "every out-of-bag setup is more accurate on average than every calibration-set setup"
        ] = bool(means[oob].min() > means[cal].max())
        pairs = [(s[:-4] + "-oob", s) for s in cal if s[:-4] + "-oob" in oob]
        checks["each setup is more accurate calibrated out-of-bag than on a calibration set"] = (
            bool(all(means[o] > means[c] for o, c in pairs))
        )
        checks[f"VP-oob is the most accurate setup (best: {means.idxmax()})"] = bool(
            means.idxmax() == "VP-oob"
        )

    notes.insert(
        0,
        f"{len(datasets)} bundled two-class datasets of Lofstrom et al. (the paper names 22 of "
        "this family without listing them; we run all we have). "
        f"{config['n_repeats']} x {config['n_folds']}-fold cross-validation, "
        f"{config['n_trees']} trees. The paper's tables are images not available to us; "
        "the checks below test the statements of its section 5.",
    )
    if "Platt-cal" not in setups:
        notes.append(
            "Platt scaling is not available in this installation; its setups are left out."
        )
    return StudyResult(
        name=NAME,
        title=TITLE,
        mode=config["mode"],
        tables=tables,
        figures=figures,
        notes=notes,
        raw=raw,
        config={k: v for k, v in config.items() if k not in ("mode", "datasets")}
        | {"n_datasets": len(config["datasets"])},
        wall_time=wall_time,
        checks=checks,
    )
