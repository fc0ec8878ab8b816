"""Prediction from a model file's fitted state, without scikit-learn.

The calibrators are scikit-learn estimators, and importing scikit-learn costs about 1.5 s of
CPU time, far more than reading a model file and calibrating a batch of scores. A program that
only loads a model and predicts (the command line's ``venncal apply``, a scoring service) needs
none of it: the prediction of every calibrator here is a function of ``venncal.core`` objects.

Two pieces, shared by the library and the command line:

* :class:`SavedPredictor` and its subclasses predict from the decoded content of a model file
  (:class:`~venncal.persistence.ModelState`) by calling the very functions the calibrator's
  ``predict_proba`` calls on the same fitted objects, so they predict bit for bit what it does
  (tested for each class): the binary score calibrators, ACP (its self-built or given
  intervals, and ``score_interval``), and, in :mod:`._predictor_multiclass`, temperature
  scaling (binary or K-class), matrix scaling, Dirichlet calibration and multiclass
  Venn-Abers, binary and multiclass Venn-Abers fitted within groups included (their
  ``groups=`` goes to the predictor, which calls the core's prediction within groups, unseen
  groups and their warning included). :func:`saved_predictor` gives one, or None for a class,
  a parameter or a fitted state it does not cover (e.g. a ``CalibrationMonitor``, or a file of
  an older version without a parameter the predictor needs): those are loaded as the estimator.
* :class:`LoadedCalibrator`, what :func:`venncal.load` returns in a process that has not
  imported scikit-learn: it answers ``predict_proba``, ``predict`` and the prediction methods
  its predictor lists (``predict_interval`` of Venn-Abers, ``score_interval`` of ACP), with
  the keyword arguments the predictor takes (``groups=``, ACP's ``interval=``), from its
  predictor, and on first use of anything else it builds the
  estimator from the same state and *becomes* it (its ``__class__`` is replaced, its
  ``__dict__`` filled with the estimator's), so that ``isinstance``, ``type``, ``get_params``,
  ``fit``, ``partial_fit``, pickling and ``sklearn.base.clone`` see the estimator itself, not a
  wrapper. ``isinstance(model, VennAbersCalibrator)`` works before that too: it asks
  ``__class__``, which imports the estimator's class.

Why not make the estimator modules import scikit-learn lazily: a calibrator class derives from
scikit-learn's ``BaseEstimator``, so the class cannot exist without scikit-learn, and an
instance of it cannot be returned without the import. A stand-in that becomes the estimator
keeps one prediction code path per class (the core's) and one estimator class, and limits the
stand-in to the moment between loading and the first use of the estimator's API. In a process
that has imported scikit-learn already there is nothing to save, and :func:`venncal.load`
returns the estimator at once; ``vars()`` of a stand-in that has not become the estimator shows
the stand-in's own fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from venncal.persistence._predictor_base import SavedPredictor, _is_type
from venncal.persistence._predictor_multiclass import (
    SavedDirichlet,
    SavedMatrixScaling,
    SavedMulticlassVennAbers,
    SavedTemperature,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import SupportsIndex

    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray
    from venncal.core.venn_abers import IVAPTables
    from venncal.persistence._model_file import ModelState

__all__ = ["SavedPredictor", "SavedVennAbers", "saved_predictor", "LoadedCalibrator"]


class SavedVennAbers(SavedPredictor):
    """A saved Venn-Abers calibrator that only predicts: its tables, merge and rounding, and,
    fitted within groups, the tables of each group (``groups=`` at prediction).

    The command line builds one directly (``SavedVennAbers(tables, merge)``) or from a model
    file (:meth:`from_state`); its :meth:`predict_p0_p1` takes clean float64 scores.
    """

    model_name = "VennAbersCalibrator"
    params = frozenset({"merge", "decimals", "group_fallback"})
    fitted = {"tables_": "venncal.core.venn_abers:IVAPTables"}
    rounds = True
    methods = ("predict_interval",)
    keywords = {m: frozenset({"groups"}) for m in ("predict_proba", "predict", "predict_interval")}
    # fitted within groups: the groups calibrated on their own, their tables, the groups
    # pooled at fit, and what an unseen group gets
    groups_: list[Any] | None = None
    group_tables_: list[IVAPTables] | None = None
    pooled_groups_: list[Any] | None = None
    group_fallback: str | None = None

    def __init__(
        self,
        tables: IVAPTables | None,
        merge: str,
        decimals: int | None = None,
        classes: AnyArray | None = None,
        pos_label: Any = None,
    ) -> None:
        # None only for the command line's Venn-Abers until its fit sets them
        self.tables_ = tables
        self.merge = merge
        self.decimals_ = decimals
        self.classes_ = classes
        self.pos_label_ = pos_label

    @classmethod
    def accepts(cls, params: Mapping[str, Any], fitted: Mapping[str, Any]) -> bool:
        from venncal.core.groups import GROUP_FALLBACKS
        from venncal.core.merge import MERGES

        groups = fitted.get("groups_")
        if groups is not None:
            tables, pooled = fitted.get("group_tables_"), fitted.get("pooled_groups_")
            ivap = cls.fitted["tables_"]
            if not (
                isinstance(groups, list)
                and isinstance(tables, list)
                and len(tables) == len(groups)
                and all(_is_type(t, ivap) for t in tables)
                and isinstance(pooled, list)
                and params.get("group_fallback") in GROUP_FALLBACKS
            ):
                return False
        return super().accepts(params, fitted) and params.get("merge") in MERGES

    @classmethod
    def from_state(cls, state: ModelState) -> Self | None:
        """The predictor of a :class:`~venncal.persistence.ModelState`, or None if it cannot."""
        if state.class_name != cls.model_name or not cls.accepts(state.params, state.fitted):
            return None
        fitted = state.fitted
        predictor = cls(
            fitted["tables_"],
            state.params["merge"],
            fitted.get("decimals_"),
            fitted["classes_"],
            fitted.get("pos_label_"),
        )
        if fitted.get("groups_") is not None:
            predictor.groups_ = fitted["groups_"]
            predictor.group_tables_ = fitted["group_tables_"]
            predictor.pooled_groups_ = fitted["pooled_groups_"]
            predictor.group_fallback = state.params["group_fallback"]
        return predictor

    def _interval(
        self, s: FloatArray, groups: ArrayLike | None = None
    ) -> tuple[FloatArray, FloatArray]:
        from venncal.core.groups import venn_abers_interval

        # set by the constructor, or by the fit of the command line's Venn-Abers
        assert self.tables_ is not None
        return venn_abers_interval(
            s,
            groups,
            tables=self.tables_,
            fitted_groups=self.groups_,
            group_tables=self.group_tables_,
            pooled_groups=self.pooled_groups_,
            # read only when fitted within groups, where from_state sets it
            fallback=self.group_fallback or "error",
            owner=self.model_name,
        )

    def predict_p0_p1(self, scores: FloatArray) -> tuple[FloatArray, FloatArray]:
        """p0 and p1 of clean float64 scores, two arrays of shape (m,)."""
        return self._interval(self._prepare(scores))

    def predict_interval(self, scores: ArrayLike, groups: ArrayLike | None = None) -> FloatArray:
        """The interval [p0, p1] of each score, shape (m, 2), as the calibrator's."""
        return np.column_stack(self._interval(self._check_predict_input(scores), groups))

    def predict_proba(self, scores: ArrayLike, groups: ArrayLike | None = None) -> FloatArray:
        """Calibrated probabilities of both classes, shape (m, 2), as the calibrator's."""
        from venncal.core.merge import merge

        p0, p1 = self._interval(self._check_predict_input(scores), groups)
        return self._proba_columns(merge(p0, p1, self.merge))

    def predict(self, scores: ArrayLike, groups: ArrayLike | None = None) -> AnyArray:
        """The more probable class of each score (``classes_[0]`` on a tie)."""
        p = self.predict_proba(scores, groups)[:, 1]
        labels: AnyArray = self.classes_[(p > 0.5).astype(np.intp)]
        return labels

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        from venncal.core.merge import merge

        p0, p1 = self._interval(s)
        return merge(p0, p1, self.merge)


