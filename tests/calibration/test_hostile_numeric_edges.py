"""Hostile numbers on the K-class calibrators, the regression distribution, the
multicalibration calibrator and the abstention rule: valid extremes give finite answers that agree with the naive
definitions; bad input is refused in one line naming the argument."""

import warnings

import numpy as np
import pandas as pd
import pytest

from tests._reference.ltt_naive import ltt_naive
from tests._reference.matrix_scaling_naive import dirichlet_naive
from tests._reference.temperature_mle import _softmax, temperature_mle
from tests._reference.venn_abers_distribution_naive import cdf_pairs_naive, crps_discrete
from venncal import (
    AbstentionRule,
    DirichletCalibrator,
    MatrixScalingCalibrator,
    MulticalibrationCalibrator,
    MulticlassVennAbersCalibrator,
    TemperatureCalibrator,
    VennAbersDistribution,
)
from venncal.core.abstention import threshold_grid
from venncal.exceptions import VenncalWarning

K_CLASS = {
    "temperature": TemperatureCalibrator,
    "temperature-bias": lambda: TemperatureCalibrator(bias=True),
    "matrix": MatrixScalingCalibrator,
    "matrix-svs": lambda: MatrixScalingCalibrator(structure="svs"),
    "dirichlet": DirichletCalibrator,
    "va-pairwise": MulticlassVennAbersCalibrator,
    "va-ovr": lambda: MulticlassVennAbersCalibrator(strategy="ovr", pooled=False),
    "va-top-label": lambda: MulticlassVennAbersCalibrator(strategy="top-label"),
}


def _problem(n=120, K=3, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, K)) * 2
    P = _softmax(Z)
    y = (rng.random((n, 1)) > P.cumsum(axis=1)).sum(axis=1)
    y[:K] = np.arange(K)
    return Z, P, y


def _forest(P):
    """Probabilities with exact zeros and ones, as a random forest of 10 trees gives."""
    F = np.round(P * 10) / 10
    F[F.sum(axis=1) == 0, 0] = 1.0
    return F / F.sum(axis=1, keepdims=True)


def _finite_rows(Q, n, K):
    assert Q.shape == (n, K)
    assert np.isfinite(Q).all() and (Q >= 0).all()
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def _scores(kind, Z, P):
    if kind == "forest":
        return _forest(P)
    if kind == "one-hot":
        return np.eye(P.shape[1])[np.argmax(P, axis=1)]
    if kind == "off-1e-9":
        return P * (1 + 1e-9)
    if kind == "off-1e-3":
        return P * (1 + 1e-3)
    if kind == "logits-1e308":
        L = Z.copy()
        L[0], L[1] = [1e308, -1e308, 0.0], [-1e308, 5e-324, 1e308]
        return L
    if kind == "logits-huge-scale":
        return Z * 1e300
    assert kind == "logits-subnormal"
    return Z * 1e-310


@pytest.mark.parametrize("name", sorted(K_CLASS))
@pytest.mark.parametrize(
    "kind",
    [
        "forest",
        "one-hot",
        "off-1e-9",
        "off-1e-3",
        "logits-1e308",
        "logits-huge-scale",
        "logits-subnormal",
    ],
)
def test_k_class_extremes_give_finite_rows_summing_to_one(name, kind):
    Z, P, y = _problem()
    S = _scores(kind, Z, P)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VenncalWarning)
        Q = K_CLASS[name]().fit(S, y).predict_proba(S)
    _finite_rows(Q, *S.shape)


@pytest.mark.parametrize("name", sorted(K_CLASS))
@pytest.mark.parametrize(
    "scores, match",
    [
        ("off-0.1", "sums to 1.1"),
        ("zero-row", "sums to 0"),
        ("absent-class", "holds 2 classes"),
        ("one-column", "must be a 2-D|1 column"),
        ("million-columns", "column"),
    ],
)
def test_k_class_bad_input_is_refused_in_one_line(name, scores, match):
    Z, P, y = _problem()
    if scores == "off-0.1":
        S = P.copy()
        S[0] *= 1.1
    elif scores == "zero-row":
        S = P.copy()
        S[0] = 0.0
    elif scores == "absent-class":
        S, y = P, np.where(y == 2, 0, y)
    elif scores == "one-column":
        S, y = P[:, 1], (y == 1).astype(int)
    else:  # 10^6 columns, 3 rows: refused before anything of size K x K is made
        S = np.zeros((3, 10**6))
        S[:, :3] = np.eye(3)
        y = np.arange(3)
    if scores == "one-column" and name.startswith("temperature"):
        return  # temperature scaling reads one column as binary log-odds
    with pytest.raises(ValueError, match=match) as err:
        K_CLASS[name]().fit(S, y)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("scale", [1.0, 1e300, 1e-300])
