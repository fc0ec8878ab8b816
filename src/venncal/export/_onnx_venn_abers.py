"""The ONNX graph of one-vs-rest multiclass Venn-Abers: input ``scores`` (N, K); outputs
``p``, ``p0`` and ``p1``, each (N, K).

Each class's score is searched in its p0 and
p1 step tables by the binary export's unrolled binary search (:func:`venncal.export._onnx._step`;
one search of the whole matrix when the tables are pooled), the pairs are merged, and each
row is divided by its sum, added column by column in numpy's order (not ``ReduceSum``, whose
order is the runtime's). A row with a score that is not finite, or (probabilities) outside
[0, 1] or not summing to one, gives NaN in every column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.export._onnx_classes import column, numpy_row_sum, refused
from venncal.export._plan import Plan

if TYPE_CHECKING:
    from collections.abc import Callable

    from venncal.export._onnx import _Graph

__all__ = ["venn_abers_class_graph"]


def venn_abers_class_graph(
    g: _Graph, plan: Plan, step: Callable[..., str], merge: Callable[..., str]
) -> tuple[tuple[str, list[Any]], list[tuple[str, list[Any]]]]:
    """Add the nodes of a one-vs-rest multiclass Venn-Abers plan to ``g``; return its input
    and outputs (name, shape). ``step`` and ``merge`` add a step lookup and a merge of two
    (passed in: the graph module imports this one)."""
    _step, _merge = step, merge

    read, va = plan.classes, plan.venn_abers_classes
    assert read is not None and va is not None
    K = read.n_classes
    S = "scores"
    bad, row_bad = refused(g, read, S)
    # 0 in place of a score that is not finite (its row's outputs are NaN): the searches and
    # sums then meet no NaN and no infinity
    x = g.where(bad, g.num(0.0), S)
    if va.pooled:
        p0, p1 = _step(g, x, va.tables[0][0]), _step(g, x, va.tables[0][1])
    else:
        cols = [column(g, x, j) for j in range(K)]
        p0 = g.op("Concat", *[_step(g, c, t[0]) for c, t in zip(cols, va.tables)], axis=1)
        p1 = g.op("Concat", *[_step(g, c, t[1]) for c, t in zip(cols, va.tables)], axis=1)
    m = _merge(g, p0, p1, va.merge)
    P = g.div(m, numpy_row_sum(g, m, K))
    nan = g.num(np.nan)
    helper = g.onnx.helper
    for name, tensor in (("p", P), ("p0", p0), ("p1", p1)):
        g.nodes.append(helper.make_node("Where", [row_bad, nan, tensor], [name]))
    return (S, ["N", K]), [(name, ["N", K]) for name in ("p", "p0", "p1")]