class _SavedIsotonic(SavedPredictor):
    model_name = "IsotonicCalibrator"
    params = frozenset({"decimals", "rule"})
    fitted = {"step_function_": "venncal.core.isotonic:IsotonicStepFunction"}
    rounds = True

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        p: FloatArray = self.fitted_["step_function_"].predict(s, rule=self.params_["rule"])
        return p


class _SavedPlatt(SavedPredictor):
    model_name = "PlattCalibrator"
    params = frozenset({"max_iter", "smoothing"})
    fitted = {"sigmoid_": "venncal.core.platt:PlattSigmoid"}


class _SavedHistogram(SavedPredictor):
    model_name = "HistogramCalibrator"
    params = frozenset({"alpha", "decimals", "n_bins", "strategy"})
    fitted = {"binning_": "venncal.core.histogram:HistogramBinning"}
    rounds = True


class _SavedBayesianBinning(SavedPredictor):
    model_name = "BayesianBinningCalibrator"
    params = frozenset({"averaging", "decimals", "lam", "max_positions", "method"})
    fitted = {"binning_": "venncal.core.bayesian_binning:BayesianBinning"}
    rounds = True


class _SavedScaledMap(SavedPredictor):
    """A calibrator whose ``map_`` reads scores on its ``score_scale``; ``method`` names the
    calibration in the refusal of probabilities outside [0, 1]."""

    method: ClassVar[str] = "Beta calibration"

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        from venncal.core.beta import check_beta_scores

        check_beta_scores(s, self.fitted_["map_"].score_scale, method=self.method)
        p: FloatArray = self.fitted_["map_"].predict(s)
        return p


