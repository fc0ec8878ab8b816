"""Abstention with a guarantee: answer when confident, hand the rest to a person."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from venncal._validation import (
    _as_array,
    check_binary_labels,
    check_consistent_length,
    check_in_range,
    check_interval,
    check_option,
    check_positive_int,
    check_probabilities,
    check_sample_weight,
)
from venncal.calibration.multiclass import check_classes_match_columns, encode_class_labels
from venncal.core.abstention import (
    learn_then_test,
    smallest_testable_count,
    threshold_grid,
    top_label_confidence,
)
from venncal.core.class_scores import check_probability_rows, check_score_matrix
from venncal.core.groups import GROUP_FALLBACKS, check_groups, group_rows, unseen_groups

if TYPE_CHECKING:
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, BoolArray, FloatArray, IntArray

__all__ = ["AbstentionRule"]

#: where the confidence of a row comes from
CONFIDENCES = ("probability", "lower")
#: the default start of the test sequence, in multiples of the fewest rows that can pass
START_FACTOR = 4


class AbstentionRule(BaseEstimator):
    """Abstain unless confident, with a finite-sample guarantee on the error of the answers.

    A row is answered (accepted) when the confidence in its predicted class reaches
    ``threshold_``, and handed on otherwise. The threshold is fitted on calibration rows by
    Learn-then-Test (Angelopoulos et al. 2021) with fixed-sequence testing over a grid of
    thresholds decreasing from 1 and exact binomial (Clopper-Pearson) p-values
    (:mod:`venncal.core.abstention`): with probability at least ``1 - delta`` over the draw of
    the calibration rows, the error rate among accepted future rows is at most
    ``target_error``, for rows exchangeable with the calibration rows.

    The predicted class and its confidence come from calibrated probabilities: for binary
    probabilities ``p`` of ``classes_[1]`` (1-D), the class of ``max(p, 1 - p)``; for an
    ``(n, K)`` matrix of class probabilities, the top label ``argmax_k p_k`` and its
    probability. With ``confidence="lower"`` they come from Venn-Abers intervals, the class
    whose interval has the highest lower end and that lower end: a binary interval
    ``[p0, p1]`` of ``P(y = classes_[1])`` per row (shape ``(n, 2)``; the lower ends are
    ``1 - p1`` for ``classes_[0]`` and ``p0`` for ``classes_[1]``), or an ``(n, K, 2)`` array of
    per-class intervals. The guarantee holds for any confidence; a better one accepts more.

    Parameters
    ----------
    target_error : float, default=0.05
        The error rate among accepted rows to guarantee, in (0, 1).
    delta : float, default=0.1
        The probability allowed that the guarantee fails (a calibration draw so unlucky that
        the error exceeds ``target_error``), in (0, 1).
    confidence : {"probability", "lower"}, default="probability"
        Read the scores as calibrated probabilities, or as Venn-Abers intervals ranked by
        their lower end (see above).
    n_thresholds : int, default=1000
        The size of the grid of thresholds (:func:`venncal.core.abstention.threshold_grid`).
    min_accepted : int or None, default=None
        The test sequence starts at the highest threshold accepting at least this many
        calibration rows (weighted), or at least the fewest rows that can pass,
        ``log(delta) / log(1 - target_error)`` (45 at the defaults). None: four times that
        (180 at the defaults; every row when there are fewer). The factor 4 was chosen on
        simulated problems: on two Gaussians (target 0.05, 2,000 rows) the mean coverage was
        0.75 of the oracle's with a start at the fewest rows, 0.86 at 100 rows and 0.87 at
        4x and at larger starts; 0.89 on five Dirichlet(0.2) classes (target 0.1).
    group_fallback : {"error", "pooled"}, default="error"
        With ``groups``: what a group not seen at fit gets, an error or the threshold of all
        calibration rows pooled.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        The class labels, sorted.
    n_features_in_ : int
        1 for binary probabilities (or binary intervals), K for a matrix of K classes.
    threshold_ : float
        Accept a row when its confidence is at least this (fitted on all rows pooled).
    coverage_ : float
        The share of calibration rows accepted (weighted; with groups, by their own
        thresholds), an estimate of the share of future rows answered.
    error_bound_ : float
        The ``1 - delta`` Clopper-Pearson upper bound of the error among the calibration rows
        accepted, at most ``target_error``; with groups, the largest of the groups' bounds.
    n_accepted_ : float
        The (weighted) calibration rows accepted at ``threshold_``.
    groups_ : list or None
        The groups seen at fit, sorted (None without groups).
    group_thresholds_ : ndarray of shape (n_groups,) or None
        Each group's own threshold, fitted on its rows alone at the same ``target_error`` and
        ``delta`` (the guarantee then holds within each group).
    group_error_bounds_ : ndarray of shape (n_groups,) or None
        Each group's upper bound.

    Raises
    ------
    ValueError
        At fit, in one line, when no threshold meets the target: the message gives the
        smallest target that these rows can meet at this ``delta``.

    Notes
    -----
    Sample weights count as examples (a weight of 2 is two identical rows); the guarantee is
    stated for unit weights. The start of the sequence depends on the confidences only, not on
    the labels, as in the selective classification example of Angelopoulos et al.; the
    fixed-sequence theorem is stated for a sequence fixed in advance, and the simulations of
    ``benchmarks/bench_abstention.py`` check the rule as it is (the error passed the target in
    8% of 200 two-class draws and 8% of 50 five-class draws at ``delta = 0.1``). The
    guarantee is marginal over calibration draws: in about ``delta`` of them the error among
    accepted rows may exceed the target.

    References
    ----------
    .. [1] A. N. Angelopoulos, S. Bates, E. J. Candes, M. I. Jordan and L. Lei, "Learn then
       Test: Calibrating predictive algorithms to achieve risk control", arXiv:2110.01052,
       2021 (Theorem 1, fixed-sequence testing, and the selective classification example).
    .. [2] C. J. Clopper and E. S. Pearson, Biometrika 26(4), 1934.

    Examples
    --------
    Calibrated probabilities of 4000 rows: answer with at most 5% errors, sure at 90%.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(4000)
    >>> y = (rng.random(4000) < p).astype(int)
    >>> rule = AbstentionRule(target_error=0.05, delta=0.1).fit(p, y)
    >>> bool(rule.error_bound_ <= 0.05), bool(rule.threshold_ > 0.9), bool(rule.coverage_ > 0.05)
    (True, True, True)

    On fresh rows the answered ones are wrong less than 5% of the time:

    >>> p_new = rng.random(100_000)
    >>> y_new = (rng.random(100_000) < p_new).astype(int)
    >>> ok = rule.accept(p_new)
    >>> bool((rule.predict(p_new)[ok] != y_new[ok]).mean() < 0.05)
    True
    """

    def __init__(
        self,
        *,
        target_error: float = 0.05,
        delta: float = 0.1,
        confidence: str = "probability",
        n_thresholds: int = 1000,
        min_accepted: int | None = None,
        group_fallback: str = "error",
    ) -> None:
        self.target_error = target_error
        self.delta = delta
        self.confidence = confidence
        self.n_thresholds = n_thresholds
        self.min_accepted = min_accepted
        self.group_fallback = group_fallback

    # ------------------------------------------------------------------ inputs
    def _top(self, scores: ArrayLike, *, fitting: bool) -> tuple[IntArray, FloatArray, int]:
        """The predicted class index and its confidence of each row of checked ``scores``, and
        the width of the scores (1 for binary probabilities or intervals, else K)."""
        owner = type(self).__name__
        arr = _as_array(scores, "scores")
        k = None if fitting else self.n_features_in_
        if self.confidence == "lower":
            if arr.ndim == 2 and (k is None or k == 1):
                iv = check_score_matrix(arr, owner=owner, n_classes=2)
                p0, p1 = iv[:, 0], iv[:, 1]
                _check_unit(iv, owner)
                check_interval(p0, p1)
                top, conf = top_label_confidence(np.column_stack([1.0 - p1, p0]))
                return top, conf, 1
            elif arr.ndim == 3 and arr.shape[2] == 2 and (k is None or k > 1):
                if k is not None and arr.shape[1] != k:
                    raise ValueError(
                        f"'scores' of {owner} has intervals of {arr.shape[1]} classes but it "
                        f"was fitted with {k}; pass one interval per class."
                    )
                flat = check_score_matrix(arr.reshape(arr.shape[0], -1), owner=owner)
                _check_unit(flat, owner)
                iv = flat.reshape(arr.shape)
                check_interval(iv[:, :, 0].ravel(), iv[:, :, 1].ravel())
                top, conf = top_label_confidence(iv[:, :, 0])
                return top, conf, arr.shape[1]
            else:
                want = "(n, 2)" if k == 1 else "(n, K, 2)" if k else "(n, 2) or (n, K, 2)"
                raise ValueError(
                    f"'scores' of {owner} with confidence='lower' must be Venn-Abers "
                    f"intervals of shape {want}, got shape {arr.shape}."
                )
        if arr.ndim == 1 or (arr.ndim == 2 and arr.shape[1] == 1):
            if k is not None and k != 1:
                raise ValueError(
                    f"'scores' of {owner} must be an (n, {k}) matrix of class probabilities "
                    f"as at fit, got shape {arr.shape}."
                )
            p = check_probabilities(arr, name="scores")
            top, conf = top_label_confidence(np.column_stack([1.0 - p, p]))
            return top, conf, 1
        if k == 1:
            raise ValueError(
                f"'scores' of {owner} must be 1-D probabilities of classes_[1] as at fit, got "
                f"shape {arr.shape}."
            )
        P = check_score_matrix(arr, owner=owner, n_classes=k)
        check_probability_rows(P, owner=owner)
        top, conf = top_label_confidence(P)
        return top, conf, P.shape[1]

    def _check_params(self) -> float:
        owner = type(self).__name__
        check_in_range(self.target_error, 0, 1, name="target_error", owner=owner)
        check_in_range(self.delta, 0, 1, name="delta", owner=owner)
        check_option(self.confidence, CONFIDENCES, name="confidence", owner=owner)
        check_positive_int(self.n_thresholds, name="n_thresholds", owner=owner, minimum=2)
        check_option(self.group_fallback, GROUP_FALLBACKS, name="group_fallback", owner=owner)
        least = smallest_testable_count(float(self.target_error), float(self.delta))
        if self.min_accepted is None:
            return float(START_FACTOR * least)
        given = check_positive_int(self.min_accepted, name="min_accepted", owner=owner)
        return float(max(given, least))  # fewer rows could never pass

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        scores: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        groups: ArrayLike | None = None,
    ) -> Self:
        """Fit the threshold on calibration rows.

        Parameters
        ----------
        scores : array-like of shape (n,), (n, K), (n, 2) or (n, K, 2)
            Calibrated probabilities of ``classes_[1]`` (1-D) or of every class (rows summing
            to one); with ``confidence="lower"``, Venn-Abers intervals (see the class
            description). Rows must not have been used to fit the model or its calibrator.
        y : array-like of shape (n,)
            The true labels.
        sample_weight : array-like of shape (n,), default=None
            Weights counted as examples.
        groups : array-like of shape (n,), default=None
            A group per row (integers or strings): each group gets its own threshold,
            guaranteed within it.

        Returns
        -------
        self : AbstentionRule
        """
        owner = type(self).__name__
        start = self._check_params()
        top, conf, width = self._top(scores, fitting=True)
        if width == 1:
            y01, classes = check_binary_labels(y, name="y")
            check_consistent_length(scores=conf, y=y01)
            codes: AnyArray = y01
        else:
            P = np.zeros((conf.shape[0], width))
            classes, codes, _ = encode_class_labels(P, y, None, owner=owner)
            check_classes_match_columns(P, classes, owner=owner, name_features=False)
        w = check_sample_weight(sample_weight, conf.shape[0])
        with np.errstate(over="ignore"):
            total = None if w is None else float(np.sum(w, dtype=np.float64))
        if total is not None and not np.isfinite(total):
            # weights count as examples: a total past the largest float counts nothing
            raise ValueError(
                f"'sample_weight' of {owner} adds up to more than the largest float; weights "
                "count as examples here (the guarantee depends on how many), so give counts."
            )
        wrong = top != codes
        kwargs: dict[str, Any] = {
            "target_error": float(self.target_error),
            "delta": float(self.delta),
            "thresholds": threshold_grid(int(self.n_thresholds)),
            "min_accepted": start,
        }
        pooled = learn_then_test(conf, wrong, w, **kwargs)
        self._raise_if_unmet(pooled, kwargs, conf, wrong, w, where="")
        self.classes_ = classes
        self.n_features_in_ = width
        self.threshold_ = pooled.threshold
        self.n_accepted_ = pooled.n_accepted
        self.coverage_ = pooled.coverage
        self.error_bound_ = pooled.error_bound
        self.groups_ = self.group_thresholds_ = self.group_error_bounds_ = None
        if groups is None:
            return self
        g = check_groups(groups, conf.shape[0])
        labels, thresholds, bounds = [], [], []
        accepted = np.zeros(conf.shape[0], dtype=bool)
        for label, rows in group_rows(g):
            part = (conf[rows], wrong[rows], None if w is None else w[rows])
            res = learn_then_test(*part, **kwargs)
            self._raise_if_unmet(res, kwargs, *part, where=f" in group {label!r}")
            labels.append(label)
            thresholds.append(res.threshold)
            bounds.append(res.error_bound)
            accepted[rows] = conf[rows] >= res.threshold
        weights = np.ones(conf.shape[0]) if w is None else w
        self.groups_ = labels
        self.group_thresholds_ = np.array(thresholds)
        self.group_error_bounds_ = np.array(bounds)
        self.coverage_ = float(weights[accepted].sum() / weights.sum())
        self.error_bound_ = float(max(bounds))
        return self

    def _raise_if_unmet(self, res: Any, kwargs: dict[str, Any], *args: Any, where: str) -> None:
        """Raise one line when ``res`` passed no threshold, with the smallest target that the
        rows (``args`` of :func:`learn_then_test`) meet: with ``min_accepted`` given, the upper
        bound at the start of the sequence; by default (the start moves with the target) found
        by bisection; shown rounded up to three significant digits."""
        if res.n_rejected:
            return
        smallest = res.smallest_target
        if self.min_accepted is None:
            lo, hi = float(self.target_error), 1.0
            while hi - lo > 5e-4 * hi:
                mid = 0.5 * (lo + hi)
                start = START_FACTOR * smallest_testable_count(mid, float(self.delta))
                trial = {**kwargs, "target_error": mid, "min_accepted": float(start)}
                if learn_then_test(*args, **trial).n_rejected:
                    hi = mid
                else:
                    lo = mid
            smallest = hi
        # shown rounded up, so that the target shown can be met
        step = 10.0 ** (math.floor(math.log10(smallest)) - 2)
        smallest = min(math.ceil(smallest / step) * step, 1.0)
        raise ValueError(
            f"{type(self).__name__}: no threshold meets target_error={self.target_error:g} at "
            f"delta={self.delta:g} with {args[0].shape[0]} calibration row(s){where}; the "
            f"smallest target these rows can meet is {smallest:.3g} (or raise delta, or add "
            "rows)."
        )

    # ------------------------------------------------------------------ predict
    def _thresholds(self, n: int, groups: ArrayLike | None) -> FloatArray:
        owner = type(self).__name__
        if self.groups_ is None:
            if groups is not None:
                raise ValueError(f"{owner} was fitted without groups; do not pass groups=.")
            return np.full(n, self.threshold_)
        if groups is None:
            raise ValueError(
                f"{owner} was fitted within groups: pass groups= with the group of each row."
            )
        assert self.group_thresholds_ is not None
        index = {label: k for k, label in enumerate(self.groups_)}
        out = np.full(n, self.threshold_)
        unknown = []
        for label, rows in group_rows(check_groups(groups, n)):
            if label in index:
                out[rows] = self.group_thresholds_[index[label]]
            else:
                unknown.append(label)
        unseen_groups(owner, unknown, self.group_fallback)
        return out

    def predict_confidence(self, scores: ArrayLike) -> FloatArray:
        """The confidence of each row in its predicted class (what the threshold applies to).

        Parameters
        ----------
        scores : array-like
            As at fit.

        Returns
        -------
        confidence : ndarray of shape (m,)
        """
        check_is_fitted(self, "threshold_")
        return self._top(scores, fitting=False)[1]

    def accept(self, scores: ArrayLike, *, groups: ArrayLike | None = None) -> BoolArray:
        """Which rows to answer (True) and which to hand on (False).

        Parameters
        ----------
        scores : array-like
            As at fit.
        groups : array-like of shape (m,), default=None
            Each row's group, when fitted with groups.

        Returns
        -------
        accept : ndarray of shape (m,), dtype bool
        """
        check_is_fitted(self, "threshold_")
        conf = self._top(scores, fitting=False)[1]
        mask: BoolArray = conf >= self._thresholds(conf.shape[0], groups)
        return mask

    def predict(self, scores: ArrayLike) -> AnyArray:
        """The predicted class of each row (answered or not; see :meth:`accept`).

        Parameters
        ----------
        scores : array-like
            As at fit.

        Returns
        -------
        labels : ndarray of shape (m,)
            From ``classes_``; the first class of largest (lower) probability on a tie.
        """
        check_is_fitted(self, "threshold_")
        labels: AnyArray = self.classes_[self._top(scores, fitting=False)[0]]
        return labels


def _check_unit(values: FloatArray, owner: str) -> None:
    if (values < 0).any() or (values > 1).any():
        raise ValueError(f"'scores' of {owner} must be Venn-Abers intervals inside [0, 1].")
