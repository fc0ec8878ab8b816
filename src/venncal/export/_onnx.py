"""A fitted calibrator as an ONNX graph: :func:`to_onnx`.

Every tensor is float64 (or int64 for indices). A step table is searched exactly by an
unrolled binary search: the breakpoints, padded with ``+inf`` to ``2^L - 1``, are compared
with the score at ``L`` gathered positions (``Gather``, ``LessOrEqual`` or ``Less``,
``Where``), which gives the number of breakpoints up to the score, i.e. ``np.searchsorted``;
the value is then gathered. Parametric maps are the same arithmetic as the core's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from venncal.export._abstain import decision_of, onnx_accept
from venncal.export._plan import (
    BIG,
    EPS,
    Beta,
    Interpolate,
    Nearest,
    Quadratic,
    Sigmoid,
    Step,
    Temperature,
    plan_of,
)

if TYPE_CHECKING:
    import onnx

__all__ = ["to_onnx", "OPSET"]

#: the ONNX operator set the graphs use
OPSET = 17


def _import_onnx():
    try:
        import onnx
    except ImportError:
        raise ImportError(
            'to_onnx needs the onnx package: pip install "venncal[export]" (or pip install onnx).'
        ) from None
    return onnx


#: the name of the graph's float constants, read at run time (see :meth:`_Graph.finish`)
_NUMBERS = "venncal_numbers"
#: a boolean scalar that is never true, which the optimiser cannot know ahead of the run
_NEVER = "venncal_never"


class _Graph:
    """Nodes and constants of one graph, with fresh names.

    A float64 number of the arithmetic (:meth:`num`) is not an initializer: onnxruntime's
    graph optimiser, on by default, rewrites arithmetic with constant initializers as if they
    were float32 (it removes ``x + c`` and ``x - c`` for ``c`` that rounds to 0 in float32,
    ``x * c`` and ``x / c`` for ``c`` within about 6e-8 of 1, and folds constant
    subexpressions). Every number is instead gathered from one vector that the graph computes
    from its input, ``Where(Size(score) = -1, numbers, numbers)``, which the optimiser
    cannot evaluate ahead of the run, so no arithmetic node has a constant operand.
    """

    def __init__(self, onnx: Any) -> None:
        self.onnx = onnx
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.n = 0
        self.numbers: dict[
            bytes, tuple[int, float, str]
        ] = {}  # float64 bit pattern -> (index, value, name of its gathered scalar)

    def name(self, hint: str) -> str:
        self.n += 1
        return f"{hint}_{self.n}"

    def const(self, value: Any, dtype: Any = np.float64, hint: str = "c") -> str:
        arr = np.asarray(value, dtype=dtype)
        name = self.name(hint)
        self.inits.append(self.onnx.numpy_helper.from_array(arr, name))
        return name

    def op(self, op_type: str, *inputs: str, hint: str | None = None, **attrs: Any) -> str:
        out = self.name(hint or op_type.lower())
        self.nodes.append(self.onnx.helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    # shorthands
    def add(self, a: str, b: str) -> str:
        return self.op("Add", a, b)

    def sub(self, a: str, b: str) -> str:
        return self.op("Sub", a, b)

    def mul(self, a: str, b: str) -> str:
        return self.op("Mul", a, b)

    def div(self, a: str, b: str) -> str:
        return self.op("Div", a, b)

    def where(self, c: str, a: str, b: str) -> str:
        return self.op("Where", c, a, b)

    def num(self, v: float) -> str:
        """A float64 scalar gathered at run time from the graph's vector of numbers."""
        v = float(v)
        key = np.float64(v).tobytes()
        if key not in self.numbers:
            i = len(self.numbers)
            idx = self.const(i, np.int64, hint="i")
            name = self.name("n")
            node = self.onnx.helper.make_node("Gather", [_NUMBERS, idx], [name], axis=0)
            self.nodes.append(node)
            self.numbers[key] = (i, v, name)
        return self.numbers[key][2]

    def tensor(self, value: Any) -> str:
        """A float64 array (a matrix, a vector of class biases) read at run time, as
        :meth:`num` reads numbers."""
        c = self.const(np.asarray(value, dtype=np.float64), hint="t")
        return self.op("Where", _NEVER, c, c, hint="tensor")

    def finish(self, score: str) -> None:
        """Put first the nodes that make the vector of numbers from the initializer ``table``
        (``Where`` of a condition on the input's size that is never true)."""
        helper = self.onnx.helper
        values = np.array([v for _, v, _ in sorted(self.numbers.values())], dtype=np.float64)
        table = self.const(values, hint="numbers")
        size = self.name("size")
        head = [
            helper.make_node("Size", [score], [size]),
            helper.make_node("Equal", [size, self.const(-1, np.int64)], [_NEVER]),
            helper.make_node("Where", [_NEVER, table, table], [_NUMBERS]),
        ]
        self.nodes[:0] = head


