"""Dirichlet calibration of a K-class score matrix as a calibrator."""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal.calibration._docs import fill_calibration_doc
from venncal.calibration._linear_softmax import LinearSoftmaxCalibrator, check_nonnegative
from venncal.core.dirichlet import fit_dirichlet, fit_dirichlet_passes

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from venncal._typing import FloatArray, IntArray
    from venncal.core.dirichlet import DirichletMap
    from venncal.core.matrix_scaling import LinearSoftmaxFit

__all__ = ["DirichletCalibrator"]


@fill_calibration_doc
class DirichletCalibrator(LinearSoftmaxCalibrator):
    """Dirichlet calibration with ODIR regularisation (Kull et al. 2019).

    The class probabilities ``q`` of an object are mapped to ``softmax(W ln q + b)``, a linear
    map of the log-probabilities (the multi-class analogue of beta calibration). ``W`` and
    ``b`` minimise the weighted mean log loss plus the ODIR penalty (Off-Diagonal and
    Intercept Regularisation), ``reg_lambda / (K (K - 1))`` times the sum of squares of the
    off-diagonal entries of ``W`` plus ``reg_mu / K`` times that of ``b``; the diagonal of
    ``W`` is free, so that the penalty shrinks the map towards a per-class power of ``q``
    rather than towards a constant (:mod:`venncal.core.dirichlet`).

    Parameters
    ----------
    reg_lambda : float, default=10.0
        ``lambda``, the weight of the off-diagonal penalty. Kull et al. choose ``lambda`` and
        ``mu`` by cross-validation; the default, the best of 0.01, 0.1, 1 and 10 on
        held-out problems (iris, wine and digits with three models), is a starting point.
    reg_mu : float, default=10.0
        ``mu``, the weight of the intercept penalty.
    score_type : {"auto", "logits", "probabilities", "raw"}, default="auto"
        What the columns are, as for
        :class:`~venncal.calibration.MulticlassVennAbersCalibrator`: probabilities (their
        logarithms are ``ln q``), logits (their log-softmax is), or ``"raw"`` (used as ``ln q``
        as they are). ``"auto"`` as there. Probabilities are read as
        ``ln max(q, floor)``, the floor fitted on the calibration data
        (:func:`venncal.core.class_scores.probability_floor`: how often the model's exact
        zeros come true, or its smallest calibration probability when it gives none); every
        ``ln q`` is floored at about -87.3 (log of the smallest normal float32) too. The map
        keeps the floor (``map_.log_floor``).
    {max_iter, tol}

    Attributes
    ----------
    {classes_, score_type_}
    map_ : DirichletMap
        The fitted map: ``weights`` (``W``) and ``bias`` (``b``).
    {n_iter_, n_features_in_}

    References
    ----------
    .. [1] M. Kull, M. Perello-Nieto, M. Kaengsepp, T. Silva Filho, H. Song and P. Flach,
       "Beyond temperature scaling: obtaining well-calibrated multi-class probabilities with
       Dirichlet calibration", NeurIPS 2019.

    Examples
    --------
    Probabilities made too sharp (squared and renormalised) are softened back:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> q = rng.dirichlet(np.ones(3), size=6000)
    >>> y = (rng.random((6000, 1)) > q.cumsum(axis=1)).sum(axis=1)
    >>> sharp = q**2 / (q**2).sum(axis=1, keepdims=True)
    >>> cal = DirichletCalibrator().fit(sharp[:4000], y[:4000])
    >>> np.diag(cal.map_.weights).round(1)
    array([0.5, 0.5, 0.5])
    >>> bool(np.allclose(cal.predict_proba(sharp[4000:]), q[4000:], atol=0.05))
    True
    """

    map_: DirichletMap

    def __init__(
        self,
        *,
        reg_lambda: float = 10.0,
        reg_mu: float = 10.0,
        score_type: str = "auto",
        max_iter: int = 1000,
        tol: float = 1e-10,
    ) -> None:
        self.reg_lambda = reg_lambda
        self.reg_mu = reg_mu
        self.score_type = score_type
        self.max_iter = max_iter
        self.tol = tol

    def _check_params(self, owner: str) -> tuple[float, float]:
        return (
            check_nonnegative(self.reg_lambda, name="reg_lambda", owner=owner),
            check_nonnegative(self.reg_mu, name="reg_mu", owner=owner),
        )

    def _fit_map(
        self,
        t: FloatArray,
        y: IntArray,
        w: FloatArray | None,
        params: tuple[float, ...],
        log_floor: float,
    ) -> tuple[DirichletMap, LinearSoftmaxFit]:
        reg_lambda, reg_mu = params
        return fit_dirichlet(
            t,
            y,
            w,
            reg_lambda=reg_lambda,
            reg_mu=reg_mu,
            max_iter=self.max_iter,
            tol=self.tol,
            log_floor=log_floor,
        )

    def _fit_map_passes(
        self,
        run: Callable[..., list[Any]],
        K: int,
        params: tuple[float, ...],
        log_floor: float,
    ) -> tuple[DirichletMap, LinearSoftmaxFit]:
        """The fit of :meth:`_fit_map` by passes over blocks of rows (Dask, Spark)."""
        reg_lambda, reg_mu = params
        return fit_dirichlet_passes(
            run,
            K,
            reg_lambda=reg_lambda,
            reg_mu=reg_mu,
            max_iter=self.max_iter,
            tol=self.tol,
            log_floor=log_floor,
        )
