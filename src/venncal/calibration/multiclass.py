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
  with its Venn-Abers interval; see :mod:`venncal.core.top_label`.

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
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from venncal._validation import (
    _label_array,
    check_bool,
    check_consistent_length,
    check_option,
    check_sample_weight,
    plain_label,
)
from venncal.calibration._docs import fill_calibration_doc
from venncal.calibration._multiclass_groups import fit_group_tables

# the tables and the prediction live in venncal.core, where a loaded model file runs them
# without scikit-learn; names also imported from here by the other K-class estimators
from venncal.core.class_scores import (  # noqa: F401
    SUM_TOLERANCE_PER_CLASS,
    ShiftedColumns,
    check_probabilities_as_fitted,
    check_probability_rows,
    check_score_matrix,
    class_log_scores,
    log_sum_exp,
    probability_floor,
    rows_off_one,
)
from venncal.core.coupling import COUPLINGS
from venncal.core.merge import MERGES
from venncal.core.multiclass_venn_abers import (  # noqa: F401
    _ROWS_PER_BATCH,
    CALIBRATOR_STRATEGIES,
    PAIRWISE_MAX_CLASSES,
    STRATEGIES,
    OneVsRestTables,
    PairwiseTables,
    PooledOneVsRestTables,
    PooledPairwiseTables,
    _check_class_weights,
    _fitted_on_log_probabilities,
    combine,
    combine_batched,
    fit_tables,
    predict_fitted,
    predict_venn_abers,
    resolve_strategy,
    venn_abers_class_scores,
    venn_abers_test_scores,
)
from venncal.core.top_label import TopLabelScores, fit_top_label

if TYPE_CHECKING:
    from typing import TypeAlias

    from typing_extensions import Self

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray
    from venncal.core.top_label import TopLabelTables

    #: the fitted binary predictors of each strategy
    MulticlassTables: TypeAlias = (
        OneVsRestTables
        | PairwiseTables
        | PooledOneVsRestTables
        | PooledPairwiseTables
        | TopLabelTables
    )

__all__ = [
    "MulticlassVennAbersCalibrator",
    "OneVsRestTables",
    "PairwiseTables",
    "PooledOneVsRestTables",
    "PooledPairwiseTables",
    "PAIRWISE_MAX_CLASSES",
    "class_log_scores",
]

SCORE_TYPES = ("auto", "logits", "probabilities", "raw")


def resolve_score_type(S: FloatArray, score_type: str, *, owner: str) -> str:
    """The score type of a K-class score matrix ``S``, ``score_type`` resolved and checked.

    ``"auto"`` reads ``S`` as probabilities when every entry lies in [0, 1] and every row sums
    to one within ``SUM_TOLERANCE_PER_CLASS * K`` (0.005 per class: probabilities rounded to two
    decimals or more), as logits when some entry lies outside [0, 1], and refuses anything
    between (entries in [0, 1], some row far from one) in one line asking for ``score_type``.
    ``"probabilities"`` must pass the same test (:func:`check_probability_rows`).

    Examples
    --------
    >>> resolve_score_type(np.array([[0.3333, 0.3333, 0.3333]]), "auto", owner="example")
    'probabilities'
    >>> resolve_score_type(np.array([[2.0, -1.0, 0.5]]), "auto", owner="example")
    'logits'
    """
    check_option(score_type, SCORE_TYPES, name="score_type", owner=owner)
    if score_type == "auto":
        if (S < 0).any() or (S > 1).any():
            return "logits"
        off = rows_off_one(S)
        if off.size == 0:
            return "probabilities"
        i = int(off[0])
        raise ValueError(
            f"'scores' of {owner} lie in [0, 1] but row {i} sums to {S[i].sum():.6g}, not 1 "
            f"(within {SUM_TOLERANCE_PER_CLASS:g} per class): pass score_type='probabilities' "
            "with rows renormalised to sum to one, or score_type='logits' (or 'raw') to read "
            "them as scores."
        )
    if score_type == "probabilities":
        if (S < 0).any() or (S > 1).any():
            raise ValueError(
                f"score_type='probabilities' of {owner} needs scores in [0, 1]; use "
                "score_type='logits' for unnormalised scores."
            )
        check_probability_rows(S, owner=owner)
    return score_type


def encode_class_labels(
    S: FloatArray, y: ArrayLike, sample_weight: ArrayLike | None, *, owner: str
) -> tuple[AnyArray, IntArray, FloatArray | None]:
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


def most_probable(proba: FloatArray, classes: AnyArray) -> AnyArray:
    """The label of ``classes`` of largest probability in each row of ``proba`` (the first
    on a tie)."""
    labels: AnyArray = classes[np.argmax(proba, axis=1)]
    return labels


