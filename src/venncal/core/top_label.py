"""Top-label Venn-Abers: the probability that the predicted class is right, with its interval.

Johansson, Loefstrom and Bostroem (2021) calibrate a K-class model through one binary problem:
for each calibration example, the score is the model's confidence in its top class, its largest
probability ``max_k p_k``, and the label is 1 when the top class is the true one. The score is
that probability as given (for logits ``z``, ``1 / sum_k exp(z_k - max_j z_j)``, exactly the
top softmax probability), never its logarithm, which would merge probabilities one ulp apart
(a Venn-Abers predictor uses only the order of its scores); raw scores are ranked by their
largest column. Tables of model files written before this was so rank the largest class
log-probability and keep doing so (``score_scale="log"``). An inductive
Venn-Abers predictor on these pairs gives, for a test object, the interval ``[p0, p1]`` for the
probability that its top class is correct, with the validity guarantee of binary Venn-Abers
predictors (Vovk & Petej 2014, Theorem 1) for the event "the prediction is right".

For the other classes the problem says nothing; venncal spreads the remaining mass ``1 - p``
(with ``p`` the merged probability of the top class) over them in proportion to the model's own
probabilities, ``q_k / sum_{j != top} q_j``, so that every row sums to one and the ranking of
the non-top classes is the model's. Their intervals are the same shares of ``1 - p1`` and
``1 - p0``. The shares of probabilities are those of ``max(q_k, floor)``, the floor of
:func:`venncal.core.class_scores.probability_floor` fitted on the calibration data: a model's
exact zeros get the share that the calibration data give them, not zero. When the model gives
every other class a probability that underflows to zero, the shares are computed from the
log-probabilities (a softmax over the non-top classes), and they are equal when all of them
are at the floor. The class of largest calibrated probability (what
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

from venncal.core.class_scores import (
    LOG_TINY,
    check_log_floor,
    class_log_scores,
    finite_difference,
)
from venncal.core.merge import merge
from venncal.core.venn_abers import IVAPTables, ivap_fit

if TYPE_CHECKING:
    from venncal._typing import BoolArray, FloatArray, IntArray

__all__ = [
    "TOP_LABEL",
    "TopLabelScores",
    "TopLabelTables",
    "fit_top_label",
    "predict_top_label",
    "top_label_scores",
]

#: the name of the strategy
TOP_LABEL = "top-label"
#: what the binary predictor ranks: the top class's probability, or (model files written
#: before it did) its log-probability
SCORE_SCALES = ("probability", "log")


class TopLabelScores:
    """The class scores of top-label Venn-Abers: per row the top class ``top``, the score
    ``s`` the binary predictor ranks, and class log-scores ``t`` for the other classes' shares.
    """

    def __init__(self, t: FloatArray, top: IntArray, s: FloatArray) -> None:
        self.t, self.top, self.s = t, top, s
        self.shape = t.shape

    def __getitem__(self, rows: slice | IntArray | BoolArray) -> TopLabelScores:
        return TopLabelScores(self.t[rows], self.top[rows], self.s[rows])


def top_label_scores(S: FloatArray, score_type: str, score_scale: str) -> TopLabelScores:
    """The top class and its score for a checked score matrix ``S`` (m, K).

    Parameters
    ----------
    S : ndarray of shape (m, K)
    score_type : {"logits", "probabilities", "raw"}
    score_scale : {"probability", "log"}
        ``"probability"``: the top probability, as given or (logits) as the softmax gives it;
        ``"log"``: the largest class log-score (tables of older model files). Raw scores are
        ranked by their largest column either way.

    Examples
    --------
    >>> sc = top_label_scores(np.array([[0.5, 0.3, 0.2]]), "probabilities", "probability")
    >>> sc.top, sc.s
    (array([0]), array([0.5]))
    >>> float(top_label_scores(np.array([[0.0, 0.0]]), "logits", "probability").s[0])
    0.5
    """
    t = class_log_scores(S, score_type)
    rows = np.arange(S.shape[0])
    if score_scale == "log" or score_type == "raw":
        top = np.argmax(t, axis=1)
        return TopLabelScores(t, top, np.ascontiguousarray(t[rows, top]))
    top = np.argmax(S, axis=1)
    if score_type == "probabilities":
        s = np.ascontiguousarray(S[rows, top])
    else:  # the top softmax probability, exp(0) / sum_k exp(z_k - z_top)
        s = 1.0 / np.exp(finite_difference(S, S[rows, top][:, None])).sum(axis=1)
    return TopLabelScores(t, top, s)


@dataclass(frozen=True)
class TopLabelTables:
    """One binary Venn-Abers predictor on (top score, top class is right).

    Attributes
    ----------
    K : int
        The number of classes.
    table : IVAPTables
        The binary predictor.
    score_scale : {"probability", "log"}
        What it ranks (:func:`top_label_scores`).
    log_floor : float
        The other classes' shares are those of ``exp(max(t, log_floor))``: the logarithm of
        the probability floor for probabilities, ``-inf`` (no floor) otherwise.
    """

    K: int
    table: IVAPTables
    score_scale: str = "log"
    log_floor: float = -np.inf

    def __post_init__(self) -> None:
        if self.score_scale not in SCORE_SCALES:
            raise ValueError(f"TopLabelTables: 'score_scale' must be one of {SCORE_SCALES}.")
        check_log_floor(self.log_floor, low=LOG_TINY, owner="TopLabelTables")


def fit_top_label(
    scores: TopLabelScores,
    y: IntArray,
    w: FloatArray | None,
    K: int,
    *,
    score_scale: str = "probability",
    log_floor: float = -np.inf,
) -> TopLabelTables:
    """Fit the top-label predictor on the top-label scores of the calibration examples.

    Examples
    --------
    >>> P = np.array([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6]])
    >>> sc = top_label_scores(P, "probabilities", "probability")
    >>> tab = fit_top_label(sc, np.array([0, 0, 2]), None, 3)
    >>> tab.K, float(tab.table.n_calibration)
    (3, 3.0)
    """
    table = ivap_fit(scores.s, (scores.top == y).astype(np.int8), sample_weight=w)
    return TopLabelTables(int(K), table, score_scale, float(log_floor))


def _shares(t: FloatArray, top: IntArray) -> FloatArray:
    """``q_k / sum_{j != top} q_j`` for k != top (0 at the top), from log-scores."""
    rows = np.arange(t.shape[0])
    rest = t.copy()
    rest[rows, top] = -np.inf
    E: FloatArray = np.exp(rest - rest.max(axis=1, keepdims=True))
    shares: FloatArray = E / E.sum(axis=1, keepdims=True)
    return shares


def predict_top_label(
    tables: TopLabelTables, scores: TopLabelScores, merge_rule: str
) -> tuple[FloatArray, FloatArray]:
    """Probabilities (m, K) and intervals (m, K, 2) of the top-label predictor (module docstring).

    Examples
    --------
    >>> P = np.array([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.2, 0.2, 0.6]])
    >>> sc = top_label_scores(P, "probabilities", "probability")
    >>> tab = fit_top_label(sc, np.array([0, 0, 2]), None, 3)
    >>> proba, interval = predict_top_label(tab, sc[:1], "log")
    >>> proba.round(3), interval[0, 0].round(3)
    (array([[0.75 , 0.167, 0.083]]), array([0.667, 1.   ]))
    """
    top = scores.top
    p0, p1 = tables.table.predict_unchecked(scores.s)
    p = merge(p0, p1, merge_rule)
    share = _shares(np.maximum(scores.t, tables.log_floor), top)
    rows = np.arange(top.shape[0])
    proba = (1.0 - p)[:, None] * share
    proba[rows, top] = p
    lo = (1.0 - p1)[:, None] * share
    hi = (1.0 - p0)[:, None] * share
    lo[rows, top] = p0
    hi[rows, top] = p1
    return proba, np.stack([lo, hi], axis=2)
