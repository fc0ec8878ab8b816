"""Predictors of saved K-class calibrators (and of temperature scaling, binary or K-class).

Each predicts from the decoded fitted state of a model file through the functions of
``venncal.core`` that the estimator's own ``predict_proba`` calls, with the same checks of the
test scores and the same error messages; see :mod:`venncal.persistence._predictor`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.persistence._predictor_base import SavedPredictor, _is_type

if TYPE_CHECKING:
    from collections.abc import Mapping

    from venncal._typing import AnyArray, ArrayLike, FloatArray
    from venncal.calibration.multiclass import MulticlassTables as _Tables
    from venncal.core.class_scores import ShiftedColumns
    from venncal.core.temperature import TemperatureMap
    from venncal.core.top_label import TopLabelScores

__all__ = [
    "SavedTemperature",
    "SavedMatrixScaling",
    "SavedDirichlet",
    "SavedMulticlassVennAbers",
]

_SCORE_TYPES = ("logits", "probabilities", "raw")


class _SavedClassScores(SavedPredictor):
    """A K-class calibrator: ``predict`` is the class of largest probability (the first on a
    tie), and the scores of a command line's one score column are refused with one line."""

    def __init__(self, state_params: Mapping[str, Any], state_fitted: Mapping[str, Any]) -> None:
        super().__init__(state_params, state_fitted)
        self.score_type_: str = state_fitted["score_type_"]
        self.n_features_in_: int = state_fitted["n_features_in_"]

    @classmethod
    def accepts(cls, params: Mapping[str, Any], fitted: Mapping[str, Any]) -> bool:
        return (
            super().accepts(params, fitted)
            and fitted.get("score_type_") in _SCORE_TYPES
            and type(fitted.get("n_features_in_")) is int
        )

    def _check_predict_input(self, scores: ArrayLike) -> FloatArray:
        raise ValueError(
            f"this {self.model_name} was fitted on {self.n_features_in_} score columns; one "
            "column of binary scores is needed here."
        )

    def predict(self, scores: ArrayLike) -> AnyArray:
        """The class of largest calibrated probability (the first on a tie)."""
        labels: AnyArray = self.classes_[np.argmax(self.predict_proba(scores), axis=1)]
        return labels


class SavedTemperature(_SavedClassScores):
    """Temperature scaling of binary scores or of a K-class score matrix."""

    model_name = "TemperatureCalibrator"
    params = frozenset({"bias", "max_iter", "score_type"})
    fitted = {"map_": "venncal.core.temperature:TemperatureMap"}

    def __init__(self, state_params: Mapping[str, Any], state_fitted: Mapping[str, Any]) -> None:
        super().__init__(state_params, state_fitted)
        self.map_: TemperatureMap = state_fitted["map_"]

    def predict_proba(self, scores: ArrayLike) -> FloatArray:
        """Calibrated class probabilities, as the calibrator's."""
        from venncal.core.temperature import temperature_logits

        Z = temperature_logits(scores, self.score_type_, self.n_features_in_, owner=self.model_name)
        return self.map_.predict(Z)

    # the two steps the command line streams binary scores through, as the estimator's
    def _check_predict_input(self, scores: ArrayLike) -> FloatArray:
        if self.n_features_in_ != 1:
            return super()._check_predict_input(scores)
        from venncal._validation import check_scores

        return check_scores(scores, name="scores")

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        return self.predict_proba(s)[:, 1]


class _SavedLinearSoftmax(_SavedClassScores):
    """A linear map of class log-probabilities followed by a softmax (matrix scaling,
    Dirichlet calibration)."""

    def predict_proba(self, scores: ArrayLike) -> FloatArray:
        """Calibrated class probabilities, as the calibrator's."""
        from venncal.core.class_scores import checked_class_log_scores

        t = checked_class_log_scores(
            scores, self.score_type_, n_classes=self.classes_.shape[0], owner=self.model_name
        )
        proba: FloatArray = self.fitted_["map_"].predict_proba(t)
        return proba


class SavedMatrixScaling(_SavedLinearSoftmax):
    model_name = "MatrixScalingCalibrator"
    params = frozenset(
        {
            "lambda_diagonal",
            "lambda_intercept",
            "lambda_off_diagonal",
            "max_iter",
            "score_type",
            "structure",
            "tol",
        }
    )
    fitted = {"map_": "venncal.core.matrix_scaling:MatrixScalingMap"}


