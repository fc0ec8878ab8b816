"""Brier curves of several classifiers on one axis."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_bool
from venncal.metrics import brier_curve
from venncal.plotting._base import (
    check_ax,
    estimator_name,
    estimator_proba,
    fill_plot_doc,
    start_axes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from typing_extensions import Self

    from venncal._typing import ArrayLike
    from venncal.metrics import BrierCurve

__all__ = ["BrierCurveDisplay"]


class BrierCurveDisplay:
    """Brier curves ``L(c)`` of one or more sets of predictions, on one axis.

    The area under each curve is half its Brier score (given in the legend). With
    ``recalibrated=True`` the curve of the isotonically recalibrated predictions is drawn dashed
    in the same colour: the area between the two is half the calibration loss, and what lies
    under the dashed curve is refinement loss that recalibration cannot remove.

    Parameters
    ----------
    curves : dict of str to BrierCurve
        Outputs of :func:`venncal.metrics.brier_curve`, by name.
    recalibrated : bool, default=False
        Also draw each ``curve.recalibrated``.

    Attributes
    ----------
    lines_ : dict of str to matplotlib Line2D
    recalibrated_lines_ : dict of str to matplotlib Line2D
        Empty unless ``recalibrated``.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    References
    ----------
    Tasche, "Calibrating sufficiently", Section 5 and Figure 2; Hernández-Orallo, Flach &
    Ferri (ICML 2011).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(300)
    >>> y = rng.random(300) < p
    >>> disp = BrierCurveDisplay.from_predictions(y, {"calibrated": p, "too sharp": p**3})
    >>> sorted(disp.lines_)
    ['calibrated', 'too sharp']
    """

    def __init__(self, curves: dict[str, BrierCurve], *, recalibrated: bool = False) -> None:
        self.curves = curves
        self.recalibrated = recalibrated

    @classmethod
    @fill_plot_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_proba: ArrayLike | dict[str, ArrayLike],
        *,
        recalibrated: bool = False,
        sample_weight: ArrayLike | None = None,
        pos_label: object = None,
        ax: Axes | None = None,
    ) -> Self:
        """Compute the Brier curves and draw them.

        Parameters
        ----------
        {y_true}
        y_proba : dict of str to array-like of shape (n,), or array-like of shape (n,)
            Probabilities of the positive class, by classifier name (one array is named
            ``"classifier"``).
        recalibrated : bool, default=False
            Also draw the curves of the isotonically recalibrated predictions.
        sample_weight : array-like of shape (n,), default=None
        {pos_label}
        ax : matplotlib Axes, default=None

        Returns
        -------
        BrierCurveDisplay
        """
        owner = "BrierCurveDisplay.from_predictions"
        check_bool(recalibrated, name="recalibrated", owner=owner)
        check_ax(ax, owner)
        if not isinstance(y_proba, dict):
            y_proba = {"classifier": y_proba}
        if not y_proba:
            raise ValueError("'y_proba' is an empty dict; give at least one set of predictions.")
        curves = {
            str(name): brier_curve(
                y_true,
                p,
                sample_weight=sample_weight,
                recalibrate=recalibrated,
                pos_label=pos_label,
            )
            for name, p in y_proba.items()
        }
        return cls(curves, recalibrated=recalibrated).plot(ax=ax)

    @classmethod
    @fill_plot_doc
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: ArrayLike,
        *,
        name: str | None = None,
        recalibrated: bool = False,
        sample_weight: ArrayLike | None = None,
        pos_label: object = None,
        ax: Axes | None = None,
    ) -> Self:
        """Compute the Brier curve of a fitted classifier's ``predict_proba`` and draw it.

        Parameters
        ----------
        {estimator, X, y}
        name : str, default=None
            Name of the curve; the estimator's class name when None.
        recalibrated, sample_weight, ax
            As in :meth:`from_predictions`.
        {estimator_pos_label}

        Returns
        -------
        BrierCurveDisplay
        """
        owner = "BrierCurveDisplay.from_estimator"
        proba, pos_label = estimator_proba(estimator, X, pos_label, owner)
        return cls.from_predictions(
            y,
            {estimator_name(estimator, name): proba},
            recalibrated=recalibrated,
            sample_weight=sample_weight,
            pos_label=pos_label,
            ax=ax,
        )

    def plot(self, ax: Axes | None = None) -> Self:
        """Draw the curves and return self."""
        fig, ax = start_axes(ax, "BrierCurveDisplay.plot")
        self.lines_, self.recalibrated_lines_ = {}, {}
        for i, (name, curve) in enumerate(self.curves.items()):
            color = f"C{i % 10}"
            (self.lines_[name],) = ax.plot(
                curve.costs,
                curve.loss,
                color=color,
                label=f"{name} (Brier = {2 * curve.area:.4f})",
            )
            if self.recalibrated and curve.recalibrated is not None:
                rec = curve.recalibrated
                (self.recalibrated_lines_[name],) = ax.plot(
                    rec.costs,
                    rec.loss,
                    color=color,
                    linestyle="--",
                    label=f"{name}, recalibrated (Brier = {2 * rec.area:.4f})",
                )
        top = max(float(np.max(c.loss)) for c in self.curves.values())
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.4 * top if top > 0 else 1.0)  # room for the legend above the curves
        ax.set_xlabel("cost c (of a false positive; 1 - c of a false negative)")
        ax.set_ylabel("cost-weighted loss L(c)")
        ax.legend(loc="upper right", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self
