"""Compare calibrators on one calibration set by cross-validation, with bootstrap intervals."""

from __future__ import annotations

import inspect
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone

from venncal._validation import check_in_range, check_positive_int, check_random_state
from venncal.selection._candidates import (
    LOG_LOSS_CLIP,
    UNCALIBRATED,
    check_calibrators,
    default_calibrators,
    default_multiclass_calibrators,
    puts_zero_or_one,
    row_losses,
)
from venncal.selection._inputs import (
    ComparisonData,
    check_data,
    configured_name,
    fit_arguments,
    positive_column,
    warn_once_each,
)
from venncal.selection._resample import RowValues, paired_bootstrap, recentred_interval
from venncal.selection._rule import recommend

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from venncal._typing import ArrayLike, SeedLike

__all__ = [
    "CalibratorComparison",
    "compare_calibrators",
    "default_calibrators",
    "default_multiclass_calibrators",
    "METRICS",
    "LOG_LOSS_CLIP",
]

#: the metrics the comparison reports (all: lower is better)
METRICS = ("log_loss", "brier_score", "ece")

_OWNER = "compare_calibrators"

#: the default of the recommendation rule, for two classes and for K
_DEFAULTS = ("venn-abers", "matrix-scaling")


@dataclass(frozen=True)
class CalibratorComparison:
    """The result of :func:`compare_calibrators`.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: one row per calibrator and metric, with columns ``calibrator``, ``metric``,
        ``estimate``, ``low``, ``high`` (the bootstrap interval, which contains the
        estimate), ``diff_to_best``, ``diff_low``, ``diff_high`` (the paired difference to
        the calibrator with the best estimate of that metric, and its interval),
        ``diff_to_default``, ``default_low``, ``default_high`` (the same against the rule's
        default), ``is_best``, ``eligible`` (False when the calibrator puts probability 0 or
        1 on a row) and ``fit_seconds`` (mean time of one fit).
    recommended : str
        The name of the calibrator the rule chooses (see :func:`compare_calibrators`).
    recommended_estimator : estimator or None
        The recommended calibrator, ready to use: exactly the configuration that was measured
        (``candidates[recommended]``), fitted on all the calibration data (with the user's
        labels and ``pos_label``). None when the recommendation is ``"uncalibrated"``: use
        the scores as they are.
    rule : str
        The rule, in words, with the numbers that decided it.
    oof : pandas.DataFrame
        The out-of-fold probabilities of every calibrator (binary: one column each; K
        classes: one column per calibrator and class, named ``name[label]``), with ``y``
        and ``fold``: the data behind the table, e.g. for reliability diagrams.
    confidence_level : float
    n_boot : int
    default : str
        The default of the rule.
    candidates : dict of str to estimator
        The candidates, unfitted (None for ``"uncalibrated"``).
    labels : dict of str to str
        Each candidate's name with its configuration, the parameters that differ from its
        class's defaults: ``"venn-abers (merge='mean')"``. A label without parentheses is
        the class as it comes. The rule and the command line print these.
    positive : object
        The positive label (binary; None for K classes).
    """

    table: pd.DataFrame
    recommended: str
    rule: str
    oof: pd.DataFrame
    confidence_level: float
    n_boot: int
    default: str = "venn-abers"
    candidates: dict[str, Any] | None = None
    recommended_estimator: Any = None
    labels: dict[str, str] = field(default_factory=dict)
    positive: Any = None

    def label(self, name: str) -> str:
        """The name of a candidate with its configuration (see ``labels``)."""
        return self.labels.get(name, name)

    def wide(self) -> pd.DataFrame:
        """One row per calibrator, one column per metric (estimates only)."""
        return self.table.pivot(index="calibrator", columns="metric", values="estimate")[
            list(dict.fromkeys(self.table["metric"]))
        ].loc[list(dict.fromkeys(self.table["calibrator"]))]


