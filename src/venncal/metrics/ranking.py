"""Rank statistics for comparing several methods over several datasets (scipy only).

The procedure recommended by Demsar (2006) and Garcia & Herrera (2008) for comparing ``k``
methods on ``N`` datasets: rank the methods on each dataset (1 = best, ties share the average
rank), test the null hypothesis that all methods are equivalent with the Friedman test (or its
Iman-Davenport F correction), then compare every pair of methods with a post-hoc procedure that
controls the family-wise error over the ``k (k - 1) / 2`` pairwise hypotheses:

* :func:`nemenyi_posthoc` and :func:`nemenyi_critical_difference` (single-step, studentized range),
* :func:`holm_posthoc` (step-down, Holm 1979),
* :func:`bergmann_hommel_posthoc` (Bergmann & Hommel 1988, through the exhaustive sets of
  hypotheses, as in Garcia & Herrera 2008), the most powerful of the three.

Every pairwise comparison uses the statistic of Demsar (2006), section 3.2.2,

.. math:: z = (R_i - R_j) / \\sqrt{k (k + 1) / (6 N)},

where :math:`R_i` is the average rank of method ``i``, with a two-sided normal p-value.

References
----------
.. [1] J. Demsar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7,
   1-30, 2006.
.. [2] S. Garcia and F. Herrera, "An extension on 'Statistical comparisons of classifiers over
   multiple data sets' for all pairwise comparisons", JMLR 9, 2677-2694, 2008.
.. [3] G. Bergmann and G. Hommel, "Improvements of general multiple test procedures for
   redundant systems of hypotheses", in Multiple Hypothesenprufung, Springer, 100-115, 1988.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from venncal._validation import check_bool, check_in_range, check_positive_int

if TYPE_CHECKING:
    from collections.abc import Iterable

    from venncal._typing import ArrayLike, BoolArray, FloatArray, IntArray

__all__ = [
    "FriedmanResult",
    "PosthocResult",
    "average_ranks",
    "friedman_test",
    "nemenyi_critical_difference",
    "nemenyi_posthoc",
    "holm_posthoc",
    "bergmann_hommel_posthoc",
]

#: The largest number of methods the exhaustive Bergmann-Hommel procedure accepts
#: (Bell(10) = 115975 exhaustive sets; Bell(11) would be 678570).
MAX_BERGMANN_HOMMEL_METHODS = 10


def _check_table(table: ArrayLike, owner: str) -> tuple[FloatArray, tuple[str, ...]]:
    """Return ``(values (N, k) float64, names tuple)`` from an array or DataFrame."""
    names = None
    if hasattr(table, "columns") and hasattr(table, "to_numpy"):
        names = tuple(str(c) for c in table.columns)
        table = table.to_numpy()
    try:
        arr = np.asarray(table, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"'table' of {owner} must be a numeric 2-D array (datasets x methods)."
        ) from None
    if arr.ndim != 2:
        raise ValueError(
            f"'table' of {owner} must be 2-D with one row per dataset and one column per "
            f"method, got shape {arr.shape}."
        )
    n, k = arr.shape
    if k < 2:
        raise ValueError(f"'table' of {owner} must compare at least 2 methods, got {k} column(s).")
    if n < 2:
        raise ValueError(f"'table' of {owner} needs at least 2 datasets (rows), got {n}.")
    if np.isnan(arr).any():
        i, j = np.argwhere(np.isnan(arr))[0]
        raise ValueError(
            f"'table' of {owner} holds NaN (first at row {i}, column {j}); every method needs a "
            "score on every dataset."
        )
    if names is None:
        names = tuple(f"method {j}" for j in range(k))
    return arr, names


def _resolve_names(
    names: Iterable[object] | None, default: tuple[str, ...], owner: str
) -> tuple[str, ...]:
    if names is None:
        return default
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise TypeError(f"'names' of {owner} must be a sequence of method names, got {names!r}.")
    names = tuple(str(n) for n in names)
    if len(names) != len(default):
        raise ValueError(
            f"'names' of {owner} must give one name per column ({len(default)}), got {len(names)}."
        )
    return names


def _ranks(arr: FloatArray, lower_is_better: bool) -> FloatArray:
    """Rank each row: 1 for the best method, ties get the average of the ranks they span."""
    values = arr if lower_is_better else -arr
    # +inf (an infinite loss) ranks last; rankdata handles infinities as ordinary values.
    ranks: FloatArray = stats.rankdata(values, axis=1, method="average")
    return ranks


def _average_ranks(
    table: ArrayLike, lower_is_better: bool, names: Iterable[object] | None, owner: str
) -> tuple[FloatArray, tuple[str, ...], int]:
    """Validate the arguments; return the average ranks, the method names and ``n_datasets``."""
    arr, default = _check_table(table, owner)
    check_bool(lower_is_better, name="lower_is_better", owner=owner)
    names = _resolve_names(names, default, owner)
    avg: FloatArray = _ranks(arr, lower_is_better).mean(axis=0)
    return avg, names, arr.shape[0]


def average_ranks(table: ArrayLike, lower_is_better: bool = True) -> FloatArray:
    """Average rank of each method over the datasets.

    Parameters
    ----------
    table : array-like or DataFrame of shape (n_datasets, n_methods)
        One score per dataset and method. Infinite values are allowed (an infinite loss ranks
        last); NaN is not.
    lower_is_better : bool, default=True
        True for losses (log loss, Brier score, ECE), False for accuracy or AUC.

    Returns
    -------
    ranks : ndarray of shape (n_methods,)
        Mean over datasets of each method's rank (1 = best; tied methods share the average of
        the ranks they span), so ``ranks.sum() == n_methods (n_methods + 1) / 2``.

    References
    ----------
    Demsar (2006), section 3.2.2.

    Examples
    --------
    >>> losses = [[0.30, 0.20, 0.25],
    ...           [0.40, 0.10, 0.40],
    ...           [0.50, 0.45, float("inf")]]
    >>> average_ranks(losses)
    array([2.5, 1. , 2.5])
    >>> average_ranks([[0.9, 0.8], [0.7, 0.8]], lower_is_better=False)
    array([1.5, 1.5])
    """
    mean, _, _ = _average_ranks(table, lower_is_better, None, "average_ranks")
    return mean


@dataclass(frozen=True)
class FriedmanResult:
    """Result of :func:`friedman_test`.

    Attributes
    ----------
    statistic : float
        Friedman's chi-square statistic, with ``n_methods - 1`` degrees of freedom.
    pvalue : float
        Its upper-tail chi-square p-value.
    iman_davenport_statistic : float
        The Iman-Davenport F statistic, with ``(n_methods - 1, (n_methods - 1)(n_datasets - 1))``
        degrees of freedom; less conservative than the chi-square (Demsar 2006, eq. after 3.2.2).
    iman_davenport_pvalue : float
        Its upper-tail F p-value.
    average_ranks : ndarray of shape (n_methods,)
    names : tuple of str
    n_datasets : int
    n_methods : int
    """

    statistic: float
    pvalue: float
    iman_davenport_statistic: float
    iman_davenport_pvalue: float
    average_ranks: FloatArray
    names: tuple[str, ...]
    n_datasets: int
    n_methods: int


def _friedman_from_ranks(avg_ranks: FloatArray, n: int) -> tuple[float, float, float, float]:
    """Friedman chi-square and Iman-Davenport F from average ranks (Demsar 2006, sec. 3.2.2)."""
    k = avg_ranks.size
    chi2: float = 12.0 * n / (k * (k + 1)) * (np.sum(avg_ranks**2) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(float(chi2), 0.0)
    p_chi2 = float(stats.chi2.sf(chi2, k - 1))
    denom = n * (k - 1) - chi2
    if denom <= 0:  # every dataset ranks the methods identically
        f_stat, p_f = np.inf, 0.0
    else:
        f_stat = (n - 1) * chi2 / denom
        p_f = float(stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1)))
    return chi2, p_chi2, float(f_stat), p_f


def friedman_test(
    table: ArrayLike, *, lower_is_better: bool = True, names: Iterable[object] | None = None
) -> FriedmanResult:
    """Friedman test of the null hypothesis that all methods perform equally.

    Parameters
    ----------
    table : array-like or DataFrame of shape (n_datasets, n_methods)
        One score per dataset and method (DataFrame columns give the names).
    lower_is_better : bool, default=True
        True for losses, False for accuracy-like scores.
    names : sequence of str, default=None
        Method names; default the DataFrame columns or ``"method 0"``, ``"method 1"``, ...

    Returns
    -------
    result : FriedmanResult
        The chi-square statistic
        :math:`\\chi^2_F = \\frac{12N}{k(k+1)}\\left[\\sum_j R_j^2 - \\frac{k(k+1)^2}{4}\\right]`
        and the Iman-Davenport :math:`F_F = \\frac{(N-1)\\chi^2_F}{N(k-1)-\\chi^2_F}` with their
        p-values. No correction for ties is applied (as in Demsar 2006).

    References
    ----------
    M. Friedman, "The use of ranks to avoid the assumption of normality implicit in the analysis
    of variance", JASA 32, 675-701, 1937; R. L. Iman and J. M. Davenport, "Approximations of the
    critical region of the Friedman statistic", Comm. Stat. 9, 571-595, 1980; Demsar (2006),
    section 3.2.2.

    Examples
    --------
    Method 1 is best on every one of 12 datasets, the other two alternate:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> table = np.column_stack([rng.uniform(0.3, 0.4, 12), rng.uniform(0.0, 0.1, 12),
    ...                          rng.uniform(0.3, 0.4, 12)])
    >>> res = friedman_test(table)
    >>> float(res.average_ranks[1]), bool(res.pvalue < 0.01)
    (1.0, True)
    """
    avg, names, n = _average_ranks(table, lower_is_better, names, "friedman_test")
    chi2, p_chi2, f_stat, p_f = _friedman_from_ranks(avg, n)
    return FriedmanResult(
        statistic=chi2,
        pvalue=p_chi2,
        iman_davenport_statistic=f_stat,
        iman_davenport_pvalue=p_f,
        average_ranks=avg,
        names=names,
        n_datasets=n,
        n_methods=avg.shape[0],
    )


def nemenyi_critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Critical difference of average ranks for the Nemenyi test.

    Two methods differ significantly when their average ranks differ by at least
    :math:`CD = q_\\alpha \\sqrt{k(k+1)/(6N)}`, where :math:`q_\\alpha` is the upper ``alpha``
    quantile of the studentized range of ``k`` normal variables (infinite degrees of freedom)
    divided by :math:`\\sqrt 2`.

    Parameters
    ----------
    k : int
        Number of methods (>= 2).
    n : int
        Number of datasets (>= 1).
    alpha : float, default=0.05
        Family-wise significance level, in (0, 1).

    Returns
    -------
    cd : float

    References
    ----------
    P. B. Nemenyi, "Distribution-free multiple comparisons", PhD thesis, Princeton, 1963;
    Demsar (2006), section 3.2.2 and Table 5(a).

    Examples
    --------
    Demsar's worked example (4 methods, 14 datasets, section 3.2.4):

    >>> round(nemenyi_critical_difference(4, 14, alpha=0.05), 2)
    1.25
    >>> round(nemenyi_critical_difference(4, 14, alpha=0.10), 2)
    1.12
    """
    k = check_positive_int(k, name="k", owner="nemenyi_critical_difference", minimum=2)
    n = check_positive_int(n, name="n", owner="nemenyi_critical_difference")
    alpha = check_in_range(alpha, 0, 1, name="alpha", owner="nemenyi_critical_difference")
    return float(_nemenyi_q(k, alpha) * np.sqrt(k * (k + 1) / (6.0 * n)))


