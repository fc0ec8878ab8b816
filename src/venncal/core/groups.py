"""Group labels for calibration within groups (a Mondrian taxonomy).

Shared by the estimators and by the prediction of a loaded model file, which runs without
scikit-learn (:mod:`venncal.persistence._predictor`).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.exceptions import VenncalWarning, user_stacklevel

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray
    from venncal.core.venn_abers import IVAPTables

__all__ = [
    "GROUP_FALLBACKS",
    "assign_groups",
    "check_groups",
    "group_parts",
    "group_rows",
    "unseen_groups",
    "venn_abers_interval",
]

#: what happens to a group that cannot be calibrated on its own, or is unknown at prediction
GROUP_FALLBACKS = ("error", "pooled")


def check_groups(
    groups: ArrayLike, n: int, *, name: str = "groups", what: str = "scores"
) -> AnyArray:
    """Return group labels as a 1-D array of ``n`` integers or strings, or raise one line.

    ``name`` is the parameter that holds the groups and ``what`` the plural noun of the ``n``
    things they label (``"scores"``, or ``"rows"`` of X), both for the error messages.

    Examples
    --------
    >>> check_groups(["a", "b", "a"], 3)
    array(['a', 'b', 'a'], dtype='<U1')
    >>> check_groups([0, 1], 3, name="calibration_groups", what="rows")
    Traceback (most recent call last):
    ...
    ValueError: 'calibration_groups' has 2 labels for 3 rows; they must match.
    >>> check_groups([1.5, 2.0], 2)
    Traceback (most recent call last):
    ...
    TypeError: 'groups' must hold integers, strings or booleans (a categorical variable); got float64.
    """
    arr = np.asarray(groups.to_numpy() if hasattr(groups, "to_numpy") else groups)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"'{name}' must be 1-D, one label per row; got shape {arr.shape}.")
    if arr.shape[0] != n:
        raise ValueError(f"'{name}' has {arr.shape[0]} labels for {n} {what}; they must match.")
    if n == 0 and arr.dtype.kind == "f":  # an empty list: no labels, of no kind
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "O":
        kinds = {type(v) for v in arr.tolist()}
        if kinds <= {str}:
            arr = arr.astype(str)
        elif kinds <= {int, bool}:
            arr = arr.astype(np.int64)
        else:
            names = ", ".join(sorted(k.__name__ for k in kinds))
            raise TypeError(
                f"'{name}' must hold integers or strings of one kind (a categorical variable); "
                f"got {names}."
            )
    if arr.dtype.kind not in "iubU":
        raise TypeError(
            f"'{name}' must hold integers, strings or booleans (a categorical variable); "
            f"got {arr.dtype}."
        )
    return arr


def group_rows(groups: AnyArray) -> list[tuple[Any, IntArray]]:
    """``[(label, row indices)]`` of each distinct group, labels as Python scalars, sorted."""
    labels, inverse = np.unique(groups, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(labels.shape[0] + 1))
    return [(labels[k].item(), order[bounds[k] : bounds[k + 1]]) for k in range(labels.shape[0])]


def unseen_groups(owner: str, unknown: Sequence[Any], fallback: str) -> None:
    """Raise one line for groups not seen at fit (``fallback="error"``), or warn once, at the
    user's call, that they get the pooled predictor.

    Examples
    --------
    >>> unseen_groups("VennAbersCalibrator", [], "error")  # nothing unseen: nothing said
    >>> unseen_groups("VennAbersCalibrator", ["c"], "error")
    Traceback (most recent call last):
    ...
    ValueError: VennAbersCalibrator: groups ['c'] were not seen at fit; pass group_fallback='pooled' to give them the pooled predictor.
    """
    if not unknown:
        return
    if fallback == "error":
        raise ValueError(
            f"{owner}: groups {unknown!r} were not seen at fit; pass "
            "group_fallback='pooled' to give them the pooled predictor."
        )
    warnings.warn(
        f"{owner}: groups {unknown!r} were not seen at fit and get the predictor of all "
        "groups pooled.",
        VenncalWarning,
        stacklevel=user_stacklevel(),
    )


def assign_groups(
    g: AnyArray, fitted_groups: Sequence[Any], pooled_groups: Collection[Any]
) -> tuple[list[tuple[int | None, IntArray]], list[Any]]:
    """Which fitted group predicts each group of checked labels ``g``.

    Returns ``(parts, unseen)``: ``parts`` is ``[(k, rows)]``, one per distinct label of
    ``g``, with ``k`` its index in ``fitted_groups``, or None for a group that gets the pooled
    predictor (pooled at fit, or not seen at fit); ``unseen`` lists the groups not seen at fit.

    Examples
    --------
    >>> parts, unseen = assign_groups(np.array(["b", "c", "a", "b"]), ["a", "b"], [])
    >>> [(k, rows.tolist()) for k, rows in parts], unseen
    ([(0, [2]), (1, [0, 3]), (None, [1])], ['c'])
    """
    index = {label: k for k, label in enumerate(fitted_groups)}
    parts: list[tuple[int | None, IntArray]] = []
    unknown: list[Any] = []
    for label, rows in group_rows(g):
        k = index.get(label)
        if k is None and label not in pooled_groups:
            unknown.append(label)
        parts.append((k, rows))
    return parts, unknown


def group_parts(
    n: int,
    groups: ArrayLike | None,
    *,
    fitted_groups: Sequence[Any] | None,
    pooled_groups: Collection[Any] | None,
    fallback: str,
    owner: str,
) -> list[tuple[int | None, IntArray | None]]:
    """The parts of ``n`` test objects that one predictor each serves, for an estimator fitted
    within groups or not, with the one-line errors and the warning of unseen groups.

    Parameters
    ----------
    n : int
        The number of test objects.
    groups : array-like of shape (n,) or None
        Their groups.
    fitted_groups, pooled_groups : list or None
        The groups predicted on their own and those pooled at fit (both None when the
        estimator was fitted without groups).
    fallback : {"error", "pooled"}
        What a group not seen at fit gets (:func:`unseen_groups`).
    owner : str
        The name in the error messages.

    Returns
    -------
    parts : list of (k, rows)
        ``k`` the index of a group in ``fitted_groups``, or None for the pooled predictor;
        ``rows`` the indices of its test objects, or None for all of them (fitted without
        groups).

    Examples
    --------
    >>> group_parts(3, None, fitted_groups=None, pooled_groups=None, fallback="error",
    ...             owner="VennAbersDistribution")
    [(None, None)]
    >>> parts = group_parts(3, ["x", "y", "x"], fitted_groups=["x", "y"], pooled_groups=[],
    ...                     fallback="error", owner="VennAbersDistribution")
    >>> [(k, rows.tolist()) for k, rows in parts]
    [(0, [0, 2]), (1, [1])]
    """
    if fitted_groups is None:
        if groups is not None:
            raise ValueError(
                f"{owner} was fitted without groups; pass groups= to fit to calibrate "
                "within groups."
            )
        return [(None, None)]
    if groups is None:
        raise ValueError(
            f"{owner} was fitted within groups: pass groups= with the group of each test object."
        )
    parts, unknown = assign_groups(
        check_groups(groups, n), fitted_groups, () if pooled_groups is None else pooled_groups
    )
    unseen_groups(owner, unknown, fallback)
    return list(parts)


def grouped_interval(
    s: FloatArray,
    g: AnyArray,
    *,
    tables: IVAPTables,
    fitted_groups: Sequence[Any],
    group_tables: Sequence[IVAPTables],
    pooled_groups: Collection[Any],
) -> tuple[FloatArray, FloatArray, list[Any]]:
    """(p0, p1, unseen) of checked scores and group labels, each group by its own Venn-Abers
    tables; the groups not seen at fit (listed in ``unseen``) and those pooled at fit get the
    pooled ``tables``."""
    p0, p1 = np.empty(s.shape[0]), np.empty(s.shape[0])
    parts, unknown = assign_groups(g, fitted_groups, pooled_groups)
    for k, rows in parts:
        part = tables if k is None else group_tables[k]
        p0[rows], p1[rows] = part.predict_unchecked(s[rows])
    return p0, p1, unknown


def venn_abers_interval(
    s: FloatArray,
    groups: ArrayLike | None,
    *,
    tables: IVAPTables,
    fitted_groups: Sequence[Any] | None,
    group_tables: Sequence[IVAPTables] | None,
    pooled_groups: Collection[Any] | None,
    fallback: str,
    owner: str,
) -> tuple[FloatArray, FloatArray]:
    """(p0, p1) of checked scores of a binary Venn-Abers calibrator, within groups when it was
    fitted so (each group by its own tables, unseen groups as ``fallback`` says).

    Parameters
    ----------
    s : ndarray of shape (m,)
        Checked (and rounded) test scores.
    groups : array-like of shape (m,) or None
        Their groups.
    tables : IVAPTables
        The tables of all groups pooled.
    fitted_groups, group_tables, pooled_groups : list or None
        The groups calibrated on their own, their tables, and the groups pooled at fit (all
        None when fitted without groups).
    fallback : {"error", "pooled"}
        What a group not seen at fit gets (:func:`unseen_groups`).
    owner : str
        The name in the error messages.

    Returns
    -------
    p0, p1 : ndarray of shape (m,)
    """
    parts = group_parts(
        s.shape[0],
        groups,
        fitted_groups=fitted_groups,
        pooled_groups=pooled_groups,
        fallback=fallback,
        owner=owner,
    )
    if fitted_groups is None:
        return tables.predict_unchecked(s)
    # fitted within groups: the groups' tables are set with the groups
    assert group_tables is not None
    p0, p1 = np.empty(s.shape[0]), np.empty(s.shape[0])
    for k, rows in parts:
        part = tables if k is None else group_tables[k]
        p0[rows], p1[rows] = part.predict_unchecked(s[rows])
    return p0, p1
