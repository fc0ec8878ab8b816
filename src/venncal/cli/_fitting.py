"""Fitting a calibrator from a table on the command line (shared by ``fit`` and ``calibrate``)."""

from __future__ import annotations

import functools
import warnings
from importlib import import_module
from typing import TYPE_CHECKING, Any

import click
import numpy as np

from venncal.cli._columns import read_columns
from venncal.cli._io import InputError, labels_column, scores_column, weight_column
from venncal.cli._options import Bins
from venncal.cli._stream import SavedVennAbers
from venncal.exceptions import VenncalWarning

if TYPE_CHECKING:
    import os
    from collections.abc import Callable

    import numpy.typing as npt

    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = [
    "CALIBRATORS",
    "make_calibrator",
    "calibrator_options",
    "fit_calibrator_options",
    "read_calibration",
    "fit_calibrator",
    "ranked_below_warning",
]

# command-line name -> (public name in venncal, fixed parameters, what it is)
CALIBRATORS = {
    "venn-abers": ("VennAbersCalibrator", {}, "inductive Venn-Abers: p0, p1 and merged p"),
    "isotonic": ("IsotonicCalibrator", {}, "isotonic regression (PAVA)"),
    "platt": ("PlattCalibrator", {}, "Platt scaling (logistic on the score)"),
    "histogram": ("HistogramCalibrator", {}, "histogram binning"),
    "sbb": ("BayesianBinningCalibrator", {"method": "selection"}, "selection of Bayesian binnings"),
    "abb": ("BayesianBinningCalibrator", {"method": "averaging"}, "averaging of Bayesian binnings"),
    "acp": ("ACPCalibrator", {}, "adaptive calibration of predictions"),
    "beta": ("BetaCalibrator", {}, "beta calibration (scores are probabilities, in [0, 1])"),
    "beta-logit": (
        "BetaCalibrator",
        {"score_scale": "logit"},
        "beta calibration of log-odds or margins (any real score)",
    ),
    "quadratic": (
        "QuadraticCalibrator",
        {},
        "quadratic scaling of the log-odds (scores are probabilities, in [0, 1])",
    ),
    "quadratic-logit": (
        "QuadraticCalibrator",
        {"score_scale": "logit"},
        "quadratic scaling of log-odds or margins (any real score)",
    ),
    "scaling-binning": (
        "ScalingBinningCalibrator",
        {},
        "Platt scaling, then equal-mass bins of its values (Kumar et al. 2019)",
    ),
    "temperature": (
        "TemperatureCalibrator",
        {},
        "temperature scaling of the log-odds (scores all in [0, 1] are read as probabilities), "
        "or of K-class scores",
    ),
    "matrix-scaling": (
        "MatrixScalingCalibrator",
        {},
        "K-class structured matrix scaling (Berta et al. 2026)",
    ),
    "vector-scaling": (
        "MatrixScalingCalibrator",
        {"structure": "svs"},
        "K-class structured vector scaling (a diagonal matrix)",
    ),
    "dirichlet": ("DirichletCalibrator", {}, "K-class Dirichlet calibration"),
    "multiclass-venn-abers": (
        "MulticlassVennAbersCalibrator",
        {},
        "K-class Venn-Abers: per-class intervals coupled into probabilities",
    ),
}


class CoreVennAbers(SavedVennAbers):
    """Inductive Venn-Abers fitted with :func:`venncal.core.venn_abers.ivap_fit` alone.

    For ``venncal calibrate`` without weights: the same tables as
    :class:`~venncal.VennAbersCalibrator` fitted on the same rows (tested), without importing
    scikit-learn, which would take longer than the fit itself.
    """

    def __init__(self, merge):
        super().__init__(None, merge)

    def fit(self, scores, y01, sample_weight=None):
        """Fit the tables to clean scores and 0/1 labels (unweighted only)."""
        from venncal.core.venn_abers import ivap_fit

        if sample_weight is not None:
            raise TypeError("CoreVennAbers fits unweighted rows only.")
        self.tables_ = ivap_fit(scores, y01)
        return self


def make_calibrator(
    method: str,
    *,
    merge: str | None = None,
    n_bins: int | None = None,
    strategy: str | None = None,
    unweighted: bool = False,
    k_class: bool = False,
) -> Any:
    """Build the calibrator named ``method`` with the options that apply to it.

    ``unweighted=True`` (calibration rows without weights, fitted and applied at once) gives
    Venn-Abers as a :class:`CoreVennAbers`. ``k_class``: the scores are K columns (a K-class
    method is refused without them).
    """
    from venncal.cli._kclass import K_CALIBRATORS, K_ONLY

    if method in K_ONLY and not k_class:
        raise InputError(
            f"--method {method} calibrates K-class scores: give --score a comma-separated list "
            "of the K score columns (one per class)."
        )
    if k_class and method not in K_CALIBRATORS:
        raise InputError(
            f"--method {method} takes one column of binary scores; for K score columns choose "
            f"one of {', '.join(K_CALIBRATORS)}."
        )
    public, fixed, _ = CALIBRATORS[method]
    params: dict[str, Any] = dict(fixed)
    if merge is not None:
        if method != "venn-abers":
            raise InputError(f"--merge applies to --method venn-abers only, not {method!r}.")
        params["merge"] = merge
    for option, value, key in (
        ("--n-bins", n_bins, "n_bins"),
        ("--strategy", strategy, "strategy"),
    ):
        if value is not None:
            if method != "histogram" and not (key == "n_bins" and method == "scaling-binning"):
                allowed = "histogram and scaling-binning" if key == "n_bins" else "histogram"
                raise InputError(f"{option} applies to --method {allowed} only, not {method!r}.")
            params[key] = value
    if unweighted and method == "venn-abers":
        return CoreVennAbers(params.get("merge", "log"))
    try:
        cls = getattr(import_module("venncal"), public)
    except (AttributeError, ImportError):
        raise InputError(
            f"the calibrator {method!r} ({public}) is not available in this venncal "
            "installation; choose another --method."
        ) from None
    return cls(**params)


