"""Bayesian binning stays finite and exact for every ``lam`` up to the largest float.

A large ``lam`` puts a boundary between distinct scores almost surely, except where scores lie
so close together (relative to their range) that ``lam`` times the gap stays small: there the
binnings that merge them keep their weight. Both are checked against the enumeration of every
binning (tests/_reference/bayesian_binning_bruteforce.py), which takes the gaps in exact
fractions.
"""

import sys
import warnings

import numpy as np
import pytest

from tests._reference.bayesian_binning_bruteforce import brute_force
from venncal.calibration import BayesianBinningCalibrator
from venncal.core.bayesian_binning import fit_bayesian_binning

LAMS = [1e4, 1e100, 1e300, sys.float_info.max]


def _data(lam, seed=0):
    """Ten distinct scores in [0, 1] and three within 1/lam of the range of each other."""
    rng = np.random.default_rng(seed)
    s = np.sort(rng.random(10))
    near = s[4] + np.array([1.0, 2.0, 4.0]) / min(lam, 1e307)
    scores = np.repeat(np.r_[s, near], 3)
    y = (rng.random(scores.size) < np.clip(scores, 0, 1)).astype(int)
    return scores, y


@pytest.mark.parametrize("lam", LAMS)
@pytest.mark.parametrize("engine", ["auto", "numpy"])
def test_averaging_is_finite_and_exact_at_large_lam(lam, engine):
    s, y = _data(lam)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        abb = fit_bayesian_binning(s, y, method="averaging", lam=lam, engine=engine)
        sbb = fit_bayesian_binning(s, y, method="selection", lam=lam, engine=engine)
    _, sbb_ref, sbb_log, abb_ref, abb_log, _ = brute_force(s, y, lam=lam)
    for fit in (abb, sbb):
        assert np.isfinite(fit.values).all() and np.isfinite(fit.log_score)
        assert ((fit.values > 0) & (fit.values < 1)).all()
    np.testing.assert_allclose(abb.values, abb_ref, rtol=1e-9)
    np.testing.assert_allclose(abb.log_score, abb_log, rtol=1e-9)
    np.testing.assert_allclose(sbb.values, sbb_ref, rtol=1e-12)
    np.testing.assert_allclose(sbb.log_score, sbb_log, rtol=1e-9)


@pytest.mark.parametrize("lam", LAMS)
def test_the_paper_average_is_finite_at_large_lam(lam):
    s, y = _data(lam, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_bayesian_binning(s, y, method="averaging", averaging="paper", lam=lam)
    assert np.isfinite(fit.values).all() and ((fit.values > 0) & (fit.values < 1)).all()


def test_a_huge_lam_gives_each_distinct_score_its_own_bin():
    rng = np.random.default_rng(2)
    s = np.repeat(np.linspace(0, 1, 30), 5)
    y = (rng.random(s.size) < s).astype(int)
    n1 = y.reshape(30, 5).sum(axis=1)
    own_bins = (n1 + 1) / (5 + 2)
    for lam in LAMS[1:]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cal = BayesianBinningCalibrator(lam=lam).fit(s, y)
        np.testing.assert_allclose(cal.predict_proba(np.linspace(0, 1, 30))[:, 1], own_bins)
