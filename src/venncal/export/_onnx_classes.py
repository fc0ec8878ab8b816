"""The ONNX graph of a K-class calibrator: input ``scores`` (N, K), output ``p`` (N, K).

The stages of the plan (:mod:`venncal.export._plan`) act on whole rows: ``ReduceMax`` and
``ReduceSum`` over the classes, ``MatMul`` by the transposed weights, elementwise arithmetic
otherwise, then a softmax. A row with a score that is not finite, or (a map of
probabilities) outside [0, 1] or not summing to one, gives NaN in every column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.export._order import numpy_sum
from venncal.export._plan import (
    Affine,
    Floor,
    Plan,
    Scale,
    SmoothedLogSoftmax,
    StandardisedLogits,
)

if TYPE_CHECKING:
    from venncal.export._onnx import _Graph
    from venncal.export._plan import ClassInput

__all__ = ["class_graph"]

#: the smallest normal float64
_TINY = float(np.finfo(np.float64).tiny)


def _row_max(g: _Graph, t: str) -> str:
    return g.op("ReduceMax", t, axes=[1], keepdims=1)


def _row_sum(g: _Graph, t: str) -> str:
    return g.op("ReduceSum", t, g.const([1], np.int64), keepdims=1)


def column(g: _Graph, t: str, j: int) -> str:
    """Column ``j`` of an (N, K) tensor, as (N, 1)."""
    return g.op("Gather", t, g.const([j], np.int64, hint="col"), axis=1)


def numpy_row_sum(g: _Graph, t: str, K: int) -> str:
    """(N, 1): the sum of each row of ``t`` in numpy's order (``ReduceSum``'s is the
    runtime's, an ulp away on some rows)."""
    return numpy_sum([column(g, t, j) for j in range(K)], g.add)


def _softmax(g: _Graph, t: str) -> str:
    """``exp(t - max) / sum exp(t - max)`` per row, as the core computes it."""
    e = g.op("Exp", g.sub(t, _row_max(g, t)))
    return g.div(e, _row_sum(g, e))


def _floor(g: _Graph, t: str, st: Floor) -> str:
    return g.op("Max", t, g.num(st.value))


def _scale(g: _Graph, t: str, st: Scale) -> str:
    return g.mul(g.num(st.factor), t)


def _smoothed(g: _Graph, t: str, st: SmoothedLogSoftmax, K: int) -> str:
    P = _softmax(g, t)
    if st.c == 0:
        return g.op("Max", g.op("Log", g.op("Max", P, g.num(_TINY))), g.num(st.floor))
    return g.op("Log", g.add(g.mul(g.num(1.0 - st.c), P), g.num(st.c / K)))


def _standardised(g: _Graph, t: str, st: StandardisedLogits) -> str:
    half = g.num(0.5)
    d = g.sub(g.mul(half, t), g.mul(half, _row_max(g, t)))
    X = g.op("Max", g.div(d, g.num(st.scale)), g.num(-1e300))
    if st.beta > 0:
        return g.mul(g.num(st.beta), X)
    return g.mul(X, g.num(0.0))


def _affine(g: _Graph, t: str, st: Affine) -> str:
    if st.weights is None:
        return g.add(t, g.tensor(st.bias))
    u = g.op("MatMul", t, g.tensor(st.weights.T))
    if st.identity:
        u = g.add(t, u)
    return g.add(u, g.tensor(st.bias))


def refused(g: _Graph, read: ClassInput, S: str = "scores") -> tuple[str, str]:
    """``(bad, row_bad)``: the (N, K) entries that are not a finite score (not a probability,
    for a calibrator of probabilities) and the (N, 1) rows ``predict_proba`` refuses (one bad
    entry, or probabilities whose sum, in numpy's order, misses one by more than the
    tolerance)."""
    bad = g.op("Or", g.op("IsNaN", S), g.op("IsInf", S))
    if read.score_type == "probabilities":
        out = g.op("Or", g.op("Less", S, g.num(0.0)), g.op("Greater", S, g.num(1.0)))
        bad = g.op("Or", bad, out)
    row_bad = g.op("Greater", _row_max(g, g.op("Cast", bad, to=11)), g.num(0.5))
    if read.score_type == "probabilities" and read.sum_tolerance is not None:
        miss = g.op("Abs", g.sub(numpy_row_sum(g, S, read.n_classes), g.num(1.0)))
        off = g.op("Not", g.op("LessOrEqual", miss, g.num(read.sum_tolerance)))
        row_bad = g.op("Or", row_bad, off)
    return bad, row_bad


def class_graph(g: _Graph, plan: Plan) -> tuple[tuple[str, list[Any]], list[tuple[str, list[Any]]]]:
    """Add the nodes of a K-class plan to ``g``; return its input and outputs (name, shape)."""
    read = plan.classes
    assert read is not None
    K = read.n_classes
    S = "scores"
    bad, row_bad = refused(g, read, S)
    if read.score_type == "probabilities":
        t = g.op("Max", g.op("Log", S), g.num(read.log_tiny))
    elif read.score_type == "logits" and read.log_softmax:
        top = _row_max(g, S)
        lse = g.add(top, g.op("Log", _row_sum(g, g.op("Exp", g.sub(S, top)))))
        t = g.sub(S, lse)
    else:
        t = S
    for stage in plan.stages:
        if isinstance(stage, Floor):
            t = _floor(g, t, stage)
        elif isinstance(stage, Scale):
            t = _scale(g, t, stage)
        elif isinstance(stage, SmoothedLogSoftmax):
            t = _smoothed(g, t, stage, K)
        elif isinstance(stage, StandardisedLogits):
            t = _standardised(g, t, stage)
        else:
            t = _affine(g, t, stage)
    P = _softmax(g, t)
    g.nodes.append(g.onnx.helper.make_node("Where", [row_bad, g.num(np.nan), P], ["p"]))
    return (S, ["N", K]), [("p", ["N", K])]
