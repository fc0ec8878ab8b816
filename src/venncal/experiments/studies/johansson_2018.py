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

from typing import Any

import numpy as np
import pandas as pd

from venncal.experiments._margins import with_quick_margins
from venncal.experiments.claims import Check
from venncal.experiments.report import StudyResult
from venncal.experiments.runner import cell_seed
from venncal.experiments.studies._common import load_cached, quiet, study_run
from venncal.experiments.studies._johansson_checks import text_checks

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


def default_config(mode: str = "quick") -> dict[str, Any]:
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


def run_cell(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """One dataset and repetition: a full k-fold cross-validation, metrics per setup."""
    from sklearn.model_selection import StratifiedKFold

    from venncal.metrics import accuracy, brier_decomposition, brier_score

    data = load_cached(f"lofstrom_ce/{cell['dataset']}")
    X, y = np.asarray(data.X, float), np.asarray(data.y).astype(int)
    seed = cell_seed({"dataset": cell["dataset"], "repeat": cell["repeat"]}, cell["base_seed"])
    folds = StratifiedKFold(cell["n_folds"], shuffle=True, random_state=seed % (2**31))
    pooled: dict[str, dict[str, list[Any]]] = {}
    with quiet():
        for f, (train, test) in enumerate(folds.split(X, y)):
            fold_seed = (seed + 7919 * (f + 1)) % _SEED_MOD
            preds = _fold_predictions(X, y, train, test, cell["n_trees"], fold_seed)
            for setup, d in preds.items():
                arrays = pooled.setdefault(setup, {"y": []})
                arrays["y"].append(y[test])
                for k, v in d.items():
                    arrays.setdefault(k, []).append(v)
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


def containment_sides(lower, upper, accuracy, tol=1e-12):
    """Where the accuracy lies with respect to each interval: ``"inside"``, ``"below"``, ``"above"``.

    Parameters
    ----------
    lower, upper, accuracy : pandas.Series indexed alike (e.g. by dataset)
    tol : float
        Rounding slack: an accuracy within ``tol`` of an end is inside.

    Returns
    -------
    pandas.Series of str

    Examples
    --------
    >>> import pandas as pd
    >>> lo, hi = pd.Series([0.7, 0.7, 0.7]), pd.Series([0.8, 0.8, 0.8])
    >>> containment_sides(lo, hi, pd.Series([0.75, 0.6, 0.85])).tolist()
    ['inside', 'below', 'above']
    """
    side = np.where(
        accuracy < lower - tol, "below", np.where(accuracy > upper + tol, "above", "inside")
    )
    return pd.Series(side, index=accuracy.index)


def simulate_valid_containment(
    n_objects, accuracy, width, *, n_folds, n_repeats, shared, n_sim=200, seed=0
):
    """Containment of the accuracy by a Venn predictor that is valid by construction.

    Each dataset is replaced by a Venn predictor with one category whose calibration set has
    ``m`` objects, ``m`` chosen so that its intervals ``[k / (m + 1), (k + 1) / (m + 1)]`` (``k``
    of the ``m`` correct) have the observed mean width. Whether each object is correctly
    classified is drawn i.i.d. with the observed accuracy, so the predictor is valid (Vovk,
    Gammerman & Shafer 2005, Theorem 6.6), and the protocol is the study's: ``n_repeats`` times
    ``n_folds``-fold cross-validation, the calibration set drawn from the other folds, intervals
    and accuracy pooled over the folds and averaged over the repetitions.

    Parameters
    ----------
    n_objects, accuracy, width : array-like of shape (n_datasets,)
    n_folds, n_repeats : int
    shared : bool
        True: an object is correct or not once and for all, as test and as calibration object
        (forests that agree on every object). False: a fresh draw every time the object is
        scored (forests that share nothing). The real forests lie between the two.
    n_sim : int
        Simulated runs of the whole study.
    seed : int

    Returns
    -------
    below, above : ndarrays of bool, shape (n_datasets, n_sim)
        Whether the simulated accuracy falls below or above the simulated mean interval.

    Examples
    --------
    >>> b, a = simulate_valid_containment(
    ...     [300], [0.8], [0.01], n_folds=10, n_repeats=10, shared=True, n_sim=50
    ... )
    >>> b.shape, bool((b & a).any())
    ((1, 50), False)
    """
    rng = np.random.default_rng(seed)
    below, above = [], []
    for n, acc, w in zip(
        np.asarray(n_objects, int), np.asarray(accuracy, float), np.asarray(width, float)
    ):
        m = max(1, int(round(1.0 / float(w) - 1.0)))
        sizes = np.array([len(f) for f in np.array_split(np.arange(n), n_folds)])
        others = n - sizes
        mm = np.minimum(m, others)
        lo = np.zeros(n_sim)
        hi = np.zeros(n_sim)
        if shared:
            correct = rng.random((n_sim, n)) < acc
            total = correct.sum(axis=1)
            starts = np.r_[0, np.cumsum(sizes)[:-1]]
            for _ in range(n_repeats):
                in_fold = np.add.reduceat(rng.permuted(correct, axis=1), starts, axis=1)
                good = total[:, None] - in_fold  # correct objects among the other folds
                k = rng.hypergeometric(good, others - good, np.broadcast_to(mm, good.shape))
                lo += (sizes * k / (mm + 1)).sum(axis=1) / n
                hi += (sizes * (k + 1) / (mm + 1)).sum(axis=1) / n
            lo, hi, observed = lo / n_repeats, hi / n_repeats, total / n
        else:
            k = rng.binomial(np.broadcast_to(mm, (n_sim, n_repeats, n_folds)), acc)
            lo = (sizes * k / (mm + 1)).sum(axis=-1).mean(axis=-1) / n
            hi = (sizes * (k + 1) / (mm + 1)).sum(axis=-1).mean(axis=-1) / n
            observed = rng.binomial(n * n_repeats, acc, n_sim) / (n * n_repeats)
        below.append(observed < lo)
        above.append(observed > hi)
    return np.array(below).reshape(-1, n_sim), np.array(above).reshape(-1, n_sim)


def interval_checks(per_setup, *, n_folds, n_repeats, n_sim=200, seed=0):
    """Checks and table of the Venn intervals against a valid-by-construction Venn predictor.

    Parameters
    ----------
    per_setup : dict
        Venn setup -> DataFrame indexed by dataset with columns ``lower``, ``upper``,
        ``accuracy``, ``interval_size`` and ``n_objects`` (means over repetitions).
    n_folds, n_repeats : int
        The protocol, repeated in the simulation.

    Returns
    -------
    checks : dict of str -> Check
        Per setup: the accuracy is strictly inside the interval on at least as many datasets as
        the 5th percentile of a valid Venn predictor under the same protocol (the less
        favourable of the two simulations of :func:`simulate_valid_containment`). Then: VP-oob
        gives the tightest intervals.
    table : pandas.DataFrame
        Per setup: datasets with the accuracy inside, below and above, and the simulated
        fraction inside (median and 5th-95th percentiles) for shared and independent draws.
    """
    checks, rows = {}, {}
    for setup, d in per_setup.items():
        side = containment_sides(d["lower"], d["upper"], d["accuracy"])
        inside = float((side == "inside").mean())
        below = sorted(side.index[side == "below"])
        above = sorted(side.index[side == "above"])
        row = {"inside": f"{inside:.0%}", "below": len(below), "above": len(above)}
        low = []
        for shared, label in ((True, "shared"), (False, "independent")):
            b, a = simulate_valid_containment(
                d["n_objects"],
                d["accuracy"],
                d["interval_size"],
                n_folds=n_folds,
                n_repeats=n_repeats,
                shared=shared,
                n_sim=n_sim,
                seed=seed,
            )
            frac = 1.0 - (b | a).mean(axis=0)
            q05, q50, q95 = np.quantile(frac, [0.05, 0.5, 0.95])
            row[f"valid, {label}: inside (median)"] = f"{q50:.0%}"
            row[f"valid, {label}: 5%-95%"] = f"{q05:.0%}-{q95:.0%}"
            row[f"valid, {label}: below / above (mean)"] = (
                f"{b.sum(axis=0).mean():.1f} / {a.sum(axis=0).mean():.1f}"
            )
            low.append(q05)
        rows[setup] = row
        misses = "; ".join(
            f"{name}: {', '.join(ds)}" for name, ds in (("below", below), ("above", above)) if ds
        )
        # the simulated 5th percentile holds the noise of the protocol already: judged alike
        # in quick and full mode
        checks[
            f"{setup}: the accuracy is strictly inside the interval on {inside:.0%} of the "
            f"datasets, no fewer than a valid Venn predictor gives under the same protocol "
            f"(5th percentile {min(low):.0%}; misses {misses or 'none'})"
        ] = Check(holds=bool(inside >= min(low)), exact=True)
    sizes = pd.Series({s: float(d["interval_size"].mean()) for s, d in per_setup.items()})
    if "VP-oob" in sizes.index:
        margin, se, n = float("nan"), float("inf"), 0
        if len(sizes) > 1:
            rival = sizes.drop("VP-oob").idxmin()
            d = (per_setup[rival]["interval_size"] - per_setup["VP-oob"]["interval_size"]).dropna()
            n = len(d)
            margin = float(d.mean())
            se = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
        checks[
            "VP-oob gives the tightest intervals (paper: VP-oob .006, VAP-cal .075; ours: "
            + ", ".join(f"{k} {v:.3f}" for k, v in sizes.items())
            + ")"
        ] = Check(holds=bool(sizes.idxmin() == "VP-oob"), margin=margin, se=se, df=n - 1)
    return checks, pd.DataFrame.from_dict(rows, orient="index")


def _margin(acc, a, b):
    """Mean of ``acc[a] - acc[b]`` over the datasets, and its standard error."""
    d = (acc[a] - acc[b]).dropna()
    se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    return float(d.mean()), se


def _noise(margin, se):
    """How a margin compares with its standard error, in words."""
    words = f"margin {margin:+.4f}, paired standard error {se:.4f}"
    if not np.isfinite(se) or abs(margin) < 2.0 * se:
        words += ": within noise"
    return words


def accuracy_checks(acc):
    """The paper's claims on accuracy, from the accuracy of each setup on each dataset.

    Each claim states its margin and the paired standard error over the datasets, and says
    "within noise" when the margin is under two standard errors: with one cross-validation
    (quick mode) a difference of a few thousandths between setups is often that.

    Parameters
    ----------
    acc : pandas.DataFrame
        Datasets x setups: mean accuracy over the repetitions.

    Returns
    -------
    dict of str -> Check
        Each with its margin and paired standard error over the datasets.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = pd.DataFrame({"VP-cal": [0.80, 0.70], "VP-oob": [0.82, 0.73],
    ...                     "RF-cal": [0.79, 0.69], "RF-oob": [0.81, 0.71]})
    >>> all(accuracy_checks(acc).values())
    True
    >>> acc["RF-cal"] = [0.815, 0.715]
    >>> [bool(v) for k, v in accuracy_checks(acc).items() if k.startswith("every")]
    [False]
    """
    means = acc.mean()
    setups = list(means.index)
    oob = [s for s in setups if s.endswith("-oob")]
    cal = [s for s in setups if s.endswith("-cal")]
    checks = {}
    if oob and cal:
        worst_oob, best_cal = means[oob].idxmin(), means[cal].idxmax()
        margin = _margin(acc, worst_oob, best_cal)
        checks[
            "every out-of-bag setup is more accurate on average than every calibration-set setup "
            f"(least accurate out-of-bag: {worst_oob}; most accurate on a calibration set: "
            f"{best_cal}; {_noise(*margin)})"
        ] = Check(bool(means[worst_oob] > means[best_cal]), *margin, df=len(acc) - 1)
        pairs = [(s[:-4] + "-oob", s) for s in cal if s[:-4] + "-oob" in oob]
        if pairs:
            o, c = min(pairs, key=lambda p: means[p[0]] - means[p[1]])
            margin = _margin(acc, o, c)
            checks[
                "each setup is more accurate calibrated out-of-bag than on a calibration set "
                f"(smallest gain: {o} over {c}; {_noise(*margin)})"
            ] = Check(bool(all(means[o] > means[c] for o, c in pairs)), *margin, df=len(acc) - 1)
    if "VP-oob" in setups and len(setups) > 1:
        best = means.idxmax()
        rival = means.drop("VP-oob").idxmax() if best == "VP-oob" else best
        margin = _margin(acc, "VP-oob", rival)
        checks[
            f"VP-oob is the most accurate setup (best: {best}; against {rival}: {_noise(*margin)})"
        ] = Check(bool(best == "VP-oob"), *margin, df=len(acc) - 1)
    return checks


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


@study_run
def run(config, grid):
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
    raw, wall_time = grid(cells, run_cell)
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

    t4: dict[str, dict[tuple[str, str], str]] = {}
    per_setup = {}
    for s in VENN_SETUPS:
        if s not in setups:
            continue
        lo, hi, a = wide("lower")[s], wide("upper")[s], acc[s]
        side = containment_sides(lo, hi, a)
        for ds in datasets:
            mark = {"inside": "", "below": " (below)", "above": " (above)"}[side[ds]]
            t4.setdefault(ds, {})[(s, "interval")] = f"[{lo[ds]:.3f}, {hi[ds]:.3f}]"
            t4[ds][(s, "size")] = f"{hi[ds] - lo[ds]:.3f}"
            t4[ds][(s, "accuracy")] = f"{a[ds]:.3f}{mark}"
        per_setup[s] = pd.DataFrame(
            {
                "lower": lo,
                "upper": hi,
                "accuracy": a,
                "interval_size": wide("interval_size")[s],
                "n_objects": n_objects,
            }
        )
    if t4:
        table4 = pd.DataFrame.from_dict(t4, orient="index")
        table4.columns = pd.MultiIndex.from_tuples(table4.columns)
        tables["Table 4: Venn intervals for the predicted label (accuracy below or above)"] = table4
        found, containment = interval_checks(
            per_setup,
            n_folds=config["n_folds"],
            n_repeats=config["n_repeats"],
            seed=config["base_seed"],
        )
        checks.update(found)
        tables[
            "Table 4b: datasets with the accuracy inside the interval, ours and a valid Venn "
            "predictor (simulated)"
        ] = containment
        notes.append(
            "Table 4b: a valid Venn predictor under the same protocol is simulated (200 runs) "
            "with one category per setup and dataset, whose calibration size gives the observed "
            "mean interval width, and correctness drawn i.i.d. with the observed accuracy: "
            "either once per object (shared by its test and calibration roles, as when every "
            "forest agrees on it) or afresh each time the object is scored (forests that share "
            "nothing). The real forests lie between the two; a setup's check fails when fewer "
            "datasets contain the accuracy than the 5th percentile of the less favourable of "
            "the two. Both simulations miss mostly above: an interval [k/(m+1), (k+1)/(m+1)] "
            "leaves the accuracy a margin of (1 - accuracy)/(m+1) above and accuracy/(m+1) "
            "below."
        )

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

    checks.update(accuracy_checks(acc))
    checks.update(text_checks(raw))
    checks = with_quick_margins(NAME, checks)

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