@functools.lru_cache(maxsize=64)
def _nemenyi_q(k: int, alpha: float) -> float:
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


@dataclass(frozen=True)
class PosthocResult:
    """Result of a pairwise post-hoc procedure after the Friedman test.

    Attributes
    ----------
    names : tuple of str
        The ``k`` method names.
    average_ranks : ndarray of shape (k,)
    statistic : ndarray of shape (k, k)
        ``z[i, j] = (R_i - R_j) / sqrt(k (k + 1) / (6 N))``; negative when ``i`` ranks better.
    pvalue : ndarray of shape (k, k)
        Unadjusted two-sided p-values (1 on the diagonal).
    adjusted_pvalue : ndarray of shape (k, k)
        p-values adjusted for the family of all ``k (k - 1) / 2`` pairwise hypotheses by
        ``method``: a pair differs significantly at level ``alpha`` iff its adjusted p-value is
        at most ``alpha``. Symmetric, 1 on the diagonal.
    method : str
        ``"nemenyi"``, ``"holm"`` or ``"bergmann-hommel"``.
    n_datasets : int
    """

    names: tuple[str, ...]
    average_ranks: FloatArray
    statistic: FloatArray
    pvalue: FloatArray
    adjusted_pvalue: FloatArray
    method: str
    n_datasets: int

    def significant(self, alpha: float = 0.05) -> BoolArray:
        """Boolean (k, k) matrix: True where the pair differs at family-wise level ``alpha``."""
        alpha = check_in_range(alpha, 0, 1, name="alpha", owner="PosthocResult.significant")
        sig = self.adjusted_pvalue <= alpha
        np.fill_diagonal(sig, False)
        return sig

    def better(self, alpha: float = 0.05) -> BoolArray:
        """Boolean (k, k) matrix: True where row method ranks significantly better than column.

        This is the "v" table of Johansson et al. (2018), Tables 3 and 5.
        """
        return self.significant(alpha) & (self.average_ranks[:, None] < self.average_ranks[None, :])

    def pairs(self) -> list[dict[str, Any]]:
        """The ``k (k - 1) / 2`` comparisons as rows, smallest unadjusted p-value first.

        Returns
        -------
        rows : list of dict
            Keys ``"a"``, ``"b"``, ``"rank_a"``, ``"rank_b"``, ``"z"``, ``"pvalue"``,
            ``"adjusted_pvalue"``.
        """
        k = len(self.names)
        rows = [
            {
                "a": self.names[i],
                "b": self.names[j],
                "rank_a": float(self.average_ranks[i]),
                "rank_b": float(self.average_ranks[j]),
                "z": float(self.statistic[i, j]),
                "pvalue": float(self.pvalue[i, j]),
                "adjusted_pvalue": float(self.adjusted_pvalue[i, j]),
            }
            for i in range(k)
            for j in range(i + 1, k)
        ]
        rows.sort(key=lambda r: (r["pvalue"], r["a"], r["b"]))
        return rows


