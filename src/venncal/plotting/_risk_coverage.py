"""Risk-coverage curves of selective prediction, with the operating points of abstention rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_in_range
from venncal.metrics import risk_coverage_curve, selective_error
from venncal.plotting._base import check_ax, fill_plot_doc, start_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from typing_extensions import Self

    from venncal._typing import ArrayLike
    from venncal.metrics import RiskCoverageCurve, SelectiveResult

__all__ = ["RiskCoverageDisplay"]


def _by_name(value: object, what: str) -> dict[str, object]:
    if not isinstance(value, dict):
        return {"classifier": value}
    if not value:
        raise ValueError(f"'{what}' is an empty dict; give at least one entry.")
    return {str(k): v for k, v in value.items()}


class RiskCoverageDisplay:
    """Risk-coverage curves: the error among accepted rows against the share accepted, as the
    rows are accepted from the most confident down.

    The area under each curve (AURC) is in the legend; lower is better. An abstention rule's
    operating point (its error and coverage on these rows) is drawn as a dot with the
    Clopper-Pearson interval of its error, and a target error as a dotted line.

    Parameters
    ----------
    curves : dict of str to RiskCoverageCurve
        Outputs of :func:`venncal.metrics.risk_coverage_curve`, by name.
    points : dict of str to SelectiveResult, default=None
        Operating points (outputs of :func:`venncal.metrics.selective_error`), by name.
    target_error : float, default=None
        A target error to draw.

    Attributes
    ----------
    lines_ : dict of str to matplotlib Line2D
    points_ : dict of str to matplotlib ErrorbarContainer
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from venncal import AbstentionRule
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(4000)
    >>> y = (rng.random(4000) < p).astype(int)
    >>> rule = AbstentionRule(target_error=0.1).fit(p[:2000], y[:2000])
    >>> disp = RiskCoverageDisplay.from_predictions(
    ...     y[2000:], p[2000:], accept=rule.accept(p[2000:]), target_error=0.1
    ... )
    >>> point = disp.points["classifier"]
    >>> bool(point.error_interval[0] < 0.1), sorted(disp.lines_)
    (True, ['classifier'])
    """

    def __init__(
        self,
        curves: dict[str, RiskCoverageCurve],
        *,
        points: dict[str, SelectiveResult] | None = None,
        target_error: float | None = None,
    ) -> None:
        self.curves = curves
        self.points = points
        self.target_error = target_error

    @classmethod
    @fill_plot_doc
    def from_predictions(
        cls,
        y_true: ArrayLike,
        y_proba: ArrayLike | dict[str, ArrayLike],
        *,
        confidence: ArrayLike | dict[str, ArrayLike] | None = None,
        accept: ArrayLike | dict[str, ArrayLike] | None = None,
        target_error: float | None = None,
        labels: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
        pos_label: object = None,
        ax: Axes | None = None,
    ) -> Self:
        """Compute the curves (and operating points) and draw them.

        Parameters
        ----------
        y_true : array-like of shape (n,)
            Labels: 0/1 (or ``pos_label``) with binary probabilities; class labels with
            matrices.
        y_proba : array-like of shape (n,) or (n, K), or dict of str to them
            Probabilities of the positive class or of every class, by classifier name (one
            array is named ``"classifier"``).
        confidence : array-like of shape (n,), or dict of str to them, default=None
            Scores to rank the rows by instead of the probability of the predicted class
            (a dict names the curves of ``y_proba`` it ranks differently).
        accept : array-like of bool of shape (n,), or dict of str to them, default=None
            Rows accepted by an abstention rule, by the name of its classifier: their
            operating point is drawn.
        target_error : float, default=None
            A target error to draw, in (0, 1).
        labels : array-like of shape (K,), default=None
            The class of each column of matrices.
        sample_weight : array-like of shape (n,), default=None
        {pos_label}
        ax : matplotlib Axes, default=None

        Returns
        -------
        RiskCoverageDisplay
        """
        owner = "RiskCoverageDisplay.from_predictions"
        check_ax(ax, owner)
        if target_error is not None:
            target_error = check_in_range(target_error, 0, 1, name="target_error", owner=owner)
        probas = _by_name(y_proba, "y_proba")
        ranks = {} if confidence is None else _by_name(confidence, "confidence")
        accepts = {} if accept is None else _by_name(accept, "accept")
        unknown = sorted((set(ranks) | set(accepts)) - set(probas))
        if unknown:
            raise ValueError(
                f"'confidence' or 'accept' of {owner} name {unknown}, which 'y_proba' does not."
            )
        common = {"labels": labels, "pos_label": pos_label, "sample_weight": sample_weight}
        curves = {
            name: risk_coverage_curve(y_true, p, confidence=ranks.get(name), **common)  # type: ignore[arg-type]
            for name, p in probas.items()
        }
        points = {
            name: selective_error(y_true, probas[name], accept=a, **common)  # type: ignore[arg-type]
            for name, a in accepts.items()
        }
        return cls(curves, points=points or None, target_error=target_error).plot(ax=ax)

    def plot(self, ax: Axes | None = None) -> Self:
        """Draw the curves and return self."""
        fig, ax = start_axes(ax, "RiskCoverageDisplay.plot")
        self.lines_, self.points_ = {}, {}
        top = 0.0
        for i, (name, curve) in enumerate(self.curves.items()):
            color = f"C{i % 10}"
            (self.lines_[name],) = ax.plot(
                curve.coverage,
                curve.risk,
                color=color,
                drawstyle="steps-pre",
                label=f"{name} (AURC = {curve.aurc:.4f})",
            )
            top = max(top, float(np.max(curve.risk)))
            point = (self.points or {}).get(name)
            if point is not None and point.coverage > 0:
                lo, hi = point.error_interval
                self.points_[name] = ax.errorbar(
                    [point.coverage],
                    [point.error],
                    yerr=[[point.error - lo], [hi - point.error]],
                    fmt="o",
                    color=color,
                    capsize=3,
                    label=f"{name}: rule (error {point.error:.3f}, coverage {point.coverage:.3f})",
                )
                top = max(top, hi)
        if self.target_error is not None:
            ax.axhline(self.target_error, color="0.4", linestyle=":", label="target error")
            top = max(top, self.target_error)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.3 * top if top > 0 else 1.0)  # room for the legend
        ax.set_xlabel("coverage (share of rows answered)")
        ax.set_ylabel("error among answered rows")
        ax.legend(loc="upper left", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self