class _SavedBeta(_SavedScaledMap):
    model_name = "BetaCalibrator"
    params = frozenset({"max_iter", "parameters", "score_scale"})
    fitted = {"map_": "venncal.core.beta:BetaMap"}


class _SavedScalingBinning(SavedPredictor):
    model_name = "ScalingBinningCalibrator"
    params = frozenset({"max_iter", "n_bins", "scaling_fraction", "smoothing"})
    fitted = {
        "sigmoid_": "venncal.core.platt:PlattSigmoid",
        "binning_": "venncal.core.histogram:HistogramBinning",
    }

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        p: FloatArray = self.fitted_["binning_"].predict(self.fitted_["sigmoid_"].predict(s))
        return p


class _SavedQuadratic(_SavedScaledMap):
    model_name = "QuadraticCalibrator"
    params = frozenset({"max_iter", "monotone", "score_scale"})
    fitted = {"map_": "venncal.core.quadratic:QuadraticMap"}
    method = "Quadratic scaling"


class _SavedACP(SavedPredictor):
    """ACP: ``predict_proba`` (with the self-built intervals or given ones), ``predict`` and
    ``score_interval``."""

    model_name = "ACPCalibrator"
    params = frozenset({"alpha", "confidence", "interval_adjustment"})
    fitted = {"table_": "venncal.core.acp:ACPTable", "sigmoid_": "venncal.core.platt:PlattSigmoid"}
    methods = ("score_interval",)
    keywords = {"predict_proba": frozenset({"interval"})}

    @classmethod
    def accepts(cls, params: Mapping[str, Any], fitted: Mapping[str, Any]) -> bool:
        cov = fitted.get("covariance_scaled_")
        return (
            super().accepts(params, fitted)
            and {"confidence", "interval_adjustment"} <= set(params)
            and isinstance(cov, np.ndarray)
            and cov.shape == (2, 2)
        )

    def _score_interval(self, s: FloatArray) -> FloatArray:
        from venncal.core.acp import acp_score_interval

        f = self.fitted_
        return acp_score_interval(
            s, f["sigmoid_"], f["covariance_scaled_"], self.params_["confidence"]
        )

    def score_interval(self, scores: ArrayLike) -> FloatArray:
        """The self-built interval of each test score, shape (m, 2), as the calibrator's."""
        return self._score_interval(self._check_predict_input(scores))

    def predict_proba(self, scores: ArrayLike, interval: ArrayLike | None = None) -> FloatArray:
        """Calibrated probabilities of both classes, shape (m, 2), as the calibrator's."""
        from venncal.core.acp import predict_acp

        s = self._check_predict_input(scores)
        p = predict_acp(
            self.fitted_["table_"],
            s,
            interval,
            adjustment=self.params_["interval_adjustment"],
            score_interval=self._score_interval,
            owner=self.model_name,
        )
        return self._proba_columns(p)

    def _predict_positive(self, s: FloatArray) -> FloatArray:
        return self.predict_proba(s)[:, 1]


#: class name -> predictor class, for the calibrators whose prediction needs the core only
PREDICTORS: dict[str, type[SavedPredictor]] = {
    c.model_name: c
    for c in (
        SavedVennAbers,
        _SavedIsotonic,
        _SavedPlatt,
        _SavedHistogram,
        _SavedBayesianBinning,
        _SavedBeta,
        _SavedScalingBinning,
        _SavedQuadratic,
        _SavedACP,
        SavedTemperature,
        SavedMatrixScaling,
        SavedDirichlet,
        SavedMulticlassVennAbers,
    )
}


