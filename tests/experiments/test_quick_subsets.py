"""Quick mode never reverses the full verdict: 400 random three-draw subsets of each committed
full run, every check recomputed on each, and no quick verdict is the opposite of the full one.

The subsets are drawn with another seed than the ones that calibrated quick mode's multipliers
(``venncal.experiments.quick_margins``), so this is a fresh sample of what a quick run can see.
``VENNCAL_QUICK_SUBSETS`` sets how many (400 by default; CI runs the first 30 of the same
sequence, since the 400 take about four minutes of one core, Johansson et al.'s most).
"""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from venncal.experiments.claims import Check, full_state, quick_state
from venncal.experiments.quick_margins import (
    DRAW_COLUMNS,
    KIND_COLUMNS,
    calibrate,
    quick_verdicts_against_full,
    results_checks,
    subsets,
    with_quick_margins,
)

RESULTS = Path(__file__).resolve().parents[2] / "results"
N_SUBSETS = int(os.environ.get("VENNCAL_QUICK_SUBSETS", "400"))


def _read(study):
    path = RESULTS / f"{study}-full" / "results.csv"
    if not path.is_file():
        pytest.skip(f"no committed results for {study}")
    return pd.read_csv(path)


@pytest.mark.slow
@pytest.mark.parametrize("study", list(DRAW_COLUMNS))
def test_no_quick_verdict_reverses_the_full_one_over_400_subsets(study):
    raw = _read(study)
    reversed_ = quick_verdicts_against_full(
        lambda r: results_checks(study, r),
        raw,
        study,
        n_subsets=N_SUBSETS,
        seed=0,
        kind_column=KIND_COLUMNS.get(study),
    )
    assert not reversed_, reversed_


def test_without_the_calibration_quick_mode_would_reverse_some_full_verdicts():
    # the reason for the multipliers: Student's t alone lets three draws contradict what the
    # full run confirms (here the XOR design's check that LR's score does not rank the classes,
    # met on 20 draws, off by many standard errors on some subsets of 3)
    raw = _read("naeini-2014")
    raw = raw[raw["panel"].isin(["XOR/LR"])]
    key = "[design] LR's score does not rank the classes on XOR"
    full = next(v for k, v in results_checks("naeini-2014", raw).items() if k.startswith(key))
    assert full_state(full) is True
    for part in subsets(raw, "repeat", 400, seed=12345):  # the calibration's subsets
        checks = results_checks("naeini-2014", part)
        (k,) = [k for k in checks if k.startswith(key)]
        if quick_state(checks[k]) is False:
            break
    else:
        pytest.fail("no subset reverses the design check under Student's t alone")
    assert quick_state(with_quick_margins("naeini-2014", checks)[k]) is None


def test_calibration_raises_the_bar_past_every_opposite_subset():
    # a synthetic check confirmed on 40 draws, 10 of them a tight cluster on the other side:
    # subsets of three drawn from that cluster point the other way by many standard errors, and
    # the calibrated multiplier silences them
    rng = np.random.default_rng(7)
    x = np.r_[1.0 + 0.05 * rng.standard_normal(30), -0.2 + 0.01 * rng.standard_normal(10)]
    raw = pd.DataFrame({"repeat": range(40), "x": x})

    def checks_of(r):
        d = r["x"]
        n = len(d)
        se = float(d.std(ddof=1) / n**0.5)
        mean = float(d.mean())
        return {f"x is positive: mean {mean:.3f}": Check(mean > 2 * se, mean, se, n - 1)}

    full = full_state(next(iter(checks_of(raw).values())))
    assert full is True
    plain = [
        quick_state(c) for p in subsets(raw, "repeat", 500, seed=1) for c in checks_of(p).values()
    ]
    assert False in plain  # Student's t alone reverses the full verdict on some subsets
    k = calibrate(checks_of, raw, "repeat", n_subsets=500, seed=1)
    assert set(k) == {"x is positive: mean #"}
    for part in subsets(raw, "repeat", 500, seed=1):
        (c,) = with_quick_margins("s", checks_of(part), {"s": k}).values()
        assert quick_state(c) is not False
