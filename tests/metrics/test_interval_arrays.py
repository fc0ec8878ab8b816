"""Every function that takes Venn intervals takes what ``predict_interval`` returns: one array
of shape (n, 2), lower ends in column 0. The ends given apart still work, with the same result."""

import numpy as np
import pytest

from venncal import VennAbersCalibrator
from venncal.metrics import interval_validity, interval_width, merge_regret


def fitted_intervals(seed=0):
    rng = np.random.default_rng(seed)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    cal = VennAbersCalibrator().fit(s[:200], y[:200])
    return y[200:], cal.predict_interval(s[200:]), cal.predict_proba(s[200:])[:, 1]


def test_interval_width_takes_predict_interval():
    _, iv, _ = fitted_intervals()
    assert iv.shape == (100, 2)
    assert interval_width(iv) == interval_width(iv[:, 0], iv[:, 1])
    assert interval_width(iv) == pytest.approx(float(np.mean(iv[:, 1] - iv[:, 0])), abs=1e-15)


def test_interval_validity_takes_predict_interval():
    y, iv, _ = fitted_intervals(1)
    for target in ("frequency", "accuracy"):
        a = interval_validity(y, iv, target=target)
        b = interval_validity(y, iv[:, 0], iv[:, 1], target=target)
        assert (a.observed, a.lower, a.upper, a.valid) == (b.observed, b.lower, b.upper, b.valid)
        np.testing.assert_array_equal(a.bin_lower, b.bin_lower)


def test_merge_regret_takes_predict_interval():
    y, iv, p = fitted_intervals(2)
    np.testing.assert_array_equal(merge_regret(iv, p), merge_regret(iv[:, 0], iv[:, 1], p))
    np.testing.assert_array_equal(
        merge_regret(iv, p, y_true=y), merge_regret(iv[:, 0], iv[:, 1], p, y_true=y)
    )


def test_venn_interval_display_takes_predict_interval():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from venncal.plotting import VennIntervalDisplay

    y, iv, _ = fitted_intervals(3)
    a = VennIntervalDisplay.from_predictions(y, iv)
    b = VennIntervalDisplay.from_predictions(y, iv[:, 0], iv[:, 1])
    np.testing.assert_array_equal(a.validity.bin_upper, b.validity.bin_upper)
    plt.close("all")


@pytest.mark.parametrize(
    "call",
    [
        lambda: interval_width([0.1, 0.2]),
        lambda: interval_validity([0, 1], [0.1, 0.2]),
        lambda: interval_width(np.zeros((3, 3))),
    ],
)
def test_one_array_that_is_not_n_by_2_is_one_line(call):
    with pytest.raises(ValueError, match=r"shape \(n, 2\)") as info:
        call()
    assert "\n" not in str(info.value)


def test_a_crossed_interval_array_is_refused():
    with pytest.raises(ValueError, match="exceeds"):
        interval_width(np.array([[0.6, 0.5]]))
