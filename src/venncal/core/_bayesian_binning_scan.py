"""Compiled forward and backward passes of exact ABB that carry each row into the next.

The passes of :mod:`venncal.core.bayesian_binning` evaluate every bin term from its
log-factorials and take one exponential per term. Here the terms of a row are kept in linear
space, relative to a reference, and carried from one row to the next by the predictive
probability of the example that joins every bin: when position ``u`` holds a single example
of class ``c``, the marginal likelihood of a bin ``[l, u - 1]`` becomes that of ``[l, u]`` on
multiplying by ``(n_c + 1) / (n + 2)``, with ``n_c`` and ``n`` the bin's counts before. One
multiplication and one division per term replace the log-factorials and the exponential. A
position with a few examples (at most ``_MAX_CARRY = 8``) is carried one example at a time.

Exactness. A row is computed afresh from the log-factorials (one exponential per term, as
before) when its position holds more than 8 examples, once 128 examples (``_STEPS``) have been
carried since the last fresh row, and whenever the growth bound below would pass
``_GROWTH = 600``. In between, each term carries the rounding of at most 128 multiplications
and divisions (relative error below ``3 * 128 * 2^-53 < 5e-14``). After each row the terms are multiplied by a power of two (no
rounding) that brings their sum into ``[0.5, 1)``, and the exponent is kept apart from the
reference, so the reference is not rounded from row to row either.

Underflow. Each carried example multiplies every term by a predictive probability in
``[1 / (n + 2), (n + 1) / (n + 2)]`` for bins of at most ``n`` examples: it shrinks a term by
less than ``n + 2`` and changes the ratio of two terms by less than ``n + 2``. A fresh row
comes before the sum of ``log(n + 2)`` over the carried examples passes 600 (each row counts
``k log(n + k + 1)`` for its ``k`` examples). At the start of a row the terms sum to at least
1/2, so the largest of them, at ``l*``, is at least ``1 / (2N)``. Suppose a term falls below
``2^-1022`` (where rounding stops being relative, down to zero) after carried examples of
total growth ``g1`` since then: the term at ``l*`` is still at least ``e^-g1 / (2N)``, so the
ratio of the two is below ``2^-1021 N e^g1``; until the next fresh row it grows by at most
``e^g2`` more, with ``g1 + g2 <= 600``. Such a term thus stays below ``2^-1021 N e^600 < e^-92``
of its row's largest term (N below the 4 million of the log-factorial tables): far less than
the ``e^-50`` that the pruned scans neglect anyway (``_LOG_CUTOFF`` in :mod:`venncal.core._bayesian_binning_passes`).

Pruning. A row covers the bins ``[l, u]`` with ``l`` in an active range. Its ends move with the
bound of the main module: every term beyond an end is at most the term at the end times
``S_A / (ML(A) q)``. When the bound does not show the terms beyond the range below ``e^-50`` of
the row's sum so far (so below ``e^-50`` of the row's sum, as in the main module), the range
grows by a block computed afresh; when it shows the terms beyond a block boundary inside the
range negligible, the range gives up the block for the rows that follow (its terms still count
in the row where the test is made).

Loops over a row count from 0 (``for k in range(n): l = lo + k``) or run in small helpers over
slices: numba vectorises those forms, with ``error_model="numpy"`` (no zero-division checks: no
denominator is zero), and not ``range(lo, u)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from venncal.core._jit import HAVE_NUMBA, jit

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt

    from venncal._typing import FloatArray

    #: an integer count: a Python int or an element of an int64 count array
    Count: TypeAlias = int | np.int64
    Int64Array: TypeAlias = npt.NDArray[np.int64]

__all__ = ["forward_sums", "backward_averages", "EXP_TABLE_WIDE", "exp_table_poly"]

_LOG_CUTOFF = 50.0
_GROWTH = 600.0
_STEPS = 128
_MAX_CARRY = 8  # positions with more examples start a fresh row
_BLOCK = 256
_WIDE = 720.0
_LN2 = math.log(2.0)

# exp(d) for d in (-_WIDE, 0] as EXP_TABLE_WIDE[j] * poly(r), j = floor(-16 d), r = d + j / 16 in
# (-1/16, 0]: the degree-8 Taylor polynomial has relative error below 5e-17 there.
EXP_TABLE_WIDE = np.exp(-np.arange(int(_WIDE * 16.0) + 2) / 16.0)


def exp_table_poly(d: float, etab: FloatArray) -> float:
    """exp(d) for ``d`` in (-16 (len(etab) - 2), 0], about 2 ulp: ``etab[j] * poly(r)``."""
    j = int(-d * 16.0)
    r = d + j * 0.0625
    p = 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    value: float = etab[j] * p
    return value


def _exp_wide(d: float, etab: FloatArray) -> float:
    """exp(d) for d <= 0, about 2 ulp; below -_WIDE it returns about e^-_WIDE (negligible)."""
    return exp_table_poly(max(d, -_WIDE + 1e-9), etab)


def _log_ml(a: Count, b: Count, table: FloatArray) -> float:
    value: float = table[a] + table[b] - table[a + b + 1]
    return value


def _log_factor(
    a: Count, b: Count, table: FloatArray, klogk: FloatArray, log_q_edge: float
) -> float:
    """Log of ``S_A / (ML(A) q)`` for a run A of counts ``a``, ``b`` (see the main module)."""
    value: float = klogk[a] + klogk[b] - klogk[a + b] - _log_ml(a, b, table) - log_q_edge
    return value


def _carry_forward(
    v: FloatArray, cnt: FloatArray, tot: FloatArray, c_end: float, scale: float, n_end: float
) -> float:
    """Multiply each term by its predictive probability; return the new sum.

    ``v[k] *= scale (c_end - cnt[k]) / (n_end - tot[k])``.
    """
    s = 0.0
    for k in range(v.shape[0]):
        w = v[k] * (scale * (c_end - cnt[k])) / (n_end - tot[k])
        v[k] = w
        s += w
    return s


def _carry_plain(
    v: FloatArray, cnt: FloatArray, tot: FloatArray, c_start: float, scale: float, n_start: float
) -> None:
    """Multiply each term by ``scale (cnt[k] - c_start) / (tot[k] - n_start)``; return nothing."""
    for k in range(v.shape[0]):
        v[k] = v[k] * (scale * (cnt[k] - c_start)) / (tot[k] - n_start)


def _accumulate_backward(
    v: FloatArray,
    inv: FloatArray,
    tot: FloatArray,
    pos: FloatArray,
    d_mass: FloatArray,
    d_num: FloatArray,
    n_start: float,
    b_start: float,
    post: float,
) -> tuple[float, float, float]:
    """The accumulation of :func:`_carry_backward` on terms carried already."""
    s = 0.0
    row = 0.0
    row_num = 0.0
    for k in range(v.shape[0]):
        w = v[k]
        s += w
        r = 1.0 / (tot[k] - n_start)
        inv[k] = r
        p = post * w
        est = p * (pos[k] - b_start) * r
        row += p
        row_num += est
        d_mass[k] -= p
        d_num[k] -= est
    return s, row, row_num


def _carry_backward(
    v: FloatArray,
    inv: FloatArray,
    cnt: FloatArray,
    tot: FloatArray,
    pos: FloatArray,
    d_mass: FloatArray,
    d_num: FloatArray,
    scale: float,
    c_start: float,
    n_start: float,
    b_start: float,
    post: float,
) -> tuple[float, float, float]:
    """Carry the terms of a backward row and add each bin's posterior and estimate.

    ``v[k] *= scale (cnt[k] - c_start) inv[k]``; then ``inv[k] = 1 / (tot[k] - n_start)`` for the
    next row, the posterior ``p = post v[k]`` and the estimate ``p (pos[k] - b_start) inv[k]``
    are subtracted from ``d_mass[k]`` and ``d_num[k]``. Returns the sums of the new terms, of
    the posteriors and of the estimates.
    """
    s = 0.0
    row = 0.0
    row_num = 0.0
    for k in range(v.shape[0]):
        w = v[k] * (scale * (cnt[k] - c_start)) * inv[k]
        v[k] = w
        s += w
        r = 1.0 / (tot[k] - n_start)
        inv[k] = r
        p = post * w
        est = p * (pos[k] - b_start) * r
        row += p
        row_num += est
        d_mass[k] -= p
        d_num[k] -= est
    return s, row, row_num


def _forward_logs(
    buf: FloatArray,
    head: FloatArray,
    c0: Int64Array,
    c1: Int64Array,
    lo: int,
    hi: int,
    a_end: Count,
    b_end: Count,
    table: FloatArray,
    m: float,
) -> float:
    """Log terms ``buf[l] = head[l] + log ML`` of the forward row's bins ``[l, u]`` for ``l`` in
    ``[lo, hi)``, with ``a_end``, ``b_end`` the counts up to ``u``; returns the largest of
    ``m`` and the terms."""
    for k in range(hi - lo):
        l = lo + k
        t = head[l] + _log_ml(a_end - c0[l], b_end - c1[l], table)
        buf[l] = t
        m = max(m, t)
    return m


def _backward_logs(
    buf: FloatArray,
    tail: FloatArray,
    c0: Int64Array,
    c1: Int64Array,
    lo: int,
    hi: int,
    a_start: Count,
    b_start: Count,
    table: FloatArray,
    m: float,
) -> float:
    """Log terms ``buf[u] = tail[u] + log ML`` of the backward row's bins ``[l, u]`` for ``u`` in
    ``[lo, hi)``, with ``a_start``, ``b_start`` the counts before ``l``; returns the largest of
    ``m`` and the terms."""
    for k in range(hi - lo):
        u = lo + k
        t = tail[u] + _log_ml(c0[u + 1] - a_start, c1[u + 1] - b_start, table)
        buf[u] = t
        m = max(m, t)
    return m


def _fresh_forward(
    v: FloatArray, buf: FloatArray, lo: int, hi: int, ref: float, etab: FloatArray, s: float
) -> float:
    """Terms ``v[l] = exp(buf[l] - ref)`` for ``l`` in ``[lo, hi)`` computed afresh; returns
    ``s`` plus their sum."""
    for k in range(hi - lo):
        l = lo + k
        w = _exp_wide(buf[l] - ref, etab)
        v[l] = w
        s += w
    return s


def _fresh_backward(
    arrays: tuple[
        FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray
    ],
    lo: int,
    hi: int,
    ref: float,
    etab: FloatArray,
    n_start: float,
    b_start: float,
    post: float,
    sums: tuple[float, float, float],
) -> tuple[float, float, float]:
    """Terms ``v[u] = exp(buf[u] - ref)`` for ``u`` in ``[lo, hi)`` computed afresh, with the
    accumulation of :func:`_carry_backward`; returns ``sums`` plus the three sums.

    ``arrays`` holds ``v``, ``inv``, ``buf`` (indexed by ``u``) and ``tot``, ``pos``, ``d_mass``,
    ``d_num`` (indexed by ``u + 1``) of :func:`backward_averages_py`.
    """
    v, inv, buf, tot, pos, d_mass, d_num = arrays
    s, row, row_num = sums
    for k in range(hi - lo):
        u = lo + k
        w = _exp_wide(buf[u] - ref, etab)
        v[u] = w
        s += w
        r = 1.0 / (tot[u + 1] - n_start)
        inv[u] = r
        p = post * w
        est = p * (pos[u + 1] - b_start) * r
        row += p
        row_num += est
        d_mass[u + 1] -= p
        d_num[u + 1] -= est
    return s, row, row_num


def forward_sums_py(
    c0: Int64Array,
    c1: Int64Array,
    ct: Int64Array,
    log_q: FloatArray,
    x: FloatArray,
    table: FloatArray,
    klogk: FloatArray,
    etab: FloatArray,
) -> FloatArray:
    """Log of the forward sums ``F`` over the binnings of each prefix (integer counts).

    ``c0``, ``c1``, ``ct`` are the cumulative counts of negatives, positives and both (length
    N + 1, starting at 0); ``table[k] = log k!``; ``klogk[k] = k log k``.
    """
    big_n = log_q.shape[0]
    f0 = c0.astype(np.float64)  # counts as floats (exact below 2^53) for the carried loops
    f1 = c1.astype(np.float64)
    ft = ct.astype(np.float64)
    log_f = np.empty(big_n + 1)
    log_f[0] = 0.0
    head = np.empty(big_n)  # log F(l) + x_l
    v = np.zeros(big_n)  # terms of the row, relative to exp(ref)
    buf = np.empty(big_n)
    lo = 0
    ref0 = 0.0
    shift = 0
    ref = 0.0  # a term is v * exp(ref), ref = ref0 + shift log 2
    scale = 1.0  # 2^-e: brings the sum of the carried terms into [0.5, 1) without rounding
    growth = 0.0
    steps = _STEPS  # forces a fresh first row
    for u in range(big_n):
        head[u] = log_f[u] + x[u]
        a_end = c0[u + 1]
        b_end = c1[u + 1]
        da = a_end - c0[u]
        db = b_end - c1[u]
        t_new = head[u] + _log_ml(da, db, table)
        k_new = da + db
        # carried bins hold at most ct[u] - ct[lo] examples before the k_new new ones
        step = k_new * np.log(ct[u] - ct[lo] + k_new + 1.0)
        s = 0.0
        if 1 <= k_new <= _MAX_CARRY and steps + k_new <= _STEPS and growth + step <= _GROWTH:
            growth += step
            steps += k_new
            # the examples at u join every bin [l, u - 1] one at a time, positives first:
            # multiply by (n_c + 1) / (n + 2) with the bin's counts so far
            for j in range(db):
                s = _carry_forward(
                    v[lo:u], f1[lo:u], ft[lo:u], float(c1[u] + j + 1), scale, float(ct[u] + j + 2)
                )
                scale = 1.0
            for j in range(da):
                s = _carry_forward(
                    v[lo:u],
                    f0[lo:u],
                    ft[lo:u],
                    float(c0[u] + j + 1),
                    scale,
                    float(ct[u] + db + j + 2),
                )
                scale = 1.0
            w = np.exp(min(t_new - ref, 700.0))
            v[u] = w
            s += w
        else:
            growth = 0.0
            steps = 0
            m = _forward_logs(buf, head, c0, c1, lo, u, a_end, b_end, table, t_new)
            buf[u] = t_new
            ref0 = m
            shift = 0
            ref = m
            s = _fresh_forward(v, buf, lo, u + 1, ref, etab, s)
        # grow the range leftwards until the bound shows the rest negligible
        while lo > 0:
            a = a_end - c0[lo]
            b = b_end - c1[lo]
            t_lo = head[lo] + _log_ml(a, b, table)
            if t_lo + _log_factor(a, b, table, klogk, log_q[lo - 1]) < ref + np.log(s) - 50.0:
                break
            start = max(0, lo - _BLOCK)
            m = _forward_logs(buf, head, c0, c1, start, lo, a_end, b_end, table, -1e308)
            if m > ref:  # a larger term: move the reference to it
                shrink = np.exp(ref - m)
                s *= shrink
                for k in range(u + 1 - lo):
                    l = lo + k
                    v[l] *= shrink
                ref0 = m
                shift = 0
                ref = m
            s = _fresh_forward(v, buf, start, lo, ref, etab, s)
            lo = start
        log_f[u + 1] = ref + np.log(s) + log_q[u] - x[u]
        # give up blocks at the left end that the bound shows negligible for this row
        log_s = ref + np.log(s)
        while lo + _BLOCK <= u:
            edge = lo + _BLOCK
            a = a_end - c0[edge]
            b = b_end - c1[edge]
            t_edge = head[edge] + _log_ml(a, b, table)
            if t_edge + _log_factor(a, b, table, klogk, log_q[edge - 1]) >= log_s - 50.0:
                break
            lo = edge
        # the next row multiplies the terms by 2^-e, exactly: their sum starts in [0.5, 1)
        e = math.frexp(s)[1]
        scale = math.ldexp(1.0, -e)
        shift += e
        ref = ref0 + shift * _LN2
    return log_f


def backward_averages_py(
    c0: Int64Array,
    c1: Int64Array,
    ct: Int64Array,
    log_q: FloatArray,
    x: FloatArray,
    table: FloatArray,
    klogk: FloatArray,
    etab: FloatArray,
    log_f: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Backward sums, and the posterior average of the bin estimates at every position.

    Returns the difference arrays of the posterior mass and of the posterior-weighted estimate
    (their cumulative sums are the mass, 1 up to rounding, and the ABB value at each position).
    Each term is carried, given its posterior ``post * v`` and its share of the estimate
    ``(n1 + 1) / (n + 2)`` in one loop.
    """
    big_n = log_q.shape[0]
    f0 = c0.astype(np.float64)
    f1 = c1.astype(np.float64)
    ft = ct.astype(np.float64)
    log_z = log_f[big_n]
    log_b = np.empty(big_n + 1)
    log_b[big_n] = 0.0
    d_mass = np.zeros(big_n + 1)
    d_num = np.zeros(big_n + 1)
    tail = np.empty(big_n)  # log q_u - x_u + log B(u + 1)
    v = np.zeros(big_n)
    inv = np.zeros(big_n)  # 1 / (n + 2) of the bin [l, u] of the last row
    buf = np.empty(big_n)
    arrays = (v, inv, buf, ft, f1, d_mass, d_num)  # what a fresh block reads and writes
    hi = big_n  # the row covers bins [l, u] for u in [l, hi)
    ref0 = 0.0
    shift = 0
    ref = 0.0
    scale = 1.0
    growth = 0.0
    steps = _STEPS
    for l in range(big_n - 1, -1, -1):
        tail[l] = log_q[l] - x[l] + log_b[l + 1]
        a_start = c0[l]
        b_start = c1[l]
        n_start = ct[l]
        fn_start = float(n_start - 2)
        fb_start = float(b_start - 1)
        da = c0[l + 1] - a_start
        db = c1[l + 1] - b_start
        t_new = tail[l] + _log_ml(da, db, table)
        step = np.log(ct[hi] - ct[l + 1] + 2.0)  # carried bins hold at most this - 2
        head = log_f[l] + x[l] - log_z  # bin posterior = exp(head + ref) * v[u]
        s = 0.0
        row = 0.0
        row_num = 0.0
        k_new = da + db
        step = k_new * np.log(ct[hi] - ct[l + 1] + k_new + 1.0)
        if 1 <= k_new <= _MAX_CARRY and steps + k_new <= _STEPS and growth + step <= _GROWTH:
            growth += step
            steps += k_new
            post = np.exp(head + ref)
            w = np.exp(min(t_new - ref, 700.0))
            v[l] = w
            s += w
            r = 1.0 / (ct[l + 1] - n_start + 2)
            inv[l] = r
            p = post * w
            est = p * (db + 1) * r
            row += p
            row_num += est
            d_mass[l + 1] -= p
            d_num[l + 1] -= est
            if k_new > 1:
                # several examples at l join every bin [l + 1, u], one at a time, positives
                # first: multiply by (n_c + 1) / (n + 2) with the bin's counts so far
                b_next = c1[l + 1]
                a_next = c0[l + 1]
                n_next = ct[l + 1]
                for j in range(db):
                    _carry_plain(
                        v[l + 1 : hi],
                        f1[l + 2 : hi + 1],
                        ft[l + 2 : hi + 1],
                        float(b_next - j - 1),
                        scale,
                        float(n_next - j - 2),
                    )
                    scale = 1.0
                for j in range(da):
                    _carry_plain(
                        v[l + 1 : hi],
                        f0[l + 2 : hi + 1],
                        ft[l + 2 : hi + 1],
                        float(a_next - j - 1),
                        scale,
                        float(n_next - db - j - 2),
                    )
                    scale = 1.0
                sums = _accumulate_backward(
                    v[l + 1 : hi],
                    inv[l + 1 : hi],
                    ft[l + 2 : hi + 1],
                    f1[l + 2 : hi + 1],
                    d_mass[l + 2 : hi + 1],
                    d_num[l + 2 : hi + 1],
                    fn_start,
                    fb_start,
                    post,
                )
            else:
                # the example at l joins every bin [l + 1, u]: multiply by its predictive
                # probability (n_c + 1) / (n + 2), with 1 / (n + 2) kept from the last row
                if db == 1:
                    cc = f1
                    cc_start = float(b_start)
                else:
                    cc = f0
                    cc_start = float(a_start)
                sums = _carry_backward(
                    v[l + 1 : hi],
                    inv[l + 1 : hi],
                    cc[l + 2 : hi + 1],
                    ft[l + 2 : hi + 1],
                    f1[l + 2 : hi + 1],
                    d_mass[l + 2 : hi + 1],
                    d_num[l + 2 : hi + 1],
                    scale,
                    cc_start,
                    fn_start,
                    fb_start,
                    post,
                )
            s += sums[0]
            row += sums[1]
            row_num += sums[2]
        else:
            growth = 0.0
            steps = 0
            m = _backward_logs(buf, tail, c0, c1, l, hi, a_start, b_start, table, -1e308)
            ref0 = m
            shift = 0
            ref = m
            post = np.exp(head + ref)
            s, row, row_num = _fresh_backward(
                arrays, l, hi, ref, etab, fn_start, fb_start, post, (s, row, row_num)
            )
        # grow the range rightwards until the bound shows the rest negligible
        while hi < big_n:
            a = c0[hi] - a_start
            b = c1[hi] - b_start
            t_hi = tail[hi - 1] + _log_ml(a, b, table)
            if t_hi + _log_factor(a, b, table, klogk, log_q[hi - 1]) < ref + np.log(s) - 50.0:
                break
            stop = min(big_n, hi + _BLOCK)
            m = _backward_logs(buf, tail, c0, c1, hi, stop, a_start, b_start, table, -1e308)
            if m > ref:  # a larger term: move the reference to it
                shrink = np.exp(ref - m)
                s *= shrink
                for k in range(hi - l):
                    u = l + k
                    v[u] *= shrink
                ref0 = m
                shift = 0
                ref = m
                post = np.exp(head + ref)
            s, row, row_num = _fresh_backward(
                arrays, hi, stop, ref, etab, fn_start, fb_start, post, (s, row, row_num)
            )
            hi = stop
        log_b[l] = ref + np.log(s) + x[l]
        d_mass[l] += row
        d_num[l] += row_num
        # give up blocks at the right end that the bound shows negligible for this row
        log_s = ref + np.log(s)
        while hi - _BLOCK > l:
            edge = hi - _BLOCK
            a = c0[edge] - a_start
            b = c1[edge] - b_start
            t_edge = tail[edge - 1] + _log_ml(a, b, table)
            if t_edge + _log_factor(a, b, table, klogk, log_q[edge - 1]) >= log_s - 50.0:
                break
            hi = edge
        # the next row multiplies the terms by 2^-e, exactly: their sum starts in [0.5, 1)
        e = math.frexp(s)[1]
        scale = math.ldexp(1.0, -e)
        shift += e
        ref = ref0 + shift * _LN2
    return d_mass, d_num


