"""Reliability diagram with per-bin counts, empty bins and exact binomial intervals.

For K classes the diagram is drawn for the top label (the largest probability of each row
against whether its class is the true one) or for one class (its probability against
[y = class]), with the bins and ECE of :mod:`venncal.metrics`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._validation import check_option
from venncal.metrics import ece, reliability_curve
from venncal.metrics._multiclass import (
    classwise_reliability_curves,
    top_label_ece,
    top_label_reliability_curve,
)
from venncal.plotting._base import (
    align_background,
    background_axis,
    check_display_bins,
    check_name_and_ax,
    display_from_estimator,
    estimator_proba,
    fill_plot_doc,
    plot_diagonal,
    probability_axes,
    start_plot,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D
    from typing_extensions import Self

    from venncal._typing import ArrayLike, FloatArray
    from venncal.metrics import ReliabilityCurve

__all__ = ["ReliabilityDisplay"]


class ReliabilityDisplay:
    """Reliability diagram: observed frequency of positives against mean prediction per bin.

    Every bin is drawn at its place: a non-empty bin shows its observed frequency with an exact
    (Clopper-Pearson) binomial interval at its mean prediction, an empty bin is shaded and left
    without a marker, and bars at the bottom show how many predictions each bin holds.

    Use :meth:`from_predictions` to build it; the constructor only stores the data.

    Parameters
    ----------
    curve : ReliabilityCurve
        Output of :func:`venncal.metrics.reliability_curve`.
    lower, upper : ndarray of shape (n_bins,)
        Ends of the binomial intervals (NaN for empty bins).
    ece : float
        Expected calibration error over the same bins.
    name : str, default=None
        Label of the predictions in the legend.
    confidence_level : float, default=0.95
        Level of the binomial intervals.
    kind : {"binary", "top_label", "classwise"}, default="binary"
        What the curve shows (sets the axis labels): the positive class, the top label of K
        classes, or one of K classes.

    Attributes
    ----------
    line_ : matplotlib Line2D
        Observed against predicted frequency for every bin; NaN at empty bins, which breaks
        the line there.
    errorbar_ : matplotlib ErrorbarContainer
    bars_ : matplotlib BarContainer
        The per-bin counts, on the secondary axes ``counts_ax_``.
    ax_, counts_ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(500) ** 2
    >>> y = rng.random(500) < p
    >>> disp = ReliabilityDisplay.from_predictions(y, p, name="calibrated")
    >>> bool(np.allclose(disp.line_.get_ydata(), disp.curve.observed, equal_nan=True))
    True

    For K classes, pass the (n, K) probability matrix: the top-label diagram by default, or
    one class's diagram with ``multiclass="classwise", class_label=...``.

    >>> P = rng.dirichlet(np.ones(4), size=500)
    >>> y3 = (rng.random((500, 1)) > P.cumsum(axis=1)).sum(axis=1).clip(0, 3)
    >>> disp = ReliabilityDisplay.from_predictions(y3, P, labels=[0, 1, 2, 3])
    >>> disp.kind, disp.ax_.get_xlabel()
    ('top_label', 'mean top probability')
    >>> disp = ReliabilityDisplay.from_predictions(
    ...     y3, P, multiclass="classwise", class_label=2, labels=[0, 1, 2, 3]
    ... )
    >>> disp.ax_.get_ylabel()[:22]
    'frequency of class 2 ('
    """

    line_: Line2D

    def __init__(
        self,
        curve: ReliabilityCurve,
        lower: FloatArray,
        upper: FloatArray,
        ece: float,
        *,
        name: str | None = None,
        confidence_level: float = 0.95,
        kind: str = "binary",
    ) -> None:
        self.curve = curve
        self.lower = lower
        self.upper = upper
        self.ece = ece
        self.name = name
        self.confidence_level = confidence_level
        self.kind = kind
        self.class_label = None

    @classmethod
    @fill_plot_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_proba: ArrayLike,
        *,
        n_bins: int = 10,
        strategy: str = "uniform",
        name: str | None = None,
        confidence_level: float = 0.95,
        sample_weight: ArrayLike | None = None,
        pos_label: object = None,
        multiclass: str | None = None,
        class_label: object = None,
        labels: ArrayLike | None = None,
        ax: Axes | None = None,
    ) -> Self:
        """Compute the per-bin statistics and draw the diagram.

        Parameters
        ----------
        {y_true}
        y_proba : array-like of shape (n,), (n, 2) or (n, K)
            Probability of the positive class, or for K > 2 classes the matrix of class
            probabilities (rows summing to one).
        n_bins : int, default=10
            Number of bins, at most 1000 (each is drawn).
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width or equal-mass bins, as in :func:`venncal.metrics.reliability_curve`.
        {name}
        confidence_level : float in (0, 1), default=0.95
            Level of the Clopper-Pearson intervals.
        {sample_weight, pos_label}
        multiclass : {None, "top_label", "classwise"}, default=None
            For an (n, K) matrix: ``"top_label"`` (the default when K > 2) bins the largest
            probability of each row against accuracy (ECE = :func:`venncal.metrics.top_label_ece`);
            ``"classwise"`` bins the probability of ``class_label`` against [y = class_label].
            None with a 1-D or (n, 2) ``y_proba`` is the binary diagram.
        class_label : label, default=None
            The class drawn with ``multiclass="classwise"`` (required then).
        labels : array-like of shape (K,), default=None
            The label of each column of ``y_proba`` (multiclass); the sorted distinct labels of
            ``y_true`` when None.
        {ax}

        Returns
        -------
        ReliabilityDisplay
        """
        owner = "ReliabilityDisplay.from_predictions"
        width = np.shape(y_proba)[1] if np.ndim(y_proba) == 2 else 1
        if multiclass is None and width > 2:
            multiclass = "top_label"
        if multiclass is not None:
            check_option(multiclass, ("top_label", "classwise"), name="multiclass", owner=owner)
        n_bins = check_display_bins(n_bins, owner)
        check_name_and_ax(name, ax, owner)
        options: dict[str, Any] = dict(
            n_bins=n_bins, strategy=strategy, sample_weight=_summable(sample_weight)
        )
        if multiclass is None:
            curve = reliability_curve(y_true, y_proba, pos_label=pos_label, **options)
            error = ece(y_true, y_proba, pos_label=pos_label, **options)
        else:
            curve, error = _multiclass_curve(
                y_true, y_proba, multiclass, class_label, labels, options, owner
            )
        lower, upper = curve.confidence_interval(confidence_level)
        disp = cls(
            curve,
            lower,
            upper,
            error,
            name=name,
            confidence_level=confidence_level,
            kind="binary" if multiclass is None else multiclass,
        )
        if multiclass is not None:
            disp.class_label = class_label
        return disp.plot(ax=ax)

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
        confidence_level: float = 0.95,
        sample_weight: ArrayLike | None = None,
        pos_label: object = None,
        multiclass: str | None = None,
        class_label: object = None,
        ax: Axes | None = None,
    ) -> Self:
        """Draw the diagram of a fitted classifier's ``predict_proba`` on ``X``.

        Parameters
        ----------
        {estimator, X, y, estimator_name, estimator_pos_label}
        multiclass, class_label
            As in :meth:`from_predictions`; an estimator of more than two classes draws the
            top-label diagram by default, with its ``classes_`` as the column labels.
        n_bins, strategy, confidence_level, sample_weight, ax
            As in :meth:`from_predictions`.

        Returns
        -------
        ReliabilityDisplay
        """
        classes = getattr(estimator, "classes_", None)
        predict: Callable[..., tuple[Any, ...]] = estimator_proba
        options: dict[str, Any] = {}
        if multiclass is not None or (classes is not None and len(classes) > 2):
            # the whole probability matrix, its columns labelled by the classes
            predict = _class_probabilities
            options = dict(
                multiclass="top_label" if multiclass is None else multiclass,
                class_label=class_label,
                labels=classes,
            )
        return display_from_estimator(
            cls,
            estimator,
            X,
            y,
            name=name,
            pos_label=pos_label,
            owner="ReliabilityDisplay.from_estimator",
            predict=predict,
            n_bins=n_bins,
            strategy=strategy,
            confidence_level=confidence_level,
            sample_weight=sample_weight,
            ax=ax,
            **options,
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
        fig, ax, name = start_plot(ax, name, self.name, "ReliabilityDisplay.plot")
        curve = self.curve
        label = f"{name or 'predictions'} (ECE = {self.ece:.3f})"
        edges = curve.bin_edges
        nz = curve.nonempty

        # per-bin counts at the bottom, on a secondary axis scaled to a quarter of the height,
        # its 0 level with probability 0 (see align_background)
        counts_ax = background_axis(ax, "predictions per bin")
        widths = np.diff(edges)
        self.bars_ = counts_ax.bar(
            edges[:-1],
            curve.counts,
            width=widths,
            align="edge",
            color="0.8",
            edgecolor="0.55",
            linewidth=0.6,
            zorder=0,
        )

        # empty bins: hatched, no marker
        for i in np.flatnonzero(~nz):
            ax.axvspan(
                edges[i],
                edges[i + 1],
                facecolor="none",
                edgecolor="0.75",
                hatch="//",
                linewidth=0,
                zorder=0,
            )

        plot_diagonal(ax)
        x, obs = curve.predicted[nz], curve.observed[nz]
        yerr = np.vstack([obs - self.lower[nz], self.upper[nz] - obs])
        self.errorbar_ = ax.errorbar(
            x, obs, yerr=yerr, fmt="none", ecolor="C0", elinewidth=1.2, capsize=3, alpha=0.8
        )
        # the line is broken (NaN) at empty bins, so that nothing is drawn across them
        (self.line_,) = ax.plot(
            curve.predicted, curve.observed, marker="o", color="C0", label=label
        )
        level = f"({int(round(100 * self.confidence_level))}% exact interval)"
        if self.kind == "top_label":
            probability_axes(ax, "mean top probability", f"accuracy {level}")
        elif self.kind == "classwise":
            probability_axes(
                ax,
                f"mean predicted probability of class {self.class_label}",
                f"frequency of class {self.class_label} {level}",
            )
        else:
            probability_axes(ax, "mean predicted probability", f"observed frequency {level}")
        largest = curve.counts.max()
        align_background(ax, counts_ax, largest)
        # stay aligned when the probability axis is rescaled later (set_ylim, zoom)
        ax.callbacks.connect("ylim_changed", lambda a: align_background(a, counts_ax, largest))
        if (~nz).any():
            from matplotlib.patches import Patch

            handles, labels = ax.get_legend_handles_labels()
            handles.append(Patch(facecolor="none", edgecolor="0.6", hatch="//"))
            labels.append("empty bin")
            ax.legend(handles, labels, loc="upper left")
        else:
            ax.legend(loc="upper left")
        self.ax_, self.counts_ax_, self.figure_ = ax, counts_ax, fig
        return self


def _multiclass_curve(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    multiclass: str,
    class_label: object,
    labels: ArrayLike | None,
    options: dict[str, Any],
    owner: str,
) -> tuple[ReliabilityCurve, float]:
    """The curve and ECE of K classes with the column ``labels``: of the top label, or of
    ``class_label`` against the rest (its ECE over the same bins as the curve)."""
    options = dict(options, labels=labels)
    if multiclass == "top_label":
        curve = top_label_reliability_curve(y_true, y_proba, **options)
        return curve, top_label_ece(y_true, y_proba, **options)
    if class_label is None:
        raise ValueError(
            f"{owner} with multiclass='classwise' needs class_label, the class to draw."
        )
    names = np.unique(y_true) if labels is None else np.asarray(labels)
    where = np.flatnonzero(names == class_label)
    if where.shape[0] != 1:
        raise ValueError(
            f"'class_label' of {owner} is {class_label!r}, which is not among the "
            f"labels {names.tolist()}."
        )
    curve = classwise_reliability_curves(y_true, y_proba, **options)[int(where[0])]
    share = curve.counts[curve.nonempty] / curve.counts.sum()
    gaps = np.abs(curve.observed - curve.predicted)[curve.nonempty]
    return curve, float((share * gaps).sum())


def _class_probabilities(estimator: Any, X: Any, pos_label: Any, owner: str) -> tuple[Any, None]:
    """The whole ``predict_proba`` matrix of K classes, for the multiclass diagrams (which
    have no positive label)."""
    return estimator.predict_proba(X), None


def _summable(sample_weight):
    """Weights whose per-bin sums overflow (e.g. 1e308 each) divided by a power of two, so
    that the bars have finite heights; the frequencies depend on their ratios only (exact)."""
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        return sample_weight  # the metric names what is wrong with them
    if w.ndim != 1 or not w.size or not np.isfinite(w).all() or (w < 0).any():
        return sample_weight
    with np.errstate(over="ignore"):
        if np.isfinite(w.sum()):
            return sample_weight
    return np.ldexp(w, -int(np.frexp(w.max())[1]) - int(np.ceil(np.log2(w.size))))
