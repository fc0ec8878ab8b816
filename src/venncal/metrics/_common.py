"""Input preparation and binning shared by the metrics (numpy only)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

import numpy as np

from venncal._validation import (
    check_consistent_length,
    check_interval,
    check_labels_pos,
    check_option,
    check_positive_int,
    check_probabilities,
    check_sample_weight,
)
from venncal.core._docs import fill_docstring
from venncal.core._weighted import distinct_cumulative_share

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy.typing as npt

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray

_F = TypeVar("_F", bound="Callable[..., Any]")

STRATEGIES = ("uniform", "quantile")

#: Largest ``n_bins`` of the functions that return one value per bin (empty bins included):
#: their output is ``n_bins`` long, so a larger number is refused rather than allocated.
MAX_CURVE_BINS = 10**6

#: Largest ``n_bins`` of the scalar binned metrics. Their work depends on the data only (they
#: never allocate ``n_bins`` values); the bound keeps the bin numbers exact in float64.
MAX_BINS = 2**52


#: Descriptions of the parameters that the binary metrics share, put into a docstring by
#: :func:`fill_doc` in place of a line holding ``{name}`` (or ``{name, other, ...}``) alone.
PARAM_DOCS = {
    "y_true": """y_true : array-like of shape (n,)
    Labels, 0/1 or booleans.""",
    "y_proba": """y_proba : array-like of shape (n,) or (n, 2)
    Probability of the positive class.""",
    "sample_weight": """sample_weight : array-like of shape (n,), default=None
    Non-negative weights.""",
    "sample_weight_copies": """sample_weight : array-like of shape (n,), default=None
    Non-negative weights; weight ``k`` counts as ``k`` copies of a row.""",
    "n_bins": """n_bins : int, default=10
    Number of bins; only the occupied ones are computed, so any number costs the same.""",
    "pos_label": """pos_label : int, float, bool or str, default=None
    The label of the positive class. None requires ``y_true`` to hold 0/1 (or booleans);
    otherwise ``y_true == pos_label`` is the positive class and the other label (at most
    one) the negative class.""",
}


def fill_doc(func: _F, docs: dict[str, str] | None = None) -> _F:
    """Decorator: put the shared parameter descriptions of ``docs`` (by default
    :data:`PARAM_DOCS`) into the docstring of ``func``, in place of a line ``{name}`` or
    ``{name, other, ...}`` (see :func:`venncal.core._docs.fill_docstring`)."""
    return fill_docstring(func, PARAM_DOCS if docs is None else docs)


@overload
def prepare(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    sample_weight: ArrayLike | None = ...,
    *,
    return_scale: Literal[False] = ...,
    pos_label: object = ...,
    lean: Literal[False] = ...,
) -> tuple[FloatArray, FloatArray, FloatArray]: ...
@overload
def prepare(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    sample_weight: ArrayLike | None = ...,
    *,
    return_scale: Literal[True],
    pos_label: object = ...,
    lean: Literal[False] = ...,
) -> tuple[FloatArray, FloatArray, FloatArray, float]: ...
@overload
def prepare(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    sample_weight: ArrayLike | None = ...,
    *,
    return_scale: bool = ...,
    pos_label: object = ...,
    lean: Literal[True],
) -> tuple[npt.NDArray[np.int8], FloatArray, FloatArray | None]: ...
def prepare(
    y_true: ArrayLike,
    y_proba: ArrayLike,
    sample_weight: ArrayLike | None = None,
    *,
    return_scale: bool = False,
    pos_label: object = None,
    lean: bool = False,
) -> (
    tuple[FloatArray, FloatArray, FloatArray]
    | tuple[FloatArray, FloatArray, FloatArray, float]
    | tuple[npt.NDArray[np.int8], FloatArray, FloatArray | None]
):
    """Validate ``(y_true, y_proba, sample_weight)`` and return clean arrays.

    Returns ``y`` (float64 0/1), ``p`` (float64 in [0, 1]) and ``w`` (float64 weights, all ones
    when ``sample_weight`` is None). The weights are divided by their maximum, so that every
    metric gives the same number for weights scaled by any positive factor, however large or
    small (no sum of weights overflows to ``inf`` or underflows to 0). With
    ``return_scale=True`` the factor (1.0 without weights) is returned fourth, for results that
    report totals of weight.

    ``pos_label=None`` requires 0/1 (or boolean) labels; a given ``pos_label`` makes
    ``y_true == pos_label`` the positive class and every other label the negative one (see
    :func:`venncal._validation.check_labels_pos`).

    ``lean=True`` skips two copies for metrics that need neither: ``y`` stays the int8 0/1
    array and ``w`` is None when ``sample_weight`` is None.
    """
    y = check_labels_pos(y_true, pos_label)
    p = check_probabilities(y_proba)
    check_consistent_length(y_true=y, y_proba=p)
    w = check_sample_weight(sample_weight, y.shape[0])
    scale = 1.0 if w is None else float(w.max())
    if lean:
        return y, p, None if w is None else w / scale
    w = np.ones(y.shape[0]) if w is None else w / scale
    if return_scale:
        return y.astype(np.float64), p, w, scale
    return y.astype(np.float64), p, w


def split_interval(
    p0: ArrayLike, p1: ArrayLike | None, *, owner: str
) -> tuple[ArrayLike, ArrayLike]:
    """Return ``(p0, p1)`` from the interval ends given apart, or from an (n, 2) array.

    Every function that takes Venn intervals accepts what ``predict_interval`` returns, an
    array of shape (n, 2) with the lower end in column 0, passed alone; ``p0`` and ``p1`` given
    apart (two arrays of shape (n,)) are accepted as well.

    Examples
    --------
    >>> split_interval(np.array([[0.1, 0.3], [0.4, 0.6]]), None, owner="interval_width")
    (array([0.1, 0.4]), array([0.3, 0.6]))
    >>> split_interval([0.1, 0.4], None, owner="interval_width")
    Traceback (most recent call last):
    ...
    ValueError: interval_width takes the intervals as one array of shape (n, 2) (as predict_interval returns) or as p0 and p1 apart; got one array of shape (2,).
    """
    if p1 is not None:
        return p0, p1
    arr = np.asarray(p0.to_numpy() if hasattr(p0, "to_numpy") else p0)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            f"{owner} takes the intervals as one array of shape (n, 2) (as predict_interval "
            f"returns) or as p0 and p1 apart; got one array of shape {arr.shape}."
        )
    return arr[:, 0], arr[:, 1]


def prepare_interval(
    p0: ArrayLike, p1: ArrayLike | None = None, *, owner: str = "the metric"
) -> tuple[FloatArray, FloatArray]:
    """Validate a pair of probability arrays of equal length (the ends of Venn intervals).

    ``p1=None`` takes ``p0`` as an (n, 2) array of intervals (see :func:`split_interval`).
    Raises a ``ValueError`` when ``p0 > p1`` beyond rounding (1e-9): a crossed interval has a
    negative width and no frequency inside it.
    """
    lower, upper = split_interval(p0, p1, owner=owner)
    q0 = check_probabilities(lower, name="p0")
    q1 = check_probabilities(upper, name="p1")
    check_consistent_length(p0=q0, p1=q1)
    check_interval(q0, q1)
    return q0, q1


def check_n_bins(n_bins: int, owner: str, *, maximum: int = MAX_BINS) -> int:
    """Return ``n_bins`` as an int in ``[1, maximum]`` or raise naming the parameter."""
    n_bins = check_positive_int(n_bins, name="n_bins", owner=owner)
    if n_bins > maximum:
        raise ValueError(
            f"The 'n_bins' parameter of {owner} must be at most {maximum}. Got {n_bins} instead."
        )
    return n_bins


def _distinct_cumulative(
    values: FloatArray, weights: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Distinct sorted values, their cumulative weight share, and the next value after each."""
    u, cum = distinct_cumulative_share(values, weights)
    nxt = np.append(u[1:], 1.0 if u[-1] < 1.0 else np.inf)
    return u, cum, nxt


