"""CalibrationMonitor: the martingale from its definition, any batch sizes, false alarms at most
alpha on calibrated streams, detection after a change, model files."""

import numpy as np
import pytest
from sklearn.base import clone

import venncal
from tests._reference.monitor_naive import naive_log_martingale
from venncal import CalibrationMonitor
from venncal.core.betting import (
    advance,
    betting_alternatives,
    current_log_martingale,
    initial_state,
)


def small_stream(seed, n=40):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    p[rng.random(n) < 0.1] = rng.choice([0.0, 1.0, 0.5])  # exact ends, ties
    y = (rng.random(n) < np.clip(p + rng.choice([-0.2, 0.0, 0.3]), 0, 1)).astype(int)
    return p, y


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_bins", [1, 3])
def test_the_martingale_is_its_definition(seed, n_bins):
    p, y = small_stream(seed, n=25)
    monitor = CalibrationMonitor(shifts=(-1.0, 0.0, 0.5), slopes=(0.5, 1.0, 2.0), n_bins=n_bins)
    monitor.update(p, y)
    expected = np.array(naive_log_martingale(p, y, monitor.alternatives_.tolist()))
    finite = np.isfinite(expected)
    assert np.array_equal(finite, np.isfinite(monitor.martingale_))
    assert np.allclose(monitor.martingale_[finite], expected[finite], rtol=1e-10, atol=1e-10)
    assert monitor.log_martingale_ == monitor.martingale_[-1]


@pytest.mark.parametrize("seed", range(5))
def test_any_batch_sizes_give_the_one_batch_answer(seed):
    rng = np.random.default_rng(seed)
    n = 3_000
    p = rng.uniform(0.05, 0.95, n)
    y = rng.random(n) < np.clip(p + np.where(np.arange(n) > 1_500, 0.15, 0.0), 0, 1)
    whole = CalibrationMonitor().update(p, y)
    parts = CalibrationMonitor()
    cuts = np.sort(rng.choice(n, size=60, replace=False))
    cuts = np.r_[0, cuts, cuts[5], n]  # an empty batch too
    for lo, hi in zip(cuts[:-1], np.sort(cuts[1:])):
        parts.update(p[lo:hi], y[lo:hi])
    assert np.array_equal(whole.martingale_, parts.martingale_)
    assert whole.alarm_index_ == parts.alarm_index_ and whole.alarm_ == parts.alarm_
    # one row at a time, and without keeping the path
    single = CalibrationMonitor(keep_path=False)
    path = np.concatenate([single.advance(p[i : i + 1], y[i : i + 1]) for i in range(400)])
    assert np.array_equal(path, whole.martingale_[:400]) and single.martingale_ is None
    assert single.log_martingale_ == whole.martingale_[399]


def test_blocks_inside_one_batch_do_not_matter(monkeypatch):
    import venncal.core.betting as betting

    p, y = small_stream(0, n=500)
    whole = CalibrationMonitor().update(p, y).martingale_
    monkeypatch.setattr(betting, "BLOCK_ROWS", 7)
    assert np.array_equal(CalibrationMonitor().update(p, y).martingale_, whole)


def _stream(rng, n, jump=0.0, at=None, gradual=False):
    p = rng.uniform(0.05, 0.75, n)
    t = np.arange(n)
    if gradual:
        shift = jump * np.clip((t - at) / (n - at), 0, 1)
    else:
        shift = np.where(t >= (at if at is not None else n), jump, 0.0)
    return p, (rng.random(n) < p + shift).astype(int)


def test_false_alarms_at_most_alpha_on_calibrated_streams():
    """200 calibrated streams of 2,000 rows: at most 5% alarms, plus simulation error (the
    benchmark runs 2,000 streams: 3.9%)."""
    rng = np.random.default_rng(2024)
    n_streams = 200
    alarms = sum(CalibrationMonitor(alpha=0.05).update(*_stream(rng, 2_000)).alarm_
                 for _ in range(n_streams))  # fmt: skip
    assert alarms <= 0.05 * n_streams + 2 * np.sqrt(n_streams * 0.05 * 0.95)