def _count(g, x, breaks, *, right):
    """int64 tensor: the number of ``breaks`` <= x (``right``) or < x, by binary search."""
    n = breaks.shape[0]
    levels = max(1, int(n).bit_length())
    padded = np.full((1 << levels) - 1, np.inf)
    padded[:n] = breaks
    table = g.const(padded, hint="breaks") if levels > 1 else None
    cmp = "LessOrEqual" if right else "Less"
    pos = None
    for level in range(levels - 1, -1, -1):
        step = 1 << level
        if pos is None:  # the first probe is at index step - 1 for every score
            b = g.num(padded[step - 1])
            pos = g.where(g.op(cmp, b, x), g.const(step, np.int64), g.const(0, np.int64))
            continue
        at = g.add(pos, g.const(step - 1, np.int64)) if step > 1 else pos
        b = g.op("Gather", table, at, axis=0)
        pos = g.where(g.op(cmp, b, x), g.add(pos, g.const(step, np.int64)), pos)
    return pos


def _gather(g, values, idx):
    return g.op("Gather", g.const(np.asarray(values, dtype=np.float64)), idx, axis=0)


def _step(g: _Graph, x: str, st: Step) -> str:
    if st.breaks.shape[0] == 0:
        return g.add(g.mul(x, g.num(0.0)), g.num(st.values[0]))
    return _gather(g, st.values, _count(g, x, st.breaks, right=st.right))


def _constant(g, x, v):
    # 0 x is 0 for finite x (NaN rows are replaced at the end)
    return g.add(g.mul(g.op("Clip", x, g.num(-1.0), g.num(1.0)), g.num(0.0)), g.num(v))


def _nearest(g, x, st):
    K = st.x.shape[0]
    if K == 1:
        return _constant(g, x, st.y[0])
    k = _count(g, x, st.x, right=False)
    hi = g.op("Min", k, g.const(K - 1, np.int64))
    lo = g.op("Max", g.sub(k, g.const(1, np.int64)), g.const(0, np.int64))
    xh, xl = _gather(g, st.x, hi), _gather(g, st.x, lo)
    up = g.op("Less", g.sub(xh, x), g.sub(x, xl))
    return g.where(up, _gather(g, st.y, hi), _gather(g, st.y, lo))


def _interpolate(g, x, st):
    xs, ys = st.x, st.y
    K = xs.shape[0]
    if K == 1:
        return _constant(g, x, ys[0])
    k = _count(g, x, xs, right=True)
    hv, xa, gp, yl, dy, yh = st.segments()
    lam = g.div(g.sub(g.mul(_gather(g, hv, k), x), _gather(g, xa, k)), _gather(g, gp, k))
    lam = g.op("Min", g.op("Max", lam, g.num(0.0)), g.num(1.0))
    lo_v, hi_v = _gather(g, yl, k), _gather(g, yh, k)
    v = g.add(lo_v, g.mul(lam, _gather(g, dy, k)))
    return g.op("Min", g.op("Max", v, lo_v), hi_v)