def _splits(cv, y, rng_seed):
    from sklearn.model_selection import StratifiedKFold

    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        n_splits = check_positive_int(cv, name="cv", owner=_OWNER)
        if n_splits < 2:
            raise ValueError(f"{_OWNER}: 'cv' must be at least 2 folds.")
        smallest = int(np.bincount(y).min())
        if smallest < n_splits:
            raise ValueError(
                f"{_OWNER}: cv={n_splits} folds need at least {n_splits} examples of "
                f"each class; the smallest class has {smallest}."
            )
        cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=rng_seed)
    if isinstance(cv, (str, bytes, bool)) or not hasattr(cv, "split"):
        raise TypeError(
            f"{_OWNER}: 'cv' must be a number of folds or a scikit-learn splitter; "
            f"got {type(cv).__name__}."
        )
    folds = list(cv.split(np.zeros((y.shape[0], 1)), y))
    n_classes = int(y.max()) + 1
    for train, _ in folds:
        if np.unique(y[train]).size < n_classes:
            raise ValueError(
                f"{_OWNER}: a training fold lacks a class; use fewer folds or a stratified "
                "splitter."
            )
    return folds


def _takes_segments(est: Any) -> bool:
    try:
        return "segments" in inspect.signature(est.fit).parameters
    except (TypeError, ValueError):
        return False


def _fit_predict(est, data, folds, k, segments=None):
    """Fit a clone on fold ``k``'s training rows (``k == len(folds)``: on all rows) and
    predict its test rows (all rows): the probabilities (binary: of the positive class), the
    fit's seconds and the fitted model (kept for the fit on all rows only). ``segments``: the
    rows' segment frame, passed to a candidate whose ``fit`` takes ``segments``."""
    train, test = folds[k] if k < len(folds) else (slice(None), slice(None))
    model = clone(est)
    labels, kwargs = fit_arguments(model, data)
    predict_kwargs = {}
    if segments is not None and _takes_segments(model):
        kwargs["segments"] = segments.iloc[train]
        predict_kwargs["segments"] = segments.iloc[test]
    t0 = time.perf_counter()
    model.fit(data.scores[train], labels[train], **kwargs)
    seconds = time.perf_counter() - t0
    proba = np.asarray(model.predict_proba(data.scores[test], **predict_kwargs), dtype=np.float64)
    if not data.multiclass:
        proba = proba[:, positive_column(model, data) if "pos_label" in kwargs else 1]
    return proba, seconds, (model if k == len(folds) else None)


def _progress_bar(total, progress):
    from tqdm.auto import tqdm

    # progress=None: shown only on a terminal (tqdm's disable=None)
    disable = None if progress is None else not progress
    return tqdm(total=total, disable=disable, file=sys.stderr, unit="step", leave=False)