def test_temperature_on_scaled_logits_is_the_mle(bias, scale):
    """The fitted map on logits times ``scale`` is the reference MLE on the logits: the
    temperature absorbs the scale, the probabilities stay those of the MLE."""
    Z, _, y = _problem(n=200, seed=1)
    beta, b = temperature_mle(Z, y, bias=bias)
    got = TemperatureCalibrator(bias=bias).fit(Z * scale, y).predict_proba(Z * scale)
    np.testing.assert_allclose(got, _softmax(beta * Z + b), rtol=0, atol=2e-7)


@pytest.mark.parametrize("labels", ["strings", "two-columns"])
def test_k_class_labels_as_strings_and_two_columns(labels):
    Z, P, y = _problem(n=150, K=2 if labels == "two-columns" else 3, seed=2)
    yy = np.array(["cat", "dog", "emu"])[y] if labels == "strings" else y
    for make in K_CLASS.values():
        cal = make().fit(P, yy)
        _finite_rows(cal.predict_proba(P), *P.shape)
        assert set(cal.predict(P)) <= set(yy)


@pytest.mark.parametrize("weight", [1.0, 2.0**900, 1e307, 1.7e308])
def test_dirichlet_with_huge_weights_is_the_definition(weight):
    """Weights whose total exceeds the largest float: the shares of the rows are unchanged, and
    the penalised likelihood of Dirichlet calibration does not depend on the total."""
    Z, P, y = _problem(n=90, seed=3)
    t = np.log(P)
    got = DirichletCalibrator().fit(P, y, sample_weight=np.full(y.shape[0], weight))
    want = dirichlet_naive(t, y, t, 10.0, 10.0)
    np.testing.assert_allclose(got.predict_proba(P), want, rtol=0, atol=1e-6)


@pytest.mark.parametrize("structure", ["sms", "svs", "vector"])
def test_matrix_scaling_with_weights_past_the_float_range(structure):
    """A weight of k counts as k copies: with 2^900 copies of each row the penalties and the
    smoothing are nothing, and with 1.7e308 (a total past the largest float) the fit is the
    same, not the uniform distribution of a fit that saw zero weights."""
    Z, P, y = _problem(n=150, seed=4)
    n = y.shape[0]
    fits = [
        MatrixScalingCalibrator(structure=structure).fit(P, y, sample_weight=np.full(n, w))
        for w in (2.0**900, 1.7e308)
    ]
    want, got = (f.predict_proba(P) for f in fits)
    assert np.abs(want - 1 / 3).max() > 0.1  # a real fit
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


# ------------------------------------------------------------------ VennAbersDistribution


def _distribution_data(kind, n=30, seed=5):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    y = s + rng.normal(size=n)
    if kind == "ends":
        y[:2] = [1e308, -1e308]
    elif kind == "all-at-ends":
        y = np.where(rng.random(n) < 0.5, 1.7e308, -1.7e308)
        y[:2] = [1.7e308, -1.7e308]
    elif kind == "subnormal":
        y = y * 1e-320
    elif kind == "ties":
        y, s = np.round(y), np.round(s)
    return s, y


def _naive_merged_masses(s, y, test):
    """Masses on the distinct labels of the merged ("mean") distribution, from the naive
    pairs: F = (F0 + F1) / 2 at each label, the last label taking what is left."""
    z = np.unique(y)
    pairs = cdf_pairs_naive(s, y, test, z)
    cdf = pairs.mean(axis=2)
    cdf[:, -1] = 1.0
    return z, np.diff(cdf, prepend=0.0, axis=1)


