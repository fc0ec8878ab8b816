"""Speed of isotonic prediction against scikit-learn's at 10^6 calibration scores.

Run ``python benchmarks/bench_isotonic.py [--quick] [--old PATH]``. It fits once, outside the
timings, ``IsotonicCalibrator`` (both rules) and ``sklearn.isotonic.IsotonicRegression`` on the
same n distinct scores, then times ``predict_proba`` against ``IsotonicRegression.predict`` on n
test scores, in interleaved rounds so that every method sees the same machine load, and prints
the medians. With ``--old PATH``, a copy of an earlier ``venncal/core/isotonic.py`` (e.g.
``git show HEAD~1:src/venncal/core/isotonic.py > /tmp/iso_old.py``) is imported by path and its
fitted table is timed in the same rounds, inside the same calibrator. Nothing is written to
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import load_module, machine_note, median_time  # noqa: E402


def _load(path):
    return load_module("_isotonic_old", path)


def bench_predict(n, rounds, old_path=None):
    """Median predict times (seconds) and median ratios to scikit-learn over interleaved rounds."""
    from sklearn.isotonic import IsotonicRegression

    from venncal import IsotonicCalibrator

    rng = np.random.default_rng(1)
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    t = rng.normal(size=n)

    sk = IsotonicRegression(out_of_bounds="clip").fit(s, y)
    methods = {"sklearn IsotonicRegression.predict": lambda: sk.predict(t)}
    tables = {}
    old = _load(old_path) if old_path else None
    for rule in ("interpolate", "nearest"):
        cal = IsotonicCalibrator(rule=rule).fit(s, y)
        tables[rule] = cal.step_function_.x.shape[0]
        methods[f"venncal, rule={rule!r}"] = lambda cal=cal: cal.predict_proba(t)
        if old is not None:
            cal_old = IsotonicCalibrator(rule=rule).fit(s, y)
            cal_old.step_function_ = old.fit_isotonic(s, y)
            tables[f"{rule} (old)"] = cal_old.step_function_.x.shape[0]
            np.testing.assert_array_equal(cal_old.predict_proba(t), cal.predict_proba(t))
            methods[f"venncal before, rule={rule!r}"] = lambda c=cal_old: c.predict_proba(t)
    for func in methods.values():
        func()  # compile and warm up outside the timings
    times = {name: [] for name in methods}
    for _ in range(rounds):
        for name, func in methods.items():
            times[name].append(median_time(func, repeat=1))
    rival = np.array(times["sklearn IsotonicRegression.predict"])
    rows = [
        (name, float(np.median(ts)), float(np.median(np.array(ts) / rival)))
        for name, ts in times.items()
    ]
    return rows, tables


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^5 scores, 5 rounds")
    parser.add_argument("--old", help="path of an earlier venncal/core/isotonic.py to compare")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args(argv)
    n = 100_000 if args.quick else 1_000_000
    rounds = args.rounds or (5 if args.quick else 15)
    rows, tables = bench_predict(n, rounds, args.old)
    lines = [
        f"`python benchmarks/bench_isotonic.py` ({machine_note()}): predict on {n:,} test "
        f"scores after a fit on {n:,} distinct calibration scores; medians of {rounds} "
        "interleaved rounds; ratio = median of per-round ratios to scikit-learn.",
        "",
        "table entries: " + ", ".join(f"{k} {v:,}" for k, v in tables.items()),
        "",
        "| method | predict, ms | ratio to sklearn |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {t * 1e3:.1f} | {r:.2f} |" for name, t, r in rows]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
