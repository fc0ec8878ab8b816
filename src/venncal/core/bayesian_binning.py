"""Exact Bayesian binning: selection (SBB) and averaging (ABB) over all binnings.

Naeini, Cooper & Hauskrecht (2014) score every partition of the sorted calibration scores into
bins of consecutive positions with a Bayesian score, eq. (6), and either keep the best partition
(SBB) or average the bin estimates over all partitions weighted by their posterior (ABB, eq. 7).
This module computes both exactly, with the definitions fixed as follows so that any two
implementations agree.

* **Positions** are the distinct sorted calibration scores ``v_1 < ... < v_N``; tied scores are
  pooled with their (weighted) counts.
* A **bin** is a run of positions ``[l, u]``. Its factor in the score is::

      (q_u if u < N else 1) * prod_{k=l}^{u-1} (1 - q_k) * n0! n1! / (n + 1)!

  with ``n0``, ``n1``, ``n`` the counts of the calibration examples in the bin (eqs. 4-6;
  ``x!`` is ``Gamma(x + 1)`` for weighted counts). The score of a binning is the product of
  its bins' factors.
* The **boundary prior** is a Poisson process of boundaries along the score range with ``lam``
  expected boundaries: ``q_k = 1 - exp(-lam (v_{k+1} - v_k) / (v_N - v_1))``.
* A bin **estimates** ``(n1 + 1) / (n + 2)``, the posterior mean under the uniform Beta(1, 1)
  prior of eq. (4) (footnote 1 of the paper).
* A **test score** takes the value of its nearest distinct calibration score; on a tie, the
  lower one.

SBB maximises the score with the O(N^2) dynamic programme of Section 2.3. ABB is the exact model
average over all ``2^(N-1)`` binnings. Where the paper's eq. (8) costs O(N^2) per test score (or
O(R N^2) with a cache of R values), the average at *every* position is found here at once: with
``F(l)`` the total score of all binnings of the prefix ``v_1..v_l`` and ``B(u)`` that of the suffix
``v_u..v_N`` (forward and backward sums, in log space), the posterior probability of bin
``[l, u]`` is ``F(l - 1) w(l, u) B(u + 1) / F(N)``, and adding each bin's share to the positions
it covers by a difference array gives all N averages in O(N^2) total time and O(N) memory.
Prediction is then a binary search.

The double loop runs in a numba kernel when numba is installed, and otherwise in a pure-numpy
version that does the same arithmetic row by row (both in
:mod:`venncal.core._bayesian_binning_passes`); a test checks that the two agree. The compiled
kernels also stop each row's scan once a proven bound shows that every remaining bin has less
than e^-50 of the row's largest weight (``_LOG_CUTOFF`` there): this changes each ABB value by
less than ``2 N^2 e^-50`` (under 4e-12 at N = 10^5), leaves SBB exact, and makes the cost grow
more slowly than N^2 when the posterior varies along the scores.

When the labels do not depend on the scores, no scan can stop early: a boundary costs only a
few tens of nats (``log q`` and an Occam factor of about ``0.5 log n``), so every one of the
``N^2 / 2`` bin terms of a row lies within e^-50 of the row's largest, and a method that sums
the terms touches them all. The exact ABB with whole-number counts makes each term cheap
instead, in the compiled passes of :mod:`venncal.core._bayesian_binning_scan`: a position that
holds a single example changes every bin term of the next row by the predictive probability
of that example, ``(n_c + 1) / (n + 2)``, so a row is the previous one times a vectorised ratio
(one multiplication and one division per term, per example at the position) instead of
log-factorials and an exponential per term. Rows are computed afresh from the log-factorials
at positions with more than 8 examples and at least every 128 carried examples, which bounds
rounding (relative 5e-14 per term) and underflow (a term that underflows stays below e^-92 of
its row's largest until the next fresh row); the scans stop by the same bound, so the bound on
each ABB value is the one above. At N = 10^5 distinct scores the fit takes a few seconds on
either kind of labels, 13-15x less than with an exponential per term (BENCHMARKS.md, "Bayesian
binning"). SBB and ``averaging="paper"`` (maxima, not sums) keep the direct evaluation.

References
----------
.. [1] M. P. Naeini, G. F. Cooper and M. Hauskrecht, "Binary classifier calibration: a Bayesian
   non-parametric approach", 2014, eqs. (4)-(8).
.. [2] J. L. Lustgarten, S. Visweswaran, V. Gopalakrishnan and G. F. Cooper, "Application of an
   efficient Bayesian discretization method to biomedical data", BMC Bioinformatics 12, 2011.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
from scipy.special import gammaln

from venncal._validation import (
    check_in_range,
    check_option,
    check_positive_int,
    check_sample_weight,
    check_scores,
    scaled_sample_weight,
)
from venncal.core._bayesian_binning_cost import _is_integer, _warn_if_slow, expected_seconds
from venncal.core._bayesian_binning_passes import run as _run
from venncal.core._inputs import check_scores_y01, fill_fit_doc
from venncal.core._jit import HAVE_NUMBA  # noqa: F401  (whether the compiled passes run)

if TYPE_CHECKING:
    from typing import TypedDict

    from venncal._typing import AnyArray, ArrayLike, FloatArray, IntArray
    from venncal.core.counts import CountTable

    class _FitOptions(TypedDict):
        """The options a fitter passes on to :func:`_fit_grouped` or :func:`_fit_pooled`."""

        method: str
        lam: float
        engine: str
        averaging: str


__all__ = [
    "DEFAULT_LAM",
    "BayesianBinning",
    "fit_bayesian_binning",
    "fit_bayesian_binning_counts",
    "pool_scores",
    "bin_log_weight",
    "expected_seconds",
]

#: Default expected number of bin boundaries along the score range (the Poisson rate ``lam``).
#: Chosen by a held-out log-loss study of ABB: four posteriors of the score (logistic, steep
#: logistic, a two-level non-monotone step, a sine wave), calibration sets of 300, 1,000 and
#: 5,000 scores, 5 seeds, 20,000 test scores each, and ``lam`` in {1, 2, 5, 10, 20, 50, 100}.
#: ``lam = 10`` was within 0.8% of the best value of the grid in all 12 settings (the best in 3);
#: 5 and 20 were within 1.2% and 2.1%, while 1 and 100 lost up to 3.9% and 47%. Ten expected
#: boundaries also match the customary ten bins of histogram binning.
DEFAULT_LAM = 10.0

_METHODS = ("selection", "averaging")
_AVERAGING = ("exact", "paper")


def pool_scores(
    scores: FloatArray, y01: ArrayLike, sample_weight: FloatArray | None = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Pool tied scores: return the distinct sorted scores with their class counts.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Finite scores.
    y01 : ndarray of shape (n,)
        Labels in {0, 1}.
    sample_weight : ndarray of shape (n,), default=None
        Non-negative weights (counts are weighted sums); unit weights when None.

    Returns
    -------
    positions : ndarray of shape (N,)
        The distinct scores, increasing.
    n0, n1 : ndarray of shape (N,)
        The (weighted) counts of negatives and positives at each position.

    Examples
    --------
    >>> v, n0, n1 = pool_scores(np.array([0.3, 0.1, 0.3]), np.array([1, 0, 0]))
    >>> v, n0, n1
    (array([0.1, 0.3]), array([1., 1.]), array([0., 1.]))
    """
    positions, inverse = np.unique(scores, return_inverse=True)
    w = np.ones(scores.shape[0]) if sample_weight is None else sample_weight
    y = np.asarray(y01, dtype=np.float64)
    n1 = np.bincount(inverse, weights=w * y, minlength=positions.size)
    n0 = np.bincount(inverse, weights=w * (1.0 - y), minlength=positions.size)
    # bincount with weights is float64 (numpy's stubs type it as an integer array)
    return positions, cast("FloatArray", n0), cast("FloatArray", n1)


