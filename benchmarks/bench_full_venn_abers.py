"""Full Venn-Abers: cost of the fast paths per test object, against one isotonic fit and refits.

For each fast path and training size l, reports (medians over repeats):
* the time per test object of the fast path (both labels),
* that time divided by one isotonic fit on l + 1 scores (``fit_isotonic``); the goal is <= 5,
* the speed-up over the generic path (clone and refit, twice per test object),
and the generic path's wall time with n_jobs = 1 and 2. Writes the
"## Full Venn-Abers" section of BENCHMARKS.md.

Also measures the memory and time of the k-NN fast path's fit, before and after it computed
the distances in row blocks (``--knn-memory`` runs only that part).

Run: python benchmarks/bench_full_venn_abers.py [--quick] [--knn-memory]
"""

import datetime
import os
import platform
import sys
import time

import _timing
import numpy as np
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.naive_bayes import CategoricalNB, GaussianNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from venncal.classifiers._full import FullVennAbers
from venncal.core.isotonic import fit_isotonic

QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 9
D = 10
ESTIMATORS = [
    ("GaussianNB", GaussianNB, False),
    ("MultinomialNB", MultinomialNB, True),
    ("CategoricalNB", CategoricalNB, True),
    ("RidgeClassifier", RidgeClassifier, False),
    ("LinearDiscriminantAnalysis", LinearDiscriminantAnalysis, False),
    ("QuadraticDiscriminantAnalysis", QuadraticDiscriminantAnalysis, False),
    ("KNeighborsClassifier(k=15)", lambda: KNeighborsClassifier(15), False),
    ("LogisticRegression(tol=1e-8)", lambda: LogisticRegression(tol=1e-8, max_iter=1000), False),
]


def data(n, counts, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, size=(n, D)).astype(float) if counts else rng.normal(size=(n, D))
    z = X[:, 0] - X[:, 1] + 0.5 * X[:, 2] + rng.normal(size=n) * (2.0 if counts else 1.0)
    return X, (z > np.median(z)).astype(int)


def median_time(fn, repeats, cpu=False):
    return _timing.median_time(
        fn, repeat=repeats, clock=time.process_time if cpu else time.perf_counter
    )


def main():
    sizes = (1000,) if QUICK else (1000, 5000)
    rows = []
    for n in sizes:
        m_fast = 20 if QUICK else (100 if n == 1000 else 40)
        m_slow = 2 if QUICK else 4
        for name, make, counts in ESTIMATORS:
            X, y = data(n + m_fast, counts)
            Xtr, ytr, Xt = X[:n], y[:n], X[n:]
            rng = np.random.default_rng(1)
            s = rng.normal(size=n + 1)
            yy = rng.integers(0, 2, n + 1).astype(float)
            fast = FullVennAbers(make()).fit(Xtr, ytr)
            assert fast.uses_fast_path_
            fast.predict_interval(Xt[:2])  # compile
            # interleave the two timings so that load from other jobs hits both alike
            ratios, fast_times, iso_times = [], [], []
            for _ in range(REPEATS):
                t0 = time.process_time()
                fast.predict_interval(Xt)
                t1 = time.process_time()
                for _ in range(m_fast):
                    fit_isotonic(s, yy)
                t2 = time.process_time()
                fast_times.append((t1 - t0) / m_fast)
                iso_times.append((t2 - t1) / m_fast)
                ratios.append((t1 - t0) / (t2 - t1))
            t_fast, iso, ratio = (float(np.median(v)) for v in (fast_times, iso_times, ratios))
            slow = FullVennAbers(make(), fast_path=False).fit(Xtr, ytr)
            t_slow = median_time(lambda f=slow, Z=Xt[:m_slow]: f.predict_interval(Z), 3, cpu=True)
            t_slow /= m_slow
            a = fast.predict_interval(Xt[:m_slow])
            b = slow.predict_interval(Xt[:m_slow])
            agree = float(np.mean(np.all(np.abs(a - b) <= 1e-9, axis=1)))
            rows.append((n, name, t_fast, iso, ratio, t_slow / t_fast, agree))
            print(
                f"l={n:5d} {name:30s} fast {t_fast * 1e6:8.0f} us/test  "
                f"= {ratio:4.2f} x isotonic fit ({iso * 1e6:.0f} us)  "
                f"speed-up over refit {t_slow / t_fast:7.0f}x  agree {agree:.0%}",
                flush=True,
            )
    # generic path scaling with n_jobs: the two settings alternate, so that load from other
    # jobs hits both alike; the speed-up is the median of the paired ratios
    X, y = data(1000 + 48, False)
    m = 8 if QUICK else 48
    models = {
        n_jobs: FullVennAbers(SVC(), fast_path=False, n_jobs=n_jobs).fit(X[:1000], y[:1000])
        for n_jobs in (1, 2)
    }
    for model in models.values():
        model.predict_interval(X[1000:1002])  # start the workers
    times = {1: [], 2: []}
    for _ in range(2 if QUICK else 5):
        for n_jobs, model in models.items():
            t0 = time.perf_counter()
            model.predict_interval(X[1000 : 1000 + m])
            times[n_jobs].append(time.perf_counter() - t0)
    ratio = float(np.median(np.array(times[1]) / np.array(times[2])))
    scaling = [(1, float(np.median(times[1])), 1.0), (2, float(np.median(times[2])), ratio)]
    for n_jobs, t, r in scaling:
        print(
            f"generic path, SVC (RBF kernel), l=1000, {m} test objects, n_jobs={n_jobs}: "
            f"{t:.2f} s (speed-up {r:.2f}x)",
            flush=True,
        )
    write_section(rows, scaling, m)


