"""Which classes a model file may hold, and where their fitted state lives.

A calibrator is saved as its class name, its ``get_params()`` and its fitted attributes. The
registry lists, per class, the fitted attributes that must be there and the dataclass types its
fitted state may hold; loading builds only registered classes and types, found by name in this
table, never by importing what the file names.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "ModelClass",
    "register_model_class",
    "model_class",
    "model_types",
    "registered_names",
    "required_fitted",
]

#: fitted attributes every score calibrator has (set by ``BaseScoreCalibrator.fit``)
COMMON_FITTED = ("classes_", "n_features_in_")
#: the built-in classes that predict no classes (a regressor's predictive distributions):
#: their files need ``n_features_in_`` of the common attributes only
_WITHOUT_CLASSES = frozenset({"VennAbersDistribution"})


def _common_fitted(name: str) -> tuple[str, ...]:
    return ("n_features_in_",) if name in _WITHOUT_CLASSES else COMMON_FITTED


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
    fitted: tuple[str, ...]
    types: tuple[type, ...]
    data: tuple[str, ...] = ()


_REGISTRY: dict[str, ModelClass] = {}

_T = TypeVar("_T")


def register_model_class(
    cls: type[_T],
    *,
    fitted: Iterable[str],
    types: Iterable[type] = (),
    data: Iterable[str] = (),
) -> type[_T]:
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
    fitted_names = tuple(fitted)
    type_list = tuple(types)
    data_names = tuple(data)
    for name in fitted_names + data_names:
        if not (isinstance(name, str) and name.endswith("_") and not name.startswith("_")):
            raise ValueError(f"'fitted' must hold public names ending in '_'; got {name!r}.")
    for t in type_list:
        if not (isinstance(t, type) and dataclasses.is_dataclass(t)):
            raise TypeError(f"'types' must hold dataclasses; got {t!r}.")
    builtin = _BUILTIN.get(cls.__name__)
    if builtin and cls.__name__ not in _REGISTRY and cls.__module__ != builtin[0]:
        _register_builtin(cls.__name__)  # a built-in name keeps its built-in class
    known = _REGISTRY.get(cls.__name__)
    if known is not None and known.cls is not cls:
        raise ValueError(
            f"a class named {cls.__name__!r} ({known.cls.__module__}) is registered already."
        )
    required = tuple(dict.fromkeys(_common_fitted(cls.__name__) + fitted_names))
    _REGISTRY[cls.__name__] = ModelClass(cls, required, type_list, data_names)
    return cls


#: the built-in classes, imported only when a file names them (so loading one model does not
#: import every calibrator): name -> (module, fitted attributes, fitted-state types, data)
_COUNTS = "venncal.core.counts:CountTable"
_BUILTIN: dict[str, tuple[str, list[str], list[str], list[str]]] = {
    "VennAbersCalibrator": (
        "venncal.calibration.venn_abers",
        ["tables_"],
        ["venncal.core.venn_abers:IVAPTables", _COUNTS],
        ["aggregate_"],
    ),
    "IsotonicCalibrator": (
        "venncal.calibration.isotonic",
        ["step_function_"],
        ["venncal.core.isotonic:IsotonicStepFunction", _COUNTS],
        ["aggregate_"],
    ),
    "PlattCalibrator": (
        "venncal.calibration.platt",
        ["sigmoid_", "a_", "b_", "n_iter_"],
        ["venncal.core.platt:PlattSigmoid"],
        [],
    ),
    "HistogramCalibrator": (
        "venncal.calibration.histogram",
        ["binning_", "bin_edges_", "bin_counts_"],
        ["venncal.core.histogram:HistogramBinning", _COUNTS],
        ["aggregate_"],
    ),
    "BayesianBinningCalibrator": (
        "venncal.calibration.bayesian_binning",
        ["binning_", "log_score_"],
        ["venncal.core.bayesian_binning:BayesianBinning", _COUNTS],
        ["aggregate_"],
    ),
    "ACPCalibrator": (
        "venncal.calibration.acp",
        ["table_", "sigmoid_", "covariance_", "covariance_scaled_"],
        ["venncal.core.acp:ACPTable", "venncal.core.platt:PlattSigmoid", _COUNTS],
        ["aggregate_"],
    ),
    "BetaCalibrator": (
        "venncal.calibration.beta",
        ["map_", "a_", "b_", "c_", "m_", "n_iter_"],
        ["venncal.core.beta:BetaMap"],
        [],
    ),
    "ScalingBinningCalibrator": (
        "venncal.calibration.scaling_binning",
        ["sigmoid_", "binning_", "n_iter_"],
        ["venncal.core.platt:PlattSigmoid", "venncal.core.histogram:HistogramBinning"],
        [],
    ),
    "QuadraticCalibrator": (
        "venncal.calibration.quadratic",
        ["map_", "intercept_", "coef_", "form_", "n_iter_"],
        ["venncal.core.quadratic:QuadraticMap"],
        [],
    ),
    "TemperatureCalibrator": (
        "venncal.calibration.temperature",
        ["map_", "score_type_", "temperature_", "bias_", "n_iter_"],
        ["venncal.core.temperature:TemperatureMap"],
        [],
    ),
    "MulticlassVennAbersCalibrator": (
        "venncal.calibration.multiclass",
        ["tables_", "score_type_", "strategy_"],
        [
            "venncal.core.venn_abers:IVAPTables",
            "venncal.core.multiclass_venn_abers:OneVsRestTables",
            "venncal.core.multiclass_venn_abers:PairwiseTables",
            "venncal.core.multiclass_venn_abers:PooledOneVsRestTables",
            "venncal.core.multiclass_venn_abers:PooledPairwiseTables",
            "venncal.core.top_label:TopLabelTables",
        ],
        [],
    ),
    "MatrixScalingCalibrator": (
        "venncal.calibration.matrix_scaling",
        ["map_", "score_type_", "n_iter_"],
        ["venncal.core.matrix_scaling:MatrixScalingMap"],
        [],
    ),
    "DirichletCalibrator": (
        "venncal.calibration.dirichlet",
        ["map_", "score_type_", "n_iter_"],
        ["venncal.core.dirichlet:DirichletMap"],
        [],
    ),
    "VennAbersDistribution": (
        "venncal.calibration.regression",
        ["tables_", "labels_"],
        ["venncal.core.venn_abers_distribution:VADistributionTables"],
        [],
    ),
    "MulticalibrationCalibrator": (
        "venncal.calibration.multicalibration",
        [
            "tables_",
            "coding_",
            "trees_",
            "n_trees_",
            "categorical_",
            "numerical_",
            "pos_label_",
            "level_predictors_",
        ],
        [
            "venncal.core.venn_abers:IVAPTables",
            "venncal.core.multicalibration:SegmentCoding",
            "venncal.core.multicalibration:TreeEnsemble",
            "venncal.core.multicalibration:LevelPredictors",
        ],
        [],
    ),
    "AbstentionRule": (
        "venncal.calibration.abstention",
        ["threshold_", "coverage_", "error_bound_"],
        [],
        [],
    ),
    "CalibrationMonitor": (
        "venncal.shift._monitor",
        ["state_", "alternatives_"],
        ["venncal.core.betting:MonitorState"],
        [],
    ),
    "SegmentedCalibrationMonitor": (
        "venncal.shift._segmented_monitor",
        ["columns_", "levels_", "states_", "alarm_rows_", "n_seen_", "alternatives_"],
        ["venncal.core.betting:MonitorState"],
        [],
    ),
}


def _attribute(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def _register_builtin(name: str) -> None:
    module, fitted, types, data = _BUILTIN[name]
    try:
        cls = _attribute(f"{module}:{name}")
    except (ImportError, AttributeError):  # pragma: no cover - a partial installation
        return
    found: list[type] = []
    for path in types:
        try:
            found.append(_attribute(path))
        except (ImportError, AttributeError):  # pragma: no cover - e.g. no partial_fit yet
            continue
    register_model_class(cls, fitted=fitted, types=found, data=data)


def model_class(name: str) -> ModelClass | None:
    """The registered :class:`ModelClass` called ``name``, or None."""
    if name not in _REGISTRY and name in _BUILTIN:
        _register_builtin(name)
    return _REGISTRY.get(name)


def model_types(name: str) -> tuple[type, ...] | None:
    """The fitted-state types of the class called ``name``, without importing the class.

    For a built-in class only the modules of its types (``venncal.core``) are imported; None
    for an unknown name.
    """
    if name in _REGISTRY:
        return _REGISTRY[name].types
    if name not in _BUILTIN:
        return None
    found: list[type] = []
    for path in _BUILTIN[name][2]:
        try:
            found.append(_attribute(path))
        except (ImportError, AttributeError):  # pragma: no cover - e.g. no partial_fit yet
            continue
    return tuple(found)


def required_fitted(name: str) -> tuple[str, ...]:
    """The fitted attributes a model file of the built-in class ``name`` must hold.

    Examples
    --------
    >>> required_fitted("PlattCalibrator")[:3]
    ('classes_', 'n_features_in_', 'sigmoid_')
    >>> required_fitted("VennAbersDistribution")
    ('n_features_in_', 'tables_', 'labels_')
    """
    fitted = tuple(_BUILTIN[name][1]) if name in _BUILTIN else ()
    return tuple(dict.fromkeys(_common_fitted(name) + fitted))


def registered_names() -> list[str]:
    """Names of the registered classes, sorted."""
    return sorted(set(_REGISTRY) | set(_BUILTIN))