def _log_q(
    positions: FloatArray, lam: float, total: float | None = None
) -> tuple[FloatArray, FloatArray]:
    """Return ``log q_k`` and ``lam (v_k - v_1) / (v_N - v_1)`` for each position.

    With ``total``, the number of examples, gaps of the prior larger than
    ``60 + 2 log(total + 2)`` are taken at that size. A binning that merges two positions
    across such a gap weighs at most ``e^-gap`` (its prior) times ``total + 1`` (the most a
    merge can gain in marginal likelihood) relative to the binning with a boundary there, so
    all of them together weigh below 1e-20 of the total either way, and ``q = 1`` in floating
    point for both. This keeps ``x`` within reach of the log scores for any ``lam`` up to the
    largest float: at ``lam`` of 1e4 and more, ``x`` of order ``lam`` swamped them (no
    precision left in ``log_f + x``, NaN estimates).
    """
    if positions.size < 2:  # a single position: one bin, no boundary
        return np.zeros(positions.size), np.zeros(positions.size)
    v = positions
    with np.errstate(over="ignore"):
        span = v[-1] - v[0]
        diff = np.diff(v)  # finite but where the range is beyond the largest float
    if np.isfinite(span):
        x = lam * ((v - v[0]) / span)
        gaps = lam * (diff / span)
        log_span = np.log(span)
    else:  # a range beyond the largest float: measured in halves (exact up there), but the
        # gaps between subnormal scores, which halving would merge, are kept whole
        h = 0.5 * v
        span_h = h[-1] - h[0]
        x = lam * ((h - h[0]) / span_h)
        big = ~np.isfinite(diff)
        with np.errstate(invalid="ignore"):
            gaps = lam * np.where(big, (h[1:] - h[:-1]) / span_h, (diff / span_h) * 0.5)
        log_span = np.log(span_h) + np.log(2.0)
    if total is not None:
        cap = 60.0 + 2.0 * np.log(total + 2.0)
        if (gaps > cap).any():
            gaps = np.minimum(gaps, cap)
            x = np.concatenate([[0.0], np.cumsum(gaps)])
    with np.errstate(divide="ignore"):
        log_q = np.log(-np.expm1(-gaps))
        # a gap below 1e-300 of the range: log q = log(lam gap / span) up to 1e-300, computed
        # in log space so that it stays finite when lam gap / span underflows
        tiny = gaps < 1e-300
        if tiny.any():
            log_q[tiny] = np.log(lam) + np.log(diff[tiny]) - log_span
    log_q = np.append(log_q, 0.0)  # the last bin has no right boundary
    return log_q, x


