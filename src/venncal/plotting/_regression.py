"""Pictures of predictive distributions: Venn-Abers CDF bands and PIT histograms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_consistent_length, check_scores
from venncal.metrics._common import check_n_bins
from venncal.plotting._base import MAX_DISPLAY_BINS, check_name_and_ax, start_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from typing_extensions import Self

    from venncal._typing import ArrayLike, FloatArray, SeedLike

__all__ = ["PredictiveBandDisplay", "PITDisplay"]


def _checked(
    distribution: Any, scores: ArrayLike, y_true: ArrayLike | None, owner: str, required: bool
) -> tuple[FloatArray, FloatArray | None]:
    """The fitted distribution's test predictions and true values, checked."""
    if not hasattr(distribution, "labels_") or not hasattr(distribution, "predict_pit"):
        raise TypeError(
            f"The 'distribution' of {owner} must be a fitted VennAbersDistribution. "
            f"Got {type(distribution).__name__}."
        )
    s = check_scores(scores, name="scores")
    if y_true is None:
        if not required:
            return s, None
        raise TypeError(f"'y_true' of {owner} must be array-like, got None.")
    truth = check_scores(y_true, name="y_true", allow_column=False, noun="values")
    check_consistent_length(scores=s, y_true=truth)
    return s, truth


class PredictiveBandDisplay:
    """Bands of predictive CDFs ``[F0, F1]`` of a few test objects, with their merged CDF.

    Each object gets the band between its lower and upper Venn-Abers CDFs (shaded), the CDF
    of its merged distribution (a line), and its true value when given (a dotted vertical
    line). A narrow band means the calibration data pin the distribution down.

    Parameters
    ----------
    thresholds : ndarray of shape (T,)
        Where the CDFs are evaluated, increasing.
    cdf : ndarray of shape (m, T, 2)
        Lower and upper CDF values (``VennAbersDistribution.predict_cdf``).
    merged : ndarray of shape (m, T)
        The merged CDF (``VennAbersDistribution.predict_merged_cdf``).
    y_true : ndarray of shape (m,), default=None
        The true values.

    Attributes
    ----------
    figure_, ax_ : matplotlib Figure and Axes
        Set by :meth:`plot`.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from venncal import VennAbersDistribution
    >>> rng = np.random.default_rng(0)
    >>> pred = rng.normal(size=500)
    >>> y = pred + rng.normal(scale=0.5, size=500)
    >>> vad = VennAbersDistribution().fit(pred, y)
    >>> disp = PredictiveBandDisplay.from_distribution(vad, [-1.0, 0.0, 1.5])
    >>> disp.cdf.shape
    (3, 500, 2)
    """

    def __init__(
        self,
        thresholds: FloatArray,
        cdf: FloatArray,
        merged: FloatArray,
        *,
        y_true: FloatArray | None = None,
    ) -> None:
        self.thresholds = thresholds
        self.cdf = cdf
        self.merged = merged
        self.y_true = y_true

    @classmethod
    def from_distribution(
        cls,
        distribution: Any,
        scores: ArrayLike,
        *,
        thresholds: ArrayLike | None = None,
        y_true: ArrayLike | None = None,
        ax: Axes | None = None,
    ) -> Self:
        """Compute the bands of a fitted :class:`~venncal.VennAbersDistribution` and draw them.

        Parameters
        ----------
        distribution : VennAbersDistribution
            Fitted.
        scores : array-like of shape (m,)
            Predictions of the test objects to draw (a handful).
        thresholds : array-like of shape (T,), default=None
            Where to evaluate the CDFs; None: every calibration label (exact steps).
        y_true : array-like of shape (m,), default=None
            Their true values, drawn as dotted lines.
        ax : matplotlib Axes, default=None
            Where to draw; None: a new figure.

        Returns
        -------
        display : PredictiveBandDisplay
        """
        owner = f"{cls.__name__}.from_distribution"
        check_name_and_ax(None, ax, owner)
        s, truth = _checked(distribution, scores, y_true, owner, required=False)
        t = distribution.labels_ if thresholds is None else thresholds
        cdf = distribution.predict_cdf(s, t)  # checks the thresholds
        merged = distribution.predict_merged_cdf(s, t)
        return cls(np.asarray(t, dtype=float), cdf, merged, y_true=truth).plot(ax=ax)

    def plot(self, ax: Axes | None = None) -> Self:
        """Draw the bands.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None: a new figure.

        Returns
        -------
        self : PredictiveBandDisplay
        """
        fig, ax = start_axes(ax, f"{type(self).__name__}.plot")
        colors = [f"C{i % 10}" for i in range(self.cdf.shape[0])]
        for i, color in enumerate(colors):
            ax.fill_between(
                self.thresholds,
                self.cdf[i, :, 0],
                self.cdf[i, :, 1],
                step="post",
                color=color,
                alpha=0.3,
                linewidth=0,
            )
            ax.step(self.thresholds, self.merged[i], where="post", color=color, linewidth=1.2)
            if self.y_true is not None:
                ax.axvline(self.y_true[i], color=color, linestyle=":", linewidth=1.2)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("threshold t")
        ax.set_ylabel("P(y <= t)")
        self.figure_, self.ax_ = fig, ax
        return self


