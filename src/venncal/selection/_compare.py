"""Compare calibrators on one calibration set by cross-validation, with bootstrap intervals."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from venncal._validation import (
    check_binary_labels,
    check_consistent_length,
    check_in_range,
    check_positive_int,
    check_random_state,
    check_scores,
)
from venncal.metrics._common import bin_index

__all__ = ["CalibratorComparison", "compare_calibrators", "default_calibrators", "METRICS"]

#: the metrics the comparison reports (all: lower is better)
METRICS = ("log_loss", "brier_score", "ece")

#: the clipping of probabilities in the log loss (a probability of exactly 0 for an event
#: that happens costs ln(1e15) = 34.5 nats instead of infinity)
LOG_LOSS_CLIP = 1e-15

# fitted parameters of the calibrators the recommendation rule knows; others count as the most
# complex (see compare_calibrators)
_UNCALIBRATED = "uncalibrated"


def default_calibrators(scores_are_probabilities=True):
    """The calibrators compared by default, by name.

    Inductive Venn-Abers, isotonic regression, Platt scaling, beta calibration and histogram
    binning (10 equal-frequency bins). Beta calibration reads the scores as probabilities when
    they lie in [0, 1] and as log-odds otherwise.

    Examples
    --------
    >>> sorted(default_calibrators())
    ['beta', 'histogram', 'isotonic', 'platt', 'venn-abers']
    """
    from venncal.calibration import (
        BetaCalibrator,
        HistogramCalibrator,
        IsotonicCalibrator,
        PlattCalibrator,
        VennAbersCalibrator,
    )

    return {
        "venn-abers": VennAbersCalibrator(),
        "isotonic": IsotonicCalibrator(),
        "platt": PlattCalibrator(),
        "beta": BetaCalibrator(score_scale="probability" if scores_are_probabilities else "logit"),
        "histogram": HistogramCalibrator(n_bins=10, strategy="quantile"),
    }


def _n_parameters(est):
    """Fitted parameters of a calibrator, for the recommendation rule (inf if unknown)."""
    name = type(est).__name__
    if name == "PlattCalibrator":
        return 2
    if name == "BetaCalibrator":
        # a, b and c, less the coefficients the negative-coefficient rule fixed at 0
        fixed = {"abm": 0, "am": 1, "ab": 1}[est.parameters]
        return 3 - fixed - int(est.a_ == 0.0) - int(est.b_ == 0.0 and est.parameters != "am")
    if name == "HistogramCalibrator":
        return int(est.n_bins) * 2 - 1  # a probability per bin and the interior edges
    return np.inf


@dataclass(frozen=True)
class CalibratorComparison:
    """The result of :func:`compare_calibrators`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: one row per calibrator and metric, with columns ``calibrator``, ``metric``,
        ``estimate``, ``low``, ``high`` (the bootstrap interval), ``diff_to_best``,
        ``diff_low``, ``diff_high`` (the paired difference to the calibrator with the best
        estimate of that metric, and its interval), ``is_best``, ``n_parameters`` and
        ``fit_seconds`` (mean time of one fit).
    recommended : str
        The calibrator the rule chooses (see :func:`compare_calibrators`).
    rule : str
        The rule, in words, with the numbers that decided it.
    oof : pandas.DataFrame
        The out-of-fold probabilities of every calibrator (one column each), with ``y`` (0/1)
        and ``fold``: the data behind the table, e.g. for reliability diagrams.
    confidence_level : float
    n_boot : int
    """

    table: object
    recommended: str
    rule: str
    oof: object
    confidence_level: float
    n_boot: int

    def wide(self):
        """One row per calibrator, one column per metric (estimates only)."""
        return self.table.pivot(index="calibrator", columns="metric", values="estimate")[
            list(dict.fromkeys(self.table["metric"]))
        ].loc[list(dict.fromkeys(self.table["calibrator"]))]


def _splits(cv, y, rng_seed):
    from sklearn.model_selection import StratifiedKFold

    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        n_splits = check_positive_int(cv, name="cv", owner="compare_calibrators")
        if n_splits < 2:
            raise ValueError("compare_calibrators: 'cv' must be at least 2 folds.")
        smallest = int(min(np.sum(y == 0), np.sum(y == 1)))
        if smallest < n_splits:
            raise ValueError(
                f"compare_calibrators: cv={n_splits} folds need at least {n_splits} examples of "
                f"each class; the smaller class has {smallest}."
            )
        cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=rng_seed)
    if isinstance(cv, (str, bytes, bool)) or not hasattr(cv, "split"):
        raise TypeError(
            "compare_calibrators: 'cv' must be a number of folds or a scikit-learn splitter; "
            f"got {type(cv).__name__}."
        )
    return list(cv.split(np.zeros((y.shape[0], 1)), y))


def _check_calibrators(calibrators, probabilities):
    if calibrators is None:
        return default_calibrators(probabilities)
    if isinstance(calibrators, dict):
        items = list(calibrators.items())
    else:
        items = [(type(c).__name__, c) for c in calibrators]
        names = [n for n, _ in items]
        if len(set(names)) != len(names):
            raise ValueError(
                "compare_calibrators: two calibrators of the same class; pass a dict "
                "{name: calibrator} to name them."
            )
    if not items:
        raise ValueError("compare_calibrators: 'calibrators' is empty.")
    out = {}
    for name, est in items:
        if not (hasattr(est, "fit") and hasattr(est, "predict_proba")):
            raise TypeError(
                f"compare_calibrators: calibrator {name!r} has no fit/predict_proba "
                "(pass score calibrators such as venncal.PlattCalibrator())."
            )
        if str(name) == _UNCALIBRATED:
            raise ValueError(f"compare_calibrators: the name {_UNCALIBRATED!r} is reserved.")
        out[str(name)] = clone(est)
    return out


def _losses(y, p):
    """Per-row log loss (clipped) and squared error, shape (n,) each."""
    q = np.clip(p, LOG_LOSS_CLIP, 1.0 - LOG_LOSS_CLIP)
    log_loss = -np.where(y == 1, np.log(q), np.log1p(-q))
    return log_loss, (y - p) ** 2


def _bootstrap(y, probas, metrics, n_boot, n_bins, rng):
    """Metric values on the data and on ``n_boot`` paired resamples (multinomial counts)."""
    n = y.shape[0]
    per_row = {}
    for name, p in probas.items():
        ll, sq = _losses(y, p)
        idx = bin_index(p, np.ones(n), n_bins, "uniform", "compare_calibrators")
        one_hot = np.zeros((n, n_bins))
        one_hot[np.arange(n), idx] = y - p
        per_row[name] = {"log_loss": ll, "brier_score": sq, "ece": one_hot}

    def evaluate(counts):  # counts: (b, n) row multiplicities
        out = {}
        for name, rows in per_row.items():
            vals = {}
            if "log_loss" in metrics:
                vals["log_loss"] = counts @ rows["log_loss"] / n
            if "brier_score" in metrics:
                vals["brier_score"] = counts @ rows["brier_score"] / n
            if "ece" in metrics:
                vals["ece"] = np.abs(counts @ rows["ece"]).sum(axis=1) / n
            out[name] = vals
        return out

    point = evaluate(np.ones((1, n)))
    boot = {name: {m: [] for m in metrics} for name in probas}
    chunk = max(1, min(n_boot, int(2e7 // max(n, 1))))
    done = 0
    while done < n_boot:
        b = min(chunk, n_boot - done)
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=b).astype(np.float64)
        for name, vals in evaluate(counts).items():
            for m, v in vals.items():
                boot[name][m].append(v)
        done += b
    boot = {name: {m: np.concatenate(v) for m, v in d.items()} for name, d in boot.items()}
    point = {name: {m: float(v[0]) for m, v in d.items()} for name, d in point.items()}
    return point, boot


def compare_calibrators(
    scores,
    y,
    *,
    calibrators=None,
    cv=5,
    metrics=METRICS,
    n_boot=1000,
    confidence_level=0.95,
    n_bins=10,
    select_by="log_loss",
    include_uncalibrated="auto",
    random_state=None,
):
    """Compare calibrators on one calibration set: which one should I use?

    Every calibrator is fitted by cross-validation over the given scores and labels only (the
    classifier that made the scores is never refitted): each row gets a calibrated probability
    from a calibrator that did not see it. The metrics are computed on these out-of-fold
    probabilities, with percentile bootstrap intervals over the rows; the resamples are shared
    by all calibrators, so the interval of the difference between two of them is paired.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Scores of the classifier on the calibration data.
    y : array-like of shape (n,)
        Labels, any two values (the larger is positive).
    calibrators : dict or list of estimators, default=None
        ``{name: calibrator}`` or a list of unfitted score calibrators. Default:
        :func:`default_calibrators` (Venn-Abers, isotonic, Platt, beta, histogram).
    cv : int or scikit-learn splitter, default=5
        Number of stratified folds (shuffled with ``random_state``), or a splitter.
    metrics : sequence of str, default=("log_loss", "brier_score", "ece")
        Among ``"log_loss"`` (clipped to ``[1e-15, 1 - 1e-15]``), ``"brier_score"`` and
        ``"ece"`` (``n_bins`` equal-width bins, as :func:`venncal.metrics.ece`).
    n_boot : int, default=1000
        Bootstrap resamples.
    confidence_level : float, default=0.95
        Of the bootstrap intervals.
    n_bins : int, default=10
        Bins of the ECE.
    select_by : str, default="log_loss"
        The metric of the recommendation rule; one of ``metrics``.
    include_uncalibrated : {"auto", True, False}, default="auto"
        Add the scores themselves as a candidate named ``"uncalibrated"`` (is calibration
        needed at all?). ``"auto"``: when the scores lie in [0, 1].
    random_state : int, numpy Generator or None, default=None
        Seeds the folds and the bootstrap.

    Returns
    -------
    CalibratorComparison
        ``table`` (tidy), ``recommended``, ``rule`` and the out-of-fold probabilities.

    Notes
    -----
    **The recommendation rule.** Among the candidates whose paired difference to the best in
    ``select_by`` has a bootstrap interval that reaches 0 (not distinguishable from the best),
    choose the one with the fewest fitted parameters: uncalibrated (0) < Platt scaling (2) <
    beta calibration (3 or fewer) < histogram binning (a value and an edge per bin) < the
    non-parametric calibrators (isotonic, Venn-Abers, Bayesian binning, and any calibrator the
    rule does not know), ties broken by the better estimate. Simpler maps are steadier on new
    data; when nothing simple is as good as the best, the best is chosen. Venn-Abers' own
    strength, the interval ``[p0, p1]`` and its validity guarantee, is not measured by these
    metrics: choose it when you need them.

    The intervals are conditional on the fitted calibrators (the rows are resampled, the
    calibrators are not refitted), which is what a bootstrap of a validation set measures.
    The binned ECE is biased upward on resamples (noise adds to every bin's gap), so its
    interval can lie above a small estimate; read the ECE rows as descriptive, and the log
    loss and Brier score, which are means of per-row losses, as the evidence.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=2000)
    >>> y = rng.random(2000) < s**2  # scores that overestimate the probability
    >>> cmp = compare_calibrators(s, y, n_boot=200, random_state=0)
    >>> cmp.recommended
    'beta'
    >>> cmp.wide().loc[["uncalibrated", "beta"], ["log_loss", "ece"]].round(3)
    metric        log_loss    ece
    calibrator
    uncalibrated     0.490  0.168
    beta             0.396  0.019
    """
    import pandas as pd

    owner = "compare_calibrators"
    s = check_scores(scores, name="scores")
    y01, classes = check_binary_labels(y, name="y")
    check_consistent_length(scores=s, y=y01)
    metrics = tuple(metrics)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise ValueError(
            f"{owner}: 'metrics' must be a non-empty subset of {', '.join(METRICS)}; "
            f"got {list(metrics)!r}."
        )
    if select_by not in metrics:
        raise ValueError(f"{owner}: 'select_by' must be one of the metrics {list(metrics)!r}.")
    n_boot = check_positive_int(n_boot, name="n_boot", owner=owner)
    check_in_range(confidence_level, 0, 1, name="confidence_level", owner=owner, closed="neither")
    n_bins = check_positive_int(n_bins, name="n_bins", owner=owner)
    if include_uncalibrated not in ("auto", True, False):
        raise ValueError(f"{owner}: 'include_uncalibrated' must be 'auto', True or False.")
    rng = check_random_state(random_state)
    probabilities = bool(s.min() >= 0.0 and s.max() <= 1.0)
    if include_uncalibrated is True and not probabilities:
        raise ValueError(
            f"{owner}: include_uncalibrated=True needs scores in [0, 1] (probabilities)."
        )
    cals = _check_calibrators(calibrators, probabilities)
    folds = _splits(cv, y01, int(rng.integers(2**31)))

    fold_of = np.empty(s.shape[0], dtype=np.int64)
    for k, (train, test) in enumerate(folds):
        fold_of[test] = k
        if np.unique(y01[train]).size < 2:
            raise ValueError(f"{owner}: a training fold holds one class only; use fewer folds.")
    probas, seconds = {}, {}
    if include_uncalibrated is True or (include_uncalibrated == "auto" and probabilities):
        probas[_UNCALIBRATED], seconds[_UNCALIBRATED] = s.copy(), 0.0

    n_params = {_UNCALIBRATED: 0}
    for name, est in cals.items():
        p = np.empty(s.shape[0])
        total = 0.0
        params = []
        for train, test in folds:
            fitted = clone(est)
            t0 = time.perf_counter()
            fitted.fit(s[train], y01[train])
            total += time.perf_counter() - t0
            p[test] = fitted.predict_proba(s[test])[:, 1]
            params.append(_n_parameters(fitted))
        probas[name], seconds[name] = p, total / len(folds)
        n_params[name] = max(params)

    point, boot = _bootstrap(y01, probas, metrics, n_boot, n_bins, rng)
    alpha = (1.0 - confidence_level) / 2.0
    rows = []
    for m in metrics:
        best = min(point, key=lambda name: point[name][m])
        for name in probas:
            dist = boot[name][m]
            diff = dist - boot[best][m]
            rows.append(
                {
                    "calibrator": name,
                    "metric": m,
                    "estimate": point[name][m],
                    "low": float(np.quantile(dist, alpha)),
                    "high": float(np.quantile(dist, 1.0 - alpha)),
                    "diff_to_best": point[name][m] - point[best][m],
                    "diff_low": float(np.quantile(diff, alpha)),
                    "diff_high": float(np.quantile(diff, 1.0 - alpha)),
                    "is_best": name == best,
                    "n_parameters": n_params[name],
                    "fit_seconds": seconds[name],
                }
            )
    table = pd.DataFrame(rows)
    sel = table[table["metric"] == select_by]
    tied = sel[sel["diff_low"] <= 0.0]
    chosen = tied.sort_values(["n_parameters", "estimate"], kind="stable").iloc[0]
    best_row = sel[sel["is_best"]].iloc[0]
    if chosen["calibrator"] == best_row["calibrator"]:
        rule = (
            f"{chosen['calibrator']} has the best {select_by} ({chosen['estimate']:.4g}) and no "
            "simpler candidate is within its interval."
        )
    else:
        rule = (
            f"{chosen['calibrator']} is the simplest candidate whose {select_by} "
            f"({chosen['estimate']:.4g}) cannot be told from the best, "
            f"{best_row['calibrator']} ({best_row['estimate']:.4g}): the "
            f"{round(100 * confidence_level)}% interval of the difference is "
            f"[{chosen['diff_low']:.3g}, {chosen['diff_high']:.3g}]."
        )
    oof = pd.DataFrame(probas)
    oof.insert(0, "fold", fold_of)
    oof.insert(0, "y", y01)
    return CalibratorComparison(
        table, str(chosen["calibrator"]), rule, oof, float(confidence_level), n_boot
    )
