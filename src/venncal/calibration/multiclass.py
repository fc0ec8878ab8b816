"""Venn-Abers calibration of K-class scores: one-vs-rest or pairwise with coupling.

Venn-Abers predictors are binary; for K classes the problem is split into binary ones, each
calibrated by an exact inductive Venn-Abers predictor, and the answers are combined.

Scores first become per-class log-probabilities (``score_type``): logits z go through the
log-softmax z_k - log sum_j exp(z_j), probabilities through their logarithm. This matters for
one-vs-rest: the logit z_k of a multinomial model alone does not order the objects by
P(y = k | x), its log-softmax does. Pairwise differences are unchanged by it
(z_i - z_j = log p_i - log p_j). One-vs-rest on probabilities (or raw scores) ranks the scores
as given, with no transform: a Venn-Abers predictor uses only their order, and a logarithm
would merge probabilities one ulp apart, so that the answer would differ from the binary
predictor of each class on the same column.

* ``"ovr"`` (one-vs-rest): class k against the rest, with the score t_k. With
  ``pooled=False`` each interval [p0_k, p1_k] is the Venn-Abers interval of the event y = k
  and keeps its validity (Vovk & Petej 2014, Theorem 1); the merged probabilities are
  normalised to sum to one.
* ``"pairwise"``: for each pair i < j, class i against class j on the calibration examples of
  those two classes, with the score t_i - t_j (Manokhin 2017). The merged pairwise
  probabilities r_ij are coupled into one distribution (``coupling``, see
  :mod:`venncal.core.coupling`). The per-class interval spans the couplings of the lower (p0)
  and of the upper (p1) pairwise probabilities: a summary, without the validity guarantee of
  the binary intervals. Pairwise Venn-Abers needs K(K - 1)/2 probabilities and a K x K
  coupling per object; it is offered up to ``PAIRWISE_MAX_CLASSES`` classes.

* ``"top-label"``: one binary predictor on (largest class score, top class is right)
  (Johansson, Loefstrom & Bostroem 2021): the probability that the predicted class is right,
  with its Venn-Abers interval; see :mod:`venncal.calibration._top_label`.

``pooled=True`` (the default) fits one binary predictor shared by all classes or all pairs,
on the pooled binary problems. With n calibration examples, a separate predictor sees about
n / K positives (one-vs-rest) or 2 n / K examples (pairwise); a Venn-Abers probability cannot
exceed about 1 - 1 / (number of positives in its top block), and pairwise coupling adds up the
shortfall of K - 1 pairs. With 25 calibration examples per class (digits), separate pairwise
predictors give r_ij of about 25 / 26 = 0.96 at best, and coupling K = 10 classes at r = 0.96 gives
0.96 / (0.96 + 9 * 0.04) = 0.73 for the most likely class, so a 97%-accurate model comes out
strongly underconfident. The pooled predictor sees n K or 2 n (K - 1) pairs. Pooling assumes
that a score means the same for every class (as temperature scaling, with one parameter for all
classes, does). The default, pooled pairwise Venn-Abers up to 100 classes with each pairwise
(p0, p1) merged by its midpoint (half as far from 0 and 1 in the extreme blocks as the log
merge), was chosen by measurement (``benchmarks/bench_multiclass.py``, BENCHMARKS.md).

References
----------
V. Vovk and I. Petej, "Venn-Abers predictors", UAI 2014.
V. Manokhin, "Multi-class probabilistic classification using inductive and cross Venn-Abers
predictors", COPA 2017.
B. Zadrozny and C. Elkan, "Transforming classifier scores into accurate multiclass probability
estimates", KDD 2002 (one-vs-rest with normalisation).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from venncal._blas import single_blas_thread
from venncal._validation import (
    _as_array,
    _label_array,
    check_bool,
    check_consistent_length,
    check_option,
    check_sample_weight,
)
from venncal.calibration._multiclass_groups import fit_group_tables, predict_in_groups
from venncal.calibration._top_label import TOP_LABEL, fit_top_label, predict_top_label
from venncal.core.coupling import COUPLINGS, couple
from venncal.core.merge import MERGES, merge, merge_cross
from venncal.core.venn_abers import IVAPTables, ivap_fit

__all__ = [
    "MulticlassVennAbersCalibrator",
    "OneVsRestTables",
    "PairwiseTables",
    "PooledOneVsRestTables",
    "PooledPairwiseTables",
    "PAIRWISE_MAX_CLASSES",
    "class_log_scores",
]

STRATEGIES = ("auto", "ovr", "pairwise")
#: the calibrator's strategies (the classifier's, and top-label)
CALIBRATOR_STRATEGIES = STRATEGIES + (TOP_LABEL,)
SCORE_TYPES = ("auto", "logits", "probabilities", "raw")
PAIRWISE_MAX_CLASSES = 100
_ROWS_PER_BATCH = 2**21  # test rows x pairs held at once by pairwise prediction
_LOG_TINY = np.log(np.finfo(np.float64).tiny)


def check_score_matrix(scores, *, name="scores", owner, n_classes=None):
    """Return a finite float64 (n, K) matrix; one-line errors otherwise."""
    arr = _as_array(scores, name)
    if arr.ndim != 2:
        raise ValueError(
            f"'{name}' of {owner} must be a 2-D (n_samples, n_classes) matrix of per-class "
            f"scores, got shape {arr.shape}. Reshape your data; for two classes and one score "
            "column use VennAbersCalibrator."
        )
    if arr.dtype.kind == "c":
        raise ValueError(f"'{name}' of {owner} holds complex numbers; Complex data not supported.")
    try:
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    except (ValueError, TypeError):
        raise TypeError(f"'{name}' of {owner} must hold numbers, got {arr.dtype}.") from None
    if arr.shape[1] == 0:
        raise ValueError(
            f"'{name}' of {owner} has 0 feature(s) (shape={arr.shape}) while a minimum of 2 is "
            "required (one score column per class)."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"'{name}' of {owner} is empty; at least one row is needed.")
    if n_classes is not None and arr.shape[1] != n_classes:
        raise ValueError(
            f"'{name}' of {owner} has {arr.shape[1]} column(s) but it was fitted with "
            f"{n_classes} classes; pass one score column per class, in the order of classes_."
        )
    finite = np.isfinite(arr)
    if not finite.all():
        kind = "NaN" if np.isnan(arr).any() else "infinite"
        row = int(np.flatnonzero(~finite.all(axis=1))[0])
        raise ValueError(
            f"'{name}' of {owner} holds {kind} values (first in row {row}); scores must be finite."
        )
    return arr


def class_log_scores(S, score_type):
    """Per-class log-probabilities t of a score matrix (see the module docstring).

    Parameters
    ----------
    S : ndarray of shape (n, K)
    score_type : {"logits", "probabilities", "raw"}

    Returns
    -------
    t : ndarray of shape (n, K)

    Examples
    --------
    >>> class_log_scores(np.array([[0.0, np.log(3.0)]]), "logits").round(4)
    array([[-1.3863, -0.2877]])
    """
    if score_type == "raw":
        return S
    if score_type == "probabilities":
        with np.errstate(divide="ignore"):
            return np.maximum(np.log(S), _LOG_TINY)
    return np.subtract(S, log_sum_exp(S)[:, None])


def log_sum_exp(S):
    """log sum_k exp(S[i, k]) per row, by blocks of rows (small temporaries at large n K)."""
    lse = np.empty(S.shape[0])
    step = max(1, 2**20 // S.shape[1])
    for lo in range(0, S.shape[0], step):
        block = S[lo : lo + step]
        top = block.max(axis=1, keepdims=True)
        lse[lo : lo + step] = top[:, 0] + np.log(np.exp(block - top).sum(axis=1))
    return lse


class ShiftedColumns:
    """The columns of S - shift[:, None], computed one at a time (one-vs-rest needs no more).

    At n = 5 * 10^4 and K = 1000 this saves building a second n x K matrix.
    """

    def __init__(self, S, shift):
        self.S = S
        self.shift = shift
        self.shape = S.shape

    def column(self, k):
        return self.S[:, k] - self.shift

    def __getitem__(self, rows):
        return ShiftedColumns(self.S[rows], self.shift[rows])


def resolve_score_type(S, score_type, *, owner):
    """``"auto"``: probabilities if every row lies in [0, 1] and sums to one, else logits."""
    check_option(score_type, SCORE_TYPES, name="score_type", owner=owner)
    if score_type == "auto":
        in_range = (S >= 0).all() and (S <= 1).all()
        sums_to_one = np.allclose(S.sum(axis=1), 1.0, rtol=0, atol=1e-6)
        return "probabilities" if in_range and sums_to_one else "logits"
    if score_type == "probabilities" and ((S < 0).any() or (S > 1).any()):
        raise ValueError(
            f"score_type='probabilities' of {owner} needs scores in [0, 1]; use "
            "score_type='logits' for unnormalised scores."
        )
    return score_type


def _check_class_weights(y, w, K, owner):
    if w is None:
        return
    total = np.bincount(y, weights=w, minlength=K)
    if (total <= 0).any():
        raise ValueError(
            f"'sample_weight' of {owner} is zero on every example of class index "
            f"{int(np.argmin(total))}; give it positive weight."
        )


def encode_class_labels(S, y, sample_weight, *, owner):
    """Class labels of the rows of a score matrix ``S``: ``(classes, codes, weights)``.

    ``classes`` are the sorted labels, ``codes`` the index of each row's label in them and
    ``weights`` the checked ``sample_weight`` (or None).
    """
    labels = _label_array(y, "y")
    if labels.dtype.kind == "f" and (labels != np.round(labels)).any():
        raise ValueError(f"Unknown label type: continuous. 'y' of {owner} must hold class labels.")
    check_consistent_length(scores=S[:, 0], y=labels)
    classes, y_enc = np.unique(labels, return_inverse=True)
    return classes, y_enc, check_sample_weight(sample_weight, S.shape[0])


def check_classes_match_columns(S, classes, *, owner, name_features=True):
    """Raise unless there are two classes or more and one score column of ``S`` per class.

    ``name_features`` adds the column count again as a count of features to the message.
    """
    if classes.shape[0] < 2:
        raise ValueError(
            f"'y' of {owner} holds one class only ({classes[0]!r}); calibration needs at least two."
        )
    if S.shape[1] != classes.shape[0]:
        features = f" ({S.shape[1]} feature(s))" if name_features else ""
        raise ValueError(
            f"'scores' of {owner} has {S.shape[1]} column(s){features} but 'y' holds "
            f"{classes.shape[0]} classes; pass one score column per class (every class "
            "needs calibration examples)."
        )


def check_probabilities_as_fitted(scores, score_type, *, owner):
    """Raise if a calibrator fitted on probabilities gets scores outside [0, 1]."""
    if score_type == "probabilities" and ((scores < 0).any() or (scores > 1).any()):
        raise ValueError(f"'scores' of {owner} must be probabilities in [0, 1], as at fit time.")


def _fitted_on_log_probabilities(tables):
    """Whether one-vs-rest tables of probabilities were fitted on their logarithms (model
    files written before one-vs-rest ranked probabilities as given): a breakpoint below 0 is
    a logarithm, never a probability. Such tables keep predicting from logarithms."""
    if tables is None:  # fitting now
        return False
    inner = tables.tables if hasattr(tables, "tables") else (getattr(tables, "table", None),)
    return any(t is not None and ((t.breaks0 < 0).any() or (t.breaks1 < 0).any()) for t in inner)


def _column(t, k):
    return t.column(k) if isinstance(t, ShiftedColumns) else t[:, k]


@dataclass(frozen=True)
class OneVsRestTables:
    """K binary Venn-Abers predictors, class k against the rest with the score column k."""

    K: int
    tables: tuple

    def pairs(self, t):
        """(p0, p1), each of shape (m, K)."""
        m = t.shape[0]
        p0 = np.empty((m, self.K))
        p1 = np.empty((m, self.K))
        for k, tab in enumerate(self.tables):
            p0[:, k], p1[:, k] = tab.predict_unchecked(np.ascontiguousarray(_column(t, k)))
        return p0, p1


def _fit_one_vs_rest(t, y, w, K):
    tables = tuple(
        ivap_fit(_column(t, k), (y == k).astype(np.int8), sample_weight=w) for k in range(K)
    )
    return OneVsRestTables(int(K), tables)


class _Pairs:
    """The pairs i < j of K classes, and the (m, K, K) matrix of pairwise probabilities."""

    @property
    def iu(self):
        return np.triu_indices(self.K, 1)

    def matrix(self, r):
        """The (m, K, K) matrix of a pairwise probability r of shape (m, n_pairs)."""
        R = np.full((r.shape[0], self.K, self.K), 0.5)
        i, j = self.iu
        R[:, i, j] = r
        R[:, j, i] = 1.0 - r
        return R


@dataclass(frozen=True)
class PairwiseTables(_Pairs):
    """K(K - 1)/2 binary Venn-Abers predictors, class i against class j on their examples."""

    K: int
    tables: tuple

    def pairs(self, t):
        """(p0, p1), each of shape (m, n_pairs): P(y = i | y in {i, j}) for i < j."""
        m = t.shape[0]
        n_pairs = len(self.tables)
        p0 = np.empty((m, n_pairs))
        p1 = np.empty((m, n_pairs))
        for q, (i, j, tab) in enumerate(zip(*self.iu, self.tables)):
            p0[:, q], p1[:, q] = tab.predict_unchecked(t[:, i] - t[:, j])
        return p0, p1


def _fit_pairwise(t, y, w, K):
    members = [np.flatnonzero(y == k) for k in range(K)]
    tables = []
    for i, j in zip(*np.triu_indices(K, 1)):
        idx = np.concatenate([members[i], members[j]])
        y01 = np.zeros(idx.shape[0], dtype=np.int8)
        y01[: members[i].shape[0]] = 1
        tables.append(
            ivap_fit(t[idx, i] - t[idx, j], y01, sample_weight=None if w is None else w[idx])
        )
    return PairwiseTables(int(K), tuple(tables))


@dataclass(frozen=True)
class PooledOneVsRestTables:
    """One binary Venn-Abers predictor shared by the K one-vs-rest problems.

    Its calibration pairs are (t_k(x_i), [y_i = k]) for every example i and class k: n K pairs,
    n of them positive, so that small classes borrow strength from the others (as temperature
    scaling shares one parameter among the classes).
    """

    K: int
    table: IVAPTables

    def pairs(self, t):
        """(p0, p1), each of shape (m, K)."""
        p0, p1 = self.table.predict_unchecked(np.ascontiguousarray(t).ravel())
        return p0.reshape(t.shape), p1.reshape(t.shape)


def _fit_pooled_one_vs_rest(t, y, w, K):
    y01 = (y[:, None] == np.arange(K)[None, :]).astype(np.int8).ravel()
    ww = None if w is None else np.repeat(w, K)
    return PooledOneVsRestTables(int(K), ivap_fit(t.ravel(), y01, sample_weight=ww))


@dataclass(frozen=True)
class PooledPairwiseTables(_Pairs):
    """One binary Venn-Abers predictor shared by the K(K - 1)/2 pairwise problems.

    Its calibration pairs are, for every example i and every class j != y_i, the score
    difference d = t_{y_i}(x_i) - t_j(x_i) labelled 1 and its mirror -d labelled 0: 2 n (K - 1)
    pairs, symmetric, so that r(-d) = 1 - r(d) for the log and mean merges, and the orientation of a pair
    does not matter.
    """

    K: int
    table: IVAPTables

    def pairs(self, t):
        """(p0, p1), each of shape (m, n_pairs): P(y = i | y in {i, j}) for i < j."""
        i, j = self.iu
        D = t[:, i] - t[:, j]
        p0, p1 = self.table.predict_unchecked(D.ravel())
        return p0.reshape(D.shape), p1.reshape(D.shape)


def _fit_pooled_pairwise(t, y, w, K):
    n = t.shape[0]
    d = t[np.arange(n), y][:, None] - t
    other = np.arange(K)[None, :] != y[:, None]
    d = d[other]
    scores = np.concatenate([d, -d])
    y01 = np.zeros(scores.shape[0], dtype=np.int8)
    y01[: d.shape[0]] = 1
    ww = None if w is None else np.tile(np.repeat(w, K - 1), 2)
    return PooledPairwiseTables(int(K), ivap_fit(scores, y01, sample_weight=ww))


def resolve_strategy(strategy, K):
    """``"auto"``: pairwise up to ``PAIRWISE_MAX_CLASSES`` classes, one-vs-rest beyond."""
    if strategy == "auto":
        return "pairwise" if K <= PAIRWISE_MAX_CLASSES else "ovr"
    return strategy


def fit_tables(t, y, w, K, strategy, pooled, *, owner):
    """Fit the binary predictors of ``strategy`` on class scores ``t`` (n, K), labels 0..K-1."""
    counts = np.bincount(y, minlength=K)
    if (counts == 0).any():
        raise ValueError(
            f"The calibration examples of {owner} lack class index {int(np.argmin(counts))}; "
            "every class needs calibration examples."
        )
    _check_class_weights(y, w, K, owner)
    if strategy == "ovr":
        return (_fit_pooled_one_vs_rest if pooled else _fit_one_vs_rest)(t, y, w, K)
    if K > PAIRWISE_MAX_CLASSES:
        raise ValueError(
            f"strategy='pairwise' of {owner} needs K(K - 1)/2 = {K * (K - 1) // 2} pairwise "
            f"probabilities and a K x K coupling per object; it is offered up to "
            f"{PAIRWISE_MAX_CLASSES} classes, got {K}. Use strategy='ovr'."
        )
    return (_fit_pooled_pairwise if pooled else _fit_pairwise)(t, y, w, K)


def combine(pairs, tables, strategy, merge_rule, coupling):
    """Probabilities (m, K) and intervals (m, K, 2) from per-fold pairs of shape (F, m, ...)."""
    p0, p1 = pairs
    if strategy == "ovr":
        p = merge_cross(p0, p1, merge_rule) if p0.shape[0] > 1 else merge(p0[0], p1[0], merge_rule)
        lo, hi = p0.min(axis=0), p1.max(axis=0)
        return p / p.sum(axis=1, keepdims=True), np.stack([lo, hi], axis=2)
    r = merge_cross(p0, p1, merge_rule) if p0.shape[0] > 1 else merge(p0[0], p1[0], merge_rule)
    # many small K x K systems: one BLAS thread each is much faster than threads per system
    with single_blas_thread():
        proba = couple(tables.matrix(r), coupling)
        a = couple(tables.matrix(p0.min(axis=0)), coupling)
        b = couple(tables.matrix(p1.max(axis=0)), coupling)
    return proba, np.stack([np.minimum(a, b), np.maximum(a, b)], axis=2)


def combine_batched(predict_pairs, m, tables, strategy, merge_rule, coupling):
    """:func:`combine` over row batches, so that pairwise prediction has bounded memory."""
    n_pairs = tables.K if strategy == "ovr" else tables.K * tables.K
    step = max(1, _ROWS_PER_BATCH // max(n_pairs, 1))
    probas, intervals = [], []
    for lo in range(0, m, step):
        pr, iv = combine(
            predict_pairs(slice(lo, min(m, lo + step))), tables, strategy, merge_rule, coupling
        )
        probas.append(pr)
        intervals.append(iv)
    return np.concatenate(probas), np.concatenate(intervals)


class MulticlassVennAbersCalibrator(ClassifierMixin, BaseEstimator):
    """Venn-Abers calibration of a K-class score matrix, by one-vs-rest or pairwise coupling.

    Parameters
    ----------
    strategy : {"auto", "ovr", "pairwise", "top-label"}, default="auto"
        One-vs-rest Venn-Abers with normalisation, pairwise Venn-Abers with coupling, or
        top-label Venn-Abers (see the module docstring). ``"top-label"`` calibrates the
        probability that the class of largest score is right, with its Venn-Abers interval,
        and spreads the rest of the mass over the other classes in proportion to the model's
        probabilities (``pooled`` and ``coupling`` do not apply). Pairwise is offered up to
        ``PAIRWISE_MAX_CLASSES`` = 100 classes; ``"auto"`` is pairwise up to 100 classes and
        one-vs-rest beyond.
    pooled : bool, default=True
        One binary Venn-Abers predictor shared by all classes (one-vs-rest) or by all pairs
        (pairwise), fitted on the pooled binary problems (n K or 2 n (K - 1) calibration
        pairs), instead of one predictor per class or pair. Pooling assumes that a score means
        the same for every class, as temperature scaling does, and in exchange calibrates
        small classes with the data of all: with few calibration examples per class (or per
        pair) the separate predictors' intervals are wide and their merged probabilities
        underconfident. Only ``pooled=False`` with ``strategy="ovr"`` gives each class its
        own Venn-Abers interval with the validity guarantee.
    coupling : {"wu2", "wu1", "price"}, default="wu2"
        Pairwise coupling rule (:mod:`venncal.core.coupling`): Wu, Lin & Weng (2004) method 2
        or 1, or Price et al. (1995) normalised, as in Manokhin's multiclass Venn-Abers.
    merge : {"log", "square", "mean"}, default="mean"
        Merge of each binary (p0, p1) into one probability (Vovk & Petej 2014, eqs. 10-11;
        ``"mean"`` is (p0 + p1) / 2). The minimax argument behind ``"log"`` is about one
        binary probability; here the merged probabilities are coupled or normalised, and the
        midpoint, which halves the distance a Venn-Abers probability keeps from 0 and 1 in the
        extreme blocks, gave the lower multiclass log loss where it mattered and no worse
        elsewhere (``benchmarks/bench_multiclass.py``, BENCHMARKS.md).
    score_type : {"auto", "logits", "probabilities", "raw"}, default="auto"
        What the columns are: ``"logits"`` (any real scores, turned into log-softmax),
        ``"probabilities"`` (rows in [0, 1], logarithms taken), ``"raw"`` (used as they are:
        one-vs-rest ranks by column k itself, pairwise by s_i - s_j). ``"auto"``:
        probabilities when every row is in [0, 1] and sums to one, else logits.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        The labels, in the order of the score columns.
    strategy_ : {"ovr", "pairwise", "top-label"}
        The resolved ``strategy``.
    score_type_ : str
        The resolved ``score_type``.
    tables_ : OneVsRestTables, PairwiseTables, their pooled versions, or TopLabelTables
        The fitted binary Venn-Abers predictors (of all groups pooled, when fitted with
        ``groups``).
    groups_ : list or None
        The groups, when fitted with ``groups`` (None otherwise).
    group_tables_ : list or None
        The predictors of each group, fitted on its own examples, in the order of ``groups_``.
    n_features_in_ : int
        K, the number of score columns.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> logits = rng.normal(size=(3000, 4)) * 2
    >>> p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    >>> y = (rng.random((3000, 1)) > p.cumsum(axis=1)).sum(axis=1)
    >>> cal = MulticlassVennAbersCalibrator().fit(logits[:2000], y[:2000])
    >>> proba = cal.predict_proba(logits[2000:])
    >>> bool(np.allclose(proba.sum(axis=1), 1.0))
    True

    With ``strategy="ovr", pooled=False`` each one-vs-rest interval is a Venn-Abers interval for "y = k": averaged over test
    objects it contains the frequency of class k (up to sampling error).

    >>> cal = MulticlassVennAbersCalibrator(strategy="ovr", pooled=False)
    >>> iv = cal.fit(logits[:2000], y[:2000]).predict_interval(logits[2000:]).mean(axis=0)
    >>> freq = np.bincount(y[2000:], minlength=4) / 1000
    >>> bool(((iv[:, 0] - 0.03 <= freq) & (freq <= iv[:, 1] + 0.03)).all())
    True
    """

    def __init__(
        self, *, strategy="auto", pooled=True, coupling="wu2", merge="mean", score_type="auto"
    ):
        self.strategy = strategy
        self.pooled = pooled
        self.coupling = coupling
        self.merge = merge
        self.score_type = score_type

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def fit(self, scores, y, sample_weight=None, *, groups=None):
        """Fit the binary Venn-Abers predictors to calibration scores, within groups if
        ``groups`` is given.

        Parameters
        ----------
        scores : array-like of shape (n, K)
            Per-class scores (logits, decision values or probabilities) of the calibration
            examples; column k belongs to ``classes_[k]``, the k-th label in sorted order.
        y : array-like of shape (n,)
            Labels; every one of the K classes must occur.
        sample_weight : array-like of shape (n,), default=None
            Non-negative weights (a weight of 2 counts as a duplicated example).
        groups : array-like of shape (n,), default=None
            Group of each calibration example (integers or strings): each group gets the
            predictor of ``strategy`` fitted on its own examples (``group_tables_``, in the
            order of ``groups_``), and prediction then needs the groups of the test rows.
            Every group needs examples of every class. ``tables_`` stays the predictor of all
            groups pooled.

        Returns
        -------
        self
        """
        owner = type(self).__name__
        check_option(self.strategy, CALIBRATOR_STRATEGIES, name="strategy", owner=owner)
        check_option(self.coupling, COUPLINGS, name="coupling", owner=owner)
        check_option(self.merge, MERGES, name="merge", owner=owner)
        S = check_score_matrix(scores, owner=owner)
        if len(getattr(y, "shape", ())) == 2:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled.",
                DataConversionWarning,
                stacklevel=2,
            )
        classes, y_enc, w = encode_class_labels(S, y, sample_weight, owner=owner)
        if w is not None and not (w > 0).any():
            raise ValueError(f"'sample_weight' of {owner} is zero everywhere; no example counts.")
        check_classes_match_columns(S, classes, owner=owner)
        self.score_type_ = resolve_score_type(S, self.score_type, owner=owner)
        self.strategy_ = resolve_strategy(self.strategy, classes.shape[0])
        self.__dict__.pop("tables_", None)  # a refit forgets the tables (and their scale)
        t = self._class_scores(S)
        check_bool(self.pooled, name="pooled", owner=owner)
        self.tables_ = self._fit_tables(t, y_enc, w, classes.shape[0], owner=owner)
        self.groups_ = self.group_tables_ = None
        if groups is not None:
            self.groups_, self.group_tables_ = fit_group_tables(
                self, t, y_enc, w, classes, groups, owner=owner
            )
        self.classes_ = classes
        self.n_features_in_ = S.shape[1]
        return self

    def _fit_tables(self, t, y_enc, w, K, *, owner):
        if self.strategy_ == TOP_LABEL:
            return fit_top_label(t, y_enc, w, K)
        return fit_tables(t, y_enc, w, K, self.strategy_, self.pooled, owner=owner)

    def _class_scores(self, S):
        if self.strategy_ == "ovr" and self.score_type_ in ("probabilities", "raw"):
            # Venn-Abers uses only the order of the scores: probabilities are ranked as given,
            # since their logarithm would merge scores one ulp apart (a different answer)
            if not _fitted_on_log_probabilities(getattr(self, "tables_", None)):
                return S
        if self.score_type_ == "logits" and self.strategy_ != TOP_LABEL:
            # pairwise differences of logits are those of their log-softmax: skip its rounding
            if self.strategy_ == "pairwise":
                return S
            if not self.pooled:
                return ShiftedColumns(S, log_sum_exp(S))
        return class_log_scores(S, self.score_type_)

    def _predict(self, scores, groups=None):
        check_is_fitted(self, "classes_")
        owner = type(self).__name__
        S = check_score_matrix(scores, owner=owner, n_classes=self.classes_.shape[0])
        check_probabilities_as_fitted(S, self.score_type_, owner=owner)
        t = self._class_scores(S)
        if groups is not None or getattr(self, "groups_", None) is not None:
            return predict_in_groups(self, t, groups, owner=owner)
        return self._predict_tables(self.tables_, t)

    def _predict_tables(self, tables, t):
        if self.strategy_ == TOP_LABEL:
            return predict_top_label(tables, t, self.merge)

        def pairs(rows):
            p0, p1 = tables.pairs(t[rows])
            return p0[None], p1[None]

        return combine_batched(pairs, t.shape[0], tables, self.strategy_, self.merge, self.coupling)

    def predict_proba(self, scores, *, groups=None):
        """Calibrated class probabilities.

        Parameters
        ----------
        scores : array-like of shape (m, K)
        groups : array-like of shape (m,), default=None
            The group of each row; required when the calibrator was fitted within groups.

        Returns
        -------
        proba : ndarray of shape (m, K)
            Non-negative rows summing to one, columns in the order of ``classes_``.
        """
        return self._predict(scores, groups)[0]

    def predict_interval(self, scores, *, groups=None):
        """Per-class probability intervals.

        Parameters
        ----------
        scores : array-like of shape (m, K)
        groups : array-like of shape (m,), default=None
            The group of each row; required when the calibrator was fitted within groups.

        Returns
        -------
        interval : ndarray of shape (m, K, 2)
            ``[:, k, 0] <= [:, k, 1]``: for ``"ovr"`` the Venn-Abers interval of the event
            y = classes_[k]; for ``"pairwise"`` the span of the couplings of the lower and of
            the upper pairwise probabilities; for ``"top-label"`` the Venn-Abers interval
            [p0, p1] of "the top class is right" in the top class's column and
            [(1 - p1) s_k, (1 - p0) s_k] in the others, s_k the share of class k.
        """
        return self._predict(scores, groups)[1]

    def predict(self, scores, *, groups=None):
        """The class of largest calibrated probability.

        Parameters
        ----------
        scores : array-like of shape (m, K)
        groups : array-like of shape (m,), default=None
            Required when the calibrator was fitted within groups.

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        proba = self.predict_proba(scores, groups=groups)
        return self.classes_[np.argmax(proba, axis=1)]