def bin_log_weight(
    l: int, u: int, positions: FloatArray, n0: FloatArray, n1: FloatArray, lam: float
) -> float:
    """Return the log of one bin's factor in the Bayesian score, eq. (6).

    A plain, slow implementation of the definition, used by the tests and for inspection.

    Parameters
    ----------
    l, u : int
        The first and last position of the bin (0-based, inclusive).
    positions : ndarray of shape (N,)
        The distinct sorted scores.
    n0, n1 : ndarray of shape (N,)
        The class counts at each position.
    lam : float
        The expected number of boundaries.

    Returns
    -------
    float
        ``log[(q_u or 1) * prod_{k=l}^{u-1} (1 - q_k) * n0! n1! / (n + 1)!]``.

    Examples
    --------
    One position holding one negative: the bin factor is 0! 1! / 2! = 1/2.

    >>> float(np.exp(bin_log_weight(0, 0, np.array([0.5]), np.array([1.0]), np.array([0.0]), 5)))
    0.5
    """
    big_n = positions.size
    span = positions[-1] - positions[0]
    log_prior = 0.0
    for k in range(l, u + 1):
        gap = lam * (positions[k + 1] - positions[k]) / span if k < big_n - 1 else 0.0
        if k < u:
            log_prior += -gap
        elif k < big_n - 1:
            log_prior += np.log(-np.expm1(-gap))
    a, b = n0[l : u + 1].sum(), n1[l : u + 1].sum()
    return float(log_prior + gammaln(a + 1) + gammaln(b + 1) - gammaln(a + b + 2))


@dataclass(frozen=True)
class BayesianBinning:
    """A fitted Bayesian binning: calibrated values at the distinct calibration scores.

    Attributes
    ----------
    positions : ndarray of shape (N,)
        The distinct calibration scores, increasing.
    values : ndarray of shape (N,)
        The calibrated probability at each position, strictly inside (0, 1).
    method : {"selection", "averaging"}
        SBB or ABB.
    lam : float
        The expected number of boundaries of the prior.
    log_score : float
        For SBB, and for ABB with ``averaging="paper"``, the log score of the best binning; for
        ABB with ``averaging="exact"`` the log of the total score of all binnings (the log
        marginal likelihood of the data under the prior).
    bin_starts : ndarray of shape (B,) or None
        For SBB, the index of the first position of each selected bin; None for ABB.
    averaging : {"exact", "paper"}
        For ABB, the exact model average (eq. 7) or the paper's eq. (8) as written; "exact"
        for SBB, where it plays no part.
    """

    positions: FloatArray
    values: FloatArray
    method: str
    lam: float
    log_score: float
    bin_starts: IntArray | None = None
    averaging: str = "exact"

    def predict(self, scores: ArrayLike) -> FloatArray:
        """Return the calibrated probability of each test score.

        A test score takes the value of its nearest distinct calibration score; on a tie, the
        lower one.

        Parameters
        ----------
        scores : array-like of shape (m,)

        Returns
        -------
        proba : ndarray of shape (m,)
        """
        t = check_scores(scores, name="scores")
        return self.values[nearest_position(self.positions, t)]


