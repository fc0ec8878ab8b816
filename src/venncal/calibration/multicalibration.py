"""Calibration within every segment: boosting on segment features, then Venn-Abers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin

from venncal._params import check_in_range, check_option, check_positive_int
from venncal._validation import scaled_sample_weight
from venncal.calibration._base import BaseScoreCalibrator, _scalar, positive_index, warn_if_reversed
from venncal.core.merge import MERGES, merge
from venncal.core.multicalibration import (
    INTERVAL_BINS,
    MAX_LEVELS,
    MIN_LEVEL_ROWS,
    MISSING_LEVEL,
    LevelPredictors,
    SegmentCoding,
    TreeEnsemble,
    check_n_folds,
    level_edges,
    score_logit,
)
from venncal.core.venn_abers import ivap_fit
from venncal.metrics._multicalibration import as_segment_frame, split_columns

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray
    from venncal.core.venn_abers import IVAPTables

__all__ = ["MulticalibrationCalibrator"]

SCORE_SCALES = ("probability", "logit")
INTERVALS = ("segments", "pooled")


def _text(column: pd.Series) -> AnyArray:
    """A categorical column as text, missing values as :data:`MISSING_LEVEL`."""
    values = column.to_numpy(dtype=object)
    missing = column.isna().to_numpy()
    out = np.array([str(v) for v in values], dtype=object)
    out[missing] = MISSING_LEVEL
    return out.astype(str)


def _columns(
    frame: pd.DataFrame, categorical: list[str], numerical: list[str], *, owner: str
) -> dict[str, AnyArray]:
    """The segment columns of ``frame`` as arrays: text (categorical) and float (numerical)."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    missing = [c for c in categorical + numerical if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{owner}: 'segments' lacks the columns {missing!r} seen at fit; pass a frame "
            "with every segment column."
        )
    out = {c: _text(frame[c]) for c in categorical}
    for c in numerical:
        col = frame[c]
        if not is_numeric_dtype(col) or is_bool_dtype(col):
            raise TypeError(f"{owner}: the numerical segment column {c!r} is not numeric.")
        x = col.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isinf(x).any():
            raise ValueError(f"{owner}: the numerical segment column {c!r} holds infinity.")
        out[c] = x
    return out


def _coding(
    cols: dict[str, AnyArray], categorical: list[str], numerical: list[str], n_bins: int
) -> SegmentCoding:
    """The levels and cut points learnt from the calibration data (rules in the class
    docstring)."""
    levels = []
    for c in categorical:
        values, counts = np.unique(cols[c], return_counts=True)
        order = np.lexsort((values, -counts))[:MAX_LEVELS]
        levels.append(tuple(str(values[k]) for k in order if counts[k] >= MIN_LEVEL_ROWS))
    edges = tuple(level_edges(cols[c], n_bins) for c in numerical)
    return SegmentCoding(tuple(categorical), tuple(levels), tuple(numerical), edges)


def _mean_one(w: FloatArray) -> FloatArray:
    """Weights divided by their mean, summed in units of a power of two (exact: the same
    numbers as ``w / w.mean()``, also where the sum of the weights exceeds the largest float)."""
    scaled, _ = scaled_sample_weight(w)
    out: FloatArray = scaled / scaled.mean()
    return out


def _log_loss(y: FloatArray, f: FloatArray, w: FloatArray) -> float:
    """Weighted mean log loss of log-odds ``f``."""
    return float(np.average(np.logaddexp(0.0, f) - y * f, weights=w))


def _best_round(losses: list[float]) -> int:
    """The first round whose loss is lower by more than 1e-9 than every earlier one's."""
    best, best_round = losses[0], 0
    for r, loss in enumerate(losses[1:], start=1):
        if loss < best - 1e-9:
            best, best_round = loss, r
    return best_round


def _half_losses(y: FloatArray, f: FloatArray, w: FloatArray, half: AnyArray) -> list[float]:
    """Weighted mean log loss of log-odds ``f`` on each half (``half`` True and False) of the
    rows; 0 for an empty half."""
    loss = w * (np.logaddexp(0.0, f) - y * f)
    out = []
    for rows in (half, ~half):
        total = w[rows].sum()
        out.append(float(loss[rows].sum() / total) if total > 0 else 0.0)
    return out


