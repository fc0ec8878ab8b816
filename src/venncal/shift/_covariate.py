"""Covariate shift: importance weights for calibration from a domain classifier.

Under *covariate shift* the features move, ``Q(x) != P(x)``, and the labelling stays:
``Q(y | x) = P(y | x)``. A calibration map fitted on source rows estimates ``P(y | score)``,
which differs from the target's ``Q(y | score)`` whenever the score is not all the features
know about the label. Weighting each calibration row by the density ratio
``w(x) = dQ/dP (x)`` makes the weighted source sample stand for the target (Shimodaira 2000;
for conformal prediction, Tibshirani, Barber, Candes & Ramdas 2019).

The ratio comes from a *domain classifier* trained to tell target rows (label 1) from source
rows (label 0): by Bayes' rule ``dQ/dP (x) = P(target | x) / P(source | x) * n_s / n_t`` with
``n_s`` and ``n_t`` the numbers of source and target rows it was trained on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_in_range, check_positive_int, check_probabilities

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray

__all__ = ["covariate_shift_weights"]


def covariate_shift_weights(
    domain_proba: ArrayLike,
    *,
    n_source: int,
    n_target: int,
    clip_quantile: float | None = 0.99,
    max_weight: float | None = None,
) -> FloatArray:
    """Density ratios target/source from a domain classifier's probabilities, clipped.

    ``w = P(target | x) / P(source | x) * n_source / n_target`` for each calibration row,
    then clipped from above (importance weights are heavy-tailed: a few rows that look very
    much like the target would otherwise carry the whole calibration). Pass them as
    ``sample_weight`` to :class:`~venncal.VennAbersCalibrator` or
    :class:`~venncal.IsotonicCalibrator`, where a weight ``k`` counts as ``k`` copies of a row.

    Parameters
    ----------
    domain_proba : array-like of shape (n,) or (n, 2)
        ``P(target | x)`` on the calibration rows from a classifier trained to tell target
        features (class 1) from source features (class 0), e.g. the second column of its
        ``predict_proba``. Use out-of-fold probabilities (``cross_val_predict``) for rows the
        domain classifier was trained on, or it will overfit them.
    n_source, n_target : int
        Source and target rows the domain classifier was trained on (the class balance it
        learned; the odds are divided by ``n_target / n_source``).
    clip_quantile : float in (0, 1] or None, default=0.99
        Weights above this quantile of the weights are set to it (1 or None: no clipping at
        a quantile).
    max_weight : float or None, default=None
        Weights above this number are set to it (applied after the quantile clip).

    Returns
    -------
    weights : ndarray of shape (n,)
        Non-negative; the rows where ``P(target | x) = 1`` get the largest finite weight left
        after clipping (or ``max_weight``).

    Notes
    -----
    Clipping trades bias for variance: it shrinks the influence of rare rows that look like
    the target. With an exact density ratio and no clipping, weighted calibration estimates
    the target's calibration map consistently; the finite-sample Venn-Abers guarantee,
    however, is for exchangeable data and does not carry over to weighted source data.

    References
    ----------
    H. Shimodaira, "Improving predictive inference under covariate shift by weighting the
    log-likelihood function", J. Statistical Planning and Inference 90 (2000). R. Tibshirani,
    R. Foygel Barber, E. Candes, A. Ramdas, "Conformal prediction under covariate shift",
    NeurIPS 2019, Section 2.

    Examples
    --------
    >>> covariate_shift_weights([0.5, 0.8, 0.2], n_source=100, n_target=100, clip_quantile=None)
    array([1.  , 4.  , 0.25])

    The weighted calibrator fitted on source rows:

    >>> import numpy as np
    >>> from venncal import VennAbersCalibrator
    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=500)
    >>> y = rng.random(500) < 1 / (1 + np.exp(-2 * s))
    >>> w = covariate_shift_weights(1 / (1 + np.exp(-s)), n_source=500, n_target=500)
    >>> cal = VennAbersCalibrator().fit(s, y, sample_weight=w)
    """
    owner = "covariate_shift_weights"
    prob = check_probabilities(domain_proba, name="domain_proba")
    n_source = check_positive_int(n_source, name="n_source", owner=owner)
    n_target = check_positive_int(n_target, name="n_target", owner=owner)
    if clip_quantile is not None:
        clip_quantile = check_in_range(
            clip_quantile, 0.0, 1.0, name="clip_quantile", owner=owner, closed="right"
        )
    if max_weight is not None:
        max_weight = check_in_range(max_weight, 0.0, np.inf, name="max_weight", owner=owner)
    with np.errstate(divide="ignore"):
        w = prob / (1.0 - prob) * (n_source / n_target)
    finite = np.isfinite(w)
    if clip_quantile is not None and clip_quantile < 1.0 and finite.any():
        cap = float(np.quantile(w[finite], clip_quantile))
        w = np.minimum(w, cap)
    elif not finite.all():
        w[~finite] = np.max(w[finite]) if finite.any() else 1.0
    if max_weight is not None:
        w = np.minimum(w, max_weight)
    if not (w > 0).any():
        raise ValueError(
            f"The 'domain_proba' parameter of {owner} is 0 on every row: no calibration row "
            "looks like the target, so no weighting can stand for it."
        )
    return w