@pytest.mark.parametrize("kind", ["ends", "all-at-ends", "subnormal", "ties"])
def test_distribution_mean_and_crps_are_finite_and_the_definition(kind):
    s, y = _distribution_data(kind)
    test = np.array([s.min(), np.median(s), s.max()])
    truth = np.array([0.0, y.max(), y.min()])
    vad = VennAbersDistribution(merge="mean").fit(s, y)
    z, masses = _naive_merged_masses(s, y, test)
    mean = vad.predict_mean(test)
    assert np.isfinite(mean).all()
    want_mean = np.array([sum(zc * mc for zc, mc in zip(z, row)) for row in masses])
    atol = max(1e-12 * np.abs(z).max(), 1e-322)  # a few steps of the subnormals
    np.testing.assert_allclose(mean, want_mean, rtol=1e-12, atol=atol)
    # the CRPS in units of 2^e (the definition is scale-equivariant), to keep |X - X'| finite
    e = max(0, int(np.frexp(np.abs(z).max())[1]) - 1000)
    with np.errstate(over="ignore"):
        want = np.array(
            [
                np.ldexp(crps_discrete(np.ldexp(z, -e), row, np.ldexp(v, -e)), e)
                for row, v in zip(masses, truth)
            ]
        )
    got = vad.crps(test, truth)
    assert not np.isnan(got).any()
    finite = np.isfinite(want)
    assert np.array_equal(np.isfinite(got), finite)  # inf only past the largest float
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-10, atol=1e-322)


@pytest.mark.parametrize("groups", [False, True])
@pytest.mark.parametrize("kind", ["ends", "all-at-ends", "subnormal", "ties", "one-row"])
def test_distribution_outputs_at_the_float_edges(kind, groups):
    if kind == "one-row":
        s, y = np.array([0.5]), np.array([1.0])
    else:
        s, y = _distribution_data(kind)
    g = np.zeros(s.shape[0], dtype=int)
    g[1::2] = 1
    if kind == "one-row":
        g[:] = 0
    vad = VennAbersDistribution().fit(s, y, groups=g if groups else None)
    kw = {"groups": np.zeros(3, dtype=int)} if groups else {}
    test = np.array([s.min(), np.median(s), s.max()])
    thresholds = np.sort(np.r_[-1.7e308, y.min(), 0.0, y.max(), 1.7e308])
    cdf = vad.predict_cdf(test, thresholds, **kw)
    assert np.isfinite(cdf).all() and (np.diff(cdf, axis=1) >= 0).all()
    assert (cdf[..., 0] <= cdf[..., 1]).all()
    merged = vad.predict_merged_cdf(test, thresholds, **kw)
    assert (np.diff(merged, axis=1) >= 0).all() and merged[:, -1].max() == 1.0
    q = vad.predict_quantiles(test, [1e-12, 0.5, 1 - 1e-12], **kw)
    assert np.isfinite(q).all() and (q[:, 1:] >= q[:, :-1]).all()
    assert (q >= y.min()).all() and (q <= y.max()).all()
    assert np.isfinite(vad.predict_interval(test, **kw)).all()
    band = vad.predict_interval(test, kind="band", **kw)
    assert not np.isnan(band).any() and (band[:, 0] <= band[:, 1]).all()
    assert np.isfinite(vad.predict_mean(test, **kw)).all()
    pit = vad.predict_pit(test, np.array([0.0, y.max(), y.min()]), **kw)
    assert np.isfinite(pit).all() and ((pit >= 0) & (pit <= 1)).all()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda d: d.predict_quantiles([0.0], 0.0), "'q'"),
        (lambda d: d.predict_quantiles([0.0], 1.0), "'q'"),
        (lambda d: d.predict_quantiles([0.0], [0.5, np.nan]), "'q'"),
        (lambda d: d.predict_quantiles([0.0], 1.5), "'q'"),
        (lambda d: d.predict_cdf([0.0], [-np.inf, np.inf]), "'thresholds'"),
        (lambda d: d.predict_merged_cdf([0.0], [np.nan]), "'thresholds'"),
        (lambda d: d.predict_interval([0.0], confidence=1.0), "'confidence'"),
        (lambda d: d.predict_interval([0.0], confidence=np.nan, kind="band"), "'confidence'"),
        (lambda d: d.crps([0.0], [np.inf]), "'y'"),
        (lambda d: d.predict_mean([np.inf]), "'scores'"),
    ],
)
def test_distribution_bad_levels_and_thresholds_are_refused(call, match):
    s, y = _distribution_data("ends")
    with pytest.raises(ValueError, match=match) as err:
        call(VennAbersDistribution().fit(s, y))
    assert "\n" not in str(err.value)


# ------------------------------------------------------------------ MulticalibrationCalibrator


def _segment_problem(n=300, seed=6):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    return p, y, rng