def saved_predictor(state: ModelState) -> SavedPredictor | None:
    """The predictor of a :class:`~venncal.persistence.ModelState`, or None.

    None when the class is not among :data:`PREDICTORS` or the file's parameters and fitted
    state are not those the predictor knows (e.g. a Venn-Abers calibrator fitted within
    groups): load the estimator then.
    """
    from venncal.persistence._registry import _BUILTIN, COMMON_FITTED

    cls = PREDICTORS.get(state.class_name)
    if cls is None or state.class_name not in _BUILTIN:
        return None
    if any(a not in state.fitted for a in (*COMMON_FITTED, *_BUILTIN[state.class_name][1])):
        return None  # the estimator's loading reports it
    if cls is SavedVennAbers:
        return SavedVennAbers.from_state(state)
    if not cls.accepts(state.params, state.fitted):
        return None
    return cls(state.params, state.fitted)


_SET_CLASS = object.__dict__["__class__"].__set__


def _as_estimator(obj: object) -> Any:
    """``obj`` as the estimator: a :class:`LoadedCalibrator` builds it and becomes it (once);
    anything else (one that became it already, e.g. through a method kept from before) is
    returned as it is."""
    d = object.__getattribute__(obj, "__dict__")
    if type(obj) is not LoadedCalibrator or "_build_estimator" not in d:
        return obj
    estimator = d["_build_estimator"]()
    d.clear()
    d.update(estimator.__dict__)
    _SET_CLASS(obj, type(estimator))
    return obj


def _light(obj: object, method: str, kwargs: Mapping[str, Any]) -> SavedPredictor | None:
    """The predictor of a stand-in that has not become the estimator, if a call of ``method``
    with these keyword arguments can use it (``groups=``: the estimator's; ``interval=`` of
    ACP's ``predict_proba``: the predictor's too)."""
    if type(obj) is not LoadedCalibrator:
        return None
    light: SavedPredictor = object.__getattribute__(obj, "__dict__")["_saved_predictor"]
    taken = light.keywords.get(method, ())
    if any(v is not None and k not in taken for k, v in kwargs.items()):
        return None
    return light


def _call(obj: object, method: str, scores: ArrayLike, kwargs: Mapping[str, Any]) -> AnyArray:
    light = _light(obj, method, kwargs)
    if light is None:
        out: AnyArray = getattr(_as_estimator(obj), method)(scores, **kwargs)
    else:
        out = getattr(light, method)(scores, **{k: v for k, v in kwargs.items() if v is not None})
    return out


class LoadedCalibrator:
    """A loaded calibrator that predicts without scikit-learn until it is used otherwise.

    ``predict_proba(scores)``, ``predict(scores)`` and the methods its predictor lists in
    ``methods`` (``predict_interval`` of Venn-Abers, binary and multiclass; ``score_interval``
    of ACP) come from the :class:`SavedPredictor`; anything else first builds the estimator
    (``build()``, which imports scikit-learn) and turns this object into it;
    ``estimator_class()`` gives its class (for ``isinstance``). See the module's docstring.
    """

    def __init__(
        self,
        predictor: SavedPredictor,
        build: Callable[[], Any],
        estimator_class: Callable[[], type],
    ) -> None:
        d = object.__getattribute__(self, "__dict__")
        d["_saved_predictor"] = predictor
        d["_build_estimator"] = build
        d["_estimator_class"] = estimator_class

    def _become(self) -> Any:
        return _as_estimator(self)

    def predict_proba(self, scores: ArrayLike, **kwargs: Any) -> FloatArray:
        return _call(self, "predict_proba", scores, kwargs)

    def predict(self, scores: ArrayLike, **kwargs: Any) -> AnyArray:
        return _call(self, "predict", scores, kwargs)

    def __getattr__(self, name: str) -> Any:
        light: SavedPredictor = object.__getattribute__(self, "__dict__")["_saved_predictor"]
        if name in light.methods:

            def method(scores: ArrayLike, **kwargs: Any) -> AnyArray:
                return _call(self, name, scores, kwargs)

            method.__name__ = name
            return method
        return getattr(self._become(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._become(), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._become(), name)

    # read-only on purpose (mypy: it overrides object's writable __class__): becoming the
    # estimator sets the class through object's own descriptor, _SET_CLASS
    @property  # type: ignore[misc]
    def __class__(self) -> type:
        # the class, not yet the estimator: isinstance compares this with type(self), which
        # must still be this stand-in's
        cls: type = object.__getattribute__(self, "__dict__")["_estimator_class"]()
        return cls

    def __repr__(self) -> str:
        return repr(self._become())

    def __dir__(self) -> list[str]:
        return dir(self._become())

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        reduced: str | tuple[Any, ...] = self._become().__reduce_ex__(protocol)
        return reduced

    def __reduce__(self) -> str | tuple[Any, ...]:
        reduced: str | tuple[Any, ...] = self._become().__reduce__()
        return reduced

    def __getstate__(self) -> object:
        return self._become().__getstate__()