def quantile_edges(values: FloatArray, weights: FloatArray, q: ArrayLike) -> FloatArray:
    """Edges that split weighted values into groups of (about) equal weight.

    For each share ``q``, find the smallest distinct value ``u_k`` whose cumulative weight share
    reaches ``q`` and put the edge half-way between ``u_k`` and the next distinct value, so that
    ``u_k`` falls below the edge. Tied values are never split, and duplicating a row gives the
    same edges as doubling its weight.
    """
    u, cum, nxt = _distinct_cumulative(values, weights)
    k = np.searchsorted(cum, np.asarray(q) - 1e-12, side="left")
    k = np.clip(k, 0, u.shape[0] - 1)
    edges = 0.5 * (u[k] + nxt[k])
    return np.minimum(edges, 1.0)


def bin_edges(p: FloatArray, w: FloatArray, n_bins: int, strategy: str, owner: str) -> FloatArray:
    """Return the ``n_bins + 1`` edges of the bins, from 0 to 1.

    ``"uniform"``: ``[0, 1/n), [1/n, 2/n), ..., [(n-1)/n, 1]``; the edges are ``i / n_bins`` so
    that a prediction of exactly 0.3 falls in ``[0.3, 0.4)`` as in Naeini et al. (2015).
    ``"quantile"``: interior edges between the predictions at the weighted quantiles
    ``1/n, ..., (n-1)/n``, so that the bins hold about equal weight; tied predictions stay in
    one bin, which can leave other bins empty.

    The result has ``n_bins + 1`` values, so ``n_bins`` is limited to :data:`MAX_CURVE_BINS`;
    :func:`bin_index` finds the bins without building the edges.
    """
    n_bins = check_n_bins(n_bins, owner, maximum=MAX_CURVE_BINS)
    check_option(strategy, STRATEGIES, name="strategy", owner=owner)
    if strategy == "uniform":
        return np.arange(n_bins + 1, dtype=np.float64) / n_bins
    interior = quantile_edges(p[w > 0], w[w > 0], np.arange(1, n_bins) / n_bins)
    return np.concatenate(([0.0], interior, [1.0]))


