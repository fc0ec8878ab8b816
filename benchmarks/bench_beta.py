"""Beta calibration against the ``betacal`` package (Kull et al.'s reference implementation).

Run ``python benchmarks/bench_beta.py [--write]`` (needs ``pip install betacal==1.1.0``).

For each parametrisation (abm, am, ab) and several score distributions, both fit the same
calibration scores; the script reports the largest difference of their calibrated
probabilities on a grid, the log-likelihood of each fit on the calibration data (the higher,
the closer to the maximum-likelihood map both aim at), and the median fit time of each
(interleaved rounds) with the ratio. ``betacal`` fits with scikit-learn's ``LogisticRegression``
(lbfgs, default tolerance, C = 1e11); venncal runs Newton's method to convergence.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine_note, write_section  # noqa: E402


def _designs(n, seed):
    rng = np.random.default_rng(seed)
    out = {}
    s = rng.beta(0.5, 0.5, size=n)  # scores pushed to 0 and 1 (naive Bayes-like)
    out["overconfident"] = (s, (rng.random(n) < 0.15 + 0.7 * s).astype(int))
    s = rng.beta(4, 4, size=n)  # scores drawn to the middle (ensemble-like)
    out["underconfident"] = (s, (rng.random(n) < np.clip(3 * (s - 0.5) + 0.5, 0, 1)).astype(int))
    s = rng.uniform(size=n)
    out["skewed"] = (s, (rng.random(n) < s**2).astype(int))
    return out


def _loglik(y, p):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(np.sum(y * np.log(p) + (1 - y) * np.log1p(-p)))


def main(argv=None):
    from betacal import BetaCalibration

    from venncal import BetaCalibrator

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    grid = np.linspace(0, 1, 1001)
    rows = []
    warnings.simplefilter("ignore")
    for params in ("abm", "am", "ab"):
        for name, (s, y) in _designs(args.n, 0).items():
            ours = BetaCalibrator(parameters=params).fit(s, y)
            theirs = BetaCalibration(parameters=params).fit(s, y)
            diff = np.abs(ours.predict_proba(grid)[:, 1] - theirs.predict(grid)).max()
            ll_ours = _loglik(y, ours.predict_proba(s)[:, 1])
            ll_theirs = _loglik(y, theirs.predict(s))
            t_o, t_t = [], []
            for _ in range(args.rounds):  # interleaved
                t0 = time.perf_counter()
                BetaCalibrator(parameters=params).fit(s, y)
                t_o.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                BetaCalibration(parameters=params).fit(s, y)
                t_t.append(time.perf_counter() - t0)
            rows.append((params, name, diff, ll_ours - ll_theirs, np.median(t_o), np.median(t_t)))
    lines = [
        machine_note(),
        "",
        f"Command: `python benchmarks/bench_beta.py --n {args.n}`; {args.n:,} calibration "
        f"scores, medians of {args.rounds} interleaved rounds.",
        "",
        "| model | scores | max abs diff of p | log-lik. venncal - betacal | venncal (ms) "
        "| betacal (ms) | time ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for params, name, diff, dll, to, tt in rows:
        lines.append(
            f"| {params} | {name} | {diff:.1e} | {dll:+.2e} | {1e3 * to:.2f} | {1e3 * tt:.2f} "
            f"| {to / tt:.2f}x |"
        )
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section("Beta calibration", text)


if __name__ == "__main__":
    main()