def compare_calibrators(
    scores: ArrayLike,
    y: ArrayLike,
    *,
    calibrators: dict[str, Any] | Sequence[Any] | None = None,
    cv: int | Any = 5,
    metrics: Sequence[str] = METRICS,
    n_boot: int = 1000,
    confidence_level: float = 0.95,
    n_bins: int = 10,
    select_by: str = "log_loss",
    include_uncalibrated: bool | str = "auto",
    default: str | None = None,
    pos_label: object = None,
    segments: Any = None,
    n_jobs: int | None = None,
    progress: bool | None = False,
    random_state: SeedLike = None,
) -> CalibratorComparison:
    """Compare calibrators on one calibration set: which one should I use?

    Every calibrator is fitted by cross-validation over the given scores and labels only (the
    classifier that made the scores is never refitted): each row gets a calibrated probability
    from a calibrator that did not see it. The metrics are computed on these out-of-fold
    probabilities, with bootstrap intervals over the rows; the resamples are shared by all
    calibrators, so the interval of the difference between two of them is paired. Binary
    scores (shape (n,)) or a K-class score matrix (shape (n, K), logits or probabilities).

    Parameters
    ----------
    scores : array-like of shape (n,) or (n, K)
        Scores of the classifier on the calibration data: one per row for two classes (as
        every binary calibrator takes them: the positive class's column of a
        ``predict_proba``, a margin or log-odds), or one column per class (in the sorted order
        of the labels) for K >= 3 classes. Two columns with two classes are refused (pass the
        positive class's column).
    y : array-like of shape (n,)
        Labels: any two values (the larger is positive unless ``pos_label`` says otherwise),
        or the K classes.
    calibrators : dict or list of estimators, default=None
        ``{name: calibrator}`` or a list of unfitted calibrators. Default: for two classes
        :func:`default_calibrators` (Venn-Abers, isotonic, Platt, beta, histogram, quadratic,
        temperature); for K classes :func:`default_multiclass_calibrators` (temperature,
        structured matrix scaling, multiclass Venn-Abers).
    cv : int or scikit-learn splitter, default=5
        Number of stratified folds (shuffled with ``random_state``), or a splitter.
    metrics : sequence of str, default=("log_loss", "brier_score", "ece")
        Among ``"log_loss"`` (clipped to ``[1e-15, 1 - 1e-15]``), ``"brier_score"`` (K
        classes: the squared distance to the one-hot label) and ``"ece"`` (``n_bins``
        equal-width bins, as :func:`venncal.metrics.ece`; K classes: the top-label ECE).
    n_boot : int, default=1000
        Bootstrap resamples.
    confidence_level : float, default=0.95
        Of the bootstrap intervals, and of the rule.
    n_bins : int, default=10
        Bins of the ECE.
    select_by : str, default="log_loss"
        The metric of the recommendation rule; one of ``metrics``.
    include_uncalibrated : {"auto", True, False}, default="auto"
        Add the scores themselves as a candidate named ``"uncalibrated"`` (is calibration
        needed at all?). ``"auto"``: when the scores are probabilities (in [0, 1]; K classes:
        rows that sum to one).
    default : str or None, default=None
        The rule's default: ``"venn-abers"`` for two classes and ``"matrix-scaling"`` for K
        when they are candidates, else the eligible candidate with the best estimate.
    pos_label : int, float, bool or str, default=None
        Binary: the label the scores point to (larger score, more likely ``pos_label``), as
        in the calibrators' ``fit``. None: the larger label in sorted order. One warning says
        when the scores rank it below the other label (ROC AUC below 0.5).
    segments : pandas.DataFrame or dict of array-like, default=None
        Binary: segment features of the rows (as :class:`~venncal.MulticalibrationCalibrator`
        reads them). Given, every candidate whose ``fit`` takes ``segments`` gets its rows'
        segments in ``fit`` and ``predict_proba``, and the default candidates include
        ``"multicalibration"``, a ``MulticalibrationCalibrator`` (scores read as in beta
        calibration); a recommended multicalibration calibrator predicts with ``segments=``.
    n_jobs : int or None, default=None
        Fits run at once, in threads (joblib; None: one, -1: one per core). The results do
        not depend on it.
    progress : bool or None, default=False
        Show a progress bar on standard error (None: only on a terminal).
    random_state : int, numpy Generator or None, default=None
        Seeds the folds and the bootstrap.

    Returns
    -------
    CalibratorComparison
        ``table`` (tidy), ``recommended``, ``recommended_estimator`` (the recommended
        configuration fitted on all the data, ready to use), ``rule`` and the out-of-fold
        probabilities.

    Notes
    -----
    **The recommendation rule: the default unless beaten.** A candidate that puts probability
    0 or 1 on a row (out-of-fold, or fitted on all rows) is never recommended. With fewer than
    20 rows in the smallest class the default is kept. Otherwise a candidate replaces the
    default only when the upper end of the interval of its paired difference to the default
    in ``select_by`` is below 0; among those, the one with the best estimate. Venn-Abers (mean
    merge), the binary default, has the best mean log loss of the single calibrators on the
    bundled benchmark, and its probabilities never reach 0 or 1; structured matrix scaling,
    the K-class default, beats temperature scaling in most cells of the K-class benchmark and
    shrinks to it on small data. On ``benchmarks/bench_quality.py`` the rule's choice has a
    mean test log loss no higher than any single calibrator's (see the "Choosing a
    calibrator" guide for the figures and where it loses).

    **Intervals.** The metrics are sums over rows, so a resample needs no refit: the
    bootstrap reweights the per-row losses (above 10,000 rows, random blocks of rows; see
    :mod:`venncal.selection._resample`). Each interval is the percentile interval moved so
    that the bootstrap median sits on the estimate, so it always contains the estimate; the
    binned ECE, biased upward on resamples, is the case where this matters. The intervals are
    conditional on the fitted calibrators (the rows are resampled, the calibrators are not
    refitted), which is what a bootstrap of a validation set measures.

    **Warnings.** A warning raised by the fits (every candidate is fitted once per fold and
    once on all rows) is issued once per cause, with the number of times it came.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=2000)
    >>> y = rng.random(2000) < s**2  # scores that overestimate the probability
    >>> cmp = compare_calibrators(s, y, n_boot=200, random_state=0)
    >>> cmp.wide().loc[["uncalibrated", "venn-abers", "beta"], ["log_loss", "ece"]].round(3)
    metric        log_loss    ece
    calibrator
    uncalibrated     0.490  0.168
    venn-abers       0.397  0.007
    beta             0.396  0.019

    Beta calibration is a little better here, but not clearly: the interval of its difference
    to the default reaches above 0, so the default stays.

    >>> cmp.recommended
    'venn-abers'
    >>> row = cmp.table.set_index(["calibrator", "metric"]).loc[("beta", "log_loss")]
    >>> bool(row["default_low"] < 0 < row["default_high"])
    True
    """
    import pandas as pd

    data = check_data(scores, y, pos_label)
    S, codes, probabilities, multiclass = (
        data.scores,
        data.codes,
        data.probabilities,
        data.multiclass,
    )
    metrics = tuple(metrics)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise ValueError(
            f"{_OWNER}: 'metrics' must be a non-empty subset of {', '.join(METRICS)}; "
            f"got {list(metrics)!r}."
        )
    if select_by not in metrics:
        raise ValueError(f"{_OWNER}: 'select_by' must be one of the metrics {list(metrics)!r}.")
    n_boot = check_positive_int(n_boot, name="n_boot", owner=_OWNER)
    check_in_range(confidence_level, 0, 1, name="confidence_level", owner=_OWNER, closed="neither")
    n_bins = check_positive_int(n_bins, name="n_bins", owner=_OWNER)
    if include_uncalibrated not in ("auto", True, False):
        raise ValueError(f"{_OWNER}: 'include_uncalibrated' must be 'auto', True or False.")
    if progress not in (True, False, None):
        raise ValueError(f"{_OWNER}: 'progress' must be True, False or None.")
    rng = check_random_state(random_state)
    if include_uncalibrated is True and not probabilities:
        raise ValueError(
            f"{_OWNER}: include_uncalibrated=True needs scores in [0, 1] (probabilities"
            + ("; rows summing to one)." if multiclass else ").")
        )
    frame = _segments(segments, S.shape[0], multiclass)
    defaults = default_multiclass_calibrators if multiclass else default_calibrators
    cals = check_calibrators(calibrators, lambda: defaults(probabilities))
    if frame is not None and calibrators is None:
        from venncal.calibration import MulticalibrationCalibrator

        scale = "probability" if probabilities else "logit"
        cals["multicalibration"] = MulticalibrationCalibrator(score_scale=scale)
    if default is not None and default not in set(cals) | {UNCALIBRATED}:
        raise ValueError(f"{_OWNER}: 'default' must name a candidate; got {default!r}.")
    folds = _splits(cv, codes, int(rng.integers(2**31)))

    fold_of = np.empty(codes.shape[0], dtype=np.int64)
    for k, (_, test) in enumerate(folds):
        fold_of[test] = k
    probas, seconds, eligible, models = {}, {}, {}, {}
    if include_uncalibrated is True or (include_uncalibrated == "auto" and probabilities):
        probas[UNCALIBRATED], seconds[UNCALIBRATED] = S.copy(), 0.0
        eligible[UNCALIBRATED] = not puts_zero_or_one(S)

    bar = _progress_bar(len(cals) * (len(folds) + 1) + n_boot, progress)
    try:
        # every fit's warnings are recorded (from the worker threads too) and issued once each
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if not multiclass:  # first, on all rows and in the user's labels
                _warn_if_reversed(data)
            tasks = [(name, k) for name in cals for k in range(len(folds) + 1)]
            runs = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
                delayed(_fit_predict)(cals[name], data, folds, k, frame) for name, k in tasks
            )
            fitted = {}
            for (name, k), result in zip(tasks, runs):
                fitted[name, k] = result
                bar.update(1)
        warn_once_each(caught, stacklevel=2)
        for name in cals:
            p = np.empty(S.shape)
            for k, (_, test) in enumerate(folds):
                p[test] = fitted[name, k][0]
            full, _, models[name] = fitted[name, len(folds)]
            probas[name] = p
            seconds[name] = sum(fitted[name, k][1] for k in range(len(folds))) / len(folds)
            eligible[name] = not (puts_zero_or_one(p) or puts_zero_or_one(full))
        del fitted

        values = {
            name: RowValues(*row_losses(codes, p, metrics, n_bins)) for name, p in probas.items()
        }
        point, boot = paired_bootstrap(values, codes.shape[0], n_boot, rng, progress=bar.update)
    finally:
        bar.close()

    if default is None:
        default = _DEFAULTS[int(multiclass)]
        if default not in probas or not eligible[default]:
            ok = [name for name in probas if eligible[name]] or list(probas)
            default = min(ok, key=lambda name: point[name][select_by])

    labels = {name: configured_name(name, cals.get(name)) for name in probas}
    table = _table(point, boot, probas, metrics, default, eligible, seconds, confidence_level)
    sel = table[table["metric"] == select_by].set_index("calibrator")
    recommended, rule = recommend(
        sel["estimate"].to_dict(),
        {name: (row.default_low, row.default_high) for name, row in sel.iterrows()},
        eligible,
        default,
        int(np.bincount(codes).min()),
        select_by,
        confidence_level,
        labels=labels,
    )
    oof = _oof_frame(probas, data.classes, multiclass, pd)
    oof.insert(0, "fold", fold_of)
    oof.insert(0, "y", codes if not multiclass else data.labels)
    candidates = {name: clone(est) for name, est in cals.items()}
    if UNCALIBRATED in probas:
        candidates = {UNCALIBRATED: None, **candidates}
    return CalibratorComparison(
        table,
        recommended,
        rule,
        oof,
        float(confidence_level),
        n_boot,
        default,
        candidates,
        recommended_estimator=models.get(recommended),
        labels=labels,
        positive=data.positive,
    )