def assign_bins(p: FloatArray, edges: FloatArray) -> IntArray:
    """Index of the bin of each prediction: bin ``i`` is ``[edges[i], edges[i+1])``, the last
    bin is closed on the right."""
    n_bins = edges.shape[0] - 1
    return np.clip(np.searchsorted(edges[1:-1], p, side="right"), 0, n_bins - 1)


#: Largest grid of :func:`_grid_count` checked through a table of its values; beyond it (a
#: grid far finer than the data) the rounding is fixed by a few passes without the table.
_GRID_TABLE_MAX = 1 << 16


def _grid_count(x: ArrayLike, n: int, shift: float = 0.0) -> IntArray:
    """``#{i in 1..n-1 : i / n - shift <= x}`` for each ``x``, without a search.

    The grid values are computed in float64 exactly as ``np.arange(1, n) / n - shift`` would be,
    so the counts equal a ``searchsorted`` over the explicit grid. ``floor((x + shift) * n)`` is
    that count except within a rounding of a grid value; for a grid of at most
    :data:`_GRID_TABLE_MAX` values one pass over a table of the grid finds those few, which are
    then searched; a finer grid is fixed step by step without the table.
    """
    x = np.asarray(x, dtype=np.float64)
    nf = float(n)
    t = x * nf if shift == 0.0 else (x + shift) * nf
    np.clip(t, 0.0, n - 1.0, out=t)
    c = t.astype(np.intp)  # truncation of values >= 0: the floor
    if n <= _GRID_TABLE_MAX:
        grid = np.arange(1, n, dtype=np.float64) / nf - shift
        below = np.concatenate(([-np.inf], grid))  # bin c holds below[c] <= x < above[c]
        above = np.concatenate((grid, [np.inf]))
        # t is free again: it holds each value's bin ends in turn (no new large arrays)
        off = np.greater(below.take(c, out=t, mode="clip"), x)
        off |= np.less_equal(above.take(c, out=t, mode="clip"), x)
        if off.any():
            where = np.flatnonzero(off)
            c[where] = np.searchsorted(grid, x[where], side="right")
        return c
    while True:  # the floor is off by at most a step or two from rounding
        up = (c < n - 1) & ((c + 1.0) / nf - shift <= x)
        down = (c >= 1) & (c / nf - shift > x)
        if not (up.any() or down.any()):
            return c
        c = c + up - down