class PITDisplay:
    """Histogram of the probability integral transform of predictive distributions.

    For calibrated predictive distributions the (randomised) PIT values are uniform on
    [0, 1]: the histogram is flat at density 1, within the dashed band that holds each bar
    with probability about 95% under uniformity (binomial, normal approximation). A U shape
    says the distributions are too narrow, a hump that they are too wide, a slope that they
    are shifted.

    Parameters
    ----------
    pit : ndarray of shape (m,)
        PIT values (``VennAbersDistribution.predict_pit``).
    n_bins : int, default=10
        Number of equal-width bins on [0, 1].
    name : str, default=None
        Label in the legend.

    Attributes
    ----------
    density : ndarray of shape (n_bins,)
        Height of each bar (1 is uniform).
    figure_, ax_ : matplotlib Figure and Axes
        Set by :meth:`plot`.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> disp = PITDisplay(np.random.default_rng(0).random(1000), n_bins=5).plot()
    >>> bool(np.all(np.abs(disp.density - 1) < 0.2))
    True
    """

    def __init__(self, pit: ArrayLike, *, n_bins: int = 10, name: str | None = None) -> None:
        owner = type(self).__name__
        check_name_and_ax(name, None, owner)
        self.n_bins = check_n_bins(n_bins, owner, maximum=MAX_DISPLAY_BINS)
        self.pit = check_scores(pit, name="pit", allow_column=False, noun="PIT values")
        if np.any((self.pit < 0) | (self.pit > 1)):
            raise ValueError(f"'pit' of {owner} holds values outside [0, 1]; PIT values are in it.")
        self.name = name
        counts = np.histogram(self.pit, bins=self.n_bins, range=(0.0, 1.0))[0]
        self.density = counts * self.n_bins / max(self.pit.shape[0], 1)

    @classmethod
    def from_distribution(
        cls,
        distribution: Any,
        scores: ArrayLike,
        y_true: ArrayLike,
        *,
        n_bins: int = 10,
        random_state: SeedLike = None,
        name: str | None = None,
        ax: Axes | None = None,
    ) -> Self:
        """The PIT histogram of a fitted :class:`~venncal.VennAbersDistribution` on test data.

        Parameters
        ----------
        distribution : VennAbersDistribution
            Fitted.
        scores : array-like of shape (m,)
            Predictions of the test objects.
        y_true : array-like of shape (m,)
            Their true values.
        n_bins : int, default=10
        random_state : int, numpy Generator or None, default=None
            Seeds the randomisation of the PIT at the steps of the distribution.
        name : str, default=None
        ax : matplotlib Axes, default=None

        Returns
        -------
        display : PITDisplay
        """
        owner = f"{cls.__name__}.from_distribution"
        check_name_and_ax(name, ax, owner)
        s, truth = _checked(distribution, scores, y_true, owner, required=True)
        pit = distribution.predict_pit(s, truth, random_state=random_state)
        return cls(pit, n_bins=n_bins, name=name).plot(ax=ax)

    def plot(self, ax: Axes | None = None) -> Self:
        """Draw the histogram.

        Parameters
        ----------
        ax : matplotlib Axes, default=None

        Returns
        -------
        self : PITDisplay
        """
        fig, ax = start_axes(ax, f"{type(self).__name__}.plot")
        edges = np.linspace(0.0, 1.0, self.n_bins + 1)
        width = 1.0 / self.n_bins
        ax.bar(edges[:-1], self.density, width=width, align="edge", alpha=0.6, label=self.name)
        m = max(self.pit.shape[0], 1)
        p = 1.0 / self.n_bins
        half = 1.96 * np.sqrt(p * (1 - p) / m) * self.n_bins
        ax.axhline(1.0, color="black", linewidth=1)
        ax.axhline(1.0 + half, color="black", linestyle="--", linewidth=0.8)
        ax.axhline(max(1.0 - half, 0.0), color="black", linestyle="--", linewidth=0.8)
        ax.set_xlim(0, 1)
        ax.set_xlabel("PIT value")
        ax.set_ylabel("density")
        if self.name is not None:
            ax.legend(loc="upper right")
        self.figure_, self.ax_ = fig, ax
        return self
