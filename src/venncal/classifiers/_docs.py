"""Parameter descriptions that the classifiers' prediction methods share."""

from __future__ import annotations

from typing import TYPE_CHECKING

from venncal.core._docs import fill_docstring

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])


def _parameters(groups: str) -> str:
    """The Parameters section of a prediction method: the test objects and their groups,
    described by ``groups``."""
    return f"""Parameters
----------
X : array-like of shape (m, n_features)
calibration_groups : array-like of shape (m,), default=None
    {groups}"""


#: Descriptions put into docstrings by :func:`fill_predict_doc`: the Parameters section of a
#: prediction method that takes the groups of the test objects, in each classifier's wording.
PREDICT_DOCS = {
    # VennClassifier
    "venn_parameters": _parameters(
        "The groups of the test objects; required when fitted with groups, refused otherwise."
    ),
    # VennAbersClassifier: the interval and the probabilities
    "groups_parameters": _parameters(
        "The groups of the test objects; required when fitted with groups."
    ),
    # VennAbersClassifier: the label and the log-probabilities
    "derived_parameters": _parameters("Required when fitted with groups."),
}


def fill_predict_doc(func: F) -> F:
    """Decorator: the descriptions of :data:`PREDICT_DOCS` put into ``func``'s docstring, each
    in place of a line ``{name}`` (see :func:`venncal.core._docs.fill_docstring`)."""
    return fill_docstring(func, PREDICT_DOCS)
