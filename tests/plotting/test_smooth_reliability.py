"""The smooth reliability diagram draws the curve of smooth_calibration_curve, headless."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import venncal  # noqa: E402
from venncal.metrics import smooth_calibration_curve, smooth_ece  # noqa: E402
from venncal.plotting import SmoothReliabilityDisplay  # noqa: E402


def _data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    p = rng.random(n) ** 2
    y = (rng.random(n) < np.sqrt(p)).astype(int)
    return y, p


def test_draws_the_curve_of_the_metric():
    y, p = _data()
    disp = SmoothReliabilityDisplay.from_predictions(y, p, name="model")
    curve = smooth_calibration_curve(y, p)
    np.testing.assert_array_equal(disp.curve.observed, curve.observed)
    assert disp.curve.smooth_ece == smooth_ece(y, p)
    # the drawn segments join the curve's points, wider where the density is larger
    segments = disp.line_.get_segments()
    drawn = np.concatenate([segments[0][:1], np.array([s[1] for s in segments])])
    np.testing.assert_allclose(drawn[:, 0], curve.points)
    np.testing.assert_allclose(drawn[:, 1], curve.observed)
    widths = np.asarray(disp.line_.get_linewidths())
    mid = 0.5 * (curve.density[:-1] + curve.density[1:])
    assert np.argmax(widths) == np.argmax(mid)
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert any(t.startswith(f"model (smECE = {curve.smooth_ece:.3f}") for t in texts)
    assert disp.ax_.get_xlim() == (0.0, 1.0)
    assert disp.figure_ is disp.ax_.figure
    disp.figure_.canvas.draw()


def test_fixed_bandwidth_given_axes_and_weights():
    y, p = _data(1)
    fig, ax = plt.subplots()
    w = np.random.default_rng(1).integers(1, 3, p.size)
    disp = SmoothReliabilityDisplay.from_predictions(
        y, p, bandwidth=0.05, n_points=51, sample_weight=w, ax=ax
    )
    assert disp.ax_ is ax
    assert disp.curve.bandwidth == 0.05
    assert disp.curve.points.shape == (51,)
    assert disp.curve.smooth_ece == pytest.approx(smooth_ece(y, p, bandwidth=0.05, sample_weight=w))
    fig.canvas.draw()


def test_undefined_stretches_are_left_out():
    # predictions only near 0.1 and 0.9, a small bandwidth: nothing is drawn in between
    p = np.repeat([0.1, 0.9], 50)
    y = np.tile([0, 1], 50)
    disp = SmoothReliabilityDisplay.from_predictions(y, p, bandwidth=0.01)
    assert np.isnan(disp.curve.observed).any()
    for seg in disp.line_.get_segments():
        assert np.isfinite(seg).all()
    disp.figure_.canvas.draw()


def test_from_estimator_and_top_level_name():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = np.where(X[:, 0] + rng.normal(size=300) > 0, "yes", "no")
    model = LogisticRegression().fit(X, y)
    disp = venncal.SmoothReliabilityDisplay.from_estimator(model, X, y)
    expected = smooth_ece(y, model.predict_proba(X)[:, 1], pos_label="yes")
    assert disp.curve.smooth_ece == expected
    assert disp.ax_.get_legend().get_texts()[1].get_text().startswith("LogisticRegression")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"name": 3}, TypeError, "'name' parameter"),
        ({"ax": "axes"}, TypeError, "'ax' parameter"),
        ({"n_points": 10**5}, ValueError, "'n_points' parameter"),
        ({"bandwidth": -1.0}, ValueError, "'bandwidth' parameter"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        SmoothReliabilityDisplay.from_predictions([0, 1, 1], [0.2, 0.7, 0.9], **kwargs)
