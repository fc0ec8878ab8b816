"""The k-NN updatable scorer computes its distances a block of rows at a time; its fitted
statistics must equal those of the whole l x l distance matrix, bit for bit.

Both run with one BLAS thread: the whole product X @ X.T itself changes in the last bits with
the number of BLAS threads (OpenBLAS splits the rows between threads at sizes that are not
multiples of its kernel's panels), so it is the single-threaded product that is reproduced.
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from tests._reference.knn_dense import dense_statistics
from venncal.classifiers import _updatable_scorers
from venncal.classifiers._updatable_scorers import _KNNScorer


@pytest.mark.parametrize("block_entries", [1, 5000, 2**20])
@pytest.mark.parametrize("seed", range(6))
def test_blocked_fit_equals_the_whole_matrix(seed, block_entries, monkeypatch):
    monkeypatch.setattr(_updatable_scorers, "_KNN_BLOCK_ENTRIES", block_entries)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 700))
    d = int(rng.integers(1, 12))
    # integer features on half the seeds: many tied distances at the k-th neighbour
    X = rng.integers(0, 3, (n, d)).astype(float) if seed % 2 else rng.normal(size=(n, d))
    y = rng.integers(0, 2, n)
    for k in sorted({1, min(5, n), min(15, n), n}):
        with threadpool_limits(1):
            scorer = _KNNScorer(k).fit(X, y)
            r2, s, yk = dense_statistics(X, y, k)
        np.testing.assert_array_equal(scorer.radius2, r2)
        np.testing.assert_array_equal(scorer.sum_k, s)
        np.testing.assert_array_equal(scorer.y_kth, yk)
        x = rng.normal(size=d)
        assert np.isfinite(scorer.augmented_scores(x, 1)).all()
