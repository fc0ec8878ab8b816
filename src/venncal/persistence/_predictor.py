"""Prediction from a model file's fitted state, without scikit-learn.

The calibrators are scikit-learn estimators, and importing scikit-learn costs about 1.5 s of
CPU time, far more than reading a model file and calibrating a batch of scores. A program that
only loads a model and predicts (the command line's ``venncal apply``, a scoring service) needs
none of it: the prediction of every calibrator here is a function of ``venncal.core`` objects.

Two pieces, shared by the library and the command line:

* :class:`SavedPredictor` and its subclasses predict from the decoded content of a model file
  (:class:`~venncal.persistence.ModelState`) by calling the very functions the calibrator's
  ``predict_proba`` calls on the same fitted objects, so they predict bit for bit what it does
  (tested for each class). :func:`saved_predictor` gives one, or None for a class, a parameter
  or a fitted state it does not cover (groups, ACP's intervals, the multiclass calibrators):
  those are loaded as the estimator.
* :class:`LoadedCalibrator`, what :func:`venncal.load` returns in a process that has not
  imported scikit-learn: it answers ``predict_proba``, ``predict`` (and ``predict_interval``
  for Venn-Abers) from its predictor, and on first use of anything else it builds the
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

import numpy as np

from venncal._validation import check_scores

__all__ = ["SavedPredictor", "SavedVennAbers", "saved_predictor", "LoadedCalibrator"]


class SavedPredictor:
    """A saved score calibrator that only predicts, from its fitted ``venncal.core`` objects.

    Subclasses set ``model_name`` (the calibrator's class name), ``params`` (its parameter
    names), ``fitted`` (the fitted attributes they read, with their types as
    ``"module:Class"``) and ``rounds`` (whether test scores are rounded to ``decimals_``), and
    implement ``_predict_positive`` unless the prediction is that of their one fitted
    attribute.
    """

    model_name = None
    params = frozenset()
    fitted = {}
    rounds = False

    def __init__(self, state_params, state_fitted):
        self.params_ = dict(state_params)
        self.fitted_ = dict(state_fitted)
        self.classes_ = state_fitted.get("classes_")
        self.decimals_ = state_fitted.get("decimals_") if self.rounds else None

    @classmethod
    def accepts(cls, params, fitted):
        """Whether a model file's parameters and fitted attributes are those of this class."""
        if not set(params) <= cls.params or "classes_" not in fitted:
            return False
        for name, kind in cls.fitted.items():
            module, _, type_name = kind.partition(":")
            value = fitted.get(name)
            if type(value).__name__ != type_name or type(value).__module__ != module:
                return False
        decimals = fitted.get("decimals_")
        return decimals is None or type(decimals) is int

    def _prepare(self, s):
        """Clean float64 scores as the calibrator uses them (rounded to ``decimals_``)."""
        if self.decimals_ is None:
            return s
        from venncal.core.counts import round_scores

        return round_scores(s, self.decimals_)

    def _check_predict_input(self, scores):
        """Check test scores as the calibrator does; return them ready to predict."""
        return self._prepare(check_scores(scores, name="scores"))

    def _predict_positive(self, s):
        (name,) = self.fitted
        return self.fitted_[name].predict(s)

    def predict_proba(self, scores):
        """Calibrated probabilities of both classes, shape (m, 2), as the calibrator's."""
        p = self._predict_positive(self._check_predict_input(scores))
        return np.column_stack([1.0 - p, p])

    def predict(self, scores):
        """The more probable class of each score (``classes_[0]`` on a tie)."""
        p = self.predict_proba(scores)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]


class SavedVennAbers(SavedPredictor):
    """A saved Venn-Abers calibrator that only predicts: its tables, merge and rounding.

    The command line builds one directly (``SavedVennAbers(tables, merge)``) or from a model
    file (:meth:`from_state`); its :meth:`predict_p0_p1` takes clean float64 scores.
    """

    model_name = "VennAbersCalibrator"
    params = frozenset({"merge", "decimals", "group_fallback"})
    fitted = {"tables_": "venncal.core.venn_abers:IVAPTables"}
    rounds = True

    def __init__(self, tables, merge, decimals=None, classes=None):
        self.tables_ = tables
        self.merge = merge
        self.decimals_ = decimals
        self.classes_ = classes

    @classmethod
    def accepts(cls, params, fitted):
        from venncal.core.merge import MERGES

        return (
            super().accepts(params, fitted)
            and fitted.get("groups_") is None
            and params.get("merge") in MERGES
        )

    @classmethod
    def from_state(cls, state):
        """The predictor of a :class:`~venncal.persistence.ModelState`, or None if it cannot."""
        if state.class_name != cls.model_name or not cls.accepts(state.params, state.fitted):
            return None
        fitted = state.fitted
        return cls(
            fitted["tables_"], state.params["merge"], fitted.get("decimals_"), fitted["classes_"]
        )

    def predict_p0_p1(self, scores):
        """p0 and p1 of clean float64 scores, two arrays of shape (m,)."""
        return self.tables_.predict_unchecked(self._prepare(scores))

    def predict_interval(self, scores):
        """The interval [p0, p1] of each score, shape (m, 2), as the calibrator's."""
        return np.column_stack(self.tables_.predict_unchecked(self._check_predict_input(scores)))

    def _predict_positive(self, s):
        from venncal.core.merge import merge

        p0, p1 = self.tables_.predict_unchecked(s)
        return merge(p0, p1, self.merge)


