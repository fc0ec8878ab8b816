"""Temperature scaling against its definition (tests/_reference/temperature_mle.py)."""

import pickle
import warnings

import numpy as np
import pytest
from scipy.special import expit, logit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

import venncal
from tests._reference.temperature_mle import predict, temperature_mle
from tests.calibration._score_matrix import N_ITER_XFAILS, sklearn_checks_test
from venncal import PlattCalibrator, TemperatureCalibrator, VenncalWarning


def _multiclass(seed, K, n=300, sharp=None):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, K)) * rng.uniform(0.5, 2.0) + rng.normal(size=K)
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    y = (rng.random((n, 1)) > P.cumsum(axis=1)).sum(axis=1)
    y = np.minimum(y, K - 1)
    y[:K] = np.arange(K)
    return Z * (rng.uniform(0.3, 3.0) if sharp is None else sharp), y


def _binary(seed, n=400):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n) * 2
    y = (rng.random(n) < expit(rng.uniform(0.2, 2.0) * z + rng.normal(scale=0.5))).astype(int)
    return z, y


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("K", range(3, 11))
def test_multiclass_equals_the_maximum_likelihood_fit(K, bias):
    Z, y = _multiclass(K, K)
    w = np.random.default_rng(K).uniform(0.2, 3.0, size=y.size) if K % 2 else None
    beta, b = temperature_mle(Z, y, w, bias=bias)
    cal = TemperatureCalibrator(bias=bias, score_type="logits").fit(Z, y, sample_weight=w)
    np.testing.assert_allclose(cal.predict_proba(Z), predict(beta, b, Z), atol=1e-6)
    np.testing.assert_allclose(1 / cal.temperature_, beta, rtol=1e-5)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_binary_equals_the_maximum_likelihood_fit(seed, bias):
    z, y = _binary(seed)
    w = np.random.default_rng(seed).uniform(0.2, 3.0, size=y.size) if seed % 2 else None
    Z = np.column_stack([0 * z, z])
    beta, b = temperature_mle(Z, y, w, bias=bias)
    cal = TemperatureCalibrator(bias=bias).fit(z, y, sample_weight=w)
    assert cal.score_type_ == "logits" and cal.classes_.tolist() == [0, 1]
    grid = np.linspace(-8, 8, 161)
    expected = predict(beta, b, np.column_stack([0 * grid, grid]))
    np.testing.assert_allclose(cal.predict_proba(grid), expected, atol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_binary_with_bias_is_platt_without_smoothing(seed):
    z, y = _binary(seed)
    cal = TemperatureCalibrator(bias=True).fit(z, y)
    platt = PlattCalibrator(smoothing=False).fit(z, y)
    grid = np.linspace(-6, 6, 121)
    np.testing.assert_allclose(cal.predict_proba(grid), platt.predict_proba(grid), atol=1e-6)
    assert cal.bias_ == pytest.approx(-platt.b_, abs=1e-6)


def test_binary_probabilities_are_read_as_log_odds():
    z, y = _binary(7)
    a = TemperatureCalibrator().fit(expit(z), y)
    assert a.score_type_ == "probabilities"
    b = TemperatureCalibrator().fit(logit(expit(z)), y)
    np.testing.assert_allclose(
        a.predict_proba(expit([-3.0, 0.5, 2.0])), b.predict_proba([-3.0, 0.5, 2.0]), atol=1e-12
    )
    with pytest.raises(ValueError, match="probabilities"):
        a.predict_proba([1.5])


@pytest.mark.parametrize("bias", [False, True])
def test_multiclass_probabilities_are_read_as_log_probabilities(bias):
    Z, y = _multiclass(3, 5)
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    a = TemperatureCalibrator(bias=bias).fit(P, y)
    assert a.score_type_ == "probabilities"
    b = TemperatureCalibrator(bias=bias).fit(np.log(P), y)
    assert b.score_type_ == "logits"
    np.testing.assert_allclose(a.predict_proba(P), b.predict_proba(np.log(P)), atol=1e-9)
    # logits and log-probabilities differ by a constant per row: the same map
    c = TemperatureCalibrator(bias=bias).fit(Z, y)
    np.testing.assert_allclose(c.predict_proba(Z), b.predict_proba(np.log(P)), atol=1e-9)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_integer_weights_are_copies(seed, bias):
    rng = np.random.default_rng(seed)
    for Z, y in (_multiclass(seed, 4, n=120), _binary(seed, n=120)):
        k = rng.integers(0, 4, size=y.size)
        k[: 4 if Z.ndim == 2 else 2] = 1
        a = TemperatureCalibrator(bias=bias).fit(Z, y, sample_weight=k)
        b = TemperatureCalibrator(bias=bias).fit(np.repeat(Z, k, axis=0), np.repeat(y, k))
        np.testing.assert_allclose(a.predict_proba(Z), b.predict_proba(Z), atol=1e-9, rtol=0)


def test_no_bias_keeps_the_predicted_class():
    Z, y = _multiclass(1, 6, sharp=3.0)
    cal = TemperatureCalibrator().fit(Z, y)
    np.testing.assert_array_equal(cal.predict(Z), cal.classes_[Z.argmax(axis=1)])


def test_scores_pointing_away_give_a_constant_map():
    z, y = _binary(2)
    # scores ranked the wrong way round: the comparison of calibrators says so (with the
    # labels); temperature scaling does not say it again
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = TemperatureCalibrator().fit(-z, y)
    assert cal.temperature_ == np.inf
    np.testing.assert_allclose(cal.predict_proba([-5.0, 5.0])[:, 1], 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = TemperatureCalibrator(bias=True).fit(-z, y)
    np.testing.assert_allclose(cal.predict_proba([-5.0, 5.0])[:, 1], y.mean(), atol=1e-12)


def test_one_binary_row_confidently_wrong_far_out_is_said():
    """The binary case of the test below: the scores rank the classes the right way (AUC far
    above 0.5), one wrong row far out makes the map constant, and a warning says so."""
    z, y = _binary(2)
    z = z.copy()
    wrong = int(np.flatnonzero(y == 0)[0])
    z[wrong] = 1e6
    with pytest.warns(VenncalWarning, match="inverse temperature is 0"):
        cal = TemperatureCalibrator().fit(z, y)
    np.testing.assert_allclose(cal.predict_proba([-5.0, 5.0])[:, 1], 0.5)


@pytest.mark.parametrize("gap", [1e6, 1e200])
def test_one_row_confidently_wrong_far_out_is_said(gap):
    """One row of 2,000 wrong at a logit gap far beyond the others makes the likelihood's
    maximum the constant map: the answer of the definition, said in a warning, not silently."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 2000)
    Z = rng.normal(size=(2000, 3))
    Z[np.arange(2000), y] += 1.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TemperatureCalibrator(score_type="logits").fit(Z, y).temperature_ < 2.0
    Z[0] = 0.0
    Z[0, (y[0] + 1) % 3] = gap
    with pytest.warns(VenncalWarning, match="one row at 10\\^6 times the typical gap"):
        cal = TemperatureCalibrator(score_type="logits").fit(Z, y)
    np.testing.assert_allclose(cal.predict_proba(Z[1:5]), 1 / 3)


@pytest.mark.parametrize("bias", [False, True])
def test_separated_classes_warn_and_give_a_finite_sharp_map(bias):
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(60, 4))
    y = Z.argmax(axis=1)
    with pytest.warns(VenncalWarning, match="separate"):
        cal = TemperatureCalibrator(bias=bias).fit(Z, y)
    P = cal.predict_proba(Z)
    assert np.isfinite(P).all() and np.isfinite(cal.temperature_) and cal.temperature_ > 0
    np.testing.assert_array_equal(P.argmax(axis=1), y)
    assert P.max(axis=1).min() > 0.999


def test_binary_separated_warns():
    z = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0])
    with pytest.warns(VenncalWarning, match="separate"):
        TemperatureCalibrator().fit(z, [0, 0, 0, 1, 1, 1])
    with pytest.warns(VenncalWarning, match="separate"):  # a threshold away from 0
        TemperatureCalibrator(bias=True).fit(z + 3.0, [0, 0, 0, 1, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TemperatureCalibrator(bias=True).fit(z, [0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize("seed", range(12))
def test_binary_separation_with_a_bias_is_a_threshold(seed):
    # with a bias and beta >= 0, two classes are separated exactly when some threshold puts
    # every negative at or below it and every positive at or above it
    rng = np.random.default_rng(seed)
    z = rng.normal(size=10)
    y = (z > rng.normal(scale=0.4, size=10)).astype(int)
    y[np.argmin(z)], y[np.argmax(z)] = 0, 1
    threshold = z[y == 0].max() <= z[y == 1].min()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        TemperatureCalibrator(bias=True).fit(z, y)
    assert any("separate" in str(w.message) for w in caught) == threshold


@pytest.mark.parametrize("seed", range(3))
def test_two_classes_with_a_bias_equal_the_joint_newton_fit(seed):
    # two classes go through a logistic regression on 1 and z_1 - z_0; the K-class joint
    # Newton fit of (beta, b) must give the same map
    from venncal.core.temperature import _fit_joint, fit_temperature_scaling, standardised_logits

    z, y = _binary(seed)
    w = np.random.default_rng(seed).uniform(0.2, 3.0, size=y.size)
    w = w / w.mean()
    Z = np.column_stack([0 * z, z + 0.5])
    fit = fit_temperature_scaling(Z, y, w, bias=True)
    theta, _, ok = _fit_joint(standardised_logits(Z)[0], y, w, 100)
    assert ok and fit.converged
    assert fit.beta == pytest.approx(theta[0], rel=1e-8)
    np.testing.assert_allclose(fit.bias, theta[1:] - theta[1:].mean(), atol=1e-8)


def test_scale_free():
    Z, y = _multiclass(4, 3)
    a = TemperatureCalibrator(bias=True).fit(Z, y).predict_proba(Z)
    b = TemperatureCalibrator(bias=True).fit(1e-150 * Z, y).predict_proba(1e-150 * Z)
    np.testing.assert_allclose(a, b, atol=1e-9)


test_sklearn_compatible = sklearn_checks_test(
    [TemperatureCalibrator(), TemperatureCalibrator(bias=True)],
    N_ITER_XFAILS,
    ignore_warnings_because="tiny data sets are often separated",
)


@pytest.mark.parametrize(
    "est", [TemperatureCalibrator(), TemperatureCalibrator(bias=True)], ids=repr
)
def test_what_the_listed_checks_cover_on_valid_input(est):
    Z, y = _multiclass(5, 4, n=200)
    cal = clone(est)
    assert cal.fit(Z, y) is cal
    assert cal.n_features_in_ == 4
    ref = cal.predict_proba(Z)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(cal)).predict_proba(Z), ref)
    ro = Z.copy()
    ro.flags.writeable = False
    np.testing.assert_array_equal(clone(est).fit(ro, y).predict_proba(ro), ref)
    assert est.get_params() == clone(est).get_params()
    perm = np.random.default_rng(1).permutation(len(y))
    np.testing.assert_allclose(clone(est).fit(Z[perm], y[perm]).predict_proba(Z), ref, atol=1e-9)
    Z32 = Z.astype(np.float32)
    np.testing.assert_array_equal(
        clone(est).fit(Z32, y).predict_proba(Z32),
        clone(est).fit(Z32.astype(np.float64), y).predict_proba(Z32.astype(np.float64)),
    )


@pytest.mark.parametrize(
    "scores, y, match",
    [
        ([0.0, np.nan, 1.0], [0, 1, 1], "NaN"),
        ([0.0, np.inf, 1.0], [0, 1, 1], "infinite"),
        ([[0.0, 1.0], [np.nan, 0.0]], [0, 1], "NaN"),
        ([0.0, 1.0, 2.0], [1, 1, 1], "one class"),
        ([[0.0, 1.0], [1.0, 0.0]], [1, 1], "one class"),
        ([0.0, 1.0, 2.0], [0, 1, 2], "binary"),
        ([0.0, 1.0], [0, 1, 1], "Inconsistent lengths"),
        ([[0.0, 1.0], [1.0, 0.0]], [0, 1, 1], "Inconsistent lengths"),
        ([[0.0, 1.0, 2.0], [1.0, 0.0, 2.0]], [0, 1], "3 column"),
        ([], [], "empty"),
        (np.zeros((2, 2, 2)), [0, 1], "2-D"),
    ],
)
def test_bad_fit_input(scores, y, match):
    with pytest.raises(ValueError, match=match):
        TemperatureCalibrator().fit(scores, y)


def test_bad_parameters_and_weights():
    z, y = _binary(0, n=20)
    for params, match in (
        ({"score_type": "raw"}, "score_type"),
        ({"max_iter": 0}, "max_iter"),
    ):
        with pytest.raises(ValueError, match=match):
            TemperatureCalibrator(**params).fit(z, y)
    with pytest.raises(TypeError, match="bias"):
        TemperatureCalibrator(bias="yes").fit(z, y)
    with pytest.raises(ValueError, match="probabilities"):
        TemperatureCalibrator(score_type="probabilities").fit(z, y)
    with pytest.raises(ValueError, match="negative"):
        TemperatureCalibrator().fit(z, y, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="sample_weight"):
        TemperatureCalibrator().fit(z, y, sample_weight=np.ones(3))


def test_bad_predict_input_and_unfitted():
    with pytest.raises(NotFittedError):
        TemperatureCalibrator().predict_proba([0.5])
    Z, y = _multiclass(0, 3)
    cal = TemperatureCalibrator().fit(Z, y)
    with pytest.raises(ValueError, match="3 classes"):
        cal.predict_proba(Z[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        cal.predict_proba(np.full((1, 3), np.nan))
    z, yb = _binary(0)
    cal = TemperatureCalibrator().fit(z, yb)
    with pytest.raises(ValueError, match="one column"):
        cal.predict_proba(np.zeros((2, 2)))


@pytest.mark.parametrize("bias", [False, True])
def test_model_file_round_trip(tmp_path, bias):
    z, yb = _binary(3)
    Z, y = _multiclass(3, 4)
    for i, (s, labels) in enumerate(((z, np.where(yb, "yes", "no")), (Z, y), (expit(z), yb))):
        cal = TemperatureCalibrator(bias=bias).fit(s, labels)
        venncal.save(cal, tmp_path / f"t{i}.json")
        loaded = venncal.load(tmp_path / f"t{i}.json")
        assert type(loaded) is TemperatureCalibrator
        assert loaded.get_params() == cal.get_params()
        np.testing.assert_array_equal(loaded.predict_proba(s), cal.predict_proba(s))
        np.testing.assert_array_equal(loaded.predict(s), cal.predict(s))


def _four_class_logits(seed=0, n=500):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 4)) * 2
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    y = (rng.random((n, 1)) > P.cumsum(axis=1)).sum(axis=1)
    return Z, y


@pytest.mark.parametrize(
    "row",
    [
        [1e308, -1e308, 0.0, 0.0],
        [1e300, -1e300, 0.0, 5e-324],
        [1e200, 0.0, 0.0, 0.0],
        [1e20, 0.0, 0.0, 0.0],
        [0.0, 1e308, 0.0, -1e308],
    ],
)
def test_a_far_out_row_the_model_gets_right_leaves_the_temperature_alone(row):
    Z, y = _four_class_logits()
    label = int(np.argmax(row))
    base = venncal.TemperatureCalibrator().fit(Z, y)
    cal = venncal.TemperatureCalibrator().fit(np.vstack([Z, [row]]), np.append(y, label))
    # a row whose class has a probability of 1 at every temperature adds nothing to the
    # likelihood: the maximum-likelihood temperature is the same (it was 0 with NaN outputs
    # at gaps near 1e308, and off by 6% at 1e20)
    assert cal.temperature_ == pytest.approx(base.temperature_, rel=1e-12)
    beta, _ = temperature_mle(Z, y)
    assert cal.temperature_ == pytest.approx(1.0 / beta, rel=1e-6)
    p = cal.predict_proba(np.vstack([Z, [row]]))
    assert np.isfinite(p).all()


@pytest.mark.parametrize("magnitude", [1e-300, 1e300])
def test_logits_of_any_magnitude_fit_alike(magnitude):
    Z, y = _four_class_logits(1)
    base = venncal.TemperatureCalibrator().fit(Z, y).temperature_
    scaled = venncal.TemperatureCalibrator().fit(Z * magnitude, y).temperature_
    assert scaled / magnitude == pytest.approx(base, rel=1e-12)
