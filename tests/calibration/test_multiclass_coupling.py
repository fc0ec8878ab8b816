"""Pairwise coupling against naive implementations of the papers' formulas."""

import numpy as np
import pytest

from tests._reference.coupling_naive import price_naive, wu1_naive, wu2_naive, wu2_objective
from venncal.core.coupling import COUPLINGS, couple, couple_price, couple_wu1, couple_wu2


def random_r(rng, K, low=0.02, high=0.98):
    R = rng.uniform(low, high, size=(K, K))
    R = np.triu(R, 1)
    return R + np.tril(1 - R.T, -1) + 0.5 * np.eye(K)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("K", [2, 3, 4, 7])
def test_price_and_wu1_match_naive(seed, K):
    R = random_r(np.random.default_rng(seed), K)
    np.testing.assert_allclose(couple_price(R[None])[0], price_naive(R), atol=1e-12)
    np.testing.assert_allclose(couple_wu1(R[None])[0], wu1_naive(R), atol=1e-10)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("K", [2, 3, 4, 7])
def test_wu2_matches_naive_minimiser(seed, K):
    R = random_r(np.random.default_rng(seed), K)
    got = couple_wu2(R[None])[0]
    ref = np.array(wu2_naive(R))
    np.testing.assert_allclose(got, ref, atol=1e-6)
    # and it is at least as good a minimiser as the generic optimiser
    assert wu2_objective(got, R) <= wu2_objective(ref, R) + 1e-12


@pytest.mark.parametrize("method", COUPLINGS)
@pytest.mark.parametrize("seed", range(4))
def test_consistent_pairwise_probabilities_give_back_the_distribution(method, seed):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(6), size=5)
    R = P[:, :, None] / (P[:, :, None] + P[:, None, :])
    np.testing.assert_allclose(couple(R, method), P, atol=1e-9)


@pytest.mark.parametrize("method", COUPLINGS)
@pytest.mark.parametrize("K", [3, 10, 30])
def test_one_class_at_r_against_every_other(method, K):
    # r = 0.9 against each of K - 1 others, 0.5 among them: the consistent answer is
    # p = 9 q with q = 1 / (9 + K - 1), e.g. 0.5 for K = 10 (not 0.9)
    R = np.full((1, K, K), 0.5)
    R[0, 0, 1:], R[0, 1:, 0] = 0.9, 0.1
    expected = 9 / (9 + K - 1)
    assert couple(R, method)[0, 0] == pytest.approx(expected, abs=1e-9)
    assert price_naive(R[0])[0] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("method", COUPLINGS)
def test_batched_rows_are_independent_and_sum_to_one(method):
    rng = np.random.default_rng(3)
    R = np.stack([random_r(rng, 5) for _ in range(50)])
    P = couple(R, method)
    assert P.shape == (50, 5) and (P >= 0).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(couple(R[7:8], method)[0], P[7], atol=1e-12)


def test_price_with_zero_and_one():
    R = np.array([[[0.5, 1.0, 1.0], [0.0, 0.5, 0.5], [0.0, 0.5, 0.5]]])
    np.testing.assert_allclose(couple_price(R)[0], price_naive(R[0]))
    np.testing.assert_allclose(couple_price(R)[0], [1.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "R, match",
    [
        (np.full((2, 3), 0.5), "shape"),
        (np.full((1, 3, 3), 1.5), r"\[0, 1\]"),
        (np.full((1, 1, 1), 0.5), "K >= 2"),
        (np.where(np.eye(3), 0.5, np.nan)[None], r"\[0, 1\]"),
    ],
)
def test_bad_input(R, match):
    with pytest.raises(ValueError, match=match):
        couple_wu2(R)


def test_bad_method():
    with pytest.raises(ValueError, match="coupling"):
        couple(np.full((1, 3, 3), 0.5), "ht")
