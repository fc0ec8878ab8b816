"""Critical-difference diagram for comparing methods by their average ranks (Demšar 2006)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from venncal.plotting._base import start_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from typing_extensions import Self


__all__ = ["CriticalDifferenceDisplay", "cliques"]


def _check_ranks(average_ranks, critical_difference):
    if not isinstance(average_ranks, dict) or len(average_ranks) < 2:
        raise ValueError(
            "'average_ranks' must be a dict of at least two method names to average ranks, "
            f"got {average_ranks!r}."
        )
    names = [str(k) for k in average_ranks]
    try:
        ranks = np.asarray(list(average_ranks.values()), dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("'average_ranks' values must be numbers (average ranks >= 1).") from None
    if ranks.ndim != 1 or not np.isfinite(ranks).all() or (ranks < 1).any():
        raise ValueError("'average_ranks' values must be finite average ranks >= 1.")
    if (
        not isinstance(critical_difference, numbers.Real)
        or isinstance(critical_difference, bool)
        or not np.isfinite(critical_difference)
        or critical_difference < 0
    ):
        raise ValueError(
            "'critical_difference' must be a non-negative number (e.g. from "
            f"nemenyi_critical_difference), got {critical_difference!r}."
        )
    return names, ranks, float(critical_difference)


def cliques(average_ranks: dict[str, float], critical_difference: float) -> list[tuple[str, ...]]:
    """Groups of methods whose average ranks differ by less than the critical difference.

    Two methods differ significantly when their average ranks differ by at least the critical
    difference (Demšar 2006, Section 3.2.2). A clique is a maximal run of methods, consecutive
    in rank order, whose highest and lowest ranks differ by less than that; the diagram joins
    each clique with a bar.

    Parameters
    ----------
    average_ranks : dict of str to float
        Average rank of each method (1 is best).
    critical_difference : float
        Critical difference of the post-hoc test, e.g. Nemenyi's.

    Returns
    -------
    groups : list of tuple of str
        Each maximal group of two or more methods, sorted by rank.

    Examples
    --------
    >>> cliques({"a": 1.2, "b": 1.9, "c": 2.6, "d": 4.0}, 1.0)
    [('a', 'b'), ('b', 'c')]
    """
    names, ranks, cd = _check_ranks(average_ranks, critical_difference)
    order = np.argsort(ranks, kind="stable")
    r = ranks[order]
    groups, last_end = [], -1
    for i in range(r.shape[0]):
        j = i
        while j + 1 < r.shape[0] and r[j + 1] - r[i] < cd:
            j += 1
        if j > i and j > last_end:
            groups.append(tuple(names[k] for k in order[i : j + 1]))
            last_end = j
    return groups


class CriticalDifferenceDisplay:
    """Critical-difference diagram: methods placed on an axis of average ranks.

    The best half of the methods (lowest ranks) is labelled on the left, the rest on the right;
    a bar above the axis shows the critical difference, and thick bars below join the methods
    that are not significantly different (:func:`cliques`). It only draws: compute the ranks
    and the critical difference with :mod:`venncal.metrics.ranking`.

    Parameters
    ----------
    average_ranks : dict of str to float
        Average rank of each method over the data sets (1 is best).
    critical_difference : float
        The critical difference, e.g. from Nemenyi's test.

    Attributes
    ----------
    cliques_ : list of tuple of str
        The groups joined by a bar.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    References
    ----------
    Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7 (2006),
    Figure 1.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ranks = {"VA": 1.8, "SVA": 2.0, "W": 2.9, "DIR": 3.3}
    >>> disp = CriticalDifferenceDisplay.from_ranks(ranks, 1.2)
    >>> disp.cliques_
    [('VA', 'SVA', 'W'), ('W', 'DIR')]
    """

    def __init__(self, average_ranks: dict[str, float], critical_difference: float) -> None:
        self.average_ranks = average_ranks
        self.critical_difference = critical_difference

    @classmethod
    def from_ranks(
        cls,
        average_ranks: dict[str, float],
        critical_difference: float,
        *,
        ax: Axes | None = None,
    ) -> Self:
        """Draw the diagram from average ranks and a critical difference.

        Parameters
        ----------
        average_ranks : dict of str to float
        critical_difference : float
        ax : matplotlib Axes, default=None

        Returns
        -------
        CriticalDifferenceDisplay
        """
        _check_ranks(average_ranks, critical_difference)
        return cls(dict(average_ranks), critical_difference).plot(ax=ax)

    def plot(self, ax: Axes | None = None) -> Self:
        """Draw the diagram and return self."""
        names, ranks, cd = _check_ranks(self.average_ranks, self.critical_difference)
        fig, ax = start_axes(ax, type(self).__name__ + ".plot")
        k = len(names)
        lo, hi = 1, max(k, int(np.ceil(ranks.max())))
        order = np.argsort(ranks, kind="stable")
        n_left = (k + 1) // 2
        lookup = dict(zip(names, ranks, strict=True))
        self.cliques_ = cliques(lookup, cd)
        step = 0.45
        base = 0.3 + 0.15 * len(self.cliques_)  # label rows start below the clique bars
        span = hi - lo
        left_x, right_x = lo - 0.15 * span - 0.3, hi + 0.15 * span + 0.3
        ax.set_xlim(lo - 0.6 * span - 0.8, hi + 0.6 * span + 0.8)
        ax.set_ylim(-(base + n_left * step) - 0.2, 1.5)
        ax.axis("off")
        # the rank axis
        ax.plot([lo, hi], [0, 0], color="k", linewidth=1)
        for t in range(lo, hi + 1):
            ax.plot([t, t], [0, 0.1], color="k", linewidth=1)
            ax.text(t, 0.16, str(t), ha="center", va="bottom", fontsize="small")
        # the critical difference
        ax.plot([lo, lo + cd], [1.0, 1.0], color="k", linewidth=1.5)
        for x in (lo, lo + cd):
            ax.plot([x, x], [0.94, 1.06], color="k", linewidth=1.5)
        ax.text(lo + cd / 2, 1.1, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize="small")
        # method labels: the best half on the left, the rest on the right
        for pos, i in enumerate(order):
            if pos < n_left:
                yy, xe, ha = -(base + pos * step), left_x, "right"
            else:
                yy, xe, ha = -(base + (k - 1 - pos) * step), right_x, "left"
            ax.plot([ranks[i], ranks[i], xe], [0, yy, yy], color="k", linewidth=0.8)
            ax.text(
                xe + (-0.05 if ha == "right" else 0.05),
                yy,
                f"{names[i]} ({ranks[i]:.2f})",
                ha=ha,
                va="center",
                fontsize="small",
            )
        # cliques: thick bars just below the axis
        for g, group in enumerate(self.cliques_):
            yy = -0.15 - 0.15 * g
            ax.plot(
                [lookup[group[0]] - 0.04, lookup[group[-1]] + 0.04],
                [yy, yy],
                color="C3",
                linewidth=3.5,
                solid_capstyle="round",
                zorder=3,
            )
        self.ax_, self.figure_ = ax, fig
        return self
