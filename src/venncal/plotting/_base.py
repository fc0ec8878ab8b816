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


#: Largest number of bins a display draws: one bar, marker and shading per bin, so a larger
#: number would take minutes to draw and could not be read.
MAX_DISPLAY_BINS = 1000


def check_display_bins(n_bins, owner):
    """Return ``n_bins`` as an int in ``[1, MAX_DISPLAY_BINS]`` or raise naming the parameter."""
    from venncal.metrics._common import check_n_bins

    return check_n_bins(n_bins, owner, maximum=MAX_DISPLAY_BINS)


def check_ax(ax, owner):
    """Raise unless ``ax`` is None or a matplotlib Axes (anything with ``figure`` and ``plot``)."""
    if ax is not None and not (hasattr(ax, "figure") and hasattr(ax, "plot")):
        raise TypeError(
            f"The 'ax' parameter of {owner} must be a matplotlib Axes or None. Got {ax!r} instead."
        )
    return ax


def check_name(name, owner):
    """Raise unless ``name`` (a legend label) is a string or None."""
    if name is not None and not isinstance(name, str):
        raise TypeError(
            f"The 'name' parameter of {owner} must be a string or None. Got {name!r} instead."
        )
    return name