@dataclass(frozen=True)
class _Pairwise:
    """Average ranks, z statistics and unadjusted p-values of every pair of methods; the pairs
    ``(iu[m], ju[m])`` are those above the diagonal."""

    names: tuple[str, ...]
    avg: FloatArray
    n: int
    k: int
    z: FloatArray
    p: FloatArray
    iu: IntArray
    ju: IntArray

    def result(self, adj: FloatArray, method: str) -> PosthocResult:
        """The result with the adjusted p-values ``adj`` of the pairs, in pair order."""
        iu, ju, k = self.iu, self.ju, self.k
        values = np.minimum(adj, 1.0)
        out = np.ones((k, k))
        out[iu, ju] = values
        out[ju, iu] = values
        return PosthocResult(
            names=self.names,
            average_ranks=self.avg,
            statistic=self.z,
            pvalue=self.p,
            adjusted_pvalue=out,
            method=method,
            n_datasets=self.n,
        )


def _pairwise(
    table: ArrayLike, lower_is_better: bool, names: Iterable[object] | None, owner: str
) -> _Pairwise:
    """Validate the arguments and compare every pair of methods."""
    avg, names, n = _average_ranks(table, lower_is_better, names, owner)
    k = avg.shape[0]
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    z = (avg[:, None] - avg[None, :]) / se
    p = 2.0 * stats.norm.sf(np.abs(z))
    np.fill_diagonal(p, 1.0)
    iu, ju = np.triu_indices(k, 1)
    return _Pairwise(names, avg, n, k, z, p, iu, ju)


