"""Beta calibration against the ``betacal`` package (Kull et al.'s reference implementation).

Run ``python benchmarks/bench_beta.py [--write]`` (needs ``pip install betacal==1.1.0``).

For each parametrisation (abm, am, ab) and several score distributions, both fit the same
calibration scores; the script reports the largest difference of their calibrated
probabilities on a grid, the log-likelihood of each fit on the calibration data (the higher,
the closer to the maximum-likelihood map both aim at), and the median fit time of each
(interleaved rounds) with the ratio. ``betacal`` fits with scikit-learn's ``LogisticRegression``
(lbfgs, default tolerance, C = 1e11); venncal runs Newton's method to convergence.

With ``--big`` it also fits the full model (abm) on 10^6 scores of each distribution, in CPU
time (interleaved rounds), and compares both fits with an independent maximum-likelihood fit
by ``scipy.optimize.minimize`` (L-BFGS-B on the mean negative log-likelihood with its analytic
gradient, to a projected gradient of 1e-13): the largest difference of the calibrated
probabilities on a grid and the difference of the log-likelihoods on the calibration data.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import interleaved_times, machine_note, write_section  # noqa: E402


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


def scipy_mle(s, y):
    """(a, b, c) of the abm model by L-BFGS-B on the mean negative log-likelihood (a, b >= 0),
    independent of both implementations."""
    from scipy.optimize import minimize
    from scipy.special import expit

    s = np.clip(s, np.finfo(float).eps, 1 - np.finfo(float).eps)
    X = np.column_stack([np.log(s), -np.log1p(-s), np.ones(s.size)])
    n = s.size

    def f(theta):
        z = X @ theta
        loss = np.sum(np.logaddexp(0.0, z) - y * z) / n
        return loss, X.T @ (expit(z) - y) / n

    res = minimize(
        f, np.array([1.0, 1.0, 0.0]), jac=True, method="L-BFGS-B",
        bounds=[(0, None), (0, None), (None, None)],
        options={"gtol": 1e-13, "ftol": 1e-16, "maxiter": 10_000},
    )  # fmt: skip
    return res.x


def _beta_map(theta, grid):
    g = np.clip(grid, np.finfo(float).eps, 1 - np.finfo(float).eps)
    z = theta[0] * np.log(g) - theta[1] * np.log1p(-g) + theta[2]
    return 1 / (1 + np.exp(-z))


def big(n, rounds):
    """abm at n scores: CPU times of venncal and betacal, and both against scipy's MLE."""
    from betacal import BetaCalibration

    from venncal import BetaCalibrator

    grid = np.linspace(0, 1, 1001)
    rows = []
    for name, (s, y) in _designs(n, 1).items():
        ours = BetaCalibrator().fit(s, y)
        theirs = BetaCalibration().fit(s, y)
        ref = scipy_mle(s, y.astype(float))
        p_ref = _beta_map(ref, grid)
        ll_ref = _loglik(y, _beta_map(ref, s))
        ll_ours = _loglik(y, ours.predict_proba(s)[:, 1])
        ll_theirs = _loglik(y, theirs.predict(s))
        d_ours = np.abs(ours.predict_proba(grid)[:, 1] - p_ref).max()
        d_theirs = np.abs(theirs.predict(grid) - p_ref).max()
        d_both = np.abs(ours.predict_proba(grid)[:, 1] - theirs.predict(grid)).max()
        fits = {
            "ours": lambda s=s, y=y: BetaCalibrator().fit(s, y),
            "theirs": lambda s=s, y=y: BetaCalibration().fit(s, y),
        }
        t_o, t_t = interleaved_times(fits, rounds, clock=time.process_time).values()
        row = (name, d_both, d_ours, d_theirs, ll_ours - ll_ref, ll_theirs - ll_ref,
               np.median(t_o), np.median(t_t))  # fmt: skip
        print(row, flush=True)
        rows.append(row)
    lines = [
        f"Full model (abm) at n = {n:,} (`--big`), CPU time, medians of {rounds} interleaved "
        "rounds; 'scipy' is an independent maximum-likelihood fit (L-BFGS-B on the analytic "
        "gradient, to 1e-13); differences of p are the largest on a grid of 1,001 scores, "
        "log-likelihoods are on the calibration data (positive: higher than scipy's).",
        "",
        "| scores | max diff venncal - betacal | venncal - scipy | betacal - scipy "
        "| log-lik. venncal - scipy | betacal - scipy | venncal (ms) | betacal (ms) "
        "| betacal / venncal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, d_both, d_o, d_t, l_o, l_t, to, tt in rows:
        lines.append(
            f"| {name} | {d_both:.1e} | {d_o:.1e} | {d_t:.1e} | {l_o:+.2e} | {l_t:+.2e} "
            f"| {1e3 * to:.0f} | {1e3 * tt:.0f} | {tt / to:.2f}x |"
        )
    return "\n".join(lines)


def main(argv=None):
    from betacal import BetaCalibration

    from venncal import BetaCalibrator

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--big", action="store_true", help="abm at 10^6 scores against scipy's MLE")
    ap.add_argument("--big-rounds", type=int, default=3)
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
            fits = {
                "ours": lambda p=params, s=s, y=y: BetaCalibrator(parameters=p).fit(s, y),
                "theirs": lambda p=params, s=s, y=y: BetaCalibration(parameters=p).fit(s, y),
            }
            t_o, t_t = interleaved_times(fits, args.rounds).values()
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
    if args.big:
        lines += ["", big(10**6, args.big_rounds)]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section("Beta calibration", text)


if __name__ == "__main__":
    main()
