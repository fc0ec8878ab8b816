"""Monitoring calibration: false alarms and detection delay of CalibrationMonitor against a
Hosmer-Lemeshow test repeated every k rows.

Run ``python benchmarks/bench_monitor.py [--null-streams 1000] [--streams 200]``; prints
Markdown tables for BENCHMARKS.md (section "Monitoring calibration").

Streams: probabilities ``p ~ U(0.05, 0.75)``, labels ``y ~ Bernoulli(p + shift_t)``. Calibrated
streams have no shift (2,000 rows). Changed streams (3,000 rows) are calibrated for 1,000 rows,
then the positive rate jumps by ``delta`` (abrupt) or rises linearly to ``delta`` over the
remaining 2,000 rows (gradual); "slope" makes the shown probabilities over-confident from row
1,000 (``logit p_shown = 2 logit p``) at an unchanged positive rate.

The baseline: the Hosmer-Lemeshow statistic (10 groups by deciles of p, chi-square with 8
degrees of freedom) on all rows so far, computed every ``k`` rows, alarm at the first p-value
below alpha. Repeating a fixed-sample test inflates its false alarms: the monitor's are at most
alpha over the whole stream (Ville's inequality), the repeated test's are not.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import chi2

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import machine_note  # noqa: E402

from venncal import CalibrationMonitor  # noqa: E402

ALPHA = 0.05
CHANGE_AT = 1_000


def hosmer_lemeshow_p(p, y, groups=10):
    order = np.argsort(p, kind="stable")
    parts = np.array_split(order, groups)
    stat = 0.0
    for idx in parts:
        n = idx.size
        expected = p[idx].sum()
        observed = y[idx].sum()
        var = expected * (1 - expected / n)
        if var > 0:
            stat += (observed - expected) ** 2 / var
    return float(chi2.sf(stat, groups - 2))


def hl_alarm(p, y, every, alpha=ALPHA):
    for end in range(every, p.shape[0] + 1, every):
        if hosmer_lemeshow_p(p[:end], y[:end]) < alpha:
            return end - 1
    return None


def stream(rng, n, kind="none", delta=0.0):
    truth = rng.uniform(0.05, 0.75, n)
    t = np.arange(n)
    shown = truth
    if kind == "abrupt":
        truth = truth + np.where(t >= CHANGE_AT, delta, 0.0)
    elif kind == "gradual":
        truth = truth + delta * np.clip((t - CHANGE_AT) / (n - CHANGE_AT), 0, 1)
    elif kind == "slope":
        logit = np.log(truth / (1 - truth))
        shown = np.where(t >= CHANGE_AT, 1 / (1 + np.exp(-2 * logit)), truth)
    y = (rng.random(n) < np.clip(truth, 0, 1)).astype(int)
    return shown, y


def false_alarms(n_streams, rng):
    counts = {"monitor": 0, "HL every 100": 0, "HL every 500": 0}
    for _ in range(n_streams):
        p, y = stream(rng, 2_000)
        counts["monitor"] += CalibrationMonitor(alpha=ALPHA).update(p, y).alarm_
        counts["HL every 100"] += hl_alarm(p, y, 100) is not None
        counts["HL every 500"] += hl_alarm(p, y, 500) is not None
    return {k: v / n_streams for k, v in counts.items()}


def detection(kind, delta, n_streams, rng):
    results = {}
    rows = {"monitor": [], "HL every 100": [], "HL every 500": []}
    for _ in range(n_streams):
        p, y = stream(rng, 3_000, kind, delta)
        m = CalibrationMonitor(alpha=ALPHA).update(p, y)
        rows["monitor"].append(m.alarm_index_)
        rows["HL every 100"].append(hl_alarm(p, y, 100))
        rows["HL every 500"].append(hl_alarm(p, y, 500))
    for name, alarms in rows.items():
        early = sum(a is not None and a < CHANGE_AT for a in alarms)
        delays = [a - CHANGE_AT for a in alarms if a is not None and a >= CHANGE_AT]
        results[name] = (
            early / n_streams,
            len(delays) / n_streams,
            float(np.median(delays)) if delays else float("nan"),
        )
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null-streams", type=int, default=1_000)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    fa = false_alarms(args.null_streams, rng)
    se = np.sqrt(ALPHA * (1 - ALPHA) / args.null_streams)
    lines = [
        f"{machine_note()}; {time.perf_counter() - start:.0f} s for the calibrated streams.",
        "",
        f"False alarms on {args.null_streams:,} calibrated streams of 2,000 rows (alpha = "
        f"{ALPHA}; binomial standard error at 5%: {se:.3f}):",
        "",
        "| test | streams with an alarm |",
        "|---|---|",
        *(f"| {k} | {v:.3f} |" for k, v in fa.items()),
        "",
        f"Changes at row {CHANGE_AT:,} of 3,000 ({args.streams} streams each): share of "
        "streams that alarmed before the change (false), share that alarmed after it, and the "
        "median delay in rows after the change among those:",
        "",
        "| change | monitor: before / after / delay | HL every 100 | HL every 500 |",
        "|---|---|---|---|",
    ]
    scenarios = [
        ("abrupt", 0.05),
        ("abrupt", 0.1),
        ("abrupt", 0.2),
        ("abrupt", -0.1),
        ("gradual", 0.1),
        ("gradual", 0.2),
        ("slope", 0.0),
    ]
    for kind, delta in scenarios:
        res = detection(kind, delta, args.streams, rng)
        label = f"{kind} {delta:+.2f}" if kind != "slope" else "slope x2 (over-confident)"
        cells = [f"{b:.2f} / {a:.2f} / {d:.0f}" for b, a, d in res.values()]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
        print(f"{label}: done", file=sys.stderr)
    lines.append("")
    lines.append(f"Total {time.perf_counter() - start:.0f} s.")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
