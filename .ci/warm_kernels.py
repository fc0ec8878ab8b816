"""Compile venncal's slowest numba kernels into the source tree's cache.

CI runs this in the background while it installs the documentation and test tools (work that
waits on the disk and the network more than on the processor), so that the test suite's two
workers find these kernels compiled instead of each compiling them from a cold cache. It
changes no result: numba's cache holds the same machine code the first call would compile.
"""

import sys
from pathlib import Path

import numpy as np

from venncal import (
    BayesianBinningCalibrator,
    IsotonicCalibrator,
    VennAbersCalibrator,
    VennAbersDistribution,
)
from venncal.core._isotonic_stream import isotonic_fit_blocks
from venncal.core._ivap_stream import ivap_fit_blocks
from venncal.core._loo_ivap import loo_ivap_predict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' reference routes
from tests._reference.loo_ranges import folded  # noqa: E402

rng = np.random.default_rng(0)
n = 5000  # above the size under which kernels run as plain Python
s = np.round(rng.random(n), 3)
y = (rng.random(n) < s).astype(int)
fractional = rng.random(n) + 0.5
for weights in (None, fractional):  # integer and float geometry
    for method in ("paths", "shortcuts"):
        loo_ivap_predict(s, y, weights, np.arange(5), rng.random(5), **folded(method))
    VennAbersCalibrator().fit(s, y, sample_weight=weights).predict_proba(s)
    IsotonicCalibrator().fit(s, y, sample_weight=weights).predict_proba(s)
for method in ("averaging", "selection"):
    BayesianBinningCalibrator(method=method).fit(s, y).predict_proba(s)
u, at = np.unique(s, return_inverse=True)
weight, positives = np.bincount(at), np.bincount(at, weights=y).astype(np.int64)
ivap_fit_blocks(lambda i, j: (u[i:j], weight[i:j], positives[i:j]), u.shape[0], n, int(y.sum()))
isotonic_fit_blocks(lambda i, j: (u[i:j], weight[i:j], positives[i:j]), u.shape[0])
VennAbersDistribution().fit(s, s + rng.normal(size=n)).crps(s[:100], s[:100])
print("warm_kernels: compiled")
