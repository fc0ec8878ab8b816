"""Parameter and attribute descriptions that the calibrators' docstrings share."""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal.core._docs import fill_docstring

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

#: Descriptions put into docstrings by :func:`fill_calibration_doc`, each in place of a line
#: ``{name}`` or ``{name, other, ...}``.
CALIBRATION_DOCS = {
    # the Parameters section of the fit of a calibrator of 1-D scores, up to its own parameters
    "fit_parameters": """Parameters
----------
scores : array-like of shape (n,) or (n, 1)
    Scores of a classifier on the calibration set: larger means more likely positive.
y : array-like of shape (n,)
    Labels; any two values.
sample_weight : array-like of shape (n,), default=None
    Non-negative weights of the calibration examples.""",
    # attributes of the calibrators that keep the table of their calibration data
    "aggregate_": """aggregate_ : CountTable
    The calibration data pooled by distinct score (kept for :meth:`partial_fit`).""",
    "decimals_": """decimals_ : int or None
    The rounding applied to every score.""",
    # the linear maps followed by a softmax, fitted by Newton's method
    "max_iter": """max_iter : int, default=1000
    Most Newton (or L-BFGS, above 600 parameters) iterations.""",
    "tol": """tol : float, default=1e-10
    Largest absolute gradient entry of the objective at convergence.""",
    "classes_": "classes_ : ndarray of shape (K,)",
    "score_type_": """score_type_ : str
    The resolved ``score_type``.""",
    "n_iter_": """n_iter_ : int
    Iterations of the last fit.""",
    "n_features_in_": """n_features_in_ : int
    K.""",
    # prediction of a calibrator of a K-class score matrix fitted within groups or not
    "groups_parameters": """Parameters
----------
scores : array-like of shape (m, K)
groups : array-like of shape (m,), default=None
    The group of each row; required when the calibrator was fitted within groups.""",
}


def fill_calibration_doc(func: F) -> F:
    """Decorator: the descriptions of :data:`CALIBRATION_DOCS` put into the docstring of
    ``func`` (a function or a class; see :func:`venncal.core._docs.fill_docstring`)."""
    return fill_docstring(func, CALIBRATION_DOCS)