@pytest.mark.parametrize("weight", [1e300, 1e307, 1.7e308])
def test_multicalibration_weights_past_the_float_range(weight):
    """Weights count as copies: 1.7e308 copies of each row is the same calibration as 1e300
    (the test object is negligible either way); it used to end in ZeroDivisionError."""
    p, y, rng = _segment_problem()
    seg = pd.DataFrame({"g": rng.choice(["a", "b"], p.shape[0])})
    fits = [
        MulticalibrationCalibrator(min_samples_leaf=20, max_iter=10).fit(
            p, y, np.full(p.shape[0], w), segments=seg
        )
        for w in (2.0**900, weight)
    ]
    want, got = (f.predict_proba(p, segments=seg) for f in fits)
    assert np.isfinite(got).all()
    assert fits[0].n_trees_ == fits[1].n_trees_
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "column",
    ["one-level", "numeric-one-level", "nan", "all-nan", "object-none", "many-levels", "bool"],
)
@pytest.mark.parametrize("scores", ["uniform", "constant", "zero-one"])
def test_multicalibration_segment_columns_and_scores_at_the_edges(column, scores):
    p, y, rng = _segment_problem()
    n = p.shape[0]
    values = {
        "one-level": ["x"] * n,
        "numeric-one-level": np.ones(n),
        "nan": np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n)),
        "all-nan": np.full(n, np.nan),
        "object-none": np.where(rng.random(n) < 0.3, None, rng.choice(["u", "v"], n)),
        "many-levels": np.arange(n).astype(str),
        "bool": rng.random(n) < 0.5,
    }[column]
    seg = pd.DataFrame({"c": values})
    if scores == "constant":
        p = np.full(n, 0.3)
    elif scores == "zero-one":
        p = np.where(rng.random(n) < 0.8, y, 1 - y).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VenncalWarning)
        cal = MulticalibrationCalibrator(min_samples_leaf=20, max_iter=10).fit(p, y, segments=seg)
    proba = cal.predict_proba(p, segments=seg)
    _finite_rows(proba, n, 2)
    lo, hi = cal.predict_interval(p, segments=seg).T
    assert np.isfinite(lo).all() and np.isfinite(hi).all() and (lo <= hi).all()


# ------------------------------------------------------------------ AbstentionRule


@pytest.mark.parametrize(
    "case", ["all-right", "zero-one-right", "zero-one-few-wrong", "k-all-right", "k-one-hot"]
)
def test_abstention_at_the_extremes_is_learn_then_test(case):
    rng = np.random.default_rng(7)
    n = 400
    p = rng.random(n)
    if case in ("all-right", "zero-one-right", "zero-one-few-wrong"):
        y = (p > 0.5).astype(int)
        if case != "all-right":
            p = y.astype(float)
        if case == "zero-one-few-wrong":
            y[:3] = 1 - y[:3]
        scores = p
        conf = np.maximum(p, 1 - p)
        wrong = (p > 0.5).astype(int) != y
    else:
        P = rng.dirichlet(np.ones(3), n)
        if case == "k-one-hot":
            P = np.eye(3)[P.argmax(axis=1)]
        y = P.argmax(axis=1)
        scores, conf, wrong = P, P.max(axis=1), np.zeros(n, dtype=bool)
    rule = AbstentionRule(n_thresholds=200).fit(scores, y)
    want = ltt_naive(conf, wrong, threshold_grid(200), target=0.05, delta=0.1, min_accepted=180)
    assert rule.threshold_ == want[0] and rule.n_accepted_ == want[1]
    assert np.isfinite([rule.coverage_, rule.error_bound_]).all()


@pytest.mark.parametrize(
    "params, scores, y, match",
    [
        ({"target_error": 0.0}, None, None, "target_error"),
        ({"target_error": 1.0}, None, None, "target_error"),
        ({"target_error": np.nan}, None, None, "target_error"),
        ({"delta": np.nan}, None, None, "delta"),
        ({}, "all-wrong", None, "smallest target"),
        ({}, [0.9], [1], "one class"),
        ({}, [[0.2, 0.8]], [1], "one class"),
        ({}, [np.nan, 0.5], [0, 1], "'scores'"),
        ({}, [1.5, 0.5], [0, 1], "scores"),
    ],
)
def test_abstention_bad_input_is_refused_in_one_line(params, scores, y, match):
    rng = np.random.default_rng(8)
    if scores is None or scores == "all-wrong":
        p = rng.random(500)
        y = (p < 0.5).astype(int) if scores == "all-wrong" else (rng.random(500) < p).astype(int)
        scores = p
    with pytest.raises(ValueError, match=match) as err:
        AbstentionRule(**params).fit(scores, y)
    assert "\n" not in str(err.value)