def nemenyi_posthoc(
    table: ArrayLike,
    *,
    lower_is_better: bool = True,
    names: Iterable[object] | None = None,
) -> PosthocResult:
    """All pairwise comparisons by the Nemenyi test.

    The adjusted p-value of a pair is the probability that the range of ``k`` independent standard
    normals exceeds :math:`\\sqrt 2 |z|`, so a pair is significant at level ``alpha`` exactly when
    its average ranks differ by at least :func:`nemenyi_critical_difference` ``(k, N, alpha)``.

    Parameters
    ----------
    table : array-like or DataFrame of shape (n_datasets, n_methods)
    lower_is_better : bool, default=True
    names : sequence of str, default=None

    Returns
    -------
    result : PosthocResult

    References
    ----------
    Demsar (2006), section 3.2.2; Garcia & Herrera (2008), section 2.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> table = rng.normal(size=(30, 4)) + [0.0, 0.0, 0.0, 2.0]   # method 3 is clearly worse
    >>> res = nemenyi_posthoc(table, names=["a", "b", "c", "d"])
    >>> bool(res.significant(0.05)[0, 3]), bool(res.significant(0.05)[0, 1])
    (True, False)
    """
    pairs = _pairwise(table, lower_is_better, names, "nemenyi_posthoc")
    q = np.sqrt(2.0) * np.abs(pairs.z[pairs.iu, pairs.ju])
    return pairs.result(stats.studentized_range.sf(q, pairs.k, np.inf), "nemenyi")


