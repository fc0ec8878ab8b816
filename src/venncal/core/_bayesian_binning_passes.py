"""The forward and backward passes of exact Bayesian binning (SBB and ABB).

The dynamic programmes of :mod:`venncal.core.bayesian_binning` over the distinct calibration
scores: forward sums (or maxima, for SBB and for the paper's eq. (8)) over the binnings of each
prefix, and the backward pass that adds each bin's posterior share to the positions it covers.
Each runs as a numba kernel for whole-number counts and as row-by-row numpy for fractional
weights; :func:`run` picks one (see the module docstring of
:mod:`venncal.core.bayesian_binning` for the definitions and the error bounds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import gammaln

from venncal.core import _bayesian_binning_scan as _scan
from venncal.core._bayesian_binning_scan import _log_factor
from venncal.core._bayesian_binning_scan import exp_table_poly as _exp_neg
from venncal.core._jit import HAVE_NUMBA, jit

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy.typing as npt

    from venncal._typing import FloatArray

__all__ = ["run"]


# --------------------------------------------------------------------------------------------
# Kernels. Inputs: cumulative counts c0, c1 of length N + 1 (c[0] = 0), the log boundary
# probabilities log_q (0 for the last position), x = lam (v - v_1) / (v_N - v_1), and the table
# of log-factorials table[k] = log k!. The compiled kernels need whole-number counts; fractional
# weights go through the numpy versions, which evaluate gammaln instead of the table.
# --------------------------------------------------------------------------------------------


#: The compiled kernels neglect terms that are provably tiny. A term more than this far below
#: the largest term of its sum (in log space) is counted as e^-50 of the largest instead of its
#: true, smaller value, and a scan along a row or column stops once a bound (below) shows that
#: every remaining term is that small. Each neglected term is below e^-50 of its sum, so a sum of
#: N terms moves by a relative amount below N e^-50 (< 2e-17 for N <= 10^5), and each ABB value
#: by less than 2 N^2 e^-50 in absolute terms (< 4e-12 for N <= 10^5). SBB is not affected: a
#: term that far below the maximum cannot be the maximum.
#:
#: The bound: for a run ``A`` of positions with counts ``a``, ``b`` (``n = a + b``), merging it
#: with any neighbouring run ``C`` multiplies the marginal likelihood by at most
#: ``S_A / ML(A)``, where ``S_A = sup_theta theta^b (1 - theta)^a = exp(b log(b/n) + a log(a/n))``
#: (``ML(A u C) / ML(C)`` is an average of ``theta^b (1 - theta)^a`` under a Beta law), and
#: removing the boundary between them multiplies the prior by ``(1 - q) / q``. Because the
#: suffix sum satisfies ``B(u) >= w(u, u') B(u' + 1)`` (and the prefix sum
#: ``F(l) >= F(l') w(l', l - 1)``), every term of a row beyond the scanned part is at most the
#: last scanned term times ``S_A / (ML(A) q)``, which is known when each block of the scan ends.
_LOG_CUTOFF = 50.0
_FLOOR = -_LOG_CUTOFF + 1e-9
_BLOCK = 256

# exp(d) for d in (-_LOG_CUTOFF, 0] as EXP_TABLE[j] * poly(r), j = floor(-16 d), r = d + j / 16 in
# (-1/16, 0]: the degree-8 Taylor polynomial has relative error below 5e-17 there, so the result
# is exact to about 2 ulp. Unlike libm's exp this loop vectorises (the scan's exp_table_poly).
_EXP_STEP = 16.0
_EXP_TABLE = np.exp(-np.arange(int(_LOG_CUTOFF * _EXP_STEP) + 2) / _EXP_STEP)


def _forward_py(
    c0: npt.NDArray[np.int64],
    c1: npt.NDArray[np.int64],
    log_q: FloatArray,
    x: FloatArray,
    table: FloatArray,
    klogk: FloatArray,
    etab: FloatArray,
    select: bool,
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Forward sums (or maxima, when ``select``) over the binnings of each prefix.

    ``c0``, ``c1`` are integer cumulative counts, ``table[k] = log k!``, ``klogk[k] = k log k``.
    """
    big_n = log_q.shape[0]
    log_f = np.empty(big_n + 1)
    arg = np.zeros(big_n + 1, dtype=np.int64)
    log_f[0] = 0.0
    buf = np.empty(big_n)
    head = np.empty(big_n)  # log F(l) + x_l: the part of a term that depends on l only
    for u in range(big_n):
        head[u] = log_f[u] + x[u]
        a_end = c0[u + 1]
        b_end = c1[u + 1]
        m = -1e308
        lo = u + 1  # bins [l, u] for l in [lo, u] are scanned; blocks go leftwards
        while lo > 0:
            start = max(0, lo - 256)
            for l in range(start, lo):
                a = a_end - c0[l]
                b = b_end - c1[l]
                t = head[l] + table[a] + table[b] - table[a + b + 1]
                buf[l] = t
                m = max(m, t)
            lo = start
            if lo > 0:
                # every term l' < lo is at most the term at lo times the factor of C = [lo, u]
                a = a_end - c0[lo]
                b = b_end - c1[lo]
                log_factor = _log_factor(a, b, table, klogk, log_q[lo - 1])
                if buf[lo] + log_factor < m - 50.0:
                    break
        tail = log_q[u] - x[u]
        if select:
            best = lo
            for l in range(lo, u + 1):
                if buf[l] == m:
                    best = l
                    break
            log_f[u + 1] = m + tail
            arg[u + 1] = best
        else:
            s = 0.0
            for l in range(lo, u + 1):
                s += _exp_neg(max(buf[l] - m, -49.999999999), etab)
            log_f[u + 1] = m + np.log(s) + tail
    return log_f, arg


