"""The multiclass ``"bins"`` and the ``"isotonic"`` taxonomies of ``VennClassifier``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from venncal.core.venn import VennPrediction, equal_mass_venn_predict
from venncal.core.venn_abers import ivap_fit

if TYPE_CHECKING:
    from venncal._typing import AnyArray, FloatArray, IntArray

__all__ = ["bins_by_label", "isotonic_venn"]


def bins_by_label(
    cal_scores: FloatArray,
    cal_labels: IntArray,
    scores: FloatArray,
    exclude: IntArray | None,
    w: FloatArray | None = None,
    *,
    n_bins: int,
    n_classes: int,
) -> VennPrediction:
    """Multiclass bins: the predicted label, then equal-mass bins of its probability.

    ``w`` weights the calibration examples (None: unweighted), as in
    :func:`venncal.core.venn.equal_mass_venn_predict`.
    """
    K = n_classes
    m = scores.shape[0]
    cal_lab = np.argmax(cal_scores, axis=1)
    test_lab = np.argmax(scores, axis=1)
    lower = np.empty((m, K))
    upper = np.empty((m, K))
    size: AnyArray = np.empty(m, dtype=np.intp if w is None else np.float64)
    for c in np.unique(test_lab):
        rows = np.flatnonzero(test_lab == c)
        members = np.flatnonzero(cal_lab == c)
        if members.size == 0:  # an empty category: nothing is known
            lower[rows], upper[rows], size[rows] = 0.0, 1.0, 0
            continue
        ex = None
        if exclude is not None:
            local = np.full(cal_labels.shape[0], -1)
            local[members] = np.arange(members.size)
            ex = local[exclude[rows]]
        pred = equal_mass_venn_predict(
            cal_scores[members, c],
            cal_labels[members],
            scores[rows, c],
            n_bins=n_bins,
            n_classes=K,
            exclude=ex,
            sample_weight=None if w is None else w[members],
        )
        lower[rows], upper[rows], size[rows] = pred.lower, pred.upper, pred.category_size
    return VennPrediction(lower, upper, np.argmax(lower, axis=1), size)


def isotonic_venn(
    cal_scores: FloatArray,
    cal_labels: IntArray,
    w: FloatArray | None,
    scores: FloatArray,
    exclude: IntArray | None,
) -> VennPrediction:
    """Two-class Venn prediction of the isotonic taxonomy: the Venn-Abers ``p0`` and ``p1``.

    ``w`` weights the calibration examples (None: unweighted); ``exclude[i]``, when given, is
    the calibration example left out for object ``i``.
    """
    m = scores.shape[0]
    p0 = np.empty(m)
    p1 = np.empty(m)
    if exclude is None:
        p0[:], p1[:] = ivap_fit(cal_scores, cal_labels, sample_weight=w).predict(scores)
    else:
        for e in np.unique(exclude):
            rows = np.flatnonzero(exclude == e)
            keep = np.ones(cal_labels.shape[0], dtype=bool)
            keep[e] = False
            tables = ivap_fit(
                cal_scores[keep],
                cal_labels[keep],
                sample_weight=None if w is None else w[keep],
            )
            p0[rows], p1[rows] = tables.predict(scores[rows])
    lower = np.column_stack([1.0 - p1, p0])
    upper = np.column_stack([1.0 - p0, p1])
    # category sizes are not single numbers under a label-dependent taxonomy
    return VennPrediction(lower, upper, np.argmax(lower, axis=1), np.full(m, -1))
