"""Where the inductive Venn-Abers fit spends its time, pass by pass, against ``np.sort``.

Run ``python benchmarks/bench_ivap_passes.py [--sizes 1000000 10000000] [--rounds 5]
[--no-write]``. It runs the passes of :func:`venncal.core.venn_abers.ivap_fit` on unweighted
uniform scores one after the other, as the fit does (input checks, the split of the scores by
label, the two sorts, the merge of ties into the cumulative-sum diagram, the two hull sweeps
and the compression of their step tables), then ``np.sort`` of the same scores, and repeats;
CPU time of this process, medians over the rounds. The merge and the first sweep are also
timed again on buffers already written (warm), which isolates the cost of first touching the
fresh memory they write. Writes the ``## Inductive Venn-Abers: passes of the fit`` section of
BENCHMARKS.md unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine_note, report  # noqa: E402

PASSES = (
    "input checks",
    "split by label (two copies)",
    "two sorts",
    "merge of ties (fresh buffers)",
    "merge of ties (warm buffers)",
    "hull sweep p1 (fresh stacks)",
    "hull sweep p1 (warm stacks)",
    "hull sweep p0",
    "two compressions",
    "ivap_fit, passes above but the warm reruns",
    "ivap_fit itself",
    "np.sort",
)


def one_round(s, y, times):
    from venncal._validation import check_sample_weight, check_scores
    from venncal.core import venn_abers as V

    n = s.shape[0]

    def tick(name, t0):
        times.setdefault(name, []).append(time.process_time() - t0)
        return time.process_time()

    start = t0 = time.process_time()
    sc = check_scores(s, name="scores")
    pos = np.asarray(y).astype(np.int8, copy=False).astype(bool)
    check_sample_weight(None, n)
    t0 = tick("input checks", t0)
    neg_sorted, pos_sorted = sc[~pos], sc[pos]
    t0 = tick("split by label (two copies)", t0)
    neg_sorted.sort()
    pos_sorted.sort()
    t0 = tick("two sorts", t0)
    u, cw, ca = np.empty(n), np.empty(n + 1, np.int32), np.empty(n + 1, np.int32)
    merge = V.merge_sorted_groups.for_size(n)
    k = merge(neg_sorted, pos_sorted, u, cw, ca)
    t0 = tick("merge of ties (fresh buffers)", t0)
    u, cw, ca = u[:k], cw[: k + 1], ca[: k + 1]
    scratch = V._scratch(cw)
    out1 = V._sweep(cw, ca, None, False, scratch)
    t0 = tick("hull sweep p1 (fresh stacks)", t0)
    b1 = V._compress(u, out1)
    t1 = time.process_time()
    V._sweep(cw, ca, None, True, scratch)
    t2 = tick("hull sweep p0", t1)
    V._compress(u, scratch[2])
    t3 = time.process_time()
    times.setdefault("two compressions", []).append((t1 - t0) + (t3 - t2))
    times.setdefault("ivap_fit, passes above but the warm reruns", []).append(t3 - start)
    del b1
    t0 = time.process_time()  # warm reruns, not part of the fit
    merge(neg_sorted, pos_sorted, u.base, cw.base, ca.base)
    t0 = tick("merge of ties (warm buffers)", t0)
    V._sweep(cw, ca, None, False, scratch)
    t0 = tick("hull sweep p1 (warm stacks)", t0)
    V.ivap_fit(s, y)
    t0 = tick("ivap_fit itself", t0)
    np.sort(s)
    tick("np.sort", t0)


def bench(n, rounds):
    from venncal.core.venn_abers import ivap_fit

    rng = np.random.default_rng(n)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(np.int8)
    ivap_fit(s[:5000], y[:5000])  # compile (or load) the kernels
    times = {}
    for _ in range(rounds):
        one_round(s, y, times)
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(f"n={n:,}: " + ", ".join(f"{k} {v * 1e3:.1f}" for k, v in med.items()), flush=True)
    return med


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**6, 10**7])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    results = {n: bench(n, args.rounds) for n in args.sizes}
    head = " | ".join(f"n = {n:,}, ms | / np.sort" for n in args.sizes)
    lines = [
        f"`python benchmarks/bench_ivap_passes.py` ({machine_note()}; the 2 cores are shared "
        f"with other jobs). CPU time, medians of {args.rounds} rounds; unweighted uniform scores "
        "with labels drawn from them (all distinct).",
        "",
        f"| pass | {head} |",
        "|---|" + "---|---|" * len(args.sizes),
    ]
    for name in PASSES:
        cells = " | ".join(
            f"{results[n][name] * 1e3:.1f} | {results[n][name] / results[n]['np.sort']:.2f}"
            for n in args.sizes
        )
        lines.append(f"| {name} | {cells} |")
    body = "\n".join(lines)
    report("Inductive Venn-Abers: passes of the fit", body, write=not args.no_write)


if __name__ == "__main__":
    main()
