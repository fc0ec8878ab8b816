"""Hostile numbers on multicalibration_error and ecce_pvalue: probabilities of exactly 0 and 1,
constant scores, extreme weights and awkward segment columns give the loop reference's numbers,
never a silent NaN; bad input is refused in one line."""

import math

import numpy as np
import pandas as pd
import pytest

from tests._reference.multicalibration_loop import multicalibration_error as mce_loop
from venncal.metrics import ecce_pvalue, multicalibration_error


def _data(scores, n=240, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    g = rng.choice(["a", "b", "c"], n)
    if scores == "zero-one-wrong":  # certain predictions, some wrong
        p = np.where(rng.random(n) < 0.9, y, 1 - y).astype(float)
    elif scores == "zero-one-right":
        p = y.astype(float)
    elif scores == "zero-one-and-middle":
        p = np.where(rng.random(n) < 0.5, y, 0.5).astype(float)
    elif scores == "constant":
        p = np.full(n, 0.3)
    elif scores == "wrong-in-one-segment":  # errors only where g == "a", all certain there
        p = y.astype(float)
        a = np.flatnonzero(g == "a")[:5]
        p[a] = 1.0 - y[a]
        p[g == "b"] = 0.5
    return y, p, g


@pytest.mark.parametrize(
    "scores",
    [
        "uniform",
        "constant",
        "zero-one-right",
        "zero-one-wrong",
        "zero-one-and-middle",
        "wrong-in-one-segment",
    ],
)
def test_scores_at_zero_and_one_follow_the_loops_without_nan(scores):
    y, p, g = _data(scores)
    res = multicalibration_error(y, p, segments={"g": g}, max_values=4)
    _, sigmas, table = mce_loop(list(y), list(p), {"g": list(g)})
    assert res.mce_sigma == pytest.approx(sigmas, rel=1e-9, abs=1e-12)
    assert not math.isnan(res.mce) and not math.isnan(res.p_value)
    if math.isinf(sigmas):
        assert res.mce == math.inf and res.p_value == 0.0
    else:
        assert res.mce == pytest.approx(sigmas * table[()][1], rel=1e-9, abs=1e-12)
    frame = res.segments
    assert not frame[["ecce", "ecce_sigma", "p_value", "z"]].isna().any().any()
    by_name = dict(zip(frame["segment"], frame["ecce"]))
    for combo, (ecce, _) in table.items():
        name = "all" if not combo else f"g={combo[0][1]}"
        assert by_name[name] == pytest.approx(ecce, rel=1e-9, abs=1e-12)


def test_standardised_error_of_certain_segments_is_signed():
    """z of a segment whose probabilities are all 0 or 1: 0 without error, +-inf with one."""
    y = np.array([1, 0] * 10 + [1] * 10 + [0] * 10)
    p = np.r_[np.array([1.0, 0.0] * 10), np.zeros(10), np.ones(10)]
    g = np.repeat(["right", "under", "over"], [20, 10, 10])
    frame = multicalibration_error(y, p, segments={"g": g}).segments.set_index("segment")
    assert frame.loc["g=right", "z"] == 0.0
    assert frame.loc["g=under", "z"] == math.inf
    assert frame.loc["g=over", "z"] == -math.inf


@pytest.mark.parametrize("weight", [1e-300, 5e-324, 1e300, 1.7e308])
def test_extreme_weights_are_ratios(weight):
    """Scaling every weight leaves the metric as it is: the loops without weights."""
    y, p, g = _data("uniform")
    res = multicalibration_error(y, p, segments={"g": g}, sample_weight=np.full(y.shape, weight))
    mce, sigmas, _ = mce_loop(list(y), list(p), {"g": list(g)})
    assert res.mce_sigma == pytest.approx(sigmas, rel=1e-9)
    assert res.mce == pytest.approx(mce, rel=1e-9)


@pytest.mark.parametrize(
    "column",
    ["one-level", "nan", "object-mixed", "bool", "many-levels", "huge-numbers", "subnormals"],
)
def test_awkward_segment_columns_give_finite_results(column):
    y, p, g = _data("uniform", n=400)
    rng = np.random.default_rng(1)
    n = y.shape[0]
    values = {
        "one-level": np.full(n, "x", dtype=object),
        "nan": np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n)),
        "object-mixed": np.array([1, "x", 2.5, None] * (n // 4), dtype=object),
        "bool": rng.random(n) < 0.5,
        "many-levels": np.arange(n),
        "huge-numbers": rng.choice([1e308, -1e308, 0.0], n),
        "subnormals": rng.choice([5e-324, 1e-320, 0.0], n),
    }[column]
    res = multicalibration_error(y, p, segments=pd.DataFrame({"c": values}))
    assert np.isfinite([res.mce, res.mce_sigma, res.p_value, res.mde, res.global_ecce]).all()
    assert not res.segments[["ecce", "ecce_sigma", "p_value", "z"]].isna().any().any()


@pytest.mark.parametrize(
    "sigma, want",
    [(0.0, 1.0), (5e-324, 1.0), (1e-300, 1.0), (1e308, 0.0), (np.inf, 0.0)],
)
def test_ecce_pvalue_at_the_ends(sigma, want):
    assert ecce_pvalue(sigma) == pytest.approx(want, abs=1e-15)


@pytest.mark.parametrize("sigma", [np.nan, -1.0, -5e-324, [0.5, np.nan]])
def test_ecce_pvalue_refuses_nan_and_negatives(sigma):
    with pytest.raises(ValueError, match="'sigma'") as err:
        ecce_pvalue(sigma)
    assert "\n" not in str(err.value)