def _boost(
    X: FloatArray,
    f0: FloatArray,
    y: FloatArray,
    w: FloatArray,
    held: tuple[FloatArray, FloatArray, FloatArray, FloatArray, AnyArray],
    est: MulticalibrationCalibrator,
    seed: int,
) -> tuple[TreeEnsemble, FloatArray]:
    """Newton boosting of the log-odds from the offset ``f0``; the rounds kept are those up to
    the lowest log loss on the held-out rows ``held = (X, f0, y, w, half)`` (none if no round
    lowers it).

    Also returns an honest correction of each held-out row: the trees up to the round of
    lowest log loss on the other half of the held-out rows (``half`` splits them), so that
    neither the trees nor their number saw the row.
    """
    from sklearn.tree import DecisionTreeRegressor

    Xv, fv, yv, wv, half = held
    f, fv = f0.copy(), fv.copy()
    best, best_round = _log_loss(yv, fv, wv), 0
    halves = [_half_losses(yv, fv, wv, half)]
    trees: list[TreeEnsemble] = []
    for r in range(est.max_iter):
        p = expit(f)  # no overflow at log-odds of any magnitude
        g, h = y - p, p * (1.0 - p)
        tree = DecisionTreeRegressor(
            max_leaf_nodes=est.max_leaf_nodes,
            min_samples_leaf=est.min_samples_leaf,
            random_state=seed + r,
        ).fit(X, g, sample_weight=w)
        t = tree.tree_
        leaf = tree.apply(X)
        sum_g = np.bincount(leaf, weights=w * g, minlength=t.node_count)
        sum_h = np.bincount(leaf, weights=w * h, minlength=t.node_count)
        value = est.learning_rate * sum_g / (sum_h + est.l2_regularization)
        is_leaf = t.children_left < 0
        value[~is_leaf] = 0.0
        f += value[leaf]
        fv += value[tree.apply(Xv)]
        trees.append(
            TreeEnsemble(
                feature=np.where(is_leaf, -1, t.feature).astype(np.int64),
                threshold=np.where(is_leaf, 0.0, t.threshold),
                left=t.children_left.astype(np.int64),
                right=t.children_right.astype(np.int64),
                value=value,
                roots=np.zeros(1, dtype=np.int64),
                max_depth=int(t.max_depth),
            )
        )
        loss = _log_loss(yv, fv, wv)
        halves.append(_half_losses(yv, fv, wv, half))
        if loss < best - 1e-9:
            best, best_round = loss, r + 1
        elif r + 1 - best_round >= est.n_iter_no_change:
            break
    honest = np.zeros(Xv.shape[0])
    for rows, other in ((half, 1), (~half, 0)):
        kept = _best_round([h[other] for h in halves])
        if kept and rows.any():
            honest[rows] = TreeEnsemble.concatenate(trees[:kept]).decision(Xv[rows])
    return TreeEnsemble.concatenate(trees[:best_round]), honest


#: the candidates of the held-out check, simplest first
CANDIDATES = ("identity", "venn_abers", "boosted")
#: log-odds of 1 - 1e-12: the held-out check takes probabilities within [1e-12, 1 - 1e-12]
LOGIT_CAP = float(np.log1p(-1e-12) - np.log(1e-12))
#: folds of the held-out check of the Venn-Abers steps (fitted on the other nine tenths)
CHECK_FOLDS = 10
#: a candidate is kept when its held-out log loss exceeds the best one's by at most this many
#: standard errors of their paired per-row difference (the simplest such candidate wins)
TIE_SE = 0.5


def _row_losses(y: FloatArray, f: FloatArray) -> FloatArray:
    """Log loss of each row at log-odds ``f``."""
    out: FloatArray = np.logaddexp(0.0, f) - y * f
    return out