# the compiled passes (None without numba)
forward_sums = None
backward_averages = None
if HAVE_NUMBA:  # pragma: no cover - exercised through the compiled kernels
    _FLAGS = {"reassoc", "nsz", "arcp", "contract", "afn"}
    exp_table_poly = jit(exp_table_poly, inline="always", fastmath=_FLAGS)
    _exp_wide = jit(_exp_wide, inline="always", fastmath=_FLAGS)
    _log_ml = jit(_log_ml, inline="always", fastmath=_FLAGS)
    _log_factor = jit(_log_factor, inline="always", fastmath=_FLAGS)
    _carry_forward = jit(_carry_forward, fastmath=_FLAGS, error_model="numpy")
    _carry_backward = jit(_carry_backward, fastmath=_FLAGS, error_model="numpy")
    _carry_plain = jit(_carry_plain, fastmath=_FLAGS, error_model="numpy")
    _accumulate_backward = jit(_accumulate_backward, fastmath=_FLAGS, error_model="numpy")
    _forward_logs = jit(_forward_logs, fastmath=_FLAGS, error_model="numpy")
    _backward_logs = jit(_backward_logs, fastmath=_FLAGS, error_model="numpy")
    _fresh_forward = jit(_fresh_forward, fastmath=_FLAGS, error_model="numpy")
    _fresh_backward = jit(_fresh_backward, fastmath=_FLAGS, error_model="numpy")
    # error_model="numpy": no zero-division checks (no denominator is zero), which lets the
    # carried loops vectorise
    forward_sums = jit(forward_sums_py, fastmath=_FLAGS, error_model="numpy")
    backward_averages = jit(backward_averages_py, fastmath=_FLAGS, error_model="numpy")