def nearest_position(positions: FloatArray, t: FloatArray) -> IntArray:
    """Index of the nearest of the sorted ``positions`` for each ``t``; ties go to the lower.

    Examples
    --------
    >>> nearest_position(np.array([0.0, 1.0, 2.0]), np.array([-5.0, 0.5, 0.6, 9.0]))
    array([0, 0, 1, 2])
    """
    hi = np.searchsorted(positions, t, side="left")
    hi = np.clip(hi, 0, positions.size - 1)
    lo = np.clip(hi - 1, 0, positions.size - 1)
    go_up = (positions[hi] - t) < (t - positions[lo])
    return np.where(go_up, hi, lo)


def _check_fit_options(method: str, engine: str, averaging: str, lam: float, owner: str) -> float:
    """Check the options of the fitters and return ``lam`` as a float."""
    check_option(method, _METHODS, name="method", owner=owner)
    check_option(engine, ("auto", "numba", "numpy"), name="engine", owner=owner)
    check_option(averaging, _AVERAGING, name="averaging", owner=owner)
    return check_in_range(lam, 0, np.inf, name="lam", owner=owner)


@fill_fit_doc
def fit_bayesian_binning(
    scores: ArrayLike,
    y01: ArrayLike,
    sample_weight: ArrayLike | None = None,
    *,
    method: str = "averaging",
    lam: float = DEFAULT_LAM,
    engine: str = "auto",
    max_positions: int | None = None,
    averaging: str = "exact",
) -> BayesianBinning:
    """Fit SBB or ABB exactly on calibration scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Calibration scores (any real numbers; only their order and spacing matter).
    {y01}
    sample_weight : array-like of shape (n,), default=None
        Non-negative weights; a weight of k counts as k examples (a fractional weight as a
        fractional count), the same as repeating the row k times. Their total must be at
        most 2^53 (a ValueError otherwise).
    method : {"averaging", "selection"}, default="averaging"
        ``"averaging"`` is ABB (eq. 7), ``"selection"`` is SBB (Section 2.3).
    lam : float, default=DEFAULT_LAM (10.0)
        Expected number of bin boundaries along the score range (the Poisson prior of eq. 5).
        Larger values favour more, narrower bins.
    engine : {"auto", "numba", "numpy"}, default="auto"
        Which implementation of the O(N^2) loops to run; ``"auto"`` uses numba when installed.
    max_positions : int or None, default=None
        None fits the exact model on all N distinct scores. An integer ``K >= 2`` caps the
        O(N^2) cost at O(K^2): when N exceeds K, neighbouring distinct scores are pooled into
        at most K groups of about equal weight, each placed at the midpoint of its scores, and
        every calibration score gets its group's value (so fit and prediction treat a score
        alike).
    averaging : {"exact", "paper"}, default="exact"
        How ABB weighs the bins (ignored by SBB). ``"exact"`` is the model average of eq. (7):
        a bin ``[l, u]`` weighs its posterior probability ``F(l-1) Score(l, u) B(u+1) / Z``,
        where ``F`` and ``B`` *sum* the scores of all binnings of the prefix and suffix.
        ``"paper"`` is eq. (8) as the paper writes it: ``V^f_{l-1} Score(l, u) V^b_{u+1}``,
        where ``V^f`` and ``V^b`` are the scores of the *best* binnings of the prefix and
        suffix (forward and backward runs of SBB, Section 2.4), normalised at each position
        over the bins that hold it. See Notes.

    Returns
    -------
    BayesianBinning
        With ``.predict(t)``.

    Warns
    -----
    VenncalWarning
        Before a fit expected to take more than about 10 seconds (see
        :func:`expected_seconds`), naming a ``max_positions`` that would take about 10 s.

    Notes
    -----
    Time O(N^2) and memory O(N) for N distinct scores, for both methods: with the compiled
    kernels and distinct scores, ABB takes about 0.03 s at N = 10^4 and 2-4 s at N = 10^5
    (labels informative or independent of the scores; 5-13 s for SBB and for
    ``averaging="paper"``, 10 times more for ABB when most scores hold more than 8 examples).
    With
    whole-number
    counts (no weights or whole-number weights, total up to 4 million) log-factorials come
    from a table and the compiled kernels run; fractional weights or larger totals run the
    numpy loops with ``gammaln``, about ten times slower.

    **Eq. (7) and eq. (8).** ABB is defined by eq. (7): the average of the bin estimates over
    all binnings, each weighted by its posterior probability. Section 2.4 then writes it as
    eq. (8), ``P(x) ∝ sum_{l <= u} V^f_{l-1} Score_{l,u} V^b_{u+1} p_{l,u}(x)``, with ``V^f``
    and ``V^b`` the scores of the *highest-scoring* binnings of the prefix and the suffix. That
    product is the score of the best binning that has ``[l, u]`` as a bin, not the total score
    of all such binnings, so eq. (8) as written is not eq. (7): it is a max-product weighting
    that agrees with eq. (7) only where one binning of each prefix and suffix dominates (and
    exactly for N <= 2 distinct scores). Replacing the maxima by sums turns eq. (8) into
    eq. (7), which is what ``averaging="exact"`` (the default) computes. On simulated
    calibration sets of 100 to 5,000 scores with lam = 10, the two differ by 0.004 to 0.17 at
    the position where they differ most (0.01 to 0.1 typically), and less on larger sets.
    ``averaging="paper"`` computes eq. (8) literally, reading ``p_{l,u}(x)`` as the bin's
    estimate when x falls in ``[l, u]`` (the other bins take no part) and "∝" as normalising
    by the sum of the same weights, so that results can be compared with the published
    tables either way.

    **The prior.** The paper models the probability ``Prior(k)`` of a boundary between the
    k-th and (k+1)-th score "using a Poisson distribution with parameter lambda" (eq. 5), and
    gives neither the argument of that distribution nor the value of lambda. venncal takes
    ``Prior(k) = 1 - exp(-lam (v_{k+1} - v_k) / (v_N - v_1))``, the probability that a
    Poisson process with ``lam`` expected boundaries over the score range puts at least one in
    the gap: the prior then depends on the spacing of the scores, not on their number, is
    unchanged by an increasing affine map of the scores, and ``lam`` reads as the expected
    number of boundaries. ``lam = 10`` is the project's choice, from a held-out log-loss
    study (see :data:`DEFAULT_LAM`).

    References
    ----------
    .. [1] Naeini, Cooper & Hauskrecht (2014), eqs. (4)-(8), Sections 2.3-2.4.

    Examples
    --------
    The estimates never reach 0 or 1, even on perfectly separated data, and ABB's average over
    all binnings is smoother than SBB's single best binning:

    >>> s = np.arange(8.0)
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> sbb = fit_bayesian_binning(s, y, method="selection", lam=2.0)
    >>> sbb.values.round(3)
    array([0.167, 0.167, 0.167, 0.167, 0.833, 0.833, 0.833, 0.833])
    >>> abb = fit_bayesian_binning(s, y, method="averaging", lam=2.0)
    >>> abb.values.round(3)
    array([0.239, 0.229, 0.246, 0.315, 0.685, 0.754, 0.771, 0.761])
    """
    owner = "fit_bayesian_binning"
    lam = _check_fit_options(method, engine, averaging, lam, owner)
    s, y = check_scores_y01(scores, y01)
    if max_positions is not None:
        max_positions = check_positive_int(
            max_positions, name="max_positions", owner=owner, minimum=2
        )
    # a weight of k is k examples: the weights are the counts
    w = check_sample_weight(sample_weight, s.shape[0])
    if w is not None:
        check_total_weight(w, owner=owner)
    if w is not None and not (w > 0).all():
        keep = w > 0  # a zero weight is no observation
        s, y, w = s[keep], y[keep], w[keep]
    positions, n0, n1 = pool_scores(s, y, w)
    options: _FitOptions = {
        "method": method,
        "lam": lam,
        "engine": engine,
        "averaging": averaging,
    }
    return _fit_counts(positions, n0, n1, max_positions, options)


