"""The protocol of an updatable scorer (:mod:`venncal.classifiers._updatable` says what it is
for), and the one helper the built-in scorers share.

It sits below both modules of built-in scorers (naive Bayes in
:mod:`~venncal.classifiers._updatable`, the others in
:mod:`~venncal.classifiers._updatable_scorers`), so that neither imports the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing_extensions import Self

    from venncal._typing import AnyArray, FloatArray

__all__ = ["UpdatableScorer", "rows_then"]


class UpdatableScorer:
    """Protocol of a scorer that can add one training example cheaply.

    Subclasses implement ``fit`` and ``augmented_scores``. Instances are created by a factory
    registered with :func:`register_updatable_scorer`.

    Methods
    -------
    fit(X, y01)
        Fit on the training set: ``X`` a float64 array of shape (l, d), ``y01`` int 0/1 labels.
        Returns self, or None when the scorer cannot reproduce a refit on this training set
        (the refitting path is used then).
    augmented_scores(x, y)
        Scores of the model trained on the training set plus ``(x, y)`` (``x`` of shape (d,),
        ``y`` 0 or 1), for the l training objects followed by ``x``: shape (l + 1,), a new
        array. The scores must equal
        ``positive_scores(clone(est).fit(X_aug, y_aug), X_aug, response_method)``. It must not
        modify the scorer: one fitted scorer serves several threads at once.
    augmented_scores_both(x)
        ``(augmented_scores(x, 0), augmented_scores(x, 1))``; override it to share the work
        the two labels have in common.

    Examples
    --------
    A scorer for a nearest-centroid rule (score = distance to the negative centroid minus
    distance to the positive one):

    >>> class CentroidScorer(UpdatableScorer):
    ...     def fit(self, X, y01):
    ...         self.X, self.sums = X, [X[y01 == k].sum(0) for k in (0, 1)]
    ...         self.counts = [int((y01 == k).sum()) for k in (0, 1)]
    ...         return self
    ...     def augmented_scores(self, x, y):
    ...         sums, counts = list(self.sums), list(self.counts)
    ...         sums[y] = sums[y] + x; counts[y] += 1
    ...         c0, c1 = sums[0] / counts[0], sums[1] / counts[1]
    ...         Z = np.vstack([self.X, x])
    ...         return np.linalg.norm(Z - c0, axis=1) - np.linalg.norm(Z - c1, axis=1)
    >>> sc = CentroidScorer().fit(np.array([[0.0], [1.0], [3.0]]), np.array([0, 0, 1]))
    >>> sc.augmented_scores(np.array([2.0]), 1)
    array([-2., -1.,  2.,  1.])
    """

    def fit(self, X: FloatArray, y01: AnyArray) -> Self | None:  # pragma: no cover - interface
        raise NotImplementedError

    def augmented_scores(self, x: FloatArray, y: int) -> FloatArray:  # pragma: no cover - interface
        raise NotImplementedError

    def augmented_scores_both(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Scores with ``x`` labelled 0 and with ``x`` labelled 1, as a pair of arrays."""
        return self.augmented_scores(x, 0), self.augmented_scores(x, 1)


def rows_then(A: FloatArray, a: FloatArray, w: FloatArray) -> FloatArray:
    """``A @ w`` followed by ``a @ w`` (the training objects, then the new one), a new array."""
    out = np.empty((A.shape[0] + 1,) + w.shape[1:])
    np.matmul(A, w, out=out[:-1])
    out[-1] = a @ w
    return out
