"""The checks of the Johansson et al. study hold on good results and fail on bad ones."""

import numpy as np
import pandas as pd
import pytest

from venncal.experiments.studies.johansson_2018 import (
    accuracy_checks,
    containment_sides,
    interval_checks,
    simulate_valid_containment,
)


def _per_setup(shift=0.0, width=0.02, n_ds=20, seed=0):
    """Intervals of a valid predictor's kind around each accuracy, moved by ``shift``."""
    rng = np.random.default_rng(seed)
    acc = pd.Series(rng.uniform(0.7, 0.9, n_ds), index=[f"d{i}" for i in range(n_ds)])
    lower = acc - 0.5 * width + shift
    return pd.DataFrame(
        {
            "lower": lower,
            "upper": lower + width,
            "accuracy": acc,
            "interval_size": width,
            "n_objects": 400,
        }
    )


def _check(checks, setup):
    (key,) = [k for k in checks if k.startswith(f"{setup}:")]
    return key, checks[key]


def test_containment_holds_for_intervals_around_the_accuracy():
    checks, table = interval_checks(
        {"VP-oob": _per_setup(), "VAP-cal": _per_setup(width=0.08)},
        n_folds=5,
        n_repeats=2,
        n_sim=50,
    )
    assert _check(checks, "VP-oob")[1] and _check(checks, "VAP-cal")[1]
    assert table.loc["VP-oob", "inside"] == "100%"
    assert checks[next(k for k in checks if k.startswith("VP-oob gives"))]


@pytest.mark.parametrize("shift, side", [(0.05, "below"), (-0.05, "above")])
def test_containment_fails_for_biased_intervals_and_names_the_side(shift, side):
    checks, table = interval_checks(
        {"VP-cal": _per_setup(shift=shift)}, n_folds=5, n_repeats=2, n_sim=50
    )
    key, ok = _check(checks, "VP-cal")
    assert not ok
    assert f"misses {side}: d0" in key
    assert table.loc["VP-cal", side] == 20 and table.loc["VP-cal", "inside"] == "0%"


def test_tightest_interval_check_fails_when_another_setup_is_tighter():
    checks, _ = interval_checks(
        {"VP-oob": _per_setup(width=0.05), "VP-cal": _per_setup(width=0.01)},
        n_folds=5,
        n_repeats=2,
        n_sim=20,
    )
    assert not checks[next(k for k in checks if k.startswith("VP-oob gives"))]


def test_containment_sides():
    lo, hi = pd.Series([0.5, 0.5, 0.5, 0.5]), pd.Series([0.6, 0.6, 0.6, 0.6])
    acc = pd.Series([0.5, 0.6, 0.4999, 0.6001])
    assert containment_sides(lo, hi, acc).tolist() == ["inside", "inside", "below", "above"]


def test_valid_simulation_contains_as_often_as_a_direct_computation():
    # shared draws, one fold's complement as calibration set of m objects: the containment
    # rate of a single dataset agrees with a direct loop over the same model
    n, acc, m, folds, repeats = 120, 0.75, 39, 4, 3
    below, above = simulate_valid_containment(
        [n], [acc], [1 / (m + 1)], n_folds=folds, n_repeats=repeats, shared=True, n_sim=2000
    )
    rng = np.random.default_rng(1)
    inside = []
    for _ in range(2000):
        correct = rng.random(n) < acc
        lo = hi = 0.0
        for _ in range(repeats):
            order = rng.permutation(n)
            for fold in np.array_split(order, folds):
                rest = np.setdiff1d(order, fold)
                k = correct[rng.choice(rest, size=m, replace=False)].sum()
                lo += len(fold) * k / (m + 1) / n / repeats
                hi += len(fold) * (k + 1) / (m + 1) / n / repeats
        inside.append(lo <= correct.mean() <= hi)
    assert 1 - (below | above).mean() == pytest.approx(np.mean(inside), abs=0.04)
    # a valid predictor's misses are mostly above: the margin above is (1 - acc) / (m + 1)
    assert above.mean() > below.mean()


def test_independent_draws_contain_less_often_than_shared_ones():
    args = dict(n_folds=10, n_repeats=10, n_sim=300)
    b1, a1 = simulate_valid_containment([400], [0.8], [0.007], shared=True, **args)
    b2, a2 = simulate_valid_containment([400], [0.8], [0.007], shared=False, **args)
    assert (b2 | a2).mean() > (b1 | a1).mean()


def _acc(**setups):
    return pd.DataFrame(setups, index=["d0", "d1", "d2"])


GOOD_ACC = dict(
    VP_cal=[0.80, 0.70, 0.90], VP_oob=[0.82, 0.72, 0.92],
    Iso_cal=[0.79, 0.69, 0.89], Iso_oob=[0.81, 0.71, 0.91],
)  # fmt: skip


def _good():
    return _acc(**{k.replace("_", "-"): v for k, v in GOOD_ACC.items()})


def _key(checks, start):
    (key,) = [k for k in checks if k.startswith(start)]
    return key


def test_accuracy_checks_hold_and_state_their_margin():
    checks = accuracy_checks(_good())
    assert len(checks) == 3 and all(checks.values())
    key = _key(checks, "VP-oob is the most accurate")
    assert "against Iso-oob: margin +0.0100" in key and "within noise" not in key


def test_accuracy_checks_fail_when_calibration_sets_win():
    bad = _good()
    bad["Iso-cal"] = [0.815, 0.715, 0.915]  # more accurate than Iso-oob
    checks = accuracy_checks(bad)
    assert not checks[_key(checks, "each setup is more accurate calibrated out-of-bag")]
    assert not checks[_key(checks, "every out-of-bag setup")]


def test_vp_oob_not_most_accurate_fails_and_a_tiny_margin_is_called_noise():
    bad = _good()
    bad["Iso-oob"] = [0.83, 0.71, 0.925]
    checks = accuracy_checks(bad)
    key = _key(checks, "VP-oob is the most accurate")
    assert not checks[key] and "best: Iso-oob" in key and "within noise" in key
