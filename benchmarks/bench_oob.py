"""Out-of-bag Venn-Abers: prediction time against refitting per reference example, and memory.

Prediction (section 3.2 of Johansson et al. 2018): test object i is scored by the out-of-bag
sub-ensemble of a calibration example z_r and predicted from the calibration set without z_r.
The earlier algorithm (kept in ``tests/_reference/oob_venn_abers_naive.py``) refits an
inductive Venn-Abers predictor per distinct z_r; the current one answers every query from one
diagram (``venncal.core._loo_ivap``). Both run on the same scores in interleaved rounds, with
the inductive predictor (one fit on all l scores, one prediction of the m test scores) as the
floor of any predictor. The earlier algorithm runs up to l = 8,000 (16,000 in full mode); its
time grows as l^2 log l.

Memory: peak traced allocation (tracemalloc) of computing the out-of-bag calibration scores of
a fitted random forest, the dense (members x rows x classes) computation against the member by
member one, and of the prediction of l = m test objects.

Writes the "## Out-of-bag Venn-Abers" section of BENCHMARKS.md.

Run: python benchmarks/bench_oob.py [--quick]
"""

import os
import pickle
import sys
import time
import tracemalloc
from pathlib import Path

import _timing
import numpy as np
from sklearn.ensemble import RandomForestClassifier
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests._reference.loo_ranges import folded  # noqa: E402, I001
from tests._reference.oob_venn_abers_naive import (  # noqa: E402
    dense_oob_probas,
    oob_venn_abers_naive,
)
from venncal.classifiers._oob import OOBEnsemble  # noqa: E402
from venncal.core._loo_ivap import loo_ivap_predict  # noqa: E402
from venncal.core.venn_abers import ivap_fit  # noqa: E402

QUICK = "--quick" in sys.argv
ROUNDS = 3 if QUICK else 5
KINDS = ("ties", "distinct", "uninformative", "near", "scallops", "weighted")


def problem(l, kind, seed=0):
    """Scores, labels, test scores and left-out positions; ``ties``: out-of-bag-like scores
    (means of about 37 votes: multiples of 1/37), ``distinct``: continuous scores,
    ``uninformative``: continuous scores independent of the labels (the isotonic fit has a few
    blocks of thousands of groups, so most left-out examples fall in the test object's),
    ``near``: the same scores with each left-out example ranked within 20 of its test score
    (nearly every query has its left-out example in the test object's block), ``scallops``:
    the rate of positives rises from 0.2 to 0.8 over each run of sqrt(l) ranks and falls back,
    with labels that follow it as closely as integers can, so that the diagram is one block
    made of convex arcs whose hulls hold many vertices (the worst case of the earlier
    algorithms, whose cost grows with the size of the hulls they search)."""
    rng = np.random.default_rng(seed)
    if kind == "scallops":
        s = np.sort(rng.random(l))
        period = max(int(round(l**0.5)), 2)
        rate = 0.2 + 0.6 * (np.arange(l) % period) / period
        y = np.diff(np.r_[0.0, np.floor(np.cumsum(rate) + 0.5)]).astype(np.int64)
        return s, y, rng.random(l), rng.integers(0, l, l)
    p = rng.random(l)
    y = (rng.random(l) < p).astype(np.int64)
    if kind in ("uninformative", "near"):
        s = rng.random(l)
        y = (rng.random(l) < 0.3).astype(np.int64)
        lo = rng.integers(0, l, l)
        if kind == "near":
            by_rank = np.argsort(s, kind="stable")
            rank = np.clip(np.searchsorted(s[by_rank], p) + rng.integers(-20, 21, l), 0, l - 1)
            lo = by_rank[rank]
        return s, y, p, lo
    if kind == "ties":
        s = np.round(np.clip(p + rng.normal(0, 0.2, l), 0, 1) * 37) / 37
        t = np.round(rng.random(l) * 37) / 37
    else:
        s = np.clip(p + rng.normal(0, 0.2, l), -1, 2)
        t = rng.random(l)
    return s, y, t, rng.integers(0, l, l)


