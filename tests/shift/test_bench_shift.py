"""The data-shift benchmarks run at small size, and their tables say what BENCHMARKS.md says:
weighting helps under covariate shift, the repeated Hosmer-Lemeshow test raises more false
alarms than the monitor."""

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def _rows(lines):
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


@pytest.fixture(scope="module")
def bench_shift():
    return _load("bench_shift")


def test_covariate_study_at_small_size(bench_shift):
    rows = _rows(bench_shift.covariate_table(2, np.random.default_rng(0), 1_000))
    ece = {(r[0], r[1]): float(r[2]) for r in rows}
    for cal in ("Venn-Abers", "isotonic"):
        assert ece[(cal, "weighted, clip 0.99")] < 0.5 * ece[(cal, "unweighted")]


def test_monitor_study_at_small_size():
    bench = _load("bench_monitor")
    rng = np.random.default_rng(0)
    fa = bench.false_alarms(30, rng)
    assert fa["monitor"] <= fa["HL every 100"]
    res = bench.detection("abrupt", 0.3, 10, rng)
    before, after, delay = res["monitor"]
    assert after >= 0.8 and 0 < delay < 1_000


def test_hosmer_lemeshow_is_uniform_under_calibration():
    """The baseline itself is a valid fixed-sample test: p-values about uniform."""
    bench = _load("bench_monitor")
    rng = np.random.default_rng(1)
    pvals = []
    for _ in range(200):
        p = rng.uniform(0.05, 0.75, 500)
        pvals.append(bench.hosmer_lemeshow_p(p, (rng.random(500) < p).astype(int)))
    assert 0.01 <= np.mean(np.array(pvals) < 0.05) <= 0.12
    assert re.match(r"\d{4}-", bench.machine_note())