def fit_bayesian_binning_counts(
    positions: ArrayLike,
    n0: ArrayLike,
    n1: ArrayLike,
    *,
    method: str = "averaging",
    lam: float = DEFAULT_LAM,
    engine: str = "auto",
    max_positions: int | None = None,
    averaging: str = "exact",
) -> BayesianBinning:
    """Fit SBB or ABB on pooled calibration data: distinct scores with their class counts.

    The fit of :func:`fit_bayesian_binning` on rows that pool to these counts, with the counts
    used as they are (not relative to their mean): aggregated rows with their counts give the
    fit on the expanded rows, bit for bit.

    Parameters
    ----------
    positions : ndarray of shape (N,)
        The distinct scores, increasing.
    n0, n1 : ndarray of shape (N,)
        Non-negative counts of negatives and positives at each score (their sum positive).
    method, lam, engine, max_positions, averaging
        As in :func:`fit_bayesian_binning`.

    Returns
    -------
    BayesianBinning

    Examples
    --------
    >>> v, n0, n1 = pool_scores(np.arange(8.0), np.array([0, 0, 0, 0, 1, 1, 1, 1]))
    >>> fit_bayesian_binning_counts(v, n0, n1, method="selection", lam=2.0).values.round(3)
    array([0.167, 0.167, 0.167, 0.167, 0.833, 0.833, 0.833, 0.833])
    """
    owner = "fit_bayesian_binning_counts"
    lam = _check_fit_options(method, engine, averaging, lam, owner)
    if max_positions is not None:
        max_positions = check_positive_int(
            max_positions, name="max_positions", owner=owner, minimum=2
        )
    options: _FitOptions = {
        "method": method,
        "lam": lam,
        "engine": engine,
        "averaging": averaging,
    }
    n0 = np.asarray(n0, dtype=np.float64)
    n1 = np.asarray(n1, dtype=np.float64)
    return _fit_counts(np.asarray(positions, dtype=np.float64), n0, n1, max_positions, options)


