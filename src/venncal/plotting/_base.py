"""Shared helpers of the displays: lazy matplotlib import, checks, axes creation and the
drawing steps that several displays take alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from venncal.metrics._common import PARAM_DOCS, fill_doc

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from typing_extensions import Self

    from venncal._typing import ArrayLike

F = TypeVar("F", bound=Callable[..., Any])


class _Display(Protocol):
    """A display built by a ``from_predictions`` constructor."""

    @classmethod
    def from_predictions(cls, *args: Any, **kwargs: Any) -> Self: ...


D = TypeVar("D", bound=_Display)

#: Descriptions of the parameters that the displays share, put into a docstring by
#: :func:`fill_plot_doc` in place of a line ``{name}`` or ``{name, other, ...}``.
PLOT_DOCS = {
    # the binary metrics' own words for the data they are given
    **{key: PARAM_DOCS[key] for key in ("y_true", "y_proba", "sample_weight")},
    "estimator": "estimator : fitted binary classifier with ``predict_proba``",
    "X": """X : array-like of shape (n, n_features)
    Test objects.""",
    "y": """y : array-like of shape (n,)
    Their labels.""",
    "pos_label": """pos_label : int, float, bool or str, default=None
    The label of the positive class, as in :mod:`venncal.metrics`: None requires 0/1
    labels.""",
    "estimator_pos_label": """pos_label : int, float, bool or str, default=None
    The positive class; ``estimator.classes_[1]`` when None.""",
    "ax": """ax : matplotlib Axes, default=None
    Axes to draw on; a new figure when None.""",
    "plot_name": """name : str, default=None
    Overrides the stored label.""",
    "name": """name : str, default=None
    Label in the legend.""",
    "estimator_name": """name : str, default=None
    Label in the legend; the estimator's class name when None.""",
}


def fill_plot_doc(func: F) -> F:
    """Decorator: the shared descriptions of :data:`PLOT_DOCS` put into ``func``'s docstring
    (see :func:`venncal.metrics._common.fill_doc`)."""
    return fill_doc(func, docs=PLOT_DOCS)


def import_pyplot() -> Any:
    """Import ``matplotlib.pyplot`` on first use, with a clear message when it is missing."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a declared optional dependency
        raise ImportError(
            "venncal.plotting needs matplotlib; install it with 'pip install venncal[plot]'."
        ) from None
    return plt


def get_axes(ax: Axes | None) -> tuple[Figure, Axes]:
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


def check_ax(ax: Any, owner: str) -> Any:
    """Raise unless ``ax`` is None or a matplotlib Axes (anything with ``figure`` and ``plot``)."""
    if ax is not None and not (hasattr(ax, "figure") and hasattr(ax, "plot")):
        raise TypeError(
            f"The 'ax' parameter of {owner} must be a matplotlib Axes or None. Got {ax!r} instead."
        )
    return ax


def check_name(name: Any, owner: str) -> Any:
    """Raise unless ``name`` (a legend label) is a string or None."""
    if name is not None and not isinstance(name, str):
        raise TypeError(
            f"The 'name' parameter of {owner} must be a string or None. Got {name!r} instead."
        )
    return name


def _positive_column(estimator, pos_label, n_columns, owner):
    """Column of ``pos_label`` among the estimator's classes, and the label to compare with."""
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return 1, pos_label
    classes = list(getattr(classes, "tolist", lambda: classes)())
    if len(classes) != n_columns or n_columns != 2:
        raise ValueError(
            f"The estimator given to {owner} must be a binary classifier; it has "
            f"{len(classes)} classes."
        )
    if pos_label is None:
        return 1, classes[1]
    if pos_label not in classes:
        raise ValueError(
            f"The 'pos_label' parameter of {owner} is {pos_label!r}, which is not among the "
            f"classes of the estimator ({classes})."
        )
    return classes.index(pos_label), pos_label


def estimator_proba(estimator: Any, X: Any, pos_label: Any, owner: str) -> tuple[Any, Any]:
    """Probability of ``pos_label`` (by default ``classes_[1]``) from ``predict_proba``.

    Returns the probabilities and the positive label to pass to the metrics (None when the
    estimator has no ``classes_``, so that the labels must be 0/1).
    """
    if not hasattr(estimator, "predict_proba"):
        raise TypeError(
            f"The 'estimator' of {owner} must have predict_proba. Got {type(estimator).__name__}."
        )
    proba = estimator.predict_proba(X)
    if getattr(proba, "ndim", 2) == 1:
        return proba, pos_label
    column, pos_label = _positive_column(estimator, pos_label, proba.shape[1], owner)
    return proba[:, column], pos_label


