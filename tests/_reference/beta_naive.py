"""Beta calibration from its definition, by a general-purpose optimiser.

Kull, Silva Filho & Flach (2017): ``logit(mu(s)) = a ln s - b ln(1 - s) + c``, fitted by maximum
likelihood; when a coefficient is negative its feature is dropped and the model refitted with
that coefficient fixed at 0. Here every model is a separate likelihood minimised by scipy's
BFGS on the raw parameters, with no Newton steps and no shared code with venncal.
"""

import math

import numpy as np
from scipy.optimize import minimize

EPS = np.finfo(np.float64).eps


def _nll(theta, build, y, w):
    z = build(theta)
    # log(1 + e^z) - y z, summed with weights
    return float(np.sum(w * (np.logaddexp(0.0, z) - y * z)))


def _fit(build, k, y, w):
    if k == 0:
        return np.zeros(0)
    res = minimize(_nll, np.zeros(k), args=(build, y, w), method="BFGS", options={"gtol": 1e-10})
    return res.x


def naive_beta(s, y, w=None, parameters="abm"):
    """Return (a, b, c) of the beta map fitted to scores ``s`` in [0, 1] and 0/1 labels."""
    s = np.clip(np.asarray(s, float), EPS, 1 - EPS)
    y = np.asarray(y, float)
    w = np.ones_like(s) if w is None else np.asarray(w, float) / np.mean(w)
    ls, l1 = np.log(s), -np.log(1 - s)
    if parameters == "am":
        (a, c) = _fit(lambda t: t[0] * (ls + l1) + t[1], 2, y, w)
        if a < 0:
            a, (c,) = 0.0, _fit(lambda t: t[0] + 0 * s, 1, y, w)
        return a, a, c
    if parameters == "ab":
        ln2 = math.log(2.0)
        (a, b) = _fit(lambda t: t[0] * (ls + ln2) + t[1] * (l1 - ln2), 2, y, w)
        if a < 0:
            (b,) = _fit(lambda t: t[0] * (l1 - ln2), 1, y, w)
            a, b = 0.0, max(b, 0.0)
        elif b < 0:
            (a,) = _fit(lambda t: t[0] * (ls + ln2), 1, y, w)
            a, b = max(a, 0.0), 0.0
        return a, b, ln2 * (a - b)
    (a, b, c) = _fit(lambda t: t[0] * ls + t[1] * l1 + t[2], 3, y, w)
    if a < 0 or b < 0:
        feat = l1 if a < 0 else ls
        (k, c) = _fit(lambda t: t[0] * feat + t[1], 2, y, w)
        if k < 0:
            k, (c,) = 0.0, _fit(lambda t: t[0] + 0 * s, 1, y, w)
        a, b = (0.0, k) if a < 0 else (k, 0.0)
    return a, b, c


def beta_map(s, a, b, c):
    """``mu(s)`` from its definition."""
    s = np.clip(np.asarray(s, float), EPS, 1 - EPS)
    return 1.0 / (1.0 + 1.0 / (math.exp(c) * s**a / (1 - s) ** b))
