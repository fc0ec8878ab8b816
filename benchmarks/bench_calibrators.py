"""Speed of the classic calibrators and of exact Bayesian binning.

Run ``python benchmarks/bench_calibrators.py [--quick]``. It times, on the same arrays and in
this process:

* ABB and SBB fits at N = 2,000 / 4,000 / 8,000 distinct scores (the growth per doubling should be
  about 4x for an O(N^2) method), at 10^4 (goal: ABB <= 1 s) and at 10^5 (goal: ABB <= 30 s);
* Platt scaling (``PlattCalibrator``) against scikit-learn's sigmoid calibration, histogram binning
  (``fit_histogram`` and prediction) against two ``numpy.histogram`` calls (counts and positives),
  and ``IsotonicCalibrator`` against scikit-learn's ``IsotonicRegression``, at 10^5 scores
  (goal: within 2x of the rival);

and writes the medians to the ``## Calibrators`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine_note, median_time, report  # noqa: E402


def _scores(n, seed=0, flat=False):
    rng = np.random.default_rng(seed)
    s = rng.random(n)  # distinct with probability one
    p = 0.5 if flat else 1 / (1 + np.exp(-6 * (s - 0.5)))
    y = (rng.random(n) < p).astype(np.int8)
    return s, y


def _wall_and_cpu(func, repeat):
    """Median wall time and median CPU time (this process) of ``func()`` over ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        func()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return float(np.median(walls)), float(np.median(cpus))


def bench_bayesian_binning(repeat, big_repeat, sizes_big, flat=False):
    from venncal.core.bayesian_binning import fit_bayesian_binning

    s, y = _scores(200)
    fit_bayesian_binning(s, y)  # compile the kernels outside the timings
    fit_bayesian_binning(s, y, method="selection")
    rows = []
    for n in (2000, 4000, 8000, 10_000, *sizes_big):
        s, y = _scores(n, seed=n, flat=flat)
        rep = big_repeat if n > 10_000 else repeat
        t_abb, c_abb = _wall_and_cpu(lambda s=s, y=y: fit_bayesian_binning(s, y), rep)
        t_sbb, c_sbb = _wall_and_cpu(
            lambda s=s, y=y: fit_bayesian_binning(s, y, method="selection"), rep
        )
        rows.append((n, t_abb, c_abb, t_sbb, c_sbb))
        print(f"N={n}: ABB {t_abb:.3f} s (cpu {c_abb:.3f}), SBB {t_sbb:.3f} s", flush=True)
    return rows


def bench_rivals(n, repeat):
    from sklearn.calibration import _SigmoidCalibration
    from sklearn.isotonic import IsotonicRegression

    from venncal import IsotonicCalibrator, PlattCalibrator
    from venncal.core.histogram import fit_histogram

    rng = np.random.default_rng(1)
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    t = rng.normal(size=n)

    def ours_platt():
        PlattCalibrator().fit(s, y).predict_proba(t)

    def sk_platt():
        # the estimator behind CalibratedClassifierCV(method="sigmoid")
        _SigmoidCalibration().fit(s, y).predict(t)

    def ours_hist():
        fit_histogram(s, y, n_bins=10).predict(t)

    def np_hist():
        edges = np.histogram_bin_edges(s, 10)
        np.histogram(s, edges)
        np.histogram(s, edges, weights=y)

    def ours_iso():
        IsotonicCalibrator().fit(s, y).predict_proba(t)

    def sk_iso():
        IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(t)

    out = []
    for name, ours, rival, rival_name in (
        ("Platt (fit + predict)", ours_platt, sk_platt, "sklearn _SigmoidCalibration"),
        ("histogram, 10 bins (fit + predict)", ours_hist, np_hist, "2 x numpy.histogram"),
        ("isotonic (fit + predict)", ours_iso, sk_iso, "sklearn IsotonicRegression"),
    ):
        ours()
        rival()
        ratios, t_ours, t_rival = [], [], []
        for _ in range(repeat):  # back to back, so both see the same machine load
            a = median_time(ours, repeat=1, min_time=0.05)
            b = median_time(rival, repeat=1, min_time=0.05)
            t_ours.append(a)
            t_rival.append(b)
            ratios.append(a / b)
        row = (name, float(np.median(t_ours)), rival_name, float(np.median(t_rival)))
        out.append((*row, float(np.median(ratios))))
        print(f"{name}: {row[1] * 1e3:.1f} ms vs {rival_name} {row[3] * 1e3:.1f} ms", flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, no 10^5 ABB")
    parser.add_argument("--no-write", action="store_true", help="do not update BENCHMARKS.md")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7
    bb = bench_bayesian_binning(repeat, 1 if args.quick else 3, () if args.quick else (100_000,))
    bb_flat = bench_bayesian_binning(repeat, 1, () if args.quick else (100_000,), flat=True)
    rivals = bench_rivals(10_000 if args.quick else 100_000, repeat)

    lines = [
        f"`python benchmarks/bench_calibrators.py` ({machine_note()}; the 2 cores are shared with "
        "other jobs, so every figure is a median over repeats). Scores are distinct uniform "
        "draws with labels from a logistic posterior; Bayesian binning with the default "
        "lam = 10 and the compiled kernels. CPU time is this process's, less sensitive than "
        "wall time to the other jobs.",
        "",
        "Exact Bayesian binning, fit time (goal: ABB <= 1 s at 10^4, <= 30 s at 10^5 whatever "
        "the labels, about 4x per doubling of N). Logistic posterior: each scan stops once the "
        "proven bound shows the rest of its row negligible, so the growth is below 4x; labels "
        "independent of the scores (every bin stays plausible, nothing is skipped) show the "
        "plain O(N^2). ABB carries each row's terms into the next (one vectorised "
        "multiplication and division per term); SBB evaluates each term from its "
        "log-factorials:",
        "",
        "| N distinct scores | ABB wall, s | ABB CPU, s | CPU x previous | SBB wall, s "
        "| SBB CPU, s | CPU x previous |",
        "|---|---|---|---|---|---|---|",
    ]
    prev = None
    for n, ta, ca, ts, cs in [*bb, *[(-1, 0, 0, 0, 0)], *bb_flat]:
        if n == -1:
            lines.append("| *labels independent of the scores:* | | | | | | |")
            prev = None
            continue
        doubled = prev is not None and n == 2 * prev[0]
        growth_a = f"{ca / prev[2]:.2f}" if doubled else ""
        growth_s = f"{cs / prev[4]:.2f}" if doubled else ""
        lines.append(
            f"| {n:,} | {ta:.3f} | {ca:.3f} | {growth_a} | {ts:.3f} | {cs:.3f} | {growth_s} |"
        )
        prev = (n, ta, ca, ts, cs)
    n_rival = 10_000 if args.quick else 100_000
    lines += [
        "",
        f"Classic calibrators at {n_rival:,} scores, fit on n and predict n (goal: within 2x of "
        "the rival); ratio = median of back-to-back ratios:",
        "",
        "| method | venncal, ms | rival | rival, ms | ratio |",
        "|---|---|---|---|---|",
    ]
    for name, a, rival_name, b, r in rivals:
        lines.append(f"| {name} | {a * 1e3:.1f} | {rival_name} | {b * 1e3:.1f} | {r:.2f} |")
    body = "\n".join(lines)
    report("Calibrators", body, write=not args.no_write)


if __name__ == "__main__":
    main()