def weights(l, kind, seed=0):
    """Sample weights: fractional ones (uniform on [0.5, 1.5)) for ``weighted`` (the scores
    of ``distinct``), None otherwise."""
    if kind != "weighted":
        return None
    return np.random.default_rng(seed + 1).uniform(0.5, 1.5, size=l)


def cpu(fn):
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


METHODS = ("ranges", "shortcuts", "paths")


def prediction_rows():
    sizes = (
        (1000, 4000, 16000, 100000)
        if QUICK
        else (1000, 2000, 4000, 8000, 16000, 32000, 100000, 400000)
    )
    old_max = 4000 if QUICK else 16000
    rows = []
    for method in METHODS:  # compile
        loo_ivap_predict(*problem(10, "ties")[:2], None, np.array([0]), np.array([0.5]),
                         **folded(method))  # fmt: skip
    for kind in KINDS:  # an input this large runs the inductive kernels compiled from now on
        s, y, t, lo = problem(8192, kind)
        ivap_fit(s, y, weights(8192, kind)).predict(t)
        loo_ivap_predict(s, y, weights(8192, kind), lo, t)
    for kind in KINDS:
        for l in sizes:
            s, y, t, lo = problem(l, kind)
            w = weights(l, kind)
            runs = {"refit": [], "ind": [], **{method: [] for method in METHODS}}
            rounds = ROUNDS if l <= 32000 else 3
            for _ in range(rounds):  # interleaved
                if l <= old_max:
                    runs["refit"].append(cpu(lambda a=(s, y, t, lo, w): oob_venn_abers_naive(*a)))
                for method in METHODS:
                    runs[method].append(
                        cpu(lambda a=(s, y, w, lo, t), m=method: loo_ivap_predict(*a, **folded(m)))
                    )
                runs["ind"].append(cpu(lambda a=(s, y, w), b=t: ivap_fit(*a).predict(b)))
            outs = [np.column_stack(loo_ivap_predict(s, y, w, lo, t, **folded(m))) for m in METHODS]
            if w is None:  # exact: the same bits; float geometry: the same within rounding
                assert all(np.array_equal(outs[0], out) for out in outs[1:])
            else:
                assert all(np.allclose(outs[0], out, rtol=0, atol=1e-9) for out in outs[1:])
            same = None
            if l <= old_max:
                ref = oob_venn_abers_naive(s, y, t, lo, w)
                same = (
                    bool(np.array_equal(ref, outs[-1]))
                    if w is None
                    else float(np.abs(ref - outs[-1]).max())
                )
            med = {k: float(np.median(v)) if v else None for k, v in runs.items()}
            rows.append((kind, l, med, same))
            refit = f"{med['refit']:.3f} s" if med["refit"] is not None else "-"
            print(
                f"{kind:13s} l=m={l:6d} refit {refit:>9s} "
                + " ".join(f"{m} {med[m]:.4f} s" for m in METHODS)
                + f" inductive {med['ind']:.4f} s same={same}",
                flush=True,
            )
    return rows


def extreme_rows():
    """Weights of extreme range (exponential times 10^-6 .. 10^5: Python-integer geometry):
    the route on Python integers against the refit per z_r, which ran before."""
    rows = []
    for l in (2000, 8000) if QUICK else (2000, 8000, 100000):
        rng = np.random.default_rng(0)
        s = np.clip(rng.random(l) + rng.normal(0, 0.2, l), -1, 2)
        y = (rng.random(l) < rng.random(l)).astype(np.int64)
        w = rng.exponential(size=l) * 10.0 ** rng.integers(-6, 6, l).astype(float)
        t, lo = rng.random(l), rng.integers(0, l, l)
        now = cpu(lambda a=(s, y, w, lo, t): loo_ivap_predict(*a))
        refit = same = None
        if l <= 8000:
            refit = cpu(lambda a=(s, y, t, lo, w): oob_venn_abers_naive(*a))
            same = bool(
                np.array_equal(np.column_stack(loo_ivap_predict(s, y, w, lo, t)),
                               oob_venn_abers_naive(s, y, t, lo, w))
            )  # fmt: skip
        rows.append((l, refit, now, same))
        print(f"extreme weights l=m={l} refit {refit} now {now:.2f} s same={same}", flush=True)
    return rows


