"""Exact ABB fits before and after the carried passes, on informative and uninformative scores.

Run ``python benchmarks/bench_bayesian_binning.py --old PATH [--quick] [--write]``, where PATH
is a copy of an earlier ``venncal/core/bayesian_binning.py``, e.g.::

    git show 2e3eda8:src/venncal/core/bayesian_binning.py > /tmp/bayesian_binning_before.py

It fits ABB (``fit_bayesian_binning``, default ``lam`` and ``averaging="exact"``, compiled
kernels) on N distinct uniform scores, for N = 10^4, 3 x 10^4 and 10^5 (``--quick``: 10^4 and
3 x 10^4), with labels drawn from a logistic posterior of the score ("informative") or
independent of it ("independent", probability 1/2: no bin is negligible and no scan can stop
early). Each round fits the earlier module and then the current one on the same arrays, so both
see the same machine load; the tables give the medians over rounds of wall and CPU time (this
process) and of the per-round ratio before / after, and the largest difference between the two
fits' values. With ``--write`` the ``## Bayesian binning`` section of BENCHMARKS.md is replaced.
Without ``--old``, only the current module is timed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import load_module, machine_note, report  # noqa: E402


def _load(path):
    return load_module("_bayesian_binning_before", path)


def _problem(n, case, seed):
    rng = np.random.default_rng(seed)
    s = rng.random(n)  # distinct with probability one
    p = 0.5 if case == "independent" else 1 / (1 + np.exp(-6 * (s - 0.5)))
    y = (rng.random(n) < p).astype(np.int8)
    return s, y


def _timed(func):
    w0, c0 = time.perf_counter(), time.process_time()
    out = func()
    return time.perf_counter() - w0, time.process_time() - c0, out


def run(sizes, rounds, old_path=None):
    from venncal.core import bayesian_binning as new

    old = _load(old_path) if old_path else None
    versions = {"after": new} if old is None else {"before": old, "after": new}
    s, y = _problem(300, "independent", 0)
    for module in versions.values():  # compile (or load) the kernels outside the timings
        module.fit_bayesian_binning(s, y)
    rows = []
    for n in sizes:
        for case in ("informative", "independent"):
            s, y = _problem(n, case, seed=n)
            times = {name: ([], []) for name in versions}
            ratios, diff = [], 0.0
            for _ in range(rounds[n]):
                fits = {}
                for name, module in versions.items():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # the long-fit warning of the old code
                        wall, cpu, fits[name] = _timed(
                            lambda m=module, s=s, y=y: m.fit_bayesian_binning(s, y)
                        )
                    times[name][0].append(wall)
                    times[name][1].append(cpu)
                if old is not None:
                    ratios.append(times["before"][1][-1] / times["after"][1][-1])
                    diff = max(
                        diff, float(np.abs(fits["before"].values - fits["after"].values).max())
                    )
            row = {"n": n, "case": case, "rounds": rounds[n]}
            for name in versions:
                row[name] = (float(np.median(times[name][0])), float(np.median(times[name][1])))
            if old is not None:
                row["ratio"] = float(np.median(ratios))
                row["diff"] = diff
            rows.append(row)
            print(row, flush=True)
    return rows


def table(rows, with_old):
    if with_old:
        lines = [
            "| N distinct scores | labels | rounds | before: wall, s | before: CPU, s "
            "| after: wall, s | after: CPU, s | CPU before / after | max abs difference |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['n']:,} | {r['case']} | {r['rounds']} | {r['before'][0]:.2f} "
                f"| {r['before'][1]:.2f} | {r['after'][0]:.3f} | {r['after'][1]:.3f} "
                f"| {r['ratio']:.1f} | {r['diff']:.1e} |"
            )
    else:
        lines = [
            "| N distinct scores | labels | rounds | wall, s | CPU, s |",
            "|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['n']:,} | {r['case']} | {r['rounds']} | {r['after'][0]:.3f} "
                f"| {r['after'][1]:.3f} |"
            )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="path of an earlier venncal/core/bayesian_binning.py")
    parser.add_argument("--quick", action="store_true", help="10^4 and 3 x 10^4 only")
    parser.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    args = parser.parse_args(argv)
    sizes = (10_000, 30_000) if args.quick else (10_000, 30_000, 100_000)
    rounds = {10_000: 7, 30_000: 5, 100_000: 3}
    rows = run(sizes, rounds, args.old)
    body = section(rows, args.old is not None)
    report("Bayesian binning", body, write=args.write)


def section(rows, with_old):
    """The text of the ``## Bayesian binning`` section of BENCHMARKS.md."""
    return "\n".join(
        [
            f"`python benchmarks/bench_bayesian_binning.py --old PATH --write` "
            f"({machine_note()}; the 2 cores are shared with other jobs, load average "
            f"{os.getloadavg()[1]:.1f} over the 5 minutes before the end of the run, so wall "
            "times run far above CPU times). Exact ABB "
            "(`fit_bayesian_binning`, lam = 10, compiled kernels) on N distinct uniform scores, "
            "labels from a logistic posterior of the score (informative) or independent of it "
            "(probability 1/2). Before: the passes that evaluate every bin term from its "
            "log-factorials and take one exponential per term; after: the passes that carry each "
            "row's terms into the next (one vectorised multiplication and division per term, a "
            "row from the log-factorials every 50 to 128 rows). Interleaved rounds (before, "
            "then after, on the same arrays); medians over rounds, and the median of the "
            "per-round CPU ratios. Goal: at most 30 s at N = 10^5 in both cases.",
            "",
            table(rows, with_old),
        ]
    )


if __name__ == "__main__":
    main()