def check_classes_match_columns(
    S: FloatArray, classes: AnyArray, *, owner: str, name_features: bool = True
) -> None:
    """Raise unless there are two classes or more and one score column of ``S`` per class.

    ``name_features`` adds the column count again as a count of features to the message.
    """
    if classes.shape[0] < 2:
        raise ValueError(
            f"'y' of {owner} holds one class only ({plain_label(classes[0])!r}); calibration needs at least two."
        )
    if S.shape[1] != classes.shape[0]:
        features = f" ({S.shape[1]} feature(s))" if name_features else ""
        raise ValueError(
            f"'scores' of {owner} has {S.shape[1]} column(s){features} but 'y' holds "
            f"{classes.shape[0]} classes; pass one score column per class (every class "
            "needs calibration examples)."
        )


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
        probabilities when every entry is in [0, 1] and every row sums to one within 0.005
        per class (probabilities rounded to two decimals or more), logits when some entry lies
        outside [0, 1]; entries in [0, 1] with a row far from one are refused (pass
        ``score_type``). Probabilities must pass the same test; they are not renormalised.

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

    classes_: AnyArray
    groups_: list[Any] | None
    group_tables_: list[MulticlassTables] | None

    def __init__(
        self,
        *,
        strategy: str = "auto",
        pooled: bool = True,
        coupling: str = "wu2",
        merge: str = "mean",
        score_type: str = "auto",
    ) -> None:
        self.strategy = strategy
        self.pooled = pooled
        self.coupling = coupling
        self.merge = merge
        self.score_type = score_type

    def fit(
        self,
        scores: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        groups: ArrayLike | None = None,
    ) -> Self:
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
        check_bool(self.pooled, name="pooled", owner=owner)
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
        self.tables_ = self._fit_tables(S, t, y_enc, w, classes.shape[0], owner=owner)
        self.groups_ = self.group_tables_ = None
        if groups is not None:
            self.groups_, self.group_tables_ = fit_group_tables(
                self, S, t, y_enc, w, classes, groups, owner=owner
            )
        self.classes_ = classes
        self.n_features_in_ = S.shape[1]
        return self

    def _fit_tables(
        self,
        S: FloatArray,
        t: FloatArray | ShiftedColumns | TopLabelScores,
        y_enc: IntArray,
        w: FloatArray | None,
        K: int,
        *,
        owner: str,
    ) -> MulticlassTables:
        """The tables of the strategy, fitted on the score matrix ``S`` and its class scores
        ``t``."""
        if isinstance(t, TopLabelScores):
            _check_class_weights(y_enc, w, K, owner)
            log_floor = -np.inf
            if self.score_type_ == "probabilities":
                log_floor = float(np.log(probability_floor(S, y_enc, w)))
            return fit_top_label(t, y_enc, w, K, log_floor=log_floor)
        return fit_tables(t, y_enc, w, K, self.strategy_, self.pooled, owner=owner)

    def _class_scores(self, S: FloatArray) -> FloatArray | ShiftedColumns | TopLabelScores:
        tables = getattr(self, "tables_", None)
        return venn_abers_class_scores(S, self.score_type_, self.strategy_, self.pooled, tables)

    def _predict(
        self, scores: ArrayLike, groups: ArrayLike | None = None
    ) -> tuple[FloatArray, FloatArray]:
        check_is_fitted(self, "classes_")
        return predict_fitted(self, scores, groups, owner=type(self).__name__)

    def _predict_tables(
        self, tables: MulticlassTables, t: FloatArray | ShiftedColumns | TopLabelScores
    ) -> tuple[FloatArray, FloatArray]:
        return predict_venn_abers(tables, t, self.strategy_, self.merge, self.coupling)

    @fill_calibration_doc
    def predict_proba(self, scores: ArrayLike, *, groups: ArrayLike | None = None) -> FloatArray:
        """Calibrated class probabilities.

        {groups_parameters}

        Returns
        -------
        proba : ndarray of shape (m, K)
            Non-negative rows summing to one, columns in the order of ``classes_``.
        """
        return self._predict(scores, groups)[0]

    @fill_calibration_doc
    def predict_interval(self, scores: ArrayLike, *, groups: ArrayLike | None = None) -> FloatArray:
        """Per-class probability intervals.

        {groups_parameters}

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

    def predict(self, scores: ArrayLike, *, groups: ArrayLike | None = None) -> AnyArray:
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
        return most_probable(self.predict_proba(scores, groups=groups), self.classes_)
