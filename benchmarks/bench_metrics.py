"""Speed of ``venncal.metrics.log_loss`` against scikit-learn's and probcal's.

Run ``python benchmarks/bench_metrics.py [--quick] [--no-write]``. It times, on the same arrays
and in this process, the log loss of 10^6 and 10^7 uniform probabilities with labels drawn from
them (no probability of exactly 0 or 1), unweighted and with exponential weights, against
``sklearn.metrics.log_loss`` and, when installed, ``probcal.metrics.log_loss``. Rounds are
interleaved (one call of each per round) and the medians reported, with the median of the
per-round ratios; the results are checked to agree first. Writes the ``## Metrics`` section of
BENCHMARKS.md unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine_note, write_section  # noqa: E402


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
    times = {name: [] for name in funcs}
    for _ in range(rounds):
        for name, f in funcs.items():
            t0 = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t0)
    ours = np.array(times["venncal"])
    row = {"venncal": float(np.median(ours))}
    for name in funcs:
        if name != "venncal":
            row[name] = float(np.median(times[name]))
            row[name + " ratio"] = float(np.median(np.array(times[name]) / ours))
    label = "weighted" if weighted else "unweighted"
    print(f"N={n:,} {label}: " + ", ".join(f"{k} {v:.4g}" for k, v in row.items()), flush=True)
    return n, label, row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 and 10^6 rows, fewer rounds")
    parser.add_argument("--no-write", action="store_true", help="do not update BENCHMARKS.md")
    args = parser.parse_args(argv)
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
    print(body)
    if not args.no_write:
        write_section("Metrics", body)


if __name__ == "__main__":
    main()
