"""Calibrators fitted on varied data, for the model-file tests."""

import numpy as np
from sklearn.base import clone

from tests._parts import assert_parts_same
from venncal import (
    ACPCalibrator,
    BayesianBinningCalibrator,
    BetaCalibrator,
    DirichletCalibrator,
    HistogramCalibrator,
    IsotonicCalibrator,
    MatrixScalingCalibrator,
    MulticlassVennAbersCalibrator,
    PlattCalibrator,
    QuadraticCalibrator,
    ScalingBinningCalibrator,
    TemperatureCalibrator,
    VennAbersCalibrator,
)


def _optional(cls, **params):
    """A calibrator with parameters that other versions may not have (else None)."""
    try:
        return cls(**params)
    except TypeError:
        return None


CALIBRATORS = {
    "venn-abers": VennAbersCalibrator(),
    "venn-abers-square": VennAbersCalibrator(merge="square"),
    "isotonic": IsotonicCalibrator(),
    "isotonic-nearest": IsotonicCalibrator(rule="nearest"),
    "platt": PlattCalibrator(),
    "platt-plain": PlattCalibrator(smoothing=False, max_iter=50),
    "histogram": HistogramCalibrator(n_bins=7),
    "histogram-quantile": HistogramCalibrator(n_bins=5, strategy="quantile", alpha=1.0),
    "abb": BayesianBinningCalibrator(lam=3.0),
    "sbb": BayesianBinningCalibrator(method="selection", lam=3.0, max_positions=40),
    "acp": ACPCalibrator(),
    "acp-smoothed": ACPCalibrator(confidence=0.9, alpha=1.0),
    "beta-logit": BetaCalibrator(score_scale="logit"),
    "isotonic-decimals": IsotonicCalibrator(decimals=1),
    "venn-abers-decimals": VennAbersCalibrator(decimals=2),
    "abb-paper": _optional(BayesianBinningCalibrator, averaging="paper", lam=3.0),
    "acp-no-adjustment": _optional(ACPCalibrator, interval_adjustment="none"),
    "beta-am-logit": BetaCalibrator(parameters="am", score_scale="logit"),
    "quadratic-logit": QuadraticCalibrator(score_scale="logit"),
    "scaling-binning": ScalingBinningCalibrator(n_bins=5),
    "temperature": TemperatureCalibrator(),
    "temperature-bias": TemperatureCalibrator(bias=True),
}


CALIBRATORS = {k: v for k, v in CALIBRATORS.items() if v is not None}


def data(seed, n=300, *, labels="int", weighted=False, scale=1.0):
    """Scores with ties, labels of a kind, optional weights; test scores around them."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=n), 2) * scale
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s / scale))).astype(int)
    if labels == "str":
        y = np.where(y == 1, "yes", "no")
    elif labels == "bool":
        y = y.astype(bool)
    elif labels == "pm1":
        y = 2 * y - 1
    w = rng.uniform(0.1, 5.0, size=n) if weighted else None
    t = np.r_[rng.normal(size=200) * scale, s[:50], np.nextafter(s[:20], np.inf), -0.0, 0.0]
    return s, y, w, t


def fitted(name, seed=0, **kwargs):
    s, y, w, t = data(seed, **kwargs)
    return clone(CALIBRATORS[name]).fit(s, y, sample_weight=w), t


#: K-class calibrators: name -> (calibrator, kind of scores it is fitted on)
MULTICLASS = {
    "temperature-k": (TemperatureCalibrator(), "logits"),
    "temperature-k-bias-probabilities": (TemperatureCalibrator(bias=True), "probabilities"),
    "matrix-sms": (MatrixScalingCalibrator(), "logits"),
    "matrix-svs-probabilities": (MatrixScalingCalibrator(structure="svs"), "probabilities"),
    "matrix-full": (MatrixScalingCalibrator(structure="full", max_iter=200), "logits"),
    "matrix-vector-raw": (MatrixScalingCalibrator(structure="vector", score_type="raw"), "logits"),
    "dirichlet": (DirichletCalibrator(), "probabilities"),
    "dirichlet-logits": (DirichletCalibrator(reg_lambda=0.1, reg_mu=1.0), "logits"),
    "mcva": (MulticlassVennAbersCalibrator(), "logits"),
    "mcva-ovr": (MulticlassVennAbersCalibrator(strategy="ovr"), "logits"),
    "mcva-ovr-separate-log": (
        MulticlassVennAbersCalibrator(strategy="ovr", pooled=False, merge="log"),
        "logits",
    ),
    "mcva-ovr-separate-probabilities": (
        MulticlassVennAbersCalibrator(strategy="ovr", pooled=False),
        "probabilities",
    ),
    "mcva-pairwise-separate-price": (
        MulticlassVennAbersCalibrator(strategy="pairwise", pooled=False, coupling="price"),
        "logits",
    ),
    "mcva-pairwise-wu1-square-probabilities": (
        MulticlassVennAbersCalibrator(coupling="wu1", merge="square"),
        "probabilities",
    ),
    "mcva-top-label": (MulticlassVennAbersCalibrator(strategy="top-label"), "logits"),
    "mcva-top-label-raw": (
        MulticlassVennAbersCalibrator(strategy="top-label", score_type="raw"),
        "logits",
    ),
}


def multiclass_data(seed, n=300, K=3, *, kind="logits", labels="int", weighted=False):
    """Class scores with ties (logits or probabilities), labels, optional weights, test scores."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(K), rng.integers(0, K, size=n - K)]
    Z = np.round(rng.normal(size=(n, K)) + 1.2 * np.eye(K)[y], 2)
    T = np.r_[rng.normal(size=(150, K)) * 1.5, Z[:30]]
    if kind == "probabilities":
        Z, T = (np.exp(M) / np.exp(M).sum(axis=1, keepdims=True) for M in (Z, T))
    if labels == "str":
        y = np.array(["ant", "bee", "cat", "dog", "eel"][:K])[y]
    w = rng.uniform(0.1, 5.0, size=n) if weighted else None
    return Z, y, w, T


