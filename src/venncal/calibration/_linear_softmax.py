"""The shared estimator of calibrators that map a K-class score matrix by a linear map + softmax.

Validation (the score matrix, the labels, the weights and the score type) follows
:class:`~venncal.calibration.multiclass.MulticlassVennAbersCalibrator`; subclasses fit and hold
a map from :mod:`venncal.core` with a ``predict_proba(t)`` method on class log-scores ``t``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from venncal._params import is_finite_real
from venncal._validation import check_positive_int, plain_label
from venncal.calibration.multiclass import (
    check_classes_match_columns,
    check_score_matrix,
    class_log_scores,
    encode_class_labels,
    most_probable,
    resolve_score_type,
)
from venncal.core.class_scores import (
    check_matrix_classes,
    checked_class_log_scores,
    probability_floor,
)
from venncal.core.matrix_scaling import LOG_FLOOR
from venncal.exceptions import VenncalWarning, user_stacklevel

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray
    from venncal.core.dirichlet import DirichletMap
    from venncal.core.matrix_scaling import LinearSoftmaxFit, MatrixScalingMap

__all__ = ["LinearSoftmaxCalibrator", "check_multiclass_fit_input", "check_nonnegative"]


def check_nonnegative(value: object, *, name: str, owner: str) -> float:
    """Raise unless ``value`` is a finite real number >= 0; return it as a float."""
    if not is_finite_real(value) or value < 0:
        raise ValueError(
            f"The {name!r} parameter of {owner} must be a finite number >= 0. Got {value!r} "
            "instead."
        )
    return float(value)


def check_multiclass_fit_input(
    scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None, *, owner: str
) -> tuple[FloatArray, AnyArray, IntArray, FloatArray | None]:
    """Clean fit input: scores (n, K), sorted labels, labels encoded 0..K-1, weights or None."""
    S = check_score_matrix(scores, owner=owner)
    if len(getattr(y, "shape", ())) == 2:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it is raveled.",
            DataConversionWarning,
            stacklevel=user_stacklevel(),
        )
    classes, y_enc, w = encode_class_labels(S, y, sample_weight, owner=owner)
    check_classes_match_columns(S, classes, owner=owner)
    if w is not None:
        total = np.bincount(y_enc, weights=w, minlength=classes.shape[0])
        if (total <= 0).any():
            raise ValueError(
                f"'sample_weight' of {owner} is zero on every example of class "
                f"{plain_label(classes[int(np.argmin(total))])!r}; give it positive weight."
            )
    return S, classes, y_enc.astype(np.intp), w


class LinearSoftmaxCalibrator(ClassifierMixin, BaseEstimator):
    """Base class: validation, score types, ``predict_proba`` and ``predict``.

    Subclasses set ``score_type``, ``max_iter`` and ``tol`` in ``__init__`` and implement
    ``_check_params(owner)`` (returning the checked parameters) and
    ``_fit_map(t, y, w, params, log_floor)`` (returning ``(map, fit)`` from
    :mod:`venncal.core`; the map reads ``t`` as ``max(t, log_floor)``).
    """

    score_type: str
    max_iter: int
    tol: float
    map_: DirichletMap | MatrixScalingMap

    def _fits_full_matrix(self) -> bool:
        """Whether the map has a K x K matrix of parameters (capped in K)."""
        return True

    if TYPE_CHECKING:  # implemented by every subclass

        def _check_params(self, owner: str) -> tuple[float, ...]: ...

        def _fit_map(
            self,
            t: FloatArray,
            y: IntArray,
            w: FloatArray | None,
            params: tuple[float, ...],
            log_floor: float,
        ) -> tuple[DirichletMap | MatrixScalingMap, LinearSoftmaxFit]: ...

        def _fit_map_passes(
            self,
            run: Callable[..., list[Any]],
            K: int,
            params: tuple[float, ...],
            log_floor: float,
        ) -> tuple[DirichletMap | MatrixScalingMap, LinearSoftmaxFit]: ...

    def fit(self, scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the map to calibration scores.

        Parameters
        ----------
        scores : array-like of shape (n, K)
            Per-class scores (logits, log-probabilities or probabilities) of the calibration
            examples; column k belongs to ``classes_[k]``, the k-th label in sorted order.
        y : array-like of shape (n,)
            Labels; every one of the K classes must occur.
        sample_weight : array-like of shape (n,), default=None
            Non-negative weights; a weight of k counts as k copies of the example (the
            penalties are scaled by the total weight).

        Returns
        -------
        self
        """
        owner = type(self).__name__
        params = self._check_params(owner)
        check_positive_int(self.max_iter, name="max_iter", owner=owner)
        tol = check_nonnegative(self.tol, name="tol", owner=owner)
        if tol == 0:
            raise ValueError(f"The 'tol' parameter of {owner} must be positive. Got 0 instead.")
        S, classes, y_enc, w = check_multiclass_fit_input(scores, y, sample_weight, owner=owner)
        if self._fits_full_matrix():
            check_matrix_classes(classes.shape[0], owner=owner, what="a K x K matrix")
        self.score_type_ = resolve_score_type(S, self.score_type, owner=owner)
        t = class_log_scores(S, self.score_type_)
        log_floor = LOG_FLOOR
        if self.score_type_ == "probabilities":
            log_floor = max(float(np.log(probability_floor(S, y_enc, w))), LOG_FLOOR)
        map_, fit = self._fit_map(t, y_enc, w, params, log_floor)
        return self._set_fit(map_, fit, classes, S.shape[1])

    def _set_fit(
        self,
        map_: DirichletMap | MatrixScalingMap,
        fit: LinearSoftmaxFit,
        classes: AnyArray,
        n_features: int,
    ) -> Self:
        """Record a fitted map (also for fits on Dask and Spark); warn if it did not converge."""
        owner = type(self).__name__
        self.map_ = map_
        self.n_iter_ = fit.n_iter
        if not fit.converged:
            warnings.warn(
                f"{owner} stopped after {fit.n_iter} iterations before its objective converged "
                "(with no penalty, scores that separate the classes have no finite optimum); "
                "raise max_iter or add a penalty.",
                VenncalWarning,
                stacklevel=user_stacklevel(),
            )
        self.classes_ = classes
        self.n_features_in_ = n_features
        return self

    def _class_scores(self, scores: ArrayLike) -> FloatArray:
        check_is_fitted(self, "map_")
        return checked_class_log_scores(
            scores, self.score_type_, n_classes=self.classes_.shape[0], owner=type(self).__name__
        )

    def predict_proba(self, scores: ArrayLike) -> FloatArray:
        """Calibrated class probabilities.

        Parameters
        ----------
        scores : array-like of shape (m, K)

        Returns
        -------
        proba : ndarray of shape (m, K)
            Rows summing to one, columns in the order of ``classes_``.
        """
        t = self._class_scores(scores)
        return self.map_.predict_proba(t)

    def predict(self, scores: ArrayLike) -> AnyArray:
        """The class of largest calibrated probability.

        Parameters
        ----------
        scores : array-like of shape (m, K)

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        return most_probable(self.predict_proba(scores), self.classes_)
