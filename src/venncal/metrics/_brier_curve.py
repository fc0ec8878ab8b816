"""Brier curves: the cost-weighted loss of thresholding the predictions, for every cost."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_bool
from venncal.metrics._common import fill_doc, prepare

if TYPE_CHECKING:
    from venncal._typing import ArrayLike, FloatArray

__all__ = ["BrierCurve", "brier_curve"]


@dataclass(frozen=True)
class BrierCurve:
    """An exact empirical Brier curve ``L(c)``, piecewise linear in the cost ``c``.

    ``L(c) = c P(p > c, y = 0) + (1 - c) P(p <= c, y = 1)`` is linear between consecutive
    distinct predictions and jumps at each of them (it is right-continuous). The curve is stored
    as knots: each distinct prediction appears twice in ``costs``, first with the left limit of
    ``L`` and then with its value, so that ``matplotlib``'s ``plot(costs, loss)`` draws it
    exactly and the trapezoidal rule over the knots is the exact area.

    Attributes
    ----------
    costs : ndarray of shape (2 m + 2,)
        Knots from 0 to 1 (non-decreasing), for ``m`` distinct predictions.
    loss : ndarray of shape (2 m + 2,)
        ``L`` at the knots (left limit, then value, at each prediction).
    area : float
        ``integral_0^1 L(c) dc``, which equals half the Brier score.
    thresholds : ndarray of shape (m,)
        The distinct predictions, increasing.
    false_positive_mass : ndarray of shape (m + 1,)
        ``P(p > c, y = 0)`` on each of the ``m + 1`` pieces ``[0, t_1), [t_1, t_2), ...,
        [t_m, 1]``.
    false_negative_mass : ndarray of shape (m + 1,)
        ``P(p <= c, y = 1)`` on each piece.
    recalibrated : BrierCurve or None
        The Brier curve of the isotonically recalibrated predictions. It lies below this curve
        for every cost, it is concave and continuous, and the area between the two curves is
        half the calibration loss of :func:`corp_decomposition`.
    """

    costs: FloatArray
    loss: FloatArray
    area: float
    thresholds: FloatArray
    false_positive_mass: FloatArray
    false_negative_mass: FloatArray
    recalibrated: BrierCurve | None = None

    def __call__(self, c: ArrayLike) -> FloatArray:
        """Evaluate ``L`` at costs ``c`` (right-continuous at the predictions).

        Parameters
        ----------
        c : array-like of shape (k,)
            Costs in [0, 1].

        Returns
        -------
        loss : ndarray of shape (k,)
        """
        c = np.asarray(c, dtype=np.float64)
        j = np.searchsorted(self.thresholds, c, side="right")
        return c * self.false_positive_mass[j] + (1.0 - c) * self.false_negative_mass[j]


def _curve(y: FloatArray, p: FloatArray, w: FloatArray) -> BrierCurve:
    total = w.sum()
    order = np.argsort(p, kind="stable")
    ps = p[order]
    start = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
    t = ps[start]
    pos = np.add.reduceat((w * y)[order], start) / total
    neg = np.add.reduceat((w * (1.0 - y))[order], start) / total
    # piece j (j = 0..m) is [t_j, t_{j+1}) with t_0 = 0 and t_{m+1} = 1
    fn = np.concatenate(([0.0], np.cumsum(pos)))
    fp = np.concatenate((np.cumsum(neg[::-1])[::-1], [0.0]))
    m = t.shape[0]
    left = np.concatenate(([0.0], t))  # start of each piece
    right = np.concatenate((t, [1.0]))  # end of each piece
    costs = np.empty(2 * m + 2)
    costs[0::2] = left
    costs[1::2] = right
    loss = np.empty(2 * m + 2)
    loss[0::2] = left * fp + (1.0 - left) * fn
    loss[1::2] = right * fp + (1.0 - right) * fn
    # exact area of each linear piece (the jumps have zero width)
    area = float(np.sum((right - left) * 0.5 * (loss[0::2] + loss[1::2])))
    return BrierCurve(costs, loss, area, t, fp, fn)


@fill_doc
def brier_curve(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    recalibrate: bool = True,
    pos_label: object = None,
) -> BrierCurve:
    """Compute the Brier curve of probabilistic predictions exactly.

    For a cost ``c`` in [0, 1], thresholding at ``c`` (predict 1 when ``p > c``) costs ``c``
    per false positive and ``1 - c`` per false negative, so its mean loss is
    ``L(c) = c P(p > c, y = 0) + (1 - c) P(p <= c, y = 1)``. The area under ``L`` is half the
    Brier score; the curve shows for which costs (operating conditions) a classifier loses.

    Parameters
    ----------
    {y_true, y_proba, sample_weight}
    recalibrate : bool, default=True
        Also compute the curve of the isotonically recalibrated predictions
        (``BrierCurve.recalibrated``); the gap between the curves shows the calibration loss.
    {pos_label}

    Returns
    -------
    BrierCurve

    Notes
    -----
    This is Definition 5.1 of Tasche; the Brier curve of Hernández-Orallo, Flach & Ferri
    (2011), eq. (10), is twice as high, with area equal to the Brier score.

    References
    ----------
    Tasche, "Calibrating sufficiently", Section 5 (Definition 5.1, eqs. (18)-(19));
    Hernández-Orallo, Flach & Ferri, "Brier curves: a new cost-based visualisation of
    classifier performance" (ICML 2011).

    Examples
    --------
    >>> from venncal.metrics import brier_score
    >>> y, p = [0, 1, 1, 0], [0.2, 0.6, 0.9, 0.7]
    >>> curve = brier_curve(y, p)
    >>> curve.area, brier_score(y, p) / 2
    (0.0875, 0.0875)
    >>> curve([0.0, 0.65, 1.0])  # at c = 0 every prediction above 0 is called positive
    array([0.  , 0.25, 0.  ])

    Recalibration lowers the curve at every cost:

    >>> c = np.linspace(0, 1, 101)
    >>> bool(np.all(curve.recalibrated(c) <= curve(c) + 1e-12))
    True
    """
    recalibrate = check_bool(recalibrate, name="recalibrate", owner="brier_curve")
    y, p, w = prepare(y_true, y_proba, sample_weight, pos_label=pos_label)
    curve = _curve(y, p, w)
    if not recalibrate:
        return curve
    from venncal.metrics._decomposition import isotonic_recalibration

    q = isotonic_recalibration(y, p, sample_weight=w)
    return BrierCurve(
        curve.costs,
        curve.loss,
        curve.area,
        curve.thresholds,
        curve.false_positive_mass,
        curve.false_negative_mass,
        recalibrated=_curve(y, q, w),
    )
