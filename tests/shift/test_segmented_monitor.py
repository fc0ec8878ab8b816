"""SegmentedCalibrationMonitor: one test martingale per segment, one guarantee for all.

(i) validity by simulation (calibrated streams with several segment columns and levels that
appear late: the family-wise false-alarm rate stays within alpha); (ii) power (a stream
miscalibrated in one level alone alarms on that level, and sooner than a global monitor);
(iii) agreement with a naive implementation (a CalibrationMonitor per segment, fed row by row
with that segment's rows alone); (iv) bad input refused in one line; (v) model files and
batch-size invariance.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import venncal
from tests._reference.segmented_monitor_naive import naive_segment_monitor
from venncal.core._segment_weights import bin_labels, segment_log_weight
from venncal.shift import CalibrationMonitor, SegmentedCalibrationMonitor


def calibrated_stream(rng, n=300):
    """Calibrated probabilities with three segment columns: five regions, two devices and a
    store id whose pool grows over time (new stores keep appearing late in the stream)."""
    region = rng.choice(list("abcde"), n)
    device = rng.choice(["mobile", "desktop"], n, p=[0.7, 0.3])
    store = (rng.random(n) * (1 + np.arange(n) / 10)).astype(int)
    p = rng.uniform(0.02, 0.98, n)
    y = rng.random(n) < p
    return p, y, {"region": region, "device": device, "store": store}


def one_level_off(seed, n=4000, shift=1.0):
    """Eight regions and three devices; the labels of region r3 alone come from
    ``logit q = logit p + shift``, every other region is calibrated."""
    rng = np.random.default_rng(seed)
    region = rng.choice([f"r{i}" for i in range(8)], n)
    device = rng.choice(["mobile", "desktop", "tablet"], n)
    p = rng.uniform(0.05, 0.6, n)
    q = np.where(region == "r3", expit(logit(p) + shift), p)
    y = rng.random(n) < q
    return p, y, {"region": region, "device": device}


def alarms(monitor):
    return {
        (c, level): row
        for c in monitor.columns_
        for level, row in zip(monitor.levels_[c], monitor.alarm_rows_[c])
        if row is not None
    }


# ------------------------------------------------------------------------- (i) validity


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_family_wise_false_alarms_stay_within_alpha(alpha):
    """200 calibrated streams of 300 rows, three segment columns, about 28 stores per stream
    (most first seen after row 100): measured 0.0% false alarms at alpha = 0.05 and 5.5% at
    alpha = 0.2 (and 12.5% at 0.5), so within alpha + 2 standard errors."""
    rng = np.random.default_rng(1)
    n_streams = 200
    fired, levels = 0, []
    for _ in range(n_streams):
        p, y, seg = calibrated_stream(rng)
        monitor = SegmentedCalibrationMonitor(alpha=alpha).update(p, y, segments=seg)
        fired += monitor.alarm_
        levels.append(sum(len(v) for v in monitor.levels_.values()))
    rate = fired / n_streams
    assert rate <= alpha + 2 * math.sqrt(alpha * (1 - alpha) / n_streams), rate
    assert np.mean(levels) > 30  # many segments were watched at once


def test_weights_sum_to_at_most_one():
    C = 3
    total = sum(math.exp(segment_log_weight(C, k)) for _ in range(C) for k in range(1, 100_000))
    assert 0.9999 < total <= 1.0


# ---------------------------------------------------------------------------- (ii) power


def test_one_miscalibrated_level_is_named_and_found_before_a_global_monitor():
    """Region r3 (an eighth of the rows) has labels from logit q = logit p + 1. Over 10
    streams of 4,000 rows (measured): r3 alarmed in every stream, by row 1,909 at the latest
    (median row 750); no other region alarmed; the global CalibrationMonitor on the same rows
    alarmed later or never in 9 of 10 streams (median row 2,724; never in 3 of 10)."""
    north, overall = [], []
    for seed in range(10):
        p, y, seg = one_level_off(seed)
        monitor = SegmentedCalibrationMonitor(alpha=0.05).update(p, y, segments=seg)
        found = alarms(monitor)
        assert ("region", "r3") in found, seed
        assert found[("region", "r3")] <= 2000, (seed, found)
        # the calibrated regions stay quiet; a device alarms (if at all) later than r3: its
        # rows hold r3's, diluted
        assert all(c != "region" or level == "r3" for c, level in found), (seed, found)
        assert monitor.alarmed_segments_[0] == ("region", "r3"), (seed, found)
        assert monitor.alarm_index_ == found[("region", "r3")]
        report = monitor.report()
        assert tuple(report.loc[0, ["column", "level"]]) == ("region", "r3")
        north.append(found[("region", "r3")])
        glob = CalibrationMonitor(alpha=0.05).update(p, y)
        overall.append(glob.alarm_index_ if glob.alarm_ else math.inf)
    later = sum(g > n for g, n in zip(overall, north))
    assert later >= 8, (north, overall)
    assert np.median(north) < 1000 < np.median(overall), (north, overall)


# ---------------------------------------------------------------- (iii) a naive reference


def _agreement_stream(seed, n=160):
    rng = np.random.default_rng(seed)
    region = rng.choice(["n", "s", "e"], n).astype(object)
    region[rng.random(n) < 0.1] = None
    late = np.where(np.arange(n) < n // 2, "old", rng.choice(["new1", "new2"], n))
    age = rng.uniform(10, 80, n)
    age[rng.random(n) < 0.1] = np.nan
    p = rng.uniform(0.05, 0.95, n)
    p[:3] = (0.0, 1.0, 0.5)
    q = np.where(region == "n", expit(logit(np.clip(p, 1e-3, 1 - 1e-3)) + 2.0), p)
    y = (rng.random(n) < q).astype(int)
    y[:2] = (0, 1)  # labels the probabilities at 0 and 1 allow
    return p, y, {"region": region, "late": late, "age": age}


@pytest.mark.parametrize("seed", [0, 1])
def test_each_segment_is_a_calibration_monitor_of_its_own_rows(seed):
    p, y, seg = _agreement_stream(seed)
    bins = {"age": [18, 30, 50]}
    want = naive_segment_monitor(p, y, seg, alpha=0.2, bins=bins, shifts=(-1.0, 0.0, 1.0))
    monitor = SegmentedCalibrationMonitor(alpha=0.2, bins=bins, shifts=(-1.0, 0.0, 1.0))
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, len(p)), 6, replace=False))
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(p)]):
        monitor.update(p[lo:hi], y[lo:hi], segments=pd.DataFrame(seg).iloc[lo:hi])
    labels = bin_labels(np.array(bins["age"], dtype=float))
    got = {}
    for row in monitor.report().itertuples():
        level = row.level
        if row.column == "age" and level != "(missing)":
            level = labels.index(level)
        alarm = None if pd.isna(row.alarm_row) else int(row.alarm_row)
        got[(row.column, level)] = (row.log_martingale, row.threshold, alarm, row.n_rows, row.rank)
    assert set(got) == set(want)
    for key, (log_m, threshold, alarm, count, rank) in want.items():
        g = got[key]
        assert abs(g[0] - log_m) <= 1e-12 * max(1.0, abs(log_m)), key
        assert abs(g[1] - threshold) <= 1e-12 * threshold, key
        assert g[2:] == (alarm, count, rank), (key, g, want[key])
    assert any(a is not None for _, _, a, _, _ in want.values())  # some segment alarmed
    assert monitor.log_martingale("region", "(missing)") == got[("region", "(missing)")][0]


# -------------------------------------------------------------------------- (iv) refusals


def _one_line(excinfo, *fragments):
    message = str(excinfo.value)
    assert "\n" not in message.strip(), message
    for fragment in fragments:
        assert fragment in message, message


def test_bad_input_is_refused_in_one_line_and_changes_nothing():
    monitor = SegmentedCalibrationMonitor(["region", "age"], bins={"age": [30]})
    seg = {"region": ["a", "b", "a"], "age": [20, 40, 35]}
    monitor.update([0.2, 0.5, 0.7], [0, 1, 1], segments=seg)
    before = monitor.report()
    cases = [
        (([0.2, 0.5], [0, 1, 1], seg), "Inconsistent lengths"),
        (([0.2, 0.5, 0.3], [0, 1, 1], {"region": ["a"], "age": [1, 2, 3]}), "segments['region']"),
        (([0.2, np.nan, 0.3], [0, 1, 1], seg), "'p'"),
        (([0.2, 0.5, 0.3], [0, 2, 1], seg), "'y'"),
        (([0.2, 0.5, 0.3], [0, 1, 1], {"region": ["a", "b", "c"]}), "no column 'age'"),
        (([0.2, 0.5, 0.3], [0, 1, 1], {"region": ["a"] * 3, "age": ["x", 2, 3]}), "numbers"),
        (([0.2, 0.5, 0.3], [0, 1, 1], [["a", 1]] * 3), "DataFrame or a dict"),
    ]
    for (p, y, s), fragment in cases:
        with pytest.raises((ValueError, TypeError)) as excinfo:
            monitor.update(p, y, segments=s)
        _one_line(excinfo, fragment)
    assert monitor.report().equals(before) and monitor.n_seen_ == 3


def test_unfitted_use_and_bad_parameters_are_refused_in_one_line():
    monitor = SegmentedCalibrationMonitor()
    for call in (monitor.report, lambda: monitor.alarm_, lambda: monitor.alarmed_segments_):
        with pytest.raises(NotFittedError) as excinfo:
            call()
        _one_line(excinfo, "update(p, y, segments=...)")
    bad = [
        ({"alpha": 1.5}, "alpha"),
        ({"columns": "region"}, "'columns'"),
        ({"columns": ["a", "a"]}, "'columns'"),
        ({"bins": {"age": [3, 2]}}, "strictly increasing"),
        ({"bins": [18, 30]}, "'bins'"),
        ({"columns": ["region"], "bins": {"age": [1]}}, "not one of the columns"),
    ]
    for params, fragment in bad:
        with pytest.raises(ValueError) as excinfo:
            SegmentedCalibrationMonitor(**params).update([0.5], [1], segments={"region": ["a"]})
        _one_line(excinfo, fragment)


def test_float_segments_need_bins_and_missing_values_are_a_level():
    with pytest.raises(ValueError) as excinfo:
        SegmentedCalibrationMonitor().update([0.5, 0.5], [0, 1], segments={"age": [31.5, 40.0]})
    _one_line(excinfo, "bins={'age': [18, 30, 50]}")
    seg = pd.DataFrame({"age": [31.5, np.nan, 17.0, 30.0], "g": ["x", None, "y", "x"]})
    monitor = SegmentedCalibrationMonitor(bins={"age": [18, 30]})
    monitor.update([0.5] * 4, [0, 1, 1, 0], segments=seg)
    assert monitor.levels_ == {
        "age": ["[30, inf)", "(missing)", "(-inf, 18)"],
        "g": ["x", "(missing)", "y"],
    }


def test_too_many_levels_and_changed_parameters_are_refused(monkeypatch):
    import venncal.shift._segmented_monitor as module

    monkeypatch.setattr(module, "MAX_LEVELS", 3)
    with pytest.raises(ValueError) as excinfo:
        SegmentedCalibrationMonitor().update([0.5] * 4, [0, 1, 1, 0], segments={"id": range(4)})
    _one_line(excinfo, "more than 3 levels")
    monitor = SegmentedCalibrationMonitor().update([0.5], [1], segments={"g": ["a"]})
    monitor.set_params(alpha=0.01)
    with pytest.raises(ValueError) as excinfo:
        monitor.update([0.5], [1], segments={"g": ["a"]})
    _one_line(excinfo, "changed after it started")


# ------------------------------------------------------- (v) model files and batch sizes


def _same(a, b):
    assert a.columns_ == b.columns_ and a.levels_ == b.levels_ and a.n_seen_ == b.n_seen_
    assert a.alarm_rows_ == b.alarm_rows_
    for c in a.columns_:
        for s, t in zip(a.states_[c], b.states_[c]):
            np.testing.assert_array_equal(s.log_wealth, t.log_wealth)
            np.testing.assert_array_equal(s.log_start, t.log_start)
            assert (s.n_seen, s.alarm_index, s.log_max) == (t.n_seen, t.alarm_index, t.log_max)
    pd.testing.assert_frame_equal(a.report(), b.report())


def test_one_batch_or_seven_give_the_same_numbers():
    p, y, seg = one_level_off(3, n=1500)
    frame = pd.DataFrame(seg)
    one = SegmentedCalibrationMonitor(alpha=0.05).update(p, y, segments=frame)
    seven = SegmentedCalibrationMonitor(alpha=0.05)
    for rows in np.array_split(np.arange(1500), 7):
        seven.update(p[rows], y[rows], segments=frame.iloc[rows])
    _same(one, seven)
    assert one.alarm_  # the stream is miscalibrated in r3
    empty = seven.update([], [], segments={"region": [], "device": []})
    _same(one, empty)


def test_model_file_round_trip_goes_on_where_it_stopped(tmp_path):
    p, y, seg = one_level_off(4, n=1200)
    frame = pd.DataFrame(seg)
    params = {"alpha": 0.1, "bins": None, "n_bins": 3}
    whole = SegmentedCalibrationMonitor(["device", "region"], **params)
    whole.update(p, y, segments=frame)
    half = SegmentedCalibrationMonitor(["device", "region"], **params)
    half.update(p[:600], y[:600], segments=frame.iloc[:600])
    back = venncal.load(venncal.save(half, tmp_path / "monitor.json"))
    assert type(back) is SegmentedCalibrationMonitor
    _same(half, back)
    back.update(p[600:], y[600:], segments=frame.iloc[600:])
    _same(whole, back)
    fresh = clone(back)
    assert not hasattr(fresh, "states_") and fresh.get_params() == back.get_params()


def test_a_hand_edited_model_file_is_refused(tmp_path):
    import json

    from venncal.persistence import ModelFileError, checksum

    p, y, seg = one_level_off(5, n=300)
    path = venncal.save(
        SegmentedCalibrationMonitor().update(p, y, segments=seg), tmp_path / "m.json"
    )
    doc = json.loads(path.read_text())
    doc["fitted"]["n_seen_"] = 299
    content = {k: v for k, v in doc.items() if k not in ("sha256", "bytes_sha256")}
    content["sha256"] = checksum(content)
    path.write_text(json.dumps(content))
    with pytest.raises(ModelFileError) as excinfo:
        venncal.load(path)
    _one_line(excinfo, "must sum to n_seen_")