def test_a_jump_of_the_positive_rate_is_seen_after_it():
    rng = np.random.default_rng(7)
    n_streams, n = 200, 2_000
    seen = 0
    for _ in range(n_streams):
        m = CalibrationMonitor(alpha=0.05).update(*_stream(rng, n, jump=0.2, at=n // 2))
        seen += m.alarm_ and m.alarm_index_ >= n // 2
    assert seen >= 0.9 * n_streams


def test_tighter_alpha_and_the_alarm_level():
    rng = np.random.default_rng(1)
    p, y = _stream(rng, 2_000, jump=0.2, at=1_000)
    loose = CalibrationMonitor(alpha=0.2).update(p, y)
    tight = CalibrationMonitor(alpha=0.001).update(p, y)
    assert loose.alarm_index_ <= tight.alarm_index_
    # the alarm is the first row at the level, and the path is the same
    assert np.array_equal(loose.martingale_, tight.martingale_)
    above = np.flatnonzero(tight.martingale_ >= np.log(1000))
    assert tight.alarm_index_ == above[0] and tight.threshold_ == pytest.approx(np.log(1000))


def test_over_confidence_is_seen_by_the_slopes():
    """A change of slope with the mean kept: probabilities over-confident from row 500."""
    rng = np.random.default_rng(5)
    n = 3_000
    truth = rng.uniform(0.05, 0.95, n)
    logit = np.log(truth / (1 - truth))
    shown = np.where(np.arange(n) >= 500, 1 / (1 + np.exp(-2.5 * logit)), truth)
    y = (rng.random(n) < truth).astype(int)
    assert CalibrationMonitor().update(shown, y).alarm_index_ > 500
    assert not CalibrationMonitor().update(truth, y).alarm_


def test_impossible_labels_fire_at_once():
    m = CalibrationMonitor().update([0.5, 0.0, 0.3], [1, 1, 0])
    assert m.alarm_index_ == 1 and np.isinf(m.martingale_[1])


def test_core_state_is_consistent():
    alt = betting_alternatives([-1.0, 1.0], [1.0, 2.0], n_bins=2)
    state = initial_state(len(alt), np.log(20))
    p, y = small_stream(3, n=50)
    state, path = advance(state, p, y, alt)
    assert state.n_seen == 50 and current_log_martingale(state) == path[-1]
    assert state.log_max == path.max()


def test_model_file_round_trip_continues_the_stream(tmp_path):
    rng = np.random.default_rng(0)
    p, y = _stream(rng, 1_500, jump=0.2, at=700)
    m = CalibrationMonitor(n_bins=2).update(p[:600], y[:600])
    path = venncal.save(m, tmp_path / "monitor.json")
    loaded = venncal.load(path)
    assert loaded.get_params() == m.get_params()
    m.update(p[600:], y[600:])
    loaded.update(p[600:], y[600:])
    assert np.array_equal(m.martingale_, loaded.martingale_)
    assert m.alarm_index_ == loaded.alarm_index_ is not None


def test_clone_and_params():
    m = CalibrationMonitor(alpha=0.01).update([0.3], [1])
    fresh = clone(m)
    assert not hasattr(fresh, "state_") and fresh.alpha == 0.01


@pytest.mark.parametrize(
    ("monitor", "p", "y", "message"),
    [
        (CalibrationMonitor(alpha=1.5), [0.5], [1], "alpha"),
        (CalibrationMonitor(alpha=0), [0.5], [1], "alpha"),
        (CalibrationMonitor(n_bins=0), [0.5], [1], "n_bins"),
        (CalibrationMonitor(alpha=np.nan), [0.5], [1], "alpha"),
        (CalibrationMonitor(alpha="0.1"), [0.5], [1], "alpha"),
        (CalibrationMonitor(n_bins=10**6), [0.5], [1], r"n_bins.*\[1, 100\]"),
        (CalibrationMonitor(n_bins=True), [0.5], [1], "n_bins"),
        (CalibrationMonitor(shifts=[10**400]), [0.5], [1], "shifts"),
        (CalibrationMonitor(shifts=list(range(200)), slopes=list(range(60))), [0.5], [1], "10000"),
        (CalibrationMonitor(shifts=[]), [0.5], [1], "shifts"),
        (CalibrationMonitor(shifts=[0.0], slopes=[1.0]), [0.5], [1], "nothing to bet on"),
        (CalibrationMonitor(), [0.5, 1.2], [1, 0], r"\[0, 1\]"),
        (CalibrationMonitor(), [0.5, np.nan], [1, 0], "NaN"),
        (CalibrationMonitor(), [0.5, 0.2], [1, 2], "0 and 1"),
        (CalibrationMonitor(), [0.5, 0.2], [1], "Inconsistent lengths"),
    ],
)
def test_bad_input_is_one_line(monitor, p, y, message):
    with pytest.raises(ValueError, match=message) as info:
        monitor.update(p, y)
    assert "\n" not in str(info.value)


def test_parameters_changed_after_the_start_are_refused():
    m = CalibrationMonitor().update([0.5], [1])
    m.set_params(alpha=0.01)
    with pytest.raises(ValueError, match="changed after it started"):
        m.update([0.5], [1])


def test_many_alternatives_keep_memory_bounded_and_the_numbers():
    """A batch is fed in pieces of bounded size: the same numbers as one piece."""
    import tracemalloc

    rng = np.random.default_rng(1)
    p, y = rng.uniform(0.05, 0.95, 6_000), rng.integers(0, 2, 6_000)
    wide = CalibrationMonitor(n_bins=100)
    tracemalloc.start()
    try:
        wide.update(p, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert wide.alternatives_.shape[0] == 844 and peak < 150 * 2**20
    parts = CalibrationMonitor(n_bins=100)
    for lo in range(0, 6_000, 1_000):
        parts.update(p[lo : lo + 1_000], y[lo : lo + 1_000])
    assert np.array_equal(wide.martingale_, parts.martingale_)
    assert wide.state_.log_max == parts.state_.log_max


def test_keep_path_must_be_a_bool():
    with pytest.raises(TypeError, match="keep_path"):
        CalibrationMonitor(keep_path="yes").update([0.5], [1])


def test_empty_batch_before_any_row():
    m = CalibrationMonitor()
    assert m.advance([], []).shape == (0,)
    assert m.n_seen_ == 0 and m.log_martingale_ == 0.0 and not m.alarm_


def _edited(tmp_path, monitor, edit):
    import json

    from venncal.persistence._model_file import checksum

    path = venncal.save(monitor, tmp_path / "m.json")
    doc = json.loads(path.read_text())
    edit(doc)
    doc = {k: v for k, v in doc.items() if k != "sha256"}
    doc["sha256"] = checksum(doc)
    path.write_text(json.dumps(doc))
    return path


def _state_fields(doc):
    return doc["fitted"]["state_"]["dataclass"]["fields"]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda d: _state_fields(d).update(alarm_index=None), "alarm_index"),
        (lambda d: _state_fields(d).update(n_seen=5), "alarm_index must be an integer"),
        (lambda d: _state_fields(d).update(n_seen=1_400), "one float per row"),
        (lambda d: d["params"].update(alpha=0.5), "alarm level"),
        (lambda d: d["params"].update(n_bins=3), "grid"),
        (lambda d: _state_fields(d)["path"]["array"]["data"].__setitem__(0, 1e6), "peak"),
        (lambda d: d["params"].update(n_bins=10**9), r"\[1, 100\]"),
        (lambda d: d["params"].update(n_bins=10**400), r"\[1, 100\]"),
        (lambda d: d["params"].update(shifts={"tuple": [10**400]}), "shifts"),
        (lambda d: d["params"].update(shifts={"tuple": list(range(3000))}), "alternatives"),
        (lambda d: _state_fields(d)["path"]["array"]["data"].__setitem__(-1, 0.0), "end at"),
    ],
)
def test_an_edited_model_file_is_refused(tmp_path, edit, said):
    rng = np.random.default_rng(3)
    m = CalibrationMonitor().update(*_stream(rng, 1_500, jump=0.3, at=500))
    assert m.alarm_
    path = _edited(tmp_path, m, edit)
    with pytest.raises(venncal.ModelFileError, match=said) as info:
        venncal.load(path)
    assert "\n" not in str(info.value)