#: Largest total weight (in examples) Bayesian binning takes: its log marginal likelihoods
#: grow like n log n, and past 2^53 examples float64 resolves neither the counts nor the
#: differences of those logs (the posterior of the binnings would be rounding noise).
MAX_TOTAL_WEIGHT = 2.0**53


def check_total_weight(weight: FloatArray, *, owner: str, name: str = "sample_weight") -> None:
    """Raise a one-line ValueError unless the total weight is at most :data:`MAX_TOTAL_WEIGHT`.

    Examples
    --------
    >>> check_total_weight(np.array([1e300, 1e301]), owner="fit_bayesian_binning")
    Traceback (most recent call last):
    ...
    ValueError: 'sample_weight' of fit_bayesian_binning totals 1.1e+301 examples; Bayesian binning counts a weight of k as k examples and takes totals up to 2^53 (about 9e15): divide the weights by a constant first.
    """
    w, exponent = scaled_sample_weight(weight) if weight.size else (weight, 0)
    with np.errstate(over="ignore"):
        total = float(np.ldexp(np.sum(w), exponent))
    if not total <= MAX_TOTAL_WEIGHT:
        raise ValueError(
            f"'{name}' of {owner} totals {total:.2g} examples; Bayesian binning counts a "
            "weight of k as k examples and takes totals up to 2^53 (about 9e15): divide "
            "the weights by a constant first."
        )


def table_counts(table: CountTable) -> tuple[AnyArray, AnyArray]:
    """Return the counts ``(n0, n1)`` of a :class:`~venncal.core.counts.CountTable` in
    examples (a weight of k is k examples), or raise when they total 2^1000 or more.

    Examples
    --------
    >>> from venncal.core.counts import count_table
    >>> table_counts(count_table(np.array([0.1, 0.2]), np.array([0, 1]), np.array([2.0, 3.0])))
    (array([2., 0.]), array([0., 3.]))
    """
    n0, n1 = table.weights()
    check_total_weight(np.concatenate([n0, n1]).astype(np.float64), owner=_TABLE_OWNER)
    return n0, n1


_TABLE_OWNER = "BayesianBinningCalibrator"


