"""The inductive Venn-Abers calibrator on 1-D scores."""

from __future__ import annotations

import numpy as np

from venncal._validation import check_option
from venncal.calibration._base import BaseScoreCalibrator
from venncal.calibration._counts import CountCalibratorMixin
from venncal.core.merge import MERGES, merge
from venncal.core.venn_abers import ivap_fit, ivap_fit_counts

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

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; probabilities refer to ``classes_[1]``.
    tables_ : IVAPTables
        The compressed step tables of p0 and p1.
    n_features_in_ : int
        Always 1.
    aggregate_ : CountTable
        The calibration data pooled by distinct score (kept for :meth:`partial_fit`).
    decimals_ : int or None
        The rounding applied to every score.

    Notes
    -----
    The predictor depends on the calibration data only through the number of negatives and
    positives at each distinct score. Fitting on aggregated rows (one per distinct score and
    label) with their counts, by :meth:`fit_aggregate` or as ``sample_weight`` of :meth:`fit`,
    gives the predictor fitted on the expanded rows, bit for bit (whole-number counts: exact
    integer geometry in both). :meth:`partial_fit` adds data and equals refitting on the union.

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

    def __init__(self, *, merge="log", decimals=None):
        self.merge = merge
        self.decimals = decimals

    def _fit_rows(self, s, y01, w, table):
        if w is None:  # the table is the unweighted diagram: no second pass over the rows
            self._fit_table(table)
        else:  # exact geometry for weights of any magnitude, from the rows themselves
            check_option(self.merge, MERGES, name="merge", owner=type(self).__name__)
            self.tables_ = ivap_fit(s, y01, sample_weight=w)

    def _fit_table(self, table):
        check_option(self.merge, MERGES, name="merge", owner=type(self).__name__)
        n0, n1 = table.weights()
        if not (np.isfinite(n0).all() and np.isfinite(n1).all()):
            raise ValueError(
                "'sample_weight' sums past the largest float at some score; Venn-Abers counts "
                "weights as examples, so rescale them."
            )
        self.tables_ = ivap_fit_counts(table.values, n0, n1)

    def predict_interval(self, scores):
        """Return the Venn-Abers interval [p0, p1] of the positive class.

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)
            Test scores.

        Returns
        -------
        interval : ndarray of shape (m, 2)
            Columns p0 <= p1, probabilities of ``classes_[1]``.
        """
        s = self._check_predict_input(scores)
        p0, p1 = self.tables_.predict_unchecked(s)
        return np.column_stack([p0, p1])

    def _predict_positive(self, s):
        p0, p1 = self.tables_.predict_unchecked(s)
        return merge(p0, p1, self.merge)