class _SavedIsotonic(SavedPredictor):
    model_name = "IsotonicCalibrator"
    params = frozenset({"decimals", "rule"})
    fitted = {"step_function_": "venncal.core.isotonic:IsotonicStepFunction"}
    rounds = True

    def _predict_positive(self, s):
        return self.fitted_["step_function_"].predict(s, rule=self.params_["rule"])


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

    method = "Beta calibration"

    def _predict_positive(self, s):
        from venncal.core.beta import check_beta_scores

        check_beta_scores(s, self.fitted_["map_"].score_scale, method=self.method)
        return self.fitted_["map_"].predict(s)


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

    def _predict_positive(self, s):
        return self.fitted_["binning_"].predict(self.fitted_["sigmoid_"].predict(s))


class _SavedQuadratic(_SavedScaledMap):
    model_name = "QuadraticCalibrator"
    params = frozenset({"max_iter", "monotone", "score_scale"})
    fitted = {"map_": "venncal.core.quadratic:QuadraticMap"}
    method = "Quadratic scaling"


#: class name -> predictor class, for the calibrators whose prediction needs the core only
PREDICTORS = {
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
    )
}


def saved_predictor(state):
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


def _as_estimator(obj):
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


def _light(obj, kwargs):
    """The predictor of a stand-in that has not become the estimator, if a call with these
    keyword arguments can use it (``groups=``, ``interval=``: the estimator's)."""
    if type(obj) is not LoadedCalibrator or any(v is not None for v in kwargs.values()):
        return None
    return object.__getattribute__(obj, "__dict__")["_saved_predictor"]


class LoadedCalibrator:
    """A loaded calibrator that predicts without scikit-learn until it is used otherwise.

    ``predict_proba(scores)``, ``predict(scores)`` and, for Venn-Abers,
    ``predict_interval(scores)`` come from the :class:`SavedPredictor`; anything else first
    builds the estimator (``build()``, which imports scikit-learn) and turns this object into
    it; ``estimator_class()`` gives its class (for ``isinstance``). See the module's docstring.
    """

    def __init__(self, predictor, build, estimator_class):
        d = object.__getattribute__(self, "__dict__")
        d["_saved_predictor"] = predictor
        d["_build_estimator"] = build
        d["_estimator_class"] = estimator_class

    def _become(self):
        return _as_estimator(self)

    def predict_proba(self, scores, **kwargs):
        light = _light(self, kwargs)
        if light is None:
            return _as_estimator(self).predict_proba(scores, **kwargs)
        return light.predict_proba(scores)

    def predict(self, scores, **kwargs):
        light = _light(self, kwargs)
        if light is None:
            return _as_estimator(self).predict(scores, **kwargs)
        return light.predict(scores)

    def __getattr__(self, name):
        light = object.__getattribute__(self, "__dict__")["_saved_predictor"]
        if name == "predict_interval" and isinstance(light, SavedVennAbers):

            def predict_interval(scores, **kwargs):
                light = _light(self, kwargs)
                if light is None:
                    return _as_estimator(self).predict_interval(scores, **kwargs)
                return light.predict_interval(scores)

            return predict_interval
        return getattr(self._become(), name)

    def __setattr__(self, name, value):
        setattr(self._become(), name, value)

    def __delattr__(self, name):
        delattr(self._become(), name)

    @property
    def __class__(self):
        # the class, not yet the estimator: isinstance compares this with type(self), which
        # must still be this stand-in's
        return object.__getattribute__(self, "__dict__")["_estimator_class"]()

    def __repr__(self):
        return repr(self._become())

    def __dir__(self):
        return dir(self._become())

    def __reduce_ex__(self, protocol):
        return self._become().__reduce_ex__(protocol)

    def __reduce__(self):
        return self._become().__reduce__()

    def __getstate__(self):
        return self._become().__getstate__()