def _backward_average_py(
    c0: npt.NDArray[np.int64],
    c1: npt.NDArray[np.int64],
    log_q: FloatArray,
    x: FloatArray,
    table: FloatArray,
    klogk: FloatArray,
    etab: FloatArray,
    log_f: FloatArray,
    select: bool,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Backward sums, and the posterior average of the bin estimates at every position.

    With ``select``, ``log_f`` holds the forward maxima and the backward pass takes maxima too:
    the bin weights are then those of the paper's eq. (8) (see ``averaging="paper"``).
    """
    big_n = log_q.shape[0]
    log_z = log_f[big_n]
    log_b = np.empty(big_n + 1)
    log_b[big_n] = 0.0
    d_mass = np.zeros(big_n + 1)
    d_num = np.zeros(big_n + 1)
    buf = np.empty(big_n)
    tail = np.empty(big_n)  # log q_u - x_u + log B(u + 1): the part that depends on u only
    for l in range(big_n - 1, -1, -1):
        tail[l] = log_q[l] - x[l] + log_b[l + 1]
        a_start = c0[l]
        b_start = c1[l]
        m = -1e308
        hi = l  # bins [l, u] for u in [l, hi) are scanned; blocks go rightwards
        while hi < big_n:
            stop = min(big_n, hi + 256)
            for u in range(hi, stop):
                a = c0[u + 1] - a_start
                b = c1[u + 1] - b_start
                t = tail[u] + table[a] + table[b] - table[a + b + 1]
                buf[u] = t
                m = max(m, t)
            hi = stop
            if hi < big_n:
                # every term u' >= hi is at most the term at hi - 1 times the factor of
                # A = [l, hi - 1]
                a = c0[hi] - a_start
                b = c1[hi] - b_start
                log_factor = _log_factor(a, b, table, klogk, log_q[hi - 1])
                if buf[hi - 1] + log_factor < m - 50.0:
                    break
        # scale <= 1: exp(log F(l) + largest term - log Z) is one term of the total score
        scale = np.exp(log_f[l] + x[l] + m - log_z)
        s = 0.0
        row = 0.0
        row_num = 0.0
        for u in range(l, hi):
            e = _exp_neg(max(buf[u] - m, -49.999999999), etab)
            s += e
            p = scale * e
            b = c1[u + 1] - b_start
            est = p * (b + 1.0) / (c0[u + 1] - a_start + b + 2.0)
            row += p
            row_num += est
            d_mass[u + 1] -= p
            d_num[u + 1] -= est
        log_b[l] = (m if select else m + np.log(s)) + x[l]
        d_mass[l] += row
        d_num[l] += row_num
    return log_b, d_mass, d_num


# the compiled kernels (None without numba)
_forward = None
_backward_average = None
if HAVE_NUMBA:  # pragma: no cover - exercised through the compiled kernels
    # no 'nnan'/'ninf': the kernels never see NaN or inf, but the flags would license
    # reorderings we do not need; 'reassoc' lets the sums and the maximum vectorise.
    _FLAGS = {"reassoc", "nsz", "arcp", "contract", "afn"}
    _forward = jit(_forward_py, fastmath=_FLAGS)
    _backward_average = jit(_backward_average_py, fastmath=_FLAGS)


def _forward_numpy(
    c0: FloatArray,
    c1: FloatArray,
    log_q: FloatArray,
    x: FloatArray,
    table: FloatArray,
    integer: bool,
    select: bool,
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Pure-numpy forward pass: one vectorised column per position."""
    big_n = log_q.shape[0]
    log_f = np.empty(big_n + 1)
    arg = np.zeros(big_n + 1, dtype=np.int64)
    log_f[0] = 0.0
    lf: Callable[[FloatArray], FloatArray] = (
        (lambda v: table[np.rint(v).astype(np.intp)]) if integer else (lambda v: gammaln(v + 1))
    )
    for u in range(big_n):
        a = c0[u + 1] - c0[: u + 1]
        b = c1[u + 1] - c1[: u + 1]
        t = log_f[: u + 1] + log_q[u] - (x[u] - x[: u + 1]) + lf(a) + lf(b) - lf(a + b + 1.0)
        best = int(np.argmax(t))
        m = t[best]
        if select:
            log_f[u + 1] = m
            arg[u + 1] = best
        else:
            log_f[u + 1] = m + np.log(np.exp(t - m).sum())
    return log_f, arg


def _backward_average_numpy(
    c0: FloatArray,
    c1: FloatArray,
    log_q: FloatArray,
    x: FloatArray,
    table: FloatArray,
    integer: bool,
    log_f: FloatArray,
    select: bool,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Pure-numpy backward pass with the posterior averages: one vectorised row per position."""
    big_n = log_q.shape[0]
    log_z = log_f[big_n]
    log_b = np.empty(big_n + 1)
    log_b[big_n] = 0.0
    d_mass = np.zeros(big_n + 1)
    d_num = np.zeros(big_n + 1)
    lf: Callable[[FloatArray], FloatArray] = (
        (lambda v: table[np.rint(v).astype(np.intp)]) if integer else (lambda v: gammaln(v + 1))
    )
    for l in range(big_n - 1, -1, -1):
        a = c0[l + 1 :] - c0[l]
        b = c1[l + 1 :] - c1[l]
        t = log_q[l:] - (x[l:] - x[l]) + lf(a) + lf(b) - lf(a + b + 1.0) + log_b[l + 1 :]
        m = t.max()
        e = np.exp(t - m)
        log_b[l] = m if select else m + np.log(e.sum())
        scale = np.exp(log_f[l] + m - log_z)
        if scale == 0.0:
            continue
        p = scale * e
        est = p * (b + 1.0) / (a + b + 2.0)
        d_mass[l] += p.sum()
        d_num[l] += est.sum()
        d_mass[l + 1 :] -= p
        d_num[l + 1 :] -= est
    return log_b, d_mass, d_num


def run(
    engine: str,
    integer: bool,
    c0: FloatArray,
    c1: FloatArray,
    log_q: FloatArray,
    x: FloatArray,
    table: FloatArray,
    select: bool,
    paper: bool = False,
) -> tuple[FloatArray, npt.NDArray[np.int64] | None, FloatArray | None, FloatArray | None]:
    """Run the forward pass (and for ABB the backward pass) with the chosen engine.

    ``select`` is SBB (forward maxima only); ``paper`` is ABB with the weights of eq. (8)
    (forward and backward maxima); neither is the exact ABB (forward and backward sums).
    """
    if engine == "numba" and not HAVE_NUMBA:
        raise ValueError("engine='numba' needs numba installed; use engine='numpy'.")
    if engine == "numba" and not integer:
        raise ValueError(
            "engine='numba' needs whole-number counts; fractional sample weights run with "
            "engine='numpy' (or 'auto')."
        )
    if engine != "numpy" and HAVE_NUMBA and integer:
        ci0 = np.rint(c0).astype(np.int64)
        ci1 = np.rint(c1).astype(np.int64)
        k = np.arange(table.size, dtype=np.float64)
        klogk = k * np.log(np.maximum(k, 1.0))
        if not (select or paper):  # exact ABB: the passes that carry each row into the next
            ct = ci0 + ci1
            etab = _scan.EXP_TABLE_WIDE
            # compiled whenever numba is installed
            assert _scan.forward_sums is not None and _scan.backward_averages is not None
            log_f = _scan.forward_sums(ci0, ci1, ct, log_q, x, table, klogk, etab)
            d_mass, d_num = _scan.backward_averages(
                ci0, ci1, ct, log_q, x, table, klogk, etab, log_f
            )
            return log_f, None, d_mass, d_num
        assert _forward is not None and _backward_average is not None  # numba is installed
        log_f, arg = _forward(ci0, ci1, log_q, x, table, klogk, _EXP_TABLE, select or paper)
        if select:
            return log_f, arg, None, None
        _, d_mass, d_num = _backward_average(
            ci0, ci1, log_q, x, table, klogk, _EXP_TABLE, log_f, paper
        )
        return log_f, arg, d_mass, d_num
    log_f, arg = _forward_numpy(c0, c1, log_q, x, table, integer, select or paper)
    if select:
        return log_f, arg, None, None
    _, d_mass, d_num = _backward_average_numpy(c0, c1, log_q, x, table, integer, log_f, paper)
    return log_f, arg, d_mass, d_num