def _expit(g, t):
    one = g.num(1.0)
    return g.div(one, g.add(one, g.op("Exp", g.op("Neg", t))))


def _log1p(g, t):
    one = g.num(1.0)
    u = g.add(one, t)
    exact = g.op("Equal", u, one)
    return g.where(exact, t, g.div(g.mul(g.op("Log", u), t), g.sub(u, one)))


def _standardise(g, x, center, scale):
    d = g.sub(x, g.num(center))
    halved = g.div(g.sub(g.mul(g.num(0.5), x), g.num(0.5 * center)), g.num(0.5 * scale))
    return g.where(g.op("IsInf", d), halved, g.div(d, g.num(scale)))


def _sigmoid(g, x, st):
    if st.a == 0.0:
        from scipy.special import expit

        return _constant(g, x, float(expit(-st.b)))
    u = _standardise(g, x, st.center, st.scale) if st.standardise else x
    z = g.add(g.mul(g.num(st.a), u), g.num(st.b))
    return _expit(g, g.op("Neg", z))


def _prob_features(g, x):
    s = g.op("Clip", x, g.num(EPS), g.num(1.0 - EPS))
    return g.op("Log", s), g.op("Neg", _log1p(g, g.op("Neg", s)))


def _logaddexp0(g, y):
    m = g.op("Max", y, g.num(0.0))
    return g.add(m, _log1p(g, g.op("Exp", g.op("Neg", g.op("Abs", y)))))


def _beta(g, x, st):
    if st.logit:
        f0 = g.op("Neg", _logaddexp0(g, g.op("Neg", x)))
        f1 = _logaddexp0(g, x)
    else:
        f0, f1 = _prob_features(g, x)
    z = g.add(g.add(g.mul(g.num(st.a), f0), g.mul(g.num(st.b), f1)), g.num(st.c))
    return _expit(g, z)


def _log_odds(g, x, logit):
    if logit:
        return x
    f0, f1 = _prob_features(g, x)
    return g.add(f0, f1)


def _quadratic(g, x, st):
    u = _standardise(g, _log_odds(g, x, st.logit), st.center, st.scale)
    u = g.op("Min", g.op("Max", u, g.num(st.lo)), g.num(st.hi))
    z = g.add(g.num(st.c0), g.mul(u, g.add(g.num(st.c1), g.mul(g.num(st.c2), u))))
    return _expit(g, z)


def _temperature(g, x, st):
    z = _log_odds(g, x, st.logit)
    zero = g.num(0.0)
    pos = g.op("GreaterOrEqual", z, zero)
    half_z = g.mul(g.num(0.5), z)
    h0 = g.where(pos, g.op("Neg", half_z), zero)
    h1 = g.where(pos, zero, half_z)
    floor = g.num(-1e300)
    x0 = g.op("Max", g.div(h0, g.num(st.scale)), floor)
    x1 = g.op("Max", g.div(h1, g.num(st.scale)), floor)
    if st.beta > 0:
        x0, x1 = g.mul(g.num(st.beta), x0), g.mul(g.num(st.beta), x1)
    else:
        x0, x1 = g.mul(x0, zero), g.mul(x1, zero)
    l0, l1 = g.add(x0, g.num(st.bias0)), g.add(x1, g.num(st.bias1))
    m = g.where(g.op("GreaterOrEqual", l0, l1), l0, l1)
    e0, e1 = g.op("Exp", g.sub(l0, m)), g.op("Exp", g.sub(l1, m))
    return g.div(e1, g.add(e0, e1))


_STAGES = {
    Step: _step,
    Nearest: _nearest,
    Interpolate: _interpolate,
    Sigmoid: _sigmoid,
    Beta: _beta,
    Quadratic: _quadratic,
    Temperature: _temperature,
}