def _holm_adjust(p: FloatArray) -> FloatArray:
    """Holm step-down adjusted p-values for a flat array of p-values."""
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adj_sorted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    adj = np.empty(m)
    adj[order] = adj_sorted
    return adj


def holm_posthoc(
    table: ArrayLike,
    *,
    lower_is_better: bool = True,
    names: Iterable[object] | None = None,
) -> PosthocResult:
    """All pairwise comparisons with Holm's step-down adjustment.

    With the ``m = k (k - 1) / 2`` unadjusted p-values sorted increasingly,
    :math:`p_{(1)} \\le \\dots \\le p_{(m)}`, the adjusted p-value of the ``i``-th is
    :math:`\\max_{j \\le i} \\min\\{(m - j + 1) p_{(j)}, 1\\}`.

    Parameters
    ----------
    table : array-like or DataFrame of shape (n_datasets, n_methods)
    lower_is_better : bool, default=True
    names : sequence of str, default=None

    Returns
    -------
    result : PosthocResult

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Stat. 6,
    65-70, 1979; Garcia & Herrera (2008), section 2.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> table = rng.normal(size=(30, 4)) + [0.0, 0.0, 0.0, 2.0]
    >>> res = holm_posthoc(table)
    >>> bool((res.adjusted_pvalue >= res.pvalue).all())
    True
    """
    pairs = _pairwise(table, lower_is_better, names, "holm_posthoc")
    return pairs.result(_holm_adjust(pairs.p[pairs.iu, pairs.ju]), "holm")