def traced_peak(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    out = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, peak


def memory_rows():
    n = 10_000 if QUICK else 100_000
    T = 100
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 10))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    rf = RandomForestClassifier(n_estimators=T, min_samples_leaf=20, random_state=0).fit(X, y)
    forest_bytes = len(pickle.dumps(rf))
    (oob, peak_mask) = traced_peak(lambda: OOBEnsemble(rf, n))
    (dense, peak_old) = traced_peak(lambda: dense_oob_probas(oob.member_probas(X), oob.oob_mask))
    (new, peak_new) = traced_peak(lambda: oob.calibration_probas(X))
    assert np.array_equal(dense[0], new[0], equal_nan=True)
    t_old = _timing.median_time(
        lambda: dense_oob_probas(oob.member_probas(X), oob.oob_mask),
        repeat=3,
        clock=time.process_time,
    )
    t_new = _timing.median_time(
        lambda: oob.calibration_probas(X), repeat=3, clock=time.process_time
    )
    l = 100_000
    s, yy, t, lo = problem(l, "distinct")
    _, peak_pred = traced_peak(lambda: loo_ivap_predict(s, yy, None, lo, t))
    _, peak_ind = traced_peak(lambda: ivap_fit(s, yy).predict(t))
    return dict(
        n=n,
        T=T,
        forest=forest_bytes,
        bits=oob._oob_bits.nbytes,
        peak_mask=peak_mask,
        peak_old=peak_old,
        peak_new=peak_new,
        t_old=t_old,
        t_new=t_new,
        l=l,
        peak_pred=peak_pred,
        peak_ind=peak_ind,
    )


COMPLEXITY = (
    "Why no single pair of step tables: in eqs. (10)-(11) the calibration scores do not "
    "depend on the test object, but the calibration set does, since z_r is left out of it, "
    "so the inductive tables cannot be computed once; refitting per distinct z_r is "
    "O(min(m, l) l log l). Leaving out an example of weight w and label y in group q shifts "
    "every point P_j, j >= q, of the cumulative-sum diagram by -(w, w y), and p1 is the "
    "max-min slope between the points left of the test object and those right of it, that is "
    "the bridge of two lower hulls: a max (or min) of at most three bridges, one between the "
    "points the removal moves (a prefix or a suffix of the diagram) and the other side, and "
    "one or two between an index range and the other side. Without removal, p1 is the slope "
    "of the line through L_a = P_a - (1, 1) and P_b that supports every point (the test "
    "object's block holds groups a + 1 .. b), found for every gap by one sweep; a left-out "
    "example outside the block on the side where its label cannot move p1 leaves p1 "
    "unchanged, and on the other side p1 moves exactly when a moved point falls below that "
    "line, which one binary search on a prefix (or suffix) hull decides (the arguments are in "
    "the docstring of `venncal.core._loo_ivap`). 'ranges' folds bridges over the O(log l) "
    "nodes of a segment tree of hulls for every query, 'shortcuts' (before) only for the "
    "queries the unremoved line does not answer: O(log^2 l log h) per such query, h a node's "
    "hull size. 'paths' (now) keeps every prefix hull and every suffix hull as a path of one "
    "of two trees built by a monotone-chain sweep, with tables of 2^t-th ancestors, and finds "
    "a bridge of two such paths by a simultaneous binary search over their edges (after "
    "Overmars and van Leeuwen; its test at the separating line compares two fractions by "
    "their integer parts and remainders, so every product is of two coordinate differences "
    "and int64 stays exact up to the bound of the other integer kernels); an index range "
    "[q, g] splits at the highest bit where its ends differ into a suffix of a dyadic block "
    "and a prefix of the next, whose hulls one sweep per block and level puts on a stack in "
    "the order of the queries' ends. Cost: O(l log l) for the diagram, the trees and the "
    "sweeps, O(m + l) to order the queries by counting, O(log l) per query: O((l + m) log l), "
    "the goal. p0 is the same on the mirrored diagram, and each value is an exact integer "
    "ratio, hence the same float as the refit. {ranged} Fractional weights run the same "
    "algorithm on float coordinates, as accurate as the inductive predictor's float geometry "
    "('same' gives the largest difference from the refit); only weights of extreme range "
    "(total over smallest beyond 2^28) take Python integers, exact (below)."
)


