"""The shared base class of every score calibrator."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

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
    plain_label,
    ranking_auc,
    rescale_sample_weight,
)
from venncal.calibration._docs import fill_calibration_doc
from venncal.core.beta import check_beta_scores

if TYPE_CHECKING:
    import numpy.typing as npt
    from sklearn.utils import Tags
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray
    from venncal.core.beta import BetaMap
    from venncal.core.quadratic import QuadraticMap

__all__ = ["BaseScoreCalibrator", "ScaledScoreCalibrator"]


def positive_index(classes: AnyArray, pos_label: object, *, owner: str) -> int:
    """Index in ``classes`` (sorted, two labels) of the positive class ``pos_label``.

    None keeps the rule of ``check_binary_labels``: the larger label (index 1) is positive.

    Examples
    --------
    >>> positive_index(np.array(["benign", "malignant"]), "benign", owner="PlattCalibrator")
    0
    >>> positive_index(np.array([0, 1]), 2, owner="PlattCalibrator")
    Traceback (most recent call last):
    ...
    ValueError: 'pos_label' of PlattCalibrator.fit must be one of the labels [0, 1]; got 2.
    """
    if pos_label is None:
        return 1
    hits = [k for k in (0, 1) if classes[k] == pos_label]
    if len(hits) == 1:
        return hits[0]
    raise ValueError(
        f"'pos_label' of {owner}.fit must be one of the labels {classes.tolist()!r}; "
        f"got {pos_label!r}."
    )


_scalar = plain_label


#: above this many rows the reversal check first screens an evenly spaced sample of them
_AUC_SCREEN_ROWS = 20_000


def warn_if_reversed(
    scores: FloatArray,
    y01: npt.NDArray[np.int8],
    sample_weight: FloatArray | None,
    positive: object,
    negative: object,
    *,
    stacklevel: int,
) -> None:
    """Warn (VenncalWarning) when the scores rank the positive class below the other.

    The AUC needs a sort of the scores, which would cost as much as a fast fit: above
    ``_AUC_SCREEN_ROWS`` rows an evenly spaced sample of that many rows is checked first, and
    the exact AUC is computed only when the sample's is below 0.55 (its standard error is
    under 0.005, so a sample of scores that rank the classes the right way round clears it).
    """
    from venncal.exceptions import VenncalWarning

    n = scores.shape[0]
    if n > _AUC_SCREEN_ROWS:
        step = -(-n // _AUC_SCREEN_ROWS)
        w = None if sample_weight is None else sample_weight[::step]
        ys = y01[::step]
        if 0 < ys.sum() < ys.shape[0] and (w is None or (w[ys == 1].sum() > 0 < w[ys == 0].sum())):
            if ranking_auc(scores[::step], ys, w) >= 0.55:
                return
    auc = ranking_auc(scores, y01, sample_weight)
    if auc < 0.5:
        warnings.warn(
            f"the scores rank the positive class {_scalar(positive)!r} below "
            f"{_scalar(negative)!r} (AUC "
            f"{auc:.3f} on the calibration data): larger scores must mean the positive "
            "class; check pos_label (--positive on the command line) or the sign of the "
            "scores.",
            VenncalWarning,
            stacklevel=stacklevel,
        )


class BaseScoreCalibrator(ClassifierMixin, BaseEstimator):
    """Base class of calibrators that map 1-D scores to probabilities of the positive class.

    Subclasses implement ``_fit(scores, y01, sample_weight)`` and ``_predict_positive(scores)``,
    and receive clean input: finite float64 scores, labels encoded 0/1 (``classes_[1]`` is 1),
    and float64 weights or None. ``fit`` accepts scores of shape (n,) or (n, 1), any two labels,
    and optional non-negative sample weights.
    """

    classes_: AnyArray
    pos_label_: object
    n_features_in_: int

    if TYPE_CHECKING:  # implemented by every subclass

        def _fit(self, s: FloatArray, y01: npt.NDArray[np.int8], w: FloatArray | None) -> None: ...

        def _predict_positive(self, s: FloatArray) -> FloatArray: ...

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.input_tags.two_d_array = True
        tags.classifier_tags.multi_class = False
        return tags

    def _check_fit_input(
        self,
        scores: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None,
        pos_label: object = None,
    ) -> tuple[FloatArray, npt.NDArray[np.int8], AnyArray, FloatArray | None]:
        if len(getattr(y, "shape", ())) == 2:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled.",
                DataConversionWarning,
                stacklevel=3,
            )
        y01, classes = check_binary_labels(y, name="y")
        if positive_index(classes, pos_label, owner=type(self).__name__) == 0:
            y01 = (1 - y01).astype(y01.dtype)  # the positive class is the smaller label
        s = check_scores(scores, name="scores")
        check_consistent_length(scores=s, y=y01)
        w = check_sample_weight(sample_weight, s.shape[0])
        # class totals of weights near the largest float would overflow: check them scaled
        check_weighted_classes(y01, rescale_sample_weight(w))
        return s, y01, classes, w

    @fill_calibration_doc
    def fit(
        self,
        scores: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        pos_label: object = None,
    ) -> Self:
        """Fit the calibrator.

        {fit_parameters}
        pos_label : int, float, bool or str, default=None
            The label the scores point to (larger score, more likely ``pos_label``). None: the
            larger label in sorted order (``classes_[1]``, 1 for 0/1 labels). ``classes_``
            stays sorted and the columns of ``predict_proba`` follow it; ``pos_label_`` records
            the choice. A ``VenncalWarning`` says when the scores rank ``pos_label`` below the
            other label on the calibration data (ROC AUC below 0.5), as when scores of
            P(benign) are given with the labels benign and malignant and no ``pos_label``.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        self._fit_checked(scores, y, sample_weight, pos_label)
        return self

    def _fit_checked(
        self,
        scores: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None,
        pos_label: object,
        *,
        stacklevel: int = 4,
    ) -> None:
        s, y01, classes, w = self._check_fit_input(scores, y, sample_weight, pos_label)
        pos = positive_index(classes, pos_label, owner=type(self).__name__)
        warn_if_reversed(s, y01, w, classes[pos], classes[1 - pos], stacklevel=stacklevel)
        self._fit(s, y01, w)
        self.classes_ = classes
        self.pos_label_ = _scalar(classes[pos])
        self.n_features_in_ = 1

    def _positive_column(self) -> int:
        """1 when the positive class is ``classes_[1]`` (the default), 0 otherwise."""
        pos = getattr(self, "pos_label_", None)
        return 0 if pos is not None and self.classes_[0] == pos else 1

    def _proba_columns(self, p: FloatArray) -> FloatArray:
        """Probabilities of both classes, columns in the order of ``classes_``, from the
        probability ``p`` of the positive class."""
        if self._positive_column() == 0:
            return np.column_stack([p, 1.0 - p])
        return np.column_stack([1.0 - p, p])

    def _check_predict_input(self, scores: ArrayLike) -> FloatArray:
        check_is_fitted(self, "classes_")
        return check_scores(scores, name="scores")

    def predict_proba(self, scores: ArrayLike) -> FloatArray:
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
        return self._proba_columns(p)

    def predict(self, scores: ArrayLike) -> AnyArray:
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


class ScaledScoreCalibrator(BaseScoreCalibrator):
    """Base class of score calibrators whose fitted ``map_`` reads the scores on the scale of
    the parameter ``score_scale``: probabilities (in [0, 1], refused outside it at fit and at
    prediction) or log-odds.

    Subclasses set ``_method``, the name of the calibration in the message that refuses
    probabilities outside [0, 1].
    """

    _method = "Beta calibration"
    score_scale: str
    map_: BetaMap | QuadraticMap

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        # probabilities are in [0, 1]: a negative score is refused
        tags.input_tags.positive_only = self.score_scale == "probability"
        return tags

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        check_beta_scores(s, self.map_.score_scale, method=self._method)
        return self.map_.predict(s)