def test_running_sums_above_the_alarm_without_an_alarm_are_refused(tmp_path):
    """Without a kept path, an edited state whose running sums give a martingale above the
    alarm level while no alarm is recorded is refused."""
    rng = np.random.default_rng(4)
    p = rng.uniform(0.2, 0.8, 50)
    m = CalibrationMonitor(keep_path=False).update(p, rng.random(50) < p)
    assert not m.alarm_

    def lift(doc):
        wealth = _state_fields(doc)["log_wealth"]["array"]["data"]
        wealth[:] = [w + 50.0 for w in wealth]

    path = _edited(tmp_path, m, lift)
    with pytest.raises(venncal.ModelFileError, match="above log_max") as info:
        venncal.load(path)
    assert "\n" not in str(info.value)


def test_a_loss_within_one_range_of_p_needs_bins():
    """Too high by 0.2 for p in (0.4, 0.6) and a little too low around it from row 1,000: the
    global alternatives rarely see it, bets within bins of p do."""
    rng = np.random.default_rng(0)
    plain = binned = 0
    for _ in range(20):
        p = rng.uniform(0.05, 0.95, 4_000)
        later = np.arange(4_000) >= 1_000
        mid = (p > 0.4) & (p < 0.6)
        ring = ~mid & (p > 0.2) & (p < 0.8)
        truth = np.where(later & mid, p + 0.2, np.where(later & ring, p - 0.05, p))
        y = (rng.random(4_000) < truth).astype(int)
        plain += CalibrationMonitor().update(p, y).alarm_
        binned += CalibrationMonitor(n_bins=5).update(p, y).alarm_
    assert binned >= 18 and plain <= 12


def test_a_harmless_covariate_shift_raises_no_alarm():
    """The probabilities move to another range halfway but stay calibrated: the null holds, so
    alarms stay at most alpha (a test of exchangeability would fire at once)."""
    rng = np.random.default_rng(9)
    n_streams, n = 100, 2_000
    alarms = 0
    for _ in range(n_streams):
        first = rng.uniform(0.05, 0.3, n // 2)
        second = rng.uniform(0.6, 0.95, n // 2)
        p = np.r_[first, second]
        alarms += CalibrationMonitor().update(p, rng.random(n) < p).alarm_
    assert alarms <= 0.05 * n_streams + 2 * np.sqrt(n_streams * 0.05 * 0.95)
