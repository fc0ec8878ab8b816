"""The base class of the predictors of saved calibrators (see :mod:`._predictor`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from venncal._validation import check_scores

if TYPE_CHECKING:
    from collections.abc import Mapping

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = ["SavedPredictor"]


class SavedPredictor:
    """A saved calibrator that only predicts, from its fitted ``venncal.core`` objects.

    Subclasses set ``model_name`` (the calibrator's class name), ``params`` (its parameter
    names), ``fitted`` (the fitted attributes they read, with their types as
    ``"module:Class"``), ``rounds`` (whether test scores are rounded to ``decimals_``),
    ``methods`` (the prediction methods besides ``predict_proba`` and ``predict`` that the
    stand-in of :func:`venncal.load` answers from them) and ``keywords`` (method name -> the
    keyword arguments it takes, e.g. ACP's ``interval`` of ``predict_proba``; a call with
    another one goes to the estimator), and implement ``_predict_positive`` unless the prediction is that
    of their one fitted attribute. A binary predictor answers ``predict_proba`` with the
    columns in the order of ``classes_``, as the estimator does for any ``pos_label_``.
    """

    model_name: ClassVar[str]
    params: ClassVar[frozenset[str]] = frozenset()
    fitted: ClassVar[dict[str, str]] = {}
    rounds: ClassVar[bool] = False
    methods: ClassVar[tuple[str, ...]] = ()
    keywords: ClassVar[dict[str, frozenset[str]]] = {}

    def __init__(self, state_params: Mapping[str, Any], state_fitted: Mapping[str, Any]) -> None:
        self.params_ = dict(state_params)
        self.fitted_ = dict(state_fitted)
        # the labels as decoded (None for a Venn-Abers predictor built without them)
        self.classes_: Any = state_fitted.get("classes_")
        self.pos_label_: Any = state_fitted.get("pos_label_")
        self.decimals_: int | None = state_fitted.get("decimals_") if self.rounds else None

    @classmethod
    def accepts(cls, params: Mapping[str, Any], fitted: Mapping[str, Any]) -> bool:
        """Whether a model file's parameters and fitted attributes are those of this class."""
        if not set(params) <= cls.params or "classes_" not in fitted:
            return False
        for name, kind in cls.fitted.items():
            if not _is_type(fitted.get(name), kind):
                return False
        decimals = fitted.get("decimals_")
        return decimals is None or type(decimals) is int

    def _prepare(self, s: FloatArray) -> FloatArray:
        """Clean float64 scores as the calibrator uses them (rounded to ``decimals_``)."""
        if self.decimals_ is None:
            return s
        from venncal.core.counts import round_scores

        return round_scores(s, self.decimals_)

    def _check_predict_input(self, scores: ArrayLike) -> FloatArray:
        """Check test scores as the calibrator does; return them ready to predict."""
        return self._prepare(check_scores(scores, name="scores"))

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        (name,) = self.fitted
        p: FloatArray = self.fitted_[name].predict(s)
        return p

    def _proba_columns(self, p: FloatArray) -> FloatArray:
        """Both columns from the probability ``p`` of the positive class, as the estimator's."""
        pos = self.pos_label_
        if pos is not None and self.classes_[0] == pos:
            return np.column_stack([p, 1.0 - p])
        return np.column_stack([1.0 - p, p])

    def predict_proba(self, scores: ArrayLike) -> FloatArray:
        """Calibrated probabilities of both classes, shape (m, 2), as the calibrator's."""
        return self._proba_columns(self._predict_positive(self._check_predict_input(scores)))

    def predict(self, scores: ArrayLike) -> AnyArray:
        """The more probable class of each score (``classes_[0]`` on a tie)."""
        p = self.predict_proba(scores)[:, 1]
        labels: AnyArray = self.classes_[(p > 0.5).astype(np.intp)]
        return labels


def _is_type(value: object, kind: str) -> bool:
    """Whether ``value`` is of the type ``"module:Class"`` (by name: nothing is imported)."""
    module, _, type_name = kind.partition(":")
    return type(value).__name__ == type_name and type(value).__module__ == module