def _method_help(methods: dict[str, tuple[str, dict[str, Any], str]]) -> str:
    return "Calibrator: " + "; ".join(f"{k} = {v[2]}" for k, v in methods.items()) + "."


def calibrator_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options that choose and set up the calibrator: --method, --merge, --n-bins, ..."""
    return _with_calibrator_options(command, regression=False)


def fit_calibrator_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`calibrator_options` whose --method also takes the regression methods
    (``venncal fit``)."""
    return _with_calibrator_options(command, regression=True)


def _with_calibrator_options(
    command: Callable[..., Any], *, regression: bool
) -> Callable[..., Any]:
    methods = dict(CALIBRATORS)
    if regression:
        from venncal.cli._regression import REGRESSION_METHODS
        from venncal.cli._segments import SEGMENT_METHODS

        methods.update(SEGMENT_METHODS)
        methods.update(REGRESSION_METHODS)
    merge_help = "venn-abers: how p0 and p1 are merged into p [default: log]."
    if regression:
        merge_help = (
            "venn-abers, multicalibration: how p0 and p1 are merged into p [default: log]; "
            "venn-abers-distribution: how the CDF pair is merged [default: mean]."
        )
    options = [
        click.option(
            "--positive",
            default=None,
            help="The label value of the positive class, the one larger scores point to "
            "[default: the larger label, e.g. 1]. A warning says when the scores rank it below "
            "the other label (AUC below 0.5).",
        ),
        click.option(
            "--method",
            type=click.Choice(list(methods)),
            default="venn-abers",
            show_default=True,
            help=_method_help(methods),
        ),
        click.option(
            "--merge",
            type=click.Choice(["log", "square", "mean"]),
            default=None,
            help=merge_help,
        ),
        click.option(
            "--n-bins",
            type=Bins(),
            default=None,
            help="histogram, scaling-binning: bins.",
        ),
        click.option(
            "--strategy",
            type=click.Choice(["uniform", "quantile"]),
            default=None,
            help="histogram: equal-width or equal-mass bins.",
        ),
        click.option(
            "--weight", "weight_col", default=None, help="Column of sample weights in CAL_FILE."
        ),
    ]

    @functools.wraps(command)
    def wrapped(*args, **kwargs):
        return command(*args, **kwargs)

    for option in reversed(options):
        wrapped = option(wrapped)
    return wrapped


def read_calibration(
    path: str | os.PathLike[str],
    score: str,
    label: str,
    weight: str | None = None,
    positive: str | None = None,
    what: str = "CAL_FILE",
    sep: str | None = None,
) -> tuple[FloatArray, npt.NDArray[np.int8], FloatArray | None]:
    """Scores, 0/1 labels and weights (or None) of a calibration table, checked; ``sep``: the
    field separator of a CSV file (None: by its suffix)."""
    columns = list(dict.fromkeys([score, label] + ([weight] if weight else [])))
    numbers = [(score, "--score")] + ([(weight, "--weight")] if weight else [])
    frame = read_columns(path, columns, what, numbers, sep)
    s = scores_column(frame, score, path)
    y = labels_column(frame, label, path, positive=positive)
    w = weight_column(frame, weight, path)
    warn_if_ranked_below(frame[label], y, s, w, column=score, positive=positive)
    return s, y, w


def warn_if_ranked_below(
    labels: ArrayLike,
    y01: npt.NDArray[np.int8],
    scores: ArrayLike,
    weights: FloatArray | None,
    *,
    column: str,
    positive: str | None,
) -> None:
    """One line on stderr when the scores rank the positive class below the other (AUC < 0.5),
    naming both labels as the file holds them: the scores may be of the other class."""
    from venncal._validation import ranking_auc

    if y01.min() == y01.max():
        return
    auc = ranking_auc(np.asarray(scores, dtype=np.float64), y01, weights)
    if auc >= 0.5:
        return
    text = np.asarray(labels).astype(str)
    pos = str(text[np.flatnonzero(y01 == 1)[0]])
    neg = str(text[np.flatnonzero(y01 == 0)[0]])
    ranked_below_warning(pos, neg, auc, column=column, positive=positive)


def ranked_below_warning(
    pos: str, neg: str, auc: float, *, column: str, positive: str | None
) -> None:
    """The line of :func:`warn_if_ranked_below` for the positive label ``pos``, the other
    ``neg`` and their AUC."""
    how = "--positive" if positive is not None else "the larger label, by default"
    click.echo(
        f"warning: the scores in {column!r} rank the positive class {pos!r} ({how}) below "
        f"{neg!r} (AUC {auc:.3f}): larger scores must mean the positive class; if they are "
        f"scores of {neg!r}, pass --positive {neg}.",
        err=True,
    )


def fit_calibrator(
    calibrator: Any,
    scores: FloatArray,
    y01: AnyArray,
    weights: FloatArray | None,
    *,
    method: str,
    source: str | os.PathLike[str],
) -> Any:
    """Fit ``calibrator`` (in this process) to scores and labels ``y01`` (0/1, class
    indices, or a regression's real labels); a failure is one line naming the data."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            # said once, with the file's label names, by read_calibration
            warnings.filterwarnings(
                "ignore", message="the scores rank the positive class", category=VenncalWarning
            )
            return calibrator.fit(scores, y01, sample_weight=weights)
    except (ValueError, ArithmeticError) as exc:
        text = str(exc) or type(exc).__name__
        raise InputError(f"cannot fit {method} on {str(source)!r}: {text}") from None