def write_section(rows, scaling, m):
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    lines = [
        f"`python benchmarks/bench_full_venn_abers.py` ({today}, {platform.machine()}, Python "
        f"{platform.python_version()}, numpy {np.__version__}, 2 cores shared with other jobs, load average "
        f"{os.getloadavg()[1]:.1f} over the last 5 minutes; medians over repeats; d = {D}"
        " features, one BLAS thread). Per test object the fast path updates the model for both labels, rescores"
        " the l + 1 objects and fits isotonic regression twice. Goal: at most 5x one isotonic "
        "fit on l + 1 scores (`fit_isotonic`). 'agree' is the share of test objects whose "
        "(p0, p1) equal the refit's to 1e-9; times are this process's CPU time (less sensitive to the other jobs than wall time), "
        "and the ratio column is the median over repeats of the ratio measured back to back. "
        "The n_jobs table is wall time, which the other jobs on the two cores inflate.",
        "",
        "| l | learner | fast path, us per test object | / one isotonic fit | "
        "speed-up over refitting | agree |",
        "|---|---|---|---|---|---|",
    ]
    for n, name, t_fast, _iso, ratio, speedup, agree in rows:
        lines.append(
            f"| {n} | {name} | {t_fast * 1e6:.0f} | {ratio:.2f} | {speedup:.0f}x | {agree:.0%} |"
        )
    lines += [
        "",
        f"Generic path (clone and refit, joblib's loky backend), SVC with RBF kernel (no fast "
        f"path), l = 1000, {m} test objects, two refits each:",
        "",
        "| n_jobs | seconds (median) | speed-up (median of paired ratios) |",
        "|---|---|---|",
    ]
    for n_jobs, t, r in scaling:
        lines.append(f"| {n_jobs} | {t:.2f} | {r:.2f}x |")
    _timing.write_section("Full Venn-Abers", "\n".join(lines))


def traced_peak(fn):
    import tracemalloc

    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def knn_memory():
    """k-NN fast path fit: the whole l x l distance matrix (before) against row blocks (after).

    Interleaved rounds of CPU time, peak traced allocation (tracemalloc) of each, and whether
    the fitted statistics agree bit for bit. Writes "## Full Venn-Abers, k-NN fit memory".
    """
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from tests._reference.knn_dense import dense_statistics

    from venncal.classifiers._updatable import _KNNScorer

    k = 15
    sizes = (1000, 2000, 4000) if QUICK else (1000, 2000, 4000, 8000)
    rows = []
    for n in sizes:
        X, y = data(n, False)
        before, after = [], []
        for _ in range(3 if QUICK else 5):
            t0 = time.process_time()
            dense_statistics(X, y, k)
            t1 = time.process_time()
            _KNNScorer(k).fit(X, y)
            t2 = time.process_time()
            before.append(t1 - t0)
            after.append(t2 - t1)
        mem_before = traced_peak(lambda a=(X, y, k): dense_statistics(*a))
        mem_after = traced_peak(lambda a=(X, y): _KNNScorer(k).fit(*a))
        mem_full = traced_peak(lambda a=(X, y): FullVennAbers(KNeighborsClassifier(k)).fit(*a))
        fitted = _KNNScorer(k).fit(X, y)
        ref = dense_statistics(X, y, k)
        same = all(
            np.array_equal(a, b) for a, b in zip((fitted.radius2, fitted.sum_k, fitted.y_kth), ref)
        )
        tb, ta = float(np.median(before)), float(np.median(after))
        ratio = float(np.median(np.array(before) / np.array(after)))
        rows.append((n, tb, ta, ratio, mem_before, mem_after, mem_full, same))
        print(
            f"k-NN fit l={n}: before {tb:.3f} s {mem_before / 2**20:.0f} MiB, after {ta:.3f} s "
            f"{mem_after / 2**20:.1f} MiB (FullVennAbers.fit {mem_full / 2**20:.1f} MiB), "
            f"before/after {ratio:.2f}x, same={same}",
            flush=True,
        )
    lines = [
        f"`python benchmarks/bench_full_venn_abers.py --knn-memory` ({_timing.machine_note()}, "
        f"load average {os.getloadavg()[1]:.1f}; one BLAS thread; CPU time, medians of "
        f"interleaved rounds). Fit of the k-NN updatable scorer, k = {k}, d = {D}: 'before' "
        "builds the whole l x l squared-distance matrix and its l x l argpartition "
        "(`tests/_reference/knn_dense.py`), 'after' the same a block of rows at a time (blocks "
        "of max(k, 2^20 / l) rows rounded up to 64). Memory is the peak traced allocation "
        "(tracemalloc). 'same': the fitted statistics agree bit for bit.",
        "",
        "| l | before, s | after, s | before / after | before, MiB | after, MiB "
        "| FullVennAbers.fit, MiB | same |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n, tb, ta, ratio, mb, ma, mf, same in rows:
        lines.append(
            f"| {n:,} | {tb:.3f} | {ta:.3f} | {ratio:.2f}x | {mb / 2**20:.0f} | "
            f"{ma / 2**20:.1f} | {mf / 2**20:.1f} | {'yes' if same else 'NO'} |"
        )
    _timing.write_section("Full Venn-Abers, k-NN fit memory", "\n".join(lines))


if __name__ == "__main__":
    # one BLAS thread everywhere, as in joblib's worker processes, so n_jobs=1 is not slowed
    # down by BLAS threads fighting over the two cores
    with threadpool_limits(1):
        if "--knn-memory" in sys.argv:
            knn_memory()
        else:
            main()
            knn_memory()
