"""Shared helpers of the displays: lazy matplotlib import and axes creation."""

from __future__ import annotations


def import_pyplot():
    """Import ``matplotlib.pyplot`` on first use, with a clear message when it is missing."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a declared optional dependency
        raise ImportError(
            "venncal.plotting needs matplotlib; install it with 'pip install venncal[plot]'."
        ) from None
    return plt


def get_axes(ax):
    """Return ``(figure, ax)``, creating a new figure when ``ax`` is None."""
    if ax is None:
        plt = import_pyplot()
        fig, ax = plt.subplots()
        return fig, ax
    return ax.figure, ax