def _held_out_losses(
    fit_on: FloatArray,
    test_on: FloatArray,
    y01: AnyArray,
    w: FloatArray | None,
    folds: AnyArray,
    how: str,
) -> FloatArray:
    """Each row's log loss under the Venn-Abers predictor fitted on the scores ``fit_on`` of
    the other folds' rows, at its own score ``test_on`` (probabilities clipped to
    [1e-12, 1 - 1e-12])."""
    out = np.zeros(y01.shape[0])
    for k in np.unique(folds):
        a, b = folds != k, folds == k
        tables = ivap_fit(fit_on[a], y01[a], sample_weight=None if w is None else w[a])
        p = np.clip(merge(*tables.predict_unchecked(test_on[b]), how), 1e-12, 1.0 - 1e-12)
        out[b] = -np.where(y01[b] == 1, np.log(p), np.log1p(-p))
    return out


def _choose(losses: dict[str, FloatArray], w: FloatArray) -> str:
    """The simplest candidate whose weighted mean held-out log loss is within ``TIE_SE``
    standard errors of the paired difference from the lowest one (rule in the class
    docstring)."""
    means = {k: float(np.average(v, weights=w)) for k, v in losses.items()}
    best = min(CANDIDATES, key=lambda k: means[k])
    n_eff = w.sum() ** 2 / (w * w).sum()
    for name in CANDIDATES:
        d = losses[name] - losses[best]
        spread = float(np.average((d - np.average(d, weights=w)) ** 2, weights=w))
        if means[name] - means[best] <= TIE_SE * np.sqrt(spread / n_eff):
            return name
    return best  # pragma: no cover - the best is within 0 standard errors of itself


#: the base log-odds, a feature of the trees, is clipped to this magnitude: the trees read their
#: features in float32 (largest 3.4e38), and beyond it every log-odds is a certainty
TREE_LOGIT_CAP = 1e30


def _tree_features(coding: SegmentCoding, cols: Mapping[str, Any], f0: FloatArray) -> FloatArray:
    """The trees' features: the segment coding and the base log-odds (clipped)."""
    return np.column_stack([coding.encode(cols), np.clip(f0, -TREE_LOGIT_CAP, TREE_LOGIT_CAP)])