def estimator_interval(estimator: Any, X: Any, pos_label: Any, owner: str) -> tuple[Any, Any, Any]:
    """Intervals ``(p0, p1)`` for ``pos_label`` (by default ``classes_[1]``) of a Venn predictor.

    The intervals of ``classes_[0]`` are ``(1 - p1, 1 - p0)``.
    """
    from venncal.classifiers import predict_interval

    interval = predict_interval(estimator, X)
    column, pos_label = _positive_column(estimator, pos_label, 2, owner)
    p0, p1 = interval[:, 0], interval[:, 1]
    if column == 0:
        p0, p1 = 1.0 - p1, 1.0 - p0
    return p0, p1, pos_label


def estimator_name(estimator: Any, name: str | None = None) -> str:
    """Label of an estimator in a legend: ``name`` when given, else its class name (the last
    step's for a Pipeline)."""
    if name is not None:
        return name
    model = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
    return type(model).__name__


def check_name_and_ax(name: object, ax: object, owner: str) -> None:
    """Check the legend label ``name`` and then ``ax`` given to a ``from_...`` constructor."""
    check_name(name, owner)
    check_ax(ax, owner)


def start_axes(ax: Axes | None, owner: str) -> tuple[Figure, Axes]:
    """Check ``ax`` of a display's ``plot`` and return ``(figure, ax)``, a new figure when
    ``ax`` is None."""
    check_ax(ax, owner)
    return get_axes(ax)


def start_plot(ax, name, stored_name, owner):
    """Check ``ax`` and ``name`` of a display's ``plot`` and return ``(figure, ax, name)``.

    A new figure is created when ``ax`` is None; ``name`` falls back to the stored label.
    """
    check_ax(ax, owner)
    check_name(name, owner)
    fig, ax = get_axes(ax)
    return fig, ax, stored_name if name is None else name


def background_axis(ax, ylabel):
    """A secondary y axis behind ``ax`` for counts or densities, labelled in grey.

    ``ax`` is raised above it and its background made transparent, so that what is drawn on
    the secondary axis stays behind the curves.
    """
    twin = ax.twinx()
    twin.set_ylabel(ylabel, color="0.4")
    twin.tick_params(axis="y", colors="0.4")
    ax.set_zorder(twin.get_zorder() + 1)
    ax.patch.set_visible(False)
    return twin


def align_background(ax: Axes, twin: Axes, largest: float) -> None:
    """Put 0 of the secondary axis ``twin`` at the height of probability 0 on ``ax``, and
    ``largest`` (a count or a density) about a quarter of the height above it.

    The probability axis has a margin below 0, so ``twin`` gets the same share of its height
    below 0: with ``ax`` spanning ``[a, b]``, 0 sits at the fraction ``z = -a / (b - a)`` of
    the height, and ``twin`` spans ``[-z / (1 - z) * top, top]``.
    """
    bottom, top_p = ax.get_ylim()
    z = (0.0 - bottom) / (top_p - bottom)
    top = 4.0 * (largest if largest > 0 else 1.0)
    twin.set_ylim(-z / (1.0 - z) * top, top)


def plot_diagonal(ax: Axes, label: str | None = "perfectly calibrated") -> None:
    """Draw the diagonal of perfect calibration, dashed grey (left out of the legend when
    ``label`` is None)."""
    ax.plot([0, 1], [0, 1], linestyle="--", color="0.5", linewidth=1, label=label)


def probability_axes(ax: Axes, xlabel: str, ylabel: str) -> None:
    """Limits and labels of a diagram of probabilities: ``[0, 1]`` across, and up the side
    ``[0, 1]`` with a margin of 0.02 below and above, so that markers at 0 and 1 show whole."""
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def display_from_estimator(
    cls: type[D],
    estimator: Any,
    X: Any,
    y: ArrayLike,
    *,
    name: str | None,
    pos_label: object,
    owner: str,
    predict: Callable[[Any, Any, Any, str], tuple[Any, ...]] = estimator_proba,
    **kwargs: Any,
) -> D:
    """``cls.from_predictions`` on what ``predict`` gives for ``X``: by default a binary
    classifier's ``predict_proba`` (:func:`estimator_proba`), or the intervals of a Venn
    predictor with ``predict=estimator_interval``.

    ``predict(estimator, X, pos_label, owner)`` returns the predictions (passed on in order
    after ``y``) followed by the positive label. The legend label defaults to the estimator's
    class name and ``pos_label`` to ``estimator.classes_[1]``; the other keyword arguments are
    passed on.
    """
    *predictions, pos_label = predict(estimator, X, pos_label, owner)
    return cls.from_predictions(
        y,
        *predictions,
        name=estimator_name(estimator, name),
        pos_label=pos_label,
        **kwargs,
    )