class SavedDirichlet(_SavedLinearSoftmax):
    model_name = "DirichletCalibrator"
    params = frozenset({"max_iter", "reg_lambda", "reg_mu", "score_type", "tol"})
    fitted = {"map_": "venncal.core.dirichlet:DirichletMap"}


_MULTICLASS_TABLES = (
    "venncal.core.multiclass_venn_abers:OneVsRestTables",
    "venncal.core.multiclass_venn_abers:PairwiseTables",
    "venncal.core.multiclass_venn_abers:PooledOneVsRestTables",
    "venncal.core.multiclass_venn_abers:PooledPairwiseTables",
    "venncal.core.top_label:TopLabelTables",
)


class SavedMulticlassVennAbers(_SavedClassScores):
    """Multiclass Venn-Abers calibration (one-vs-rest, pairwise or top-label, pooled or not,
    within groups or not): ``predict_proba``, ``predict`` and ``predict_interval``, each with
    ``groups=``."""

    model_name = "MulticlassVennAbersCalibrator"
    params = frozenset({"coupling", "merge", "pooled", "score_type", "strategy"})
    methods = ("predict_interval",)
    keywords = {m: frozenset({"groups"}) for m in ("predict_proba", "predict", "predict_interval")}

    def __init__(self, state_params: Mapping[str, Any], state_fitted: Mapping[str, Any]) -> None:
        super().__init__(state_params, state_fitted)
        self.tables_: _Tables = state_fitted["tables_"]
        self.strategy_: str = state_fitted["strategy_"]
        self.groups_: list[Any] | None = state_fitted.get("groups_")
        self.group_tables_: list[_Tables] | None = state_fitted.get("group_tables_")
        self.merge: str = state_params["merge"]
        self.coupling: str = state_params["coupling"]
        self.pooled: bool = state_params["pooled"]

    @classmethod
    def accepts(cls, params: Mapping[str, Any], fitted: Mapping[str, Any]) -> bool:
        from venncal.core.coupling import COUPLINGS
        from venncal.core.merge import MERGES

        def tables(value: object) -> bool:
            return any(_is_type(value, kind) for kind in _MULTICLASS_TABLES)

        groups, group_tables = fitted.get("groups_"), fitted.get("group_tables_")
        grouped = groups is None or (
            isinstance(groups, list)
            and isinstance(group_tables, list)
            and len(group_tables) == len(groups)
            and all(tables(t) for t in group_tables)
        )
        return (
            super().accepts(params, fitted)
            and grouped
            and tables(fitted.get("tables_"))
            and fitted.get("strategy_") in ("ovr", "pairwise", "top-label")
            and params.get("merge") in MERGES
            and params.get("coupling") in COUPLINGS
            and type(params.get("pooled")) is bool
        )

    def _predict_tables(
        self, tables: _Tables, t: FloatArray | ShiftedColumns | TopLabelScores
    ) -> tuple[FloatArray, FloatArray]:
        from venncal.core.multiclass_venn_abers import predict_venn_abers

        return predict_venn_abers(tables, t, self.strategy_, self.merge, self.coupling)

    def _predict(
        self, scores: ArrayLike, groups: ArrayLike | None = None
    ) -> tuple[FloatArray, FloatArray]:
        from venncal.core.multiclass_venn_abers import predict_fitted

        return predict_fitted(self, scores, groups, owner=self.model_name)

    def predict_proba(self, scores: ArrayLike, groups: ArrayLike | None = None) -> FloatArray:
        """Calibrated class probabilities, shape (m, K), as the calibrator's."""
        return self._predict(scores, groups)[0]

    def predict_interval(self, scores: ArrayLike, groups: ArrayLike | None = None) -> FloatArray:
        """Per-class probability intervals, shape (m, K, 2), as the calibrator's."""
        return self._predict(scores, groups)[1]

    def predict(self, scores: ArrayLike, groups: ArrayLike | None = None) -> AnyArray:
        """The class of largest calibrated probability (the first on a tie)."""
        labels: AnyArray = self.classes_[np.argmax(self.predict_proba(scores, groups), axis=1)]
        return labels
