"""Smooth reliability diagram: the kernel-smoothed calibration curve of Blasiok & Nakkiran."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.metrics import smooth_calibration_curve
from venncal.plotting._base import (
    align_background,
    background_axis,
    check_name_and_ax,
    display_from_estimator,
    fill_plot_doc,
    plot_diagonal,
    probability_axes,
    start_plot,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from typing_extensions import Self

    from venncal._typing import ArrayLike
    from venncal.metrics import SmoothCalibrationCurve

__all__ = ["SmoothReliabilityDisplay"]

#: Line width (points) of the curve where the density of the predictions is largest.
_MAX_WIDTH = 6.0
#: ...and where there are (almost) no predictions, so that the curve stays visible.
_MIN_WIDTH = 0.6


class SmoothReliabilityDisplay:
    """Smooth reliability diagram: the kernel regression of the labels on the predictions.

    Instead of bins, the labels are smoothed along the predictions by the reflected Gaussian
    kernel of :func:`venncal.metrics.smooth_ece`, with its automatic bandwidth (the fixed point
    where the smooth ECE equals the bandwidth) unless one is given. The curve is drawn thicker
    where more predictions lie, the density of the predictions is shaded at the bottom (right
    axis), and the legend gives the smooth ECE and the bandwidth. The curve is left out where
    no prediction is within reach of the kernel.

    Use :meth:`from_predictions` or :meth:`from_estimator` to build it; the constructor only
    stores the data.

    Parameters
    ----------
    curve : SmoothCalibrationCurve
        Output of :func:`venncal.metrics.smooth_calibration_curve`.
    name : str, default=None
        Label of the predictions in the legend.

    Attributes
    ----------
    line_ : matplotlib LineCollection
        The smoothed curve, one segment between each pair of neighbouring points, with its
        width following the density.
    density_ : matplotlib PolyCollection
        The shaded density of the predictions, on the secondary axes ``density_ax_``.
    ax_, density_ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    References
    ----------
    Blasiok & Nakkiran, "Smooth ECE: principled reliability diagrams via kernel smoothing"
    (ICLR 2024).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2_000)
    >>> y = rng.random(p.size) < p**2  # overconfident
    >>> disp = SmoothReliabilityDisplay.from_predictions(y, p, name="model")
    >>> bool(abs(disp.curve.bandwidth - disp.curve.smooth_ece) < 2e-3)  # the fixed point
    True
    >>> disp.ax_.get_legend().get_texts()[1].get_text()[:20]
    'model (smECE = 0.168'
    """

    def __init__(self, curve: SmoothCalibrationCurve, *, name: str | None = None) -> None:
        self.curve = curve
        self.name = name

    @classmethod
    @fill_plot_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_proba: ArrayLike,
        *,
        bandwidth: float | None = None,
        n_points: int = 201,
        name: str | None = None,
        sample_weight: ArrayLike | None = None,
        pos_label: object = None,
        ax: Axes | None = None,
    ) -> Self:
        """Compute the smoothed curve and draw the diagram.

        Parameters
        ----------
        {y_true, y_proba}
        bandwidth : float, default=None
            The kernel's standard deviation, at least 1e-4; None is the automatic choice of
            :func:`venncal.metrics.smooth_ece`.
        n_points : int, default=201
            Number of evenly spaced points at which the curve is drawn (2 to 10,000).
        {name, sample_weight, pos_label, ax}

        Returns
        -------
        SmoothReliabilityDisplay
        """
        owner = "SmoothReliabilityDisplay.from_predictions"
        check_name_and_ax(name, ax, owner)
        if isinstance(n_points, (int, np.integer)) and not isinstance(n_points, bool):
            if n_points > 10_000:
                raise ValueError(
                    f"The 'n_points' parameter of {owner} must be at most 10000 (each point "
                    f"is drawn). Got {n_points} instead."
                )
        curve = smooth_calibration_curve(
            y_true,
            y_proba,
            sample_weight=sample_weight,
            bandwidth=bandwidth,
            n_points=n_points,
            pos_label=pos_label,
        )
        return cls(curve, name=name).plot(ax=ax)

    @classmethod
    @fill_plot_doc
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: ArrayLike,
        *,
        bandwidth: float | None = None,
        n_points: int = 201,
        name: str | None = None,
        sample_weight: ArrayLike | None = None,
        pos_label: object = None,
        ax: Axes | None = None,
    ) -> Self:
        """Draw the diagram of a fitted binary classifier's ``predict_proba`` on ``X``.

        Parameters
        ----------
        {estimator, X, y, estimator_name, estimator_pos_label}
        bandwidth, n_points, sample_weight, ax
            As in :meth:`from_predictions`.

        Returns
        -------
        SmoothReliabilityDisplay
        """
        return display_from_estimator(
            cls,
            estimator,
            X,
            y,
            name=name,
            pos_label=pos_label,
            owner="SmoothReliabilityDisplay.from_estimator",
            bandwidth=bandwidth,
            n_points=n_points,
            sample_weight=sample_weight,
            ax=ax,
        )

    @fill_plot_doc
    def plot(self, ax: Axes | None = None, *, name: str | None = None) -> Self:
        """Draw the diagram.

        Parameters
        ----------
        {ax, plot_name}

        Returns
        -------
        self
        """
        from matplotlib.collections import LineCollection

        fig, ax, name = start_plot(ax, name, self.name, "SmoothReliabilityDisplay.plot")
        curve = self.curve
        label = (
            f"{name or 'predictions'} (smECE = {curve.smooth_ece:.3f}, "
            f"bandwidth = {curve.bandwidth:.3f})"
        )
        t, obs, dens = curve.points, curve.observed, curve.density

        # the density of the predictions at the bottom, on a secondary axis scaled so that its
        # peak reaches a quarter of the height
        density_ax = background_axis(ax, "density of the predictions")
        self.density_ = density_ax.fill_between(
            t, dens, color="0.82", edgecolor="0.55", linewidth=0.6, zorder=0
        )
        peak = float(dens.max()) if dens.max() > 0 else 1.0

        plot_diagonal(ax)
        # one segment between each pair of neighbouring points, as wide as the density there
        # (segments that touch an undefined point are left out)
        points = np.column_stack([t, obs])
        segments = np.stack([points[:-1], points[1:]], axis=1)
        keep = ~np.isnan(obs[:-1]) & ~np.isnan(obs[1:])
        mid = 0.5 * (dens[:-1] + dens[1:])
        widths = _MIN_WIDTH + (_MAX_WIDTH - _MIN_WIDTH) * mid / peak
        self.line_ = LineCollection(
            # an (n, 2, 2) array of segments, as documented; the stubs ask for a sequence
            segments[keep],  # type: ignore[arg-type]
            linewidths=widths[keep],
            colors="C3",
            capstyle="round",
            label=label,
        )
        ax.add_collection(self.line_)
        probability_axes(ax, "predicted probability", "smoothed frequency of positives")
        align_background(ax, density_ax, peak)
        ax.legend(loc="upper left")
        self.ax_, self.density_ax_, self.figure_ = ax, density_ax, fig
        return self