def _segments(segments: Any, n: int, multiclass: bool) -> pd.DataFrame | None:
    """The segment frame of a comparison (None without segments), its rows checked."""
    if segments is None:
        return None
    if multiclass:
        raise ValueError(
            f"{_OWNER}: 'segments' applies to binary scores (one column); got a score matrix."
        )
    from venncal.metrics._multicalibration import as_segment_frame

    frame = as_segment_frame(segments).reset_index(drop=True)
    if frame.shape[0] != n:
        raise ValueError(
            f"{_OWNER}: 'segments' has {frame.shape[0]} rows for {n} scores; they must match."
        )
    return frame


def _warn_if_reversed(data: ComparisonData) -> None:
    from venncal.calibration._base import warn_if_reversed

    positive = data.positive
    negative = data.classes[0] if data.classes[1] == positive else data.classes[1]
    warn_if_reversed(
        data.scores, data.codes.astype(np.int8), None, positive, negative, stacklevel=2
    )


def _table(point, boot, probas, metrics, default, eligible, seconds, level):
    import pandas as pd

    rows = []
    for m in metrics:
        best = min(point, key=lambda name: point[name][m])
        for name in probas:
            est = point[name][m]
            low, high = recentred_interval(est, boot[name][m], level, lower_bound=0.0)
            diff = {}
            for key, ref in (("diff", best), ("default", default)):
                d = est - point[ref][m]
                if ref == name:
                    diff[key] = (0.0, 0.0, 0.0)
                else:
                    diff[key] = (d, *recentred_interval(d, boot[name][m] - boot[ref][m], level))
            rows.append(
                {
                    "calibrator": name,
                    "metric": m,
                    "estimate": est,
                    "low": low,
                    "high": high,
                    "diff_to_best": diff["diff"][0],
                    "diff_low": diff["diff"][1],
                    "diff_high": diff["diff"][2],
                    "diff_to_default": diff["default"][0],
                    "default_low": diff["default"][1],
                    "default_high": diff["default"][2],
                    "is_best": name == best,
                    "eligible": eligible[name],
                    "fit_seconds": seconds[name],
                }
            )
    return pd.DataFrame(rows)


def _oof_frame(probas, classes, multiclass, pd):
    if not multiclass:
        return pd.DataFrame(probas)
    columns = {}
    for name, p in probas.items():
        for k, label in enumerate(classes):
            columns[f"{name}[{label}]"] = p[:, k]
    return pd.DataFrame(columns)