def ranged_fraction(s, y, t, lo):
    """Share of the p1 queries that need bridges: left-out example in the test object's block,
    or outside it and moving p1."""
    from venncal.core._loo_ivap import _gap_bridges, _outside_changes
    from venncal.core.venn_abers import _diagram

    u, cw, ca, unit = _diagram(s, y.astype(np.int8), None)
    px, py, k = cw.astype(np.int64), ca.astype(np.int64), u.shape[0]
    vnum, vden, left, right = (np.empty(k + 1, dtype=np.int64) for _ in range(4))
    _gap_bridges(px, py, unit, vnum, vden, left, right)
    g = np.searchsorted(u, t, side="left").astype(np.int64)
    q = np.clip(np.searchsorted(u, s[lo]) + 1, 1, k).astype(np.int64)
    dw = np.ones(lo.shape[0], dtype=np.int64)
    da = y[lo].astype(np.int64)
    change = np.zeros(lo.shape[0], dtype=np.int8)
    _outside_changes(px, py, unit, g, q, dw, da, vnum, vden, left, right, change)
    inside = np.where(q <= g, q > left[g], q <= right[g])
    return float(np.mean(inside | (change == 1)))


def mib(b):
    return f"{b / 2**20:.1f} MiB"


def write(rows, mem, ranged, extreme):
    lines = [
        f"`python benchmarks/bench_oob.py` ({_timing.machine_note()}; load average "
        f"{os.getloadavg()[1]:.1f}; CPU time of this process, medians of interleaved rounds, "
        "one BLAS thread). l calibration scores and m = l test scores, each test score with "
        "its own left-out calibration example drawn at random (as the hash of a test row "
        "draws z_r). 'refit' fits an inductive Venn-Abers predictor per distinct z_r "
        "(`tests/_reference/oob_venn_abers_naive.py`, the first algorithm); 'ranges', "
        "'shortcuts' and 'paths' answer every query from one diagram "
        "(`venncal.core._loo_ivap.loo_ivap_predict`; the first two routes are kept in "
        "`tests/_reference/loo_ranges.py`): 'ranges' (the second "
        "algorithm) folds bridges over index ranges of a segment tree of hulls for every "
        "query, 'shortcuts' (before: the third) first answers the queries whose left-out "
        "example lies outside the test object's block from the unremoved bridge, 'paths' (now, "
        "the default) answers every query in O(log l) through prefix and suffix hull trees. "
        "'inductive' is one `ivap_fit` on the l scores plus the prediction of the m test "
        "scores, the floor of any Venn-Abers predictor. 'ties': scores on a grid of 1/37 (the "
        "mean of about 37 out-of-bag votes), 'distinct': continuous scores, 'uninformative': "
        "continuous scores independent of the labels (a few blocks of thousands of groups, so "
        "many of the left-out examples fall in the test object's block), 'near': the same "
        "with each left-out example ranked within 20 of its test score (nearly all in the "
        "block), 'scallops': a rate of positives that rises from 0.2 to 0.8 over each run of "
        "sqrt(l) ranks and falls back, so that the diagram is one block of convex arcs with "
        "large hulls (the earlier algorithms' worst case), 'weighted': the scores of 'distinct' "
        "with fractional weights (uniform on [0.5, 1.5)), which the code before this change "
        "refitted per z_r (its 'before' is the refit column; the one-diagram routes then took "
        "integer weights only). 'us/query': paths' time per test object (its growth with l is "
        "the log l of the bound and the cache misses of larger tables). 'same': refit and "
        "paths give bit-identical (p0, p1) ('weighted': the largest difference, float "
        "geometry); the three one-diagram routes are checked equal at every size.",
        "",
        "| scores | l = m | refit, s | ranges, s | before (shortcuts), s | now (paths), s "
        "| refit / now | before / now | now / inductive | us/query | same |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, l, med, same in rows:
        refit, now = med["refit"], med["paths"]
        b = f"{refit:.3f}" if refit is not None else "-"
        r = f"{refit / now:.0f}x" if refit is not None else "-"
        sm = (
            f"{same:.0e}"
            if isinstance(same, float)
            else {True: "yes", False: "NO", None: "-"}[same]
        )
        lines.append(
            f"| {kind} | {l:,} | {b} | {med['ranges']:.3f} | {med['shortcuts']:.3f} "
            f"| {now:.3f} | {r} | {med['shortcuts'] / now:.2f}x | {now / med['ind']:.0f}x "
            f"| {now / l * 1e6:.2f} | {sm} |"
        )
    parts = []
    for l, refit, now, same in extreme:
        if refit is None:
            parts.append(f"l = m = {l:,}: {now:.2f} s (refit not run)")
        else:
            parts.append(
                f"l = m = {l:,}: {now:.2f} s against {refit:.2f} s for the refit "
                f"({refit / now:.0f}x, {'bit-identical' if same else 'DIFFERENT'})"
            )
    lines += [
        "",
        "Weights of extreme range (exponential times 10^-6 .. 10^5, one draw per row: the "
        "ratio of the total to the smallest weight passes 2^28, so the inductive predictor "
        "takes Python-integer geometry, exact): the same route on Python integers through the "
        "kernels' plain-Python versions, where the code before refitted per z_r; single runs, "
        "CPU time: " + "; ".join(parts) + ".",
    ]
    lines += [
        "",
        f"Memory, random forest of {mem['T']} trees (min_samples_leaf=20) on n = {mem['n']:,} "
        f"rows, 10 features; the pickled forest takes {mib(mem['forest'])}. Peak traced "
        "allocation of the out-of-bag calibration scores: the dense (trees x n x 2) "
        f"computation {mib(mem['peak_old'])} ({mem['t_old']:.2f} s), member by member "
        f"{mib(mem['peak_new'])} ({mem['t_new']:.2f} s); the out-of-bag bookkeeping kept by "
        f"the fitted model is one bit per row and tree, {mib(mem['bits'])} (built with a peak "
        f"of {mib(mem['peak_mask'])}). Prediction of l = m = {mem['l']:,} (distinct scores): "
        f"peak {mib(mem['peak_pred'])} (the hull trees and their ancestor tables, O(l log d) "
        "integers for hulls of at most d vertices, transient), inductive predictor "
        f"{mib(mem['peak_ind'])}.",
        "",
        COMPLEXITY.format(ranged=ranged),
    ]
    _timing.write_section("Out-of-bag Venn-Abers", "\n".join(lines))


def main():
    rows = prediction_rows()
    extreme = extreme_rows()
    mem = memory_rows()
    print(mem, flush=True)
    l = 100_000
    unweighted = [kind for kind in KINDS if kind != "weighted"]
    shares = {kind: ranged_fraction(*problem(l, kind)) for kind in unweighted}
    ranged = (
        f"At l = m = {l:,}, the share of p1 queries the unremoved line does not answer is "
        + ", ".join(f"{shares[k]:.1%} ({k})" for k in unweighted)
        + "."
    )
    print(ranged, flush=True)
    write(rows, mem, ranged, extreme)


if __name__ == "__main__":
    with threadpool_limits(1):
        main()