def _rounding(g, x, d):
    f = g.num(10.0**d if d >= 0 else 10.0 ** (-d))
    y = g.mul(x, f) if d >= 0 else g.div(x, f)
    fl = g.op("Floor", y)
    frac = g.sub(y, fl)
    half = g.num(0.5)
    two = g.num(2.0)
    odd = g.op(
        "Not", g.op("Equal", g.sub(fl, g.mul(two, g.op("Floor", g.div(fl, two)))), g.num(0.0))
    )
    up = g.op("Or", g.op("Greater", frac, half), g.op("And", g.op("Equal", frac, half), odd))
    r = g.add(fl, g.op("Cast", up, to=11))  # 11: DOUBLE
    r = g.div(r, f) if d >= 0 else g.mul(r, f)
    small = g.op("Less", g.op("Abs", y), g.num(2.0**52))
    return g.where(small, r, x)


_MERGES = ("log", "square", "mean")


def _merge(g: _Graph, p0: str, p1: str, merge: str) -> str:
    if merge == "log":
        return g.div(p1, g.add(g.sub(g.num(1.0), p0), p1))
    if merge == "square":
        return g.add(p1, g.mul(g.num(0.5), g.sub(g.mul(p0, p0), g.mul(p1, p1))))
    return g.mul(g.num(0.5), g.add(p0, p1))


