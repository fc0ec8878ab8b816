"""multicalibration_error: agreement with a loop over segments, properties, bad input."""

import numpy as np
import pandas as pd
import pytest

from tests._reference import multicalibration_loop as ref
from venncal.metrics import ecce_pvalue, multicalibration_error


def _data(seed, n=400):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": rng.integers(0, 2, n),
            "level": rng.choice([1.5, 2.5, 3.5], n),
        }
    )
    p = rng.random(n)  # no ties
    shift = 0.15 * (frame["colour"] == "red") - 0.1 * (frame["size"] == 1)
    y = (rng.random(n) < np.clip(p + shift, 0, 1)).astype(int)
    return frame, y, p, rng.random(n) + 0.2


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("tied", [False, True])
def test_agrees_with_a_loop_over_segments(seed, weighted, tied):
    frame, y, p, w = _data(seed)
    w = w if weighted else None
    if tied:  # probabilities on a grid of 0.05: runs of tied rows
        p = np.clip(np.round(p * 20) / 20, 0.05, 0.95)
    res = multicalibration_error(
        y, p, segments=frame, categorical=["colour", "size"], numerical=["level"], sample_weight=w
    )
    cols = {c: frame[c].tolist() for c in ["colour", "size", "level"]}
    mce, mce_sigma, table = ref.multicalibration_error(y.tolist(), p.tolist(), cols, w)
    assert res.n_segments == len(table)
    np.testing.assert_allclose([res.mce, res.mce_sigma], [mce, mce_sigma], rtol=1e-12)
    sigmas = sorted(e / s for e, s in table.values())
    np.testing.assert_allclose(np.sort(res.segments["ecce_sigma"]), sigmas, rtol=1e-12)
    assert res.global_ecce == pytest.approx(table[()][0], rel=1e-12)


def test_report_worst_first_and_its_columns():
    frame, y, p, _ = _data(3)
    res = multicalibration_error(y, p, segments=frame)  # dtypes choose the kind of each column
    rep = res.segments
    assert rep["ecce_sigma"].is_monotonic_decreasing
    assert rep["ecce_sigma"].iloc[0] == res.mce_sigma
    assert res.p_value == rep["p_value"].min()
    assert (rep.loc[rep["segment"] == "all", "n"] == len(y)).all()
    one = rep[rep["segment"] == "colour=red"].iloc[0]
    red = frame["colour"] == "red"
    assert one["n"] == red.sum()
    assert one["z"] == pytest.approx(
        (y[red] - p[red]).sum() / np.sqrt((p[red] * (1 - p[red])).sum())
    )


def test_invariant_to_row_order_and_weight_scale():
    frame, y, p, w = _data(4)
    a = multicalibration_error(y, p, segments=frame, sample_weight=w)
    perm = np.random.default_rng(0).permutation(len(y))
    b = multicalibration_error(
        y[perm], p[perm], segments=frame.iloc[perm], sample_weight=1e6 * w[perm]
    )
    assert b.mce == pytest.approx(a.mce, rel=1e-10)
    assert b.mce_sigma == pytest.approx(a.mce_sigma, rel=1e-10)


def test_numerical_columns_cut_at_quantiles_and_rare_values_merged():
    rng = np.random.default_rng(5)
    n = 900
    frame = pd.DataFrame({"x": rng.normal(size=n), "c": rng.choice(list("abcde"), n)})
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    res = multicalibration_error(y, p, segments=frame, max_depth=1, max_values=3)
    rep = res.segments.set_index("segment")
    bins = [s for s in rep.index if s.startswith("x in")]
    assert len(bins) == 3 and all(rep.loc[b, "n"] == 300 for b in bins)
    cats = [s for s in rep.index if s.startswith("c=")]
    assert len(cats) == 3 and "c=other" in cats  # two most frequent values and the rest
    assert rep.loc[cats, "n"].sum() == n


def test_miscalibrated_segment_is_found_and_calibrated_data_pass():
    rng = np.random.default_rng(6)
    n = 6000
    g = rng.integers(0, 3, n)
    p = rng.uniform(0.1, 0.9, n)
    truth = np.where(g == 2, np.clip(p + 0.1, 0, 1), p)
    y = (rng.random(n) < truth).astype(int)
    bad = multicalibration_error(y, p, segments={"g": g.astype(str)})
    assert bad.segments["segment"].iloc[0] == "g=2" and bad.mce_sigma > 5
    good = multicalibration_error(y, truth, segments={"g": g.astype(str)})
    assert good.mce_sigma < 4 and good.p_value > 1e-3


