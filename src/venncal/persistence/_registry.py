"""Which classes a model file may hold, and where their fitted state lives.

A calibrator is saved as its class name, its ``get_params()`` and its fitted attributes. The
registry lists, per class, the fitted attributes that must be there and the dataclass types its
fitted state may hold; loading builds only registered classes and types, found by name in this
table, never by importing what the file names.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

__all__ = ["ModelClass", "register_model_class", "model_class", "registered_names"]

#: fitted attributes every score calibrator has (set by ``BaseScoreCalibrator.fit``)
COMMON_FITTED = ("classes_", "n_features_in_")


@dataclass(frozen=True)
class ModelClass:
    """How one class is saved.

    Attributes
    ----------
    cls : type
        The estimator class (built with ``cls(**params)`` on load).
    fitted : tuple of str
        Fitted attributes a saved instance must have (besides ``classes_`` and
        ``n_features_in_``). Every other public attribute whose name ends in ``_`` is saved too.
    types : tuple of type
        The dataclasses its fitted attributes may hold.
    data : tuple of str
        Fitted attributes that hold the calibration data itself (e.g. the pooled counts kept
        for ``partial_fit``): saved only when asked, so model files stay small.
    """

    cls: type
    fitted: tuple
    types: tuple
    data: tuple = ()


_REGISTRY: dict[str, ModelClass] = {}


def register_model_class(cls, *, fitted, types=(), data=()):
    """Let :func:`venncal.save` and :func:`venncal.load` handle instances of ``cls``.

    Parameters
    ----------
    cls : type
        A scikit-learn style calibrator whose parameters (``get_params()``) and fitted
        attributes are numbers, strings, numpy arrays, lists, tuples, dicts or instances of
        ``types``.
    fitted : sequence of str
        The fitted attributes it needs to predict (names ending in ``_``).
    types : sequence of type
        Dataclasses (frozen, built by their ``__init__`` from their fields) that the fitted
        attributes may hold.
    data : sequence of str
        Fitted attributes holding the calibration data (not needed to predict); saved only
        with ``venncal.save(..., with_data=True)``.

    Raises
    ------
    ValueError
        If another class of the same name is registered already.

    Examples
    --------
    >>> from venncal.calibration import PlattCalibrator
    >>> model_class("PlattCalibrator").cls is PlattCalibrator
    True
    """
    fitted = tuple(fitted)
    types = tuple(types)
    data = tuple(data)
    for name in fitted + data:
        if not (isinstance(name, str) and name.endswith("_") and not name.startswith("_")):
            raise ValueError(f"'fitted' must hold public names ending in '_'; got {name!r}.")
    for t in types:
        if not (isinstance(t, type) and dataclasses.is_dataclass(t)):
            raise TypeError(f"'types' must hold dataclasses; got {t!r}.")
    known = _REGISTRY.get(cls.__name__)
    if known is not None and known.cls is not cls:
        raise ValueError(
            f"a class named {cls.__name__!r} ({known.cls.__module__}) is registered already."
        )
    fitted = tuple(dict.fromkeys(COMMON_FITTED + fitted))
    _REGISTRY[cls.__name__] = ModelClass(cls, fitted, types, data)
    return cls


def _register_builtin():
    from venncal.calibration.acp import ACPCalibrator
    from venncal.calibration.bayesian_binning import BayesianBinningCalibrator
    from venncal.calibration.histogram import HistogramCalibrator
    from venncal.calibration.isotonic import IsotonicCalibrator
    from venncal.calibration.platt import PlattCalibrator
    from venncal.calibration.venn_abers import VennAbersCalibrator
    from venncal.core.acp import ACPTable
    from venncal.core.bayesian_binning import BayesianBinning
    from venncal.core.histogram import HistogramBinning
    from venncal.core.isotonic import IsotonicStepFunction
    from venncal.core.platt import PlattSigmoid
    from venncal.core.venn_abers import IVAPTables

    try:  # the pooled calibration data of the count-based calibrators (for partial_fit)
        from venncal.core.counts import CountTable

        counts = [CountTable]
    except ImportError:  # pragma: no cover - versions without partial_fit
        counts = []
    data = ["aggregate_"]

    register_model_class(
        VennAbersCalibrator, fitted=["tables_"], types=[IVAPTables, *counts], data=data
    )
    register_model_class(
        IsotonicCalibrator,
        fitted=["step_function_"],
        types=[IsotonicStepFunction, *counts],
        data=data,
    )
    register_model_class(
        PlattCalibrator, fitted=["sigmoid_", "a_", "b_", "n_iter_"], types=[PlattSigmoid]
    )
    register_model_class(
        HistogramCalibrator,
        fitted=["binning_", "bin_edges_", "bin_counts_"],
        types=[HistogramBinning, *counts],
        data=data,
    )
    register_model_class(
        BayesianBinningCalibrator,
        fitted=["binning_", "log_score_"],
        types=[BayesianBinning, *counts],
        data=data,
    )
    register_model_class(
        ACPCalibrator,
        fitted=["table_", "sigmoid_", "covariance_", "covariance_scaled_"],
        types=[ACPTable, PlattSigmoid, *counts],
        data=data,
    )

    from venncal.calibration.beta import BetaCalibrator
    from venncal.core.beta import BetaMap

    register_model_class(
        BetaCalibrator, fitted=["map_", "a_", "b_", "c_", "m_", "n_iter_"], types=[BetaMap]
    )


_register_builtin()


def model_class(name):
    """The registered :class:`ModelClass` called ``name``, or None."""
    return _REGISTRY.get(name)


def registered_names():
    """Names of the registered classes, sorted."""
    return sorted(_REGISTRY)
