"""Inductive Venn-Abers: venncal against numpy's floor, scikit-learn and venn-abers 1.5.4.

Run: ``python benchmarks/bench_ivap.py [--sizes 1000 10000 100000 1000000] [--write]``.
All contenders run in this process on the same arrays; times are medians of repeated runs.
``--write`` records the table in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
from _timing import machine_note, median_time, write_section
from sklearn.isotonic import IsotonicRegression

from venncal import VennAbersCalibrator

KINDS = ("random", "separated", "ties")


def make_data(kind, n, seed):
    rng = np.random.default_rng(seed)
    if kind == "ties":
        s = rng.integers(0, 100, size=n).astype(np.float64)
        y = (rng.random(n) < s / 100).astype(np.int64)
    elif kind == "separated":
        y = rng.integers(0, 2, size=n)
        s = 8.0 * y + rng.normal(size=n)
    else:
        s = rng.normal(size=n)
        y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(np.int64)
    return s, y


def _venn_abers_package():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from venn_abers import VennAbers
    except ImportError:
        return None
    return VennAbers


def _as_probs(s):
    p = 1 / (1 + np.exp(-s / (np.abs(s).max() + 1e-12) * 10))
    return np.column_stack([1 - p, p])


def bench_one(kind, n, *, repeat, rival_limit, rival_budget=None):
    s, y = make_data(kind, n, 0)
    t, _ = make_data(kind, n, 1)
    row = {"kind": kind, "n": n}
    cal = VennAbersCalibrator()
    cal.fit(s[:100], y[:100])  # compile before timing
    row["venncal_fit"] = median_time(lambda: cal.fit(s, y), repeat=repeat, min_time=0.02)
    cal.fit(s, y)
    row["venncal_predict"] = median_time(
        lambda: cal.predict_interval(t), repeat=repeat, min_time=0.02
    )
    row["np_sort"] = median_time(lambda: np.sort(s), repeat=repeat, min_time=0.02)
    sorted_s = np.sort(s)
    row["np_searchsorted"] = median_time(
        lambda: np.searchsorted(sorted_s, t), repeat=repeat, min_time=0.02
    )
    iso = IsotonicRegression(out_of_bounds="clip")
    row["sklearn_isotonic_fit"] = median_time(lambda: iso.fit(s, y), repeat=repeat)
    VennAbers = _venn_abers_package()
    if rival_budget is not None and rival_budget[0] > rival_budget[1]:
        row["venn_abers_skipped"] = f"projected {rival_budget[0]:.0f} s per fit"
    elif VennAbers is not None and n <= rival_limit:
        ps, pt = _as_probs(s), _as_probs(t)
        va = VennAbers()
        reps = 1 if n >= 10**6 else max(1, min(repeat, 3))
        row["venn_abers_fit"] = median_time(lambda: va.fit(ps, y), repeat=reps)
        va.fit(ps, y)
        row["venn_abers_predict"] = median_time(lambda: va.predict_proba(pt), repeat=reps)
        # the two must agree (a monotone transform of the scores does not change Venn-Abers)
        theirs = va.predict_proba(pt)[1]
        ours = VennAbersCalibrator().fit(ps[:, 1], y).predict_interval(pt[:, 1])
        row["max_abs_diff_vs_venn_abers"] = float(np.abs(theirs - ours).max())
    return row


_MEMORY_SCRIPT = r"""
import json, sys
import numpy as np
from venncal.core.venn_abers import ivap_fit

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])