def _fit_counts(
    positions: FloatArray,
    n0: FloatArray,
    n1: FloatArray,
    max_positions: int | None,
    options: _FitOptions,
) -> BayesianBinning:
    if max_positions is not None and positions.size > max_positions:
        return _fit_grouped(positions, n0, n1, max_positions, **options)
    _warn_if_slow(
        positions.size, n0, n1, options["method"], options["engine"], options["averaging"]
    )
    return _fit_pooled(positions, n0, n1, **options)


def _fit_grouped(
    positions: FloatArray,
    n0: FloatArray,
    n1: FloatArray,
    max_positions: int,
    *,
    method: str,
    lam: float,
    engine: str,
    averaging: str,
) -> BayesianBinning:
    """Fit on at most ``max_positions`` groups of neighbouring distinct scores.

    Groups hold consecutive distinct scores of about equal total weight; each is represented
    by the midpoint of its smallest and largest score, and every score of a group gets the
    group's value.
    """
    weight = n0 + n1
    cum = np.cumsum(weight)
    mid = (cum - 0.5 * weight) / cum[-1]  # in (0, 1), increasing
    group = np.minimum((mid * max_positions).astype(np.int64), max_positions - 1)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    ends = np.r_[starts[1:], positions.size] - 1
    reps = 0.5 * positions[starts] + 0.5 * positions[ends]
    g0 = np.add.reduceat(n0, starts)
    g1 = np.add.reduceat(n1, starts)
    _warn_if_slow(reps.size, g0, g1, method, engine, averaging)
    fit = _fit_pooled(reps, g0, g1, method=method, lam=lam, engine=engine, averaging=averaging)
    sizes = ends - starts + 1
    bin_starts = None if fit.bin_starts is None else starts[fit.bin_starts]
    values = np.repeat(fit.values, sizes)
    return BayesianBinning(positions, values, method, lam, fit.log_score, bin_starts, fit.averaging)


def _strictly_inside(values: FloatArray) -> FloatArray:
    """Every estimate ``(n1 + 1) / (n + 2)`` lies strictly inside (0, 1); with counts past
    2^53 it may round to 0 or 1, so keep it one rounding step inside."""
    return np.clip(values, np.finfo(np.float64).tiny, np.nextafter(1.0, 0.0))


def _fit_pooled(
    positions: FloatArray,
    n0: FloatArray,
    n1: FloatArray,
    *,
    method: str,
    lam: float,
    engine: str = "auto",
    averaging: str = "exact",
) -> BayesianBinning:
    big_n = positions.size
    c0 = np.concatenate([[0.0], np.cumsum(n0)])
    c1 = np.concatenate([[0.0], np.cumsum(n1)])
    total = c0[-1] + c1[-1]
    log_q, x = _log_q(positions, lam, total)
    # whole-number counts use tables of log k! up to the total count; beyond _MAX_TABLE of
    # _bayesian_binning_cost (large integer weights) the tables would be too big, and gammaln
    # is evaluated instead
    integer = _is_integer(n0, n1)
    if integer:
        table = gammaln(np.arange(int(round(total)) + 2, dtype=np.float64) + 1.0)
    else:
        table = np.zeros(1)
    select = method == "selection"
    paper = not select and averaging == "paper"
    log_f, arg, d_mass, d_num = _run(engine, integer, c0, c1, log_q, x, table, select, paper)
    if select:
        assert arg is not None  # the forward pass of SBB keeps the argmax of each prefix
        firsts: list[int] = []
        u = big_n
        while u > 0:
            firsts.append(int(arg[u]))
            u = int(arg[u])
        starts = np.array(firsts[::-1], dtype=np.intp)
        ends = np.append(starts[1:], big_n)
        a = c0[ends] - c0[starts]
        b = c1[ends] - c1[starts]
        values = _strictly_inside(np.repeat((b + 1.0) / (a + b + 2.0), ends - starts))
        return BayesianBinning(positions, values, method, lam, float(log_f[big_n]), starts)
    assert d_mass is not None and d_num is not None  # ABB runs the backward pass
    mass = np.cumsum(d_mass)[:big_n]
    num = np.cumsum(d_num)[:big_n]
    # exact: mass is 1 up to rounding, and dividing removes it; paper: the normalisation of
    # eq. (8) at each position (mass >= 1: the best binning's bin holds every position)
    values = _strictly_inside(num / mass)
    averaging = "paper" if paper else "exact"
    return BayesianBinning(positions, values, method, lam, float(log_f[big_n]), None, averaging)