def fitted_multiclass(name, seed=0, **kwargs):
    cal, kind = MULTICLASS[name]
    S, y, w, T = multiclass_data(seed, kind=kind, **kwargs)
    return clone(cal).fit(S, y, sample_weight=w), T


def predictions(cal, t, on=None):
    """Every prediction a calibrator offers, as a dict of arrays: those of ``on`` (e.g. the
    stand-in a model file was loaded as), which ``cal`` (the estimator) chooses."""
    on = cal if on is None else on
    if hasattr(cal, "predict_cdf"):  # a predictive distribution
        return distribution_predictions(on, t)
    out = {"proba": on.predict_proba(t), "predict": on.predict(t)}
    if hasattr(cal, "predict_interval"):
        out["interval"] = on.predict_interval(t)
    if isinstance(cal, ACPCalibrator):
        iv = np.column_stack([t - 0.3, t + 0.2])
        out["proba_given_interval"] = on.predict_proba(t, interval=iv)
        out["score_interval"] = on.score_interval(t)
    return out


def distribution_predictions(dist, s):
    """What a predictive distribution predicts for the test predictions ``s`` (within its
    groups, taken in turn, when it was fitted so)."""
    kw = {}
    if dist.groups_ is not None:
        known = list(dist.groups_) + list(dist.pooled_groups_)
        kw["groups"] = np.array([known[i % len(known)] for i in range(len(s))])
    t = np.linspace(-4.0, 4.0, 41)
    return {
        "cdf": dist.predict_cdf(s, t, **kw),
        "merged": dist.predict_merged_cdf(s, t, **kw),
        "quantiles": dist.predict_quantiles(s, [0.05, 0.5, 0.95], **kw),
        "interval": dist.predict_interval(s, **kw),
        "mean": dist.predict_mean(s, **kw),
        "crps": dist.crps(s, np.round(s, 1), **kw),
    }


def assert_same(a, b, where="value"):
    """Equal in type and value, bit for bit (NaN equal to NaN)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        if a.dtype.kind == "f":
            assert np.array_equal(a.view(np.uint8), b.view(np.uint8)) or np.array_equal(
                a, b, equal_nan=True
            ), where
            assert np.array_equal(np.signbit(a), np.signbit(b)), where
        else:
            assert np.array_equal(a, b), where
    elif assert_parts_same(a, b, where, assert_same):
        return
    elif isinstance(a, float) and a != a:
        assert b != b, where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"
        if isinstance(a, float):
            assert np.signbit(a) == np.signbit(b), where