s = np.load(sys.argv[1]); y = np.load(sys.argv[2])
ivap_fit(s[:1000], y[:1000])
open("/proc/self/clear_refs", "w").write("5")  # reset the peak resident size
base = status("VmRSS:")
tables = ivap_fit(s, y)
peak = status("VmHWM:")
print(json.dumps({"extra_kib": peak - base, "input_kib": (s.nbytes + y.nbytes) / 1024}))
"""


def memory_at(kind, n):
    """Extra peak resident memory of one fit, in a fresh process, relative to the input size."""
    s, y = make_data(kind, n, 0)
    with tempfile.TemporaryDirectory() as tmp:
        fs, fy = Path(tmp, "s.npy"), Path(tmp, "y.npy")
        np.save(fs, s)
        np.save(fy, y)
        out = subprocess.run(
            [sys.executable, "-c", _MEMORY_SCRIPT, str(fs), str(fy)],
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(out.stdout)


def format_table(rows):
    lines = [
        "| data | n = m | fit (s) | fit / np.sort | predict (s) | predict / np.searchsorted "
        "| sklearn isotonic fit (s) | venn-abers fit (s) | venn-abers fit / ours "
        "| venn-abers predict / ours | max abs diff |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        va_fit = r.get("venn_abers_fit")
        va_pred = r.get("venn_abers_predict")
        fit, pred = r["venncal_fit"], r["venncal_predict"]
        rival = ["", "", "", ""]
        if "venn_abers_skipped" in r:
            rival = [f"skipped ({r['venn_abers_skipped']})", "", "", ""]
        if va_fit is not None:
            diff = r["max_abs_diff_vs_venn_abers"]
            rival = [
                f"{va_fit:.3f}",
                f"{va_fit / fit:.0f}x",
                f"{va_pred / pred:.1f}x",
                f"{diff:.1e}",
            ]
        lines.append(
            f"| {r['kind']} | {r['n']:.0e} | {fit:.4f} | {fit / r['np_sort']:.2f} "
            f"| {pred:.4f} | {pred / r['np_searchsorted']:.2f} "
            f"| {r['sklearn_isotonic_fit']:.4f} | " + " | ".join(rival) + " |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**3, 10**4, 10**5, 10**6])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--rival-limit",
        type=int,
        default=10**6,
        help="largest n at which venn-abers is run (it can be quadratic)",
    )
    parser.add_argument(
        "--rival-seconds",
        type=float,
        default=600.0,
        help="skip venn-abers where a quadratic projection exceeds this",
    )
    parser.add_argument("--write", action="store_true", help="record results in BENCHMARKS.md")
    args = parser.parse_args(argv)
    rows = []
    for kind in args.kinds:
        last = None
        for n in sorted(args.sizes):
            # venn-abers can be quadratic: skip a size whose fit would take longer than
            # --rival-seconds by a quadratic projection from the previous size
            budget = None
            if last is not None and "venn_abers_fit" in last:
                projected = last["venn_abers_fit"] * (n / last["n"]) ** 2
                budget = (projected, args.rival_seconds)
            row = bench_one(
                kind, n, repeat=args.repeat, rival_limit=args.rival_limit, rival_budget=budget
            )
            rows.append(row)
            last = row
            print(json.dumps(row), flush=True)
    table = format_table(rows)
    print(table)
    mem = {kind: memory_at(kind, max(args.sizes)) for kind in args.kinds}
    mem_lines = "\n".join(
        f"- {kind}: extra peak memory of one fit at n = {max(args.sizes):.0e}: "
        f"{m['extra_kib'] / 1024:.1f} MiB = {m['extra_kib'] / m['input_kib']:.2f}x the input "
        f"({m['input_kib'] / 1024:.1f} MiB of scores and labels)"
        for kind, m in mem.items()
    )
    print(mem_lines)
    if args.write:
        body = (
            f"`python benchmarks/bench_ivap.py --write` ({machine_note()}). Medians of "
            f"{args.repeat} runs (venn-abers: 3 runs, 1 at 10^6). Fit is "
            "`VennAbersCalibrator.fit` (with input checks); predict is `predict_interval`. "
            "The floors are numpy's `sort` of the calibration scores and `searchsorted` of the "
            "test scores into them. venn-abers gets the same scores through a monotone map to "
            "[0, 1], which leaves Venn-Abers unchanged; the last column is the largest "
            "difference between its (p0, p1) and ours.\n\n"
            f"{table}\n\n{mem_lines}"
        )
        write_section("Inductive Venn-Abers", body)


if __name__ == "__main__":
    main()
