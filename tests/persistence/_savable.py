"""Every savable class, fitted on small data in the ways its fit can go, for the tests of the
table of expectations and the fuzz test of model files.

A class is fitted by the first route that works: ``fit`` on binary scores in (0, 1), ``fit`` on
a matrix of class probabilities, ``update`` with probabilities and labels (a monitor). A class
that needs another route gets an entry in ``VARIANTS``.
"""

import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

from venncal.persistence import registered_names
from venncal.persistence._registry import _BUILTIN, model_class

BUILTIN = sorted(_BUILTIN)


def binary_data(seed=0, n=120):
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), 2)
    y = (rng.random(n) < s).astype(int)
    return s, y


def multiclass_data(seed=0, n=150, K=3):
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(K), rng.integers(0, K, size=n - K)]
    logits = rng.normal(size=(n, K)) + 1.5 * np.eye(K)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return p, y


def confident_data(seed=0, n=300):
    """Binary probabilities far from 1/2 whose labels are all right: an abstention rule meets
    any target on them."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return np.round(np.where(y == 1, 0.99, 0.01) + rng.uniform(-0.009, 0.009, n), 3), y


def regression_data(seed=0, n=160):
    """Rounded predictions and real labels (ties in both): a regressor's calibration data."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.normal(size=n), 1)
    return s, np.round(s + rng.normal(size=n), 1)


