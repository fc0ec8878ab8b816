"""Speed of ``venncal.metrics.log_loss`` and of the binned metrics against rivals.

Run ``python benchmarks/bench_metrics.py [--quick] [--no-write] [--only {log_loss,binned}]``.

Log loss: it times, on the same arrays
and in this process, the log loss of 10^6 and 10^7 uniform probabilities with labels drawn from
them (no probability of exactly 0 or 1), unweighted and with exponential weights, against
``sklearn.metrics.log_loss`` and, when installed, ``probcal.metrics.log_loss``. Rounds are
interleaved (one call of each per round) and the medians reported, with the median of the
per-round ratios; the results are checked to agree first. Writes the ``## Metrics`` section of
BENCHMARKS.md unless ``--no-write``.

Binned metrics: the ECE (10 equal-width bins, unweighted and weighted) and the reliability curve
of 10^6 and 10^7 predictions, in CPU time, against ``probcal.metrics.ece(strategy="width")``
when installed and against a floor: the bin of each prediction as ``floor(10 p)`` and three
``np.bincount`` calls (count, positives, sum of p), the least any binned metric does. Writes the
``## Binned metrics`` section.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import interleaved_times, machine_note, report  # noqa: E402


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int64)
    w = rng.exponential(size=n)
    return y, p, w


def _rivals():
    from sklearn.metrics import log_loss as sk_log_loss

    out = {"sklearn": sk_log_loss}
    try:
        from probcal.metrics import log_loss as pc_log_loss
    except ImportError:
        pass
    else:
        out["probcal"] = pc_log_loss
    return out


def bench(n, rounds, weighted):
    from venncal.metrics import log_loss

    y, p, w = _data(n, seed=n)
    kw = {"sample_weight": w} if weighted else {}
    funcs = {"venncal": lambda: log_loss(y, p, **kw)}
    for name, f in _rivals().items():
        funcs[name] = lambda f=f: f(y, p, **kw)
    values = {name: f() for name, f in funcs.items()}  # warm up and check agreement
    for name, v in values.items():
        if not np.isclose(v, values["venncal"], rtol=1e-9):
            raise AssertionError(f"{name} gives {v}, venncal {values['venncal']}")
    times = interleaved_times(funcs, rounds)
    ours = np.array(times["venncal"])
    row = {"venncal": float(np.median(ours))}
    for name in funcs:
        if name != "venncal":
            row[name] = float(np.median(times[name]))
            row[name + " ratio"] = float(np.median(np.array(times[name]) / ours))
    label = "weighted" if weighted else "unweighted"
    print(f"N={n:,} {label}: " + ", ".join(f"{k} {v:.4g}" for k, v in row.items()), flush=True)
    return n, label, row


def _floor(y, p, w, n_bins=10):
    idx = np.minimum((p * n_bins).astype(np.intp), n_bins - 1)
    ones = np.bincount(idx, minlength=n_bins) if w is None else None
    count = ones if w is None else np.bincount(idx, weights=w, minlength=n_bins)
    positives = np.bincount(idx, weights=y if w is None else w * y, minlength=n_bins)
    sum_p = np.bincount(idx, weights=p if w is None else w * p, minlength=n_bins)
    return count, positives, sum_p


def bench_binned(n, rounds, weighted):
    from venncal.metrics import ece, reliability_curve

    y, p, w = _data(n, seed=n)
    kw = {"sample_weight": w} if weighted else {}
    funcs = {
        "venncal ece": lambda: ece(y, p, n_bins=10, **kw),
        "venncal reliability_curve": lambda: reliability_curve(y, p, n_bins=10, **kw),
        "floor": lambda: _floor(y, p, w if weighted else None),
    }
    try:
        from probcal.metrics import ece as pc_ece
    except ImportError:
        pass
    else:
        funcs["probcal ece"] = lambda: pc_ece(y, p, n_bins=10, strategy="width", **kw)
        ours, theirs = funcs["venncal ece"](), funcs["probcal ece"]()
        if not np.isclose(ours, theirs, rtol=1e-9, atol=1e-15):
            raise AssertionError(f"probcal gives ECE {theirs}, venncal {ours}")
    times = interleaved_times(funcs, rounds, clock=time.process_time)
    ref = np.array(times["venncal ece"])
    row = {name: float(np.median(t)) for name, t in times.items()}
    row["ece / floor"] = float(np.median(ref / np.array(times["floor"])))
    if "probcal ece" in times:
        row["probcal / ece"] = float(np.median(np.array(times["probcal ece"]) / ref))
    label = "weighted" if weighted else "unweighted"
    print(f"N={n:,} {label}: " + ", ".join(f"{k} {v:.4g}" for k, v in row.items()), flush=True)
    return n, label, row


def binned_section(quick):
    sizes = (10**5, 10**6) if quick else (10**6, 10**7)
    rows = []
    for n in sizes:
        rounds = 7 if quick else (21 if n <= 10**6 else 7)
        for weighted in (False, True):
            rows.append(bench_binned(n, rounds, weighted))
    names = list(rows[0][2])
    lines = [
        f"`python benchmarks/bench_metrics.py --only binned` ({machine_note()}; the 2 cores are "
        "shared with other jobs). ECE with 10 equal-width bins and the reliability curve of "
        "uniform probabilities with labels drawn from them; CPU time of this process, one call "
        "of each per round, rounds interleaved, medians reported, ratios are medians of the "
        "per-round ratios. 'floor': `floor(10 p)` and three `np.bincount` calls (count, "
        "positives, sum of p: the least any binned metric does).",
        "",
        "| N | weights | " + " | ".join(k if "/" in k else f"{k}, ms" for k in names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for n, label, row in rows:
        cells = " | ".join(f"{row[k]:.2f}" if "/" in k else f"{row[k] * 1e3:.1f}" for k in names)
        lines.append(f"| {n:,} | {label} | {cells} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 and 10^6 rows, fewer rounds")
    parser.add_argument("--no-write", action="store_true", help="do not update BENCHMARKS.md")
    parser.add_argument("--only", choices=("log_loss", "binned"), help="run one of the two parts")
    args = parser.parse_args(argv)
    if args.only != "log_loss":
        body = binned_section(args.quick)
        report("Binned metrics", body, write=not args.no_write)
        if args.only == "binned":
            return
    sizes = (10**5, 10**6) if args.quick else (10**6, 10**7)
    rows = []
    for n in sizes:
        rounds = 5 if args.quick else (21 if n <= 10**6 else 7)
        for weighted in (False, True):
            rows.append(bench(n, rounds, weighted))
    rivals = [k for k in rows[0][2] if k != "venncal" and not k.endswith("ratio")]
    header = "| N | weights | venncal, ms | " + " | ".join(
        f"{r}, ms | {r} / venncal" for r in rivals
    )
    lines = [
        f"`python benchmarks/bench_metrics.py` ({machine_note()}; the 2 cores are shared with "
        "other jobs). Mean log loss of uniform probabilities with labels drawn from them; "
        "one call of each function per round, rounds interleaved, medians reported; the ratio "
        "is the median of the per-round ratios (above 1: venncal is faster).",
        "",
        header + " |",
        "|---|---|---|" + "---|---|" * len(rivals),
    ]
    for n, label, row in rows:
        cells = " | ".join(f"{row[r] * 1e3:.1f} | {row[r + ' ratio']:.2f}" for r in rivals)
        lines.append(f"| {n:,} | {label} | {row['venncal'] * 1e3:.1f} | {cells} |")
    body = "\n".join(lines)
    report("Metrics", body, write=not args.no_write)


if __name__ == "__main__":
    main()