def test_pvalue_is_that_of_the_brownian_range():
    # the mean range of a standard Brownian motion on [0, 1] is 2 sqrt(2 / pi) (Feller 1951):
    # the integral of P(R > x) over x > 0
    x = np.linspace(0, 12, 24_001)
    mean = np.trapezoid(ecce_pvalue(x), x)
    assert mean == pytest.approx(2 * np.sqrt(2 / np.pi), rel=1e-6)
    # and the tail of ranges of long random walks (discrete steps: a loose match)
    rng = np.random.default_rng(7)
    walk = np.cumsum(rng.normal(size=(2000, 1000)), axis=1) / np.sqrt(1000)
    spread = np.maximum(walk.max(1), 0) - np.minimum(walk.min(1), 0)
    for q in (1.5, 2.0, 2.5):
        assert ecce_pvalue(q) == pytest.approx((spread >= q).mean(), abs=0.05)
    assert ecce_pvalue(0.0) == 1.0 and ecce_pvalue(50.0) == 0.0


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"segments": {"g": [0, 1]}}, ValueError, "2 rows for 4 predictions"),
        (
            {"segments": {"g": [0, 1, 0, 1]}, "categorical": ["h"]},
            ValueError,
            r"'categorical' names columns \['h'\]",
        ),
        ({"segments": [0, 1, 0, 1]}, TypeError, "must be a pandas DataFrame"),
        ({"segments": {"g": ["a"] * 4}, "numerical": ["g"]}, TypeError, "not numeric"),
        ({"segments": {"g": [0, 1, 0, 1]}, "max_values": 1}, ValueError, "max_values"),
        (
            {"segments": {"g": [0, 1, 0, 1]}, "categorical": ["g"], "numerical": ["g"]},
            ValueError,
            "both categorical and numerical",
        ),
        ({"segments": {"g": [0, 1, 0, 1]}}, ValueError, "fewer than min_samples"),
    ],
)
def test_bad_input_one_line(kwargs, error, match):
    with pytest.raises(error, match=match) as info:
        multicalibration_error([0, 1, 0, 1], [0.2, 0.6, 0.3, 0.9], **kwargs)
    assert "\n" not in str(info.value)


def test_nan_probabilities_refused():
    with pytest.raises(ValueError, match="y_proba"):
        multicalibration_error([0, 1], [0.2, np.nan], segments={"g": [0, 1]}, min_samples=1)


def test_rows_in_any_order_give_the_same_result_on_tied_probabilities():
    rng = np.random.default_rng(3)
    n = 3000
    p = np.round(rng.random(n), 1)  # eleven values: every row tied with hundreds
    y = (rng.random(n) < p).astype(int)
    seg = pd.DataFrame({"c": rng.choice(["a", "b", "c", "d", "e"], n), "x": rng.normal(size=n)})
    first = multicalibration_error(y, p, segments=seg, max_values=3)
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(n)
        again = multicalibration_error(y[perm], p[perm], segments=seg.iloc[perm])
        # equal up to the order of the sums (walking tied rows one by one moves them by 1e-3)
        np.testing.assert_allclose(
            [again.mce, again.mce_sigma], [first.mce, first.mce_sigma], rtol=1e-12
        )
        pd.testing.assert_frame_equal(
            again.segments.set_index("segment").sort_index(),
            first.segments.set_index("segment").sort_index(),
            rtol=1e-10,
        )


def _tied_design(seed, n=2000):
    rng = np.random.default_rng(seed)
    seg = pd.DataFrame(
        {"c": rng.choice(list("abcd"), n), "d": rng.choice(list("xyz"), n), "x": rng.normal(size=n)}
    )
    p = np.clip(np.round(rng.random(n), 1 + seed % 3), 0.01, 0.99)
    y = (rng.random(n) < np.clip(p + 0.1 * (seg["c"] == "a"), 0, 1)).astype(int)
    return y, p, seg


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ties_rows_is_the_walk_row_by_row_and_group_reads_it_at_the_ends_of_ties(seed):
    y, p, seg = _tied_design(seed)
    rows = multicalibration_error(y, p, segments=seg, ties="rows")
    group = multicalibration_error(y, p, segments=seg)
    # the running sum read after every row reaches at least the extremes read at the ends of
    # the runs of ties: the row-by-row ECCE is never smaller, segment by segment
    a = rows.segments.set_index("segment")["ecce"].sort_index()
    b = group.segments.set_index("segment")["ecce"].sort_index()
    assert (a.to_numpy() >= b.to_numpy() - 1e-15).all() and (a > b).any()
    # untied probabilities: the two are the same walk
    q = p + np.random.default_rng(seed).uniform(0, 1e-6, p.shape[0])
    np.testing.assert_allclose(
        multicalibration_error(y, q, segments=seg, ties="rows").mce,
        multicalibration_error(y, q, segments=seg).mce,
        rtol=1e-12,
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_mcgrad_on_tied_probabilities_with_ties_rows(seed):
    metrics = pytest.importorskip("mcgrad.metrics")
    y, p, seg = _tied_design(seed)
    theirs = metrics.MulticalibrationError(
        seg.assign(_y=y, _p=p),
        "_y",
        "_p",
        categorical_segment_columns=["c", "d"],
        numerical_segment_columns=["x"],
        precision_dtype="float64",
    )
    ours = multicalibration_error(y, p, segments=seg, ties="rows")
    assert abs(theirs.mce - ours.mce) < 1e-9 and abs(theirs.mce_sigma - ours.mce_sigma) < 1e-9