@functools.lru_cache(maxsize=MAX_BERGMANN_HOMMEL_METHODS)
def _exhaustive_sets(k: int) -> BoolArray:
    """Boolean matrix (n_sets, k (k - 1) / 2) of the non-empty exhaustive sets of hypotheses.

    A set of pairwise equality hypotheses can be true all at once (and no other hypothesis is then
    implied) exactly when it is the set of pairs inside the blocks of a partition of the ``k``
    methods. Partitions are enumerated as restricted growth strings; the partition into
    singletons gives the empty set and is dropped.
    """
    rgs = np.zeros((1, 1), dtype=np.int8)
    for _ in range(1, k):
        top = rgs.max(axis=1)
        counts = top.astype(np.int64) + 2
        rows = np.repeat(rgs, counts, axis=0)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        new = (np.arange(rows.shape[0]) - starts).astype(np.int8)
        rgs = np.column_stack([rows, new])
    iu, ju = np.triu_indices(k, 1)
    sets: BoolArray = rgs[:, iu] == rgs[:, ju]
    sets = sets[sets.any(axis=1)]
    sets.flags.writeable = False
    return sets


def _bergmann_hommel_adjust(p: FloatArray, k: int) -> FloatArray:
    """Adjusted p-values: ``max over exhaustive I containing H of |I| * min_{j in I} p_j``."""
    sets = _exhaustive_sets(k)
    sizes = sets.sum(axis=1)
    minp = np.where(sets, p[None, :], np.inf).min(axis=1)
    value = sizes * minp
    adj: FloatArray = np.where(sets, value[:, None], -np.inf).max(axis=0)
    return np.minimum(adj, 1.0)


def bergmann_hommel_posthoc(
    table: ArrayLike,
    *,
    lower_is_better: bool = True,
    names: Iterable[object] | None = None,
) -> PosthocResult:
    """All pairwise comparisons by Bergmann and Hommel's procedure.

    A pairwise hypothesis ``H`` is rejected at level ``alpha`` when, for every exhaustive set
    ``I`` of hypotheses that contains ``H``, :math:`\\min_{j \\in I} p_j \\le \\alpha / |I|`.
    Equivalently its adjusted p-value is
    :math:`\\max_{I \\ni H} \\min\\{|I| \\min_{j \\in I} p_j, 1\\}`, the maximum running over the
    exhaustive sets. Exhaustive sets are enumerated exactly (one per partition of the methods:
    Bell(k) - 1 of them), which is fast up to ``k = 10``.

    It is never less powerful than Holm's procedure: every adjusted p-value is at most Holm's.

    Parameters
    ----------
    table : array-like or DataFrame of shape (n_datasets, n_methods)
        ``n_methods`` must be at most 10.
    lower_is_better : bool, default=True
    names : sequence of str, default=None

    Returns
    -------
    result : PosthocResult

    References
    ----------
    Bergmann & Hommel (1988); Garcia & Herrera (2008), section 3 and Table 4 (adjusted p-values);
    used by Johansson et al. (2018), Tables 3 and 5.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> table = rng.normal(size=(30, 5)) + [0.0, 0.0, 0.0, 1.0, 2.0]
    >>> bh = bergmann_hommel_posthoc(table)
    >>> holm = holm_posthoc(table)
    >>> bool((bh.adjusted_pvalue <= holm.adjusted_pvalue + 1e-12).all())
    True
    """
    owner = "bergmann_hommel_posthoc"
    pairs = _pairwise(table, lower_is_better, names, owner)
    k = pairs.k
    if k > MAX_BERGMANN_HOMMEL_METHODS:
        raise ValueError(
            f"{owner} enumerates every exhaustive set of hypotheses and supports at most "
            f"{MAX_BERGMANN_HOMMEL_METHODS} methods, got {k}; use holm_posthoc instead."
        )
    adj = _bergmann_hommel_adjust(pairs.p[pairs.iu, pairs.ju], k)
    return pairs.result(adj, "bergmann-hommel")
