"""Input checks shared by the score-to-probability fitters of :mod:`venncal.core`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal._validation import check_consistent_length, check_scores
from venncal.core._docs import fill_docstring

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar

    from venncal._typing import AnyArray, ArrayLike, FloatArray

    F = TypeVar("F", bound=Callable[..., Any])

#: Descriptions of the fitters' shared parameters, put into docstrings by :func:`fill_fit_doc`.
FIT_DOCS = {
    "scores": """scores : array-like of shape (n,)
    Calibration scores.""",
    "y01": """y01 : array-like of shape (n,)
    Labels in {0, 1}.""",
}


def fill_fit_doc(func: F) -> F:
    """Decorator: the descriptions of :data:`FIT_DOCS` put into ``func``'s docstring, each in
    place of a line ``{name}`` or ``{name, other, ...}`` (see
    :func:`venncal.core._docs.fill_docstring`)."""
    return fill_docstring(func, FIT_DOCS)


def check_scores_y01(scores: ArrayLike, y01: ArrayLike) -> tuple[FloatArray, AnyArray]:
    """Validate ``scores`` and the 0/1 labels ``y01`` of a fitter; return them as arrays.

    ``scores`` must be finite numbers (see :func:`venncal._validation.check_scores`) and ``y01``
    of the same length holding only 0 and 1 (the labels encoded by the caller). ``y01`` is
    returned as given (``np.asarray``), for the caller to convert.

    Examples
    --------
    >>> s, y = check_scores_y01([0.2, -1.0], [1, 0])
    >>> s, y
    (array([ 0.2, -1. ]), array([1, 0]))
    >>> check_scores_y01([0.2, -1.0], [1, 2])
    Traceback (most recent call last):
    ...
    ValueError: 'y01' must hold only 0 and 1; encode the labels first.
    """
    s = check_scores(scores, name="scores")
    y = np.asarray(y01)
    check_consistent_length(scores=s, y01=y)
    if not np.isin(y, (0, 1)).all():
        raise ValueError("'y01' must hold only 0 and 1; encode the labels first.")
    return s, y


def check_one_of(value: object, options: Sequence[str], *, name: str, owner: str) -> None:
    """Raise a ``ValueError`` naming ``owner`` and the parameter unless ``value`` is among
    ``options``.

    Examples
    --------
    >>> check_one_of("logit", ("probability", "logit"), name="score_scale", owner="fit_beta")
    >>> check_one_of("log", ("probability", "logit"), name="score_scale", owner="fit_beta")
    Traceback (most recent call last):
    ...
    ValueError: fit_beta: 'score_scale' must be one of probability, logit; got 'log'.
    """
    if value not in options:
        raise ValueError(f"{owner}: '{name}' must be one of {', '.join(options)}; got {value!r}.")
