"""What a fitted calibrator computes, as a short list of stages the exports translate.

A :class:`Plan` is read from the same fitted ``venncal.core`` objects the calibrator predicts
with (through :mod:`venncal.persistence._predictor`, whose predictors call them): its step
tables, points and coefficients, nothing refitted or recomputed. Each stage is one of a few
kinds whose prediction rule is written down here once, for both exports:

* :class:`Step`: ``values[k]`` with ``k`` the number of breakpoints ``<= x`` (``right``) or
  ``< x``, i.e. ``values[np.searchsorted(breaks, x, side)]`` (Venn-Abers, histogram
  binning);
* :class:`Nearest`: the value at the nearest point, the lower one on a tie (Bayesian
  binning, isotonic with ``rule="nearest"``);
* :class:`Interpolate`: the monotone interpolation of
  :func:`venncal.core.isotonic.interpolate_monotone` (isotonic);
* :class:`Sigmoid`, :class:`Beta`, :class:`Quadratic`, :class:`Temperature`: arithmetic on
  the score (Platt, beta, quadratic and temperature scaling).

Scores are first read as the calibrator reads them: NaN has no value, infinities are read as
the largest finite score of their sign, scores outside [0, 1] have no value for a map of
probabilities (the calibrator refuses them), and scores are rounded to ``decimals`` when the
calibrator rounds them.

A K-class calibrator (temperature scaling of a score matrix, matrix scaling, Dirichlet
calibration) maps a row of K scores to K probabilities: the row is read as class
log-scores (:class:`ClassInput`), then the stages :class:`Floor`, :class:`Scale`,
:class:`SmoothedLogSoftmax`, :class:`StandardisedLogits` and :class:`Affine` act on the row,
and a softmax ends every K-class plan. A row with a score that is not finite, or (for a map
of probabilities) outside [0, 1] or not summing to one, has no value.

One-vs-rest multiclass Venn-Abers (:class:`VennAbersClasses`) reads the row the same way,
then looks up the (p0, p1) step tables of each class at the class's key (the score itself,
or for logits ``S_k - logsumexp(S)``), merges each pair and divides by the row's sum.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "Plan",
    "Step",
    "Nearest",
    "Interpolate",
    "Sigmoid",
    "Beta",
    "Quadratic",
    "Temperature",
    "ClassInput",
    "Floor",
    "Scale",
    "SmoothedLogSoftmax",
    "StandardisedLogits",
    "Affine",
    "VennAbersClasses",
    "plan_of",
    "EXPORTABLE",
]

#: the largest finite float64; infinite scores are read as it (with their sign)
BIG = float(np.finfo(np.float64).max)
#: machine epsilon: probabilities are clipped to [EPS, 1 - EPS] before their logarithms
EPS = float(np.finfo(np.float64).eps)

#: the calibrators the exports cover
EXPORTABLE = (
    "VennAbersCalibrator",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "HistogramCalibrator",
    "BayesianBinningCalibrator",
    "BetaCalibrator",
    "QuadraticCalibrator",
    "ScalingBinningCalibrator",
    "TemperatureCalibrator",
    "MatrixScalingCalibrator",
    "DirichletCalibrator",
    "MulticlassVennAbersCalibrator",
)

# why the other calibrators of the library cannot be exported
_WHY_NOT = {
    "ACPCalibrator": "its intervals refit the calibrator for every test score",
}

#: what of multiclass Venn-Abers is exported, for the refusals of the rest
MULTICLASS_VENN_ABERS_EXPORTABLE = (
    "exportable: strategy='ovr' (pooled or not, every merge) on probabilities or raw scores"
)


@dataclass(frozen=True)
class Step:
    """``values[number of breaks <= x]`` (``right``) or ``[number of breaks < x]``."""

    breaks: np.ndarray
    values: np.ndarray
    right: bool


@dataclass(frozen=True)
class Nearest:
    """The value ``y`` at the point of ``x`` nearest to the score; the lower point on a tie."""

    x: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class Interpolate:
    """Monotone linear interpolation of ``(x, y)``, constant beyond the ends."""

    x: np.ndarray
    y: np.ndarray

    def segments(self) -> tuple[np.ndarray, ...]:
        """``(hv, xa, g, yl, dy, yh)``, each of length ``K + 1`` for the ``K`` points: for a
        score ``x`` with ``k`` points ``<= x``, ``lam = (hv[k] x - xa[k]) / g[k]`` clipped to
        [0, 1] and ``v = yl[k] + lam dy[k]`` clipped to ``[yl[k], yh[k]]`` is the value.

        Below the first point and from the last on (``k = 0, K``) the value is constant
        (``hv = xa = dy = 0``); a gap between points too wide for float64 is halved, which is
        exact at that magnitude.
        """
        xs, ys = self.x, self.y
        K = xs.shape[0]
        hv, xa, g = np.zeros(K + 1), np.zeros(K + 1), np.ones(K + 1)
        yl, dy, yh = np.empty(K + 1), np.zeros(K + 1), np.empty(K + 1)
        yl[0] = yh[0] = ys[0]
        yl[K] = yh[K] = ys[K - 1]
        with np.errstate(over="ignore"):
            for i in range(1, K):
                gap = xs[i] - xs[i - 1]
                if np.isinf(gap):
                    hv[i], xa[i], g[i] = 0.5, 0.5 * xs[i - 1], 0.5 * xs[i] - 0.5 * xs[i - 1]
                else:
                    hv[i], xa[i], g[i] = 1.0, xs[i - 1], gap
                yl[i], dy[i], yh[i] = ys[i - 1], ys[i] - ys[i - 1], ys[i]
        return hv, xa, g, yl, dy, yh


@dataclass(frozen=True)
class Sigmoid:
    """``expit(-(a u + b))``, ``u = (x - center) / scale`` if ``standardise`` else ``x``."""

    a: float
    b: float
    center: float
    scale: float
    standardise: bool


@dataclass(frozen=True)
class Beta:
    """``expit(a ln s - b ln(1 - s) + c)``; ``logit``: the score is ``logit(s)``."""

    a: float
    b: float
    c: float
    logit: bool


@dataclass(frozen=True)
class Quadratic:
    """``expit(c0 + u (c1 + c2 u))``, ``u`` the standardised log-odds clipped to ``[lo, hi]``."""

    c0: float
    c1: float
    c2: float
    center: float
    scale: float
    lo: float
    hi: float
    logit: bool


@dataclass(frozen=True)
class Temperature:
    """``softmax(beta X + bias)[1]`` of the standardised logits ``X`` of ``[0, z]``."""

    beta: float
    bias0: float
    bias1: float
    scale: float
    logit: bool


@dataclass(frozen=True)
class ClassInput:
    """How a K-class calibrator reads a row ``S`` of K scores as class log-scores ``t``.

    ``score_type`` ``"probabilities"``: ``t = max(ln S, LOG_TINY)``, the row having no value
    unless every entry is in [0, 1] and (``sum_tolerance`` not None) the row sums to one
    within ``sum_tolerance``; ``"logits"``: ``t = S - logsumexp(S)`` if ``log_softmax``, else
    ``S``; ``"raw"``: ``t = S``.
    """

    n_classes: int
    score_type: str
    log_softmax: bool
    log_tiny: float
    sum_tolerance: float | None


@dataclass(frozen=True)
class Floor:
    """``max(t_k, value)`` for every class."""

    value: float


@dataclass(frozen=True)
class Scale:
    """``factor t_k`` for every class."""

    factor: float


@dataclass(frozen=True)
class SmoothedLogSoftmax:
    """``ln((1 - c) softmax(t)_k + c / K)``; for ``c = 0``, ``max(ln max(softmax(t)_k, tiny),
    floor)`` (``tiny`` the smallest normal float64)."""

    c: float
    floor: float


@dataclass(frozen=True)
class StandardisedLogits:
    """``beta max((0.5 t_k - 0.5 max_j t_j) / scale, -1e300)``; 0 when ``beta <= 0``."""

    scale: float
    beta: float


@dataclass(frozen=True)
class Affine:
    """``u_k = [t_k +] sum_l weights[k, l] t_l + bias[k]`` (``t_k`` added when ``identity``;
    no sum when ``weights`` is None)."""

    weights: np.ndarray | None
    bias: np.ndarray
    identity: bool


@dataclass(frozen=True)
class VennAbersClasses:
    """One-vs-rest multiclass Venn-Abers: per class ``k`` the step tables ``(p0, p1)`` of
    ``tables[k]`` (one shared pair when ``pooled``) at the key of column ``k``, merged by
    ``merge`` and divided by the row's sum (numpy's order of summation). The key of class
    ``k`` is its score ``S_k`` (probabilities and raw scores; logits are refused).
    """

    tables: tuple[tuple[Step, Step], ...]
    pooled: bool
    merge: str


@dataclass(frozen=True)
class Plan:
    """What an export computes.

    Attributes
    ----------
    name : str
        The calibrator's class name.
    stages : tuple
        Stages applied in turn to the score (the output ``p``); empty for Venn-Abers.
    decimals : int or None
        Scores are rounded to this many decimals first.
    unit : bool
        The calibrator reads scores as probabilities and refuses those outside [0, 1].
    venn_abers : tuple of (Step, Step, str) or None
        The p0 and p1 tables and the merge of a Venn-Abers calibrator.
    classes : ClassInput or None
        For a K-class calibrator: how a row of K scores is read; its ``stages`` act on rows
        and a softmax follows them.
    venn_abers_classes : VennAbersClasses or None
        For one-vs-rest multiclass Venn-Abers (with ``classes``; no ``stages``).
    """

    name: str
    stages: tuple[Any, ...] = ()
    decimals: int | None = None
    unit: bool = False
    venn_abers: tuple[Any, ...] | None = None
    classes: ClassInput | None = None
    venn_abers_classes: VennAbersClasses | None = None


def _refuse(name: str, why: str) -> ValueError:
    return ValueError(f"{name} cannot be exported to SQL or ONNX: {why}.")


def _predictor(calibrator: Any) -> Any:
    """The scikit-learn-free predictor of a calibrator, or a :class:`Plan` source."""
    from venncal.persistence._predictor import (
        PREDICTORS,
        LoadedCalibrator,
        SavedPredictor,
        SavedVennAbers,
    )

    if type(calibrator) is LoadedCalibrator:
        d = object.__getattribute__(calibrator, "__dict__")
        if "_saved_predictor" in d:
            calibrator = d["_saved_predictor"]
    if isinstance(calibrator, SavedPredictor):
        name = calibrator.model_name
        if name in _WHY_NOT:  # a K-class or ACP model loaded without scikit-learn
            raise _refuse(name, _WHY_NOT[name])
        if getattr(calibrator, "groups_", None) is not None:
            raise _refuse(name, "it was fitted within groups; its map depends on a group column")
        return calibrator
    name = type(calibrator).__name__
    module = type(calibrator).__module__ or ""
    if not module.startswith("venncal."):
        raise TypeError(
            f"to_sql and to_onnx export fitted venncal score calibrators; got a "
            f"{name} object. Exportable: {', '.join(EXPORTABLE)}."
        )
    if module.startswith("venncal.classifiers"):
        raise _refuse(
            name,
            "it wraps a classifier of features; export the score calibrator it fitted "
            "(fit one of " + ", ".join(EXPORTABLE[:3]) + ", ... on the classifier's scores)",
        )
    if name in _WHY_NOT:
        raise _refuse(name, _WHY_NOT[name])
    if name not in EXPORTABLE:
        raise _refuse(name, "it is not one of " + ", ".join(EXPORTABLE))
    if not hasattr(calibrator, "classes_"):
        raise _refuse(name, "it is not fitted; call fit first")
    if getattr(calibrator, "groups_", None) is not None:
        raise _refuse(name, "it was fitted within groups; its map depends on a group column")
    if name in (
        "TemperatureCalibrator",
        "MatrixScalingCalibrator",
        "DirichletCalibrator",
        "MulticlassVennAbersCalibrator",
    ):
        return calibrator
    cls = PREDICTORS[name]
    params = calibrator.get_params()
    fitted = {k: v for k, v in vars(calibrator).items() if k.endswith("_")}
    if not cls.accepts(params, fitted):
        raise _refuse(name, "its fitted state is not one of a single score map")
    if cls is SavedVennAbers:
        return SavedVennAbers(
            fitted["tables_"], params["merge"], fitted.get("decimals_"), fitted["classes_"]
        )
    return cls(params, fitted)


def _f(x: Any) -> float:
    return float(x)


def _arr(x: Any) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def plan_of(calibrator: object) -> Plan:
    """The :class:`Plan` of a fitted score calibrator (binary or K-class), or a clear refusal.

    Parameters
    ----------
    calibrator : object
        A fitted calibrator of :data:`EXPORTABLE`, what :func:`venncal.load` returns for one,
        or its :class:`~venncal.persistence._predictor.SavedPredictor`.

    Returns
    -------
    Plan

    Raises
    ------
    TypeError
        Not a venncal calibrator.
    ValueError
        A calibrator the exports do not cover (unfitted, multiclass Venn-Abers other than
        one-vs-rest, ACP, fitted within groups, a classifier wrapper), with the reason.

    Examples
    --------
    >>> from venncal.calibration import HistogramCalibrator
    >>> plan = plan_of(HistogramCalibrator(n_bins=2).fit([0.1, 0.2, 0.7, 0.9], [0, 0, 1, 1]))
    >>> plan.stages[0].breaks, plan.stages[0].values
    (array([0.5]), array([0., 1.]))
    """
    pred = _predictor(calibrator)
    name = getattr(pred, "model_name", None) or type(pred).__name__
    if name == "TemperatureCalibrator":
        if getattr(pred, "n_features_in_", None) != 1:
            return _class_plan(name, pred)
        return _temperature_plan(pred)
    if name in ("MatrixScalingCalibrator", "DirichletCalibrator"):
        return _class_plan(name, pred)
    if name == "MulticlassVennAbersCalibrator":
        return _venn_abers_class_plan(name, pred)
    decimals = getattr(pred, "decimals_", None)
    if name == "VennAbersCalibrator":
        t = pred.tables_
        s0 = Step(_arr(t.breaks0), _arr(t.values0), True)
        s1 = Step(_arr(t.breaks1), _arr(t.values1), False)
        return Plan(name, decimals=decimals, venn_abers=(s0, s1, pred.merge))
    fitted = pred.fitted_
    if name == "IsotonicCalibrator":
        step = fitted["step_function_"]
        kind = Interpolate if pred.params_["rule"] == "interpolate" else Nearest
        return Plan(name, (kind(_arr(step.x), _arr(step.y)),), decimals)
    if name == "HistogramCalibrator":
        return Plan(name, (_histogram_step(fitted["binning_"]),), decimals)
    if name == "BayesianBinningCalibrator":
        b = fitted["binning_"]
        return Plan(name, (Nearest(_arr(b.positions), _arr(b.values)),), decimals)
    if name == "PlattCalibrator":
        return Plan(name, (_sigmoid(fitted["sigmoid_"]),))
    if name == "ScalingBinningCalibrator":
        stages = (_sigmoid(fitted["sigmoid_"]), _histogram_step(fitted["binning_"]))
        return Plan(name, stages)
    if name == "BetaCalibrator":
        m = fitted["map_"]
        logit = m.score_scale == "logit"
        return Plan(name, (Beta(_f(m.a), _f(m.b), _f(m.c), logit),), unit=not logit)
    if name == "QuadraticCalibrator":
        from venncal.core.quadratic import _U_BOUND

        m = fitted["map_"]
        logit = m.score_scale == "logit"
        lo, hi = max(m.lower, -_U_BOUND), min(m.upper, _U_BOUND)
        q = Quadratic(
            _f(m.c0), _f(m.c1), _f(m.c2), _f(m.center), _f(m.scale), _f(lo), _f(hi), logit
        )
        return Plan(name, (q,), unit=not logit)
    raise _refuse(name, "it is not one of " + ", ".join(EXPORTABLE))  # pragma: no cover


def _histogram_step(binning: Any) -> Step:
    return Step(_arr(binning.edges[1:-1]), _arr(binning.values), True)


def _sigmoid(sig: Any) -> Sigmoid:
    if sig.a_scaled is None:
        return Sigmoid(_f(sig.a), _f(sig.b), 0.0, 1.0, False)
    return Sigmoid(_f(sig.a_scaled), _f(sig.b_scaled), _f(sig.center), _f(sig.scale), True)


def _temperature_plan(cal: Any) -> Plan:
    m = cal.map_
    bias = np.asarray(m.bias, dtype=np.float64).ravel()
    logit = cal.score_type_ != "probabilities"
    t = Temperature(_f(m.beta), _f(bias[0]), _f(bias[1]), _f(m.scale), logit)
    return Plan("TemperatureCalibrator", (t,), unit=not logit)


def _class_plan(name: str, cal: Any) -> Plan:
    """The plan of a K-class calibrator, from its fitted map (``map_``) and score type."""
    from venncal.core import class_scores
    from venncal.core.matrix_scaling import LOG_FLOOR

    m = cal.map_ if hasattr(cal, "map_") else cal.fitted_["map_"]  # estimator or model file
    K = int(cal.n_features_in_)
    score_type = cal.score_type_
    # rows of probabilities must sum to one within this much where the calibrators check it
    per_class = getattr(class_scores, "SUM_TOLERANCE_PER_CLASS", None)
    tolerance = None if per_class is None else per_class * K
    log_tiny = float(np.log(np.finfo(np.float64).tiny))
    read = ClassInput(K, score_type, name != "TemperatureCalibrator", log_tiny, tolerance)
    stages: list[object] = []
    if name == "TemperatureCalibrator":
        floor = _f(getattr(m, "log_floor", -np.inf))
        if floor > -np.inf:
            stages.append(Floor(floor))
        stages.append(StandardisedLogits(_f(m.scale), _f(m.beta)))
        stages.append(Affine(None, _arr(np.ravel(m.bias)), False))
    elif name == "MatrixScalingCalibrator":
        stages.append(Floor(_f(getattr(m, "log_floor", LOG_FLOOR))))
        stages.append(Scale(_f(m.inverse_temperature)))
        stages.append(SmoothedLogSoftmax(_f(m.smoothing), LOG_FLOOR))
        stages.append(Affine(_arr(m.delta), _arr(m.bias), True))
    else:
        stages.append(Floor(_f(getattr(m, "log_floor", LOG_FLOOR))))
        stages.append(Affine(_arr(m.weights), _arr(m.bias), False))
    return Plan(name, tuple(stages), classes=read)


def _class_input(cal: Any, score_type: str, log_softmax: bool) -> ClassInput:
    from venncal.core import class_scores

    K = int(cal.n_features_in_)
    # rows of probabilities must sum to one within this much where the calibrators check it
    per_class = getattr(class_scores, "SUM_TOLERANCE_PER_CLASS", None)
    tolerance = None if per_class is None else per_class * K
    log_tiny = float(np.log(np.finfo(np.float64).tiny))
    return ClassInput(K, score_type, log_softmax, log_tiny, tolerance)


def _venn_abers_class_plan(name: str, cal: Any) -> Plan:
    """The plan of a one-vs-rest multiclass Venn-Abers calibrator; a one-line refusal of the
    other strategies (their coupling solves a linear system per row, or is not exported)."""
    from venncal.core.multiclass_venn_abers import (
        PAIRWISE_MAX_CLASSES,
        OneVsRestTables,
        PooledOneVsRestTables,
        _fitted_on_log_probabilities,
    )

    params: dict[str, Any] = getattr(cal, "params_", None) or {}
    asked = str(params.get("strategy", getattr(cal, "strategy", "")))
    coupling = str(params.get("coupling", getattr(cal, "coupling", "")))
    merge = str(params.get("merge", getattr(cal, "merge", "")))
    strategy = cal.strategy_
    K = int(cal.n_features_in_)
    tables = cal.tables_
    if strategy != "ovr":
        if strategy == "pairwise":
            how = {
                "wu2": "by solving a (K + 1) x (K + 1) linear system per row (coupling='wu2')",
                "wu1": "by solving a K x K linear system per row (coupling='wu1')",
            }.get(coupling, f"by coupling={coupling!r}, which is not exported yet")
            why = f"strategy='pairwise' couples its K(K - 1)/2 pairwise probabilities {how}"
        else:
            why = f"strategy={strategy!r} is not exported yet"
        if asked == "auto":
            why = (
                f"strategy='auto' resolved to {strategy!r} for its {K} classes (pairwise up to "
                f"{PAIRWISE_MAX_CLASSES} classes, one-vs-rest beyond), and {why}"
            )
        raise _refuse(name, f"{why}; {MULTICLASS_VENN_ABERS_EXPORTABLE}")
    score_type = cal.score_type_
    if score_type == "probabilities" and _fitted_on_log_probabilities(tables):
        raise _refuse(
            name,
            "its one-vs-rest tables rank the logarithms of probabilities (a model file of an "
            "older version); refit it to export",
        )

    def steps(t: Any) -> tuple[Step, Step]:
        s0 = Step(_arr(t.breaks0), _arr(t.values0), True)
        return s0, Step(_arr(t.breaks1), _arr(t.values1), False)

    pairs: tuple[tuple[Step, Step], ...]
    if isinstance(tables, PooledOneVsRestTables):
        pairs, pooled = (steps(tables.table),), True
    elif isinstance(tables, OneVsRestTables) and len(tables.tables) == K:
        pairs, pooled = tuple(steps(t) for t in tables.tables), False
    else:  # pragma: no cover - a loaded model's tables are checked against its strategy
        raise _refuse(name, "its fitted state is not one of one-vs-rest tables")
    if score_type == "logits":
        # the key log_softmax(S)_k goes through the engine's exp and log, which differ from
        # numpy's by an ulp on some values: a row on a calibration key then takes the next step
        raise _refuse(
            name,
            "on logits its class keys (log-softmax) go through the engine's exp and log, which "
            "can differ from numpy's by an ulp and move a row at a calibration score to the "
            "neighbouring step (off by about 1/n); fit it on the softmax probabilities "
            "(score_type='probabilities') to export it exactly; "
            + MULTICLASS_VENN_ABERS_EXPORTABLE,
        )
    read = _class_input(cal, score_type, False)
    va = VennAbersClasses(pairs, pooled, merge)
    return Plan(name, classes=read, venn_abers_classes=va)