def segment_data(seed=0, n=320):
    """Probabilities, labels and segments (a categorical column, a numerical one with missing
    values) that the base probabilities miss by group: a multicalibration calibrator keeps
    trees on them."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    x = np.round(rng.normal(size=n), 1)
    x[::17] = np.nan
    s = np.round(rng.uniform(0.05, 0.95, n), 2)
    shift = np.where(g == "a", 0.25, np.where(g == "b", -0.25, 0.0))
    y = (rng.random(n) < np.clip(s + shift, 0, 1)).astype(int)
    return s, y, pd.DataFrame({"g": g, "x": x})


def _fit_segments(est, seed=0):
    s, y, seg = segment_data(seed)
    return est.fit(s, y, segments=seg)


def _monitor_segments(est, seed=0):
    """A stream of probabilities, labels and segments: region "a" miscalibrated (it alarms),
    a binned numerical column with missing values when ``est`` bins it."""
    s, y, seg = segment_data(seed)
    if "x" not in (est.bins or {}):
        seg = seg.drop(columns="x")
    return est.update(s, y, segments=seg)


#: classes fitted with more than scores and labels: name -> fit(estimator, seed)
ROUTES = {
    "MulticalibrationCalibrator": _fit_segments,
    "SegmentedCalibrationMonitor": _monitor_segments,
}

#: classes fitted on other data than binary_data (an abstention rule meets no small target
#: on it; a predictive distribution needs real labels)
DATA = {"AbstentionRule": confident_data, "VennAbersDistribution": regression_data}


def _fit_generic(est, seed=0):
    if type(est).__name__ in ROUTES:
        return ROUTES[type(est).__name__](est, seed)
    if type(est).__name__ in DATA:
        return est.fit(*DATA[type(est).__name__](seed))
    s, y = binary_data(seed)
    errors = []
    if hasattr(est, "fit"):
        try:
            return est.fit(s, y)
        except (ValueError, TypeError) as exc:
            errors.append(exc)
        p, yk = multiclass_data(seed)
        try:
            return est.fit(p, yk)
        except (ValueError, TypeError) as exc:
            errors.append(exc)
    if hasattr(est, "update"):
        return est.update(s, y)
    raise AssertionError(f"cannot fit {type(est).__name__} on small data: {errors}")


def _va_groups(cls, seed):
    s, y = binary_data(seed, 200)
    g = np.where(np.arange(200) % 2 == 0, "a", "b")
    return cls(decimals=2).fit(s, y, groups=g)


def _partial(cls, seed, **params):
    s, y = binary_data(seed)
    return cls(**params).fit(s[:60], y[:60]).partial_fit(s[60:], y[60:])


def _multiclass(cls, seed, **params):
    p, y = multiclass_data(seed)
    return cls(**params).fit(p, y)


def _abstention_groups(cls, seed):
    s, y = confident_data(seed)
    return cls(group_fallback="pooled", min_accepted=50).fit(s, y, groups=np.arange(300) % 3)


def _abstention_classes(cls, seed):
    s, y = confident_data(seed)
    P = np.column_stack([(1 - s) / 2, (1 - s) / 2, s])
    P[:100] = P[:100, [0, 2, 1]]  # rows of class 1
    k = np.where(np.arange(300) < 100, y, 2 * y)
    return cls(target_error=0.2, confidence="lower").fit(np.stack([P, P], axis=2), k)


def _distribution(cls, seed, weights, **params):
    """A predictive distribution within three groups, with integer weights (of zero in one
    group, pooled) or float weights."""
    s, y = regression_data(seed)
    rng = np.random.default_rng(seed)
    g = np.array(["a", "b", "c"])[np.arange(s.shape[0]) % 3]
    if weights == "integer":
        w = rng.integers(1, 4, s.shape[0]).astype(float)
        w[g == "c"] = 0.0
    else:
        w = rng.uniform(0.1, 3.0, s.shape[0])
    return cls(**params).fit(s, y, sample_weight=w, groups=g)


#: more ways to fit a class than its defaults on small data: name -> [fit(cls, seed)]
VARIANTS = {
    "VennAbersDistribution": [
        lambda cls, seed: _distribution(cls, seed, "integer", group_fallback="pooled"),
        lambda cls, seed: _distribution(cls, seed, "float", merge="log"),
    ],
    "AbstentionRule": [_abstention_groups, _abstention_classes],
    "VennAbersCalibrator": [
        _va_groups,
        lambda cls, seed: _partial(cls, seed, decimals=1, merge="mean"),
    ],
    "IsotonicCalibrator": [lambda cls, seed: _partial(cls, seed, rule="nearest")],
    "HistogramCalibrator": [lambda cls, seed: _partial(cls, seed, n_bins=4, alpha=1.0)],
    "BayesianBinningCalibrator": [
        lambda cls, seed: _partial(cls, seed, method="selection", lam=3.0)
    ],
    "ACPCalibrator": [lambda cls, seed: _fit_generic(cls(alpha=1.0), seed)],
    "MulticalibrationCalibrator": [
        lambda cls, seed: _fit_segments(cls(min_samples_leaf=20, max_iter=30), seed),
        lambda cls, seed: _fit_segments(cls(interval="pooled", n_folds=3, merge="mean"), seed),
    ],
    "SegmentedCalibrationMonitor": [
        lambda cls, seed: _monitor_segments(cls(bins={"x": [-1.0, 0.0, 0.5]}, n_bins=3), seed),
        lambda cls, seed: _monitor_segments(cls(["g"], alpha=0.5, shifts=[-1.0, 1.0]), seed),
    ],
    "MulticlassVennAbersCalibrator": [
        lambda cls, seed: _multiclass(cls, seed, strategy="ovr"),
        lambda cls, seed: _multiclass(cls, seed, strategy="ovr", pooled=False, merge="log"),
        lambda cls, seed: _multiclass(cls, seed, strategy="pairwise", pooled=False),
        lambda cls, seed: _multiclass(cls, seed, coupling="price", score_type="logits"),
    ],
}


def fitted_instances(name, seed=0):
    """Fitted instances of the registered class ``name``: its defaults and its variants."""
    cls = model_class(name).cls
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small data: convergence and one-class notes
        out = [_fit_generic(cls(), seed)]
        out += [fit(cls, seed) for fit in VARIANTS.get(name, [])]
    return out


def fitted_attributes(est):
    """The fitted attributes of an instance: public names ending in '_'."""
    return sorted(a for a in vars(est) if a.endswith("_") and not a.startswith("_"))


def refit(est, seed=0):
    """A clone of ``est`` fitted again (for the parameter probes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _fit_generic(clone(est), seed)


__all__ = ["BUILTIN", "VARIANTS", "fitted_instances", "fitted_attributes", "registered_names"]
