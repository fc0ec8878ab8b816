"""The inductive Venn-Abers calibrator on 1-D scores."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_option
from venncal.calibration._base import BaseScoreCalibrator
from venncal.calibration._counts import CountCalibratorMixin
from venncal.calibration._docs import fill_calibration_doc
from venncal.core.groups import (
    GROUP_FALLBACKS,
    check_groups,
    group_rows,
    grouped_interval,
    venn_abers_interval,
)
from venncal.core.merge import MERGES, merge
from venncal.core.venn_abers import ivap_fit, ivap_fit_counts
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    import numpy.typing as npt
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray
    from venncal.core.counts import CountTable
    from venncal.core.venn_abers import IVAPTables

__all__ = ["VennAbersCalibrator"]


class VennAbersCalibrator(CountCalibratorMixin, BaseScoreCalibrator):
    """Inductive (pre-trained) Venn-Abers calibrator of a classifier's scores.

    For each test score it returns the pair (p0, p1): the isotonic fits at that score to the
    calibration pairs extended by the test object labelled 0 and labelled 1. Under
    exchangeability one of them is a perfectly calibrated probability (Vovk & Petej 2014,
    Theorem 1), so the interval [p0, p1] is a probability with a validity guarantee; its width
    shows how much the calibration data can say. ``predict_proba`` merges the pair into one
    probability.

    Computed exactly in O(n log n) (fit) and O(log n) per test score (Vovk, Petej & Fedorova
    2015), with exact integer arithmetic when there are no sample weights.

    Parameters
    ----------
    merge : {"log", "square", "mean"}, default="log"
        How ``predict_proba`` merges (p0, p1): ``"log"`` p1 / (1 - p0 + p1) minimises the
        worst-case regret of log loss (eq. 10 of Vovk & Petej 2014), ``"square"``
        p1 + p0^2/2 - p1^2/2 that of square loss (eq. 11), ``"mean"`` the midpoint.
    decimals : int or None, default=None
        Round every score (calibration and test alike) to this many decimal places before
        use, to bound the number of distinct scores; recorded as ``decimals_`` at fit.
        None: no rounding.
    group_fallback : {"error", "pooled"}, default="error"
        With ``groups`` (calibration within groups): what a group gets that cannot be
        calibrated on its own (its calibration examples are all of one class) or that is
        unknown at prediction. ``"error"``: a ValueError naming the group. ``"pooled"``: the
        predictor fitted on all groups together, with a warning naming the groups (at fit for
        one-class groups, listed in ``pooled_groups_``; at prediction for unknown ones).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; probabilities refer to ``classes_[1]``.
    tables_ : IVAPTables
        The compressed step tables of p0 and p1.
    n_features_in_ : int
        Always 1.
    {aggregate_, decimals_}
    groups_ : list or None
        The groups calibrated on their own (None when fitted without ``groups``).
    group_tables_ : list of IVAPTables or None
        Their step tables, in the order of ``groups_``.
    pooled_groups_ : list or None
        Groups seen at fit that use the pooled predictor (``group_fallback="pooled"``).

    Notes
    -----
    The predictor depends on the calibration data only through the number of negatives and
    positives at each distinct score. Fitting on aggregated rows (one per distinct score and
    label) with their counts, by :meth:`fit_aggregate` or as ``sample_weight`` of :meth:`fit`,
    gives the predictor fitted on the expanded rows, bit for bit (whole-number counts: exact
    integer geometry in both). :meth:`partial_fit` adds data and equals refitting on the union.
    Weights are therefore frequencies, and the test object always counts once: multiplying
    every weight by 1000 is a calibration set 1000 times larger (narrower intervals), not the
    same one; weights of 1e-300 leave the test object alone to decide (p0 near 0, p1 near 1).

    **Within groups.** With ``groups=`` at fit and at prediction, each group of a categorical
    variable (patient group, region, product line) gets its own Venn-Abers predictor, fitted
    on that group's calibration examples only: a Venn predictor with the Mondrian taxonomy
    "group x isotonic step", so the validity guarantee holds within every group, not only on
    average over them. ``tables_`` stays the predictor of all groups pooled.

    References
    ----------
    Vovk & Petej, "Venn-Abers predictors", UAI 2014. Vovk, Petej & Fedorova, "Large-scale
    probabilistic predictors with and without guarantees of validity", NeurIPS 2015.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.normal(size=2000)
    >>> y = rng.random(2000) < 1 / (1 + np.exp(-2 * scores))
    >>> cal = VennAbersCalibrator().fit(scores[:1000], y[:1000])
    >>> interval = cal.predict_interval(scores[1000:])
    >>> bool((interval[:, 0] <= interval[:, 1]).all())
    True

    The mean of p0 and the mean of p1 bracket the observed frequency of the positive class:

    >>> lo, hi = interval.mean(axis=0)
    >>> bool(lo - 0.03 <= y[1000:].mean() <= hi + 0.03)
    True
    """

    _group_attributes = ("groups_", "group_tables_", "pooled_groups_")

    def __init__(
        self, *, merge: str = "log", decimals: int | None = None, group_fallback: str = "error"
    ) -> None:
        self.merge = merge
        self.decimals = decimals
        self.group_fallback = group_fallback

    @fill_calibration_doc
    def fit(
        self,
        scores: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        groups: ArrayLike | None = None,
        pos_label: object = None,
    ) -> Self:
        """Fit the calibrator, within groups if ``groups`` is given.

        {fit_parameters}
        groups : array-like of shape (n,), default=None
            Group of each calibration example (integers or strings): each group is calibrated
            on its own examples, and prediction then needs the groups of the test objects.
        pos_label : int, float, bool or str, default=None
            The label the scores point to; None: the larger label (``classes_[1]``). The
            columns of ``predict_proba`` follow ``classes_``; ``predict_interval`` gives the
            interval of ``pos_label_``. A warning says when the scores rank it below the other
            label (see :meth:`BaseScoreCalibrator.fit`).

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        owner = type(self).__name__
        check_option(self.group_fallback, GROUP_FALLBACKS, name="group_fallback", owner=owner)
        self._fit_checked(scores, y, sample_weight, pos_label)
        self._forget_groups()
        if groups is None:
            return self
        s, y01, _, w = self._check_fit_input(scores, y, sample_weight, pos_label)
        g = check_groups(groups, s.shape[0])
        calibrated: list[Any] = []
        tables: list[IVAPTables] = []
        pooled: list[Any] = []
        for label, rows in group_rows(g):
            if y01[rows].min() == y01[rows].max():
                if self.group_fallback == "error":
                    raise ValueError(
                        f"{owner}: group {label!r} has calibration examples of one class only "
                        f"({rows.shape[0]}); merge small groups, give them more data, or pass "
                        "group_fallback='pooled'."
                    )
                pooled.append(label)
                continue
            part = VennAbersCalibrator(merge=self.merge, decimals=self.decimals)
            part.fit(s[rows], y01[rows], None if w is None else w[rows])
            calibrated.append(label)
            tables.append(part.tables_)
        if pooled:
            warnings.warn(
                f"{owner}: groups {pooled!r} have calibration examples of one class only and "
                "use the predictor of all groups pooled (group_fallback='pooled').",
                VenncalWarning,
                stacklevel=2,
            )
        self.groups_, self.group_tables_, self.pooled_groups_ = calibrated, tables, pooled
        return self

    def _interval(self, s: FloatArray, groups: ArrayLike | None) -> tuple[FloatArray, FloatArray]:
        """(p0, p1) of checked scores, within groups when the calibrator was fitted so."""
        return venn_abers_interval(
            s,
            groups,
            tables=self.tables_,
            fitted_groups=getattr(self, "groups_", None),
            group_tables=getattr(self, "group_tables_", None),
            pooled_groups=getattr(self, "pooled_groups_", None),
            fallback=self.group_fallback,
            owner=type(self).__name__,
        )

    def _grouped_interval(
        self, s: FloatArray, g: AnyArray
    ) -> tuple[FloatArray, FloatArray, list[Any]]:
        """(p0, p1, unseen) of checked scores and group labels, each group by its own
        predictor; the groups not seen at fit (listed in ``unseen``) and those pooled at fit
        get the pooled one."""
        # called on a calibrator fitted within groups only, where the three are set together
        assert self.groups_ is not None
        assert self.group_tables_ is not None and self.pooled_groups_ is not None
        return grouped_interval(
            s,
            g,
            tables=self.tables_,
            fitted_groups=self.groups_,
            group_tables=self.group_tables_,
            pooled_groups=self.pooled_groups_,
        )

    def predict_proba(self, scores: ArrayLike, *, groups: ArrayLike | None = None) -> FloatArray:
        """Return calibrated probabilities of both classes (the merge of p0 and p1).

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)
            Scores of the test objects.
        groups : array-like of shape (m,), default=None
            Their groups; required when the calibrator was fitted within groups.

        Returns
        -------
        proba : ndarray of shape (m, 2)
            Columns are the probabilities of ``classes_[0]`` and ``classes_[1]``.
        """
        p0, p1 = self._interval(self._check_predict_input(scores), groups)
        return self._proba_columns(merge(p0, p1, self.merge))

    def predict(self, scores: ArrayLike, *, groups: ArrayLike | None = None) -> AnyArray:
        """Return the more probable class of each test object (``classes_[0]`` on a tie).

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)
        groups : array-like of shape (m,), default=None
            Required when the calibrator was fitted within groups.

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        p = self.predict_proba(scores, groups=groups)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]

    def _fit_rows(
        self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None, table: CountTable
    ) -> None:
        if w is None:  # the table is the unweighted diagram: no second pass over the rows
            self._fit_table(table)
        else:  # exact geometry for weights of any magnitude, from the rows themselves
            check_option(self.merge, MERGES, name="merge", owner=type(self).__name__)
            self.tables_ = ivap_fit(s, y01, sample_weight=w)

    def _fit_table(self, table: CountTable) -> None:
        check_option(self.merge, MERGES, name="merge", owner=type(self).__name__)
        n0, n1 = table.weights()
        if not (np.isfinite(n0).all() and np.isfinite(n1).all()):
            raise ValueError(
                "'sample_weight' sums past the largest float at some score; Venn-Abers counts "
                "weights as examples, so rescale them."
            )
        self.tables_ = ivap_fit_counts(table.values, n0, n1)

    def predict_interval(self, scores: ArrayLike, *, groups: ArrayLike | None = None) -> FloatArray:
        """Return the Venn-Abers interval [p0, p1] of the positive class.

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)
            Test scores.
        groups : array-like of shape (m,), default=None
            Their groups; required when the calibrator was fitted within groups.

        Returns
        -------
        interval : ndarray of shape (m, 2)
            Columns p0 <= p1, probabilities of the positive class ``pos_label_``
            (``classes_[1]`` unless ``fit`` was given another ``pos_label``).
        """
        s = self._check_predict_input(scores)
        p0, p1 = self._interval(s, groups)
        return np.column_stack([p0, p1])

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        p0, p1 = self._interval(s, None)
        return merge(p0, p1, self.merge)
