"""Top-label Venn-Abers: the probability that the predicted class is right, with its interval.

Johansson, Loefstrom and Bostroem (2021) calibrate a K-class model through one binary problem:
for each calibration example, the score is the model's confidence in its top class (here the
largest per-class log-probability ``max_k t_k``, which orders objects as the largest
probability does) and the label is 1 when the top class is the true one. An inductive
Venn-Abers predictor on these pairs gives, for a test object, the interval ``[p0, p1]`` for the
probability that its top class is correct, with the validity guarantee of binary Venn-Abers
predictors (Vovk & Petej 2014, Theorem 1) for the event "the prediction is right".

For the other classes the problem says nothing; venncal spreads the remaining mass ``1 - p``
(with ``p`` the merged probability of the top class) over them in proportion to the model's own
probabilities, ``q_k / sum_{j != top} q_j``, so that every row sums to one and the ranking of
the non-top classes is the model's. Their intervals are the same shares of ``1 - p1`` and
``1 - p0``. When the model gives every other class a probability that underflows to zero, the
shares are computed from the log-probabilities (a softmax over the non-top classes), and they
are equal when all of them are at the floor. The class of largest calibrated probability (what
``predict`` returns) is the model's top class unless its calibrated probability falls below the
share of another class: a top class that is right in 30% of such cases loses to a second class
that takes half of the other 70%.

References
----------
U. Johansson, T. Loefstroem and H. Bostroem, "Calibrating multi-class models", Proceedings of
the Tenth Symposium on Conformal and Probabilistic Prediction and Applications (COPA), PMLR 152,
2021.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from venncal.core.merge import merge
from venncal.core.venn_abers import IVAPTables, ivap_fit

if TYPE_CHECKING:
    from venncal._typing import FloatArray, IntArray

__all__ = ["TOP_LABEL", "TopLabelTables", "fit_top_label", "predict_top_label", "top_scores"]

#: the name of the strategy
TOP_LABEL = "top-label"


def top_scores(t: FloatArray) -> tuple[IntArray, FloatArray]:
    """The top class (first on ties) and its score, for class log-scores ``t`` (m, K)."""
    top = np.argmax(t, axis=1)
    return top, np.ascontiguousarray(t[np.arange(t.shape[0]), top])


@dataclass(frozen=True)
class TopLabelTables:
    """One binary Venn-Abers predictor on (top score, top class is right).

    Attributes
    ----------
    K : int
        The number of classes.
    table : IVAPTables
        The binary predictor.
    """

    K: int
    table: IVAPTables


def fit_top_label(t: FloatArray, y: IntArray, w: FloatArray | None, K: int) -> TopLabelTables:
    """Fit the top-label predictor on class log-scores ``t`` (n, K) and labels 0..K-1.

    Examples
    --------
    >>> t = np.log(np.array([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6]]))
    >>> tab = fit_top_label(t, np.array([0, 0, 2]), None, 3)
    >>> tab.K, float(tab.table.n_calibration)
    (3, 3.0)
    """
    top, s = top_scores(t)
    return TopLabelTables(int(K), ivap_fit(s, (top == y).astype(np.int8), sample_weight=w))


def _shares(t: FloatArray, top: IntArray) -> FloatArray:
    """``q_k / sum_{j != top} q_j`` for k != top (0 at the top), from log-scores."""
    rows = np.arange(t.shape[0])
    rest = t.copy()
    rest[rows, top] = -np.inf
    E: FloatArray = np.exp(rest - rest.max(axis=1, keepdims=True))
    shares: FloatArray = E / E.sum(axis=1, keepdims=True)
    return shares


def predict_top_label(
    tables: TopLabelTables, t: FloatArray, merge_rule: str
) -> tuple[FloatArray, FloatArray]:
    """Probabilities (m, K) and intervals (m, K, 2) of the top-label predictor (module docstring).

    Examples
    --------
    >>> t = np.log(np.array([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6]]))
    >>> tab = fit_top_label(t, np.array([0, 0, 2]), None, 3)
    >>> proba, interval = predict_top_label(tab, t[:1], "log")
    >>> proba.round(3), interval[0, 0].round(3)
    (array([[0.75 , 0.167, 0.083]]), array([0.667, 1.   ]))
    """
    top, s = top_scores(t)
    p0, p1 = tables.table.predict_unchecked(s)
    p = merge(p0, p1, merge_rule)
    share = _shares(t, top)
    rows = np.arange(t.shape[0])
    proba = (1.0 - p)[:, None] * share
    proba[rows, top] = p
    lo = (1.0 - p1)[:, None] * share
    hi = (1.0 - p0)[:, None] * share
    lo[rows, top] = p0
    hi[rows, top] = p1
    return proba, np.stack([lo, hi], axis=2)
