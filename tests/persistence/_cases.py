"""Calibrators fitted on varied data, for the model-file tests."""

import dataclasses

import numpy as np
from sklearn.base import clone

from venncal import (
    ACPCalibrator,
    BayesianBinningCalibrator,
    BetaCalibrator,
    HistogramCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
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


def predictions(cal, t):
    """Every prediction a calibrator offers, as a dict of arrays."""
    out = {"proba": cal.predict_proba(t), "predict": cal.predict(t)}
    if hasattr(cal, "predict_interval"):
        out["interval"] = cal.predict_interval(t)
    if isinstance(cal, ACPCalibrator):
        iv = np.column_stack([t - 0.3, t + 0.2])
        out["proba_given_interval"] = cal.predict_proba(t, interval=iv)
        out["score_interval"] = cal.score_interval(t)
    return out


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
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, z) in enumerate(zip(a, b)):
            assert_same(x, z, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, float) and a != a:
        assert b != b, where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"
        if isinstance(a, float):
            assert np.signbit(a) == np.signbit(b), where
