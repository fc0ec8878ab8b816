"""The shared base class of every score calibrator."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from venncal._validation import (
    check_binary_labels,
    check_consistent_length,
    check_sample_weight,
    check_scores,
    check_weighted_classes,
    rescale_sample_weight,
)

__all__ = ["BaseScoreCalibrator"]


class BaseScoreCalibrator(ClassifierMixin, BaseEstimator):
    """Base class of calibrators that map 1-D scores to probabilities of the positive class.

    Subclasses implement ``_fit(scores, y01, sample_weight)`` and ``_predict_positive(scores)``,
    and receive clean input: finite float64 scores, labels encoded 0/1 (``classes_[1]`` is 1),
    and float64 weights or None. ``fit`` accepts scores of shape (n,) or (n, 1), any two labels,
    and optional non-negative sample weights.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.input_tags.two_d_array = True
        tags.classifier_tags.multi_class = False
        return tags

    def _check_fit_input(self, scores, y, sample_weight):
        if len(getattr(y, "shape", ())) == 2:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled.",
                DataConversionWarning,
                stacklevel=3,
            )
        y01, classes = check_binary_labels(y, name="y")
        s = check_scores(scores, name="scores")
        check_consistent_length(scores=s, y=y01)
        w = check_sample_weight(sample_weight, s.shape[0])
        # class totals of weights near the largest float would overflow: check them scaled
        check_weighted_classes(y01, rescale_sample_weight(w))
        return s, y01, classes, w

    def fit(self, scores, y, sample_weight=None):
        """Fit the calibrator.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 1)
            Scores of a classifier on the calibration set: larger means more likely positive.
        y : array-like of shape (n,)
            Labels; any two values. The larger in sorted order (``classes_[1]``) is positive.
        sample_weight : array-like of shape (n,), default=None
            Non-negative weights of the calibration examples.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        s, y01, classes, w = self._check_fit_input(scores, y, sample_weight)
        self._fit(s, y01, w)
        self.classes_ = classes
        self.n_features_in_ = 1
        return self

    def _check_predict_input(self, scores):
        check_is_fitted(self, "classes_")
        return check_scores(scores, name="scores")

    def predict_proba(self, scores):
        """Return calibrated probabilities of both classes.

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)
            Scores of the test objects.

        Returns
        -------
        proba : ndarray of shape (m, 2)
            Columns are the probabilities of ``classes_[0]`` and ``classes_[1]``.
        """
        p = self._predict_positive(self._check_predict_input(scores))
        return np.column_stack([1.0 - p, p])

    def predict(self, scores):
        """Return the more probable class for each test object (``classes_[0]`` on a tie).

        Parameters
        ----------
        scores : array-like of shape (m,) or (m, 1)

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        p = self.predict_proba(scores)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]
