"""What a sample weight means: zero is no example, and an integer weight is that many copies
of the example, for every calibrator.

Every calibrator drops examples of weight zero, so adding such rows anywhere changes nothing, and
unit weights are the unweighted fit; a weight of k is k copies of the row (the property over
every calibrator, aggregate fit, multiclass strategy and classifier is in
``test_weight_copies.py``). Equal weights other than one are the unweighted fit only where the
answer depends on the ratios of the weights alone (not ``counts_examples``): the pseudo-counts of
smoothing, Platt's targets, the Beta marginal likelihoods of Bayesian binning and the Fisher
information behind ACP's intervals count examples, and Venn-Abers gives the test object weight 1.
"""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.reliability._settings import fewer
from tests.reliability._strategies import (
    calibration_data,
    calibrator_params,
    fit,
    moderate_scores,
    outputs,
)
from tests.reliability.test_weight_scaling import (
    counts_examples,
    quadratic_separable,
    separable,
)

ITERATIVE = {"PlattCalibrator", "ACPCalibrator", "BetaCalibrator", "QuadraticCalibrator"}


def assert_same(a, b, name):
    tol = 1e-4 if name in ITERATIVE else 1e-12  # Newton stops at a gradient of 1e-5
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=tol, atol=tol, err_msg=key)


@pytest.mark.parametrize("name, params", calibrator_params())
@fewer(4)
@given(
    data=calibration_data(weighted=True),
    extra=st.lists(st.tuples(moderate_scores["real"], st.integers(0, 1)), min_size=1, max_size=5),
    seed=st.integers(0, 2**32 - 1),
)
def test_rows_of_weight_zero_change_nothing(name, params, data, extra, seed):
    s, y, w, t = data
    keep = w > 0
    if params.get("smoothing") is False:  # separable: no finite fit, the answer is arbitrary
        assume(not separable(s, y, w))
    if name == "QuadraticCalibrator":  # likewise where a quadratic of the score separates them
        assume(not quadratic_separable(s, y, w))
    base = outputs(fit(name, params, s[keep], y[keep], w[keep]), t)
    s2 = np.r_[s, [e[0] for e in extra]]
    y2 = np.r_[y, [e[1] for e in extra]]
    w2 = np.r_[w, np.zeros(len(extra))]
    perm = np.random.default_rng(seed).permutation(s2.shape[0])
    padded = outputs(fit(name, params, s2[perm], y2[perm], w2[perm]), t)
    assert_same(base, padded, name)


@pytest.mark.parametrize("name, params", calibrator_params())
@fewer(4)
@given(data=calibration_data(weighted=False), c=st.sampled_from([1.0, 3.0, 0.25]))
def test_equal_weights_are_the_unweighted_fit(name, params, data, c):
    s, y, _, t = data
    if params.get("smoothing") is False:  # separable: no finite fit, the answer is arbitrary
        assume(not separable(s, y, None))
    if name == "QuadraticCalibrator":
        assume(not quadratic_separable(s, y, None))
    base = outputs(fit(name, params, s, y, None), t)
    weighted = outputs(fit(name, params, s, y, np.full(s.shape[0], c)), t)
    if c != 1.0 and counts_examples(name, params):
        return  # equal weights c are c copies of each row, not the unweighted fit
    assert_same(base, weighted, name)


def test_acp_ignores_a_row_of_weight_zero():
    s, y = np.array([0.0, 0.0, 4.1e-235]), np.array([0, 1, 0])
    base = fit("ACPCalibrator", {"alpha": 1.0}, s, y, None).predict_proba([1.0])
    padded = fit(
        "ACPCalibrator", {"alpha": 1.0}, np.r_[s, 1.0], np.r_[y, 0], np.array([1.0, 1.0, 1.0, 0.0])
    ).predict_proba([1.0])
    np.testing.assert_allclose(padded, base, rtol=0, atol=1e-9)