class MulticalibrationCalibrator(ClassifierMixin, BaseEstimator):
    """Calibrated within every segment: boosting on segment features, then Venn-Abers.

    A model can be calibrated on average and wrong for women, the over-60s or one product
    line. This calibrator corrects the base model's log-odds by gradient-boosted regression
    trees on the segment features (categorical and numerical columns, and the base log-odds
    itself), as MCGrad does (Tax et al. 2025), then puts a Venn-Abers predictor on the
    corrected score, which gives a probability and an interval [p0, p1] with the Venn-Abers
    validity guarantee (Vovk & Petej 2014), within every level of every segment column.

    **Boosting.** The calibration rows are split into ``n_folds`` folds; for each, trees are
    grown on the other folds and kept only up to the round with the lowest log loss on the
    fold itself (early stopping: no tree at all when none helps). The Venn-Abers step is
    fitted on every row's corrected score from the trees that did not see it (cross-fitting);
    a test score is corrected by the mean of the folds' trees.

    **Never worse than the input (held-out check).** Early stopping alone does not make a
    small calibration set safe: the Venn-Abers step and the trees both cost log loss where
    there is nothing to correct. So ``fit`` compares three candidates on the same folds, by
    each row's log loss under a model that did not see it:

    - ``"identity"``: the scores taken as probabilities (the logit scale's through the
      sigmoid), unchanged;
    - ``"venn_abers"``: Venn-Abers on the scores, fitted on the other folds;
    - ``"boosted"``: the trees then Venn-Abers, the Venn-Abers step fitted on the other folds'
      cross-fitted scores and the row's own correction by its fold's trees up to the round
      of lowest log loss on the *other half* of its fold (so neither the trees nor their
      number saw the row).

    The Venn-Abers steps of the check are fitted on nine tenths of the rows and tested on the
    other tenth, ten times. The rule: let ``best`` be the candidate of the lowest weighted
    mean held-out log loss; the chosen one is the first of identity, venn_abers, boosted
    (simplest first) whose mean exceeds ``best``'s by at most half a standard error of their
    paired per-row difference (so a more complex candidate must win by more than that; an
    exact tie goes to the simpler). Half a standard error was set on synthetic data (30
    seeds, 500 and 2,000 rows; a whole one kept the scores too often where they were wrong
    on average, none chose Venn-Abers too often where they were right). The choice is
    ``chosen_``, the held-out losses are ``cv_log_loss_``. With
    ``"identity"``, ``predict_proba`` returns the scores as probabilities; with
    ``"identity"`` and ``"venn_abers"`` the fit keeps no trees and its Venn-Abers
    predictors are fitted on the scores themselves (an identity fit's interval is stretched
    to contain its probability). On a perfectly calibrated synthetic model with random
    segments (20,000 test rows, 30 seeds) the fit's test log loss was that of the scores
    within 0.0001 at 500 and 2,000 calibration rows (it was 0.008 worse at 500 rows when the
    trees and the Venn-Abers step were always kept).

    **Intervals valid within segments.** The Venn-Abers predictor of all rows is valid on
    average over them; within a segment it is only as right as the trees made it. With
    ``interval="segments"`` a Venn-Abers predictor is also fitted within each level of each
    segment column (on the same cross-fitted scores; a level needs ``min_samples_leaf``
    calibration rows, a numerical column's levels are its tertiles), and a row's interval is
    the smallest that contains the pooled interval and that of each of its levels: it then
    contains the interval of a Venn predictor valid within each of those segments. The
    probability stays the merge of the pooled pair, so it lies inside the interval. The
    intervals are wider where the segments' calibrations disagree or a level has few rows;
    ``interval="pooled"`` gives the narrower pooled ones.

    **Segment columns.** A categorical column keeps each level with at least 10 calibration
    rows (at most its 50 most frequent), as an indicator; the other levels, and levels
    unknown at prediction, fall back to "other" (every indicator 0: the trees treat them
    alike, as a row outside every kept level). Missing values are a level of their own. A
    numerical column is cut into ``n_bins`` buckets at the quantiles of its calibration
    values (or one bucket per value when it has at most ``n_bins`` distinct values); a value
    outside the calibration range falls into the first or last bucket, and missing values
    into a bucket of their own below the first.

    Parameters
    ----------
    categorical, numerical : list of str, default=None
        The categorical and numerical segment columns. Both None: every column of the
        ``segments`` frame given to ``fit``, numerical when its dtype is numeric.
    score_scale : {"probability", "logit"}, default="probability"
        What the scores are: probabilities in [0, 1] (their logit is the offset; clipped to
        [1e-12, 1 - 1e-12]) or log-odds.
    n_bins : int, default=16
        Buckets of a numerical segment column.
    learning_rate : float, default=0.2
        Shrinkage of each tree's Newton step.
    max_leaf_nodes : int, default=8
        Leaves of each tree.
    min_samples_leaf : int, default=100
        Fewest calibration rows in a leaf.
    l2_regularization : float, default=1.0
        Added to the leaf's sum of Hessians (weights normalised to mean 1).
    max_iter : int, default=300
        Most trees per fold.
    n_iter_no_change : int, default=20
        Boosting stops after this many rounds without a lower held-out log loss.
    n_folds : int, default=2
        Folds of the cross-fitting: 2 to 100, and at most the number of calibration rows.
    merge : {"log", "square", "mean"}, default="log"
        How ``predict_proba`` merges the Venn-Abers pair (see :class:`VennAbersCalibrator`).
    interval : {"segments", "pooled"}, default="segments"
        The interval of ``predict_interval``: valid within every level of every segment
        column, or that of the Venn-Abers predictor of all rows (see above).
    random_state : int, default=0
        Seed of the split into folds and of the trees' tie-breaking.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    categorical_, numerical_ : list of str
        The segment columns used.
    coding_ : SegmentCoding
        Levels and cut points of the segment columns.
    trees_ : TreeEnsemble
        The trees of every fold, values divided by ``n_folds`` (their decision is the mean
        correction of the log-odds).
    n_trees_ : list of int
        Trees kept in each fold (0: that fold's boosting found nothing to correct).
    tables_ : IVAPTables
        The Venn-Abers step tables on the corrected score.
    level_predictors_ : LevelPredictors or None
        The Venn-Abers predictors within the levels of the segment columns (None with
        ``interval="pooled"``).
    chosen_ : {"identity", "venn_abers", "boosted"}
        The candidate the held-out check chose (see above). A model file written before
        this attribute existed loads as ``"boosted"``, what its fit always kept.
    cv_log_loss_ : dict of str to float
        The weighted mean held-out log loss of each candidate.

    References
    ----------
    Hébert-Johnson, Kim, Reingold & Rothblum, "Multicalibration: calibration for the
    (computationally-identifiable) masses", ICML 2018. Tax et al., "MCGrad: Multicalibration
    at web scale", arXiv:2509.19884 (2025). Vovk & Petej, "Venn-Abers predictors", UAI 2014.

    Examples
    --------
    A base model blind to a segment: right on average, too low in group "b", too high in
    "a"; after calibration every group is right.

    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> n = 6000
    >>> seg = pd.DataFrame({"group": rng.choice(["a", "b"], n)})
    >>> p = rng.uniform(0.1, 0.9, n)
    >>> y = rng.random(n) < np.clip(p + np.where(seg["group"] == "b", 0.15, -0.15), 0, 1)
    >>> cal = MulticalibrationCalibrator().fit(p[:4000], y[:4000], segments=seg[:4000])
    >>> q = cal.predict_proba(p[4000:], segments=seg[4000:])[:, 1]
    >>> b = (seg["group"] == "b").to_numpy()[4000:]
    >>> bool(abs(q[b].mean() - y[4000:][b].mean()) < 0.03)
    True
    >>> interval = cal.predict_interval(p[4000:], segments=seg[4000:])
    >>> interval.shape
    (2000, 2)

    Within each group, the mean interval contains the observed frequency (give or take
    two standard errors of the 1000-odd test rows):

    >>> lo, hi = interval[b].mean(axis=0)
    >>> bool(lo - 0.03 <= y[4000:][b].mean() <= hi + 0.03)
    True
    """

    def __init__(
        self,
        *,
        categorical: list[str] | None = None,
        numerical: list[str] | None = None,
        score_scale: str = "probability",
        n_bins: int = 16,
        learning_rate: float = 0.2,
        max_leaf_nodes: int = 8,
        min_samples_leaf: int = 100,
        l2_regularization: float = 1.0,
        max_iter: int = 300,
        n_iter_no_change: int = 20,
        n_folds: int = 2,
        merge: str = "log",
        interval: str = "segments",
        random_state: int = 0,
    ) -> None:
        self.categorical = categorical
        self.numerical = numerical
        self.score_scale = score_scale
        self.n_bins = n_bins
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_iter = max_iter
        self.n_iter_no_change = n_iter_no_change
        self.n_folds = n_folds
        self.merge = merge
        self.interval = interval
        self.random_state = random_state

    # not a BaseScoreCalibrator (scores alone are not enough: it needs segments), but its
    # input checks and output columns are those of the score calibrators
    _check_fit_input = BaseScoreCalibrator._check_fit_input
    _check_predict_input = BaseScoreCalibrator._check_predict_input
    _positive_column = BaseScoreCalibrator._positive_column
    _proba_columns = BaseScoreCalibrator._proba_columns

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = False  # scores alone are not enough: segments too
        tags.classifier_tags.multi_class = False
        return tags

    def _check_params(self) -> None:
        owner = type(self).__name__
        check_option(self.score_scale, SCORE_SCALES, name="score_scale", owner=owner)
        check_option(self.merge, MERGES, name="merge", owner=owner)
        check_option(self.interval, INTERVALS, name="interval", owner=owner)
        check_positive_int(self.n_bins, name="n_bins", owner=owner, minimum=2)
        check_in_range(self.learning_rate, 0, 1, name="learning_rate", owner=owner, closed="right")
        check_positive_int(self.max_leaf_nodes, name="max_leaf_nodes", owner=owner, minimum=2)
        check_positive_int(self.min_samples_leaf, name="min_samples_leaf", owner=owner)
        check_in_range(
            self.l2_regularization, 0, np.inf, name="l2_regularization", owner=owner, closed="left"
        )
        check_positive_int(self.max_iter, name="max_iter", owner=owner, minimum=0)
        check_positive_int(self.n_iter_no_change, name="n_iter_no_change", owner=owner)
        check_n_folds(self.n_folds, name="n_folds", owner=owner)
        check_positive_int(self.random_state, name="random_state", owner=owner, minimum=0)

    def _frame(self, segments: Any, n: int) -> pd.DataFrame:
        owner = type(self).__name__
        if segments is None:
            raise TypeError(f"{owner} needs segments=: a DataFrame of segment features.")
        frame = as_segment_frame(segments)
        if frame.shape[0] != n:
            raise ValueError(
                f"{owner}: 'segments' has {frame.shape[0]} rows for {n} scores; they must match."
            )
        return frame

    def _logit(self, s: FloatArray) -> FloatArray:
        if self.score_scale == "probability" and ((s < 0) | (s > 1)).any():
            raise ValueError(
                f"{type(self).__name__}: scores must be probabilities in [0, 1] with "
                "score_scale='probability'; pass score_scale='logit' for log-odds."
            )
        return score_logit(s, self.score_scale)

    def fit(
        self,
        scores: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        segments: Any = None,
        pos_label: object = None,
    ) -> Self:
        """Fit the trees and the Venn-Abers step on calibration data.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 1)
            The base model's scores (see ``score_scale``).
        y : array-like of shape (n,)
            Labels, any two values.
        sample_weight : array-like of shape (n,), default=None
            Non-negative weights.
        segments : pandas.DataFrame or dict of array-like
            Segment features of the calibration rows (required).
        pos_label : int, float, bool or str, default=None
            The label the scores point to; None: the larger label.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        owner = type(self).__name__
        self._check_params()
        s, y01, classes, w = self._check_fit_input(scores, y, sample_weight, pos_label)
        if self.n_folds > s.shape[0]:
            raise ValueError(
                f"{owner}: n_folds={self.n_folds} is more than the {s.shape[0]} calibration "
                "rows; every fold needs a row."
            )
        pos = positive_index(classes, pos_label, owner=owner)
        warn_if_reversed(s, y01, w, classes[pos], classes[1 - pos], stacklevel=3)
        frame = self._frame(segments, s.shape[0])
        cat, num = split_columns(frame, self.categorical, self.numerical, owner=owner)
        cols = _columns(frame, cat, num, owner=owner)
        coding = _coding(cols, cat, num, self.n_bins)
        f0 = self._logit(s)
        X = _tree_features(coding, cols, f0)
        yf = y01.astype(np.float64)
        wn = np.ones(s.shape[0]) if w is None else _mean_one(w)
        order = np.random.default_rng(self.random_state).permutation(s.shape[0])
        folds = order % self.n_folds
        half = (order // self.n_folds) % 2 == 0  # splits each fold in two for honest checks
        corrected, honest = f0.copy(), f0.copy()
        parts = []
        for k in range(self.n_folds):
            a, b = folds != k, folds == k
            part, held = _boost(
                X[a],
                f0[a],
                yf[a],
                wn[a],
                (X[b], f0[b], yf[b], wn[b], half[b]),
                self,
                seed=self.random_state * 1000 + k,
            )
            corrected[b] += part.decision(X[b])
            honest[b] += held
            parts.append(part)
        checks = order % min(CHECK_FOLDS, s.shape[0])
        losses = {
            "identity": _row_losses(yf, np.clip(f0, -LOGIT_CAP, LOGIT_CAP)),
            "venn_abers": _held_out_losses(f0, f0, y01, w, checks, self.merge),
            "boosted": _held_out_losses(corrected, honest, y01, w, checks, self.merge),
        }
        self.chosen_ = _choose(losses, wn)
        self.cv_log_loss_ = {k: float(np.average(v, weights=wn)) for k, v in losses.items()}
        if self.chosen_ != "boosted":
            corrected, parts = f0, [TreeEnsemble.concatenate([]) for _ in parts]
        self.tables_: IVAPTables = ivap_fit(corrected, y01, sample_weight=w)
        self.level_predictors_: LevelPredictors | None = None
        if self.interval == "segments":
            edges = tuple(level_edges(cols[c], INTERVAL_BINS) for c in num)
            found = LevelPredictors(edges, (), ())
            self.level_predictors_ = LevelPredictors.fit(
                edges, found.codes(coding, cols), corrected, y01, w, self.min_samples_leaf
            )
        self.trees_ = TreeEnsemble.concatenate(parts, 1.0 / self.n_folds)
        self.n_trees_ = [p.n_trees for p in parts]
        self.coding_ = coding
        self.categorical_, self.numerical_ = cat, num
        self.classes_ = classes
        self.pos_label_ = _scalar(classes[pos])
        self.n_features_in_ = 1
        return self

    def _corrected(
        self, scores: ArrayLike, segments: Any
    ) -> tuple[FloatArray, dict[str, AnyArray]]:
        s = self._check_predict_input(scores)
        frame = self._frame(segments, s.shape[0])
        cols = _columns(frame, self.categorical_, self.numerical_, owner=type(self).__name__)
        f0 = self._logit(s)
        return f0 + self.trees_.decision(_tree_features(self.coding_, cols, f0)), cols

    def decision_function(self, scores: ArrayLike, *, segments: Any) -> FloatArray:
        """The corrected log-odds (before the Venn-Abers step): shape (m,)."""
        return self._corrected(scores, segments)[0]

    def _pair(self, scores: ArrayLike, segments: Any) -> tuple[FloatArray, FloatArray]:
        return self.tables_.predict_unchecked(self.decision_function(scores, segments=segments))

    def predict_proba(self, scores: ArrayLike, *, segments: Any = None) -> FloatArray:
        """Calibrated probabilities of both classes (the merge of p0 and p1).

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)
        segments : pandas.DataFrame or dict of array-like
            Segment features of the test rows (the columns seen at fit; others are ignored).

        Returns
        -------
        proba : ndarray of shape (m, 2)
            Columns follow ``classes_``.
        """
        if getattr(self, "chosen_", "boosted") == "identity":
            self._corrected(scores, segments)  # the segments are checked all the same
            return self._proba_columns(self._identity(scores))
        p0, p1 = self._pair(scores, segments)
        return self._proba_columns(merge(p0, p1, self.merge))

    def _identity(self, scores: ArrayLike) -> FloatArray:
        """The scores as probabilities: as they are, or the sigmoid of log-odds."""
        s = self._check_predict_input(scores)
        if self.score_scale == "logit":
            out: FloatArray = np.exp(-np.logaddexp(0.0, -s))
            return out
        self._logit(s)  # refuses scores outside [0, 1]
        return s

    def predict_interval(self, scores: ArrayLike, *, segments: Any = None) -> FloatArray:
        """The Venn-Abers interval [p0, p1] of the positive class (see ``interval``).

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)
        segments : pandas.DataFrame or dict of array-like

        Returns
        -------
        interval : ndarray of shape (m, 2)
        """
        t, cols = self._corrected(scores, segments)
        p0, p1 = self.tables_.predict_unchecked(t)
        levels = getattr(self, "level_predictors_", None)
        if levels is not None:
            p0, p1 = levels.widen(t, levels.codes(self.coding_, cols), p0, p1)
        if getattr(self, "chosen_", "boosted") == "identity":
            p = self._identity(scores)
            p0, p1 = np.minimum(p0, p), np.maximum(p1, p)
        return np.column_stack([p0, p1])

    def predict(self, scores: ArrayLike, *, segments: Any = None) -> AnyArray:
        """The more probable class of each test row (``classes_[0]`` on a tie)."""
        p = self.predict_proba(scores, segments=segments)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]