def to_onnx(calibrator: object, *, abstain: Any = None) -> onnx.ModelProto:
    """An ONNX model that calibrates scores as ``calibrator`` does.

    Parameters
    ----------
    calibrator : object
        A fitted binary score calibrator: :class:`~venncal.calibration.VennAbersCalibrator`
        (any ``merge``), :class:`~venncal.calibration.IsotonicCalibrator`,
        :class:`~venncal.calibration.PlattCalibrator`,
        :class:`~venncal.calibration.HistogramCalibrator`,
        :class:`~venncal.calibration.BayesianBinningCalibrator`,
        :class:`~venncal.calibration.BetaCalibrator`,
        :class:`~venncal.calibration.QuadraticCalibrator`,
        :class:`~venncal.calibration.ScalingBinningCalibrator` or
        :class:`~venncal.calibration.TemperatureCalibrator` fitted on one score column; a
        K-class :class:`~venncal.calibration.TemperatureCalibrator`,
        :class:`~venncal.calibration.MatrixScalingCalibrator` (every ``structure``) or
        :class:`~venncal.calibration.DirichletCalibrator`; a
        :class:`~venncal.calibration.MulticlassVennAbersCalibrator` with ``strategy="ovr"``
        (pooled or not, every ``merge`` and ``score_type``); or what :func:`venncal.load`
        returns for one.
    abstain : AbstentionRule, default=None
        A fitted binary :class:`~venncal.AbstentionRule` whose threshold applies to this
        calibrator's probabilities: one more output ``accept``, float64, 1.0 where
        ``rule.accept`` is True, 0.0 where False, NaN where ``p`` is NaN.

    Returns
    -------
    onnx.ModelProto
        Input ``score``: float64, shape ``[N]``. Outputs ``p`` (the probability of
        ``classes_[1]``, as ``predict_proba(score)[:, 1]``), and for Venn-Abers ``p0`` and
        ``p1`` (as ``predict_interval``): float64, shape ``[N]``. For a K-class calibrator,
        input ``scores`` of shape ``[N, K]`` and output ``p`` of shape ``[N, K]``
        (``predict_proba(scores)``; NaN in every column of a row it refuses); for
        one-vs-rest multiclass Venn-Abers also ``p0`` and ``p1`` of shape ``[N, K]``
        (``predict_interval(scores)[:, :, 0]`` and ``[:, :, 1]``). Operator set
        :data:`OPSET`; no float32 anywhere. Exact under onnxruntime's default session
        options: no arithmetic node has a constant operand the graph optimiser could
        rewrite.

    Raises
    ------
    ImportError
        The ``onnx`` package is not installed.
    ValueError, TypeError
        The calibrator cannot be exported (unfitted, multiclass Venn-Abers other than
        one-vs-rest, ACP, fitted within groups, a classifier wrapper, not a venncal
        calibrator), with the reason.

    Notes
    -----
    A NaN score gives NaN; ``±inf`` is read as the largest finite score of its sign; a
    calibrator of probabilities (beta, quadratic, temperature scaling fitted on
    probabilities) gives NaN for a score outside [0, 1], which its ``predict_proba`` refuses.
    Step lookups are exact (bit for bit); ``Exp`` and ``Log`` of the runtime may differ from
    numpy's by an ulp, which moves a probability by about 1e-16.

    Examples
    --------
    >>> import numpy as np
    >>> import onnxruntime as ort  # doctest: +SKIP
    >>> from venncal.calibration import PlattCalibrator
    >>> cal = PlattCalibrator().fit([0.1, 0.4, 0.35, 0.8, 0.7], [0, 0, 1, 1, 1])
    >>> model = to_onnx(cal)
    >>> [o.name for o in model.graph.output]
    ['p']
    >>> sess = ort.InferenceSession(model.SerializeToString())  # doctest: +SKIP
    >>> s = np.array([0.2, 0.9])
    >>> p = sess.run(["p"], {"score": s})[0]  # doctest: +SKIP
    >>> bool(np.allclose(p, cal.predict_proba(s)[:, 1], rtol=0, atol=1e-12))  # doctest: +SKIP
    True
    """
    plan = plan_of(calibrator)
    decision = None if abstain is None else decision_of(abstain, plan)
    onnx = _import_onnx()
    helper = onnx.helper
    g = _Graph(onnx)
    if plan.venn_abers_classes is not None:
        from venncal.export._onnx_venn_abers import venn_abers_class_graph

        return _model(onnx, g, plan, *venn_abers_class_graph(g, plan, _step, _merge))
    if plan.classes is not None:
        from venncal.export._onnx_classes import class_graph

        return _model(onnx, g, plan, *class_graph(g, plan))
    score = "score"
    x = g.op("Clip", score, g.num(-BIG), g.num(BIG), hint="x")
    bad = g.op("IsNaN", score)
    if plan.unit:
        out_of = g.op("Or", g.op("Less", score, g.num(0.0)), g.op("Greater", score, g.num(1.0)))
        bad = g.op("Or", bad, out_of)
    if plan.decimals is not None:
        x = _rounding(g, x, plan.decimals)
    if plan.venn_abers is not None:
        s0, s1, merge = plan.venn_abers
        p0, p1 = _step(g, x, s0), _step(g, x, s1)
        outs = {"p": _merge(g, p0, p1, merge), "p0": p0, "p1": p1}
    else:
        for stage in plan.stages:
            x = _STAGES[type(stage)](g, x, stage)
        outs = {"p": x}
    if decision is not None:
        outs["accept"] = onnx_accept(g, outs, decision)
    nan = g.num(np.nan)
    for name, tensor in outs.items():
        g.nodes.append(helper.make_node("Where", [bad, nan, tensor], [name]))
    return _model(onnx, g, plan, (score, ["N"]), [(name, ["N"]) for name in outs])


def _model(onnx: Any, g: _Graph, plan: Any, source: tuple, outputs: list) -> onnx.ModelProto:
    """The checked model of graph ``g`` with input ``source`` and ``outputs`` (name, shape)."""
    helper, TP = onnx.helper, onnx.TensorProto
    g.finish(source[0])
    graph = helper.make_graph(
        g.nodes,
        f"venncal_{plan.name}",
        [helper.make_tensor_value_info(source[0], TP.DOUBLE, source[1])],
        [helper.make_tensor_value_info(name, TP.DOUBLE, shape) for name, shape in outputs],
        initializer=g.inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="venncal",
        doc_string=f"{plan.name} exported by venncal.export.to_onnx",
    )
    model.ir_version = min(model.ir_version, 8)
    onnx.checker.check_model(model)
    return model
