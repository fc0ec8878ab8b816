"""Venn interval plot: per-bin mean intervals [p0, p1] against the observed frequency."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.metrics import interval_validity
from venncal.plotting._base import (
    check_display_bins,
    check_name_and_ax,
    display_from_estimator,
    estimator_interval,
    fill_plot_doc,
    plot_diagonal,
    probability_axes,
    start_axes,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D
    from typing_extensions import Self

    from venncal._typing import ArrayLike
    from venncal.metrics import IntervalValidity

__all__ = ["VennIntervalDisplay"]


def overall_title(observed, lower, upper):
    """``"observed X in [L, U]"`` or ``"observed X outside [L, U]"``.

    The relation is decided on the unrounded numbers; the numbers are then shown with enough
    digits (3 to 8) that the printed values agree with it, so a title never reads "0.310 in
    [0.306, 0.308]" nor "0.308 outside [0.306, 0.308]".

    Examples
    --------
    >>> overall_title(0.31, 0.306, 0.308)
    'observed 0.310 outside [0.306, 0.308]'
    >>> overall_title(0.30801, 0.306, 0.308)  # 3 digits would print 0.308 for both
    'observed 0.30801 outside [0.30600, 0.30800]'
    >>> overall_title(0.307, 0.306, 0.308)
    'observed 0.307 in [0.306, 0.308]'
    """
    inside = lower <= observed <= upper
    for digits in range(3, 9):
        o, lo, hi = (round(float(x), digits) for x in (observed, lower, upper))
        if (lo <= o <= hi) == inside:
            break
    word = "in" if inside else "outside"
    return f"observed {observed:.{digits}f} {word} [{lower:.{digits}f}, {upper:.{digits}f}]"


class VennIntervalDisplay:
    """Mean Venn-Abers intervals per bin, with the observed frequency of positives.

    The predictions are binned by the midpoint of their interval. For each non-empty bin a
    vertical bar spans the mean ``[p0, p1]`` and a marker shows the observed frequency with its
    exact binomial interval, circled in red when it falls outside the bar. Valid Venn predictors put the
    markers inside the bars up to sampling noise (Vovk & Petej 2014, Theorem 1).

    Parameters
    ----------
    validity : IntervalValidity
        Output of :func:`venncal.metrics.interval_validity` with ``target="frequency"``.
    name : str, default=None
        Label in the legend.

    Attributes
    ----------
    intervals_ : matplotlib LineCollection
        The per-bin intervals.
    line_ : matplotlib Line2D
        Observed frequencies.
    errorbar_ : matplotlib ErrorbarContainer
        Exact (Clopper-Pearson) 95% intervals of the observed frequencies, which show how
        much of a miss is test-set noise.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> mid = rng.uniform(0.05, 0.95, 400)
    >>> y = rng.random(400) < mid
    >>> disp = VennIntervalDisplay.from_predictions(y, mid - 0.05, mid + 0.05, n_bins=5)
    >>> int(disp.validity.counts.sum()), disp.validity.valid
    (400, True)
    """

    line_: Line2D

    def __init__(self, validity: IntervalValidity, *, name: str | None = None) -> None:
        self.validity = validity
        self.name = name

    @classmethod
    @fill_plot_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        p0: ArrayLike,
        p1: ArrayLike | None = None,
        *,
        n_bins: int = 10,
        strategy: str = "uniform",
        name: str | None = None,
        pos_label: object = None,
        ax: Axes | None = None,
    ) -> Self:
        """Compute the per-bin intervals and frequencies and draw them.

        Parameters
        ----------
        {y_true}
        p0 : array-like of shape (n, 2) or (n,)
            The intervals as ``predict_interval`` returns them (lower end in column 0), or,
            with ``p1``, the lower ends alone.
        p1 : array-like of shape (n,), default=None
            The upper ends, when ``p0`` holds the lower ends; ``p0 <= p1`` (a crossed pair
            raises a ``ValueError``).
        n_bins : int, default=10
            Bins of the interval midpoints, at most 1000 (each is drawn).
        strategy : {"uniform", "quantile"}, default="uniform"
        {name, pos_label}
        ax : matplotlib Axes, default=None

        Returns
        -------
        VennIntervalDisplay
        """
        owner = "VennIntervalDisplay.from_predictions"
        n_bins = check_display_bins(n_bins, owner)
        check_name_and_ax(name, ax, owner)
        validity = interval_validity(
            y_true, p0, p1, n_bins=n_bins, strategy=strategy, pos_label=pos_label
        )
        return cls(validity, name=name).plot(ax=ax)

    @classmethod
    @fill_plot_doc
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: ArrayLike,
        *,
        n_bins: int = 10,
        strategy: str = "uniform",
        name: str | None = None,
        pos_label: object = None,
        ax: Axes | None = None,
    ) -> Self:
        """Compute the intervals of a fitted Venn predictor on ``X`` and draw them.

        Parameters
        ----------
        estimator : fitted Venn predictor, or a Pipeline ending in one
            Anything :func:`venncal.predict_interval` accepts.
        {X, y}
        n_bins, strategy, ax
            As in :meth:`from_predictions`.
        {estimator_name}
        pos_label : int, float, bool or str, default=None
            The positive class; ``estimator.classes_[1]`` when None. The intervals of
            ``classes_[0]`` are ``[1 - p1, 1 - p0]``.

        Returns
        -------
        VennIntervalDisplay
        """
        return display_from_estimator(
            cls,
            estimator,
            X,
            y,
            name=name,
            pos_label=pos_label,
            owner="VennIntervalDisplay.from_estimator",
            predict=estimator_interval,
            n_bins=n_bins,
            strategy=strategy,
            ax=ax,
        )

    def plot(self, ax: Axes | None = None) -> Self:
        """Draw the plot and return self."""
        from matplotlib.collections import LineCollection

        fig, ax = start_axes(ax, "VennIntervalDisplay.plot")
        v = self.validity
        nz = v.counts > 0
        mid = 0.5 * (v.bin_lower + v.bin_upper)[nz]
        lo, hi, obs = v.bin_lower[nz], v.bin_upper[nz], v.bin_observed[nz]
        inside = v.bin_valid[nz]
        plot_diagonal(ax, label=None)
        segments = np.stack([np.column_stack([mid, lo]), np.column_stack([mid, hi])], axis=1)
        self.intervals_ = LineCollection(
            # an (n, 2, 2) array of segments, as documented; the stubs ask for a sequence
            segments,  # type: ignore[arg-type]
            colors="C0",
            linewidths=5,
            alpha=0.45,
            label=f"mean [p0, p1] ({self.name or 'Venn'})",
        )
        ax.add_collection(self.intervals_)
        # exact binomial intervals of the observed frequencies: the test-set noise
        from scipy.stats import beta

        n = v.counts[nz]
        k = np.round(obs * n)
        with np.errstate(invalid="ignore", divide="ignore"):
            f_lo = np.where(k > 0, beta.ppf(0.025, k, n - k + 1), 0.0)
            f_hi = np.where(k < n, beta.ppf(0.975, k + 1, n - k), 1.0)
        self.errorbar_ = ax.errorbar(
            mid,
            obs,
            yerr=np.vstack([obs - f_lo, f_hi - obs]),
            fmt="none",
            ecolor="C0",
            elinewidth=0.9,
            capsize=2,
        )
        (self.line_,) = ax.plot(
            mid,
            obs,
            linestyle="none",
            marker="o",
            color="C0",
            markersize=5,
            label="observed frequency (95% exact interval)",
        )
        if (~inside).any():
            ax.plot(
                mid[~inside],
                obs[~inside],
                linestyle="none",
                marker="o",
                markersize=9,
                markerfacecolor="none",
                markeredgecolor="C3",
                label="outside the interval",
            )
        probability_axes(ax, "interval midpoint (p0 + p1) / 2", "probability of the positive class")
        ax.set_title(
            f"{overall_title(v.observed, v.lower, v.upper)}; "
            f"{int(inside.sum())}/{int(nz.sum())} bins inside",
            fontsize="medium",
        )
        ax.legend(loc="lower right", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self
