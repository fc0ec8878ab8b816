"""Full Venn-Abers: cost of the fast paths per test object, against one isotonic fit and refits.

For each fast path and training size l, reports (medians over repeats):
* the time per test object of the fast path (both labels),
* that time divided by one isotonic fit on l + 1 scores (``fit_isotonic``); the goal is <= 5,
* the speed-up over the generic path (clone and refit, twice per test object),
and the generic path's wall time with n_jobs = 1 and 2. Writes the
"## Full Venn-Abers" section of BENCHMARKS.md.

Run: python benchmarks/bench_full_venn_abers.py [--quick]
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


if __name__ == "__main__":
    # one BLAS thread everywhere, as in joblib's worker processes, so n_jobs=1 is not slowed
    # down by BLAS threads fighting over the two cores
    with threadpool_limits(1):
        main()