def bin_index(
    p: FloatArray, w: FloatArray | None, n_bins: int, strategy: str, owner: str
) -> IntArray:
    """Bin of each prediction, equal to ``assign_bins(p, bin_edges(p, w, n_bins, strategy))``,
    in time and memory that depend on the data only (never ``n_bins`` values).

    ``w=None`` means equal weights.
    """
    n_bins = check_n_bins(n_bins, owner)
    check_option(strategy, STRATEGIES, name="strategy", owner=owner)
    if strategy == "uniform":
        # bin i is [i/n, (i+1)/n): the number of interior edges i/n (i = 1..n-1) at or below p
        return _grid_count(p, n_bins)
    if w is None:
        u, cum, nxt = _distinct_cumulative(p, np.ones(p.shape[0]))
    else:
        keep = w > 0
        u, cum, nxt = _distinct_cumulative(p[keep], w[keep])
    # how many of the quantile levels q_i = i/n land on each distinct value (as searchsorted
    # over cum with q_i - 1e-12 does in quantile_edges), and the edge each of them makes
    at_most = _grid_count(cum, n_bins, shift=1e-12)
    at_most[-1] = n_bins - 1  # levels beyond the last value are clipped to it
    mult = np.diff(at_most, prepend=0)
    used = mult > 0
    if not used.any():  # one bin
        return np.zeros(p.shape[0], dtype=np.int64)
    edges = np.minimum(0.5 * (u + nxt), 1.0)[used]
    below = np.cumsum(mult[used])
    j = np.searchsorted(edges, p, side="right")
    return np.where(j > 0, below[np.maximum(j - 1, 0)], 0)


#: Bin numbers below ``DENSE_FACTOR * n + DENSE_MIN`` (``n`` predictions) are counted with one
#: ``bincount`` over every bin; sparser ones are first numbered among the occupied bins.
DENSE_FACTOR, DENSE_MIN = 4, 1024


def binned_sums(
    idx: AnyArray, *columns: AnyArray | None, n_bins: int | None = None
) -> tuple[AnyArray, IntArray, list[FloatArray]]:
    """Group by bin: the bin numbers (sorted), each row's place among them, and the per-bin sum
    of each column (a column of None sums ones: the number of rows of each bin).

    Integer bins ``idx`` in ``[0, n_bins)`` with ``n_bins`` at most
    ``DENSE_FACTOR * len(idx) + DENSE_MIN`` are summed by ``np.bincount`` over all ``n_bins``
    bins (empty ones included, with sums 0); the bin numbers are then ``arange(n_bins)`` and the
    places are ``idx`` itself. Otherwise (any other ``idx``, e.g. the predictions themselves, or
    far more bins than rows) the occupied bins are found by a sort and only they are listed.
    Both routes add each bin's values in the order of the rows, so the sums are the same.
    """
    if n_bins is not None and n_bins <= DENSE_FACTOR * idx.shape[0] + DENSE_MIN:
        bins, inverse, size = np.arange(n_bins), idx, n_bins
    else:
        bins, inverse = np.unique(idx, return_inverse=True)
        size = bins.shape[0]
    sums = [
        np.bincount(inverse, minlength=size).astype(np.float64)
        if c is None
        # numpy's stubs type every bincount as integer; with weights it is float64
        else cast("FloatArray", np.bincount(inverse, weights=c, minlength=size))
        for c in columns
    ]
    return bins, inverse, sums
