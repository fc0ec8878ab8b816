"""Temperature scaling of binary log-odds or of a K-class logit matrix."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from venncal._validation import (
    _as_array,
    check_binary_labels,
    check_bool,
    check_consistent_length,
    check_option,
    check_positive_int,
    check_sample_weight,
    check_scores,
    check_weighted_classes,
    ranking_auc,
    rescale_sample_weight,
)
from venncal.calibration.multiclass import (
    _check_class_weights,
    check_classes_match_columns,
    check_score_matrix,
    encode_class_labels,
    most_probable,
    resolve_score_type,
)
from venncal.core.class_scores import check_matrix_classes, probability_floor
from venncal.core.temperature import (
    CONSTANT_MAP,
    binary_logits,
    fit_temperature_scaling,
    matrix_logits,
    temperature_logits,
)
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    import numpy.typing as npt
    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray
    from venncal.core.temperature import TemperatureMap

__all__ = ["TemperatureCalibrator"]

SCORE_TYPES = ("auto", "logits", "probabilities")


class TemperatureCalibrator(ClassifierMixin, BaseEstimator):
    """Temperature scaling: ``p = sigmoid(z / T)`` of binary log-odds, ``softmax(z / T)`` of logits.

    One number ``T > 0``, shared by every class, divides the logits; it is the maximum-likelihood
    temperature on the calibration set, found by a safeguarded Newton iteration on the inverse
    temperature ``1 / T`` (the log-likelihood is concave in it) that stops only at the
    maximiser. Temperature scaling keeps the ranking of the scores (and the predicted class of
    a K-class model), and corrects a model that is over- or under-confident as a whole.

    Two kinds of input:

    * binary: scores of shape (n,) or (n, 1), one per object, larger meaning the positive class
      ``classes_[1]``; probabilities in [0, 1] are read as their log-odds ``logit(s)`` (clipped
      to ``[eps, 1 - eps]`` as :class:`BetaCalibrator` does), other scores as log-odds or
      margins;
    * K classes: a matrix of shape (n, K) of logits, log-probabilities or probabilities, column
      k belonging to ``classes_[k]``; probabilities are read as ``log max(p, floor)``, the
      floor fitted on the calibration data
      (:func:`venncal.core.class_scores.probability_floor`: how often the model's exact zeros
      come true, or its smallest calibration probability when it gives none; kept in
      ``map_.log_floor``), so that a random forest's zeros do not read as certainties;
      log-probabilities are logits (the softmax of a row does not change when a constant is
      added to it).

    ``score_type`` follows :class:`MulticlassVennAbersCalibrator`: ``"auto"`` reads a matrix as
    probabilities when every entry lies in [0, 1] and every row sums to one within 0.005 per
    class, as logits when some entry lies outside [0, 1], and refuses entries in [0, 1] with a
    row far from one (pass ``score_type``); it reads 1-D scores as probabilities when every
    score lies in [0, 1], otherwise as logits. The resolved type is
    kept in ``score_type_`` and applied at prediction.

    Parameters
    ----------
    bias : bool, default=False
        Add a per-class bias ``b`` fitted jointly with ``T``: ``softmax(z / T + b)``. For binary
        scores this is the affine map ``sigmoid(z / T + b)``, Platt's sigmoid of the log-odds
        (without smoothing) restricted to a non-negative slope.
    score_type : {"auto", "logits", "probabilities"}, default="auto"
        What the scores are (see above).
    max_iter : int, default=100
        Most Newton iterations of the joint fit with a bias.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        The labels, in the order of the score columns (two for binary scores).
    n_features_in_ : int
        1 for binary scores, K for a matrix.
    score_type_ : {"logits", "probabilities"}
        The resolved ``score_type``.
    map_ : TemperatureMap
        The fitted map (:class:`venncal.core.temperature.TemperatureMap`).
    temperature_ : float
        ``T``; ``inf`` when the fit is constant (scores pointing away from the labels).
    bias_ : float or ndarray of shape (K,)
        Binary scores: the scalar ``b`` of ``sigmoid(z / T + b)``; a matrix: the centred
        per-class bias. 0 without ``bias``.
    n_iter_ : int
        Iterations of the fit.

    Warns
    -----
    VenncalWarning
        When the largest logit of every calibration example is its own class (with a bias:
        when some ``z / T + b`` ranks every example's class first): no finite maximum-likelihood
        temperature exists, and the fit returns the very small temperature at which the mean
        log loss is within 1e-10 of its infimum.

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural
       networks", ICML 2017.

    Examples
    --------
    Logits twice too sharp get a temperature of 2; the predicted classes do not change:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.normal(size=(5000, 4))
    >>> P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    >>> y = (rng.random((5000, 1)) > P.cumsum(axis=1)).sum(axis=1)
    >>> cal = TemperatureCalibrator().fit(2 * Z, y)
    >>> round(cal.temperature_, 1)
    2.0
    >>> bool((cal.predict(2 * Z) == Z.argmax(axis=1)).all())
    True

    Binary probabilities are read on the log-odds scale:

    >>> s = rng.uniform(0.01, 0.99, size=5000)
    >>> y = rng.random(5000) < s
    >>> round(TemperatureCalibrator().fit(s, y).temperature_, 1)
    1.0
    """

    def __init__(
        self, *, bias: bool = False, score_type: str = "auto", max_iter: int = 100
    ) -> None:
        self.bias = bias
        self.score_type = score_type
        self.max_iter = max_iter

    def _is_binary(self, arr: AnyArray) -> bool:
        return arr.ndim == 1 or (arr.ndim == 2 and arr.shape[1] == 1)

    def fit(self, scores: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the temperature (and bias) to calibration scores.

        Parameters
        ----------
        scores : array-like of shape (n,), (n, 1) or (n, K)
            Binary scores, or one score column per class (column k for ``classes_[k]``, the
            k-th label in sorted order).
        y : array-like of shape (n,)
            Labels: two classes for binary scores, every one of the K classes for a matrix.
        sample_weight : array-like of shape (n,), default=None
            Non-negative weights (a weight of k counts as k copies of a row).

        Returns
        -------
        self
        """
        owner = type(self).__name__
        bias = check_bool(self.bias, name="bias", owner=owner)
        check_option(self.score_type, SCORE_TYPES, name="score_type", owner=owner)
        max_iter = check_positive_int(self.max_iter, name="max_iter", owner=owner)
        if len(getattr(y, "shape", ())) == 2:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled.",
                DataConversionWarning,
                stacklevel=2,
            )
        arr = _as_array(scores, "scores")
        y_enc: npt.NDArray[np.int8] | IntArray
        log_floor = -np.inf
        reversed_ = False
        if self._is_binary(arr):
            y_enc, classes = check_binary_labels(y, name="y")
            s = check_scores(arr, name="scores")
            check_consistent_length(scores=s, y=y_enc)
            w = check_sample_weight(sample_weight, s.shape[0])
            check_weighted_classes(y_enc, rescale_sample_weight(w))
            # scores ranked the wrong way round (a comparison of calibrators says so once, with
            # the labels): the constant map they lead to is not said again
            reversed_ = ranking_auc(s, y_enc, w) < 0.5
            self.score_type_ = self._binary_type(s, owner)
            Z = binary_logits(s, self.score_type_)
            n_features = 1
        else:
            S = check_score_matrix(arr, owner=owner)
            classes, y_enc, w = encode_class_labels(S, y, sample_weight, owner=owner)
            check_classes_match_columns(S, classes, owner=owner, name_features=False)
            _check_class_weights(y_enc, w, classes.shape[0], owner)
            if bias:
                check_matrix_classes(
                    classes.shape[0], owner=owner, what="a bias per class by Newton's method"
                )
            self.score_type_ = resolve_score_type(S, self.score_type, owner=owner)
            Z = matrix_logits(S, self.score_type_)
            n_features = S.shape[1]
            if self.score_type_ == "probabilities":
                log_floor = float(np.log(probability_floor(S, y_enc, w)))
        with warnings.catch_warnings():
            if reversed_:
                warnings.filterwarnings("ignore", CONSTANT_MAP, VenncalWarning)
            self.map_ = fit_temperature_scaling(
                Z,
                y_enc.astype(np.intp),
                rescale_sample_weight(w),
                bias=bias,
                max_iter=max_iter,
                log_floor=log_floor,
            )
        return self._set_map(self.map_, classes, n_features)

    def _set_map(self, map_: TemperatureMap, classes: AnyArray, n_features: int) -> Self:
        """Record a fitted map and what follows from it (also for fits on Dask and Spark)."""
        self.map_ = map_
        beta = map_.inverse_temperature
        with np.errstate(divide="ignore", over="ignore"):
            self.temperature_ = float(np.inf if beta == 0 else 1.0 / beta)
        b = map_.bias
        self.bias_ = float(b[1] - b[0]) if n_features == 1 else b.copy()
        self.n_iter_ = map_.n_iter
        self.classes_ = classes
        self.n_features_in_ = n_features
        return self

    def _binary_type(self, s: FloatArray, owner: str) -> str:
        in_unit = bool(s.size) and s.min() >= 0.0 and s.max() <= 1.0
        if self.score_type == "auto":
            return "probabilities" if in_unit else "logits"
        if self.score_type == "probabilities" and not in_unit:
            raise ValueError(
                f"score_type='probabilities' of {owner} needs scores in [0, 1]; use "
                "score_type='logits' for log-odds or margins."
            )
        return self.score_type

    def _log_scores(self, scores: ArrayLike) -> FloatArray:
        check_is_fitted(self, "classes_")
        owner = type(self).__name__
        return temperature_logits(scores, self.score_type_, self.n_features_in_, owner=owner)

    # the two steps of prediction that the command line streams binary scores through, as it
    # does for every score calibrator (``BaseScoreCalibrator``)
    def _check_predict_input(self, scores: ArrayLike) -> FloatArray:
        check_is_fitted(self, "classes_")
        if self.n_features_in_ != 1:
            raise ValueError(
                f"this {type(self).__name__} was fitted on {self.n_features_in_} score columns; "
                "one column of binary scores is needed here."
            )
        return check_scores(scores, name="scores")

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        return self.predict_proba(s)[:, 1]

    def predict_proba(self, scores: ArrayLike) -> FloatArray:
        """Calibrated class probabilities.

        Parameters
        ----------
        scores : array-like of shape (m,), (m, 1) or (m, K)
            Scores of the kind seen at fit time.

        Returns
        -------
        proba : ndarray of shape (m, K)
            Rows summing to one, columns in the order of ``classes_`` (two for binary scores).
        """
        Z = self._log_scores(scores)
        return self.map_.predict(Z)

    def predict(self, scores: ArrayLike) -> AnyArray:
        """The class of largest calibrated probability (the first on a tie).

        Parameters
        ----------
        scores : array-like of shape (m,), (m, 1) or (m, K)

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        return most_probable(self.predict_proba(scores), self.classes_)
