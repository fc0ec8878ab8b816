"""Structured matrix scaling of a K-class score matrix as a calibrator."""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal._validation import check_option
from venncal.calibration._docs import fill_calibration_doc
from venncal.calibration._linear_softmax import LinearSoftmaxCalibrator, check_nonnegative
from venncal.core.matrix_scaling import (
    STRUCTURES,
    fit_matrix_scaling,
    fit_matrix_scaling_passes,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from venncal._typing import FloatArray, IntArray
    from venncal.core.matrix_scaling import LinearSoftmaxFit, MatrixScalingMap

__all__ = ["MatrixScalingCalibrator"]


@fill_calibration_doc
class MatrixScalingCalibrator(LinearSoftmaxCalibrator):
    """Matrix scaling with structured regularisation (Berta, Holzmueller, Jordan & Bach 2026).

    The per-class log-probabilities ``t`` of an object are temperature-scaled (one inverse
    temperature ``a`` fitted without penalty) and smoothed towards the uniform distribution,
    ``x = log((1 - c) softmax(a t) + c / K)`` with ``c = 1 / (n + 1)`` (the paper's robust
    preprocessing: no feature below ``log(c / K)``, even for probabilities of zero), and then
    mapped to ``softmax((I + D) x + b)``; ``D`` and ``b`` minimise the weighted mean log loss
    plus ridge penalties that pull the map towards temperature scaling:
    ``lambda_intercept K / n ||b||^2 + lambda_diagonal K / n ||diag(D)||^2
    + lambda_off_diagonal K (K - 1) / n ||offdiag(D)||^2``, with ``n`` the total weight of the
    calibration examples. Each group's penalty grows with its number of parameters and shrinks
    as ``1 / n``, so that the map stays close to temperature scaling with few examples or many
    classes and becomes a full linear map with many examples
    (:mod:`venncal.core.matrix_scaling`).

    Parameters
    ----------
    structure : {"sms", "svs", "full", "vector"}, default="sms"
        ``"sms"``: structured matrix scaling (``D`` full, all three penalties). ``"svs"``:
        structured vector scaling (``D`` diagonal, penalties on ``b`` and ``diag(D)``).
        ``"full"``: ``D`` full without penalty (close to, not equal to, Guo et al.'s (2017)
        matrix scaling, which maps the logits themselves; here the temperature-scaled,
        smoothed log-probabilities are mapped). ``"vector"``: a scale and a bias per class
        without penalty (likewise close to vector scaling). The paper
        found ``"sms"`` best across tabular and image benchmarks; the unpenalised structures
        overfit with few examples per parameter and have no finite optimum when the scores
        separate the classes (a warning is then given).
    lambda_intercept, lambda_diagonal, lambda_off_diagonal : float, default=1.0
        The penalty weights of the intercepts, of the diagonal and of the off-diagonal entries
        of ``D`` (``"sms"``; ``"svs"`` uses the first two; ``"full"`` and ``"vector"`` none).
    score_type : {"auto", "logits", "probabilities", "raw"}, default="auto"
        What the columns are, as for
        :class:`~venncal.calibration.MulticlassVennAbersCalibrator`: logits (turned into
        log-softmax), probabilities (logarithms taken), or ``"raw"`` (used as they are).
        ``"auto"`` as there. Probabilities are read as ``log max(p, floor)``, the floor
        fitted on the calibration data (:func:`venncal.core.class_scores.probability_floor`:
        how often the model's exact zeros come true, or its smallest calibration probability
        when it gives none); every log-probability is floored at the logarithm of the
        smallest normal float32 (about -87.3) too, before temperature scaling. The map keeps
        the floor (``map_.log_floor``).
    {max_iter, tol}

    Attributes
    ----------
    {classes_, score_type_}
    map_ : MatrixScalingMap
        The fitted map: ``inverse_temperature``, ``delta`` (``D``) and ``bias`` (``b``).
    {n_iter_, n_features_in_}

    References
    ----------
    .. [1] E. Berta, D. Holzmueller, M. I. Jordan and F. Bach, "Structured matrix scaling for
       multi-class calibration", AISTATS 2026 (arXiv:2511.03685).
    .. [2] C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On calibration of modern neural
       networks", ICML 2017.

    Examples
    --------
    Scores whose class 0 is three times too likely and whose logits are twice too sharp get
    the log loss of the true probabilities back:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(6000, 3))
    >>> p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    >>> y = (rng.random((6000, 1)) > p.cumsum(axis=1)).sum(axis=1)
    >>> scores = 2 * z + np.log([3.0, 1.0, 1.0])
    >>> cal = MatrixScalingCalibrator().fit(scores[:4000], y[:4000])
    >>> proba = cal.predict_proba(scores[4000:])
    >>> def log_loss(q):
    ...     return float(-np.log(q[np.arange(2000), y[4000:]]).mean())
    >>> q = np.exp(scores[4000:]) / np.exp(scores[4000:]).sum(axis=1, keepdims=True)
    >>> round(log_loss(q), 3), round(log_loss(proba), 3), round(log_loss(p[4000:]), 3)
    (1.048, 0.87, 0.87)
    """

    map_: MatrixScalingMap

    def __init__(
        self,
        *,
        structure: str = "sms",
        lambda_intercept: float = 1.0,
        lambda_diagonal: float = 1.0,
        lambda_off_diagonal: float = 1.0,
        score_type: str = "auto",
        max_iter: int = 1000,
        tol: float = 1e-10,
    ) -> None:
        self.structure = structure
        self.lambda_intercept = lambda_intercept
        self.lambda_diagonal = lambda_diagonal
        self.lambda_off_diagonal = lambda_off_diagonal
        self.score_type = score_type
        self.max_iter = max_iter
        self.tol = tol

    def _fits_full_matrix(self) -> bool:
        return self.structure in ("sms", "full")

    def _check_params(self, owner: str) -> tuple[float, ...]:
        check_option(self.structure, STRUCTURES, name="structure", owner=owner)
        return tuple(
            check_nonnegative(getattr(self, name), name=name, owner=owner)
            for name in ("lambda_intercept", "lambda_diagonal", "lambda_off_diagonal")
        )

    def _fit_map(
        self,
        t: FloatArray,
        y: IntArray,
        w: FloatArray | None,
        lambdas: tuple[float, ...],
        log_floor: float,
    ) -> tuple[MatrixScalingMap, LinearSoftmaxFit]:
        return fit_matrix_scaling(
            t,
            y,
            w,
            structure=self.structure,
            lambdas=lambdas,
            max_iter=self.max_iter,
            tol=self.tol,
            log_floor=log_floor,
        )

    def _fit_map_passes(
        self,
        run: Callable[..., list[Any]],
        K: int,
        lambdas: tuple[float, ...],
        log_floor: float,
    ) -> tuple[MatrixScalingMap, LinearSoftmaxFit]:
        """The fit of :meth:`_fit_map` by passes over blocks of rows (Dask, Spark)."""
        return fit_matrix_scaling_passes(
            run,
            K,
            structure=self.structure,
            lambdas=lambdas,
            max_iter=self.max_iter,
            tol=self.tol,
            log_floor=log_floor,
        )
