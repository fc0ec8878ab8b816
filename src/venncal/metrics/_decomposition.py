"""Decompositions of the Brier score: Murphy's binned one and the isotonic (CORP) one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_option
from venncal.metrics._common import (
    STRATEGIES,
    bin_index,
    binned_sums,
    check_n_bins,
    fill_doc,
    prepare,
)

if TYPE_CHECKING:
    from venncal._typing import AnyArray, ArrayLike, FloatArray

__all__ = [
    "BrierDecomposition",
    "brier_decomposition",
    "CORPDecomposition",
    "corp_decomposition",
    "isotonic_recalibration",
]


@dataclass(frozen=True)
class BrierDecomposition:
    """Murphy's decomposition of the Brier score over K bins.

    ``brier = reliability - resolution + uncertainty + within_bin_variance
    - 2 * within_bin_covariance`` holds exactly. The last two terms vanish when the predictions
    are constant within each bin (e.g. at most K distinct values, one per bin), which gives
    Murphy's three-term identity ``brier = reliability - resolution + uncertainty``.

    Attributes
    ----------
    reliability : float
        ``(1/N) sum_k n_k (r_k - phi_k)^2``, lower is better (Johansson et al., eq. 13).
    resolution : float
        ``(1/N) sum_k n_k (phi_k - ybar)^2``, higher is better.
    uncertainty : float
        ``ybar (1 - ybar)``, the Brier score of the base rate.
    brier : float
        The Brier score of the predictions.
    within_bin_variance : float
        ``(1/N) sum_k sum_{i in k} (p_i - r_k)^2``.
    within_bin_covariance : float
        ``(1/N) sum_k sum_{i in k} (p_i - r_k)(y_i - phi_k)``.
    n_bins : int
        Number of bins K (the number of distinct predictions when ``n_bins=None``).
    """

    reliability: float
    resolution: float
    uncertainty: float
    brier: float
    within_bin_variance: float
    within_bin_covariance: float
    n_bins: int


@fill_doc
def brier_decomposition(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    n_bins: int | None = 100,
    strategy: str = "uniform",
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> BrierDecomposition:
    """Decompose the Brier score into reliability, resolution and uncertainty with K bins.

    ``r_k`` is the mean prediction in bin ``k``, ``phi_k`` the observed frequency of positives
    there, ``n_k`` its size, and ``ybar`` the overall frequency of positives.

    Parameters
    ----------
    {y_true, y_proba}
    n_bins : int or None, default=100
        Number of bins K; Johansson et al. use K = 100. ``None`` makes one bin of each
        distinct prediction, Murphy's original setting, where the three terms always sum to
        the Brier score. With bins, they do when the predictions are constant within each bin
        (e.g. at most K distinct values, one per bin).
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins ``[0, 1/K), ..., [(K-1)/K, 1]`` or equal-mass bins.
    {sample_weight, pos_label}

    Returns
    -------
    BrierDecomposition

    References
    ----------
    Murphy, "A new vector partition of the probability score" (1973); Johansson, Löfström,
    Sundell & Boström, "Venn predictors and Venn-Abers predictors for random forests",
    Section 4, eq. (13); Stephenson, Coelho & Jolliffe (2008) for the within-bin terms.

    Examples
    --------
    >>> d = brier_decomposition([0, 1, 1, 0, 1], [0.2, 0.2, 0.7, 0.7, 0.7])
    >>> round(d.reliability, 4), round(d.resolution, 4), round(d.uncertainty, 4)
    (0.0367, 0.0067, 0.24)
    >>> bool(np.isclose(d.reliability - d.resolution + d.uncertainty, d.brier))
    True
    """
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    idx: AnyArray  # the predictions themselves, or their bin numbers
    if n_bins is None:  # one bin per distinct prediction: Murphy's exact decomposition
        check_option(strategy, STRATEGIES, name="strategy", owner="brier_decomposition")
        idx = p
    else:
        n_bins = check_n_bins(n_bins, "brier_decomposition")
        idx = bin_index(p, w, n_bins, strategy, owner="brier_decomposition")
    # the work depends on the data, not on n_bins: beyond a few per row only the occupied bins
    # are computed
    occupied, idx, (counts, sum_p, sum_y) = binned_sums(idx, w, w * p, w * y, n_bins=n_bins)
    k = occupied.shape[0] if n_bins is None else n_bins
    total = w.sum()
    nz = counts > 0
    safe = np.where(nz, counts, 1.0)
    r = sum_p / safe
    phi = sum_y / safe
    ybar = float((w * y).sum() / total)
    dp = p - r[idx]
    dy = y - phi[idx]
    return BrierDecomposition(
        reliability=float((counts * (r - phi) ** 2)[nz].sum() / total),
        resolution=float((counts * (phi - ybar) ** 2)[nz].sum() / total),
        uncertainty=ybar * (1.0 - ybar),
        brier=float((w * (y - p) ** 2).sum() / total),
        within_bin_variance=float((w * dp * dp).sum() / total),
        within_bin_covariance=float((w * dp * dy).sum() / total),
        n_bins=int(k),
    )


@fill_doc
def isotonic_recalibration(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> FloatArray:
    """In-sample isotonic (PAV) recalibration of the predictions, ties pooled.

    Parameters
    ----------
    {y_true, y_proba, sample_weight, pos_label}

    Returns
    -------
    recalibrated : ndarray of shape (n,)
        The non-decreasing function of ``y_proba`` closest to ``y_true`` in (weighted) squared
        error, evaluated at each prediction. Equal predictions get equal values.

    References
    ----------
    Vovk, "Venn predictors and isotonic regression" (2012), Lemma 1 (PAVA); Dimitriadis,
    Gneiting & Jordan (PNAS 2021), the CORP recalibration.

    Examples
    --------
    >>> isotonic_recalibration([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    array([0. , 0.5, 0.5, 1. ])
    """
    from venncal.core.isotonic import fit_isotonic

    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    keep = w > 0
    step = fit_isotonic(p[keep], y[keep], sample_weight=w[keep])
    return step.predict(p, rule="nearest")


@dataclass(frozen=True)
class CORPDecomposition:
    """The CORP decomposition of the Brier score by isotonic recalibration.

    ``brier = calibration_loss + refinement_loss`` and
    ``refinement_loss = uncertainty - discrimination`` hold exactly; every term is
    non-negative.

    Attributes
    ----------
    brier : float
        Brier score of the predictions.
    calibration_loss : float
        ``brier - brier(recalibrated)``: miscalibration (MCB), the part removed by the best
        monotone recalibration.
    refinement_loss : float
        Brier score of the isotonically recalibrated predictions.
    discrimination : float
        ``uncertainty - refinement_loss`` (DSC).
    uncertainty : float
        ``ybar (1 - ybar)``, the Brier score of the base rate (UNC).
    """

    brier: float
    calibration_loss: float
    refinement_loss: float
    discrimination: float
    uncertainty: float


@fill_doc
def corp_decomposition(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    pos_label: object = None,
) -> CORPDecomposition:
    """Decompose the Brier score into calibration and refinement loss by isotonic regression.

    The recalibrated predictions ``q`` are the PAV (isotonic) fit of the labels on the
    predictions. Because ``q`` is calibrated in-sample and the PAV fit is the best monotone
    recalibration, ``brier(p) - brier(q)`` estimates the calibration loss ``E[(p - E[Y|p])^2]``
    and ``brier(q)`` the refinement loss of Proposition 2.4 in Tasche, without choosing bins
    (Dimitriadis, Gneiting & Jordan 2021).

    Parameters
    ----------
    {y_true, y_proba, sample_weight, pos_label}

    Returns
    -------
    CORPDecomposition

    References
    ----------
    Tasche, "Calibrating sufficiently", Proposition 2.4, eqs. (1a) and (2); Dimitriadis,
    Gneiting & Jordan, "Stable reliability diagrams for probabilistic classifiers" (PNAS 2021).

    Examples
    --------
    >>> d = corp_decomposition([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    >>> round(d.brier, 4), round(d.calibration_loss, 4), round(d.refinement_loss, 4)
    (0.275, 0.15, 0.125)

    A strictly increasing distortion of calibrated predictions keeps the refinement loss exactly
    and shows up as calibration loss only:

    >>> rng = np.random.default_rng(1)
    >>> p = rng.random(500)
    >>> y = rng.random(500) < p
    >>> a, b = corp_decomposition(y, p), corp_decomposition(y, p**3)
    >>> bool(np.isclose(a.refinement_loss, b.refinement_loss))
    True
    >>> bool(b.calibration_loss > 5 * a.calibration_loss)
    True
    """
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    q = isotonic_recalibration(y, p, sample_weight=w)
    total = w.sum()
    ybar = float((w * y).sum() / total)
    brier = float((w * (y - p) ** 2).sum() / total)
    refinement = float((w * (y - q) ** 2).sum() / total)
    uncertainty = ybar * (1.0 - ybar)
    return CORPDecomposition(
        brier=brier,
        calibration_loss=max(brier - refinement, 0.0),
        refinement_loss=refinement,
        discrimination=max(uncertainty - refinement, 0.0),
        uncertainty=uncertainty,
    )
