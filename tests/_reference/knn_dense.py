"""The k-NN updatable scorer's statistics from the whole l x l squared-distance matrix.

This is how the full Venn-Abers k-NN fast path fitted before it computed the distances a block
of rows at a time; the tests and the benchmark compare the two.
"""

import numpy as np


def dense_statistics(X, y01, k):
    """(radius2, sum_k, y_kth): squared distance to the k-th neighbour (an object is its own
    first neighbour), sum of the k neighbours' labels, label of the k-th neighbour."""
    y = y01.astype(np.float64)
    sq = (X * X).sum(axis=1)
    D = np.maximum(sq[:, None] + sq[None, :] - 2.0 * X @ X.T, 0.0)
    np.fill_diagonal(D, -1.0)
    n = X.shape[0]
    idx = np.argpartition(D, k - 1, axis=1)[:, :k] if k < n else np.tile(np.arange(n), (n, 1))
    dk = np.take_along_axis(D, idx, axis=1)
    kth = idx[np.arange(n), np.argmax(dk, axis=1)]
    return np.max(dk, axis=1), y[idx].sum(axis=1), y[kth]
